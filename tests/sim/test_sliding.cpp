// A sphere launched sliding on a plane decelerates at mu g until it rolls, then rolls at 5/7 of
// its initial speed (angular momentum about the contact point is conserved).
#include <doctest/doctest.h>

#include <string>

#include "support/scenarios.hpp"

using namespace dem_test;

namespace {
// One sphere (r = 5 mm) of `mat` resting on the plane z = 0 after `settle` seconds (the normal
// bounce dies out).
template <class Force>
sim_t<Force> sphere_on_plane(double dt, const dem::material& mat, double settle) {
  const double r = 5e-3;
  dem::simulation_config cfg;
  cfg.domain = {{-1, -1, -0.1}, {2, 1, 1}};
  cfg.gravity = {0, 0, -9.81};
  cfg.dt = dt;
  sim_t<Force> sim(cfg);
  const auto m = sim.add_material(mat);
  sim.add_plane({0, 0, 0}, {0, 0, 1}, m);
  dem::particle_set s;
  s.positions = {{0, 0, r * 0.9999}};
  s.radii = {r};
  sim.add_particles(s, m);
  sim.advance(settle);
  return sim;
}
}  // namespace

TEST_CASE_TEMPLATE("sliding sphere: decelerates at mu g, then rolls at 5/7 v0", Force, dem::force::hertz_mindlin,
                   dem::force::linear_spring_dashpot) {
  const double v0 = 1.0, mu = 0.3, g = 9.81;
  const sliding_record rec = run_sliding<sim_t<Force>>(v0, mu);
  CHECK(std::abs(rec.settled_vz) < 1e-3);
  CHECK((rec.v1 - rec.v2) / (rec.t2 - rec.t1) == doctest::Approx(mu * g).epsilon(0.01).scale(0));
  CHECK(rec.v1 == doctest::Approx(v0 - mu * g * rec.t1).epsilon(0.01).scale(0));
  CHECK(rec.v_end == doctest::Approx(5.0 / 7.0 * v0).epsilon(0.01).scale(0));
  CHECK(rec.w_end_r == doctest::Approx(rec.v_end).epsilon(0.01).scale(0));  // rolling without slip: v = w r
}

TEST_CASE_TEMPLATE("rolling resistance: a rolling sphere slows down and stops", Force, dem::force::hertz_mindlin,
                   dem::force::hertz_mindlin_epsd) {
  const double r = 5e-3;
  auto sim = sphere_on_plane<Force>(2e-6, {"m", 2500, 1e8, 0.3, 0.5, 0.5, 0.1}, 0.01);
  sim.set_velocities({{0.1, 0, 0}});
  sim.set_angular_velocities({{0, 0.1 / r, 0}});
  // Constant torque mu_r F_n r decelerates a rolling sphere at mu_r g / (1 + I/(m r^2)) = mu_r g 5/7
  // (EPSD: the same once its spring is fully mobilised, after a few microseconds).
  const double decel = 0.1 * 9.81 * 5.0 / 7.0;
  sim.advance(0.05);
  CHECK(sim.velocities()[0].x == doctest::Approx(0.1 - decel * 0.05).epsilon(0.03).scale(0));
  sim.advance(sanitized ? 0.15 : 0.5);  // it stops at 0.143 s (under the sanitizers: checked 57 ms later)
  CHECK(std::abs(sim.velocities()[0].x) < 1e-4);
  CHECK(std::abs(sim.angular_velocities()[0].y) * r < 1e-4);
}

