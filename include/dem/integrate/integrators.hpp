#pragma once
// Integrator policies. Each one splits a step into the part before the force evaluation
// (pre_force) and the part after it (post_force); each returns the position displacement to
// apply at that point. Accelerations are force * inverse mass (gravity is already in `force`).
//
// An integrator policy provides:
//   static constexpr const char* name;
//   static constexpr bool needs_initial_force;   // pre_force uses the force of the previous step
//   static constexpr bool drifts_after_force;    // optional (default true): false when post_force
//                                                // always returns a zero displacement
//   template <class Real> DEM_HD static vec3<Real> pre_force(motion<Real>&, Real dt);
//   template <class Real> DEM_HD static vec3<Real> post_force(motion<Real>&, Real dt);
#include "dem/config.hpp"
#include "dem/math/vec3.hpp"

namespace dem::integrate {

// The kinematic state of one body as integrators see it.
template <class Real>
struct motion {
  vec3<Real> velocity;
  vec3<Real> omega;
  vec3<Real> force;   // total force, gravity included
  vec3<Real> torque;
  Real inv_mass;
  Real inv_inertia;   // spheres: 1 / (2/5 m r^2)
};

// Explicit (forward) Euler: x_{n+1} = x_n + v_n dt, v_{n+1} = v_n + a_n dt. First order, not
// symplectic: energy grows in elastic collisions. Kept because Blaze-DEM's paper uses it.
struct forward_euler {
  static constexpr const char* name = "forward_euler";
  static constexpr bool needs_initial_force = false;
  template <class Real>
  DEM_HD static vec3<Real> pre_force(motion<Real>&, Real) { return {0, 0, 0}; }
  template <class Real>
  DEM_HD static vec3<Real> post_force(motion<Real>& m, Real dt) {
    const vec3<Real> dx = m.velocity * dt;
    m.velocity += m.force * (m.inv_mass * dt);
    m.omega += m.torque * (m.inv_inertia * dt);
    return dx;
  }
};

// Symplectic (semi-implicit) Euler: v_{n+1} = v_n + a_n dt, x_{n+1} = x_n + v_{n+1} dt.
// What Blaze-DEM's code really does; first order, bounded energy error.
struct symplectic_euler {
  static constexpr const char* name = "symplectic_euler";
  static constexpr bool needs_initial_force = false;
  template <class Real>
  DEM_HD static vec3<Real> pre_force(motion<Real>&, Real) { return {0, 0, 0}; }
  template <class Real>
  DEM_HD static vec3<Real> post_force(motion<Real>& m, Real dt) {
    m.velocity += m.force * (m.inv_mass * dt);
    m.omega += m.torque * (m.inv_inertia * dt);
    return m.velocity * dt;
  }
};

// Velocity Verlet (kick-drift-kick): second order and symplectic for conservative forces.
// Velocity-dependent forces see the half-step velocity, as in LIGGGHTS.
struct velocity_verlet {
  static constexpr const char* name = "velocity_verlet";
  static constexpr bool needs_initial_force = true;
  static constexpr bool drifts_after_force = false;  // post_force only kicks: the kernels skip its (zero) drift
  template <class Real>
  DEM_HD static vec3<Real> pre_force(motion<Real>& m, Real dt) {
    const Real h = Real(0.5) * dt;
    m.velocity += m.force * (m.inv_mass * h);
    m.omega += m.torque * (m.inv_inertia * h);
    return m.velocity * dt;
  }
  template <class Real>
  DEM_HD static vec3<Real> post_force(motion<Real>& m, Real dt) {
    const Real h = Real(0.5) * dt;
    m.velocity += m.force * (m.inv_mass * h);
    m.omega += m.torque * (m.inv_inertia * h);
    return {0, 0, 0};
  }
};

// Whether an integrator's post_force may move particles (integrators that do not say: yes).
template <class I>
struct drifts_after_force_of { static constexpr bool value = true; };
template <class I>
  requires requires { I::drifts_after_force; }
struct drifts_after_force_of<I> { static constexpr bool value = I::drifts_after_force; };
template <class I>
inline constexpr bool drifts_after_force = drifts_after_force_of<I>::value;

}  // namespace dem::integrate
