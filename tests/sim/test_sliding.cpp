// A sphere launched sliding on a plane decelerates at mu g until it rolls, then rolls at 5/7 of
// its initial speed (angular momentum about the contact point is conserved).
#include <doctest/doctest.h>

#include "support/scenarios.hpp"

using namespace dem_test;

TEST_CASE_TEMPLATE("sliding sphere: decelerates at mu g, then rolls at 5/7 v0", Force, dem::force::hertz_mindlin,
                   dem::force::linear_spring_dashpot) {
  const double r = 5e-3, v0 = 1.0, mu = 0.3, g = 9.81;
  dem::simulation_config cfg;
  cfg.domain = {{-1, -1, -0.1}, {2, 1, 1}};
  cfg.gravity = {0, 0, -g};
  cfg.dt = 2e-6;
  sim_t<Force> sim(cfg);
  const dem::material mat{"m", 2500, 1e8, 0.3, 0.5, mu, 0.0};
  const auto m = sim.add_material(mat);
  sim.add_plane({0, 0, 0}, {0, 0, 1}, m);
  dem::particle_set s;
  s.positions = {{0, 0, r * 0.9999}};
  s.radii = {r};
  sim.add_particles(s, m);
  sim.advance(0.01);  // settle onto the plane
  CHECK(std::abs(sim.velocities()[0].z) < 1e-3);
  sim.set_velocities({{v0, 0, 0}});

  const double t_roll = 2.0 * v0 / (7.0 * mu * g);  // end of sliding
  const double t1 = 0.2 * t_roll, t2 = 0.7 * t_roll;
  sim.advance(t1);
  const double v1 = sim.velocities()[0].x;
  sim.advance(t2 - t1);
  const double v2 = sim.velocities()[0].x;
  const double decel = (v1 - v2) / (t2 - t1);
  CHECK(decel == doctest::Approx(mu * g).epsilon(0.01));
  CHECK(v1 == doctest::Approx(v0 - mu * g * t1).epsilon(0.01));

  sim.advance(1.0 * t_roll);
  const double v_end = sim.velocities()[0].x;
  const double w_end = sim.angular_velocities()[0].y;
  CHECK(v_end == doctest::Approx(5.0 / 7.0 * v0).epsilon(0.01));
  CHECK(w_end * r == doctest::Approx(v_end).epsilon(0.01));  // rolling without slip: v = w r
}

TEST_CASE_TEMPLATE("rolling resistance: a rolling sphere slows down and stops", Force, dem::force::hertz_mindlin,
                   dem::force::hertz_mindlin_epsd) {
  const double r = 5e-3;
  dem::simulation_config cfg;
  cfg.domain = {{-1, -1, -0.1}, {2, 1, 1}};
  cfg.gravity = {0, 0, -9.81};
  cfg.dt = 2e-6;
  sim_t<Force> sim(cfg);
  const auto m = sim.add_material({"m", 2500, 1e8, 0.3, 0.5, 0.5, 0.1});
  sim.add_plane({0, 0, 0}, {0, 0, 1}, m);
  dem::particle_set s;
  s.positions = {{0, 0, r * 0.9999}};
  s.radii = {r};
  sim.add_particles(s, m);
  sim.advance(0.01);
  sim.set_velocities({{0.1, 0, 0}});
  sim.set_angular_velocities({{0, 0.1 / r, 0}});
  // Constant torque mu_r F_n r decelerates a rolling sphere at mu_r g / (1 + I/(m r^2)) = mu_r g 5/7
  // (EPSD: the same once its spring is fully mobilised, after a few microseconds).
  const double decel = 0.1 * 9.81 * 5.0 / 7.0;
  sim.advance(0.05);
  CHECK(sim.velocities()[0].x == doctest::Approx(0.1 - decel * 0.05).epsilon(0.03));
  sim.advance(0.5);
  CHECK(std::abs(sim.velocities()[0].x) < 1e-4);
  CHECK(std::abs(sim.angular_velocities()[0].y) * r < 1e-4);
}
