// The grid broad phase finds exactly the pairs a brute-force search finds: random polydisperse
// sets, particles placed on cell faces and on the domain's edges, for both precisions; with one
// level and with the levels a wide size distribution gets (radius ratios 10 and 30, radii on the
// levels' thresholds, voxel coordinates); and the levels change no bit of a run.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <random>
#include <set>
#include <utility>

#include "dem/coord/voxel.hpp"
#include "support/scenarios.hpp"

using namespace dem_test;

namespace {
// Returns the levels the build used; `grid_out`, if given, receives the grid.
template <class Precision, class Coord = dem::coord::floating>
int check_against_brute_force(const dem::particle_set& s, const dem::aabb& domain, double margin, std::uint32_t levels = 0,
                              dem::broad::grid* grid_out = nullptr) {
  using Real = typename Precision::real;
  dem::simulation_config cfg;
  cfg.domain = domain;
  cfg.contact_margin = margin;
  cfg.allow_initial_overlap = true;
  cfg.allow_unstable_dt = true;
  cfg.broad_phase_levels = levels;
  sim_t<dem::force::hertz_mindlin, Precision, dem::integrate::velocity_verlet, Coord> sim(cfg);
  const auto m = sim.add_material({});
  sim.add_particles(s, m);
  auto found = sim.listed_pairs();
  std::set<std::pair<std::uint32_t, std::uint32_t>> got(found.begin(), found.end());
  CHECK(got.size() == found.size());  // no duplicates
  // Brute force in the same arithmetic as the kernels.
  std::set<std::pair<std::uint32_t, std::uint32_t>> want;
  const Real mg = static_cast<Real>(margin);
  for (std::uint32_t i = 0; i < s.size(); ++i)
    for (std::uint32_t j = i + 1; j < s.size(); ++j) {
      const dem::vec3<Real> d = dem::vec3<Real>(s.positions[i]) - dem::vec3<Real>(s.positions[j]);
      const Real reach = (static_cast<Real>(s.radii[i]) + mg) + static_cast<Real>(s.radii[j]);
      if (dem::norm2(d) < reach * reach) want.insert({i, j});
    }
  CHECK(want.size() > 0);
  CHECK(got == want);
  if (grid_out) *grid_out = sim.broad_phase_grid();
  return sim.broad_phase_levels();
}

dem::particle_set random_set(std::size_t n, const dem::aabb& box, double rmin, double rmax, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  auto u = [&] { return static_cast<double>(g() >> 11) * 0x1.0p-53; };
  dem::particle_set s;
  for (std::size_t i = 0; i < n; ++i) {
    s.positions.push_back({box.lo.x + u() * (box.hi.x - box.lo.x), box.lo.y + u() * (box.hi.y - box.lo.y),
                           box.lo.z + u() * (box.hi.z - box.lo.z)});
    s.radii.push_back(rmin + u() * (rmax - rmin));
  }
  return s;
}
}  // namespace

TEST_CASE_TEMPLATE("broad phase equals brute force on random polydisperse sets", Precision, dem::precision::double_,
                   dem::precision::single) {
  const dem::aabb domain{{-0.05, -0.02, 0.0}, {0.05, 0.03, 0.04}};
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    CAPTURE(seed);
    check_against_brute_force<Precision>(random_set(1500, domain, 5e-4, 3e-3, seed), domain, 4e-4);
  }
}

TEST_CASE_TEMPLATE("broad phase: particles on cell faces and on the domain's faces, edges and corners", Precision,
                   dem::precision::double_, dem::precision::single) {
  const dem::aabb domain{{0, 0, 0}, {0.02, 0.02, 0.02}};
  const double r = 1e-3, margin = 2e-4, cell = 2 * r + margin;
  dem::particle_set s;
  // On the grid planes x = k * cell (and y, z), on the domain's faces, edges and corners.
  for (int i = 0; i <= 9; ++i)
    for (int j = 0; j <= 9; j += 3)
      for (int k = 0; k <= 9; k += 3) s.positions.push_back({std::min(0.02, i * cell), std::min(0.02, j * cell), std::min(0.02, k * cell)});
  for (double x : {0.0, 0.02})
    for (double y : {0.0, 0.02})
      for (double z : {0.0, 0.02}) s.positions.push_back({x, y, z});
  s.positions.push_back({0.02, 0.02 - 0.9 * cell, 0.02});
  s.positions.push_back({0.02 - 0.95 * cell, 0.02, 0.02});
  s.radii.assign(s.positions.size(), r);
  // Rounding puts some of these exactly on a face: the search must not depend on which side.
  check_against_brute_force<Precision>(s, domain, margin);
}

