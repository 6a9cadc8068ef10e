// Inlets and outlets (flow/, sim/flow_driver.hpp): an inlet inserts exactly the count owed, without
// overlaps; an outlet takes particles out and records their mass; mass is conserved (inside +
// removed = inserted); trackers refuse removed particles by name; bad input is refused by name.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "support/scenarios.hpp"

using namespace dem_test;
using dem::vec3d;

namespace {

using sim = sim_t<dem::force::hertz_mindlin>;
const dem::material glass{"glass", 2500, 1e8, 0.3, 0.5, 0.5, 0.0};

dem::simulation_config falling_config() {
  dem::simulation_config c;
  c.domain = {{-0.05, -0.05, -0.1}, {0.05, 0.05, 0.1}};
  c.gravity = {0, 0, -9.81};
  c.dt = 1e-5;
  return c;
}

// Smallest gap between any two active particles, relative to the smaller radius (< 0: overlap).
double worst_relative_gap(const dem::io::snapshot& s) {
  double worst = 1e300;
  for (std::size_t i = 0; i < s.size(); ++i)
    for (std::size_t j = i + 1; j < s.size(); ++j) {
      if (!s.active[i] || !s.active[j]) continue;
      const double gap = norm(s.position[i] - s.position[j]) - s.radius[i] - s.radius[j];
      worst = std::min(worst, gap / std::min(s.radius[i], s.radius[j]));
    }
  return worst;
}

}  // namespace

TEST_CASE("inlet: exactly the count owed at each batch, with no overlap, ids consecutive") {
  sim s(falling_config());
  const auto m = s.add_material(glass);
  dem::flow::inlet<dem::aabb, dem::sample::normal_radii> feed;
  feed.region = {{-0.01, -0.01, 0.02}, {0.01, 0.01, 0.04}};
  feed.sizes = {1e-3, 1e-4};
  feed.material = m;
  feed.rate = 4000;  // particles per second
  feed.interval = 1e-3;
  feed.velocity = {0, 0, -0.2};
  feed.family = 3;
  const auto k = s.add_inlet(feed, "feed");
  for (int batch = 1; batch <= 10; ++batch) {
    s.step(100);  // one interval
    const std::uint64_t owed = static_cast<std::uint64_t>(std::floor(4000 * batch * 1e-3 + 1e-9));
    CHECK(s.inlet(k).count == owed);
    CHECK(s.num_particles() == owed);
    const dem::io::snapshot snap = s.snapshot();
    CHECK(worst_relative_gap(snap) > -1e-3);  // right after the batch, and for those inserted before it
  }
  CHECK(s.inlet(k).first_id == 0);
  CHECK(s.inlet(k).last_id == 39);
  CHECK(s.families() == std::vector<dem::family::family_id>(40, 3));
  // New particles were given the inlet's velocity; the earlier ones have fallen.
  const auto v = s.velocities();
  CHECK(v[39].z == doctest::Approx(-0.2).epsilon(1e-9));
  CHECK(v[0].z < -0.2);
}

TEST_CASE("outlet: removes what enters, records the mass; inside + removed = inserted") {
  sim s(falling_config());
  s.set_log(nullptr);
  const auto m = s.add_material(glass);
  dem::flow::inlet<dem::aabb, dem::sample::lognormal_radii> feed;
  feed.region = {{-0.02, -0.02, 0.0}, {0.02, 0.02, 0.03}};
  feed.sizes = {8e-4, 0.15};
  feed.material = m;
  feed.rate = 2e-3;  // kg/s
  feed.by_mass = true;
  feed.interval = 2e-3;
  feed.velocity = {0, 0, -0.5};
  const auto in = s.add_inlet(feed);
  const auto out = s.add_outlet(dem::inspect::half_space{{0, 0, -0.02}, {0, 0, -1}}, "floor");
  s.advance(0.12);
  const auto& rec = s.outlet(out);
  REQUIRE(rec.count > 0);
  CHECK(rec.name == "floor");
  CHECK(s.num_removed() == rec.count);
  CHECK(s.num_lost() == 0);
  CHECK(s.num_active() == s.num_particles() - rec.count);
  const auto inside = dem::inspect::particles(s);
  CHECK(inside.count == s.num_active());
  CHECK(std::abs(inside.mass + rec.mass - s.inlet(in).mass) < 1e-12 * s.inlet(in).mass);
  // The inserted mass follows the rate to within one particle at the last batch.
  const double last_batch = 0.12;  // batches every 2 ms, the last one at t = 0.12 s
  const double one = 2500 * 4.0 / 3.0 * M_PI * std::pow(8e-4 * std::exp(0.45), 3);
  CHECK(s.inlet(in).mass >= 2e-3 * last_batch - 1e-15);
  CHECK(s.inlet(in).mass < 2e-3 * last_batch + one);
  // The record: times ascending, cumulative mass ascending to the total; a rate over the run.
  REQUIRE(rec.time.size() == rec.cumulative_mass.size());
  for (std::size_t i = 1; i < rec.time.size(); ++i) {
    CHECK(rec.time[i] > rec.time[i - 1]);
    CHECK(rec.cumulative_mass[i] > rec.cumulative_mass[i - 1]);
  }
  CHECK(rec.cumulative_mass.back() == rec.mass);
  CHECK(rec.flow_rate(0, 0.12) == doctest::Approx(rec.mass / 0.12).epsilon(1e-12));
  // Every removed particle is below the plane's side and inactive.
  const auto snap = s.snapshot();
  std::uint64_t inactive = 0;
  for (std::size_t i = 0; i < snap.size(); ++i) inactive += !snap.active[i];
  CHECK(inactive == rec.count);
  // A tracker on a removed particle is refused by name.
  std::uint32_t gone = 0;
  while (snap.active[gone]) ++gone;
  CHECK_THROWS_WITH_AS(dem::track::particles(s, {gone}), doctest::Contains("was removed by outlet 'floor'"), std::invalid_argument);
}

