// Material mixing rules and per-pair overrides.
#include <doctest/doctest.h>

#include <cmath>

#include "dem/material/material.hpp"

TEST_CASE("material pair: effective moduli and mean coefficients") {
  dem::material_table t;
  const auto a = t.add({"a", 2500, 1e7, 0.3, 0.4, 0.6, 0.1});
  const auto b = t.add({"b", 7800, 2e11, 0.25, 0.8, 0.2, 0.0});
  const dem::material_pair p = t.pair(a, b);
  CHECK(p.effective_youngs == doctest::Approx(1.0 / ((1 - 0.09) / 1e7 + (1 - 0.0625) / 2e11)));
  CHECK(p.effective_shear == doctest::Approx(1.0 / (2 * 1.7 * 1.3 / 1e7 + 2 * 1.75 * 1.25 / 2e11)));
  CHECK(p.harmonic_youngs == doctest::Approx(2 * 1e7 * 2e11 / (1e7 + 2e11)));
  CHECK(p.restitution == doctest::Approx(0.6));
  CHECK(p.friction == doctest::Approx(0.4));
  CHECK(p.rolling_friction == doctest::Approx(0.05));
  const dem::material_pair q = t.pair(b, a);
  CHECK(q.effective_youngs == p.effective_youngs);
  // Same material: E* = E / (2 (1 - v^2)).
  CHECK(t.pair(a, a).effective_youngs == doctest::Approx(1e7 / (2 * 0.91)));
}

TEST_CASE("material pair: overrides apply to that pair only, in either order") {
  dem::material_table t;
  const auto a = t.add({"a", 2500, 1e7, 0.3, 0.4, 0.6, 0.1});
  const auto b = t.add({"b", 7800, 2e11, 0.25, 0.8, 0.2, 0.0});
  t.set_pair(b, a, {.restitution = 0.3, .friction = 0.9, .normal_stiffness = 1300.0});
  CHECK(t.pair(a, b).restitution == 0.3);
  CHECK(t.pair(a, b).friction == 0.9);
  CHECK(t.pair(a, b).normal_stiffness == 1300.0);
  CHECK(t.pair(a, b).rolling_friction == doctest::Approx(0.05));  // untouched
  CHECK(t.pair(a, a).restitution == 0.4);
  CHECK_THROWS_WITH_AS(t.set_pair(a, 5, {}), doctest::Contains("material id 5 does not exist"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(t.set_pair(a, b, {.friction = -1.0}), doctest::Contains("friction of material pair (0, 1) is -1"),
                       std::invalid_argument);
}

TEST_CASE("material pair: cohesion and rolling-damping properties mix and are checked") {
  dem::material_table t;
  dem::material wet{"wet", 2500, 1e7, 0.3, 0.5, 0.5, 0.1};
  wet.work_of_adhesion = 0.04;
  wet.cohesion_range = 1e-4;
  wet.rolling_damping = 0.2;
  dem::material dry{"dry", 2500, 1e7, 0.3, 0.5, 0.5, 0.1};
  dry.work_of_adhesion = 0.01;
  dry.cohesion_range = 3e-4;
  dry.rolling_damping = 0.4;
  const auto a = t.add(wet), b = t.add(dry);
  CHECK(t.pair(a, b).work_of_adhesion == doctest::Approx(0.02));  // geometric mean
  CHECK(t.pair(a, b).cohesion_range == doctest::Approx(2e-4));
  CHECK(t.pair(a, b).rolling_damping == doctest::Approx(0.3));
  t.set_pair(a, b, {.work_of_adhesion = 0.0, .cohesion_range = 5e-4});
  CHECK(t.pair(b, a).work_of_adhesion == 0.0);
  CHECK(t.pair(b, a).cohesion_range == 5e-4);
  dem::material bad = wet;
  bad.work_of_adhesion = -1;
  CHECK_THROWS_WITH_AS(t.add(bad), doctest::Contains("work_of_adhesion of material 'wet' (id 2) is -1"), std::invalid_argument);
  bad = wet;
  bad.cohesion_range = std::nan("");
  CHECK_THROWS_WITH_AS(t.add(bad), doctest::Contains("cohesion_range of material 'wet' (id 2) is nan"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(t.set_pair(a, b, {.rolling_damping = -0.5}), doctest::Contains("rolling_damping of material pair (0, 1) is -0.5"),
                       std::invalid_argument);
}
