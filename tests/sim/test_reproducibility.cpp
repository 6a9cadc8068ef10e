// Bit-for-bit reproducibility: a dense, rebuilding packing (over 2048 particles and listed pairs, so
// the host's parallel loops engage) gives identical positions and velocities
//   - on the host with 1 and 2 OpenMP threads,
//   - when the contact list is rebuilt before every step with a wider margin instead of when
//     needed (a larger grid cell: particles are stored in another order, pairs found in another
//     order and at other indices, more pairs listed),
//   - on CUDA, for two identical runs.
//   - on the host, with one material (the pair kernel reads the parameters once) and with a
//     second, unused one (the general kernel gathers them per pair).
// Forces are gathered per particle in partner-id order (no float atomics), so none of these can
// change a bit. Across backends or compilers no such promise is made (FMA contraction, libm).
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "dem/coord/voxel.hpp"
#include "support/scenarios.hpp"

#if defined(_OPENMP) && !defined(DEM_TEST_BACKEND_CUDA)
#include <omp.h>
#define DEM_TEST_THREADS 1
#endif

using namespace dem_test;

namespace {

struct run_result {
  std::vector<dem::vec3d> x, v, w;
  std::uint64_t listed = 0, rebuilds = 0;
  double kinetic = 0;
};

// Bits, not values: -0.0 and 0.0 differ, NaN equals itself.
bool same_bits(const std::vector<dem::vec3d>& a, const std::vector<dem::vec3d>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(dem::vec3d)) == 0;
}

template <class Sim>
run_result run(bool rebuild_every_step, int steps, double margin = 1e-4, bool unused_material = false) {
  const double r = 1e-3, w = 0.03;
  dem::simulation_config cfg;
  cfg.domain = {{0, 0, 0}, {w, w, 0.06}};
  cfg.dt = 1e-5;
  cfg.contact_margin = margin;
  Sim sim(cfg);
  sim.set_log(nullptr);
  const auto m = sim.add_material({"beads", 2500, 1e7, 0.3, 0.5, 0.5, 0.05});
  if (unused_material) sim.add_material({"steel", 7800, 2e11, 0.3, 0.9, 0.2, 0.0});
  sim.add_box(cfg.domain, m);
  dem::sample::lattice_options o;
  o.radius = r;
  o.radius_spread = 0.05;
  o.spacing = 2.2e-3;
  o.jitter = 5e-5;
  o.max_count = 3000;
  dem::particle_set s = dem::sample::cubic_lattice({{0, 0, 0}, {w, w, 0.06}}, o);
  s.velocities.resize(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) s.velocities[i] = {0.3 * std::sin(3.0 * i), 0.3 * std::cos(5.0 * i), -0.3};
  sim.add_particles(s, m);
  for (int k = 0; k < steps; ++k) {
    if (rebuild_every_step) sim.request_rebuild();
    sim.step();
  }
  run_result out;
  out.x = sim.positions();
  out.v = sim.velocities();
  out.w = sim.angular_velocities();
  out.listed = sim.num_listed_pairs();
  out.rebuilds = sim.num_rebuilds();
  out.kinetic = sim.kinetic_energy();
  return out;
}

template <class Precision, class Coord>
struct combo {
  using sim = sim_t<dem::force::hertz_mindlin, Precision, dem::integrate::velocity_verlet, Coord>;
};

}  // namespace

TEST_CASE_TEMPLATE("reproducibility: same bits for any thread count, rebuild schedule and run", C,
                   combo<dem::precision::single, dem::coord::floating>, combo<dem::precision::mixed, dem::coord::floating>,
                   combo<dem::precision::single, dem::coord::voxel<16>>) {
  using Sim = typename C::sim;
  const int steps = 300;
#if defined(DEM_TEST_THREADS)
  const int threads_before = omp_get_max_threads();
  omp_set_num_threads(1);
  const run_result one = run<Sim>(false, steps);
  omp_set_num_threads(2);
  const run_result two = run<Sim>(false, steps);
  const run_result eager = run<Sim>(true, steps, 4e-4);
  omp_set_num_threads(threads_before);
#else
  const run_result one = run<Sim>(false, steps);
  const run_result two = run<Sim>(false, steps);
  const run_result eager = run<Sim>(true, steps, 4e-4);
#endif
  REQUIRE(one.x.size() >= 2048);
  CHECK(one.listed >= 2048);           // the pair and particle loops run in parallel
  CHECK(one.rebuilds > 2);             // and the list was rebuilt while the packing moved
  CHECK(eager.rebuilds >= std::uint64_t(steps));
  CHECK(same_bits(one.x, two.x));
  CHECK(same_bits(one.v, two.v));
  CHECK(same_bits(one.w, two.w));
  CHECK(one.kinetic == two.kinetic);   // the chunked reduction is thread-count independent too
  CHECK(same_bits(one.x, eager.x));
  CHECK(same_bits(one.v, eager.v));
  CHECK(same_bits(one.w, eager.w));
  MESSAGE("particles " << one.x.size() << ", listed pairs " << one.listed << ", rebuilds " << one.rebuilds);
}

TEST_CASE_TEMPLATE("reproducibility: one material gives the same bits as the general kernel", C,
                   combo<dem::precision::single, dem::coord::floating>, combo<dem::precision::double_, dem::coord::floating>) {
  using Sim = typename C::sim;
  const run_result one = run<Sim>(false, 200);
  const run_result general = run<Sim>(false, 200, 1e-4, true);
  REQUIRE(one.x.size() >= 2048);
  CHECK(one.rebuilds > 2);
  CHECK(same_bits(one.x, general.x));
  CHECK(same_bits(one.v, general.v));
  CHECK(same_bits(one.w, general.w));
}