TEST_CASE("broad phase: the list stays complete as particles move (Verlet skin)") {
  // Particles move between rebuilds; every touching pair must be in the list at every step.
  const dem::aabb domain{{0, 0, 0}, {0.03, 0.03, 0.03}};
  dem::simulation_config cfg;
  cfg.domain = domain;
  cfg.gravity = {0, 0, 0};
  cfg.dt = 2e-5;
  cfg.contact_margin = 2e-4;
  sim_t<dem::force::hertz_mindlin> sim(cfg);
  const auto m = sim.add_material({"m", 2500, 1e7, 0.3, 0.9, 0.3, 0.0});
  sim.add_box(domain, m);
  dem::sample::lattice_options o;
  o.radius = 1e-3;
  o.radius_spread = 0.3;
  o.spacing = 2.8e-3;
  o.jitter = 2e-4;
  dem::particle_set s = dem::sample::cubic_lattice(domain, o);
  s.velocities.resize(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) s.velocities[i] = {0.2 * std::sin(3.0 * i), 0.2 * std::cos(5.0 * i), 0.2 * std::sin(7.0 * i + 1)};
  sim.add_particles(s, m);
  std::size_t checked_touching = 0;
  for (int step = 0; step < 400; ++step) {
    sim.step();
    if (step % 20) continue;
    const auto listed = sim.listed_pairs();
    std::set<std::pair<std::uint32_t, std::uint32_t>> got(listed.begin(), listed.end());
    const auto p = sim.positions();
    for (std::uint32_t i = 0; i < p.size(); ++i)
      for (std::uint32_t j = i + 1; j < p.size(); ++j)
        if (dem::norm(p[i] - p[j]) < s.radii[i] + s.radii[j]) {
          ++checked_touching;
          CHECK(got.count({i, j}) == 1);
        }
  }
  CHECK(sim.num_rebuilds() > 2);
  CHECK(checked_touching > 0);
}

TEST_CASE_TEMPLATE("multi-level grid: radius ratios of 10 and 30 list the brute-force pairs, with one level and with several", Precision,
                   dem::precision::double_, dem::precision::single) {
  const dem::aabb domain{{-0.03, -0.02, 0.0}, {0.03, 0.02, 0.03}};
  struct band { double rmin, rmax, margin; int levels; };
  // Levels: radii from the largest to the smallest, a factor <= 2 apart, each kept if it shrinks
  // the cells by 1.5x: 10:1 and 30:1 with small margins keep every one; a margin of a third of the
  // largest radius drops some.
  for (const band b : {band{3e-4, 3e-3, 2e-4, 5}, band{1e-4, 3e-3, 1e-4, 6}, band{3e-4, 3e-3, 1e-3, 0}}) {
    CAPTURE(b.rmin);
    CAPTURE(b.margin);
    const dem::particle_set set = random_set(sanitized ? 1200 : 2500, domain, b.rmin, b.rmax, 11);  // the brute force is quadratic
    CHECK(check_against_brute_force<Precision>(set, domain, b.margin, 1) == 1);
    const int levels = check_against_brute_force<Precision>(set, domain, b.margin);
    if (b.levels) CHECK(levels == b.levels);
    else CHECK((levels >= 2 && levels < 5));
    CHECK(check_against_brute_force<Precision>(set, domain, b.margin, 2) == 2);
  }
}

