// Inlets and outlets (flow/, sim/flow_driver.hpp): an inlet inserts exactly the count owed, without
// overlaps; an outlet takes particles out and records their mass; mass is conserved (inside +
// removed = inserted); trackers refuse removed particles by name; bad input is refused by name.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
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
  // Every removed particle is inactive (by id).
  const std::vector<std::uint8_t> active = s.active();
  REQUIRE(active.size() == s.num_particles());
  std::uint64_t inactive = 0;
  for (std::uint8_t a : active) inactive += !a;
  CHECK(inactive == rec.count);
  // A tracker on a removed particle is refused by name.
  std::uint32_t gone = 0;
  while (active[gone]) ++gone;
  CHECK_THROWS_WITH_AS(dem::track::particles(s, {gone}), doctest::Contains("was removed by outlet 'floor'"), std::invalid_argument);
}

namespace {

// A column of spheres falling into an outlet (everything below z = -0.018) and, with `strays`, a
// few fast spheres that leave the domain sideways (lost). Ids 0 .. 239 are the column, the strays
// follow.
template <class Sim>
void drain_scene(Sim& s, bool strays) {
  s.set_log(nullptr);
  const auto m = s.add_material(glass);
  dem::particle_set p;
  for (int k = 0; k < 240; ++k) {
    const int i = k % 6, j = (k / 6) % 6, l = k / 36;
    p.positions.push_back({-0.0075 + 3e-3 * i + 2e-4 * std::sin(k), -0.0075 + 3e-3 * j + 2e-4 * std::cos(3.0 * k), -0.015 + 3e-3 * l});
    p.radii.push_back(1e-3 * (1 + 0.1 * std::sin(7.0 * k)));
  }
  s.add_particles(p, m);
  s.add_outlet(dem::inspect::half_space{{0, 0, -0.018}, {0, 0, -1}}, "drain");
  if (strays) {
    dem::particle_set q;
    for (int k = 0; k < 8; ++k) {
      q.positions.push_back({0.03, -0.03 + 8e-3 * k, 0.05});
      q.radii.push_back(1e-3);
      q.velocities.push_back({2.0 + 0.1 * k, 0, 0});
    }
    s.add_particles(q, m);
  }
}

}  // namespace

