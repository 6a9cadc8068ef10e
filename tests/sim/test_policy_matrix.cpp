// The core's physics checks under every coordinate x precision combination (one test source, a
// doctest type list, as Cabana and CUB test their variants): restitution, Chung & Ooi peak force,
// sliding then rolling, energy conservation, broad phase against brute force, history across
// rebuilds, a small packing that settles. Then the 2 km domain of 1 mm spheres, where float
// world positions break contact physics and coord::voxel does not.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <utility>

#include "dem/coord/voxel.hpp"
#include "support/scenarios.hpp"

using namespace dem_test;

namespace {

template <class Precision, class Coord>
struct combo {
  using precision = Precision;
  using coord = Coord;
  template <class Force = dem::force::hertz_mindlin>
  using sim = sim_t<Force, Precision, dem::integrate::velocity_verlet, Coord>;
};

#define DEM_POLICY_MATRIX                                                                                            \
  combo<dem::precision::single, dem::coord::floating>, combo<dem::precision::mixed, dem::coord::floating>,           \
      combo<dem::precision::double_, dem::coord::floating>, combo<dem::precision::single, dem::coord::voxel<16>>,    \
      combo<dem::precision::mixed, dem::coord::voxel<16>>, combo<dem::precision::double_, dem::coord::voxel<16>>

template <class C>
std::string label() {
  return std::string(C::precision::name) + " / " + C::coord::name;
}

}  // namespace

TEST_CASE_TEMPLATE("matrix: restitution sphere-sphere and sphere-wall within 2 %", C, DEM_POLICY_MATRIX) {
  CAPTURE(label<C>());
  const dem::material alumina{"alumina", 4000, 380e9, 0.23, 0.5, 0.0, 0.0};
  for (const bool wall : {false, true}) {
    CAPTURE(wall);
    const impact_record r = run_impact<typename C::template sim<>>(alumina, 2.5e-3, 3.9, wall);
    CHECK(r.rebound_ratio == doctest::Approx(0.5).epsilon(0.02));
  }
}

TEST_CASE_TEMPLATE("matrix: Hertz peak force and overlap (Chung & Ooi test 1) within 2 %", C, DEM_POLICY_MATRIX) {
  CAPTURE(label<C>());
  const dem::material glass{"glass", 2800, 48e9, 0.2, 1.0, 0.0, 0.0};
  const impact_record rec = run_impact<typename C::template sim<>>(glass, 0.01, 20.0, false, 1.0 / 500);
  CHECK(rec.peak_overlap == doctest::Approx(274e-6).epsilon(0.02).scale(0));
  CHECK(rec.peak_force == doctest::Approx(10.7e3).epsilon(0.02));
  CHECK(rec.rebound_ratio == doctest::Approx(1.0).epsilon(0.01));
}

TEST_CASE_TEMPLATE("matrix: a sliding sphere decelerates at mu g, then rolls at 5/7 v0", C, DEM_POLICY_MATRIX) {
  CAPTURE(label<C>());
  const double v0 = 1.0, mu = 0.3, g = 9.81;
  const sliding_record rec = run_sliding<typename C::template sim<>>(v0, mu);
  CHECK((rec.v1 - rec.v2) / (rec.t2 - rec.t1) == doctest::Approx(mu * g).epsilon(0.01));
  CHECK(rec.v_end == doctest::Approx(5.0 / 7.0 * v0).epsilon(0.01));
  CHECK(rec.w_end_r == doctest::Approx(rec.v_end).epsilon(0.01));
}

TEST_CASE_TEMPLATE("matrix: elastic frictionless spheres in a box conserve energy", C, DEM_POLICY_MATRIX) {
  CAPTURE(label<C>());
  dem::simulation_config cfg;
  const dem::aabb box{{0, 0, 0}, {0.02, 0.02, 0.03}};
  cfg.domain = box;
  cfg.dt = 1e-6;
  typename C::template sim<> sim(cfg);
  fill_elastic_box(sim, box);
  auto total = [&] { return sim.kinetic_energy() + sim.potential_energy() + sim.elastic_energy(); };
  sim.step(1);
  const double e0 = total();
  double worst = 0;
  std::uint64_t touching = 0;
  for (int block = 0; block < 30; ++block) {
    sim.step(1000);
    worst = std::max(worst, std::abs(total() - e0) / std::abs(e0));
    touching += sim.num_touching_pairs();
  }
  CHECK(touching > 0);
  CHECK(sim.num_rebuilds() > 1);
  CHECK(worst < 0.005);
  MESSAGE(label<C>() << ": relative energy drift over 3e4 steps " << worst);
}