TEST_CASE_TEMPLATE("multi-level grid: two sizes, searched from the small side and from the large side", Precision, dem::precision::double_,
                   dem::precision::single) {
  const dem::aabb domain{{-0.03, -0.02, 0.0}, {0.03, 0.02, 0.03}};
  // Many small and few large spheres: the large search the small ones' cells; few small among
  // many large: the small search the large ones' cells. Each way lists the brute-force pairs.
  for (const bool few_large : {true, false}) {
    CAPTURE(few_large);
    // (Under the sanitizers half as many: the brute force is quadratic.)
    dem::particle_set s = random_set(few_large ? 60 : (sanitized ? 1500 : 3000), domain, 2e-3, 2e-3, 21);
    const dem::particle_set small = random_set(few_large ? (sanitized ? 4000 : 8000) : 60, domain, 2e-4, 2e-4, 22);
    s.positions.insert(s.positions.end(), small.positions.begin(), small.positions.end());
    s.radii.insert(s.radii.end(), small.radii.begin(), small.radii.end());
    dem::broad::grid g;
    const int levels = check_against_brute_force<Precision>(s, domain, 1e-4, 0, &g);
    CHECK(levels >= 2);
    // Level 0 holds the large spheres, the last level the small ones.
    CHECK(g.level[0].cell_end > g.level[0].cell_begin);
    CHECK(g.level[levels - 1].cell_end > g.level[levels - 1].cell_begin);
    CHECK(((g.level[0].search_finer >> (levels - 1)) & 1u) == (few_large ? 1u : 0u));
  }
}

TEST_CASE("multi-level grid: voxel coordinates list the brute-force pairs") {
  const dem::aabb domain{{-0.03, -0.02, 0.0}, {0.03, 0.02, 0.03}};
  const dem::particle_set set = random_set(2500, domain, 3e-4, 3e-3, 12);
  CHECK(check_against_brute_force<dem::precision::single, dem::coord::voxel<16>>(set, domain, 2e-4) == 5);
  CHECK(check_against_brute_force<dem::precision::single, dem::coord::voxel<16>>(set, domain, 2e-4, 1) == 1);
}

TEST_CASE_TEMPLATE("multi-level grid: radii on the levels' thresholds, particles on every level's cell faces", Precision,
                   dem::precision::double_, dem::precision::single) {
  const dem::aabb domain{{0, 0, 0}, {0.024, 0.024, 0.024}};
  const double R = 2e-3, margin = 1e-4;
  dem::particle_set s;
  // Radii R, R/2, R/4, R/8 (the levels' radii, R/8 exactly: the smallest) and just above and below
  // them, centred on the planes of the levels' cells (cell_l = 2 R / 2^l + margin) and between them.
  const double radii[] = {R, R / 2, R / 2 * (1 + 1e-7), R / 4, R / 4 * (1 - 1e-7), R / 8, R / 8 * (1 + 1e-7), R / 2 * (1 - 1e-7)};
  int k = 0;
  for (int l = 0; l < 4; ++l) {
    const double cell = 2 * std::ldexp(R, -l) + margin;
    for (int i = 1; i * cell < 0.024; i += 2)
      for (int j = 1; j * cell < 0.024; j += 3)
        for (int m = 1; m * cell < 0.024; m += 3, ++k) {
          s.positions.push_back({i * cell, j * cell + 0.3e-3 * l, m * cell});
          s.radii.push_back(radii[k % 8]);
        }
  }
  CAPTURE(s.size());
  CHECK(check_against_brute_force<Precision>(s, domain, margin) == 4);
  CHECK(check_against_brute_force<Precision>(s, domain, margin, 1) == 1);
}

TEST_CASE("multi-level grid: config.broad_phase_levels over 8 is refused, naming it") {
  dem::simulation_config cfg;
  cfg.domain = {{0, 0, 0}, {0.01, 0.01, 0.01}};
  cfg.broad_phase_levels = 9;
  auto make = [&] { sim_t<dem::force::hertz_mindlin> refused(cfg); };
  CHECK_THROWS_WITH_AS(make(), doctest::Contains("config.broad_phase_levels must be at most 8"), std::invalid_argument);
  cfg.broad_phase_levels = 8;
  sim_t<dem::force::hertz_mindlin> sim(cfg);
  CHECK_THROWS_WITH_AS(sim.set_broad_phase_levels(12), doctest::Contains("got 12"), std::invalid_argument);
}

