#pragma once
// Rotational dynamics of a rigid body with principal-axis inertia, for non-spherical owners
// (clumps, polyhedra). The translational part stays in integrators.hpp (`motion<Real>`); each
// integrator policy gets a rotational counterpart here with the same pre_force/post_force split.
//
// Frames and equations. q rotates body (principal) -> world: v_world = rotate(q, v_body). The
// inertia is diagonal in the body frame, I = diag(I1, I2, I3). The world-frame angular velocity is
// the state (contact kinematics need it; the particle buffers already hold one), the world
// angular momentum is L = R I R^T omega. Euler's equations in the body frame, gyroscopic term
// included (DEM-Engine drops it, which is wrong for any asymmetric body):
//     I domega_b/dt = tau_b - omega_b x (I omega_b),      dq/dt = 1/2 q (0, omega_b).
//
// Schemes (rotation::forward_euler / symplectic_euler / velocity_verlet), each named for what it is:
//  - forward_euler: omega_{n+1} = omega_n + alpha(q_n, omega_n, tau_n) dt,
//                   q_{n+1} = exp(omega_n dt) q_n. First order; energy drifts.
//  - symplectic_euler: the same acceleration, but q_{n+1} = exp(omega_{n+1} dt) q_n (update the
//                   velocity first, as the translational scheme does). First order. Not symplectic
//                   on SO(3) for an asymmetric body: the explicit Euler-equation update is not.
//  - velocity_verlet: kick L += tau dt/2 (world), drift q through the exact-flow splitting of the
//                   free rotor below with L fixed, forces, kick L += tau dt/2. Second order,
//                   symplectic and time-reversible (a Lie-Poisson splitting in the family of
//                   NO_SQUISH / Dullweber-Leimkuhler-McLachlan 1997). Without torque the world L is
//                   conserved up to round-off and the energy error stays bounded, O(dt^2).
//
// Free-rotor splitting: with I_r the median principal moment,
//     H = |L|^2 / (2 I_r) + sum_{a != r} L_a^2 / 2 (1/I_a - 1/I_r).
// The first term's flow is a rotation about the fixed world L at rate |L|/I_r; it commutes with
// the rest. Each remaining term's flow is an exact rotation about body axis a by
// L_a (1/I_a - 1/I_r) t. Strang: a(dt/2) b(dt) a(dt/2). Choosing the median as I_r makes the
// step exact for every axisymmetric body (the term of the axis equal to the median vanishes) and
// for spheres; only fully asymmetric bodies see a splitting error.
//
// Everything is DEM_HD, templated on Real, without heap or recursion. Principal moments must be
// positive and finite (a fixed body is not integrated at all).
#include <cmath>

#include "dem/config.hpp"
#include "dem/integrate/integrators.hpp"
#include "dem/math/quaternion.hpp"
#include "dem/math/vec3.hpp"

