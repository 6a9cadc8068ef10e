// dem._core: the types every Simulator class shares (configuration, materials, samplers, motions,
// regions, summaries, output), then every instantiation of the list (python/CMakeLists.txt).
#include <pybind11/numpy.h>

#include <cmath>
#include <limits>
#include <map>
#include <string>

#include "common.hpp"
#include "dem/dem.hpp"
#include "dem/io/csv.hpp"
#include "dem/io/vtk.hpp"
#include "dem/shape/clump.hpp"
#include "dem/shape/deformable_sphere.hpp"
#include "dem/shape/polyhedron.hpp"
#include "dem/shape/polyhedron/from_mesh.hpp"
#include "instantiations.hpp"  // generated: bind_all(module)

namespace dem::python {

boundary::rigid_motion python_motion::operator()(double t) const {
  py::gil_scoped_acquire gil;
  const py::object r = f(t);
  if (py::isinstance<boundary::rigid_motion>(r)) return r.cast<boundary::rigid_motion>();
  throw py::type_error("dem: a boundary motion function must return a dem.boundary.RigidMotion, not " + py::str(py::type::of(r)).cast<std::string>());
}

void register_simulator(py::module_& m, const char* shape, const char* law, const char* precision, const char* backend, py::object cls) {
  py::dict table = m.attr("simulators");
  table[py::make_tuple(shape, law, precision, backend)] = cls;
}

namespace {

void bind_config(py::module_& m) {
  py::class_<simulation_config>(m, "Config", "The run-time settings of a simulator (dem::simulation_config); checked when a simulator is made.")
      .def(py::init([](const aabb& domain, const vec3d& gravity, double dt, double contact_margin, double boundary_margin, double max_speed,
                       bool allow_unstable_dt, bool allow_initial_overlap, double position_resolution, std::uint32_t status_read_interval,
                       std::uint32_t max_overrun, std::uint32_t broad_phase_levels, double facet_tolerance) {
             simulation_config c;
             c.domain = domain;
             c.gravity = gravity;
             c.dt = dt;
             c.contact_margin = contact_margin;
             c.boundary_margin = boundary_margin;
             c.max_speed = max_speed;
             c.allow_unstable_dt = allow_unstable_dt;
             c.allow_initial_overlap = allow_initial_overlap;
             c.position_resolution = position_resolution;
             c.status_read_interval = status_read_interval;
             c.max_overrun = max_overrun;
             c.broad_phase_levels = broad_phase_levels;
             c.facet_tolerance = facet_tolerance;
             return c;
           }),
           py::arg("domain"), py::kw_only(), py::arg("gravity") = vec3d{0, 0, -9.81}, py::arg("dt") = 1e-5, py::arg("contact_margin") = -1.0,
           py::arg("boundary_margin") = -1.0, py::arg("max_speed") = std::numeric_limits<double>::infinity(), py::arg("allow_unstable_dt") = false,
           py::arg("allow_initial_overlap") = false, py::arg("position_resolution") = 0.0, py::arg("status_read_interval") = 32,
           py::arg("max_overrun") = 256, py::arg("broad_phase_levels") = 0, py::arg("facet_tolerance") = 0.0)
      .def_readwrite("domain", &simulation_config::domain)
      .def_readwrite("gravity", &simulation_config::gravity)
      .def_readwrite("dt", &simulation_config::dt)
      .def_readwrite("contact_margin", &simulation_config::contact_margin)
      .def_readwrite("boundary_margin", &simulation_config::boundary_margin)
      .def_readwrite("max_speed", &simulation_config::max_speed)
      .def_readwrite("allow_unstable_dt", &simulation_config::allow_unstable_dt)
      .def_readwrite("allow_initial_overlap", &simulation_config::allow_initial_overlap)
      .def_readwrite("position_resolution", &simulation_config::position_resolution)
      .def_readwrite("status_read_interval", &simulation_config::status_read_interval)
      .def_readwrite("max_overrun", &simulation_config::max_overrun)
      .def_readwrite("broad_phase_levels", &simulation_config::broad_phase_levels)
      .def_readwrite("facet_tolerance", &simulation_config::facet_tolerance);
}

void bind_material(py::module_& m) {
  py::class_<material>(m, "Material", "A material (dem::material); properties of a custom force law go in `properties`.")
      .def(py::init([](const std::string& name, double density, double youngs_modulus, double poisson_ratio, double restitution, double friction,
                       double rolling_friction, double rolling_damping, double work_of_adhesion, double cohesion_range, bool rigid,
                       const std::map<std::string, double>& properties) {
             material x;
             x.name = name;
             x.density = density;
             x.youngs_modulus = youngs_modulus;
             x.poisson_ratio = poisson_ratio;
             x.restitution = restitution;
             x.friction = friction;
             x.rolling_friction = rolling_friction;
             x.rolling_damping = rolling_damping;
             x.work_of_adhesion = work_of_adhesion;
             x.cohesion_range = cohesion_range;
             x.rigid = rigid;
             x.properties = properties;
             return x;
           }),
           py::arg("name") = "material", py::kw_only(), py::arg("density") = 2500.0, py::arg("youngs_modulus") = 1e7, py::arg("poisson_ratio") = 0.3,
           py::arg("restitution") = 0.5, py::arg("friction") = 0.5, py::arg("rolling_friction") = 0.0, py::arg("rolling_damping") = 0.3,
           py::arg("work_of_adhesion") = 0.0, py::arg("cohesion_range") = 0.0, py::arg("rigid") = false,
           py::arg("properties") = std::map<std::string, double>{})
      .def_readwrite("name", &material::name)
      .def_readwrite("density", &material::density)
      .def_readwrite("youngs_modulus", &material::youngs_modulus)
      .def_readwrite("poisson_ratio", &material::poisson_ratio)
      .def_readwrite("restitution", &material::restitution)
      .def_readwrite("friction", &material::friction)
      .def_readwrite("rolling_friction", &material::rolling_friction)
      .def_readwrite("rolling_damping", &material::rolling_damping)
      .def_readwrite("work_of_adhesion", &material::work_of_adhesion)
      .def_readwrite("cohesion_range", &material::cohesion_range)
      .def_readwrite("rigid", &material::rigid)
      .def_readwrite("properties", &material::properties)
      .def("__repr__", [](const material& x) { return "dem.Material('" + x.name + "', density=" + std::to_string(x.density) + ", ...)"; });
}

void bind_samplers(py::module_& core) {
  py::module_ m = core.def_submodule("sample", "Particle sets: lattices, random fills, size distributions (dem/sample/).");
  py::class_<particle_set>(core, "ParticleSet", "Positions, radii and (optional) velocities of spheres to add.")
      .def(py::init([](const std::vector<vec3d>& positions, const py::array_t<double, py::array::forcecast>& radii,
                       std::optional<std::vector<vec3d>> velocities) {
             particle_set s;
             s.positions = positions;
             s.radii.assign(radii.data(), radii.data() + radii.size());
             if (velocities) s.velocities = *velocities;
             return s;
           }),
           py::arg("positions"), py::arg("radii"), py::arg("velocities") = py::none())
      .def_property(
          "positions", [](const particle_set& s) { return points_array(s.positions); },
          [](particle_set& s, const std::vector<vec3d>& v) { s.positions = v; })
      .def_property(
          "radii", [](const particle_set& s) { return array_of(s.radii); }, [](particle_set& s, const std::vector<double>& r) { s.radii = r; })
      .def_property(
          "velocities", [](const particle_set& s) { return points_array(s.velocities); },
          [](particle_set& s, const std::vector<vec3d>& v) { s.velocities = v; })
      .def("__len__", [](const particle_set& s) { return s.positions.size(); });

  auto lattice = [](const aabb& box, double radius, double radius_spread, double spacing, double jitter, std::size_t max_count,
                    std::uint64_t seed, bool hexagonal) {
    sample::lattice_options o;
    o.radius = radius;
    o.radius_spread = radius_spread;
    o.spacing = spacing;
    o.jitter = jitter;
    o.max_count = max_count;
    o.seed = seed;
    return hexagonal ? sample::hexagonal_close_packing(box, o) : sample::cubic_lattice(box, o);
  };
  m.def(
      "cubic_lattice",
      [lattice](const aabb& box, double radius, double radius_spread, double spacing, double jitter, std::size_t max_count, std::uint64_t seed) {
        return lattice(box, radius, radius_spread, spacing, jitter, max_count, seed, false);
      },
      py::arg("box"), py::kw_only(), py::arg("radius"), py::arg("radius_spread") = 0.0, py::arg("spacing") = 0.0, py::arg("jitter") = 0.0,
      py::arg("max_count") = std::numeric_limits<std::size_t>::max(), py::arg("seed") = 42,
      "Spheres on a cubic lattice filling the box (spacing 0: the smallest that cannot overlap).");
  m.def(
      "hexagonal_close_packing",
      [lattice](const aabb& box, double radius, double radius_spread, double spacing, double jitter, std::size_t max_count, std::uint64_t seed) {
        return lattice(box, radius, radius_spread, spacing, jitter, max_count, seed, true);
      },
      py::arg("box"), py::kw_only(), py::arg("radius"), py::arg("radius_spread") = 0.0, py::arg("spacing") = 0.0, py::arg("jitter") = 0.0,
      py::arg("max_count") = std::numeric_limits<std::size_t>::max(), py::arg("seed") = 42);

  py::class_<sample::constant_radius>(m, "ConstantRadius").def(py::init([](double r) { return sample::constant_radius{r}; }), py::arg("radius"));
  py::class_<sample::normal_radii>(m, "NormalRadii", "Normal radii, truncated at [min, max] (< 0: mean -/+ 3 std_dev).")
      .def(py::init([](double mean, double std_dev, double min, double max) { return sample::normal_radii{mean, std_dev, min, max}; }),
           py::arg("mean"), py::arg("std_dev"), py::arg("min") = -1.0, py::arg("max") = -1.0);
  py::class_<sample::lognormal_radii>(m, "LognormalRadii")
      .def(py::init([](double median, double sigma, double min, double max) { return sample::lognormal_radii{median, sigma, min, max}; }),
           py::arg("median"), py::arg("sigma"), py::arg("min") = -1.0, py::arg("max") = -1.0);
  py::class_<sample::sieve_curve>(m, "SieveCurve", "A grading curve: sieve openings (diameters, ascending) and the mass fraction passing each.")
      .def(py::init([](const std::vector<double>& sizes, const std::vector<double>& passing) { return sample::sieve_curve{sizes, passing}; }),
           py::arg("sizes"), py::arg("passing"));
  m.def(
      "random_fill",
      [](const py::object& region, const py::object& sizes, std::size_t count, double min_gap, std::size_t max_attempts, std::uint64_t seed) {
        sample::fill_options o;
        o.count = count;
        o.min_gap = min_gap;
        o.max_attempts = max_attempts;
        o.seed = seed;
        auto with_sizes = [&](const auto& r) -> particle_set {
          if (py::isinstance<py::float_>(sizes) || py::isinstance<py::int_>(sizes)) return sample::random_fill(r, sample::constant_radius{sizes.cast<double>()}, o);
          if (py::isinstance<sample::constant_radius>(sizes)) return sample::random_fill(r, sizes.cast<sample::constant_radius>(), o);
          if (py::isinstance<sample::normal_radii>(sizes)) return sample::random_fill(r, sizes.cast<sample::normal_radii>(), o);
          if (py::isinstance<sample::lognormal_radii>(sizes)) return sample::random_fill(r, sizes.cast<sample::lognormal_radii>(), o);
          if (py::isinstance<sample::sieve_curve>(sizes)) return sample::random_fill(r, sizes.cast<sample::sieve_curve>(), o);
          throw py::type_error("dem: random_fill: sizes is a radius, ConstantRadius, NormalRadii, LognormalRadii or SieveCurve");
        };
        if (py::isinstance<inspect::cylinder>(region)) return with_sizes(region.cast<inspect::cylinder>());
        return with_sizes(region.cast<aabb>());
      },
      py::arg("region"), py::arg("sizes"), py::kw_only(), py::arg("count") = 0, py::arg("min_gap") = 0.0, py::arg("max_attempts") = 2000,
      py::arg("seed") = 42,
      "Non-overlapping spheres at random in a box ((lo, hi)) or a dem.inspect.Cylinder; count 0: as many as fit.");
}

void bind_motions(py::module_& core) {
  py::module_ b = core.def_submodule("boundary", "Motions of boundaries (dem/boundary/motion.hpp).");
  py::class_<boundary::rigid_motion>(b, "RigidMotion", "Where a boundary is at time t: rotation (w, x, y, z), translation, and its velocities.")
      .def(py::init([](const quatd& rotation, const vec3d& translation, const vec3d& velocity, const vec3d& omega) {
             return boundary::rigid_motion{rotation, translation, velocity, omega};
           }),
           py::arg("rotation") = quatd::identity(), py::arg("translation") = vec3d{0, 0, 0}, py::arg("velocity") = vec3d{0, 0, 0},
           py::arg("omega") = vec3d{0, 0, 0})
      .def_readwrite("rotation", &boundary::rigid_motion::rotation)
      .def_readwrite("translation", &boundary::rigid_motion::translation)
      .def_readwrite("velocity", &boundary::rigid_motion::velocity)
      .def_readwrite("omega", &boundary::rigid_motion::omega);
  py::class_<boundary::fixed>(b, "Fixed").def(py::init<>());
  py::class_<boundary::constant_velocity>(b, "ConstantVelocity",
                                          "Translation at `velocity` and rotation at `omega` about the axis through `centre` (moving with it), from `start` on.")
      .def(py::init([](const vec3d& v, const vec3d& w, const vec3d& c, double start) { return boundary::constant_velocity{v, w, c, start}; }),
           py::arg("velocity") = vec3d{0, 0, 0}, py::arg("omega") = vec3d{0, 0, 0}, py::arg("centre") = vec3d{0, 0, 0}, py::arg("start") = 0.0);
  py::class_<boundary::vibration>(b, "Vibration")
      .def(py::init([](const vec3d& amplitude, double frequency, double phase, const vec3d& angular_amplitude, const vec3d& centre, double start) {
             return boundary::vibration{amplitude, frequency, phase, angular_amplitude, centre, start};
           }),
           py::arg("amplitude") = vec3d{0, 0, 0}, py::arg("frequency") = 0.0, py::arg("phase") = 0.0, py::arg("angular_amplitude") = vec3d{0, 0, 0},
           py::arg("centre") = vec3d{0, 0, 0}, py::arg("start") = 0.0);
  py::enum_<boundary::servo::mode>(b, "ServoMode")
      .value("stop", boundary::servo::mode::stop)
      .value("reverse", boundary::servo::mode::reverse)
      .value("regulate", boundary::servo::mode::regulate);
  py::class_<boundary::servo>(b, "Servo", "Force-controlled translation along `direction` until the load reaches `target_force` (then `after`).")
      .def(py::init([](const vec3d& direction, double speed, double target_force, boundary::servo::mode after, double return_speed, double gain) {
             return boundary::servo{direction, speed, target_force, after, return_speed, gain};
           }),
           py::arg("direction") = vec3d{0, 0, -1}, py::arg("speed") = 0.01, py::arg("target_force") = 1.0, py::arg("after") = boundary::servo::mode::stop,
           py::arg("return_speed") = 0.01, py::arg("gain") = 1.0);
  py::class_<boundary::servo_state>(b, "ServoState")
      .def_readonly("travel", &boundary::servo_state::travel)
      .def_readonly("velocity", &boundary::servo_state::velocity)
      .def_readonly("load", &boundary::servo_state::load)
      .def_property_readonly("reached", [](const boundary::servo_state& s) { return s.reached != 0; });
  py::class_<boundary::free_body>(b, "FreeBody", "A boundary moved by the particles' load (translation only): mass, start velocity, extra force.")
      .def(py::init([](double mass, const vec3d& velocity, const vec3d& force, bool gravity) {
             return boundary::free_body{mass, velocity, force, gravity ? 1u : 0u, 0u};
           }),
           py::arg("mass") = 1.0, py::arg("velocity") = vec3d{0, 0, 0}, py::arg("force") = vec3d{0, 0, 0}, py::arg("gravity") = true);
  py::class_<boundary::free_body_state>(b, "FreeBodyState")
      .def_readonly("displacement", &boundary::free_body_state::displacement)
      .def_readonly("velocity", &boundary::free_body_state::velocity)
      .def_readonly("load", &boundary::free_body_state::load);

  py::module_ f = core.def_submodule("family", "Prescribed motions of particle families (dem/family/motion.hpp).");
  py::class_<family::free>(f, "Free").def(py::init<>());
  py::class_<family::fixed>(f, "Fixed").def(py::init<>());
  py::class_<family::constant_velocity>(f, "ConstantVelocity", "The family's velocity and angular velocity, prescribed in the chosen components ('xyz', 'z', '' ...).")
      .def(py::init([](const vec3d& v, const vec3d& w, const std::string& linear, const std::string& angular) {
             auto parse = [](const std::string& s, const char* what) {
               unsigned c = 0;
               for (char ch : s) {
                 if (ch == 'x') c |= family::x;
                 else if (ch == 'y') c |= family::y;
                 else if (ch == 'z') c |= family::z;
                 else throw py::value_error(std::string("dem: family.ConstantVelocity: ") + what + " is '" + s + "'; it takes the letters x, y and z");
               }
               return static_cast<family::components>(c);
             };
             return family::constant_velocity{v, w, parse(linear, "linear"), parse(angular, "angular")};
           }),
           py::arg("velocity") = vec3d{0, 0, 0}, py::arg("omega") = vec3d{0, 0, 0}, py::arg("linear") = "xyz", py::arg("angular") = "xyz");
}

void bind_inspect(py::module_& core) {
  py::module_ m = core.def_submodule("inspect", "Regions and summaries of the inspectors (dem/inspect/).");
  py::class_<inspect::box>(m, "Box").def(py::init([](const vec3d& lo, const vec3d& hi) { return inspect::box{lo, hi}; }), py::arg("lo"), py::arg("hi"));
  py::class_<inspect::ball>(m, "Ball").def(py::init([](const vec3d& c, double r) { return inspect::ball{c, r}; }), py::arg("centre"), py::arg("radius"));
  py::class_<inspect::cylinder>(m, "Cylinder", "Around the axis from `base` along `axis` for `length` (infinite: unbounded both ways).")
      .def(py::init([](const vec3d& base, const vec3d& axis, double radius, double length) { return inspect::cylinder{base, axis, radius, length}; }),
           py::arg("base"), py::arg("axis"), py::arg("radius"), py::arg("length") = std::numeric_limits<double>::infinity());
  py::class_<inspect::half_space>(m, "HalfSpace", "The side of the plane through `point` that `normal` points into.")
      .def(py::init([](const vec3d& p, const vec3d& n) { return inspect::half_space{p, n}; }), py::arg("point"), py::arg("normal"));

  py::class_<inspect::particle_summary>(m, "ParticleSummary")
      .def_readonly("count", &inspect::particle_summary::count)
      .def_readonly("mass", &inspect::particle_summary::mass)
      .def_readonly("volume", &inspect::particle_summary::volume)
      .def_readonly("centre_of_mass", &inspect::particle_summary::centre_of_mass)
      .def_readonly("momentum", &inspect::particle_summary::momentum)
      .def_readonly("kinetic_translational", &inspect::particle_summary::kinetic_translational)
      .def_readonly("kinetic_rotational", &inspect::particle_summary::kinetic_rotational)
      .def_property_readonly("kinetic_energy", &inspect::particle_summary::kinetic_energy)
      .def_readonly("max_speed", &inspect::particle_summary::max_speed)
      .def_readonly("lowest", &inspect::particle_summary::lowest)
      .def_readonly("highest", &inspect::particle_summary::highest)
      .def_readonly("extent_lo", &inspect::particle_summary::extent_lo)
      .def_readonly("extent_hi", &inspect::particle_summary::extent_hi)
      .def_readonly("solid_volume", &inspect::particle_summary::solid_volume)
      .def_readonly("region_volume", &inspect::particle_summary::region_volume)
      .def_readonly("packing_fraction", &inspect::particle_summary::packing_fraction);
  auto matrix = [](const std::array<double, 9>& a) {
    py::array_t<double> r({py::ssize_t{3}, py::ssize_t{3}});
    std::copy(a.begin(), a.end(), r.mutable_data());
    return r;
  };
  py::class_<inspect::contact_summary>(m, "ContactSummary")
      .def_readonly("particles", &inspect::contact_summary::particles)
      .def_readonly("contact_ends", &inspect::contact_summary::contact_ends)
      .def_readonly("coordination", &inspect::contact_summary::coordination)
      .def_property_readonly("histogram", [](const inspect::contact_summary& s) { return array_of(std::vector<std::uint64_t>(s.histogram.begin(), s.histogram.end())); })
      .def_property_readonly("stress", [matrix](const inspect::contact_summary& s) { return matrix(s.stress); }, "Love-Weber stress (Pa, tension positive), 3 x 3.")
      .def_property_readonly("force_moment", [matrix](const inspect::contact_summary& s) { return matrix(s.force_moment); })
      .def_property_readonly("fabric", [matrix](const inspect::contact_summary& s) { return matrix(s.fabric); })
      .def_readonly("region_volume", &inspect::contact_summary::region_volume)
      .def_property_readonly("mean_pressure", &inspect::contact_summary::mean_pressure, "Compression positive (Pa).");
}

void bind_reports(py::module_& m) {
  py::class_<energy::ledger>(m, "EnergyLedger", "Where the energy went since the ledger was enabled (J).")
      .def_readonly("kinetic", &energy::ledger::kinetic)
      .def_readonly("potential", &energy::ledger::potential)
      .def_readonly("elastic", &energy::ledger::elastic)
      .def_readonly("gravity_work", &energy::ledger::gravity_work)
      .def_readonly("external_work", &energy::ledger::external_work)
      .def_readonly("boundary_work", &energy::ledger::boundary_work)
      .def_readonly("normal_damping", &energy::ledger::normal_damping)
      .def_readonly("tangential", &energy::ledger::tangential)
      .def_readonly("rolling", &energy::ledger::rolling)
      .def_readonly("twisting", &energy::ledger::twisting)
      .def_property_readonly("input", &energy::ledger::input)
      .def_property_readonly("dissipated", &energy::ledger::dissipated)
      .def_property_readonly("kinetic_change", &energy::ledger::kinetic_change)
      .def_property_readonly("potential_change", &energy::ledger::potential_change)
      .def_property_readonly("elastic_change", &energy::ledger::elastic_change)
      .def_property_readonly("imbalance", &energy::ledger::imbalance)
      .def_property_readonly("relative_imbalance", &energy::ledger::relative_imbalance);
  py::class_<deformation_report>(m, "DeformationReport")
      .def_readonly("particles", &deformation_report::particles)
      .def_readonly("deformed", &deformation_report::deformed)
      .def_readonly("solved", &deformation_report::solved)
      .def_readonly("iterations", &deformation_report::iterations)
      .def_readonly("max_iterations", &deformation_report::max_iterations)
      .def_readonly("mean_iterations", &deformation_report::mean_iterations)
      .def_readonly("max_ratio", &deformation_report::max_ratio)
      .def_readonly("redone", &deformation_report::redone);
}

void bind_io(py::module_& core) {
  py::module_ m = core.def_submodule("io", "Output: ParaView series (dem/io/vtk.hpp) and particle CSV files (dem/io/csv.hpp).");
  py::class_<io::vtk_series>(m, "VtkSeries", "A ParaView time series in a directory: sim.write_frame(series) adds a frame and updates the .pvd.")
      .def(py::init<std::string, std::string>(), py::arg("directory"), py::arg("base") = "particles")
      .def_property_readonly("frames", &io::vtk_series::frames)
      .def_property_readonly("pvd_path", &io::vtk_series::pvd_path);
  m.def(
      "read_csv",
      [](const std::string& path) {
        const io::snapshot s = io::read_csv(path);
        py::dict d;  // no time or step: the file is a plain column list and holds neither
        d["id"] = array_of(s.id);
        d["position"] = points_array(s.position);
        d["velocity"] = points_array(s.velocity);
        d["angular_velocity"] = points_array(s.angular_velocity);
        d["radius"] = array_of(s.radius);
        d["active"] = array_of(s.active);
        return d;
      },
      py::arg("path"), "A particle CSV file (as write_csv writes it) as a dict of NumPy arrays: id, position, velocity, angular_velocity, radius, active. "
      "The file holds no time or step.");
}

void bind_shapes(py::module_& core) {
  py::module_ m = core.def_submodule("shapes", "Body types of rigid shapes: clumps of spheres and convex polyhedra (dem/shape/).");
  py::class_<shape::clump_template>(m, "ClumpTemplate", "A rigid body made of overlapping spheres, with the mass properties of their union.")
      .def_property_readonly("name", &shape::clump_template::name)
      .def_property_readonly("volume", &shape::clump_template::volume)
      .def_property_readonly("centroid", &shape::clump_template::centroid, "Centre of mass in the frame the spheres were given in.")
      .def_property_readonly("principal_inertia_per_density", &shape::clump_template::principal_inertia_per_density)
      .def_property_readonly("bounding_radius", &shape::clump_template::bounding_radius)
      .def("__len__", &shape::clump_template::size);
  m.def(
      "make_clump", [](const std::string& name, const std::vector<vec3d>& centres, const std::vector<double>& radii) { return shape::make_clump(name, centres, radii); },
      py::arg("name"), py::arg("centres"), py::arg("radii"));
  py::class_<shape::poly::polyhedron_template>(m, "PolyhedronTemplate", "A convex polyhedron in its principal frame, with its mass properties per unit density.")
      .def_readonly("name", &shape::poly::polyhedron_template::name)
      .def_readonly("volume", &shape::poly::polyhedron_template::volume)
      .def_readonly("principal_moments", &shape::poly::polyhedron_template::principal_moments)
      .def_readonly("centroid_in_input", &shape::poly::polyhedron_template::centroid_in_input)
      .def_readonly("bounding_radius", &shape::poly::polyhedron_template::bounding_radius);
  m.def(
      "make_polyhedron",
      [](const std::vector<vec3d>& points, const std::string& name, int max_vertices) { return shape::poly::make_polyhedron_template(points, name, max_vertices); },
      py::arg("points"), py::arg("name"), py::arg("max_vertices") = 32, "The convex hull of the points as a body type.");
  m.def(
      "load_polyhedron",
      [](const std::string& path, bool allow_convex_hull) {
        shape::poly::mesh_options o;
        o.allow_convex_hull = allow_convex_hull;
        return shape::poly::load_polyhedron_template(path, o);
      },
      py::arg("path"), py::arg("allow_convex_hull") = false, "A body type from a convex OBJ or STL mesh.");
}

}  // namespace

}  // namespace dem::python

PYBIND11_MODULE(_core, m) {
  namespace dp = dem::python;
  m.doc() = "dem's compiled core: the Simulator classes of the instantiation list and the types they share (docs/python.md).";
  m.attr("simulators") = pybind11::dict();
  dp::bind_config(m);
  dp::bind_material(m);
  dp::bind_samplers(m);
  dp::bind_motions(m);
  dp::bind_inspect(m);
  dp::bind_reports(m);
  dp::bind_io(m);
  dp::bind_shapes(m);
  dp::bind_all(m);
}
