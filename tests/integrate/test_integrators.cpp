// Each integrator is what its name says: checked on free fall, where the three schemes have
// known closed-form trajectories, and on angular acceleration under a constant torque.
#include <doctest/doctest.h>

#include "support/scenarios.hpp"

using namespace dem_test;

namespace {
template <class Integrator>
dem::vec3d fall(int steps, double dt, double v0, double g) {
  dem::simulation_config cfg;
  cfg.domain = {{-100, -100, -100}, {100, 100, 100}};
  cfg.gravity = {0, 0, -g};
  cfg.dt = dt;
  cfg.allow_unstable_dt = true;  // a lone particle in free fall has no contact to resolve
  sim_t<dem::force::hertz_mindlin, dem::precision::double_, Integrator> sim(cfg);
  const auto m = sim.add_material({});
  dem::particle_set s;
  s.positions = {{0, 0, 0}};
  s.radii = {0.01};
  s.velocities = {{0, 0, v0}};
  sim.add_particles(s, m);
  sim.step(steps);
  return {sim.positions()[0].z, sim.velocities()[0].z, 0};
}
}  // namespace

TEST_CASE("integrators: free-fall trajectories match each scheme's closed form") {
  const int n = 1000;
  const double dt = 1e-3, v0 = 3.0, g = 9.81, t = n * dt;
  const double exact = v0 * t - 0.5 * g * t * t;
  const double v_exact = v0 - g * t;
  const dem::vec3d vv = fall<dem::integrate::velocity_verlet>(n, dt, v0, g);
  const dem::vec3d se = fall<dem::integrate::symplectic_euler>(n, dt, v0, g);
  const dem::vec3d fe = fall<dem::integrate::forward_euler>(n, dt, v0, g);
  // Verlet is exact for constant acceleration; the Euler schemes are off by -+ g t dt / 2.
  CHECK(vv.x == doctest::Approx(exact).epsilon(1e-12));
  CHECK(se.x == doctest::Approx(exact - 0.5 * g * t * dt).epsilon(1e-12));
  CHECK(fe.x == doctest::Approx(exact + 0.5 * g * t * dt).epsilon(1e-12));
  for (const auto& r : {vv, se, fe}) CHECK(r.y == doctest::Approx(v_exact).epsilon(1e-12));
  CHECK(std::abs(se.x - fe.x) > 0.5 * g * t * dt);  // the schemes really differ
}

TEST_CASE_TEMPLATE("integrators: a sphere spun against a frictional plane keeps its angular momentum budget", Integrator,
                   dem::integrate::velocity_verlet, dem::integrate::symplectic_euler, dem::integrate::forward_euler) {
  // A spinning sphere dropped on a plane: friction turns spin into translation. Angular momentum
  // about the contact point is conserved through the sliding phase: I w0 = I w + m v r.
  dem::simulation_config cfg;
  cfg.domain = {{-1, -1, -0.1}, {1, 1, 1}};
  cfg.gravity = {0, 0, -9.81};
  cfg.dt = 2e-6;
  sim_t<dem::force::hertz_mindlin, dem::precision::double_, Integrator> sim(cfg);
  dem::material mat{"m", 2500, 1e8, 0.3, 0.5, 0.4, 0.0};
  const auto m = sim.add_material(mat);
  sim.add_plane({0, 0, 0}, {0, 0, 1}, m);
  const double r = 5e-3;
  dem::particle_set s;
  s.positions = {{0, 0, r * 0.999}};
  s.radii = {r};
  sim.add_particles(s, m);
  const double w0 = 100.0;
  sim.set_angular_velocities({{0, w0, 0}});
  sim.advance(0.1);
  const double v = sim.velocities()[0].x, w = sim.angular_velocities()[0].y;
  // Final rolling: v = w r = (2/7) w0 r.
  CHECK(v == doctest::Approx(2.0 / 7.0 * w0 * r).epsilon(0.01));
  CHECK(w == doctest::Approx(2.0 / 7.0 * w0).epsilon(0.01));
}
