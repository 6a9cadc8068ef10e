#pragma once
// dem::Simulator<Policies, Backend> — owns the particle and contact state in the backend's
// memory and runs the step loop. The loop is the same for every policy combination and backend:
//
//   step():  pre_force kernel (integrators that kick first)
//            contact list rebuilt if any particle moved more than half the margin
//            pair_force kernel      (one thread per listed pair, per-contact results)
//            particle_update kernel (gather per particle, boundaries, gravity, post_force, checks)
//
// See docs/architecture.md for the data model and where later features plug in.
#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <cstdint>
#include <iostream>
#include <limits>
#include <new>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "dem/backend/host.hpp"
#include "dem/boundary/boundary_set.hpp"
#include "dem/boundary/mesh.hpp"
#include "dem/broad/uniform_grid.hpp"
#include "dem/contact/contact_list.hpp"
#include "dem/energy/ledger.hpp"
#include "dem/energy/ledger_driver.hpp"
#include "dem/family/family_set.hpp"
#include "dem/family/margin.hpp"
#include "dem/inspect/inspect.hpp"
#include "dem/track/tracker.hpp"
#include "dem/io/snapshot.hpp"
#include "dem/io/vtk.hpp"
#include "dem/material/material.hpp"
#include "dem/math/aabb.hpp"
#include "dem/sample/particle_set.hpp"
#include "dem/sim/particle_view.hpp"
#include "dem/sim/policies.hpp"
#include "dem/sim/rigid_kernels.hpp"
#include "dem/sim/checkpoint.hpp"
#include "dem/sim/contact_builder.hpp"
#include "dem/sim/deformation.hpp"
#include "dem/sim/device_steps.hpp"
#include "dem/sim/external_forces.hpp"
#include "dem/sim/families.hpp"
#include "dem/sim/flow_driver.hpp"
#include "dem/sim/initial_overlaps.hpp"
#include "dem/sim/local_arrays.hpp"
#include "dem/sim/local_validity.hpp"
#include "dem/sim/deferred_detection.hpp"
#include "dem/sim/config.hpp"
#include "dem/sim/step_kernels.hpp"

namespace dem {

template <class Policies = policies<>, class Backend = backend::host>
class Simulator {
 public:
  using policy = Policies;
  using backend_type = Backend;
  using real = typename Policies::real;
  using law = typename Policies::law;
  using coord_space = typename Policies::coord_space;
  using position_type = typename coord_space::position;
  using carry_type = typename sim::carry_of<coord_space>::type;  // sim::no_carry where there is none
  static constexpr bool has_carry = sim::has_carry<coord_space>;
  using history = typename law::history;
  using pair_history = typename Policies::pair_history;    // = history for spheres
  using plane_history = typename Policies::plane_history;  // per (particle, boundary element): a history per probe and their touching bits
  using shape_data = typename Policies::shape_data;
  using law_traits = force::law_traits<law>;
  // Rigid bodies always store their per-pair slot histories (they carry the touching slots).
  static constexpr bool stores_history = law_traits::has_history || Policies::rigid;
  static constexpr bool deformable = Policies::deformable;  // radii solved every step (sim/deformation.hpp)
  using owner_wildcards_type = typename law_traits::owner_wildcards;
  using geometry_wildcards_type = typename law_traits::geometry_wildcards;
  template <class T>
  using buffer = typename Backend::template buffer<T>;
  using family_id = family::family_id;

  explicit Simulator(const simulation_config& cfg) : cfg_(cfg) {
    const vec3d e = cfg.domain.extent();
    if (!(e.x > 0 && e.y > 0 && e.z > 0) || !all_finite(cfg.domain.lo) || !all_finite(cfg.domain.hi))
      throw std::invalid_argument("dem: config.domain must be a finite box with hi > lo on every axis, got lo = " +
                                  str(cfg.domain.lo) + ", hi = " + str(cfg.domain.hi));
    if (!all_finite(cfg.gravity)) throw std::invalid_argument("dem: config.gravity is not finite: " + str(cfg.gravity));
    if (!(cfg.max_speed > 0)) throw std::invalid_argument("dem: config.max_speed must be > 0, got " + num(cfg.max_speed));
    if (!(cfg.boundary_margin < 0 || cfg.boundary_margin > 0) || !std::isfinite(cfg.boundary_margin))
      throw std::invalid_argument("dem: config.boundary_margin must be finite and > 0 (< 0: the contact margin), got " + num(cfg.boundary_margin));
    check_dt(cfg.dt);
    check_broad_phase_levels(cfg.broad_phase_levels);
    boundary::check_facet_tolerance(cfg.facet_tolerance);
    if (!(cfg.position_resolution >= 0) || !std::isfinite(cfg.position_resolution))
      throw std::invalid_argument("dem: config.position_resolution must be >= 0 and finite (0: no requirement), got " + num(cfg.position_resolution));
    if constexpr (requires { coord_space::make_params(cfg.domain, 0.0); }) {
      coord_ = coord_space::make_params(cfg.domain, cfg.position_resolution);
    } else {
      if (cfg.position_resolution > 0)
        throw std::invalid_argument(std::string("dem: config.position_resolution is set, but coordinate policy ") + Policies::coord::name +
                                    " cannot check a resolution (it has no make_params(domain, required_step))");
      coord_ = coord_space::make_params(cfg.domain);
    }
    check_deferred_detection(cfg.deferred_detection);
    status_.assign(std::vector<std::uint32_t>{sim::no_particle, 0, 0, sim::no_particle});
    if constexpr (!boundary::has_wall_probes<Policies>) walls_.keep_body_reports();
  }

  // ---- setup ---------------------------------------------------------------------------------
  material_table& materials() { dirty_params_ = true; prepared_ = false; return materials_; }
  const material_table& materials() const { return materials_; }
  material_id add_material(const material& m) { dirty_params_ = true; prepared_ = false; return materials_.add(m); }

  // ---- boundaries (boundary/: docs/boundaries.md) ----------------------------------------------
  // Each add_* returns the boundary's index (for motion and readouts); the geometry is given in
  // world coordinates where the boundary is when added. `name` labels it in messages and output.

  // An infinite plane through `point`; particles stay on the side `normal` points to (one-sided).
  std::uint32_t add_plane(const vec3d& point, const vec3d& normal, material_id mat, const std::string& name = "") {
    if (!all_finite(point) || !(norm(normal) > 0) || !std::isfinite(norm(normal)))
      throw std::invalid_argument("dem: plane point " + str(point) + " / normal " + str(normal) + " is not valid (finite point, non-zero normal)");
    check_boundary_material(mat);
    const vec3d n = normal / norm(normal);
    bool below = false, above = false;  // does it cut (or touch) the domain?
    for (int c = 0; c < 8; ++c) {
      const double h = dot(corner(c) - point, n);
      below |= h <= 0;
      above |= h >= 0;
    }
    if (!(below && above))
      throw std::invalid_argument("dem: plane through " + str(point) + " with normal " + str(normal) + " lies entirely outside the domain " +
                                  str(cfg_.domain.lo) + " .. " + str(cfg_.domain.hi));
    return added(walls_.add_plane(point, normal, mat, name));
  }

  // The six inward-facing planes of an axis-aligned box; returns the first one's index.
  std::uint32_t add_box(const aabb& box, material_id mat) {
    const std::uint32_t first = add_plane(box.lo, {1, 0, 0}, mat, "box -x");
    add_plane(box.lo, {0, 1, 0}, mat, "box -y");
    add_plane(box.lo, {0, 0, 1}, mat, "box -z");
    add_plane(box.hi, {-1, 0, 0}, mat, "box +x");
    add_plane(box.hi, {0, -1, 0}, mat, "box +y");
    add_plane(box.hi, {0, 0, -1}, mat, "box +z");
    return first;
  }

  // A rectangle (two-sided): centre, normal, an in-plane direction `axis` and the half extents along
  // it and along normal x axis.
  std::uint32_t add_plate(const vec3d& centre, const vec3d& normal, const vec3d& axis, double half_length, double half_width, material_id mat,
                          const std::string& name = "") {
    check_vector(centre, "plate centre", false);
    check_vector(normal, "plate normal", true);
    check_vector(axis, "plate axis", true);
    if (norm(cross(normal, axis)) < 1e-9 * norm(normal) * norm(axis))
      throw std::invalid_argument("dem: plate axis " + str(axis) + " is parallel to its normal " + str(normal));
    check_length(half_length, "plate half_length");
    check_length(half_width, "plate half_width");
    check_boundary_material(mat);
    const double reach = std::hypot(half_length, half_width);
    check_inside(centre - vec3d{reach, reach, reach}, centre + vec3d{reach, reach, reach}, "plate");
    return added(walls_.add_plate(centre, normal, axis, half_length, half_width, mat, name));
  }

  // A disc (two-sided) of `radius`, or an annulus with an `inner_radius` > 0 (an orifice).
  // Polyhedra meet it as a mesh of flat facets (config.facet_tolerance; boundary/faceted.hpp).
  std::uint32_t add_disc(const vec3d& centre, const vec3d& normal, double radius, material_id mat, double inner_radius = 0,
                         const std::string& name = "") {
    check_vector(centre, "disc centre", false);
    check_vector(normal, "disc normal", true);
    check_length(radius, "disc radius");
    if (!(inner_radius >= 0 && inner_radius < radius))
      throw std::invalid_argument("dem: disc inner_radius is " + num(inner_radius) + ", but it must be in [0, radius = " + num(radius) + ")");
    check_boundary_material(mat);
    check_inside(centre - vec3d{radius, radius, radius}, centre + vec3d{radius, radius, radius}, "disc");
    return added(walls_.add_disc(centre, normal, radius, inner_radius, mat, name, facets_for(radius, true, "a disc")));
  }

  // A cylinder (top_radius < 0 or = radius; finite or infinite length) or a cone/frustum (add_cone):
  // see boundary::axisymmetric. Polyhedra meet the outside of one (and its caps) as a mesh of flat
  // facets (config.facet_tolerance; boundary/faceted.hpp), the inside as the exact surface.
  std::uint32_t add_cylinder(const boundary::axisymmetric& c, material_id mat, const std::string& name = "") {
    return add_axisymmetric(c, !(c.top_radius < 0 || c.top_radius == c.radius), mat, name);
  }
  std::uint32_t add_cone(const boundary::axisymmetric& c, material_id mat, const std::string& name = "") {
    return add_axisymmetric(c, true, mat, name);
  }

  // A triangle mesh (two-sided), from vertices and triangles or from an OBJ or STL file. The mesh is
  // checked (boundary/mesh.hpp): degenerate triangles and non-finite vertices are refused,
  // duplicates removed; what was healed is written to the log.
  std::uint32_t add_mesh(const boundary::triangle_mesh& m, material_id mat, const std::string& name = "") {
    check_boundary_material(mat);
    if (!m.vertices.empty()) {
      vec3d lo = m.vertices[0], hi = lo;
      for (const vec3d& v : m.vertices) {
        lo = min(lo, v);
        hi = max(hi, v);
      }
      if (all_finite(lo) && all_finite(hi)) check_inside(lo, hi, "mesh '" + (name.empty() ? m.name : name) + "'");
    }
    const std::uint32_t b = walls_.add_mesh(m, mat, name);
    const boundary::description& d = walls_[b];
    if (log_ && (d.mesh->duplicates_removed || d.mesh->non_manifold_edges)) *log_ << "dem: " << d.mesh->report() << "\n";
    return added(b);
  }
  std::uint32_t add_mesh(const std::string& path, material_id mat, const std::string& name = "") {
    return add_mesh(boundary::read_triangle_mesh(path), mat, name);
  }

  // How boundary b moves from now on: boundary::fixed, constant_velocity, vibration, servo, or a
  // user motion (any type with `rigid_motion operator()(double t) const`).
  template <class M>
  void set_motion(std::uint32_t b, const M& motion) {
    walls_.set_motion(b, motion, time_);
  }