namespace dem::integrate {

// The rotational state of one owner as the integrators see it.
template <class Real>
struct rotation_state {
  quat<Real> orientation;  // body (principal frame) -> world, unit
  vec3<Real> omega;        // angular velocity, world frame
  vec3<Real> torque;       // total torque of the last force evaluation, world frame
  vec3<Real> inertia;      // principal moments I1, I2, I3 (body frame), each > 0
};

// Component-wise product, the action of a diagonal matrix.
template <class Real>
DEM_HD constexpr vec3<Real> diagonal_times(const vec3<Real>& d, const vec3<Real>& v) {
  return {d.x * v.x, d.y * v.y, d.z * v.z};
}
template <class Real>
DEM_HD constexpr vec3<Real> diagonal_solve(const vec3<Real>& d, const vec3<Real>& v) {
  return {v.x / d.x, v.y / d.y, v.z / d.z};
}

// R M R^T v for a diagonal M, with R the rotation of q / |q|. q is unit only to round-off; the
// plain rotate(q, .) scales by |q|^2, and that bias, repeated at every L <-> omega conversion,
// makes |L| drift (in float by ~1e-6 per step). The matrix of q / |q| is orthogonal up to
// unbiased rounding, so the conversions are inverse to each other without a drift.
template <class Real>
DEM_HD constexpr vec3<Real> rotated_diagonal_times(const quat<Real>& q, const vec3<Real>& m, const vec3<Real>& v, bool inverse) {
  const Real s = Real(2) / norm2(q);
  const Real xx = q.x * q.x * s, yy = q.y * q.y * s, zz = q.z * q.z * s;
  const Real xy = q.x * q.y * s, xz = q.x * q.z * s, yz = q.y * q.z * s;
  const Real wx = q.w * q.x * s, wy = q.w * q.y * s, wz = q.w * q.z * s;
  // rows of R
  const vec3<Real> r0{Real(1) - yy - zz, xy - wz, xz + wy};
  const vec3<Real> r1{xy + wz, Real(1) - xx - zz, yz - wx};
  const vec3<Real> r2{xz - wy, yz + wx, Real(1) - xx - yy};
  // b = R^T v (columns of R^T are the rows of R)
  const vec3<Real> b = r0 * v.x + r1 * v.y + r2 * v.z;
  const vec3<Real> mb = inverse ? vec3<Real>{b.x / m.x, b.y / m.y, b.z / m.z} : vec3<Real>{b.x * m.x, b.y * m.y, b.z * m.z};
  return {dot(r0, mb), dot(r1, mb), dot(r2, mb)};
}
// World angular momentum L = R I R^T omega.
template <class Real>
DEM_HD constexpr vec3<Real> angular_momentum(const quat<Real>& q, const vec3<Real>& inertia, const vec3<Real>& omega) {
  return rotated_diagonal_times(q, inertia, omega, false);
}
// World angular velocity omega = R I^-1 R^T L.
template <class Real>
DEM_HD constexpr vec3<Real> omega_from_momentum(const quat<Real>& q, const vec3<Real>& inertia, const vec3<Real>& l) {
  return rotated_diagonal_times(q, inertia, l, true);
}
// Rotational kinetic energy 1/2 omega_b . I omega_b.
template <class Real>
DEM_HD constexpr Real rotational_energy(const quat<Real>& q, const vec3<Real>& inertia, const vec3<Real>& omega) {
  const vec3<Real> wb = rotate_inverse(q, omega);
  return Real(0.5) * dot(wb, diagonal_times(inertia, wb));
}
// World angular acceleration from Euler's equations: R I^-1 (tau_b - omega_b x I omega_b).
template <class Real>
DEM_HD constexpr vec3<Real> angular_acceleration(const quat<Real>& q, const vec3<Real>& inertia, const vec3<Real>& omega,
                                                 const vec3<Real>& torque) {
  const vec3<Real> wb = rotate_inverse(q, omega);
  const vec3<Real> tb = rotate_inverse(q, torque);
  return rotate(q, diagonal_solve(inertia, tb - cross(wb, diagonal_times(inertia, wb))));
}
template <class Real>
DEM_HD constexpr vec3<Real> angular_momentum(const rotation_state<Real>& s) { return angular_momentum(s.orientation, s.inertia, s.omega); }
template <class Real>
DEM_HD constexpr Real rotational_energy(const rotation_state<Real>& s) { return rotational_energy(s.orientation, s.inertia, s.omega); }
template <class Real>
DEM_HD constexpr vec3<Real> angular_acceleration(const rotation_state<Real>& s) {
  return angular_acceleration(s.orientation, s.inertia, s.omega, s.torque);
}

// Exact flow of H_a = L_a^2 c / 2 for time t: the body turns about its axis `a` by
// angle = L_a c t (q <- q (cos, e_a sin)), and the body-frame L turns by -angle about e_a, which
// keeps the world L fixed.
template <class Real>
DEM_HD inline void rotate_about_body_axis(quat<Real>& q, vec3<Real>& l_body, int a, Real angle) {
  using std::cos;
  using std::sin;
  const Real ch = cos(angle * Real(0.5)), sh = sin(angle * Real(0.5));
  quat<Real> step{ch, Real(0), Real(0), Real(0)};
  if (a == 0) step.x = sh;
  else if (a == 1) step.y = sh;
  else step.z = sh;
  q = q * step;
  const int j = (a + 1) % 3, k = (a + 2) % 3;
  const Real c = cos(angle), s = sin(angle);
  const Real lj = l_body[j], lk = l_body[k];
  l_body[j] = c * lj + s * lk;
  l_body[k] = -s * lj + c * lk;
}

// Orientation after a torque-free step of dt with the world angular momentum l held fixed
// (the splitting described at the top). Returns a unit quaternion.
template <class Real>
DEM_HD inline quat<Real> free_rotor_step(const quat<Real>& q0, const vec3<Real>& l, const vec3<Real>& inertia, Real dt) {
  // Median principal moment as the reference; a and b are the two other axes.
  const Real i1 = inertia.x, i2 = inertia.y, i3 = inertia.z;
  int r = 0;
  if ((i1 <= i2 && i2 <= i3) || (i3 <= i2 && i2 <= i1)) r = 1;
  else if ((i1 <= i3 && i3 <= i2) || (i2 <= i3 && i3 <= i1)) r = 2;
  const int a = (r + 1) % 3, b = (r + 2) % 3;
  const Real inv_r = Real(1) / inertia[r];
  const Real ca = Real(1) / inertia[a] - inv_r, cb = Real(1) / inertia[b] - inv_r;

  // Isotropic part: rotation about the world L by |L| dt / I_r (left multiplication = world frame).
  quat<Real> q = from_rotation_vector(l * (dt * inv_r)) * q0;
  vec3<Real> lb = rotate_inverse(q0, l);  // unchanged by the isotropic part
  const Real h = Real(0.5) * dt;
  rotate_about_body_axis(q, lb, a, lb[a] * ca * h);
  rotate_about_body_axis(q, lb, b, lb[b] * cb * dt);
  rotate_about_body_axis(q, lb, a, lb[a] * ca * h);
  return normalized(q);
}

namespace rotation {

// Explicit Euler on Euler's equations and on the orientation (omega of the start of the step).
struct forward_euler {
  static constexpr const char* name = "forward_euler";
  template <class Real>
  DEM_HD static void pre_force(rotation_state<Real>&, Real) {}
  template <class Real>
  DEM_HD static void post_force(rotation_state<Real>& s, Real dt) {
    const vec3<Real> alpha = angular_acceleration(s);
    s.orientation = normalized(from_rotation_vector(s.omega * dt) * s.orientation);
    s.omega += alpha * dt;
  }
};

// Velocity first (explicit Euler equations, gyroscopic term at the old state), then the
// orientation with the new omega.
struct symplectic_euler {
  static constexpr const char* name = "symplectic_euler";
  template <class Real>
  DEM_HD static void pre_force(rotation_state<Real>&, Real) {}
  template <class Real>
  DEM_HD static void post_force(rotation_state<Real>& s, Real dt) {
    s.omega += angular_acceleration(s) * dt;
    s.orientation = normalized(from_rotation_vector(s.omega * dt) * s.orientation);
  }
};

// Kick (world L), exact-flow splitting drift, [forces], kick. needs_initial_force like the
// translational Verlet: pre_force uses the torque of the previous evaluation.
struct velocity_verlet {
  static constexpr const char* name = "velocity_verlet";
  template <class Real>
  DEM_HD static void pre_force(rotation_state<Real>& s, Real dt) {
    const vec3<Real> l = angular_momentum(s) + s.torque * (Real(0.5) * dt);
    s.orientation = free_rotor_step(s.orientation, l, s.inertia, dt);
    s.omega = omega_from_momentum(s.orientation, s.inertia, l);
  }
  template <class Real>
  DEM_HD static void post_force(rotation_state<Real>& s, Real dt) {
    const vec3<Real> l = angular_momentum(s) + s.torque * (Real(0.5) * dt);
    s.omega = omega_from_momentum(s.orientation, s.inertia, l);
  }
};

}  // namespace rotation

// The rotational scheme that goes with a translational integrator policy:
// rotation_scheme_t<velocity_verlet> is rotation::velocity_verlet. A new integrator policy
// specialises rotation_scheme_for (or the build stops with the message below).
template <class Integrator>
struct rotation_scheme_for {
  static_assert(sizeof(Integrator) == 0,
                "integrator has no rotational scheme for non-spherical owners: specialise "
                "dem::integrate::rotation_scheme_for<YourIntegrator> with `using type = ...;` "
                "(see dem/integrate/rigid_body.hpp)");
};
template <>
struct rotation_scheme_for<forward_euler> { using type = rotation::forward_euler; };
template <>
struct rotation_scheme_for<symplectic_euler> { using type = rotation::symplectic_euler; };
template <>
struct rotation_scheme_for<velocity_verlet> { using type = rotation::velocity_verlet; };
template <class Integrator>
using rotation_scheme_t = typename rotation_scheme_for<Integrator>::type;

}  // namespace dem::integrate