TEST_CASE("EPSD rolling: a sphere rocking on a plane is a damped oscillator with Ai et al.'s rolling inertia") {
  // A resting sphere given a small spin rocks about its contact point: I_r th'' = -k_r th - C_r th',
  // with I_r = I + m r^2 (rotation about the contact point, Ai, Chen, Rotter & Ooi 2011),
  // k_r = 2.25 k_n mu_r^2 r^2 and C_r = eta_r 2 sqrt(I_r k_r), so the damping ratio is eta_r and the
  // period 2 pi / (w_n sqrt(1 - eta_r^2)), w_n = sqrt(k_r / I_r). With the centre inertia I in C_r
  // the ratio would be eta_r sqrt(I / I_r) = eta_r / 1.87. The spin keeps the spring below its cap.
  const double r = 5e-3, rho = 2500, E = 1e8, nu = 0.3, mu_r = 0.1, eta = 0.1, g = 9.81;
  const double dt = 2e-6;
  dem::material mat{"m", rho, E, nu, 0.5, 0.5, mu_r};
  mat.rolling_damping = eta;
  auto sim = sphere_on_plane<dem::force::hertz_mindlin_epsd>(dt, mat, 0.02);
  const double mass = rho * 4.0 / 3 * M_PI * r * r * r;
  const double e_star = E / (2 * (1 - nu * nu));
  const double overlap = std::pow(mass * g / (4.0 / 3 * e_star * std::sqrt(r)), 2.0 / 3);
  const double k_n = 2 * e_star * std::sqrt(r * overlap);
  const double k_r = 2.25 * k_n * mu_r * mu_r * r * r;
  const double i_r = 1.4 * mass * r * r;
  const double w_n = std::sqrt(k_r / i_r);
  const double w0 = 0.1;  // rad/s: amplitude w0 / w_n = 2.8e-4 rad, a quarter of the cap's angle
  CHECK(k_r * w0 / w_n < 0.3 * mu_r * r * mass * g);
  sim.set_angular_velocities({{0, w0, 0}});
  // Successive maxima of the spin: their ratio is exp(-2 pi zeta / sqrt(1 - zeta^2)).
  std::vector<double> peaks, times;
  double prev2 = 0, prev1 = w0;
  for (int k = 0; k < 40000 && peaks.size() < 4; ++k) {
    sim.step();
    const double w = sim.angular_velocities()[0].y;
    if (k > 1 && prev1 > prev2 && prev1 >= w && prev1 > 0) {
      peaks.push_back(prev1);
      times.push_back(sim.time() - dt);
    }
    prev2 = prev1;
    prev1 = w;
  }
  REQUIRE(peaks.size() == 4);
  const double decrement = std::log(peaks[1] / peaks[3]) / 2;  // over two periods
  const double zeta = decrement / std::sqrt(4 * M_PI * M_PI + decrement * decrement);
  const double period = (times[3] - times[1]) / 2;
  MESSAGE("rocking sphere: damping ratio " << zeta << " (eta_r " << eta << "), period " << period << " s (closed form "
                                           << 2 * M_PI / (w_n * std::sqrt(1 - eta * eta)) << " s)");
  CHECK(zeta == doctest::Approx(eta).epsilon(0.03).scale(0));
  CHECK(period == doctest::Approx(2 * M_PI / (w_n * std::sqrt(1 - eta * eta))).epsilon(0.02).scale(0));
}

namespace {
// A sphere rolling at v0 on a plane, or resting on a plane tilted by theta (gravity tilted instead),
// run at dt; returns the distance travelled after `t` seconds.
template <class Force>
double rolled_distance(double dt, double v0, double tan_theta, double t, double mu_r = 0.1, double* v_end = nullptr) {
  const double r = 5e-3, g = 9.81;
  const double cos_t = 1 / std::sqrt(1 + tan_theta * tan_theta);
  auto sim = sphere_on_plane<Force>(dt, {"m", 2500, 1e8, 0.3, 0.5, 0.5, mu_r}, 0.01);
  sim.set_gravity({g * tan_theta * cos_t, 0, -g * cos_t});
  sim.set_velocities({{v0, 0, 0}});
  sim.set_angular_velocities({{0, v0 / r, 0}});
  const double x0 = sim.positions()[0].x;
  sim.advance(t);
  if (v_end) *v_end = sim.velocities()[0].x;
  return sim.positions()[0].x - x0;
}
}  // namespace