  std::uint32_t num_boundaries() const { return walls_.size(); }
  const boundary::description& boundary(std::uint32_t b) const { return walls_[b]; }
  // The particles' load on boundary b at the last force evaluation: the force, and the torque
  // about `about` (world), summed in a fixed order (the same bits for any thread count).
  boundary::load boundary_load(std::uint32_t b, const vec3d& about = {0, 0, 0}) {
    prepare();
    return walls_.load_on(backend_, b, about);
  }
  vec3d boundary_force(std::uint32_t b) { return boundary_load(b).force; }
  vec3d boundary_torque(std::uint32_t b, const vec3d& about) { return boundary_load(b, about).torque; }
  // The power boundary b delivers to the particles (W): -(F . v + T . omega) with the particles'
  // load F, T about the boundary's frame origin moving at v (a mill's power draw).
  double boundary_power(std::uint32_t b) {
    const boundary::frame<real>& f = walls_.frame_host(b);
    const boundary::load l = boundary_load(b, f.origin);
    return -(dot(l.force, vec3d(f.velocity)) + dot(l.torque, vec3d(f.omega)));
  }
  // The force on each element of boundary b (a mesh: on each triangle, in the mesh's order).
  std::vector<vec3d> boundary_element_forces(std::uint32_t b) {
    prepare();
    return walls_.element_forces(b);
  }
  // Boundary b's servo state (travel, velocity, the load it saw).
  const boundary::servo_state& servo_state(std::uint32_t b) const { return walls_.servo_of(b); }
  // A free body's displacement since set_motion, its velocity and the load it saw last.
  const boundary::free_body_state& free_body_state(std::uint32_t b) const { return walls_.free_body_of(b); }
  // Every boundary where it is now, as triangles, with per-triangle boundary and element indices.
  boundary::surface_triangles boundary_surface() const {
    boundary::surface_triangles out;
    for (std::uint32_t b = 0; b < walls_.size(); ++b) walls_.append_surface(b, cfg_.domain, out);
    return out;
  }
  // The same for output (io::vtk_series::write(snapshot, &surface)): each mesh triangle carries the
  // force on it at the last evaluation (so do the facets polyhedra meet discs, cylinders and cones
  // as; the tessellations of analytic boundaries carry zero).
  io::surface boundary_output() {
    const boundary::surface_triangles t = boundary_surface();
    io::surface s;
    s.time = time_;
    s.points = t.points;
    s.triangles = t.triangles;
    s.boundary = t.boundary;
    s.element = t.element;
    s.force.assign(t.triangles.size(), vec3d{0, 0, 0});
    std::vector<std::vector<vec3d>> per(walls_.size());
    for (std::uint32_t b = 0; b < walls_.size(); ++b)
      if (walls_.elements_host()[walls_[b].first_element].kind == boundary::triangle_kind) per[b] = boundary_element_forces(b);
    for (std::size_t k = 0; k < t.triangles.size(); ++k)
      if (!per[t.boundary[k]].empty()) s.force[k] = per[t.boundary[k]][t.element[k]];
    return s;
  }

  // Adds particles of one material (in family `family`); returns the id of the first (ids are
  // consecutive). Only the new particles are uploaded (appended to every array on the backend).
  std::uint32_t add_particles(const particle_set& set, material_id mat, family_id family = 0) {
    return add_particles(set, std::vector<material_id>(set.size(), mat), family);
  }

  std::uint32_t add_particles(const particle_set& set, const std::vector<material_id>& mats, family_id family = 0) {
    static_assert(!Policies::rigid, "dem::Simulator::add_particles is for spheres; rigid shapes are added with add_shape(template) and add_bodies(shape, set, orientations, material).");
    const std::size_t n = set.size();
    if (set.radii.size() != n || mats.size() != n || (!set.velocities.empty() && set.velocities.size() != n))
      throw std::invalid_argument("dem: add_particles: positions (" + std::to_string(n) + "), radii (" +
                                  std::to_string(set.radii.size()) + "), materials (" + std::to_string(mats.size()) +
                                  ") and velocities (" + std::to_string(set.velocities.size()) + ", or 0) must have the same length");
    check_room(n, "add_particles", "particles");
    family::check_id(family, "add_particles");
    host_state h;
    const std::uint32_t first = num_ids_;
    for (std::size_t k = 0; k < n; ++k) {
      const std::string who = "particle " + std::to_string(first + k);
      const double r = set.radii[k];
      if (!(r > 0) || !std::isfinite(r)) throw std::invalid_argument("dem: radius of " + who + " is " + num(r) + ", but it must be > 0 and finite");
      const vec3d x = set.positions[k];
      if (!all_finite(x)) throw std::invalid_argument("dem: position of " + who + " is not finite: " + str(x));
      if (!cfg_.domain.contains(x))
        throw std::invalid_argument("dem: position of " + who + " " + str(x) + " is outside the domain " + str(cfg_.domain.lo) + " .. " + str(cfg_.domain.hi));
      const vec3d v = set.velocities.empty() ? vec3d{0, 0, 0} : set.velocities[k];
      if (!all_finite(v)) throw std::invalid_argument("dem: velocity of " + who + " is not finite: " + str(v));
      const material& m = materials_[mats[k]];
      if (m.rigid)
        throw std::invalid_argument("dem: " + who + " has material '" + m.name + "', which is rigid: rigid materials are for boundaries");
      const double mass = Policies::shape::mass(r, m.density);
      append(h, first + static_cast<std::uint32_t>(k), x, v, r, mass, Policies::shape::inertia(r, mass), mats[k]);
    }
    append_state(h, n, family);
    return first;
  }

  // ---- rigid bodies (shape::clump, shape::polyhedron) ----------------------------------------
  // Registers a body type (a clump_template or polyhedron_template); returns its shape id.
  std::uint32_t add_shape(const typename Policies::host_template& t) {
    static_assert(Policies::rigid, "dem::Simulator::add_shape is for rigid shapes (shape::clump, shape::polyhedron); spheres need none.");
    using S = typename Policies::shape;
    shapes_host_.push_back(S::template make<real>(t));  // throws (naming the shape) if it exceeds the shape's bounds
    shape_volume_.push_back(S::volume(t));
    shape_inertia_.push_back(S::inertia_per_density(t));
    shape_contact_radius_.push_back(S::contact_radius(t));
    shape_names_.push_back(S::template_name(t));
    shapes_.assign(shapes_host_);
    return static_cast<std::uint32_t>(shapes_host_.size() - 1);
  }

  // Adds bodies of one shape and material at set.positions (their centres of mass) with
  // orientations (principal frame -> world; empty: the principal axes along x, y, z) and optional
  // set.velocities; set.radii is not used. Returns the id of the first.
  std::uint32_t add_bodies(std::uint32_t shape, const particle_set& set, const std::vector<quatd>& orientations, material_id mat,
                           family_id family = 0) {
    static_assert(Policies::rigid, "dem::Simulator::add_bodies is for rigid shapes; spheres are added with add_particles.");
    const std::size_t n = set.positions.size();
    if (shape >= shapes_host_.size())
      throw std::invalid_argument("dem: add_bodies: shape id " + std::to_string(shape) + " does not exist (" + std::to_string(shapes_host_.size()) +
                                  " shapes added with add_shape)");
    if ((!orientations.empty() && orientations.size() != n) || (!set.velocities.empty() && set.velocities.size() != n))
      throw std::invalid_argument("dem: add_bodies: positions (" + std::to_string(n) + "), orientations (" + std::to_string(orientations.size()) +
                                  ", or 0) and velocities (" + std::to_string(set.velocities.size()) + ", or 0) must have the same length");
    check_room(n, "add_bodies", "bodies");
    const material& m = materials_[mat];
    if (m.rigid) throw std::invalid_argument("dem: add_bodies: material '" + m.name + "' is rigid: rigid materials are for boundaries");
    family::check_id(family, "add_bodies");
    const double mass = shape_volume_[shape] * m.density;
    const vec3d inertia = shape_inertia_[shape] * m.density;
    host_state h;
    const std::uint32_t first = num_ids_;
    for (std::size_t k = 0; k < n; ++k) {
      const std::string who = "body " + std::to_string(first + k) + " (shape '" + shape_names_[shape] + "')";
      const vec3d x = set.positions[k];
      if (!all_finite(x)) throw std::invalid_argument("dem: position of " + who + " is not finite: " + str(x));
      if (!cfg_.domain.contains(x))
        throw std::invalid_argument("dem: position of " + who + " " + str(x) + " is outside the domain " + str(cfg_.domain.lo) + " .. " + str(cfg_.domain.hi));
      const vec3d v = set.velocities.empty() ? vec3d{0, 0, 0} : set.velocities[k];
      if (!all_finite(v)) throw std::invalid_argument("dem: velocity of " + who + " is not finite: " + str(v));
      quatd q = orientations.empty() ? quatd::identity() : orientations[k];
      const double qn = std::sqrt(norm2(q));
      if (!(qn > 0.5 && qn < 2.0) || !std::isfinite(qn))
        throw std::invalid_argument("dem: orientation of " + who + " is not a unit quaternion (norm " + num(qn) + ")");
      q = normalized(q);
      append(h, first + static_cast<std::uint32_t>(k), x, v, static_cast<double>(shapes_host_[shape].bounding_radius), mass,
             (inertia.x + inertia.y + inertia.z) / 3.0, mat);
      h.orientation.push_back(quat<real>(q));
      h.inertia.push_back(vec3<real>(inertia));
      h.shape.push_back(shape);
    }
    append_state(h, n, family);
    return first;
  }

  // Orientations of rigid bodies (principal frame -> world), by id.
  std::vector<quatd> orientations() const {
    static_assert(Policies::rigid, "dem::Simulator::orientations is for rigid shapes.");
    const double nan = std::numeric_limits<double>::quiet_NaN();
    return in_id_order(orientation_, quatd{nan, nan, nan, nan}, [](const quat<real>& q) { return quatd(q); });
  }

  void set_dt(double dt) { check_dt(dt); cfg_.dt = dt; prepared_ = false; }

  // Gravity from the next step on (a tilted or spinning-up frame, a change of planet, gravity
  // switched on after a fill). Velocity Verlet's stored forces are evaluated again with it, so the
  // step's first kick already uses it. The energy ledger, when on, re-bases its potential energy
  // and velocity Verlet's shadow term at the change, so that it keeps closing.
  void set_gravity(const vec3d& g) {
    if (!all_finite(g)) throw std::invalid_argument("dem: set_gravity: gravity is not finite: " + str(g));
    ledger_rebased_across([&] {
      cfg_.gravity = g;
      prepared_ = false;  // velocity Verlet's stored forces are evaluated again with it
    });
  }
  vec3d gravity() const { return cfg_.gravity; }

  // ---- external forces (sim/external_forces.hpp) -----------------------------------------------
  // A force and (optionally) a torque on each particle, by particle id, world frame, added to every
  // force evaluation from the next step on until replaced or cleared: the hook for CFD–DEM coupling
  // (drag, buoyancy) and for field forces. Placed on the backend from one upload (no state copy);
  // they follow their particles through every reordering, are kept in checkpoints, and the energy
  // ledger counts their work. Particles added later start with none.
  void set_external_forces(const std::vector<vec3d>& force_by_id, const std::vector<vec3d>& torque_by_id = {}) {
    sim::external_forces<Simulator>::set(*this, force_by_id, torque_by_id);
  }
  void clear_external_forces() { sim::external_forces<Simulator>::clear(*this); }
  bool has_external_forces() const { return ext_force_.size() != 0; }

