// Rotational dynamics of rigid bodies (integrate/rigid_body.hpp): torque steps against the
// analytic angular acceleration, conservation and the intermediate-axis instability of a free
// asymmetric body, the analytic precession of a symmetric top, and each scheme's order.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <type_traits>

#include "dem/integrate/rigid_body.hpp"

namespace {

using dem::quatd;
using dem::vec3d;
using dem::integrate::rotation_state;
namespace rot = dem::integrate::rotation;

// One step of a scheme with a torque that does not depend on the state.
template <class Scheme>
void step(rotation_state<double>& s, double dt, const vec3d& torque) {
  Scheme::pre_force(s, dt);
  s.torque = torque;
  Scheme::post_force(s, dt);
}

template <class Scheme>
rotation_state<double> run(rotation_state<double> s, double dt, int n, const vec3d& torque) {
  s.torque = torque;  // what the force evaluation before the first step gave (Verlet needs it)
  for (int i = 0; i < n; ++i) step<Scheme>(s, dt, torque);
  return s;
}

rotation_state<double> body(const vec3d& inertia, const quatd& q, const vec3d& omega_body) {
  return {q, dem::rotate(q, omega_body), {0, 0, 0}, inertia};
}

const quatd tilted = dem::normalized(quatd{0.9, 0.3, -0.2, 0.25});

double rel(const vec3d& a, const vec3d& b) { return dem::norm(a - b) / dem::norm(b); }

// Euler's equations in the body frame, torque-free, by classical RK4: the independent reference.
vec3d euler_rhs(const vec3d& i, const vec3d& w) {
  return {(i.y - i.z) * w.y * w.z / i.x, (i.z - i.x) * w.z * w.x / i.y, (i.x - i.y) * w.x * w.y / i.z};
}
vec3d rk4(const vec3d& i, vec3d w, double dt) {
  const vec3d k1 = euler_rhs(i, w), k2 = euler_rhs(i, w + k1 * (dt / 2)), k3 = euler_rhs(i, w + k2 * (dt / 2)),
              k4 = euler_rhs(i, w + k3 * dt);
  return w + (k1 + k2 * 2.0 + k3 * 2.0 + k4) * (dt / 6);
}

// First time the body-frame component `axis` changes sign.
template <class Scheme>
double first_flip(rotation_state<double> s, int axis, double dt, double t_max) {
  const double sign0 = dem::rotate_inverse(s.orientation, s.omega)[axis];
  for (int n = 1; n * dt <= t_max; ++n) {
    step<Scheme>(s, dt, {0, 0, 0});
    if (dem::rotate_inverse(s.orientation, s.omega)[axis] * sign0 < 0) return n * dt;
  }
  return -1;
}

}  // namespace

static_assert(std::is_same_v<dem::integrate::rotation_scheme_t<dem::integrate::velocity_verlet>, rot::velocity_verlet>);
static_assert(std::is_same_v<dem::integrate::rotation_scheme_t<dem::integrate::symplectic_euler>, rot::symplectic_euler>);
static_assert(std::is_same_v<dem::integrate::rotation_scheme_t<dem::integrate::forward_euler>, rot::forward_euler>);
static_assert(std::is_trivially_copyable_v<rotation_state<float>>);

TEST_CASE_TEMPLATE("rigid body: a torque step about a principal axis gives omega = tau t / I", Scheme, rot::forward_euler,
                   rot::symplectic_euler, rot::velocity_verlet) {
  const vec3d inertia{1.0, 2.0, 3.0};
  for (int axis = 0; axis < 3; ++axis) {
    vec3d e{0, 0, 0};
    e[axis] = 1;
    const vec3d tau = dem::rotate(tilted, e) * 0.7;  // along the body's principal axis, in world
    const double dt = 1e-3;
    const int n = 500;
    const auto s = run<Scheme>(body(inertia, tilted, {0, 0, 0}), dt, n, tau);
    const vec3d expected = tau * (n * dt / inertia[axis]);
    CHECK(rel(s.omega, expected) < 1e-12);
    // and the body turned about that axis only: the axis keeps its world direction
    CHECK(dem::norm(dem::rotate(s.orientation, e) - dem::rotate(tilted, e)) < 1e-12);
  }
}

