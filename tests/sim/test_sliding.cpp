// A sphere launched sliding on a plane decelerates at mu g until it rolls, then rolls at 5/7 of
// its initial speed (angular momentum about the contact point is conserved).
#include <doctest/doctest.h>

#include "support/scenarios.hpp"

using namespace dem_test;

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
  CHECK(sim.velocities()[0].x == doctest::Approx(0.1 - decel * 0.05).epsilon(0.03).scale(0));
  sim.advance(0.5);
  CHECK(std::abs(sim.velocities()[0].x) < 1e-4);
  CHECK(std::abs(sim.angular_velocities()[0].y) * r < 1e-4);
}
