#pragma once
// bind_simulator<Sim>: one dem::Simulator instantiation as a Python class. Every instantiation in
// the list (python/CMakeLists.txt, DEM_PYTHON_INSTANTIATIONS) compiles this in a file of its own.
//
// The class is the C++ Simulator itself (no copy of the state is kept on the Python side); what
// returns arrays copies them by particle id, except local_arrays(), which hands NumPy views of the
// host backend's storage (read-only, valid until the next step: see docs/python.md).
#include <pybind11/numpy.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "common.hpp"
#include "dem/dem.hpp"
#include "dem/io/csv.hpp"
#include "dem/io/vtk.hpp"
#include "dem/track/tracker.hpp"

namespace dem::python {

// The Python object: the Simulator, and how many local_arrays() views are open (stepping or
// changing the particles while one is open raises: the views would dangle).
template <class Sim>
struct py_simulator : Sim {
  explicit py_simulator(const simulation_config& c) : Sim(c) {}
  explicit py_simulator(Sim&& s) : Sim(std::move(s)) {}
  int open_views = 0;
  void check_no_views(const char* what) const {
    if (open_views)
      throw std::runtime_error(std::string("dem: ") + what + " while a local_arrays() view is open: leave its `with` block first (the views would dangle)");
  }
};

namespace detail {

// Read-only NumPy view of `count` rows of `cols` values of type T at p, kept alive by `owner`.
template <class T>
py::array view(const T* p, std::size_t count, std::size_t cols, py::handle owner) {
  std::vector<py::ssize_t> shape{static_cast<py::ssize_t>(count)}, strides{static_cast<py::ssize_t>(cols * sizeof(T))};
  if (cols > 1) {
    shape.push_back(static_cast<py::ssize_t>(cols));
    strides.push_back(static_cast<py::ssize_t>(sizeof(T)));
  }
  py::array a(py::dtype::of<T>(), shape, strides, p, owner);
  py::detail::array_proxy(a.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
  return a;
}

inline boundary::axisymmetric axisymmetric(const vec3d& base, const vec3d& axis, double length, double radius, double top_radius, bool inside,
                                           bool cap_base, bool cap_top) {
  boundary::axisymmetric c;
  c.base = base;
  c.axis = axis;
  c.length = length;
  c.radius = radius;
  c.top_radius = top_radius;
  c.inside = inside;
  c.cap_base = cap_base;
  c.cap_top = cap_top;
  return c;
}

// The inspect region a Python object stands for (None: everywhere) and the family filter (None:
// every family), as the run-time kinds (inspect/any_region.hpp): one instantiation of each inspector.
inline inspect::selection<inspect::any_region, inspect::any_family> selection_of(const py::object& r, const std::optional<family::family_id>& fam) {
  inspect::selection<inspect::any_region, inspect::any_family> sel;
  if (fam) sel.filter.family = *fam;
  if (r.is_none()) return sel;
  if (py::isinstance<inspect::box>(r)) sel.where = r.cast<inspect::box>();
  else if (py::isinstance<inspect::ball>(r)) sel.where = r.cast<inspect::ball>();
  else if (py::isinstance<inspect::cylinder>(r)) sel.where = r.cast<inspect::cylinder>();
  else if (py::isinstance<inspect::half_space>(r)) sel.where = r.cast<inspect::half_space>();
  else
    throw py::type_error("dem: a region is None (everywhere), dem.inspect.Box, Ball, Cylinder or HalfSpace, not " +
                         py::str(py::type::of(r)).cast<std::string>());
  return sel;
}

}  // namespace detail

template <class Sim>
void bind_tracker(py::module_& m, const std::string& name) {
  using T = track::tracker<Sim>;
  py::class_<T>(m, name.c_str(),
                "The particles (bodies) with the given ids: their state by the tracker's order, read and set on the backend "
                "(one gather or scatter of the tracked ones). Arrays are copies.")
      .def_property_readonly("ids", [](const T& t) { return array_of(t.ids()); })
      .def("__len__", &T::size)
      .def("positions", &T::positions)
      .def("velocities", &T::velocities)
      .def("angular_velocities", &T::angular_velocities)
      .def("active", [](T& t) {
        const std::vector<bool> a = t.active();
        py::array_t<bool> r(static_cast<py::ssize_t>(a.size()));
        for (std::size_t k = 0; k < a.size(); ++k) r.mutable_at(k) = a[k];
        return r;
      })
      .def("families", [](T& t) { return array_of(t.families()); })
      .def("set_families", &T::set_families, py::arg("families"))
      .def("set_family", &T::set_family, py::arg("family"))
      .def("contact_forces", &T::contact_forces, "Each tracked particle's contact force (particles and boundaries) of the last evaluation.")
      .def("contact_torques", &T::contact_torques)
      .def("set_positions", &T::set_positions, py::arg("positions"))
      .def("set_velocities", &T::set_velocities, py::arg("velocities"))
      .def("set_angular_velocities", &T::set_angular_velocities, py::arg("angular_velocities"))
      .def("orientations", [](T& t) {
        if constexpr (Sim::policy::rigid) return py::cast(t.orientations());
        else throw py::type_error("dem: orientations are for rigid bodies (clumps, polyhedra)");
      });
}

template <class Sim>
py::object bind_simulator(py::module_& m, const std::string& name) {
  using S = py_simulator<Sim>;
  using real = typename Sim::real;
  constexpr bool rigid = Sim::policy::rigid;
  constexpr bool deformable = Sim::deformable;
  constexpr bool host_memory = !Sim::backend_type::is_device;
  bind_tracker<Sim>(m, name + "Tracker");

  py::class_<S> c(m, name.c_str());
  c.doc() = "A dem::Simulator<" + name + "> (docs/python.md). Create it with dem.Simulator(...), which picks this class.";
  c.def(py::init<const simulation_config&>(), py::arg("config"))
      .def_property_readonly_static("backend_name", [](py::object) { return std::string(Sim::backend_type::name); })
      .def_property_readonly_static("precision", [](py::object) { return std::string(std::is_same_v<real, float> ? "single" : "double"); })
      .def_property_readonly_static("bytes_per_particle", [](py::object) { return Sim::bytes_per_particle(); })
      .def_property_readonly_static("bytes_per_contact", [](py::object) { return Sim::bytes_per_contact(); })
      // ---- configuration ----
      .def_property_readonly("config", &S::config)
      .def_property("dt", &S::dt, [](S& s, double dt) { s.set_dt(dt); }, "The time step (s). Setting it checks that it is > 0 and finite; the next step checks it against the stable step of the particles then present.")
      .def_property("gravity", &S::gravity, &S::set_gravity)
      .def_property_readonly("time", &S::time)
      .def_property_readonly("step_count", &S::step_count)
      .def("stable_time_step", &S::stable_time_step)
      .def_property_readonly("contact_margin", &S::contact_margin)
      .def("set_log", [](S& s, bool on) { s.set_log(on ? &std::cerr : nullptr); }, py::arg("on"),
           "Warnings and recoveries (buffer growth, rebuilds) go to standard error when on (the default).")
      // ---- materials ----
      .def("add_material", &S::add_material, py::arg("material"), "Adds a material; returns its id.")
      .def(
          "set_pair",
          [](S& s, material_id a, material_id b, std::optional<double> restitution, std::optional<double> friction,
             std::optional<double> rolling_friction, std::optional<double> rolling_damping, std::optional<double> work_of_adhesion,
             std::optional<double> cohesion_range, std::optional<double> effective_youngs, std::optional<double> effective_shear,
             std::optional<double> normal_stiffness, std::optional<double> tangential_stiffness_ratio) {
            pair_override o;
            o.restitution = restitution;
            o.friction = friction;
            o.rolling_friction = rolling_friction;
            o.rolling_damping = rolling_damping;
            o.work_of_adhesion = work_of_adhesion;
            o.cohesion_range = cohesion_range;
            o.effective_youngs = effective_youngs;
            o.effective_shear = effective_shear;
            o.normal_stiffness = normal_stiffness;
            o.tangential_stiffness_ratio = tangential_stiffness_ratio;
            s.materials().set_pair(a, b, o);
          },
          py::arg("a"), py::arg("b"), py::kw_only(), py::arg("restitution") = py::none(), py::arg("friction") = py::none(),
          py::arg("rolling_friction") = py::none(), py::arg("rolling_damping") = py::none(), py::arg("work_of_adhesion") = py::none(),
          py::arg("cohesion_range") = py::none(), py::arg("effective_youngs") = py::none(), py::arg("effective_shear") = py::none(),
          py::arg("normal_stiffness") = py::none(), py::arg("tangential_stiffness_ratio") = py::none(),
          "Overrides the mixed values of one pair of materials (the others keep the mixing rules).")
      .def("material", [](const S& s, material_id i) { return s.materials()[i]; }, py::arg("id"))
      .def_property_readonly("num_materials", [](const S& s) { return s.materials().size(); })
      // ---- boundaries ----
      .def("add_plane", &S::add_plane, py::arg("point"), py::arg("normal"), py::arg("material"), py::arg("name") = "")
      .def("add_box", &S::add_box, py::arg("box"), py::arg("material"), "Six planes, normals inward; returns the id of the first.")
      .def("add_plate", &S::add_plate, py::arg("centre"), py::arg("normal"), py::arg("axis"), py::arg("half_length"), py::arg("half_width"),
           py::arg("material"), py::arg("name") = "")
      .def("add_disc", &S::add_disc, py::arg("centre"), py::arg("normal"), py::arg("radius"), py::arg("material"), py::arg("inner_radius") = 0.0,
           py::arg("name") = "")
      .def(
          "add_cylinder",
          [](S& s, const vec3d& base, const vec3d& axis, double radius, material_id mat, double length, bool inside, bool cap_base, bool cap_top,
             const std::string& name) {
            return s.add_cylinder(detail::axisymmetric(base, axis, length, radius, -1, inside, cap_base, cap_top), mat, name);
          },
          py::arg("base"), py::arg("axis"), py::arg("radius"), py::arg("material"), py::kw_only(),
          py::arg("length") = std::numeric_limits<double>::infinity(), py::arg("inside") = true, py::arg("cap_base") = false,
          py::arg("cap_top") = false, py::arg("name") = "")
      .def(
          "add_cone",
          [](S& s, const vec3d& base, const vec3d& axis, double radius, double top_radius, double length, material_id mat, bool inside,
             bool cap_base, bool cap_top, const std::string& name) {
            return s.add_cone(detail::axisymmetric(base, axis, length, radius, top_radius, inside, cap_base, cap_top), mat, name);
          },
          py::arg("base"), py::arg("axis"), py::arg("radius"), py::arg("top_radius"), py::arg("length"), py::arg("material"), py::kw_only(),
          py::arg("inside") = true, py::arg("cap_base") = false, py::arg("cap_top") = false, py::arg("name") = "")
      .def("add_mesh", py::overload_cast<const std::string&, material_id, const std::string&>(&S::add_mesh), py::arg("path"), py::arg("material"),
           py::arg("name") = "", "A triangle mesh from an OBJ or STL (ASCII or binary) file.")
      .def(
          "add_mesh",
          [](S& s, const std::vector<vec3d>& vertices, const py::array_t<std::int64_t, py::array::c_style | py::array::forcecast>& triangles,
             material_id mat, const std::string& name) {
            if (triangles.ndim() != 2 || triangles.shape(1) != 3) throw py::value_error("dem: add_mesh: triangles must be an (m, 3) array of vertex indices");
            boundary::triangle_mesh mesh;
            mesh.vertices = vertices;
            mesh.name = name.empty() ? "mesh" : name;
            const auto t = triangles.unchecked<2>();
            for (py::ssize_t k = 0; k < triangles.shape(0); ++k) {
              std::array<std::uint32_t, 3> tri{};
              for (int j = 0; j < 3; ++j) {
                const std::int64_t v = t(k, j);
                if (v < 0 || v >= static_cast<std::int64_t>(vertices.size()))
                  throw py::value_error("dem: add_mesh: triangle " + std::to_string(k) + " names vertex " + std::to_string(v) + ", but there are " +
                                        std::to_string(vertices.size()));
                tri[j] = static_cast<std::uint32_t>(v);
              }
              mesh.triangles.push_back(tri);
            }
            return s.add_mesh(mesh, mat, name);
          },
          py::arg("vertices"), py::arg("triangles"), py::arg("material"), py::arg("name") = "")
      .def("set_motion", &S::template set_motion<boundary::fixed>, py::arg("boundary"), py::arg("motion"))
      .def("set_motion", &S::template set_motion<boundary::constant_velocity>, py::arg("boundary"), py::arg("motion"))
      .def("set_motion", &S::template set_motion<boundary::vibration>, py::arg("boundary"), py::arg("motion"))
      .def("set_motion", &S::template set_motion<boundary::servo>, py::arg("boundary"), py::arg("motion"))
      .def("set_motion", &S::template set_motion<boundary::free_body>, py::arg("boundary"), py::arg("motion"))
      .def(
          "set_motion", [](S& s, std::uint32_t b, py::function f) { s.set_motion(b, python_motion{std::move(f)}); }, py::arg("boundary"),
          py::arg("motion"),
          "A motion given as a Python function of time returning a dem.boundary.RigidMotion (called once per step, with the GIL).")
      .def_property_readonly("num_boundaries", &S::num_boundaries)
      .def(
          "boundary",
          [](const S& s, std::uint32_t b) {
            const boundary::description& d = s.boundary(b);
            py::dict r;
            r["name"] = d.name;
            r["kind"] = d.kind;
            r["material"] = d.material;
            r["elements"] = d.element_count;
            return r;
          },
          py::arg("boundary"))
      .def("boundary_force", &S::boundary_force, py::arg("boundary"), "The particles' force on the boundary at the last evaluation (N).")
      .def("boundary_torque", &S::boundary_torque, py::arg("boundary"), py::arg("about") = vec3d{0, 0, 0})
      .def("boundary_power", &S::boundary_power, py::arg("boundary"), "The power the boundary puts into the particles (W).")
      .def("boundary_element_forces", &S::boundary_element_forces, py::arg("boundary"))
      .def("servo_state", &S::servo_state, py::arg("boundary"))
      .def("free_body_state", &S::free_body_state, py::arg("boundary"))
      // ---- particles ----
      .def(
          "add_particles",
          [](S& s, const particle_set& set, material_id mat, family::family_id fam) {
            s.check_no_views("add_particles");
            if constexpr (rigid) {
              (void)s, (void)set, (void)mat, (void)fam;
              throw py::type_error("dem: this simulator holds rigid bodies: use add_shape and add_bodies");
              return 0u;
            } else {
              return s.add_particles(set, mat, fam);
            }
          },
          py::arg("particles"), py::arg("material"), py::arg("family") = 0, "Adds spheres; returns the id of the first.")
      .def(
          "add_particles",
          [](S& s, const std::vector<vec3d>& positions, const py::object& radii, material_id mat, std::optional<std::vector<vec3d>> velocities,
             family::family_id fam) {
            s.check_no_views("add_particles");
            if constexpr (rigid) {
              throw py::type_error("dem: this simulator holds rigid bodies: use add_shape and add_bodies");
              return 0u;
            } else {
              particle_set set;
              set.positions = positions;
              const auto r = py::array_t<double, py::array::forcecast>::ensure(radii);
              if (!r) throw py::value_error("dem: add_particles: radii must be a number or an array of numbers");
              if (r.ndim() == 0) set.radii.assign(positions.size(), *r.data());
              else if (r.ndim() == 1) set.radii.assign(r.data(), r.data() + r.shape(0));
              else throw py::value_error("dem: add_particles: radii must be a number or a 1-d array");
              if (velocities) set.velocities = *velocities;
              return s.add_particles(set, mat, fam);
            }
          },
          py::arg("positions"), py::arg("radii"), py::arg("material"), py::kw_only(), py::arg("velocities") = py::none(), py::arg("family") = 0)
      .def_property_readonly("num_particles", &S::num_particles)
      .def_property_readonly("num_active", &S::num_active)
      .def_property_readonly("num_stored", &S::num_stored, "Particles held in storage: the active ones, and those that left since the last contact-list build.")
      .def_property_readonly("num_lost", &S::num_lost)
      .def_property_readonly("num_removed", &S::num_removed)
      .def("set_velocities", &S::set_velocities, py::arg("velocities"), "By id, one row per particle.")
      .def("set_angular_velocities", &S::set_angular_velocities, py::arg("angular_velocities"))
      .def("set_external_forces", &S::set_external_forces, py::arg("forces"), py::arg("torques") = std::vector<vec3d>{},
           "Constant forces (and torques) per particle, by id, added at every step until cleared.")
      .def("clear_external_forces", &S::clear_external_forces)
      // ---- families ----
      .def("set_families", &S::set_families, py::arg("families"), "The family of every particle, by id.")
      .def("set_family", &S::set_family, py::arg("ids"), py::arg("family"))
      .def("families", [](const S& s) { return array_of(s.families()); })
      .def("set_family_motion", &S::template set_family_motion<family::free>, py::arg("family"), py::arg("motion"))
      .def("set_family_motion", &S::template set_family_motion<family::fixed>, py::arg("family"), py::arg("motion"))
      .def("set_family_motion", &S::template set_family_motion<family::constant_velocity>, py::arg("family"), py::arg("motion"))
      .def("set_family_acceleration", &S::set_family_acceleration, py::arg("family"), py::arg("acceleration"))
      .def("set_family_force", &S::set_family_force, py::arg("family"), py::arg("force"))
      .def("disable_contacts", &S::disable_contacts, py::arg("a"), py::arg("b"))
      .def("enable_contacts", &S::enable_contacts, py::arg("a"), py::arg("b"))
      .def("contacts_enabled", &S::contacts_enabled, py::arg("a"), py::arg("b"))
      .def("set_boundary_family", &S::set_boundary_family, py::arg("boundary"), py::arg("family"))
      .def("boundary_family", &S::boundary_family, py::arg("boundary"))
      .def("set_family_margin", &S::set_family_margin, py::arg("family"), py::arg("extra"))
      .def("family_margin", &S::family_margin, py::arg("family"))
      .def(
          "change_family",
          [](S& s, family::family_id from, family::family_id to, std::optional<aabb> box, double min_speed, double max_speed, bool every_step) {
            region_speed_predicate p;
            if (box) {
              p.has_box = 1;
              p.lo = box->lo;
              p.hi = box->hi;
            }
            p.min_speed = min_speed;
            p.max_speed = max_speed;
            if (every_step) {
              s.change_family_when(from, to, p);
              return 0u;
            }
            return s.change_family(from, to, p);
          },
          py::arg("from_family"), py::arg("to_family"), py::kw_only(), py::arg("box") = py::none(), py::arg("min_speed") = 0.0,
          py::arg("max_speed") = 1e300, py::arg("every_step") = false,
          "Moves the active particles of one family, with their centre in `box` (when given) and speed in [min_speed, max_speed], to "
          "another; now (returns how many), or after every step from now on (every_step=True).")
      .def("clear_family_predicates", &S::clear_family_predicates)
      // ---- trackers ----
      .def(
          "track", [](S& s, std::vector<std::uint32_t> ids) { return track::particles(static_cast<Sim&>(s), std::move(ids)); }, py::arg("ids"),
          py::keep_alive<0, 1>())
      .def(
          "track_family", [](S& s, family::family_id f) { return track::in_family(static_cast<Sim&>(s), f); }, py::arg("family"),
          py::keep_alive<0, 1>())
      // ---- stepping ----
      .def(
          "step",
          [](S& s, std::uint64_t n) {
            s.check_no_views("step");
            py::gil_scoped_release free;
            s.step(n);
          },
          py::arg("n") = 1, "Runs n time steps (the GIL is released meanwhile).")
      .def("num_rebuilds", &S::num_rebuilds)
      .def("num_local_checks", &S::num_local_checks)
      .def("num_list_patches", &S::num_list_patches)
      .def("num_patched_pairs", &S::num_patched_pairs)
      .def("broad_phase_levels", &S::broad_phase_levels)
      .def("num_listed_pairs", &S::num_listed_pairs)
      .def("num_touching_pairs", &S::num_touching_pairs)
      .def("rebuild_contact_list", [](S& s) {
        s.check_no_views("rebuild_contact_list");
        s.rebuild_contact_list();
      })
      .def("listed_pairs",
           [](S& s) {
             const auto p = s.listed_pairs();
             py::array_t<std::uint32_t> a({static_cast<py::ssize_t>(p.size()), py::ssize_t{2}});
             auto m = a.mutable_unchecked<2>();
             for (std::size_t k = 0; k < p.size(); ++k) {
               m(k, 0) = p[k].first;
               m(k, 1) = p[k].second;
             }
             return a;
           })
      // ---- the state (copies, by id) ----
      .def("positions", &S::positions, "Centres (of mass), by id: an (n, 3) float64 copy.")
      .def("velocities", &S::velocities)
      .def("angular_velocities", &S::angular_velocities)
      .def("forces", &S::forces, "Total force of the last evaluation (gravity included), by id.")
      .def("torques", &S::torques)
      .def("radii", [](const S& s) { return array_of(s.radii()); }, "By id (the bounding radius of a rigid body).")
      .def("active",
           [](const S& s) {
             const std::vector<std::uint8_t> by_id = s.active();
             py::array_t<bool> a(static_cast<py::ssize_t>(by_id.size()));
             for (std::size_t k = 0; k < by_id.size(); ++k) a.mutable_at(k) = by_id[k] != 0;
             return a;
           },
           "By id: False once a particle has left the domain or was taken by an outlet.")
      .def("kinetic_energy", &S::kinetic_energy)
      .def("potential_energy", &S::potential_energy)
      // ---- inspectors ----
      .def(
          "inspect_particles",
          [](S& s, const py::object& region, std::optional<family::family_id> fam) {
            return inspect::particles(static_cast<Sim&>(s), detail::selection_of(region, fam));
          },
          py::arg("region") = py::none(), py::arg("family") = py::none(),
          "Count, mass, centre of mass, momentum, kinetic energy, packing fraction... of the particles in a region (one pass on the backend).")
      .def(
          "inspect_contacts",
          [](S& s, const py::object& region, std::optional<family::family_id> fam) {
            return inspect::contacts(static_cast<Sim&>(s), detail::selection_of(region, fam));
          },
          py::arg("region") = py::none(), py::arg("family") = py::none(), "Coordination number, Love-Weber stress, fabric of the region's contacts.")
      .def(
          "contact_network",
          [](S& s, const py::object& region, std::optional<family::family_id> fam) {
            const inspect::contact_network n = inspect::network(static_cast<Sim&>(s), detail::selection_of(region, fam));
            py::dict d;
            d["time"] = n.time;
            d["id_a"] = array_of(n.id_a);
            d["id_b"] = array_of(n.id_b);
            d["centre_a"] = points_array(n.centre_a);
            d["centre_b"] = points_array(n.centre_b);
            d["point"] = points_array(n.point);
            d["normal"] = points_array(n.normal);
            d["normal_force"] = points_array(n.normal_force);
            d["tangential_force"] = points_array(n.tangential_force);
            return d;
          },
          py::arg("region") = py::none(), py::arg("family") = py::none(),
          "The touching contacts of the selection: ids, centres, points, normals (B to A) and the force on A, as NumPy arrays.")
      // ---- checkpoints and output ----
      .def("save_checkpoint", &S::save_checkpoint, py::arg("path"), "The whole state, bit for bit (written atomically).")
      .def(
          "load_checkpoint",
          [](S& s, const std::string& path) {
            s.check_no_views("load_checkpoint");
            s.load_checkpoint(path);
          },
          py::arg("path"))
      .def_static(
          "from_checkpoint", [](const std::string& path) { return S(Sim::from_checkpoint(path)); }, py::arg("path"),
          "A new simulator with the configuration, materials, boundaries and state of a checkpoint.")
      .def("write_csv", [](const S& s, const std::string& path) { io::write_csv(path, s.snapshot()); }, py::arg("path"))
      .def("write_vtu", [](const S& s, const std::string& path) { io::write_vtu(path, s.snapshot()); }, py::arg("path"))
      .def("write_boundaries_vtu", [](S& s, const std::string& path) { io::write_surface_vtu(path, s.boundary_output()); }, py::arg("path"))
      .def(
          "write_frame",
          [](S& s, io::vtk_series& series) {
            const io::surface walls = s.boundary_output();
            return series.write(s.snapshot(), &walls);
          },
          py::arg("series"), "Writes the particles and the boundaries as the series' next frame; returns the particle file's path.");

  // The state in place (host backends): read-only NumPy views, no copy.
  c.def(
      "local_arrays",
      [](S& s) {
        if constexpr (!host_memory) {
          (void)s;
          throw py::type_error(std::string("dem: local_arrays: the ") + Sim::backend_type::name +
                               " backend's memory is on the device; use positions(), velocities(), ... (copies)");
          return py::dict();
        } else {
          const auto a = s.local_arrays();
          const py::object owner = py::cast(&s, py::return_value_policy::reference);
          const std::size_t n = a.size;
          py::dict d;
          auto put = [&](const char* key, const auto* p, std::size_t cols) {
            if (p) d[key] = detail::view(p, n, cols, owner);
          };
          using position_type = typename Sim::position_type;
          if constexpr (std::is_same_v<position_type, vec3<real>>) put("position", &a.position->x, 3);
          put("velocity", a.velocity ? &a.velocity->x : nullptr, 3);
          put("angular_velocity", a.angular_velocity ? &a.angular_velocity->x : nullptr, 3);
          put("force", a.force ? &a.force->x : nullptr, 3);
          put("torque", a.torque ? &a.torque->x : nullptr, 3);
          put("radius", a.radius, 1);
          put("deformed_radius", a.deformed_radius, 1);
          put("id", a.id, 1);
          put("active", a.active, 1);
          put("material", a.material, 1);
          put("family", a.family, 1);
          put("orientation", a.orientation ? &a.orientation->w : nullptr, 4);
          ++s.open_views;
          return d;
        }
      },
      "Use as `with sim.local_arrays() as a:` (python/dem/__init__.py wraps this): NumPy views of the host backend's arrays, in storage order "
      "(a['id'] maps slots to ids), read-only, without a copy.");
  c.def("_close_views", [](S& s) { s.open_views = s.open_views > 0 ? s.open_views - 1 : 0; });

  if constexpr (Sim::ledger_supported) {
    c.def("enable_energy_ledger", &S::enable_energy_ledger, "Books, from now on, every step's energy: work, storage, dissipation by mechanism (costs about 4x per step).");
    c.def("disable_energy_ledger", &S::disable_energy_ledger);
    c.def("energy_ledger", &S::energy_ledger);
  }
  if constexpr (!rigid) {
    c.def("elastic_energy", &S::elastic_energy, "Energy stored in the contact springs (laws that define it; else 0).");
    c.def(
        "add_outlet", [](S& s, const aabb& box, const std::string& name) { return s.add_outlet(inspect::box{box.lo, box.hi}, name); },
        py::arg("box"), py::arg("name") = "", "Removes the particles whose centre enters the box, counting their mass.");
    c.def(
        "outlet",
        [](const S& s, std::uint32_t k) {
          const flow::outlet_record& r = s.outlet(k);
          py::dict d;
          d["name"] = r.name;
          d["count"] = r.count;
          d["mass"] = r.mass;
          d["time"] = array_of(r.time);
          d["cumulative_mass"] = array_of(r.cumulative_mass);
          return d;
        },
        py::arg("outlet"));
    c.def(
        "add_inlet",
        [](S& s, const aabb& box, const py::object& sizes, material_id mat, double rate, bool by_mass, const vec3d& velocity, double start,
           double stop, double interval, family::family_id fam, std::uint64_t seed, const std::string& name) {
          auto add = [&](const auto& dist) {
            flow::inlet<aabb, std::decay_t<decltype(dist)>> in;
            in.region = box;
            in.sizes = dist;
            in.material = mat;
            in.family = fam;
            in.rate = rate;
            in.by_mass = by_mass;
            in.velocity = velocity;
            in.start = start;
            in.stop = stop;
            in.interval = interval;
            in.seed = seed;
            return s.add_inlet(in, name);
          };
          if (py::isinstance<sample::normal_radii>(sizes)) return add(sizes.cast<sample::normal_radii>());
          if (py::isinstance<py::float_>(sizes) || py::isinstance<py::int_>(sizes)) return add(sample::constant_radius{sizes.cast<double>()});
          if (py::isinstance<sample::constant_radius>(sizes)) return add(sizes.cast<sample::constant_radius>());
          throw py::type_error("dem: add_inlet: sizes is a radius, dem.sample.ConstantRadius or dem.sample.NormalRadii");
        },
        py::arg("box"), py::arg("sizes"), py::arg("material"), py::arg("rate"), py::kw_only(), py::arg("by_mass") = false,
        py::arg("velocity") = vec3d{0, 0, 0}, py::arg("start") = 0.0, py::arg("stop") = std::numeric_limits<double>::infinity(),
        py::arg("interval") = 0.0, py::arg("family") = 0, py::arg("seed") = 1, py::arg("name") = "",
        "Inserts spheres into the box at `rate` particles/s (or kg/s with by_mass=True), in batches, without overlaps.");
    c.def(
        "inlet",
        [](const S& s, std::uint32_t k) {
          const flow::inlet_record& r = s.inlet(k);
          py::dict d;
          d["name"] = r.name;
          d["count"] = r.count;
          d["mass"] = r.mass;
          d["batches"] = r.batches;
          return d;
        },
        py::arg("inlet"));
  }
  if constexpr (rigid) {
    c.def("add_shape", &S::add_shape, py::arg("template"), "Registers a body type (a clump or polyhedron template); returns its shape id.");
    c.def(
        "add_bodies",
        [](S& s, std::uint32_t shape, const std::vector<vec3d>& positions, material_id mat, const std::vector<quatd>& orientations,
           std::optional<std::vector<vec3d>> velocities, family::family_id fam) {
          s.check_no_views("add_bodies");
          particle_set set;
          set.positions = positions;
          if (velocities) set.velocities = *velocities;
          return s.add_bodies(shape, set, orientations, mat, fam);
        },
        py::arg("shape"), py::arg("positions"), py::arg("material"), py::kw_only(), py::arg("orientations") = std::vector<quatd>{},
        py::arg("velocities") = py::none(), py::arg("family") = 0, "Adds bodies of one shape at their centres of mass; returns the id of the first.");
    c.def("orientations", &S::orientations, "Principal frame -> world, (w, x, y, z) by id.");
  }
  if constexpr (deformable) {
    c.def("deformed_radii", [](const S& s) { return array_of(s.deformed_radii()); });
    c.def("deformation_report", &S::deformation_report);
    c.def_property("deformation_limit", &S::deformation_limit, &S::set_deformation_limit);
    c.def_property("deformation_interval", &S::deformation_interval, &S::set_deformation_interval);
  }
  return c;
}

}  // namespace dem::python