TEST_CASE("rigid body: about a non-principal axis the initial angular acceleration is I_world^-1 tau") {
  const vec3d inertia{1.0, 2.0, 3.0};
  const vec3d tau{0.3, -0.5, 0.8};
  // I_world = R diag(I) R^T, assembled column by column and inverted by Cramer's rule.
  vec3d col[3];
  for (int j = 0; j < 3; ++j) {
    vec3d e{0, 0, 0};
    e[j] = 1;
    col[j] = dem::rotate(tilted, dem::integrate::diagonal_times(inertia, dem::rotate_inverse(tilted, e)));
  }
  const double det = dot(col[0], cross(col[1], col[2]));
  CHECK(det == doctest::Approx(6.0).epsilon(1e-12));
  // x = I^-1 tau: x_j = det(columns with column j replaced by tau) / det
  const vec3d expected{dot(tau, cross(col[1], col[2])) / det, dot(col[0], cross(tau, col[2])) / det,
                       dot(col[0], cross(col[1], tau)) / det};
  const vec3d alpha = dem::integrate::angular_acceleration(tilted, inertia, vec3d{0, 0, 0}, tau);
  CHECK(rel(alpha, expected) < 1e-13);
  CHECK(rel(alpha, tau) > 0.1);  // it really is not parallel to the torque

  // Each scheme's first step from rest: (omega_1 - 0) / dt -> alpha as dt -> 0.
  const double dt = 1e-6;
  auto first = [&](auto scheme) {
    using S = decltype(scheme);
    return run<S>(body(inertia, tilted, {0, 0, 0}), dt, 1, tau).omega / dt;
  };
  CHECK(rel(first(rot::forward_euler{}), expected) < 1e-12);
  CHECK(rel(first(rot::symplectic_euler{}), expected) < 1e-12);
  CHECK(rel(first(rot::velocity_verlet{}), expected) < 1e-5);  // rotated by the half kick: O(dt)
}

TEST_CASE("rigid body: a free asymmetric body conserves L and energy (velocity Verlet, 1e5 steps)") {
  const vec3d inertia{1.0, 2.0, 3.0};
  auto s = body(inertia, tilted, {0.4, 1.0, -0.3});
  const vec3d l0 = dem::integrate::angular_momentum(s);
  const double e0 = dem::integrate::rotational_energy(s);
  double max_dl = 0, max_de = 0;
  const double dt = 1e-3;
  s.torque = {0, 0, 0};
  for (int n = 0; n < 100000; ++n) {
    step<rot::velocity_verlet>(s, dt, {0, 0, 0});
    max_dl = std::fmax(max_dl, dem::norm(dem::integrate::angular_momentum(s) - l0) / dem::norm(l0));
    max_de = std::fmax(max_de, std::fabs(dem::integrate::rotational_energy(s) - e0) / e0);
  }
  MESSAGE("max |L - L0|/|L0| = ", max_dl, ", max |E - E0|/E0 = ", max_de);
  CHECK(max_dl < 1e-10);
  CHECK(max_de < 1e-4);
  CHECK(std::fabs(dem::norm2(s.orientation) - 1) < 1e-14);
}

TEST_CASE("rigid body: the intermediate axis flips (Dzhanibekov effect); the major and minor axes stay") {
  const vec3d inertia{1.0, 2.0, 3.0};
  const double eps = 1e-3, dt = 1e-3;
  // Reference flip time: RK4 on Euler's equations at dt/10.
  double t_ref = -1;
  {
    vec3d w{eps, 1, eps};
    for (int n = 1; n * 1e-4 < 100; ++n) {
      w = rk4(inertia, w, 1e-4);
      if (w.y < 0) { t_ref = n * 1e-4; break; }
    }
  }
  // Linearised growth rate omega_2 sqrt((I2 - I1)(I3 - I2)/(I1 I3)): the flip takes a few
  // e-foldings of ln(1/eps).
  const double growth = std::sqrt((2.0 - 1.0) * (3.0 - 2.0) / (1.0 * 3.0));
  REQUIRE(t_ref > 0);
  CHECK(t_ref > std::log(1 / eps) / growth);
  CHECK(t_ref < 3 * std::log(1 / eps) / growth);
  for (auto q : {quatd::identity(), tilted}) {
    const double t_vv = first_flip<rot::velocity_verlet>(body(inertia, q, {eps, 1, eps}), 1, dt, 100);
    const double t_se = first_flip<rot::symplectic_euler>(body(inertia, q, {eps, 1, eps}), 1, dt / 10, 100);
    MESSAGE("flip at t = ", t_vv, " (Verlet), ", t_se, " (symplectic Euler, dt/10), reference ", t_ref);
    CHECK(t_vv == doctest::Approx(t_ref).epsilon(1e-3));
    CHECK(t_se == doctest::Approx(t_ref).epsilon(1e-2));
  }
  // Near the minor (I1) and the major (I3) axis the motion stays a small wobble.
  for (int axis : {0, 2}) {
    vec3d w0{eps, eps, eps};
    w0[axis] = 1;
    auto s = body(inertia, tilted, w0);
    s.torque = {0, 0, 0};
    double min_main = 1, max_other = 0;
    for (int n = 0; n < 100000; ++n) {
      step<rot::velocity_verlet>(s, dt, {0, 0, 0});
      const vec3d wb = dem::rotate_inverse(s.orientation, s.omega);
      min_main = std::fmin(min_main, wb[axis]);
      max_other = std::fmax(max_other, std::fmax(std::fabs(wb[(axis + 1) % 3]), std::fabs(wb[(axis + 2) % 3])));
    }
    CHECK(min_main > 0.99);
    CHECK(max_other < 10 * eps);
  }
}