namespace {
// A 10:1 polydisperse cloud in a box with random velocities, and one large sphere shot through it:
// the run with `levels` and `max_overrun`, its final positions, velocities and angular velocities
// by id. Every 10 steps, every touching pair must be listed.
struct run_result {
  std::vector<dem::vec3d> x, v, w;
  std::uint64_t rebuilds = 0, local_checks = 0;
  int levels = 0;
  std::size_t touching_checked = 0;
};
using cloud_sim = sim_t<dem::force::hertz_mindlin>;
dem::simulation_config cloud_config(std::uint32_t levels, std::uint32_t max_overrun) {
  dem::simulation_config cfg;
  cfg.domain = {{0, 0, 0}, {0.03, 0.03, 0.03}};
  cfg.gravity = {0, 0, -9.81};
  cfg.dt = 2e-6;
  cfg.contact_margin = 1e-4;
  cfg.broad_phase_levels = levels;
  cfg.max_overrun = max_overrun;
  return cfg;
}
void add_cloud(cloud_sim& sim) {
  sim.set_log(nullptr);
  const auto m = sim.add_material({"m", 2500, 1e7, 0.3, 0.6, 0.4, 0.0});
  sim.add_box(sim.config().domain, m);
  dem::sample::fill_options o;
  o.count = 2500;
  o.seed = 5;
  dem::particle_set s = dem::sample::random_fill(dem::aabb{{0.001, 0.001, 0.001}, {0.029, 0.029, 0.02}},
                                                 dem::sample::lognormal_radii{5e-4, 0.6, 2.5e-4, 2.5e-3}, o);
  // A large sphere flying fast through the cloud, past its budget within a few steps: it starts in
  // a hole cleared for it.
  const dem::vec3d start{0.004, 0.015, 0.01};
  const double shot_radius = 2.5e-3;
  dem::particle_set cloud;
  for (std::size_t i = 0; i < s.size(); ++i)
    if (dem::norm(s.positions[i] - start) > s.radii[i] + shot_radius) {
      cloud.positions.push_back(s.positions[i]);
      cloud.radii.push_back(s.radii[i]);
      cloud.velocities.push_back({0.3 * std::sin(3.0 * i), 0.3 * std::cos(5.0 * i), 0.3 * std::sin(7.0 * i + 1)});
    }
  sim.add_particles(cloud, m);
  dem::particle_set shot;
  shot.positions = {start};
  shot.radii = {shot_radius};
  shot.velocities = {{6.0, 1.0, 0.5}};
  sim.add_particles(shot, m);
}
run_result polydisperse_run(std::uint32_t levels, std::uint32_t max_overrun) {
  cloud_sim sim(cloud_config(levels, max_overrun));
  add_cloud(sim);
  run_result r;
  const auto radii = sim.radii();
  // Sanitized: half the run, the brute-force check a third as often (it is quadratic).
  const int steps = sanitized ? 300 : 600, every = sanitized ? 100 : 10;
  for (int step = 0; step < steps; ++step) {
    sim.step();
    if (step % every) continue;
    const auto listed = sim.listed_pairs();
    const std::set<std::pair<std::uint32_t, std::uint32_t>> got(listed.begin(), listed.end());
    const auto p = sim.positions();
    for (std::uint32_t i = 0; i < p.size(); ++i)
      for (std::uint32_t j = i + 1; j < p.size(); ++j)
        if (dem::norm(p[i] - p[j]) < radii[i] + radii[j]) {
          ++r.touching_checked;
          CHECK(got.count({i, j}) == 1);
        }
  }
  r.x = sim.positions();
  r.v = sim.velocities();
  r.w = sim.angular_velocities();
  r.rebuilds = sim.num_rebuilds();
  r.local_checks = sim.num_local_checks();
  r.levels = sim.broad_phase_levels();
  return r;
}
}  // namespace