TEST_CASE_TEMPLATE("matrix: broad phase equals brute force in the kernels' arithmetic", C, DEM_POLICY_MATRIX) {
  CAPTURE(label<C>());
  using Sim = typename C::template sim<>;
  using Space = typename Sim::coord_space;
  using Real = typename Sim::real;
  const dem::aabb domain{{-0.05, -0.02, 0.0}, {0.05, 0.03, 0.04}};
  const double margin = 4e-4;
  std::mt19937_64 g(7);
  auto u = [&] { return static_cast<double>(g() >> 11) * 0x1.0p-53; };
  dem::particle_set s;
  for (int i = 0; i < 1500; ++i) {
    s.positions.push_back({domain.lo.x + u() * 0.1, domain.lo.y + u() * 0.05, domain.lo.z + u() * 0.04});
    s.radii.push_back(5e-4 + u() * 2.5e-3);
  }
  dem::simulation_config cfg;
  cfg.domain = domain;
  cfg.contact_margin = margin;
  cfg.allow_initial_overlap = true;
  cfg.allow_unstable_dt = true;
  Sim sim(cfg);
  sim.add_particles(s, sim.add_material({}));
  const auto found = sim.listed_pairs();
  const std::set<std::pair<std::uint32_t, std::uint32_t>> got(found.begin(), found.end());
  CHECK(got.size() == found.size());
  const auto& c = sim.coord_params();
  std::vector<typename Space::position> p;
  for (const auto& x : s.positions) p.push_back(Space::from_world(c, x));
  std::set<std::pair<std::uint32_t, std::uint32_t>> want;
  const Real mg = static_cast<Real>(margin);
  for (std::uint32_t i = 0; i < s.size(); ++i)
    for (std::uint32_t j = i + 1; j < s.size(); ++j) {
      const dem::vec3<Real> d = Space::difference(c, p[i], p[j]);
      const Real reach = (static_cast<Real>(s.radii[i]) + mg) + static_cast<Real>(s.radii[j]);
      if (dem::norm2(d) < reach * reach) want.insert({i, j});
    }
  CHECK(want.size() > 100);
  CHECK(got == want);
}

TEST_CASE_TEMPLATE("matrix: history survives rebuilds (rebuild every step = rebuild when needed, bit for bit)", C,
                   DEM_POLICY_MATRIX) {
  CAPTURE(label<C>());
  dem::simulation_config cfg;
  cfg.domain = {{-0.01, -0.01, -0.001}, {0.01, 0.01, 0.01}};
  cfg.dt = 1e-6;
  cfg.contact_margin = 5e-4;
  auto make = [&] {
    auto sim = std::make_unique<typename C::template sim<>>(cfg);
    const auto m = sim->add_material({"m", 2500, 1e7, 0.3, 0.5, 0.5, 0.05});
    sim->add_plane({0, 0, 0}, {0, 0, 1}, m);
    const double r = 1e-3;
    dem::particle_set s;
    s.positions = {{-r, 0, r}, {r, 0, r}, {0.1 * r, 0.05 * r, r + std::sqrt(3.0) * r * 1.001}};
    s.radii = {r, r, r};
    sim->add_particles(s, m);
    return sim;
  };
  auto lazy = make(), eager = make();
  double max_tangential = 0;
  for (int s = 0; s < 2000; ++s) {
    lazy->step();
    eager->request_rebuild();
    eager->step();
    const auto f = lazy->forces();
    max_tangential = std::max(max_tangential, std::hypot(f[2].x, f[2].y));
  }
  CHECK(max_tangential > 1e-7);
  CHECK(eager->num_rebuilds() >= 2000);
  CHECK(lazy->positions() == eager->positions());
  CHECK(lazy->velocities() == eager->velocities());
  CHECK(lazy->angular_velocities() == eager->angular_velocities());
}

