// Material mixing rules and per-pair overrides.
#include <doctest/doctest.h>

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
