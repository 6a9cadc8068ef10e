// The grid broad phase finds exactly the pairs a brute-force search finds: random polydisperse
// sets, particles placed on cell faces and on the domain's edges, for both precisions.
#include <doctest/doctest.h>

#include <algorithm>
#include <random>
#include <set>
#include <utility>

#include "support/scenarios.hpp"

using namespace dem_test;

namespace {
template <class Precision>
void check_against_brute_force(const dem::particle_set& s, const dem::aabb& domain, double margin) {
  using Real = typename Precision::real;
  dem::simulation_config cfg;
  cfg.domain = domain;
  cfg.contact_margin = margin;
  cfg.allow_initial_overlap = true;
  cfg.allow_unstable_dt = true;
  sim_t<dem::force::hertz_mindlin, Precision> sim(cfg);
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