TEST_CASE("rigid body: a torque-free symmetric top precesses at (I3 - I1)/I1 omega_3 in the body frame") {
  for (const vec3d inertia : {vec3d{1, 1, 2}, vec3d{2, 1, 1}}) {  // oblate about z; prolate about x
    const int sym = inertia.x == inertia.y ? 2 : 0;              // the symmetry axis
    const int a = (sym + 1) % 3, b = (sym + 2) % 3;
    vec3d w0{0, 0, 0};
    w0[sym] = 2.0;
    w0[a] = 0.5;
    const double rate = (inertia[sym] - inertia[a]) / inertia[a] * w0[sym];
    const double dt = 1e-2, t = 10;
    const int n = static_cast<int>(t / dt + 0.5);
    auto check = [&](const rotation_state<double>& s, double tol) {
      const vec3d wb = dem::rotate_inverse(s.orientation, s.omega);
      // dw_a/dt = -rate w_b, dw_b/dt = rate w_a: (w_a, w_b) turns at `rate`
      CHECK(wb[a] == doctest::Approx(0.5 * std::cos(rate * t)).epsilon(tol).scale(1));
      CHECK(wb[b] == doctest::Approx(0.5 * std::sin(rate * t)).epsilon(tol).scale(1));
      CHECK(wb[sym] == doctest::Approx(2.0).epsilon(tol));
    };
    // The splitting is exact for axisymmetric bodies: round-off only, even at this coarse dt.
    check(run<rot::velocity_verlet>(body(inertia, tilted, w0), dt, n, {0, 0, 0}), 1e-11);
    // The Euler schemes are first order: right to O(dt) at a finer step.
    check(run<rot::symplectic_euler>(body(inertia, tilted, w0), dt / 100, n * 100, {0, 0, 0}), 1e-2);
    check(run<rot::forward_euler>(body(inertia, tilted, w0), dt / 100, n * 100, {0, 0, 0}), 1e-2);
  }
}

TEST_CASE("rigid body: the schemes converge at their order (1, 1, 2)") {
  const vec3d inertia{1.0, 2.0, 3.0};
  const vec3d tau{0.2, -0.1, 0.3};  // constant in the world frame
  const auto s0 = body(inertia, tilted, {0.4, 1.0, -0.3});
  const double t = 1.0;
  const auto ref = run<rot::velocity_verlet>(s0, 1e-5, 100000, tau);
  auto error = [&](auto scheme, double dt) {
    using S = decltype(scheme);
    const auto s = run<S>(s0, dt, static_cast<int>(t / dt + 0.5), tau);
    // orientation error by the body axes' world directions (sign-free, unlike quaternions)
    double e = dem::norm(s.omega - ref.omega);
    for (int j = 0; j < 3; ++j) {
      vec3d ej{0, 0, 0};
      ej[j] = 1;
      e += dem::norm(dem::rotate(s.orientation, ej) - dem::rotate(ref.orientation, ej));
    }
    return e;
  };
  auto order = [&](auto scheme) {
    const double e1 = error(scheme, 1e-2), e2 = error(scheme, 5e-3), e3 = error(scheme, 2.5e-3);
    MESSAGE(std::string(decltype(scheme)::name), ": errors ", e1, " ", e2, " ", e3);
    return std::log2(std::sqrt(e1 / e3));
  };
  CHECK(order(rot::forward_euler{}) == doctest::Approx(1.0).epsilon(0.1));
  CHECK(order(rot::symplectic_euler{}) == doctest::Approx(1.0).epsilon(0.1));
  CHECK(order(rot::velocity_verlet{}) == doctest::Approx(2.0).epsilon(0.05));
}

TEST_CASE("rigid body: single precision builds and keeps |q| = 1") {
  // Round-off makes L and E random-walk in float (measured ~1e-4 after 1e4 steps; double: 1e-12).
  rotation_state<float> s{dem::quatf{1, 0, 0, 0}, {1.0f, 0.1f, 0.1f}, {0, 0, 0}, {1, 2, 3}};
  const float e0 = dem::integrate::rotational_energy(s);
  for (int n = 0; n < 10000; ++n) {
    rot::velocity_verlet::pre_force(s, 1e-3f);
    rot::velocity_verlet::post_force(s, 1e-3f);
  }
  CHECK(std::fabs(dem::norm2(s.orientation) - 1.0f) < 1e-6f);
  CHECK(std::fabs(dem::integrate::rotational_energy(s) - e0) / e0 < 1e-3f);
}
