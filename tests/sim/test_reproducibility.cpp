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

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
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
  std::uint64_t listed = 0, rebuilds = 0, halts = 0, steps = 0;
  double kinetic = 0;
};

// Bits, not values: -0.0 and 0.0 differ, NaN equals itself.
bool same_bits(const std::vector<dem::vec3d>& a, const std::vector<dem::vec3d>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(dem::vec3d)) == 0;
}

// read_interval: config.status_read_interval; per_call: steps per Simulator::step call.
template <class Sim>
run_result run(bool rebuild_every_step, int steps, double margin = 1e-4, bool unused_material = false, std::uint32_t read_interval = 32,
               int per_call = 1) {
  const double r = 1e-3, w = 0.03;
  dem::simulation_config cfg;
  cfg.domain = {{0, 0, 0}, {w, w, 0.06}};
  cfg.dt = 1e-5;
  cfg.contact_margin = margin;
  cfg.status_read_interval = read_interval;
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
  for (int k = 0; k < steps; k += per_call) {
    if (rebuild_every_step) sim.request_rebuild();
    sim.step(static_cast<std::uint64_t>(std::min(per_call, steps - k)));
  }
  run_result out;
  out.x = sim.positions();
  out.v = sim.velocities();
  out.w = sim.angular_velocities();
  out.listed = sim.num_listed_pairs();
  out.rebuilds = sim.num_rebuilds();
  out.kinetic = sim.kinetic_energy();
  out.halts = sim.num_device_halts();
  out.steps = sim.step_count();
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

#if defined(DEM_TEST_BACKEND_CUDA) || defined(DEM_TEST_BACKEND_EMULATED)
// Device backends decide rebuilds on the device and read back once per config.status_read_interval
// steps (sim/device_steps.hpp): the same bits as the host's per-step decision (interval 0), for any
// interval and however the steps are split into calls.
TEST_CASE_TEMPLATE("reproducibility: rebuilds decided on the device give the host's bits", Sim,
                   combo<dem::precision::single, dem::coord::floating>::sim, combo<dem::precision::double_, dem::coord::voxel<16>>::sim,
                   sim_t<dem::force::hertz_mindlin, dem::precision::mixed, dem::integrate::symplectic_euler>) {
  const int steps = 300;
  const run_result host = run<Sim>(false, steps, 1e-4, false, 0, steps);
  const run_result batched = run<Sim>(false, steps, 1e-4, false, 32, steps);
  const run_result odd = run<Sim>(false, steps, 1e-4, false, 7, 45);
  const run_result single = run<Sim>(false, steps, 1e-4, false, 32, 1);
  CHECK(host.halts == 0);
  CHECK(host.rebuilds > 2);
  for (const run_result* r : {&batched, &odd, &single}) {
    CHECK(r->steps == std::uint64_t(steps));
    CHECK(r->rebuilds == host.rebuilds);  // every rebuild at the step the host chose
    CHECK(r->halts > 0);                  // and the device stopped for them
    CHECK(same_bits(r->x, host.x));
    CHECK(same_bits(r->v, host.v));
    CHECK(same_bits(r->w, host.w));
  }
  MESSAGE("rebuilds " << host.rebuilds << "; halted batches " << batched.halts << " (interval 32), " << odd.halts << " (7), " << single.halts
                      << " (1 step per call)");
}

namespace {
// Spheres thrown out of an open domain and one that speeds past config.max_speed: what the host
// learns from the status word, it learns at the same step whatever the read interval.
struct escape_result {
  std::vector<dem::vec3d> x;
  std::uint32_t lost = 0;
  std::uint64_t rebuilds = 0, steps = 0;
  std::string error;
};
template <class Sim>
escape_result escape(std::uint32_t read_interval, double max_speed) {
  dem::simulation_config cfg;
  cfg.domain = {{0, 0, 0}, {0.02, 0.02, 0.02}};
  cfg.dt = 1e-5;
  cfg.gravity = {0, 0, -9.81};
  cfg.max_speed = max_speed;
  cfg.status_read_interval = read_interval;
  Sim sim(cfg);
  sim.set_log(nullptr);
  const auto m = sim.add_material({"beads", 2500, 1e7, 0.3, 0.5, 0.5, 0.05});
  dem::particle_set s;
  for (int i = 0; i < 40; ++i) {
    s.positions.push_back({0.002 + 0.004 * (i % 5), 0.002 + 0.004 * ((i / 5) % 5), 0.004 + 0.0045 * (i / 25)});
    s.radii.push_back(9e-4);
    s.velocities.push_back({0.45 * std::sin(1.7 * i), 0.45 * std::cos(2.3 * i), 0.25 * std::sin(0.7 * i)});
  }
  s.positions.push_back({0.01, 0.01, 0.0185});  // above the others, thrown down: passes 0.75 m/s after about 5 ms
  s.radii.push_back(9e-4);
  s.velocities.push_back({0, 0, -0.7});
  sim.add_particles(s, m);
  escape_result out;
  try {
    sim.step(6000);
  } catch (const std::runtime_error& e) {
    out.error = e.what();
  }
  out.x = sim.positions();
  out.lost = sim.num_lost();
  out.rebuilds = sim.num_rebuilds();
  out.steps = sim.step_count();
  return out;
}
}  // namespace

TEST_CASE_TEMPLATE("reproducibility: lost and diverged particles are found at the host's step on the device path", Sim,
                   combo<dem::precision::double_, dem::coord::floating>::sim) {
  const escape_result host = escape<Sim>(0, std::numeric_limits<double>::infinity());
  CHECK(host.lost > 5);  // several leave, at different steps
  CHECK(host.lost < 41);
  CHECK(host.error.empty());
  for (std::uint32_t interval : {1u, 32u, 1000u}) {
    const escape_result dev = escape<Sim>(interval, std::numeric_limits<double>::infinity());
    CHECK(dev.lost == host.lost);
    CHECK(dev.rebuilds == host.rebuilds);
    CHECK(dev.steps == host.steps);
    CHECK(same_bits(dev.x, host.x));
  }
  // Under gravity speeds grow: the thrown sphere passes 0.75 m/s and stops the run at the same step with the same message.
  const escape_result host_fast = escape<Sim>(0, 0.75);
  REQUIRE(host_fast.error.find("diverged at step") != std::string::npos);
  CHECK(host_fast.steps > 100);  // well into the run, between reads
  for (std::uint32_t interval : {1u, 32u, 1000u}) {
    const escape_result dev = escape<Sim>(interval, 0.75);
    CHECK(dev.error == host_fast.error);
    CHECK(dev.steps == host_fast.steps);
    CHECK(same_bits(dev.x, host_fast.x));
  }
  MESSAGE("lost " << host.lost << " after " << host.steps << " steps, " << host.rebuilds << " rebuilds; " << host_fast.error);
}
#endif

#if defined(DEM_TEST_BACKEND_EMULATED)
// What a GPU waits for, counted on the emulated device (which takes the same code paths). Spheres at
// rest without gravity, 0.1 mm apart (listed, not touching): no step needs a rebuild, so the device path reads back only the
// halt word and the status once per batch, where the host's step read twice per step.
TEST_CASE("reproducibility: a step without a rebuild reads nothing back on the device path") {
  using Sim = combo<dem::precision::single, dem::coord::floating>::sim;
  const auto run_counted = [](std::uint32_t interval, std::uint64_t steps) {
    dem::simulation_config cfg;
    cfg.domain = {{0, 0, 0}, {0.05, 0.05, 0.05}};
    cfg.gravity = {0, 0, 0};
    cfg.status_read_interval = interval;
    Sim sim(cfg);
    sim.set_log(nullptr);
    const auto m = sim.add_material({"beads", 2500, 1e7, 0.3, 0.5, 0.5, 0.05});
    dem::sample::lattice_options o;
    o.radius = 1e-3;
    o.spacing = 2.1e-3;
    o.max_count = 500;
    sim.add_particles(dem::sample::cubic_lattice(cfg.domain, o), m);
    sim.step(1);  // preparation and the first list
    CHECK(sim.num_listed_pairs() > 500);
    const auto before = dem::backend::emulated_device::counted();
    sim.step(steps);
    const auto after = dem::backend::emulated_device::counted();
    CHECK(sim.num_rebuilds() == 1);
    return dem::backend::emulated_device::traffic{after.launches - before.launches, after.host_reads - before.host_reads};
  };
  const auto host = run_counted(0, 320), device = run_counted(32, 320);
  CHECK(host.host_reads == 2 * 320);             // the displacement maximum and the status word, every step
  CHECK(device.host_reads == 2 * (320 / 32));    // the halt word and the status word, once per batch
  CHECK(device.launches == 3 * 320);             // first half with the rebuild check, pair forces, particle update
  CHECK(host.launches == 3 * 320);               // the displacement's evaluation (then reduced on the device), pairs, particles
  MESSAGE("reads over 320 steps: " << host.host_reads << " (host decides) vs " << device.host_reads << " (device decides)");
}
#endif
