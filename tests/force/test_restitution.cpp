// Measured restitution equals the input e for both laws, sphere–sphere and sphere–wall
// (PHYSICS.md, validation "Normal restitution"; Chung & Ooi test 3 parameters).
#include <doctest/doctest.h>

#include "support/scenarios.hpp"

using namespace dem_test;

TEST_CASE_TEMPLATE("restitution: measured e equals the input within 2 %", Force, dem::force::hertz_mindlin,
                   dem::force::linear_spring_dashpot) {
  const dem::material alumina{"alumina", 4000, 380e9, 0.23, 1.0, 0.0, 0.0};
  for (const double e : {0.2, 0.5, 0.9, 1.0}) {
    dem::material m = alumina;
    m.restitution = e;
    for (const bool wall : {false, true}) {
      CAPTURE(e);
      CAPTURE(wall);
      const impact_record r = run_impact<sim_t<Force>>(m, 2.5e-3, 3.9, wall);
      CHECK(r.rebound_ratio == doctest::Approx(e).epsilon(0.02).scale(0));
    }
  }
}

TEST_CASE_TEMPLATE("restitution: single precision keeps e within 2 %", Force, dem::force::hertz_mindlin,
                   dem::force::linear_spring_dashpot) {
  dem::material m{"alumina", 4000, 380e9, 0.23, 0.5, 0.0, 0.0};
  const impact_record r = run_impact<sim_t<Force, dem::precision::single>>(m, 2.5e-3, 3.9, false);
  CHECK(r.rebound_ratio == doctest::Approx(0.5).epsilon(0.02).scale(0));
}

TEST_CASE("restitution: the calibrated damping differs from the closed form where the no-pull clamp matters") {
  // Closed form zeta for e = 0.2 and the rebound it really gives with F_n >= 0: clearly above 0.2.
  const double e = 0.2, ln = std::log(e);
  const double zeta = -ln / std::sqrt(ln * ln + M_PI * M_PI);
  const double rebound = dem::force::restitution::detail::rebound(dem::force::restitution::model::linear, 2 * zeta);
  CHECK(rebound > 0.22);
  const double c = dem::force::restitution::damping_for(dem::force::restitution::model::linear, e);
  CHECK(dem::force::restitution::detail::rebound(dem::force::restitution::model::linear, c) == doctest::Approx(e).epsilon(1e-6));
}
