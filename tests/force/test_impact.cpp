// Hertz impact benchmarks (Chung & Ooi 2011, tests 1 and 2) and the linear contact time.
#include <doctest/doctest.h>

#include "support/scenarios.hpp"

using namespace dem_test;

namespace {
struct hertz_prediction {
  double overlap, force, time;
};
// Hertz theory for a head-on elastic impact at relative speed v.
hertz_prediction hertz_theory(double e_star, double r_star, double m_star, double v) {
  const double overlap = std::pow(15.0 * m_star * v * v / (16.0 * e_star * std::sqrt(r_star)), 0.4);
  const double force = 4.0 / 3.0 * e_star * std::sqrt(r_star) * std::pow(overlap, 1.5);
  const double time = 2.87 * std::pow(m_star * m_star / (r_star * e_star * e_star * v), 0.2);
  return {overlap, force, time};
}
}  // namespace

TEST_CASE_TEMPLATE("Hertz impact: two glass spheres at +-10 m/s (Chung & Ooi test 1)", Precision, dem::precision::double_,
                   dem::precision::single) {
  const dem::material glass{"glass", 2800, 48e9, 0.2, 1.0, 0.0, 0.0};
  const double r = 0.01, m = 2800 * 4.0 / 3.0 * M_PI * r * r * r;
  const hertz_prediction t = hertz_theory(48e9 / (2 * (1 - 0.04)), r / 2, m / 2, 20.0);
  // The quoted values of the benchmark, to check the theory used here.
  CHECK(t.overlap == doctest::Approx(274e-6).epsilon(0.01).scale(0));
  CHECK(t.force == doctest::Approx(10.7e3).epsilon(0.02).scale(0));
  CHECK(t.time == doctest::Approx(40e-6).epsilon(0.02).scale(0));
  const impact_record rec = run_impact<sim_t<dem::force::hertz_mindlin, Precision>>(glass, r, 20.0, false, 1.0 / 500);
  CHECK(rec.peak_overlap == doctest::Approx(t.overlap).epsilon(0.02).scale(0));
  CHECK(rec.peak_force == doctest::Approx(t.force).epsilon(0.02).scale(0));
  CHECK(rec.contact_time == doctest::Approx(t.time).epsilon(0.02).scale(0));
  CHECK(rec.rebound_ratio == doctest::Approx(1.0).epsilon(0.01).scale(0));
}

TEST_CASE("Hertz impact: aluminium sphere on a rigid plane at 0.2 m/s (Chung & Ooi test 2)") {
  const dem::material al{"aluminium", 2699, 70e9, 0.3, 1.0, 0.0, 0.0};
  const double r = 0.1, m = 2699 * 4.0 / 3.0 * M_PI * r * r * r;
  const hertz_prediction t = hertz_theory(70e9 / (1 - 0.09), r, m, 0.2);
  CHECK(t.overlap == doctest::Approx(49.7e-6).epsilon(0.01).scale(0));
  CHECK(t.force == doctest::Approx(11.4e3).epsilon(0.02).scale(0));
  CHECK(t.time == doctest::Approx(732e-6).epsilon(0.02).scale(0));
  const impact_record rec = run_impact<sim_t<dem::force::hertz_mindlin>>(al, r, 0.2, true, 1.0 / 500);
  CHECK(rec.peak_overlap == doctest::Approx(t.overlap).epsilon(0.02).scale(0));
  CHECK(rec.peak_force == doctest::Approx(t.force).epsilon(0.02).scale(0));
  CHECK(rec.contact_time == doctest::Approx(t.time).epsilon(0.02).scale(0));
}

TEST_CASE("linear spring-dashpot: contact time is pi / omega within 1 %") {
  const dem::material steel{"steel", 7800, 2e11, 0.3, 1.0, 0.0, 0.0};
  const double r = 5e-3, m = 7800 * 4.0 / 3.0 * M_PI * r * r * r;
  for (const bool wall : {false, true}) {
    CAPTURE(wall);
    // k_n = 2 E_h R*, E_h the harmonic mean of the Young's moduli (the wall is 1e12 times stiffer).
    const double e_h = wall ? 2 * 2e11 * 2e23 / (2e11 + 2e23) : 2e11;
    const double k = 2 * e_h * (wall ? r : r / 2);
    const double m_star = wall ? m : m / 2;
    const impact_record rec = run_impact<sim_t<dem::force::linear_spring_dashpot>>(steel, r, 1.0, wall, 1.0 / 500);
    CHECK(rec.contact_time == doctest::Approx(M_PI * std::sqrt(m_star / k)).epsilon(0.01).scale(0));
    // Peak overlap of an undamped spring: v / omega.
    CHECK(rec.peak_overlap == doctest::Approx(1.0 * std::sqrt(m_star / k)).epsilon(0.01).scale(0));
  }
}

TEST_CASE_TEMPLATE("adhesion: a sphere pulled off a plane leaves at JKR's 3/2 pi w R and DMT's 2 pi w R", Force, dem::force::hertz_mindlin_jkr,
                   dem::force::hertz_mindlin_dmt) {
  // A 1 mm sphere stuck to a plane (no gravity) under a pull that grows slowly (over about 45 periods
  // of the contact's oscillation): the largest pull the plane transmits is the pull-off force. Under
  // JKR the sphere runs away from the fold of the curve, and the normal damper, pulling against the
  // separation, adds to the pull then: with e = 0.5 the largest pull was 2.9 % above 3/2 pi w R, with
  // e = 0.9 (used here) 0.4 %, 0.2 % with a ramp four times slower.
  const double r = 5e-4, w = 0.05, pull_off = std::is_same_v<Force, dem::force::hertz_mindlin_jkr> ? 1.5 * M_PI * w * r : 2 * M_PI * w * r;
  dem::simulation_config cfg;
  cfg.domain = {{-0.01, -0.01, -0.01}, {0.01, 0.01, 0.01}};
  cfg.gravity = {0, 0, 0};
  cfg.dt = 1e-6;
  sim_t<Force> sim(cfg);
  sim.set_log(nullptr);
  dem::material mat{"powder", 2500, 1e7, 0.3, 0.9, 0.5, 0.1};
  mat.work_of_adhesion = w;
  const auto m = sim.add_material(mat);
  const auto plane = sim.add_plane({0, 0, 0}, {0, 0, 1}, m);
  dem::particle_set s;
  s.positions = {{0, 0, r - 1e-7}};  // touching: the contact forms at once
  s.radii = {r};
  sim.add_particles(s, m);
  sim.advance(0.005);  // settles into its adhesive equilibrium
  CHECK(sim.positions()[0].z < r);  // pulled into the plane by adhesion alone
  const int ramp = 20000;
  double most = 0;
  bool left = false;
  for (int k = 0; k < 2 * ramp && !left; ++k) {
    sim.set_external_forces({{0, 0, 2 * pull_off * k / ramp}});
    sim.step();
    most = std::max(most, sim.boundary_force(plane).z);  // the plane is pulled up (+z) by the sphere
    left = sim.positions()[0].z > 1.01 * r;
  }
  CHECK(left);
  MESSAGE(std::string(Force::name) << ": largest pull " << most << " N, pull-off force " << pull_off << " N");
  CHECK(most == doctest::Approx(pull_off).epsilon(0.01).scale(0));
}