// The next two run one sphere for 1e5-3e5 steps at two time steps: under the sanitizers (the same code
// paths as the test above, at -O0) they are left to the release pass.
TEST_CASE_TEMPLATE("rolling resistance: the stopping distance of a rolling sphere is the closed form's, for dt and dt/2"
                   * doctest::skip(sanitized),
                   Force, dem::force::hertz_mindlin, dem::force::hertz_mindlin_epsd,
                   dem::force::linear_spring_dashpot) {
  // Decelerating at mu_r g 5/7, a sphere rolling at v0 stops after 0.7 v0^2 / (mu_r g). The couple
  // near rest (viscous at the contact's own rate, or EPSD's spring) must not depend on dt.
  // EPSD's damper, uncapped while the spring is below its limit (Ai et al.'s model C), brakes the
  // sphere at the impulsive start: its closed form starts once the spring is mobilised (1 ms).
  const double v0 = 0.1, mu_r = 0.1, g = 9.81;
  const double d1 = rolled_distance<Force>(2e-6, v0, 0.0, 0.2, mu_r);
  const double d2 = rolled_distance<Force>(1e-6, v0, 0.0, 0.2, mu_r);
  double closed = 0.7 * v0 * v0 / (mu_r * g);
  if (std::string(Force::name) == "hertz_mindlin_epsd") {
    double v1 = 0;
    const double x1 = rolled_distance<Force>(2e-6, v0, 0.0, 1e-3, mu_r, &v1);
    closed = x1 + 0.7 * v1 * v1 / (mu_r * g);
  }
  MESSAGE(std::string(Force::name) << ": stopping distance " << d1 * 1e3 << " mm (dt 2e-6 s), " << d2 * 1e3
                                   << " mm (dt 1e-6 s), closed form " << closed * 1e3 << " mm");
  CHECK(d1 == doctest::Approx(closed).epsilon(0.01).scale(0));
  CHECK(std::abs(d1 - d2) < 0.01 * d2);
}

TEST_CASE("rolling resistance: under a couple below its limit, constant torque creeps at a rate set by the contact, not by dt"
          * doctest::skip(sanitized)) {
  // On a plane tilted by theta < atan(mu_r) a sphere needs the couple m g sin(theta) r. The constant-
  // torque slot's near-rest part is viscous, C_r = I sqrt(k_n / m) for a wall contact, so the sphere
  // rolls down steadily at w = m g sin(theta) r / C_r: the same at any dt (the old regularisation,
  // a tenth of the rotation per step, gave C_r = 0.1 I / dt and a creep proportional to dt).
  // EPSD's spring holds the couple: the sphere stays where it is.
  const double r = 5e-3, rho = 2500, E = 1e8, nu = 0.3, g = 9.81, tan_t = 0.05, t = 0.1;
  const double mass = rho * 4.0 / 3 * M_PI * r * r * r, inertia = 0.4 * mass * r * r;
  const double sin_t = tan_t / std::sqrt(1 + tan_t * tan_t), cos_t = 1 / std::sqrt(1 + tan_t * tan_t);
  const double e_star = E / (2 * (1 - nu * nu));
  const double overlap = std::pow(mass * g * cos_t / (4.0 / 3 * e_star * std::sqrt(r)), 2.0 / 3);
  const double k_n = 2 * e_star * std::sqrt(r * overlap);
  const double w = mass * g * sin_t * r / (inertia * std::sqrt(k_n / mass));
  const double d1 = rolled_distance<dem::force::hertz_mindlin>(2e-6, 0.0, tan_t, t);
  const double d2 = rolled_distance<dem::force::hertz_mindlin>(1e-6, 0.0, tan_t, t);
  MESSAGE("creep on a 1:20 slope over " << t << " s: " << d1 * 1e6 << " um (dt 2e-6 s), " << d2 * 1e6
                                        << " um (dt 1e-6 s), closed form " << w * r * t * 1e6 << " um");
  CHECK(d1 == doctest::Approx(w * r * t).epsilon(0.02).scale(0));
  CHECK(std::abs(d1 - d2) < 0.01 * d2);
  // EPSD: the spring deflects by the couple over k_r = 2.25 k_n mu_r^2 r^2, and stays there.
  const double e1 = rolled_distance<dem::force::hertz_mindlin_epsd>(2e-6, 0.0, tan_t, t);
  const double e2 = rolled_distance<dem::force::hertz_mindlin_epsd>(1e-6, 0.0, tan_t, t);
  const double e3 = rolled_distance<dem::force::hertz_mindlin_epsd>(2e-6, 0.0, tan_t, 2 * t);
  const double k_r = 2.25 * k_n * 0.1 * 0.1 * r * r;
  const double held = r * (mass * g * sin_t * r) / k_r;
  MESSAGE("EPSD on the same slope: " << e1 * 1e6 << " um after " << t << " s, " << e3 * 1e6 << " um after "
                                     << 2 * t << " s (dt 2e-6 s); " << e2 * 1e6 << " um (dt 1e-6 s); spring's deflection "
                                     << held * 1e6 << " um");
  CHECK(e1 == doctest::Approx(held).epsilon(0.03).scale(0));
  CHECK(std::abs(e3 - e1) < 0.01 * e1);
  CHECK(std::abs(e2 - e1) < 0.01 * e1);
}
