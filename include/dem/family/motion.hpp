#pragma once
// Prescribed motions of a family (host side). Each particle of the family moves with the given
// velocity (of its own centre) and angular velocity (about its own centre) in the prescribed
// components; the others stay free (forces act on them as usual).
//
//   sim.set_family_motion(2, dem::family::fixed{});                        // held in place
//   sim.set_family_motion(3, dem::family::constant_velocity{{0, 0, -0.5}}); // a piston of particles
//   struct shake {                                                         // a user motion:
//     static constexpr dem::family::components linear = dem::family::z;    //   z prescribed, x and y free
//     static constexpr dem::family::components angular = dem::family::none;
//     dem::vec3d velocity(double t) const { return {0, 0, 0.01 * 60 * std::cos(60 * t)}; }
//   };
//   sim.set_family_motion(4, shake{});
//
// A user motion is a compile-time type: a missing member or a wrong signature fails to compile with
// a message naming it (not at run time, as DEM-Engine's string expressions do). It is evaluated on
// the host, once per step, for the whole family: the kernels receive the mean velocity over the
// step (Simpson's rule, exact for polynomials up to cubic), so the displacement is the integral.
#include <concepts>
#include <functional>
#include <type_traits>

#include "dem/family/rule.hpp"
#include "dem/math/vec3.hpp"

namespace dem::family {

// No prescription: forces move every component (every family starts so).
struct free {};
// Every component held at zero velocity and zero angular velocity.
struct fixed {};
// Constant velocity and angular velocity in the chosen components.
struct constant_velocity {
  vec3d velocity{0, 0, 0};
  vec3d omega{0, 0, 0};
  components linear = xyz;
  components angular = xyz;
};

template <class M>
concept user_motion = std::copy_constructible<M> && requires {
  { M::linear } -> std::convertible_to<components>;
  { M::angular } -> std::convertible_to<components>;
};

// A motion as the family table keeps it: the components and the velocity functions of time.
struct motion_entry {
  components linear = none, angular = none;
  std::function<vec3d(double)> velocity, omega;  // empty where no component is prescribed
  bool constant = false;                          // the same at every time (taken as it is, to the bit)

  // The mean velocity and angular velocity over [t0, t1] (Simpson's rule).
  void mean(double t0, double t1, vec3d& v, vec3d& w) const {
    if (constant) {
      v = velocity ? velocity(t0) : vec3d{0, 0, 0};
      w = omega ? omega(t0) : vec3d{0, 0, 0};
      return;
    }
    const double tm = 0.5 * (t0 + t1);
    auto avg = [&](const std::function<vec3d(double)>& f) { return (f(t0) + f(tm) * 4.0 + f(t1)) * (1.0 / 6.0); };
    v = velocity ? avg(velocity) : vec3d{0, 0, 0};
    w = omega ? avg(omega) : vec3d{0, 0, 0};
  }
};

template <class M>
motion_entry make_motion(const M& m) {
  motion_entry e;
  if constexpr (std::is_same_v<M, free>) {
    (void)m;
  } else if constexpr (std::is_same_v<M, fixed>) {
    e.linear = e.angular = xyz;
    e.constant = true;
    e.velocity = e.omega = [](double) { return vec3d{0, 0, 0}; };
  } else if constexpr (std::is_same_v<M, constant_velocity>) {
    e.linear = m.linear & xyz;
    e.angular = m.angular & xyz;
    e.constant = true;
    const vec3d v = m.velocity, w = m.omega;
    e.velocity = [v](double) { return v; };
    e.omega = [w](double) { return w; };
  } else {
    static_assert(user_motion<M>,
                  "dem::family: a user motion needs `static constexpr dem::family::components linear` and `angular` (which components it "
                  "prescribes: dem::family::none, x, y, z, xy, xz, yz, xyz)");
    e.linear = static_cast<components>(M::linear) & xyz;
    e.angular = static_cast<components>(M::angular) & xyz;
    if constexpr (static_cast<components>(M::linear) != none) {
      static_assert(requires(const M& u, double t) { { u.velocity(t) } -> std::convertible_to<vec3d>; },
                    "dem::family: a user motion that prescribes linear components needs `dem::vec3d velocity(double t) const`");
      e.velocity = [m](double t) { return vec3d(m.velocity(t)); };
    }
    if constexpr (static_cast<components>(M::angular) != none) {
      static_assert(requires(const M& u, double t) { { u.angular_velocity(t) } -> std::convertible_to<vec3d>; },
                    "dem::family: a user motion that prescribes angular components needs `dem::vec3d angular_velocity(double t) const`");
      e.omega = [m](double t) { return vec3d(m.angular_velocity(t)); };
    }
  }
  return e;
}

}  // namespace dem::family
