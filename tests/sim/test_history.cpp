// Per-contact history survives contact-list rebuilds: a run that rebuilds the list before every
// step gives the same trajectory as one that rebuilds only when the Verlet criterion asks.
#include <doctest/doctest.h>

#include "support/scenarios.hpp"

using namespace dem_test;

namespace {
template <class Force>
struct trio {
  sim_t<Force> sim;
  explicit trio(dem::simulation_config cfg) : sim(cfg) {
    dem::material mat{"m", 2500, 1e7, 0.3, 0.5, 0.5, 0.05};
    mat.work_of_adhesion = 0.01;  // used by the cohesive law only
    mat.cohesion_range = 2e-5;
    const auto m = sim.add_material(mat);
    sim.add_plane({0, 0, 0}, {0, 0, 1}, m);
    // Two spheres side by side on the floor and one resting in the groove, slightly off-centre:
    // friction springs build up at every contact.
    const double r = 1e-3;
    dem::particle_set s;
    s.positions = {{-r, 0, r}, {r, 0, r}, {0.1 * r, 0.05 * r, r + std::sqrt(3.0) * r * 1.001}};
    s.radii = {r, r, r};
    sim.add_particles(s, m);
  }
};
}  // namespace

TEST_CASE_TEMPLATE("history: rebuilding the contact list every step changes nothing", Force, dem::force::hertz_mindlin,
                   dem::force::linear_spring_dashpot, dem::force::hertz_mindlin_epsd, dem::force::hertz_mindlin_cohesive) {
  dem::simulation_config cfg;
  cfg.domain = {{-0.01, -0.01, -0.001}, {0.01, 0.01, 0.01}};
  cfg.dt = 1e-6;
  cfg.contact_margin = 5e-4;
  trio<Force> lazy(cfg), eager(cfg);
  double max_tangential = 0;
  for (int s = 0; s < 3000; ++s) {
    lazy.sim.step();
    eager.sim.request_rebuild();
    eager.sim.step();
    const auto f = lazy.sim.forces();
    max_tangential = std::max(max_tangential, std::hypot(f[2].x, f[2].y));
  }
  CHECK(eager.sim.num_rebuilds() >= 3000);
  CHECK(lazy.sim.num_rebuilds() < 100);
  CHECK(max_tangential > 1e-7);  // tangential springs were loaded, so history mattered
  const auto pa = lazy.sim.positions(), pb = eager.sim.positions();
  const auto va = lazy.sim.velocities(), vb = eager.sim.velocities();
  const auto fa = lazy.sim.forces(), fb = eager.sim.forces();
  for (int i = 0; i < 3; ++i) {
    CAPTURE(i);
    CHECK(pa[i] == pb[i]);
    CHECK(va[i] == vb[i]);
    CHECK(fa[i] == fb[i]);
  }
}

TEST_CASE("history: a fresh contact starts with zero tangential displacement") {
  // Same resting trio, but the top sphere arrives with a sideways velocity: if stale history were
  // reused from an earlier contact, the first tangential force would not be bounded by k_t v dt.
  dem::simulation_config cfg;
  cfg.domain = {{-0.01, -0.01, -0.001}, {0.01, 0.01, 0.01}};
  cfg.dt = 1e-6;
  cfg.gravity = {0, 0, 0};
  sim_t<dem::force::linear_spring_dashpot> sim(cfg);
  const auto m = sim.add_material({"m", 2500, 1e7, 0.3, 1.0, 10.0, 0.0});
  const double r = 1e-3;
  dem::particle_set s;
  s.positions = {{-r * 1.0005, 0, 0}, {r * 1.0005, 0, 0}};
  s.radii = {r, r};
  s.velocities = {{0.01, 0.05, 0}, {-0.01, -0.05, 0}};
  sim.add_particles(s, m);
  // Step until first contact; the tangential force then is at most k_t |v_t| dt (+ damping).
  for (int i = 0; i < 1000; ++i) {
    sim.step();
    const auto f = sim.forces();
    if (f[0].x != 0) {
      const double k_n = 2 * 1e7 * r / 2, k_t = 2.0 / 7.0 * k_n;
      const double vt = 0.1;
      const double m_star = 0.5 * 2500 * 4.0 / 3.0 * M_PI * r * r * r;
      const double bound = k_t * vt * cfg.dt + 2 * std::sqrt(k_t * m_star) * vt;
      CHECK(std::abs(f[0].y) <= bound);
      CHECK(std::abs(f[0].y) > 0);
      break;
    }
  }
}
