#pragma once
// dem::policies<...> bundles the compile-time choices of a simulation. Each has a default, so
// `dem::policies<>` is Hertz–Mindlin spheres, velocity Verlet, single precision, floating-point
// coordinates. The bundle re-exports its parts and the types derived from them.
#include <type_traits>

#include "dem/coord/floating.hpp"
#include "dem/force/concept.hpp"
#include "dem/force/hertz_mindlin.hpp"
#include "dem/integrate/integrators.hpp"
#include "dem/precision/precision.hpp"
#include "dem/shape/deformable_sphere.hpp"
#include "dem/shape/sphere.hpp"
#include "dem/sim/particle_view.hpp"

namespace dem {

namespace detail {
// Coordinate policies take the kernels' real type and, if they accept it, the precision policy's
// position storage type (coord::floating under precision::mixed stores double positions).
template <class Coord, class Real, class Stored>
struct coord_space_of {
  using type = typename Coord::template space<Real>;
};
template <class Coord, class Real, class Stored>
  requires requires { typename Coord::template space<Real, Stored>; }
struct coord_space_of<Coord, Real, Stored> {
  using type = typename Coord::template space<Real, Stored>;
};
// Spheres whose radius follows their contacts (shape::deformable_sphere).
template <class Shape>
concept deformable_shape = requires { requires Shape::deformable; };
template <class Shape>
concept rigid_shape = requires {
  { Shape::rigid_body } -> std::convertible_to<bool>;
  { Shape::pair_slots } -> std::convertible_to<int>;
  { Shape::plane_slots } -> std::convertible_to<int>;
  typename Shape::template data<float>;
  typename Shape::host_template;
} && Shape::rigid_body;

// The host-side body type of a rigid shape (clump_template, polyhedron_template); a placeholder
// for spheres, so that the Simulator's member signatures exist for every shape.
struct no_host_template {};
template <class Shape>
struct host_template_of { using type = no_host_template; };
template <class Shape>
  requires requires { typename Shape::host_template; }
struct host_template_of<Shape> { using type = typename Shape::host_template; };

template <class Shape, class Real, class History, bool Rigid = rigid_shape<Shape>>
struct shape_types {
  static constexpr bool rigid = false;
  using data = char;  // spheres need no shape table
  using pair_history = History;
  using plane_history = sim::slot_histories<History, 1>;  // a boundary contact: its history and whether it touched
};
template <class Shape, class Real, class History>
struct shape_types<Shape, Real, History, true> {
  static constexpr bool rigid = true;
  using data = typename Shape::template data<Real>;
  using pair_history = sim::slot_histories<History, Shape::pair_slots>;
  using plane_history = sim::slot_histories<History, Shape::plane_slots>;
};
}  // namespace detail

template <class Shape = shape::sphere, class Force = force::hertz_mindlin, class Integrator = integrate::velocity_verlet,
          class Precision = precision::single, class Coord = coord::floating>
struct policies {
  static_assert(precision::policy<Precision>,
                "dem::policies: the precision policy (4th) must define `using real` and `using accum` as floating-point types and `name`; use dem::precision::single, mixed or double_.");
  static_assert(std::is_same_v<Shape, shape::sphere> || std::is_same_v<Shape, shape::deformable_sphere> || detail::rigid_shape<Shape>,
                "dem::policies: the shape policy (1st) must be dem::shape::sphere, dem::shape::deformable_sphere, dem::shape::clump<N> or dem::shape::polyhedron<N> (a rigid shape defines rigid_body, pair_slots, plane_slots, data<Real>, make, collide and collide_plane).");
  static_assert(requires(integrate::motion<typename Precision::real>& m, typename Precision::real dt) {
    Integrator::name;
    { Integrator::needs_initial_force } -> std::convertible_to<bool>;
    { Integrator::pre_force(m, dt) } -> std::same_as<vec3<typename Precision::real>>;
    { Integrator::post_force(m, dt) } -> std::same_as<vec3<typename Precision::real>>;
  },
                "dem::policies: the integrator policy (3rd) must define `name`, `needs_initial_force`, and static `pre_force`/`post_force`; use dem::integrate::forward_euler, symplectic_euler or velocity_verlet.");
  static_assert(requires { Coord::name; typename Coord::template space<typename Precision::real>; },
                "dem::policies: the coordinate policy (5th) must define `template <class Real> struct space` (see dem/coord/floating.hpp).");
  static_assert(force::check_law<Force, typename Precision::real>());

  using shape = Shape;
  using force = Force;
  using integrator = Integrator;
  using precision = Precision;
  using coord = Coord;
  using real = typename Precision::real;
  using gather = dem::precision::gather_t<Precision>;  // per-particle force/torque sums
  using law = typename Force::template law<real>;
  using coord_space = typename detail::coord_space_of<Coord, real, dem::precision::position_t<Precision>>::type;
  // Rigid (non-spherical) bodies: a shape table, and per pair of bodies one history slot per
  // possible contact point. Per (body, boundary element) pair: one slot per probe (spheres: one).
  static constexpr bool deformable = detail::deformable_shape<Shape>;  // radii solved every step (dem/deform/)
  static constexpr bool rigid = detail::shape_types<Shape, real, typename law::history>::rigid;
  using shape_data = typename detail::shape_types<Shape, real, typename law::history>::data;
  using pair_history = typename detail::shape_types<Shape, real, typename law::history>::pair_history;
  using plane_history = typename detail::shape_types<Shape, real, typename law::history>::plane_history;
  using host_template = typename detail::host_template_of<Shape>::type;
  // Spheres under a law whose torques come from the force and a couple (no torque_only_force): the
  // pair kernel stores A's torque only and the particle kernel derives B's from the centres
  // (sim::contact_results). Not with an integrator that drifts after the force: on device backends
  // the particle kernel then moves particles while others read their centres.
  static constexpr bool one_torque_per_pair =
      !rigid && !dem::force::law_traits<law>::sets_torque_only_force && !integrate::drifts_after_force<Integrator>;
  static_assert(!rigid || !dem::force::law_traits<law>::has_range || requires { requires Shape::supports_range; },
                "dem::policies: this shape's narrow phase reports overlaps only, so it cannot be used with a force law that has a range (cohesion).");
};

}  // namespace dem
