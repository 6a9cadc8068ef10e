// With e = 1 and no friction, velocity Verlet keeps the total energy (kinetic + gravitational +
// elastic) of a box of bouncing spheres within 0.5 % over 1e5 steps.
#include <doctest/doctest.h>

#include <algorithm>

#include "support/scenarios.hpp"

using namespace dem_test;

TEST_CASE_TEMPLATE("energy: elastic frictionless spheres in a box conserve energy over 1e5 steps", Force,
                   dem::force::hertz_mindlin, dem::force::linear_spring_dashpot) {
  dem::simulation_config cfg;
  const dem::aabb box{{0, 0, 0}, {0.02, 0.02, 0.03}};
  cfg.domain = box;
  cfg.gravity = {0, 0, -9.81};
  cfg.dt = 1e-6;
  sim_t<Force> sim(cfg);
  fill_elastic_box(sim, box);
  CHECK(sim.stable_time_step() > 10 * cfg.dt);
  auto total = [&] { return sim.kinetic_energy() + sim.potential_energy() + sim.elastic_energy(); };
  sim.step(1);
  const double e0 = total();
  double worst = 0;
  std::uint64_t touching_seen = 0;
  for (int block = 0; block < 100; ++block) {
    sim.step(1000);
    worst = std::max(worst, std::abs(total() - e0) / std::abs(e0));
    touching_seen += sim.num_touching_pairs();
  }
  CHECK(sim.step_count() == 100001);
  CHECK(touching_seen > 0);          // the spheres really collided
  CHECK(sim.num_rebuilds() > 1);      // and the contact list was rebuilt along the way
  CHECK(worst < 0.005);
  MESSAGE("relative energy drift: " << worst);
}

TEST_CASE("energy: forward Euler gains energy where velocity Verlet does not") {
  // Same box, elastic collisions: forward Euler is not symplectic and drifts upward.
  auto drift = [](auto tag) {
    using Integrator = decltype(tag);
    dem::simulation_config cfg;
    const dem::aabb box{{0, 0, 0}, {0.01, 0.01, 0.01}};
    cfg.domain = box;
    cfg.gravity = {0, 0, 0};
    cfg.dt = 2e-6;
    sim_t<dem::force::linear_spring_dashpot, dem::precision::double_, Integrator> sim(cfg);
    const auto m = sim.add_material({"elastic", 2500, 1e7, 0.3, 1.0, 0.0, 0.0});
    sim.add_box(box, m);
    dem::particle_set s;
    s.positions = {{0.005, 0.005, 0.005}};
    s.radii = {1e-3};
    s.velocities = {{0.5, 0.3, 0.2}};
    sim.add_particles(s, m);
    const double e0 = sim.kinetic_energy();
    sim.step(20000);
    return (sim.kinetic_energy() + sim.elastic_energy() - e0) / e0;
  };
  CHECK(std::abs(drift(dem::integrate::velocity_verlet{})) < 1e-3);
  CHECK(drift(dem::integrate::forward_euler{}) > 1e-3);
}