TEST_CASE("multi-level grid: a 10:1 cloud with a fast large sphere runs to the same bits with one level and with several") {
  const run_result one = polydisperse_run(1, 256), many = polydisperse_run(0, 256), global = polydisperse_run(0, 0);
  CHECK(one.levels == 1);
  CHECK(many.levels >= 3);
  CHECK(many.rebuilds > 5);
  CHECK(many.local_checks > 0);  // the shot's checks kept the list: they search the finer levels around it
  CHECK(global.rebuilds > many.rebuilds);
  CHECK(many.touching_checked > (sanitized ? 300u : 1000u));
  for (const run_result* r : {&many, &global}) {
    CHECK(r->x == one.x);
    CHECK(r->v == one.v);
    CHECK(r->w == one.w);
  }
}

TEST_CASE("multi-level grid: a checkpoint of the 10:1 cloud resumes as the straight run, local checks included") {
  cloud_sim straight(cloud_config(0, 256)), first(cloud_config(0, 256));
  add_cloud(straight);
  add_cloud(first);
  straight.step(400);
  first.step(150);  // the shot is past its budget: the list is kept by local checks
  const std::string path = (std::filesystem::temp_directory_path() / "dem_test_broad_levels.ckpt").string();
  first.save_checkpoint(path);
  const std::uint64_t checks_before = first.num_local_checks();  // (a run's own count: not in the checkpoint)
  CHECK(checks_before > 0);
  cloud_sim resumed = cloud_sim::from_checkpoint(path);
  std::remove(path.c_str());
  resumed.set_log(nullptr);
  resumed.step(250);
  CHECK(resumed.broad_phase_levels() >= 3);
  CHECK(resumed.num_rebuilds() == straight.num_rebuilds());
  CHECK(checks_before + resumed.num_local_checks() == straight.num_local_checks());
  CHECK(resumed.positions() == straight.positions());
  CHECK(resumed.velocities() == straight.velocities());
}

TEST_CASE("incident lists: a sphere with hundreds of listed neighbours gets its entries in partner-id order") {
  // A 10 mm sphere in a shell of 0.5 mm spheres, every one pressed 1 um into it: its incident range is
  // longer than contact::incident_order_kernel holds per thread, so the heapsort orders it. A
  // checkpoint's load checks every particle's range (membership, coverage, partner-id order), and the
  // resumed run must keep the straight run's bits.
  dem::simulation_config cfg;
  cfg.domain = {{0, 0, 0}, {0.03, 0.03, 0.03}};
  cfg.gravity = {0, 0, 0};
  cfg.dt = 1e-6;
  cfg.contact_margin = 1e-4;
  auto build = [&](cloud_sim& sim) {
    sim.set_log(nullptr);
    const auto m = sim.add_material({"m", 2500, 1e7, 0.3, 0.6, 0.4, 0.0});
    const dem::vec3d c{0.015, 0.015, 0.015};
    const double R = 0.01, r = 5e-4, shell = R + r - 1e-6;
    dem::particle_set s;
    const int count = 300;
    for (int k = 0; k < count; ++k) {  // a Fibonacci sphere: some 2 mm between neighbours
      const double z = 1 - (2 * k + 1.0) / count, rho = std::sqrt(1 - z * z), phi = 2.399963229728653 * k;
      s.positions.push_back(c + shell * dem::vec3d{rho * std::cos(phi), rho * std::sin(phi), z});
      s.radii.push_back(r);
      s.velocities.push_back({0, 0, 0});
    }
    sim.add_particles(s, m);
    dem::particle_set big;
    big.positions = {c};
    big.radii = {R};
    big.velocities = {{0.01, 0, 0}};
    sim.add_particles(big, m);
  };
  cloud_sim straight(cfg), first(cfg);
  build(straight);
  build(first);
  straight.step(20);
  first.step(10);
  std::size_t with_big = 0;
  for (const auto& [a, b] : first.listed_pairs()) with_big += (b == 300u || a == 300u);
  CHECK(with_big == 300u);
  const std::string path = (std::filesystem::temp_directory_path() / "dem_test_incident_order.ckpt").string();
  first.save_checkpoint(path);
  cloud_sim resumed = cloud_sim::from_checkpoint(path);
  std::remove(path.c_str());
  resumed.set_log(nullptr);
  resumed.step(10);
  CHECK(resumed.positions() == straight.positions());
  CHECK(resumed.velocities() == straight.velocities());
  CHECK(resumed.angular_velocities() == straight.angular_velocities());
}