  // ---- families (family/, sim/families.hpp: docs/families.md) ------------------------------------
  // Every particle and boundary has a family (0 .. 255; 0 until set). Per family: a prescribed
  // motion (components may stay free), an added acceleration and force; contacts between chosen
  // family pairs can be disabled; particles change family on request or when a predicate holds.
  void set_families(const std::vector<family_id>& by_id) { sim::families<Simulator>::set_by_id(*this, by_id); }
  void set_family(const std::vector<std::uint32_t>& ids, family_id f) {
    std::vector<family_id> all = families();
    for (std::uint32_t id : ids) {
      if (id >= num_ids_)
        throw std::invalid_argument("dem: set_family: particle id " + std::to_string(id) + " does not exist (" + std::to_string(num_ids_) + " particles)");
      if (all[id] == family::not_stored) {
        const std::string removed = sim::flow_driver<Simulator>::removed_note(*this, id);
        throw std::invalid_argument("dem: set_family: particle " + std::to_string(id) + " " + (removed.empty() ? "has left the domain (lost)" : removed));
      }
      all[id] = f;
    }
    set_families(all);
  }
  std::vector<family_id> families() const { return sim::families<Simulator>::by_id(*this); }
  // family::free{}, family::fixed{}, family::constant_velocity{...} or a user motion (family/motion.hpp).
  template <class M>
  void set_family_motion(family_id f, const M& motion) {
    family::check_id(f, "set_family_motion");
    families_.set_motion(f, family::make_motion(motion));
    prepared_ = false;  // velocity Verlet's stored forces are evaluated again under the new rule
  }
  void set_family_acceleration(family_id f, const vec3d& a) {
    family::check_id(f, "set_family_acceleration");
    check_vector(a, "family acceleration", false);
    families_.set_acceleration(f, a);
    prepared_ = false;
  }
  void set_family_force(family_id f, const vec3d& force) {
    family::check_id(f, "set_family_force");
    check_vector(force, "family force", false);
    families_.set_force(f, force);
    prepared_ = false;
  }
  // Contacts between families a and b (a = b: within a family), particles and boundaries alike;
  // effective at the next contact-list build, which this requests (disabled pairs lose history).
  void disable_contacts(family_id a, family_id b) { set_contacts(a, b, false); }
  void enable_contacts(family_id a, family_id b) { set_contacts(a, b, true); }
  bool contacts_enabled(family_id a, family_id b) const {
    family::check_id(a, "contacts_enabled");
    family::check_id(b, "contacts_enabled");
    return families_.contacts_enabled(a, b);
  }
  void set_boundary_family(std::uint32_t b, family_id f) {
    (void)walls_[b];  // names the boundary if it does not exist
    family::check_id(f, "set_boundary_family");
    families_.set_boundary_family(b, f, walls_.size());
    contacts_valid_ = false;
  }
  family_id boundary_family(std::uint32_t b) const { (void)walls_[b]; return families_.boundary_family(b); }
  // An extra detection margin for family f's particles (m, >= 0; DEM-Engine's family extra margin):
  // detection lists a particle's partners and boundary elements as if its radius were larger by
  // `extra`, and the particle may move half the margin plus `extra` before the list is rebuilt. A fast
  // family (a projectile, an impeller's particles) then no longer rebuilds the list for everyone
  // every few steps; forces do not change (a listed pair out of reach gets none). Effective at the
  // next build, which this requests. docs/families.md, "Extra detection margin".
  void set_family_margin(family_id f, double extra) {
    family::check_id(f, "set_family_margin");
    if (!(extra >= 0) || !std::isfinite(extra))
      throw std::invalid_argument("dem: set_family_margin: extra margin " + num(extra) + " m for family " + std::to_string(f) +
                                  "; it must be >= 0 and finite");
    families_.set_margin(f, extra);
    contacts_valid_ = false;
  }
  double family_margin(family_id f) const {
    family::check_id(f, "family_margin");
    return families_.margin(f);
  }
  // Moves the active particles of family `from` for which pred(family::particle_state) holds (all,
  // without a predicate) to family `to`, now, on the backend; returns how many moved.
  template <class Pred = family::always>
  std::uint32_t change_family(family_id from, family_id to, const Pred& pred = {}) {
    static_assert(family::predicate<Pred>,
                  "dem::Simulator::change_family: the predicate must be a trivially copyable struct with `DEM_HD bool operator()(const dem::family::particle_state&) const`");
    return sim::families<Simulator>::change(*this, from, to, pred);
  }
  // The same after every step from now on (checked on the backend at the end of the step, no copy to
  // the host); the new family's rule applies from the next step.
  template <class Pred>
  void change_family_when(family_id from, family_id to, const Pred& pred) {
    static_assert(family::predicate<Pred>,
                  "dem::Simulator::change_family_when: the predicate must be a trivially copyable struct with `DEM_HD bool operator()(const dem::family::particle_state&) const`");
    sim::families<Simulator>::change_when(*this, from, to, pred);
  }
  void clear_family_predicates() { family_predicates_.clear(); }

  // ---- inlets and outlets (flow/, sim/flow_driver.hpp: docs/flow.md) -----------------------------
  // An outlet takes out the particles whose centre enters `region` (any inspector region:
  // inspect::box, ball, cylinder, half_space, or your own), checked on the backend after every step;
  // outlet(k) records what left and when. Returns the outlet's index.
  template <class Region>
  std::uint32_t add_outlet(const Region& region, const std::string& name = "") {
    return sim::flow_driver<Simulator>::add_outlet(*this, region, name);
  }
  const flow::outlet_record& outlet(std::uint32_t k) const {
    if (k >= outlets_.size()) throw std::invalid_argument("dem: outlet " + std::to_string(k) + " does not exist (" + std::to_string(outlets_.size()) + " outlets)");
    return outlets_[k];
  }
  std::uint32_t num_outlets() const { return static_cast<std::uint32_t>(outlets_.size()); }
  // An inlet inserts particles of a size distribution into a box or cylinder at a rate, without
  // overlaps (flow/inlet.hpp); inlet(k) records what it inserted. Returns the inlet's index.
  template <class Region, class Sizes>
  std::uint32_t add_inlet(const flow::inlet<Region, Sizes>& in, const std::string& name = "") {
    return sim::flow_driver<Simulator>::add_inlet(*this, in, name);
  }
  const flow::inlet_record& inlet(std::uint32_t k) const {
    if (k >= inlets_.size()) throw std::invalid_argument("dem: inlet " + std::to_string(k) + " does not exist (" + std::to_string(inlets_.size()) + " inlets)");
    return inlets_[k];
  }
  std::uint32_t num_inlets() const { return static_cast<std::uint32_t>(inlets_.size()); }

  // Replaces the velocities / angular velocities (ordered by particle id).
  void set_velocities(const std::vector<vec3d>& v_by_id) { set_by_id(&host_state::vel, v_by_id, "velocity"); }
  void set_angular_velocities(const std::vector<vec3d>& w_by_id) {
    set_by_id(&host_state::omega, w_by_id, "angular velocity");
  }

  // User properties of the law (force/wildcards.hpp), ordered by particle id; settable before and
  // between steps. For spheres every particle is one owner with one geometry.
  void set_owner_wildcards(const std::vector<owner_wildcards_type>& by_id) {
    static_assert(law_traits::has_owner_wildcards, "dem::Simulator::set_owner_wildcards: the force law declares no `owner_wildcards` type.");
    set_wildcards(&host_state::owner_wc, by_id, "owner wildcards");
  }
  std::vector<owner_wildcards_type> owner_wildcards() const {
    static_assert(law_traits::has_owner_wildcards, "dem::Simulator::owner_wildcards: the force law declares no `owner_wildcards` type.");
    return wildcards_by_id(owner_wc_);
  }
  void set_geometry_wildcards(const std::vector<geometry_wildcards_type>& by_id) {
    static_assert(law_traits::has_geometry_wildcards, "dem::Simulator::set_geometry_wildcards: the force law declares no `geometry_wildcards` type.");
    set_wildcards(&host_state::geometry_wc, by_id, "geometry wildcards");
  }
  std::vector<geometry_wildcards_type> geometry_wildcards() const {
    static_assert(law_traits::has_geometry_wildcards, "dem::Simulator::geometry_wildcards: the force law declares no `geometry_wildcards` type.");
    return wildcards_by_id(geometry_wc_);
  }

  // Where log messages (lost particles) go; nullptr silences them.
  void set_log(std::ostream* log) { log_ = log; }

  // On the host, kernels read per-particle vec3 arrays float by float with signed 32-bit indices
  // 3 i (sim::load: what vector gathers take); on a GPU indices are unsigned 32-bit.
  static constexpr std::size_t max_particles =
      Backend::is_device ? std::numeric_limits<std::uint32_t>::max() / 3 : std::numeric_limits<std::int32_t>::max() / 3;

  // ---- running -------------------------------------------------------------------------------
  void step(std::uint64_t n = 1) {
    prepare();
    if constexpr (ledger_supported)
      if (ledger_on_ && !ledger_primed_) prime_ledger();
    if constexpr (Backend::is_device && !deformable)
      if (sim::device_steps<Simulator>::applies(*this)) return sim::device_steps<Simulator>::run(*this, n);
    struct end_of_call {  // a deferred build never outlives the call (sim/deferred_detection.hpp)
      Simulator& s;
      ~end_of_call() {
        if constexpr (deferred_supported) sim::deferred_detection<Simulator>::end_of_call(s);
      }
    } joins{*this};
    for (std::uint64_t s = 0; s < n; ++s) one_step();
  }

  // config.deferred_detection from the next step on (a build in flight is finished or dropped as
  // usual). Results do not depend on it.
  void set_deferred_detection(bool on) {
    check_deferred_detection(on);
    if constexpr (deferred_supported)
      if (!on) sim::deferred_detection<Simulator>::drop(*this);  // a result kept from the last call would be stale when switched on again
    cfg_.deferred_detection = on;
  }
  // Whether config.deferred_detection can be on: not for deformable spheres, nor on backend::cuda yet.
  static constexpr bool deferred_supported = !deformable && Backend::runs_deferred_builds;
  static void check_deferred_detection(bool on) {
    if (on && deformable)
      throw std::invalid_argument("dem: config.deferred_detection is not available for deformable spheres (their radii, and so their lists, change every step)");
    if (on && !Backend::runs_deferred_builds)
      throw std::invalid_argument(std::string("dem: config.deferred_detection is not available on backend::") + Backend::name +
                                  " yet (its build thread needs per-thread default streams, not yet run on a GPU)");
  }
  // What deferred detection did (config.deferred_detection; all zero without it).
  sim::deferred_stats deferred_statistics() const { return deferred_.stats; }

  // Runs whole steps until at least `duration` more simulated seconds have passed.
  void advance(double duration) {
    if (!(duration >= 0) || !std::isfinite(duration))
      throw std::invalid_argument("dem: advance: duration must be >= 0 and finite, got " + num(duration));
    const auto steps = static_cast<std::uint64_t>(std::ceil(duration / cfg_.dt - 1e-9));
    step(steps);
  }

  // Smallest stable time step over all particles (Rayleigh for Hertz, sqrt(m/k) for linear).
  double stable_time_step() const {
    host_state h = pull();
    double best = std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < h.radius.size(); ++i) {
      const material& m = materials_[h.material[i]];
      double r = static_cast<double>(h.radius[i]);
      if constexpr (Policies::rigid) r = shape_contact_radius_[h.shape[i]];  // smallest component / equivalent sphere
      const double dt = Policies::force::stable_time_step(m, materials_.pair(h.material[i], h.material[i]), r,
                                                           1.0 / static_cast<double>(h.inv_mass[i]));
      best = std::min(best, dt);
    }
    return best;
  }