TEST_CASE_TEMPLATE("matrix: a small gravity packing settles", C, DEM_POLICY_MATRIX) {
  CAPTURE(label<C>());
  const double w = 0.012;
  dem::simulation_config cfg;
  cfg.domain = {{0, 0, 0}, {w, w, 0.04}};
  cfg.dt = 1e-5;
  typename C::template sim<> sim(cfg);
  const auto m = sim.add_material({"glass beads", 2500, 1e7, 0.3, 0.5, 0.5, 0.0});
  sim.add_box(cfg.domain, m);
  dem::sample::lattice_options o;
  o.radius = 1e-3;
  o.spacing = 2.3e-3;
  o.jitter = 1.5e-4;
  o.max_count = 300;
  sim.add_particles(dem::sample::cubic_lattice({{0, 0, 0.002}, {w, w, 0.04}}, o), m);
  // Settled: the kinetic energy 1e-5 of its peak within 2 s. Without rolling resistance the bed
  // creeps and rearranges now and then, so how low it gets is chaotic: on the host, over three
  // lattice seeds, the three reduced-precision combinations and strict or FMA-contracted rounding,
  // the lowest ratio after 0.3 s was 3.5e-9 to 3.1e-6; on the H200 (2026-12-04) single/floating
  // ended its first second at 7.5e-6. Quantised float positions alone would give about 5e-8.
  double peak = 0, last = 0;
  for (int block = 0; block < 200 && (peak == 0 || last > 1e-5 * peak); ++block) {
    sim.advance(0.01);
    last = sim.kinetic_energy();
    peak = std::max(peak, last);
  }
  MESSAGE(label<C>() << ": settled at t = " << sim.time() << " s, kinetic energy " << last << " J (peak " << peak << " J)");
  CHECK(sim.num_particles() == 300);
  CHECK(sim.num_lost() == 0);
  CHECK(last < 1e-5 * peak);
  CHECK(dem::analysis::bed_height(sim.snapshot()) < 0.02);
}

// 1 mm glass beads colliding at 1 m/s next to the far corner of a 2 km cube. A float position there
// moves in steps of 1.2e-4 m (an eighth of the radius; the whole overlap is 4e-5 m): with float
// world positions the contact cannot be resolved. coord::voxel<16> has 1.5e-8 m everywhere, and its
// rounding carry lets the 4e-7 m per-step displacements add up.
TEST_CASE_TEMPLATE("matrix: 2 km domain, 1 mm spheres: float positions break restitution, voxel and double keep it", C,
                   DEM_POLICY_MATRIX) {
  CAPTURE(label<C>());
  const dem::material beads{"beads", 2500, 1e7, 0.3, 0.5, 0.0, 0.0};
  impact_placement far;
  far.custom = true;
  far.domain = {{0, 0, 0}, {2000, 2000, 2000}};
  far.centre = {1999.5, 1999.5, 1999.5};
  far.max_steps = 20000;
  far.allow_initial_overlap = true;  // float rounding of the start positions can exceed 10 % of r
  constexpr bool float_positions =
      std::is_same_v<typename C::coord, dem::coord::floating> && std::is_same_v<typename C::precision, dem::precision::single>;
  for (const bool wall : {false, true}) {
    CAPTURE(wall);
    const impact_record r = run_impact<typename C::template sim<>>(beads, 1e-3, 1.0, wall, 1.0 / 200, far);
    MESSAGE(label<C>() << (wall ? ", wall" : ", pair") << ": measured e = " << r.rebound_ratio << " (input 0.5)");
    if constexpr (float_positions) CHECK(std::abs(r.rebound_ratio - 0.5) > 0.05 * 0.5);
    else CHECK(r.rebound_ratio == doctest::Approx(0.5).epsilon(0.02));
  }
  // The resolution in use, and a requirement the policy cannot meet.
  dem::simulation_config cfg;
  cfg.domain = far.domain;
  using Sim = typename C::template sim<>;
  const Sim sim(cfg);
  const double res = sim.position_resolution();
  if constexpr (float_positions) {
    CHECK(res == doctest::Approx(0x1p-13));  // float spacing at 2000 m
    cfg.position_resolution = 1e-6;
    CHECK_THROWS_WITH_AS([&] { Sim refused(cfg); }(), doctest::Contains("domain extent 2000 x 2000 x 2000 m"), std::invalid_argument);
  } else {
    CHECK(res < 2e-8);
    cfg.position_resolution = 1e-6;
    CHECK_NOTHROW([&] { Sim accepted(cfg); }());
  }
}