TEST_CASE("inlet and outlet: bad input, and a rate that cannot be met, are refused by name") {
  sim s(falling_config());
  const auto m = s.add_material(glass);
  dem::flow::inlet<dem::aabb, dem::sample::constant_radius> feed;
  feed.region = {{-0.01, -0.01, 0.02}, {0.01, 0.01, 0.04}};
  feed.sizes = {1e-3};
  feed.material = m;
  feed.rate = 0;
  CHECK_THROWS_WITH_AS(s.add_inlet(feed, "f"), doctest::Contains("inlet 'f': rate is 0, but it must be > 0 and finite"), std::invalid_argument);
  feed.rate = 100;
  feed.region = {{-0.01, -0.01, 0.02}, {0.01, 0.01, 0.4}};
  CHECK_THROWS_WITH_AS(s.add_inlet(feed, "f"), doctest::Contains("is not inside the domain"), std::invalid_argument);
  feed.region = {{-0.01, -0.01, 0.04}, {0.01, 0.01, 0.02}};
  CHECK_THROWS_WITH_AS(s.add_inlet(feed, "f"), doctest::Contains("inlet 'f'"), std::invalid_argument);
  feed.region = {{-0.01, -0.01, 0.02}, {0.01, 0.01, 0.04}};
  feed.sizes = {-1e-3};
  CHECK_THROWS_AS(s.add_inlet(feed, "f"), std::invalid_argument);
  feed.sizes = {1e-3};
  feed.material = 7;
  CHECK_THROWS_AS(s.add_inlet(feed, "f"), std::exception);
  feed.material = m;
  feed.family = 256;
  CHECK_THROWS_WITH_AS(s.add_inlet(feed, "f"), doctest::Contains("family 256 does not exist"), std::invalid_argument);
  feed.family = 0;
  CHECK_THROWS_WITH_AS(s.add_outlet(dem::inspect::ball{{0, 0, 0}, -1.0}), doctest::Contains("ball region radius is -1"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(s.add_outlet(dem::inspect::half_space{{0, 0, std::nan("")}, {0, 0, 1}}), doctest::Contains("half_space point"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(s.outlet(3), doctest::Contains("outlet 3 does not exist (0 outlets)"), std::invalid_argument);
  // A region that holds a few dozen particles, asked for a million a second at rest: the first
  // batch fails, naming the rate achieved.
  feed.region = {{-0.003, -0.003, 0.02}, {0.003, 0.003, 0.026}};
  feed.rate = 1e6;
  feed.interval = 1e-3;
  feed.max_attempts = 100;
  s.add_inlet(feed, "tiny");
  CHECK_THROWS_WITH_AS(s.step(100), doctest::Contains("inlet 'tiny' at t = 0.001 s: placed"), std::runtime_error);
  // The first batch (at the first step) placed 10; the next fails again, naming what was achieved.
  CHECK_THROWS_WITH_AS(s.step(100), doctest::Contains("cannot be met: achieved 5000 particles/s so far"), std::runtime_error);
  CHECK(s.inlet(0).count == 10);
}
