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
#include "dem/shape/sphere.hpp"

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
}  // namespace detail

template <class Shape = shape::sphere, class Force = force::hertz_mindlin, class Integrator = integrate::velocity_verlet,
          class Precision = precision::single, class Coord = coord::floating>
struct policies {
  static_assert(precision::policy<Precision>,
                "dem::policies: the precision policy (4th) must define `using real` and `using accum` as floating-point types and `name`; use dem::precision::single, mixed or double_.");
  static_assert(std::is_same_v<Shape, shape::sphere>,
                "dem::policies: the shape policy (1st) must be dem::shape::sphere in this version.");
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
};

}  // namespace dem