  // ---- state ---------------------------------------------------------------------------------
  double time() const { return time_; }
  std::uint64_t step_count() const { return steps_; }
  double dt() const { return cfg_.dt; }
  const simulation_config& config() const { return cfg_; }
  // Particles ever added: the ids 0 .. num_particles() - 1, lost and removed ones included. The
  // by-id accessors (positions(), set_velocities(), families(), ...) take and give this many.
  std::uint32_t num_particles() const { return num_ids_; }
  // Particles held in storage: the active ones, plus those deactivated since the last contact-list
  // build (storage is compacted at every build; docs/flow.md, "Storage").
  std::uint32_t num_stored() const { return num_particles_; }
  std::uint32_t num_lost() const { return lost_ - removed_; }  // left the domain (outlets' removals not counted)
  std::uint32_t num_removed() const { return removed_; }     // taken by outlets
  std::uint32_t num_active() const { return num_ids_ - lost_; }
  std::uint64_t num_listed_pairs() const { return num_contacts_; }
  std::uint64_t num_rebuilds() const { return rebuilds_; }
  // Device backends: steps between two reads of the step status (config.status_read_interval; 0:
  // a read after every step). Results do not depend on it.
  void set_status_read_interval(std::uint32_t steps) { cfg_.status_read_interval = steps; }
  // Device backends: how many batches of steps the device stopped early, for a rebuild or a status
  // to report (sim/device_steps.hpp); 0 on the host.
  std::uint64_t num_device_halts() const { return halted_batches_; }
  // Steps at which particles past their budgets were checked against their neighbours and the
  // boundaries and the contact list was kept instead of rebuilt (config.max_overrun; local validity).
  std::uint64_t num_local_checks() const { return local_checks_; }
  // Of those, the steps at which particles past their budgets had come near partners they were not
  // listed with, and the pairs were added to the list in place instead of a rebuild; and how many
  // pairs were added so (sim/local_validity.hpp).
  std::uint64_t num_list_patches() const { return list_patches_; }
  std::uint64_t num_patched_pairs() const { return patched_pairs_; }
  // config.max_overrun from the next step on (0: the global criterion). Results do not depend on it.
  void set_max_overrun(std::uint32_t particles) { cfg_.max_overrun = particles; }
  // config.broad_phase_levels for the next contact-list build (0: automatic, up to 8; 1: one grid).
  void set_broad_phase_levels(std::uint32_t levels) {
    check_broad_phase_levels(levels);
    cfg_.broad_phase_levels = levels;
  }
  // Levels of the broad phase's grid at the last contact-list build (1 before the first).
  int broad_phase_levels() const { return grid_.levels; }
  // The last build's grid (broad/uniform_grid.hpp): each level's radius, cell, occupied cells and
  // which pairs of levels are searched from the finer side.
  const broad::grid& broad_phase_grid() const { return grid_; }
  double contact_margin() const { return margin(); }
  // Position resolution in use (m): coord::voxel's unit, or for coord::floating the spacing of the
  // stored type at the domain's farthest corner (the coarsest step anywhere in the domain).
  double position_resolution() const {
    if constexpr (requires { coord_space::resolution(coord_); }) return coord_space::resolution(coord_);
    else return std::numeric_limits<double>::quiet_NaN();
  }
  const typename coord_space::params& coord_params() const { return coord_; }
  // Largest gap at which the law acts (cohesion range; 0 for contact-only laws). Pairs are listed
  // up to this gap plus the margin.
  double contact_range() { if (dirty_params_) build_params(); return max_range_; }

  // The listed pairs (within the detection margin) as (id_a, id_b) with id_a < id_b.
  std::vector<std::pair<std::uint32_t, std::uint32_t>> listed_pairs() {
    prepare();
    std::vector<std::uint32_t> a, b, ids;
    pair_a_.copy_to(a);
    pair_b_.copy_to(b);
    id_.copy_to(ids);
    std::vector<std::pair<std::uint32_t, std::uint32_t>> out(num_contacts_);
    for (std::size_t c = 0; c < num_contacts_; ++c) out[c] = {ids[a[c]], ids[b[c]]};
    return out;
  }

  // Forces a contact-list rebuild before the next force evaluation (history is carried over).
  void request_rebuild() { contacts_valid_ = false; }

  // Runs contact detection now, as a step does when the margin is used up: cell sort (reorders
  // particles), pair search, history carry-over, incident lists. Lets benchmarks time detection
  // alone; a simulation never needs to call it.
  void rebuild_contact_list() {
    prepare();
    rebuild_contacts();
  }

  // Pairs of particles that overlap now (listed pairs minus those only within the margin).
  std::uint64_t num_touching_pairs() {
    prepare();
    if (num_contacts_ == 0) return 0;
    if constexpr (Policies::rigid)  // pairs with a contact point at the last evaluation
      return static_cast<std::uint64_t>(backend_.reduce_sum(num_contacts_, sim::count_touching_slots<pair_history>{history_.data()}));
    else return static_cast<std::uint64_t>(
        backend_.reduce_sum(num_contacts_, sim::count_overlapping<Policies>{view(), coord_, pair_a_.data(), pair_b_.data()}));
  }

  // ---- deformable spheres (shape::deformable_sphere; docs/deformation.md) ----------------------
  // The radii the contacts see (R', by particle id); radii() of the state stay the original R.
  std::vector<double> deformed_radii() const {
    static_assert(deformable, "dem::Simulator::deformed_radii: the shape policy is not dem::shape::deformable_sphere");
    return in_id_order(deformed_, std::numeric_limits<double>::quiet_NaN(), [](real r) { return static_cast<double>(r); });
  }
  // Newton iterations, deformed particles and the largest R' / R of the last step.
  dem::deformation_report deformation_report() const {
    static_assert(deformable, "dem::Simulator::deformation_report: the shape policy is not dem::shape::deformable_sphere");
    return sim::deformation<Simulator>::report(*this);
  }
  // R' must stay below ratio x R (default 2); a sphere that needs more stops the run with an error.
  void set_deformation_limit(double ratio) {
    static_assert(deformable, "dem::Simulator::set_deformation_limit: the shape policy is not dem::shape::deformable_sphere");
    if (!(ratio > 1) || !std::isfinite(ratio))
      throw std::invalid_argument("dem: set_deformation_limit: ratio is " + num(ratio) + ", but it must be > 1 and finite");
    deform_limit_ = ratio;
  }
  double deformation_limit() const { return deform_limit_; }
  // Solves the radii every `steps` steps only (default 1: every step); they stay as they are in
  // between. The paper behind the model finds every 10th step enough for slow compaction; the cost
  // of the update falls in proportion (docs/deformation.md).
  void set_deformation_interval(std::uint32_t steps) {
    static_assert(deformable, "dem::Simulator::set_deformation_interval: the shape policy is not dem::shape::deformable_sphere");
    if (steps == 0) throw std::invalid_argument("dem: set_deformation_interval: steps is 0, but it must be >= 1");
    deform_interval_ = steps;
  }
  std::uint32_t deformation_interval() const { return deform_interval_; }