TEST_CASE("storage: removed and lost particles are compacted away at the next build; ids stay, by-id access reads them as gone") {
  sim s(falling_config());
  drain_scene(s, true);
  auto t = dem::track::particles(s, {0, 1, 2, 3, 4, 5, 244});
  s.advance(0.04);
  const std::uint32_t removed = s.outlet(0).count;
  REQUIRE(removed > 20);
  REQUIRE(removed < 200);
  REQUIRE(s.num_lost() == 8);  // every stray left through x = 0.05
  CHECK(s.num_particles() == 248);
  CHECK(s.num_active() == 248 - removed - 8);
  s.rebuild_contact_list();  // compacts what left since the last build
  CHECK(s.num_stored() == s.num_active());
  // The snapshot holds what is stored, in id order; the by-id accessors keep every id.
  const dem::io::snapshot snap = s.snapshot();
  REQUIRE(snap.size() == s.num_active());
  REQUIRE(snap.size() > 0);
  for (std::size_t k = 1; k < snap.size(); ++k) CHECK(snap.id[k] > snap.id[k - 1]);
  const auto x = s.positions();
  const auto v = s.velocities();
  const auto r = s.radii();
  const auto active = s.active();
  auto fam = s.families();
  REQUIRE(x.size() == 248);
  std::size_t gone = 0;
  for (std::uint32_t id = 0; id < 248; ++id) {
    const bool stored = active[id] != 0;
    gone += !stored;
    CHECK(std::isnan(x[id].x) == !stored);
    CHECK(std::isnan(v[id].z) == !stored);
    CHECK(std::isnan(r[id]) == !stored);
    CHECK((fam[id] == dem::family::not_stored) == !stored);
  }
  CHECK(gone == removed + 8);
  for (std::size_t k = 0; k < snap.size(); ++k) {
    CHECK(snap.position[k].x == x[snap.id[k]].x);
    CHECK(snap.radius[k] == r[snap.id[k]]);
  }
  // Setters by id still take one value per id; those of ids no longer stored are not read.
  std::vector<vec3d> kick(248, vec3d{0, 0, 0});
  for (std::uint32_t id = 0; id < 248; ++id)
    if (!active[id]) kick[id] = {std::nan(""), 0, 0};
  s.set_velocities(kick);
  std::vector<vec3d> drag = s.velocities();  // NaN for the ids no longer stored: not read
  for (vec3d& f : drag) f = f * -1e-6;
  s.set_external_forces(drag);
  drag[snap.id[0]].x = std::nan("");
  const std::string named = "force on particle " + std::to_string(snap.id[0]) + " is not finite";
  CHECK_THROWS_WITH_AS(s.set_external_forces(drag), doctest::Contains(named.c_str()), std::invalid_argument);
  s.clear_external_forces();
  s.set_families(fam);  // the round trip: not_stored where nothing is stored
  fam[snap.id[0]] = dem::family::not_stored;
  CHECK_THROWS_WITH_AS(s.set_families(fam), doctest::Contains("family 4294967295 does not exist"), std::invalid_argument);
  // Trackers: gone particles read NaN and inactive, and cannot be set.
  const auto tx = t.positions();
  const auto ta = t.active();
  const auto tf = t.contact_forces();
  REQUIRE(!ta.back());  // the stray
  CHECK(std::isnan(tx.back().x));
  CHECK(tf.back().x == 0);
  std::uint32_t removed_id = 0;
  while (active[removed_id]) ++removed_id;
  CHECK_THROWS_WITH_AS(s.set_family({removed_id}, 2), doctest::Contains("was removed by outlet 'drain'"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(t.set_velocities(std::vector<vec3d>(7, vec3d{0, 0, 0})), doctest::Contains("particle 0 was removed by outlet 'drain'"),
                       std::invalid_argument);
  // The run goes on, and drains completely: then nothing is stored, and steps still run.
  s.advance(0.15);
  CHECK(s.num_active() == 0);
  CHECK(s.outlet(0).count == 240);
  s.step(50);
  CHECK(s.num_stored() == 0);
  CHECK(s.positions().size() == 248);
  CHECK(s.snapshot().size() == 0);
}

TEST_CASE("storage: a feed that drains holds only what is in the domain; mass is conserved") {
  sim s(falling_config());
  s.set_log(nullptr);
  const auto m = s.add_material(glass);
  dem::flow::inlet<dem::aabb, dem::sample::constant_radius> feed;
  feed.region = {{-0.01, -0.01, 0.0}, {0.01, 0.01, 0.02}};
  feed.sizes = {8e-4};
  feed.material = m;
  feed.rate = 20000;  // particles per second
  feed.interval = 2e-3;
  feed.velocity = {0, 0, -1.0};
  const auto in = s.add_inlet(feed);
  const auto out = s.add_outlet(dem::inspect::half_space{{0, 0, -0.03}, {0, 0, -1}}, "sink");
  std::uint32_t most = 0;
  const int rounds = sanitized ? 8 : 15;  // of 10 ms, 200 particles each (under the sanitizers fewer)
  for (int k = 0; k < rounds; ++k) {
    s.advance(0.01);
    most = std::max(most, s.num_stored());
    const auto inside = dem::inspect::particles(s);
    CHECK(inside.count == s.num_active());
    CHECK(std::abs(inside.mass + s.outlet(out).mass - s.inlet(in).mass) < 1e-12 * s.inlet(in).mass);
  }
  // 3000 inserted (1600 under the sanitizers), each inside for about 0.04 s: about 800 at a time
  // are stored, not 3000.
  const std::uint32_t inserted = 200 * rounds;
  CHECK(s.num_particles() == inserted);
  CHECK(s.outlet(out).count > inserted - 1200);
  CHECK(most < 1200);
  // Ids keep counting: the next batch gets ids after every one issued.
  s.advance(0.01);
  CHECK(s.inlet(in).last_id == s.num_particles() - 1);
  CHECK(s.num_particles() == inserted + 200);
}

TEST_CASE("storage: compaction disturbs nothing: a bed beside particles that leave runs bit for bit as the bed alone") {
  sim alone(falling_config()), beside(falling_config());
  for (sim* s : {&alone, &beside}) {
    s->set_log(nullptr);
    const auto m = s->add_material(glass);
    s->add_plane({0, 0, -0.02}, {0, 0, 1}, m, "floor");
    dem::particle_set p;
    for (int k = 0; k < 200; ++k) {
      const int i = k % 5, j = (k / 5) % 5, l = k / 25;
      p.positions.push_back({-0.04 + 3e-3 * i + 2e-4 * std::sin(k), -0.0075 + 3e-3 * j + 2e-4 * std::cos(3.0 * k), -0.015 + 3e-3 * l});
      p.radii.push_back(1e-3 * (1 + 0.1 * std::sin(7.0 * k)));
    }
    s->add_particles(p, m);
  }
  // Beside the bed (x > 0, away from it): a column that falls through an outlet in the floor's
  // plane, and strays that leave the domain.
  dem::particle_set q;
  for (int k = 0; k < 48; ++k) {
    q.positions.push_back({0.02 + 3e-3 * (k % 4), -0.005 + 3e-3 * ((k / 4) % 3), -0.015 + 3e-3 * (k / 12) + 1e-4 * std::sin(k)});
    q.radii.push_back(1e-3);
    q.velocities.push_back({0, 0, -0.5});
  }
  for (int k = 0; k < 12; ++k) {  // strays
    q.positions.push_back({0.04, -0.02 + 3e-3 * k, 0.05});
    q.radii.push_back(1e-3);
    q.velocities.push_back({3.0, 0, 0});
  }
  beside.add_particles(q, 0);
  beside.add_outlet(dem::inspect::box{{0.01, -0.05, -0.1}, {0.05, 0.05, -0.016}}, "drain");
  for (int k = 0; k < (sanitized ? 4 : 6); ++k) {  // under the sanitizers 80 ms: the strays and the column are gone, the bed landing
    alone.advance(0.02);
    beside.advance(0.02);
    const auto a = alone.positions(), b = beside.positions();
    const auto va = alone.velocities(), vb = beside.velocities();
    const auto same = [](double u, double w) { return u == w || (std::isnan(u) && std::isnan(w)); };  // NaN: gone from both
    std::size_t differ = 0;
    for (std::uint32_t id = 0; id < 200; ++id)
      differ += !same(a[id].x, b[id].x) || !same(a[id].y, b[id].y) || !same(a[id].z, b[id].z) || !same(va[id].x, vb[id].x) || !same(va[id].z, vb[id].z);
    CHECK(differ == 0);
  }
  CHECK(beside.num_removed() + beside.num_lost() == 60 + alone.num_lost());  // the bed may lose a few over its edge, in both runs
  CHECK(beside.num_stored() == alone.num_stored());
  // The bed is in contact, with the floor and within (12 at 80 ms; at 120 ms over 20 before and 18
  // since B's torque is derived from A's: one instant's count in a landing bed follows the last bits).
  CHECK(alone.num_touching_pairs() > (sanitized ? 5u : 10u));
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

TEST_CASE("storage: a checkpoint of a compacted run restarts bit for bit and goes on issuing new ids") {
  sim straight(falling_config()), first(falling_config());
  drain_scene(straight, true);
  drain_scene(first, true);
  straight.step(6000);
  first.step(3000);
  first.rebuild_contact_list();  // compacts what left (the list's schedule does not change the bits)
  REQUIRE(first.num_stored() < first.num_particles());
  const std::string path = std::string("flow_test_") + test_backend::name + "_compacted.ckpt";
  first.save_checkpoint(path);
  sim resumed = sim::from_checkpoint(path);
  std::remove(path.c_str());
  resumed.set_log(nullptr);
  resumed.add_outlet(dem::inspect::half_space{{0, 0, -0.018}, {0, 0, -1}}, "drain");  // outlets are code: added again
  CHECK(resumed.num_particles() == first.num_particles());
  CHECK(resumed.num_stored() == first.num_stored());
  CHECK(resumed.num_active() == first.num_active());
  resumed.step(3000);
  const auto a = straight.positions(), b = resumed.positions();
  REQUIRE(a.size() == b.size());
  std::size_t differ = 0;
  for (std::size_t id = 0; id < a.size(); ++id)
    differ += !(a[id].z == b[id].z || (std::isnan(a[id].z) && std::isnan(b[id].z)));
  CHECK(differ == 0);
  CHECK(resumed.num_active() == straight.num_active());
  // New particles get ids after every one issued before the save.
  dem::particle_set p;
  p.positions = {{0.03, 0.03, 0.03}};
  p.radii = {1e-3};
  CHECK(resumed.add_particles(p, 0) == 248);
}

TEST_CASE("storage: a particle that left stays stored, inactive, until the next build; a family tracker skips it") {
  dem::simulation_config c = falling_config();
  c.gravity = {0, 0, 0};
  sim s(c);
  s.set_log(nullptr);
  const auto m = s.add_material(glass);
  dem::particle_set p;
  p.positions = {{0.04995, 0, 0}, {0, 0, 0}, {0.01, 0, 0}};  // the first leaves through +x in the first step
  p.radii = {1e-3, 1e-3, 1e-3};
  p.velocities = {{10, 0, 0}, {0, 0, 0}, {0, 0, 0}};
  s.add_particles(p, m);
  s.step(1);
  REQUIRE(s.num_lost() == 1);
  CHECK(s.num_stored() == 3);
  CHECK(s.active() == std::vector<std::uint8_t>{0, 1, 1});
  CHECK(!std::isnan(s.positions()[0].x));  // still stored: its last state
  CHECK(dem::track::in_family(s, 0).ids() == std::vector<std::uint32_t>{1, 2});
  s.step(1);  // the build of this step compacts it away
  CHECK(s.num_stored() == 2);
  CHECK(std::isnan(s.positions()[0].x));
  CHECK(dem::track::in_family(s, 0).ids() == std::vector<std::uint32_t>{1, 2});
}