  // The particles in storage, in id order (s.id[k] is entry k's id). Until a particle is lost or
  // removed that is every id, s.id[k] = k; ids no longer stored are absent (compacted away at a
  // contact-list build; docs/flow.md, "Storage"), so index by s.id, or use the by-id accessors.
  io::snapshot snapshot() const {
    host_state h = pull();
    io::snapshot s;
    s.time = time_;
    s.step = steps_;
    const std::size_t n = num_particles_;
    s.id.resize(n);
    s.position.resize(n);
    s.velocity.resize(n);
    s.angular_velocity.resize(n);
    s.radius.resize(n);
    s.active.resize(n);
    const std::vector<std::uint32_t> entry = entry_of_ids(h.id);
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint32_t k = entry[h.id[i]];
      s.id[k] = h.id[i];
      s.position[k] = coord_space::to_world(coord_, h.pos[i]);
      s.velocity[k] = vec3d(h.vel[i]);
      s.angular_velocity[k] = vec3d(h.omega[i]);
      s.radius[k] = h.radius[i];
      s.active[k] = h.active[i];
    }
    return s;
  }

  // The state in place, in storage order, without a copy (sim/local_arrays.hpp: valid until the
  // next step or change of the particles). Host backends only: device memory has no host address.
  sim::local_arrays<real, position_type> local_arrays() const {
    static_assert(!Backend::is_device,
                  "dem::Simulator::local_arrays: the backend's memory is on a device; use snapshot(), positions() etc. (copies)");
    sim::local_arrays<real, position_type> a;
    const std::size_t n = num_particles_;
    const auto at = [n](const auto& b) { return b.size() >= n && n ? b.data() : nullptr; };  // null: not stored (yet)
    a.size = num_particles_;
    a.position = at(pos_);
    a.velocity = at(vel_);
    a.angular_velocity = at(omega_);
    a.force = at(force_);
    a.torque = at(torque_);
    a.radius = at(radius_);
    if constexpr (deformable) a.deformed_radius = at(deformed_);
    a.id = at(id_);
    a.active = at(active_);
    a.material = at(material_);
    a.family = at(family_);
    if constexpr (Policies::rigid) a.orientation = at(orientation_);
    return a;
  }

  // By id (num_particles() entries); an id no longer stored (lost or removed, then compacted) reads
  // NaN, and 0 in active().
  std::vector<vec3d> positions() const {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    return in_id_order(pos_, vec3d{nan, nan, nan}, [this](const position_type& p) { return coord_space::to_world(coord_, p); });
  }
  std::vector<double> radii() const {  // deformable spheres: the original R (deformed_radii: R')
    return in_id_order(radius_, std::numeric_limits<double>::quiet_NaN(), [](real r) { return static_cast<double>(r); });
  }
  std::vector<vec3d> velocities() const { return by_id(vel_); }
  std::vector<vec3d> angular_velocities() const { return by_id(omega_); }
  std::vector<vec3d> forces() const { return by_id(force_); }
  std::vector<vec3d> torques() const { return by_id(torque_); }
  std::vector<std::uint8_t> active() const {
    return in_id_order(active_, std::uint8_t{0}, [](std::uint32_t a) { return static_cast<std::uint8_t>(a != 0); });
  }

  double kinetic_energy() {
    return num_particles_ ? backend_.reduce_sum(num_particles_, sim::kinetic_energy_of<Policies>{view(), rigid()}) : 0.0;
  }
  double potential_energy() {
    return num_particles_ ? backend_.reduce_sum(num_particles_, sim::potential_energy_of<coord_space>{view(), coord_, cfg_.gravity}) : 0.0;
  }
  // Energy stored in the contact springs (laws that define elastic_energy; else 0).
  double elastic_energy() {
    static_assert(!Policies::rigid, "dem::Simulator::elastic_energy is not available for rigid shapes yet (kinetic_energy and potential_energy are).");
    if constexpr (force::has_elastic_energy<law, real>) {
      prepare();
      double e = 0;
      if (num_contacts_)
        e += backend_.reduce_sum(num_contacts_, sim::pair_elastic_energy_of<Policies>{view(), coord_, pair_a_.data(), pair_b_.data(),
                                                                                     history_ptr(history_), params_.data(), num_materials()});
      if (num_particles_ && walls_.num_entries())
        e += backend_.reduce_sum(num_particles_, sim::wall_elastic_energy_of<Policies>{view(), coord_, walls_.view(), walls_.walls(), params_.data(),
                                                                                      num_materials()});
      return e;
    } else {
      return 0.0;
    }
  }

  // Bytes held in backend memory per particle (state arrays, without wall history) and per listed
  // contact, for the memory tables; bytes_per_wall_entry() per listed (particle, boundary element).
  static constexpr std::size_t bytes_per_wall_entry() {
    return 2 * sizeof(std::uint32_t) + 2 * sizeof(plane_history) + sizeof(std::uint64_t) * 2 + 3 * sizeof(std::uint32_t) +
           sizeof(boundary::report<real>) * boundary::probes_of<Policies>::slots + 2 * sizeof(vec3<real>) +
           (boundary::has_wall_probes<Policies> ? 0 : sizeof(boundary::body_report<real>));
  }
  std::uint32_t num_wall_entries() const { return walls_.num_entries(); }
  // The wall list's bytes per particle (its entries at the last build).
  double wall_history_bytes_per_particle() const {
    return num_particles_ ? static_cast<double>(walls_.num_entries()) * bytes_per_wall_entry() / num_particles_ : 0.0;
  }
  // The position (coordinate and precision policies) counts twice (now and at the last rebuild),
  // plus coord::voxel's rounding carry.
  static constexpr std::size_t bytes_per_particle() {
    return 2 * sizeof(position_type) + (has_carry ? sizeof(carry_type) : 0) + 4 * sizeof(vec3<real>) + (Policies::rigid ? 3 : 2) * sizeof(real) +
           5 * sizeof(std::uint32_t) +  // material and active (32 bits wide), id, the wall list's and the incident list's offsets
           (law_traits::has_owner_wildcards ? sizeof(owner_wildcards_type) : 0) +
           (law_traits::has_geometry_wildcards ? sizeof(geometry_wildcards_type) : 0) +
           (Policies::rigid ? sizeof(quat<real>) + sizeof(vec3<real>) + sizeof(std::uint32_t) : 0) +  // orientation, inertia, shape
           (deformable ? 3 * sizeof(real) + sizeof(std::uint32_t) : 0);  // R' now, at the build, this step's; Newton iterations
  }
  // Held between builds: pair indices, results (the force, one or two torques), two incident entries; history only for laws that
  // keep it; two increments per contact for laws that write wildcards. A build's scratch comes on
  // top, for the build alone on device backends (backend memory() measures the peak); backend::host
  // keeps it allocated.
  static constexpr std::size_t bytes_per_contact() {
    return 2 * sizeof(std::uint32_t) + (1 + torques_per_pair) * sizeof(vec3<real>) + 2 * sizeof(std::uint32_t) +
           (stores_history ? sizeof(pair_history) : 0) +
           (law_traits::writes_owner_wildcards ? 2 * sizeof(owner_wildcards_type) : 0) +
           (law_traits::writes_geometry_wildcards ? 2 * sizeof(geometry_wildcards_type) : 0) +
           (deformable ? 2 * sizeof(deform::cap_entry<real>) : 0);  // each side's cap at its first Newton iterate
  }

  Backend& backend() { return backend_; }

  // ---- the energy ledger (energy/ledger.hpp) -------------------------------------------------
  // Starts (or restarts) the ledger at the current state: from the next step on, every step's
  // dissipation is accounted by mechanism, contact by contact. It changes no bit of the run (its
  // kernels work on copies of the histories); while on, a step costs about 4 times as much on the
  // host (a second, scalar law evaluation per contact and eleven reductions; docs/performance.md).
  // Not part of checkpoints (enable it again after a load).
  static constexpr bool ledger_supported =
      std::is_same_v<typename Policies::integrator, integrate::velocity_verlet> && !Policies::rigid && !Policies::deformable;
  void enable_energy_ledger() {
    static_assert(ledger_supported,
                  "dem::Simulator::enable_energy_ledger: the energy ledger is for rigid spheres integrated with velocity Verlet (its work identity; a deformable sphere's growth does work it does not book)");
    ledger_on_ = true;
    ledger_primed_ = false;
    ledger_totals_ = {};
    ledger_.clear();
  }
  void disable_energy_ledger() {
    ledger_on_ = ledger_primed_ = false;
    ledger_.clear();
  }
  bool energy_ledger_enabled() const { return ledger_on_; }
  // The balance since the ledger was started, with the state functions evaluated now.
  energy::ledger energy_ledger() {
    static_assert(ledger_supported, "dem::Simulator::energy_ledger: the energy ledger is for spheres integrated with velocity Verlet");
    if (!ledger_on_) throw std::logic_error("dem: energy_ledger(): the ledger is off; call enable_energy_ledger() first");
    prepare();
    if (!ledger_primed_) prime_ledger();
    energy::ledger l = ledger_totals_;
    ledger_state_now(l.kinetic, l.potential, l.elastic, l.shadow);
    return l;
  }

  // ---- checkpoints (sim/checkpoint.hpp) ------------------------------------------------------
  // The whole state, written atomically (a crash mid-write leaves the previous file): N steps,
  // save, load, M steps give the same bits as N + M steps. Loads on any backend.
  void save_checkpoint(const std::string& path) const { sim::state_io<Simulator>::save(*this, path); }
  // A simulator restored from a checkpoint written by the same policy combination (else the
  // error names the policy that differs); the configuration is the checkpoint's.
  static Simulator from_checkpoint(const std::string& path) { return from_checkpoint(io::checkpoint_reader::from_file(path)); }
  static Simulator from_checkpoint(const io::checkpoint_reader& r) {
    sim::state_io<Simulator>::check_policy(r);
    Simulator s(sim::state_io<Simulator>::read_config(r));
    sim::state_io<Simulator>::load(s, r);
    return s;
  }
  // Replaces this simulator's state (and configuration) by the checkpoint's; all or nothing: on an
  // error this simulator is left as it was. The log stream stays.
  void load_checkpoint(const std::string& path) {
    std::ostream* log = log_;
    *this = from_checkpoint(path);
    log_ = log;
  }

 private:
  template <class>
  friend struct sim::state_io;
  template <class>
  friend struct sim::initial_overlaps;
  template <class>
  friend struct energy::ledger_driver;
  template <class>
  friend struct sim::contact_builder;
  template <class>
  friend struct inspect::access;
  template <class>
  friend struct sim::external_forces;
  template <class>
  friend struct track::access;
  template <class>
  friend struct sim::families;
  template <class>
  friend struct sim::flow_driver;
  template <class>
  friend struct sim::deformation;
  template <class>
  friend struct sim::device_steps;
  template <class>
  friend struct sim::local_validity;
  template <class>
  friend struct sim::deferred_detection;
  struct host_state {
    std::vector<position_type> pos;
    std::vector<position_type> pos_ref;  // position at the last contact-list build (the skin budget used)
    std::vector<carry_type> carry;  // empty without a carry
    std::vector<vec3<real>> vel, omega, force, torque;
    std::vector<real> radius, inv_mass, inv_inertia;
    std::vector<std::uint32_t> material;  // material_id values
    std::vector<std::uint32_t> id;
    std::vector<std::uint32_t> active;
    std::vector<quat<real>> orientation;  // rigid bodies
    std::vector<vec3<real>> inertia;
    std::vector<std::uint32_t> shape;
    std::vector<owner_wildcards_type> owner_wc;
    std::vector<geometry_wildcards_type> geometry_wc;
    std::vector<vec3<real>> ext_force, ext_torque;  // empty without external forces
    std::vector<std::uint32_t> family;              // empty until families are used
  };

  host_state pull() const {
    host_state h;
    pos_.copy_to(h.pos);
    pos_ref_.copy_to(h.pos_ref);
    carry_.copy_to(h.carry);
    vel_.copy_to(h.vel);
    omega_.copy_to(h.omega);
    force_.copy_to(h.force);
    torque_.copy_to(h.torque);
    radius_.copy_to(h.radius);
    inv_mass_.copy_to(h.inv_mass);
    inv_inertia_.copy_to(h.inv_inertia);
    material_.copy_to(h.material);
    id_.copy_to(h.id);
    active_.copy_to(h.active);
    orientation_.copy_to(h.orientation);
    inertia_.copy_to(h.inertia);
    shape_.copy_to(h.shape);
    owner_wc_.copy_to(h.owner_wc);
    geometry_wc_.copy_to(h.geometry_wc);
    ext_force_.copy_to(h.ext_force);
    ext_torque_.copy_to(h.ext_torque);
    family_.copy_to(h.family);
    return h;
  }

  void push(const host_state& h) {
    pos_.assign(h.pos);
    pos_ref_.assign(h.pos_ref);  // not h.pos: that would reset the displacement budget and hide a needed rebuild
    carry_.assign(h.carry);
    vel_.assign(h.vel);
    omega_.assign(h.omega);
    force_.assign(h.force);
    torque_.assign(h.torque);
    radius_.assign(h.radius);
    inv_mass_.assign(h.inv_mass);
    inv_inertia_.assign(h.inv_inertia);
    material_.assign(h.material);
    id_.assign(h.id);
    active_.assign(h.active);
    orientation_.assign(h.orientation);
    inertia_.assign(h.inertia);
    shape_.assign(h.shape);
    owner_wc_.assign(h.owner_wc);
    geometry_wc_.assign(h.geometry_wc);
    ext_force_.assign(h.ext_force);
    ext_torque_.assign(h.ext_torque);
    family_.assign(h.family);
    if constexpr (deformable)  // kept across edits of the state; undeformed for a new particle count
      if (deformed_.size() != h.radius.size()) {
        deformed_.assign(h.radius);
        deformed_ref_.assign(h.radius);
        deform_iterations_.assign(std::vector<std::uint32_t>(h.radius.size(), 0u));
      }
    family_contact_force_.clear();  // sized again at the next evaluation
    family_contact_torque_.clear();
    index_of_ids_valid_ = false;  // particles may have been added
  }

  // Appends the n particles of `t` (built by append() from an empty host_state) to every array on
  // the backend: an upload of the new particles only. Arrays that exist only while in use (external
  // forces, families) get zeros, or the family given.
  void append_state(const host_state& t, std::size_t n, family_id family) {
    auto grow = [](auto& b, const auto& v) {
      if (!v.empty()) b.append(v.data(), v.size());
    };
    grow(pos_, t.pos);
    grow(pos_ref_, t.pos_ref);
    grow(carry_, t.carry);
    grow(vel_, t.vel);
    grow(omega_, t.omega);
    grow(force_, t.force);
    grow(torque_, t.torque);
    grow(radius_, t.radius);
    if constexpr (deformable) {  // new spheres start undeformed
      grow(deformed_, t.radius);
      grow(deformed_ref_, t.radius);
      grow(deform_iterations_, std::vector<std::uint32_t>(n, 0u));
    }
    grow(inv_mass_, t.inv_mass);
    grow(inv_inertia_, t.inv_inertia);
    grow(material_, t.material);
    grow(id_, t.id);
    grow(active_, t.active);
    grow(orientation_, t.orientation);
    grow(inertia_, t.inertia);
    grow(shape_, t.shape);
    grow(owner_wc_, t.owner_wc);
    grow(geometry_wc_, t.geometry_wc);
    if (ext_force_.size()) {  // new particles start without an external force
      const std::vector<vec3<real>> zero(n, vec3<real>{0, 0, 0});
      grow(ext_force_, zero);
      grow(ext_torque_, zero);
    }
    if (family != 0 && family_.size() == 0) family_.assign(std::vector<std::uint32_t>(num_particles_, 0u));  // the old particles in family 0
    if (family != 0 || family_.size()) grow(family_, std::vector<std::uint32_t>(n, family));
    highest_family_ = std::max(highest_family_, family);
    num_particles_ += static_cast<std::uint32_t>(n);
    num_ids_ += static_cast<std::uint32_t>(n);
    family_contact_force_.clear();  // sized again at the next evaluation
    family_contact_torque_.clear();
    index_of_ids_valid_ = false;
    contacts_valid_ = false;
    prepared_ = false;
  }

  // Room for n more particles: in storage (kernels index it with 32-bit offsets) and among the ids
  // (never reused; the last value marks "not stored" in index_of_ids_).
  void check_room(std::size_t n, const char* who, const char* what) const {
    if (num_particles_ + n > max_particles)
      throw std::invalid_argument(std::string("dem: ") + who + ": too many " + what + " (" + std::to_string(num_particles_ + n) + " stored; at most " +
                                  std::to_string(max_particles) + ")");
    if (num_ids_ + n >= std::numeric_limits<std::uint32_t>::max())
      throw std::invalid_argument(std::string("dem: ") + who + ": the particle ids would pass 2^32 - 1 (" + std::to_string(num_ids_) +
                                  " issued, ids are never reused)");
  }

  // entry[id] = the rank of id among the stored ids (their position in id order).
  std::vector<std::uint32_t> entry_of_ids(const std::vector<std::uint32_t>& stored) const {
    std::vector<std::uint32_t> entry(num_ids_, 0);
    for (std::uint32_t id : stored) entry[id] = 1;
    std::uint32_t k = 0;
    for (std::uint32_t& e : entry) e = e ? k++ : 0;
    return entry;
  }

  // Drops the inactive particles from storage (contact-list builds, after the cell sort has put
  // them last): every per-particle array keeps its first n_active entries. Capacity is kept for
  // the particles to come; ids are not reused.
  void compact_storage(std::uint32_t n_active) {
    if (n_active >= num_particles_) return;
    const std::size_t n = n_active;
    const auto keep = [n](auto& b) {
      if (b.size() > n) b.resize(n);
    };
    keep(pos_);
    keep(pos_ref_);
    keep(carry_);
    keep(vel_);
    keep(omega_);
    keep(force_);
    keep(torque_);
    keep(radius_);
    keep(inv_mass_);
    keep(inv_inertia_);
    keep(deformed_);
    keep(deformed_ref_);
    keep(deformed_next_);
    keep(deform_iterations_);
    keep(touching_count_);
    keep(material_);
    keep(id_);
    keep(active_);
    keep(orientation_);
    keep(inertia_);
    keep(shape_);
    keep(ext_force_);
    keep(ext_torque_);
    keep(family_);
    keep(search_radius_);
    keep(family_contact_force_);
    keep(family_contact_torque_);
    keep(owner_wc_);
    keep(geometry_wc_);
    num_particles_ = n_active;
    index_of_ids_valid_ = false;
  }

  // One particle or body into the host copy of the state.
  void append(host_state& h, std::uint32_t id, const vec3d& x, const vec3d& v, double radius, double mass, double inertia,
              material_id mat) {
    h.pos.push_back(coord_space::from_world(coord_, x));
    h.pos_ref.push_back(h.pos.back());  // new particles invalidate the list anyway
    if constexpr (has_carry) h.carry.push_back(carry_type{0, 0, 0});
    h.vel.push_back(vec3<real>(v));
    h.omega.push_back({0, 0, 0});
    h.force.push_back({0, 0, 0});
    h.torque.push_back({0, 0, 0});
    h.radius.push_back(static_cast<real>(radius));
    h.inv_mass.push_back(static_cast<real>(1.0 / mass));
    if constexpr (Policies::rigid) h.inv_inertia.push_back(static_cast<real>(1.0 / inertia));  // spheres derive theirs (sim::inverse_inertia)
    h.material.push_back(mat);
    h.id.push_back(id);
    h.active.push_back(1);
    if constexpr (law_traits::has_owner_wildcards) h.owner_wc.push_back(owner_wildcards_type{});
    if constexpr (law_traits::has_geometry_wildcards) h.geometry_wc.push_back(geometry_wildcards_type{});
    if (!h.ext_force.empty()) {  // new particles start without an external force
      h.ext_force.push_back({0, 0, 0});
      h.ext_torque.push_back({0, 0, 0});
    }
    if (!h.family.empty()) h.family.push_back(0);  // new particles start in family 0
    r_max_ = std::max(r_max_, radius);
  }

  std::uint32_t add_axisymmetric(const boundary::axisymmetric& c, bool cone, material_id mat, const std::string& name) {
    const char* kind = cone ? "cone" : "cylinder";
    check_vector(c.base, cone ? "cone base" : "cylinder base", false);
    check_vector(c.axis, cone ? "cone axis" : "cylinder axis", true);
    if (!(c.length > 0)) throw std::invalid_argument(std::string("dem: ") + kind + " length is " + num(c.length) + ", but it must be > 0 (infinity: unbounded)");
    if (cone) {
      if (!(c.radius >= 0) || !(c.top_radius >= 0) || !std::isfinite(c.radius) || !std::isfinite(c.top_radius) || !(c.radius + c.top_radius > 0))
        throw std::invalid_argument("dem: cone radii are " + num(c.radius) + " and " + num(c.top_radius) + ", but they must be >= 0, finite and not both 0");
      if (!std::isfinite(c.length)) throw std::invalid_argument("dem: a cone must have a finite length, got " + num(c.length));
    } else {
      check_length(c.radius, "cylinder radius");
    }
    check_boundary_material(mat);
    const double r = std::max(c.radius, cone ? c.top_radius : 0.0);
    const vec3d u = c.axis / norm(c.axis);
    if (std::isfinite(c.length)) {
      const vec3d top = c.base + u * c.length;
      check_inside(min(c.base, top) - vec3d{r, r, r}, max(c.base, top) + vec3d{r, r, r}, kind);
    }
    boundary::axisymmetric k = c;
    if (!cone) k.top_radius = -1;
    return added(walls_.add_axisymmetric(k, mat, name, cfg_.domain, facets_for(r, !c.inside, cone ? "a cone" : "a cylinder")));
  }

  // ---- checks of boundary input ------------------------------------------------------------------
  std::uint32_t added(std::uint32_t b) {
    contacts_valid_ = false;  // the new elements are listed at the next build
    prepared_ = false;
    return b;
  }
  vec3d corner(int c) const {
    const aabb& d = cfg_.domain;
    return {(c & 1) ? d.hi.x : d.lo.x, (c & 2) ? d.hi.y : d.lo.y, (c & 4) ? d.hi.z : d.lo.z};
  }
  static vec3d min(const vec3d& a, const vec3d& b) { return {std::min(a.x, b.x), std::min(a.y, b.y), std::min(a.z, b.z)}; }
  static vec3d max(const vec3d& a, const vec3d& b) { return {std::max(a.x, b.x), std::max(a.y, b.y), std::max(a.z, b.z)}; }
  void check_vector(const vec3d& v, const char* what, bool nonzero) const {
    if (!all_finite(v) || (nonzero && !(norm(v) > 0)))
      throw std::invalid_argument(std::string("dem: ") + what + " is " + str(v) + ", but it must be finite" + (nonzero ? " and non-zero" : ""));
  }
  static void check_length(double v, const char* what) {
    if (!(v > 0) || !std::isfinite(v)) throw std::invalid_argument(std::string("dem: ") + what + " is " + num(v) + ", but it must be > 0 and finite");
  }
  void check_inside(const vec3d& lo, const vec3d& hi, const std::string& what) const {
    const aabb& d = cfg_.domain;
    if (hi.x < d.lo.x || hi.y < d.lo.y || hi.z < d.lo.z || lo.x > d.hi.x || lo.y > d.hi.y || lo.z > d.hi.z)
      throw std::invalid_argument("dem: " + what + " (extent " + str(lo) + " .. " + str(hi) + ") lies entirely outside the domain " + str(d.lo) +
                                  " .. " + str(d.hi));
  }
  void check_boundary_material(material_id mat) const { (void)materials_[mat]; }
  // Bodies without probes (polyhedra) meet discs and the outside of cylinders and cones as meshes of
  // flat facets (boundary/faceted.hpp); 0: the analytic element (everything else).
  std::uint32_t facets_for(double radius, bool curved, const char* kind) const {
    if constexpr (boundary::has_wall_probes<Policies>) {
      (void)radius, (void)curved, (void)kind;
      return 0;
    } else {
      return curved ? boundary::facets_around(radius, cfg_.facet_tolerance, kind) : 0;
    }
  }

  sim::rigid_view<real, shape_data> rigid() {
    return {orientation_.data(), inertia_.data(), shape_.data(), shapes_.data()};
  }

  template <class W>
  void set_wildcards(std::vector<W> host_state::*field, const std::vector<W>& values, const char* what) {
    if (values.size() != num_ids_)
      throw std::invalid_argument(std::string("dem: got ") + std::to_string(values.size()) + " " + what + " for " +
                                  std::to_string(num_ids_) + " particles (one per particle id)");
    host_state h = pull();
    for (std::size_t i = 0; i < num_particles_; ++i) (h.*field)[i] = values[h.id[i]];
    push(h);
  }

  template <class W>
  std::vector<W> wildcards_by_id(const buffer<W>& b) const {
    return in_id_order(b, W{}, [](const W& w) { return w; });  // default values for ids no longer stored
  }

  // A per-particle array by id: one entry per id issued, `absent` for ids no longer stored.
  template <class T, class Out, class Convert>
  std::vector<Out> in_id_order(const buffer<T>& b, const Out& absent, Convert convert) const {
    std::vector<T> v;
    std::vector<std::uint32_t> ids;
    b.copy_to(v);
    id_.copy_to(ids);
    std::vector<Out> out(num_ids_, absent);
    for (std::size_t i = 0; i < num_particles_; ++i) out[ids[i]] = convert(v[i]);
    return out;
  }

  // Null for laws without history: kernels then neither load nor store it.
  template <class H>
  static H* history_ptr(buffer<H>& b) { return stores_history ? b.data() : nullptr; }

  sim::wildcard_view<owner_wildcards_type, geometry_wildcards_type> wildcards_view() {
    return {law_traits::has_owner_wildcards ? owner_wc_.data() : nullptr,
            law_traits::has_geometry_wildcards ? geometry_wc_.data() : nullptr,
            law_traits::writes_owner_wildcards ? owner_increment_.data() : nullptr,
            law_traits::writes_geometry_wildcards ? geometry_increment_.data() : nullptr};
  }

  void set_by_id(std::vector<vec3<real>> host_state::*field, const std::vector<vec3d>& values, const char* what) {
    if (values.size() != num_ids_)  // entries of ids no longer stored are not read
      throw std::invalid_argument(std::string("dem: got ") + std::to_string(values.size()) + " values of " + what + " for " +
                                  std::to_string(num_ids_) + " particles (one per particle id)");
    host_state h = pull();
    for (std::size_t i = 0; i < num_particles_; ++i) {
      const vec3d v = values[h.id[i]];
      if (!all_finite(v)) throw std::invalid_argument(std::string("dem: ") + what + " of particle " + std::to_string(h.id[i]) + " is not finite: " + str(v));
      (h.*field)[i] = vec3<real>(v);
    }
    push(h);
  }

  std::vector<vec3d> by_id(const buffer<vec3<real>>& b) const {
    const double nan = std::numeric_limits<double>::quiet_NaN();  // an id no longer stored
    return in_id_order(b, vec3d{nan, nan, nan}, [](const vec3<real>& v) { return vec3d(v); });
  }

  sim::particle_view<coord_space> view() {
    return {pos_.data(), pos_ref_.data(), vel_.data(), omega_.data(), force_.data(), torque_.data(), contact_radius(),
            inv_mass_.data(), inv_inertia_.data(), material_.data(), id_.data(), active_.data(),
            has_carry ? carry_.data() : nullptr, family_.size() ? family_.data() : nullptr, deformable ? radius_.data() : nullptr};
  }
  deform::cap_arrays<real> deform_caps() {
    if constexpr (deform::caps_in_pair_kernel<Policies>) return deform::cap_arrays<real>::in(deform_caps_.data(), 2 * std::size_t(num_contacts_));
    else return {};
  }
  deform::in_step<real> deform_in_step(bool integrate) {
    if constexpr (deformable) return sim::deformation<Simulator>::in_step(*this, integrate);
    else return {};
  }
  // The radius contacts see: the deformed R' for deformable spheres, else the radius.
  real* contact_radius() { return deformable ? deformed_.data() : radius_.data(); }
  sim::contact_results<real> results() { return {cforce_.data(), ctorque_.data(), num_contacts_, pair_a_.data()}; }
  static constexpr std::size_t torques_per_pair = Policies::one_torque_per_pair ? 1 : 2;  // (sim::contact_results)
  family::mask_view family_masks() { return sim::families<Simulator>::masks(*this); }
  // Per family id a particle can hold: its extra detection margin (family/margin.hpp).
  const real* family_margins() { return families_.margins(std::max(highest_family_, families_.highest_named())); }
  void set_contacts(family_id a, family_id b, bool enabled) {
    family::check_id(a, enabled ? "enable_contacts" : "disable_contacts");
    family::check_id(b, enabled ? "enable_contacts" : "disable_contacts");
    families_.set_contacts(a, b, enabled);
    contacts_valid_ = false;
  }
  const vec3<real>* ext_force_ptr() const { return ext_force_.size() ? ext_force_.data() : nullptr; }
  const vec3<real>* ext_torque_ptr() const { return ext_torque_.size() ? ext_torque_.data() : nullptr; }
  std::uint32_t num_materials() const { return static_cast<std::uint32_t>(materials_.size()); }
  // Wall entries are listed up to this gap; boundaries may move boundary_budget() between builds.
  double boundary_margin() const { return cfg_.boundary_margin > 0 ? std::max(cfg_.boundary_margin, margin()) : margin(); }
  double boundary_budget() const { return boundary_margin() - 0.5 * margin(); }
  double margin() const { return cfg_.contact_margin >= 0 ? cfg_.contact_margin : 0.2 * r_max_; }
  static void check_broad_phase_levels(std::uint32_t levels) {
    if (levels > broad::max_levels)
      throw std::invalid_argument("dem: config.broad_phase_levels must be at most " + std::to_string(broad::max_levels) + " (0: automatic), got " +
                                  std::to_string(levels));
  }

  void check_dt(double dt) const {
    if (!(dt > 0) || !std::isfinite(dt)) throw std::invalid_argument("dem: dt is " + num(dt) + ", but it must be > 0 and finite");
  }

  // Everything that must hold before the first step after a change.
  void prepare() {
    if (prepared_) return;
    if (num_ids_ == 0 && inlets_.empty()) throw std::invalid_argument("dem: no particles: add some (or an inlet) before stepping");
    if (dirty_params_ || params_.size() != std::size_t(num_materials()) * num_materials()) build_params();
    if constexpr (requires(const shape_data& d) { d.material[0]; })  // clumps: component materials must exist
      for (std::size_t k = 0; k < shapes_host_.size(); ++k)
        for (int i = 0; i < shapes_host_[k].count; ++i) {
          const material_id mat = shapes_host_[k].material[i];
          if (mat != shape::no_geometry_material && mat >= num_materials())
            throw std::invalid_argument("dem: component sphere " + std::to_string(i) + " of shape '" + shape_names_[k] + "' has material id " +
                                        std::to_string(mat) + ", which does not exist (" + std::to_string(num_materials()) + " materials defined)");
        }
    const double stable = stable_time_step();
    if (cfg_.dt > stable && !cfg_.allow_unstable_dt) {
      std::ostringstream s;
      s.precision(6);
      s << "dem: dt = " << cfg_.dt << " s exceeds the stable time step " << stable << " s of force law "
        << Policies::force::name << " (smallest particle); choose dt <= " << stable
        << " (10-30 % of it is usual) or set config.allow_unstable_dt = true";
      throw std::invalid_argument(s.str());
    }
    if (!contacts_valid_) rebuild_contacts();
    if (steps_ == 0 && !cfg_.allow_initial_overlap) check_initial_overlaps();
    if constexpr (Policies::integrator::needs_initial_force) evaluate_forces(false);  // history not advanced
    prepared_ = true;
  }

  void build_params() {
    const std::uint32_t m = num_materials();
    const std::vector<typename law::params> table = force::law_param_table<law>(materials_, Policies::force::name);
    if (table.size() * sizeof(typename law::params) / 4 >= std::numeric_limits<std::int32_t>::max())
      throw std::invalid_argument("dem: " + std::to_string(m) + " materials make a pair-parameter table of " + std::to_string(table.size()) +
                                  " entries, too large to index with 32 bits; use fewer materials");
    params_.assign(table);
    dirty_params_ = false;
    double range = 0;
    if constexpr (law_traits::has_range)
      for (std::size_t k = 0; k < table.size(); ++k) {
        const double r = static_cast<double>(law::range(table[k]));
        if (!(r >= 0) || !std::isfinite(r))
          throw std::invalid_argument("dem: force law " + std::string(Policies::force::name) + " gives range " + num(r) + " for material pair (" +
                                      std::to_string(k / m) + ", " + std::to_string(k % m) + "); it must be >= 0 and finite");
        range = std::max(range, r);
      }
    if (range != max_range_) contacts_valid_ = false;  // a wider range needs a wider search
    max_range_ = range;
  }

  // On the host spheres start and finish the step in loops of their own, which vectorise
  // (sphere_start_kernel, sphere_finish_kernel); device backends (and rigid bodies) finish in the
  // particle kernel, saving a pass over memory.
  static constexpr bool separate_integration = !Backend::is_device && !Policies::rigid;

  void one_step() {
    [[maybe_unused]] const real dt = static_cast<real>(cfg_.dt);
    // Moving boundaries go where they are at the end of the step, where the forces are evaluated;
    // first, so that a motion that throws leaves the step undone (particles untouched).
    const bool boundaries_moved = move_boundaries(time_ + cfg_.dt, cfg_.dt);
    bool deferred = false;
    if constexpr (deferred_supported) {
      deferred = sim::deferred_detection<Simulator>::active(*this);
      if (deferred) sim::deferred_detection<Simulator>::before_step(*this);  // a ready list into service, a due build started
    }
    double moved2;
    if constexpr (Policies::integrator::needs_initial_force && separate_integration) {
      using start = sim::sphere_start_kernel<Policies>;
      moved2 = start::value(backend_.reduce_max_unsigned(num_particles_, start{view(), coord_, dt}));
    } else if constexpr (Policies::integrator::needs_initial_force)
      moved2 = backend_.reduce_max(num_particles_, sim::pre_force_kernel<Policies>{view(), rigid(), coord_, dt});
    else
      moved2 = backend_.reduce_max(num_particles_, sim::displacement2<coord_space>{view(), coord_});
    const double half = 0.5 * margin();
    // A boundary that used up its share of the margin asks for a rebuild as a particle does.
    const double wall_moved = boundaries_moved && contacts_valid_ ? walls_.moved_since_build(cfg_.domain) : 0.0;
    bool rebuild = !contacts_valid_ || wall_moved > boundary_budget();
    // Deformable spheres: the radii's growth since the build uses up the margin too.
    bool over = moved2 > half * half || (deformable && std::sqrt(moved2) + deform_growth_ > half);
    if (!rebuild && over && sim::local_validity<Simulator>::applies(*this)) {
      // Past the plain budget: the particles past theirs are checked where they are now
      // (contact/local_validity.hpp), and only a pair or element they lack rebuilds.
      rebuild = !sim::local_validity<Simulator>::holds(*this, half);
    } else if (!rebuild && over) {
      // With family extra margins a particle may move half the margin plus its family's extra:
      // the displacements beyond those budgets decide (one more pass, only then).
      if (families_.any_margin() && num_particles_) {
        const double beyond = backend_.reduce_max(num_particles_, family::displacement_beyond_margin<coord_space>{view(), coord_, family_margins()});
        moved2 = beyond * beyond;
        over = moved2 > half * half || (deformable && std::sqrt(moved2) + deform_growth_ > half);
      }
      rebuild = over;
    }
    if (!over) kept_with_overrun_ = false;
    if constexpr (deferred_supported)
      if (deferred && rebuild) sim::deferred_detection<Simulator>::note_sync_rebuild(*this, contacts_valid_);
    if (rebuild) rebuild_contacts();
    finish_step(rebuild ? 0.0 : std::sqrt(moved2));
    if constexpr (deferred_supported)
      if (deferred) sim::deferred_detection<Simulator>::after_step(*this, rebuild ? 0.0 : std::sqrt(moved2), rebuild ? 0.0 : wall_moved);
  }

  // The rest of a step once the list is valid: forces, integration and what runs between steps.
  // `moved`: the largest displacement since the list's build.
  void finish_step(double moved) {
    const real dt = static_cast<real>(cfg_.dt);
    if constexpr (deformable && !sim::deformation<Simulator>::in_particle_kernel) sim::deformation<Simulator>::before_forces(*this, moved);
    if constexpr (ledger_supported)
      if (ledger_on_) ledger_step(dt);
    evaluate_forces(true);
    if constexpr (deformable && sim::deformation<Simulator>::in_particle_kernel) sim::deformation<Simulator>::after_forces(*this, moved);
    ++steps_;
    time_ += cfg_.dt;
    sim::families<Simulator>::run_predicates(*this);
    sim::flow_driver<Simulator>::run_outlets(*this);
    check_status();
    sim::flow_driver<Simulator>::run_inlets(*this);
  }

  // Places every moving boundary at time t; servos advance by dt from the load they saw at the last
  // evaluation (the reaction along their direction).
  bool move_boundaries(double t, double dt) {
    if (walls_.empty()) return false;
    return walls_.move(
        t, dt, [&](std::uint32_t b) { return walls_.load_on(backend_, b, vec3d{0, 0, 0}).force; }, cfg_.gravity);
  }

  // With integrate = false (forces of the initial state) the laws see dt = 0, so history such as
  // the tangential spring is not advanced twice in the first step.
  // Device backends run the pair and particle kernels behind `guard` (sim/device_steps.hpp; a null
  // guard checks nothing).
  void evaluate_forces(bool integrate, sim::step_guard guard = {}) {
    const real dt = integrate ? static_cast<real>(cfg_.dt) : real(0), t = static_cast<real>(time_);
    const auto launch = [&](std::uint32_t n, const auto& kernel) {
      if constexpr (Backend::is_device) backend_.for_each(n, sim::guarded_kernel<std::decay_t<decltype(kernel)>>{kernel, guard});
      else backend_.for_each(n, kernel);
    };
    // Sized here, where they are used: after a build or a restored list alike (no-op when it fits).
    if constexpr (deform::caps_in_pair_kernel<Policies>) deform_caps_.resize(4 * std::size_t(num_contacts_));
    if (count_touching_) touching_count_.resize(num_particles_);
    if (num_contacts_) {
      if constexpr (Policies::rigid)
        launch(num_contacts_, sim::rigid_pair_kernel<Policies>{view(), rigid(), coord_, pair_a_.data(), pair_b_.data(), history_.data(),
                                                                          params_.data(), num_materials(), results(), wildcards_view(), dt, t});
      else if (!Backend::is_device && num_materials() == 1)  // CPU gathers are dear; a GPU reads the table from cache
        backend_.for_each(num_contacts_, sim::pair_force_kernel<Policies, true>{view(), coord_, pair_a_.data(), pair_b_.data(), history_ptr(history_),
                                                                          params_.data(), num_materials(), results(), wildcards_view(), dt, t,
                                                                          deform_caps(), static_cast<real>(deform_limit_)});
      else
        launch(num_contacts_, sim::pair_force_kernel<Policies>{view(), coord_, pair_a_.data(), pair_b_.data(), history_ptr(history_),
                                                                          params_.data(), num_materials(), results(), wildcards_view(), dt, t,
                                                                          deform_caps(), static_cast<real>(deform_limit_)});
    }
    const double vmax = cfg_.max_speed;
    const real vmax2 = std::isfinite(vmax * vmax) && vmax * vmax < double(std::numeric_limits<real>::max())
                           ? static_cast<real>(vmax * vmax) : std::numeric_limits<real>::max();
    launch(num_particles_, sim::particle_update_kernel<Policies>{
                                          view(), coord_, incident_offset_.data(), incident_entry_.data(), results(),
                                          walls_.view(), walls_.walls(), params_.data(), num_materials(),
                                          wildcards_view(), rigid(), vec3<real>(cfg_.gravity), ext_force_ptr(), ext_torque_ptr(),
                                          sim::families<Simulator>::rules(*this, integrate), dt, t, vmax2, integrate,
                                          !separate_integration, status_.data(), deform_in_step(integrate), count_touching_ ? touching_count_.data() : nullptr});
    forces_current_ = true;
    if constexpr (separate_integration) {
      if (integrate && backend_.reduce_or(num_particles_, sim::sphere_finish_kernel<Policies>{view(), coord_, dt, vmax2}))
        backend_.for_each(num_particles_, sim::status_kernel<coord_space>{view(), coord_, vmax2, status_.data()});
    }
  }

  // Each particle's touching listed pairs at the last evaluation, for the contact inspectors: from
  // the listed forces now, and from then on by the particle kernel as it sums them (a byte per
  // particle that a run which never inspects contacts does not hold).
  void count_touching() {
    count_touching_ = true;
    touching_count_.resize(num_particles_);
    backend_.for_each(num_particles_, sim::touching_count_kernel<real>{active_.data(), incident_offset_.data(), incident_entry_.data(), cforce_.data(),
                                                                       touching_count_.data()});
  }

  // The status words the kernels write (one small copy on a GPU).
  std::array<std::uint32_t, sim::status_words> read_status() const {
    std::array<std::uint32_t, sim::status_words> s;
    status_.copy_to(s.data(), sim::status_words);
    return s;
  }

  void check_status() {
    const auto s = read_status();
    // The counts first, so that they stay consistent (removed_ <= lost_) when an error below stops
    // the run.
    if (s[sim::lost_count] != lost_) {
      const std::uint32_t left = s[sim::lost_count] - lost_ - removed_pending_;  // the rest were taken by outlets
      if (log_ && left)
        *log_ << "dem: step " << steps_ << ": " << left << " particle(s) left the domain and were deactivated ("
              << (s[sim::lost_count] - removed_) << " in total)\n";
      removed_pending_ = 0;
      lost_ = s[sim::lost_count];
      contacts_valid_ = false;  // the pair kernel assumes listed pairs hold active particles only
    }
    if constexpr (deformable) sim::deformation<Simulator>::check(*this, s[sim::deform_failure]);
    sim::families<Simulator>::note_changes(*this, s[sim::family_changes]);
    if (s[sim::bad_particle] != sim::no_particle) {
      const host_state h = pull();
      const std::uint32_t i = s[sim::bad_particle];
      std::ostringstream m;
      m.precision(6);
      const vec3d v = vec3d(h.vel[i]);
      m << "dem: the simulation diverged at step " << steps_ << " (t = " << time_ << " s): particle " << h.id[i]
        << " has velocity " << str(v) << " and angular velocity " << str(vec3d(h.omega[i]));
      if (all_finite(v) && all_finite(vec3d(h.omega[i]))) m << ", speed " << norm(v) << " m/s above config.max_speed = " << cfg_.max_speed;
      m << "; reduce dt (now " << cfg_.dt << " s) or check the input";
      throw std::runtime_error(m.str());
    }
  }

  void check_initial_overlaps() { sim::initial_overlaps<Simulator>::check(*this); }

  // ---- the energy ledger (energy/ledger_driver.hpp) ----------------------------------------------
  void ledger_state_now(double& kinetic, double& potential, double& elastic, double& shadow) {
    energy::ledger_driver<Simulator>::state_now(*this, kinetic, potential, elastic, shadow);
  }
  void prime_ledger() { energy::ledger_driver<Simulator>::prime(*this); }
  // Applies a change between steps (gravity, external forces) so that a running ledger keeps
  // closing: the state functions the change moves (potential energy; velocity Verlet's shadow term,
  // through the stored forces) are re-based at the change. Without a ledger: just the change.
  template <class Change>
  void ledger_rebased_across(Change&& change) {
    if constexpr (ledger_supported) {
      if (ledger_on_ && ledger_primed_ && num_particles_) {
        double kinetic = 0, potential = 0, elastic = 0, shadow = 0, kinetic2 = 0, potential2 = 0, elastic2 = 0, shadow2 = 0;
        prepare();  // the stored forces of the current state, before the change
        ledger_state_now(kinetic, potential, elastic, shadow);
        change();
        prepare();  // and after it (what the next step starts from)
        ledger_state_now(kinetic2, potential2, elastic2, shadow2);
        ledger_totals_.potential_start += potential2 - potential;
        ledger_totals_.shadow_start += shadow2 - shadow;
        return;
      }
    }
    change();
  }
  void ledger_step(real dt) { energy::ledger_driver<Simulator>::step(*this, dt); }
  void carry_ledger_records() { energy::ledger_driver<Simulator>::carry(*this); }

  // Sorts particles by cell, rebuilds the contact list and carries history over. A buffer that
  // cannot grow is reported with what it was growing for.
  void rebuild_contacts() {
    const auto context = [&] {
      return "dem: contact-list rebuild at step " + std::to_string(steps_) + " (" + std::to_string(num_particles_) + " particles, margin " +
             num(margin()) + " m)";
    };
    try {
      rebuild_contacts_now();
    } catch (const allocation_error& e) {
      sim::contact_builder<Simulator>::abandon(*this);
      throw allocation_error(context(), e);
    } catch (const std::bad_alloc&) {
      sim::contact_builder<Simulator>::abandon(*this);
      throw allocation_error(context() + ": out of memory");
    } catch (...) {
      sim::contact_builder<Simulator>::abandon(*this);
      throw;
    }
  }
  void rebuild_contacts_now() {
    if constexpr (deferred_supported) sim::deferred_detection<Simulator>::before_sync_rebuild(*this);  // a deferred build in flight is dropped
    forces_current_ = false;  // the listed forces no longer match the list until the next evaluation
    index_of_ids_valid_ = false;  // particles are reordered
    sim::contact_builder<Simulator>::rebuild(*this);
  }

  // Reorders b by perm_ through a scratch buffer of its type; the old array becomes the scratch,
  // which backends that keep rebuild scratch reuse for the next array of the type, and the others
  // free (at most one array's scratch held at a time).
  template <class T>
  void permute(buffer<T>& b, std::uint32_t stride = 1) {
    buffer<T>& scratch = scratch_for<T>();
    scratch.discard_resize(b.size());
    backend_.for_each(num_particles_, broad::permute_kernel<T>{perm_.data(), b.data(), scratch.data(), stride});
    b.swap(scratch);
    if constexpr (!Backend::keeps_rebuild_scratch) scratch.clear();
  }
  // One scratch buffer per element type.
  template <class T>
  buffer<T>& scratch_for() {
    if constexpr (std::is_same_v<T, position_type>) return scratch_pos_;
    else if constexpr (std::is_same_v<T, vec3<real>>) return scratch_vec_;
    else if constexpr (std::is_same_v<T, carry_type>) return scratch_carry_;
    else if constexpr (std::is_same_v<T, real>) return scratch_real_;
    else if constexpr (std::is_same_v<T, std::uint32_t>) return scratch_u32_;
    else if constexpr (std::is_same_v<T, quat<real>>) return scratch_quat_;
    else if constexpr (std::is_same_v<T, owner_wildcards_type>) return scratch_owner_wc_;
    else return scratch_geometry_wc_;
  }

  static std::string num(double v) {
    std::ostringstream s;
    s.precision(9);
    s << v;
    return s.str();
  }
  static std::string str(const vec3d& v) {
    std::ostringstream s;  // not "(" + ...: GCC 12 warns falsely (-Wrestrict) on that pattern
    s.precision(9);
    s << '(' << v.x << ", " << v.y << ", " << v.z << ')';
    return s.str();
  }

  simulation_config cfg_;
  typename coord_space::params coord_{};
  Backend backend_{};
  material_table materials_;
  std::ostream* log_ = &std::cerr;

  std::uint32_t num_particles_ = 0;  // in storage (active, and inactive until the next build compacts them)
  std::uint32_t num_ids_ = 0;        // ids issued: particles ever added (num_particles()); those
                                     // not stored were compacted away (lost_ counts them too)
  std::uint32_t lost_ = 0;
  std::uint32_t num_contacts_ = 0;
  std::uint32_t old_contacts_ = 0;
  std::uint64_t steps_ = 0;
  std::uint64_t rebuilds_ = 0;
  std::uint64_t halted_batches_ = 0;  // sim::device_steps
  std::uint64_t local_checks_ = 0;    // sim::local_validity: steps the list was kept past the plain criterion
  std::uint64_t list_patches_ = 0;    //   of those, steps that added missing pairs in place
  std::uint64_t patched_pairs_ = 0;   //   and the pairs they added
  bool local_ready_ = false;          // the build's grid (grid_, cell_keys_, cell_start_) is at hand for the local check
  bool kept_with_overrun_ = false;    // the list stands while particles are past their budgets (each step checks them)
  broad::grid grid_;                  // the last build's grid
  std::uint32_t num_cells_ = 0;       // its occupied cells
  double time_ = 0;
  double r_max_ = 0;
  double max_range_ = 0;
  bool contacts_valid_ = false;
  bool forces_current_ = false;  // the listed contact forces belong to the current list (inspect::contacts)
  bool count_touching_ = false;  // the particle kernel counts touching pairs (touching_count_): since an inspector first asked
  bool index_of_ids_valid_ = false;  // index_of_ids_ matches the storage order (trackers)
  bool prepared_ = false;
  bool dirty_params_ = true;

  // Per particle (sorted by cell at every rebuild).
  buffer<position_type> pos_, pos_ref_;
  buffer<carry_type> carry_;  // coordinate policies with a rounding carry only
  buffer<vec3<real>> vel_, omega_, force_, torque_;
  buffer<real> radius_, inv_mass_, inv_inertia_;  // inv_inertia_: rigid bodies only (sim::inverse_inertia)
  // Deformable spheres (sim/deformation.hpp): R' now, at the last build, and this step's solve;
  // Newton iterations per particle; the largest growth of a radius since the build; the limit on
  // R' / R; solves repeated after a rebuild.
  buffer<real> deformed_, deformed_ref_, deformed_next_;
  buffer<std::uint8_t> touching_count_;  // per particle: its touching listed pairs at the last evaluation (inspect::contacts; count_touching)
  buffer<real> deform_caps_;  // per incident entry: the pair kernel's caps (deform::in_step), as two arrays (deform::cap_arrays)
  buffer<std::uint32_t> deform_iterations_;
  double deform_growth_ = 0;
  double deform_limit_ = 2.0;
  std::uint32_t deform_interval_ = 1;
  std::uint64_t deform_redone_ = 0;
  buffer<std::uint32_t> material_;  // material_id values, 32 bits wide (gathered by the pair loop)
  buffer<std::uint32_t> id_;
  buffer<std::uint32_t> active_;
  // Rigid bodies: orientation, principal inertia, shape id per body; the shape table.
  buffer<quat<real>> orientation_;
  buffer<vec3<real>> inertia_;
  buffer<std::uint32_t> shape_;
  buffer<shape_data> shapes_;
  std::vector<shape_data> shapes_host_;
  std::vector<double> shape_volume_, shape_contact_radius_;
  std::vector<vec3d> shape_inertia_;
  std::vector<std::string> shape_names_;
  // Boundaries and the wall contact list (per particle, the boundary elements within reach).
  boundary::boundary_set<real, Backend, plane_history> walls_;
  buffer<vec3<real>> ext_force_, ext_torque_;    // external forces (sim/external_forces.hpp); empty when none
  // Families (sim/families.hpp): ids per particle (empty until used), the table, the contact load
  // before a rule (only while a rule exists), the predicates run after each step.
  buffer<std::uint32_t> family_;
  family::family_set<real, Backend> families_;
  buffer<real> search_radius_;  // per particle, at a build with family extra margins: the radius detection searches with
  buffer<vec3<real>> family_contact_force_, family_contact_torque_;
  std::vector<std::function<void(Simulator&)>> family_predicates_;
  family_id highest_family_ = 0;
  std::uint32_t family_changes_seen_ = 0;
  // Inlets and outlets (sim/flow_driver.hpp): the outlets' launchers and records, the list of
  // removals a step's outlets append to, the outlet (+1) that took each id; the inlets' batch
  // functions and records; scratch for the particles near an inlet.
  std::vector<std::function<void(Simulator&)>> outlet_launch_;
  std::vector<flow::outlet_record> outlets_;
  buffer<flow::removal> removals_;
  buffer<std::uint32_t> flow_counter_;
  std::vector<std::uint32_t> removed_by_;
  std::uint32_t removed_ = 0, removed_pending_ = 0;
  std::vector<std::function<void(Simulator&)>> inlet_step_;
  std::vector<flow::inlet_record> inlets_;
  buffer<flow::nearby> nearby_;
  buffer<std::uint32_t> index_of_ids_;           // storage index of each id (trackers; built on demand)
  buffer<owner_wildcards_type> owner_wc_;        // laws with owner wildcards
  buffer<geometry_wildcards_type> geometry_wc_;  // laws with geometry wildcards
  // Per listed pair.
  buffer<std::uint32_t> pair_a_, pair_b_;
  buffer<pair_history> history_, old_history_;  // old_history_: the previous list's, during a rebuild
  buffer<vec3<real>> cforce_, ctorque_;  // ctorque_: 2 per contact (all A's, then all B's), or A's alone (contact_results)
  buffer<std::uint32_t> old_pair_a_, old_pair_b_;  // during a rebuild: the previous list's pairs as ids (history carry)
  buffer<std::uint32_t> incident_entry_, incident_offset_;
  buffer<owner_wildcards_type> owner_increment_;        // 2 per contact (laws that write wildcards)
  buffer<geometry_wildcards_type> geometry_increment_;
  // Broad-phase scratch.
  buffer<std::uint64_t> cell_key_, cell_keys_;
  buffer<std::uint32_t> perm_, head_, slot_, cell_start_, row_first_, pair_count_, level_first_;
  buffer<position_type> scratch_pos_;
  buffer<vec3<real>> scratch_vec_;
  buffer<carry_type> scratch_carry_;
  buffer<real> scratch_real_;
  buffer<std::uint32_t> scratch_u32_;
  buffer<quat<real>> scratch_quat_;
  buffer<owner_wildcards_type> scratch_owner_wc_;
  buffer<geometry_wildcards_type> scratch_geometry_wc_;
  // The energy ledger (off unless enabled).
  bool ledger_on_ = false, ledger_primed_ = false;
  energy::ledger ledger_totals_{};
  energy::ledger_buffers<Backend, real, plane_history> ledger_;
  // Tables.
  buffer<typename law::params> params_;
  buffer<std::uint32_t> status_;
  buffer<std::uint32_t> halt_;  // sim::device_steps: where the device stopped a batch of steps
  buffer<std::uint32_t> overrun_, overrun_result_;  // sim::local_validity: the particles past their budgets; count and verdict
  buffer<std::uint32_t> missing_pairs_;             //   and the pairs they lack (A, B storage indices)
  sim::deferred_state<Simulator> deferred_;  // config.deferred_detection: the build in flight, the statistics
};

}  // namespace dem
