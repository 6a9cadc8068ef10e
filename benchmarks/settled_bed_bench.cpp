// Google Benchmark: the settled bed (see settled_bed.hpp). Names are
// <scenario>/<backend>/<force law>/<N>, e.g. settled_bed/host/hertz_mindlin/10000, and for the
// coordinate x precision matrix <scenario>/<backend>/<force law>/<precision>/<coord>/<N>, e.g.
// settled_bed/host/hertz_mindlin/mixed/voxel16/10000.
// The settled state is cached in the working directory (settled_bed_<law>_<N>.csv) because
// settling 50,000 spheres takes minutes; delete the file to settle again.
#include <benchmark/benchmark.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iomanip>

#include "dem/coord/voxel.hpp"
#include "settled_cache.hpp"

namespace {

template <class Backend, class Force, class Precision, class Coord = dem::coord::floating, bool Ledger = false, class Shape = dem::shape::sphere,
          unsigned DeformationInterval = 1>
void settled_bed(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const dem::particle_set bed = bench::settled<Force>(n);
  using Sim = dem::Simulator<dem::policies<Shape, Force, dem::integrate::velocity_verlet, Precision, Coord>, Backend>;
  Sim sim(bench::bed_config(bench::initial_bed(n)));
  sim.set_log(nullptr);
  bench::setup(sim, bed);
  if constexpr (Ledger) sim.enable_energy_ledger();
  if constexpr (Sim::deformable) sim.set_deformation_interval(DeformationInterval);
  sim.step(200);  // let contact history and the contact list form
  const int steps = 100;
  const std::uint64_t rebuilds0 = sim.num_rebuilds(), steps0 = sim.step_count();
  for (auto _ : state) {
    sim.step(steps);
    sim.backend().synchronize();
  }
  const double ps = static_cast<double>(bed.size()) * steps * static_cast<double>(state.iterations());
  state.counters["particle_steps_per_s"] = benchmark::Counter(ps, benchmark::Counter::kIsRate);
  state.counters["contacts_per_particle"] = 2.0 * static_cast<double>(sim.num_touching_pairs()) / static_cast<double>(bed.size());
  state.counters["listed_pairs_per_particle"] = static_cast<double>(sim.num_listed_pairs()) / static_cast<double>(bed.size());
  state.counters["bytes_per_particle"] =
      static_cast<double>(Sim::bytes_per_particle() + sim.wall_history_bytes_per_particle()) +
      static_cast<double>(Sim::bytes_per_contact()) * static_cast<double>(sim.num_listed_pairs()) / static_cast<double>(bed.size());
  state.counters["bytes_per_particle_state"] = static_cast<double>(Sim::bytes_per_particle());
  state.counters["bytes_per_contact"] = static_cast<double>(Sim::bytes_per_contact());
  state.counters["threads"] = dem::backend::host::concurrency();
  if constexpr (Sim::deformable) {  // Newton iterations per deformed sphere and step, the largest R' / R
    const dem::deformation_report rep = sim.deformation_report();
    state.counters["newton_iterations"] = rep.mean_iterations;
    state.counters["deformed_fraction"] = static_cast<double>(rep.deformed) / static_cast<double>(rep.particles);
    state.counters["max_radius_ratio"] = rep.max_ratio;
  }
  state.counters["steps_per_rebuild"] =
      static_cast<double>(sim.step_count() - steps0) / static_cast<double>(std::max<std::uint64_t>(1, sim.num_rebuilds() - rebuilds0));
}

}  // namespace

BENCHMARK(settled_bed<dem::backend::host, dem::force::hertz_mindlin, dem::precision::single>)
    ->Name("settled_bed/host/hertz_mindlin")
    ->Arg(10000)
    ->Arg(20000)  // the size of the main example (scripts/example-vs-bench.sh)
    ->Arg(50000)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MinTime(2.0);
BENCHMARK(settled_bed<dem::backend::host, dem::force::linear_spring_dashpot, dem::precision::single>)
    ->Name("settled_bed/host/linear_spring_dashpot")
    ->Arg(10000)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MinTime(2.0);
BENCHMARK(settled_bed<dem::backend::host, dem::force::hertz_mindlin, dem::precision::double_>)
    ->Name("settled_bed/host/hertz_mindlin_double")
    ->Arg(10000)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MinTime(2.0);
// Deformable spheres (YADE's deformation engine): the same bed with the radius update each step
// (issue target: at most 1.3x the plain step's cost; YADE's own is 1.73x).
BENCHMARK(settled_bed<dem::backend::host, dem::force::hertz_mindlin, dem::precision::single, dem::coord::floating, false, dem::shape::deformable_sphere>)
    ->Name("settled_bed/host/hertz_mindlin_deformable")
    ->Arg(10000)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MinTime(2.0);
BENCHMARK(settled_bed<dem::backend::host, dem::force::linear_spring_dashpot, dem::precision::single, dem::coord::floating, false,
                      dem::shape::deformable_sphere>)
    ->Name("settled_bed/host/linear_spring_dashpot_deformable")
    ->Arg(10000)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MinTime(2.0);
// The radii solved every 10th step (set_deformation_interval(10), as the model's paper suggests).
BENCHMARK(settled_bed<dem::backend::host, dem::force::hertz_mindlin, dem::precision::single, dem::coord::floating, false, dem::shape::deformable_sphere,
                      10>)
    ->Name("settled_bed/host/hertz_mindlin_deformable_every10")
    ->Arg(10000)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MinTime(2.0);

// The deformable spheres' cost relative to the plain step, measured in one process with the two
// simulators of the same bed stepped in turn, 20 steps each: the VM's speed drifts by +-20 % over
// seconds, which two separate benchmarks see as a change of the ratio; taken in turn, both see it.
// Time: the deformable simulator's; counter "ratio": its time over the plain one's.
template <class Force>
void deformable_cost(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const dem::particle_set bed = bench::settled<Force>(n);
  using Plain = dem::Simulator<dem::policies<dem::shape::sphere, Force, dem::integrate::velocity_verlet, dem::precision::single>, dem::backend::host>;
  using Deformable =
      dem::Simulator<dem::policies<dem::shape::deformable_sphere, Force, dem::integrate::velocity_verlet, dem::precision::single>, dem::backend::host>;
  Plain plain(bench::bed_config(bench::initial_bed(n)));
  Deformable deformable(bench::bed_config(bench::initial_bed(n)));
  plain.set_log(nullptr);
  deformable.set_log(nullptr);
  bench::setup(plain, bed);
  bench::setup(deformable, bed);
  plain.step(200);
  deformable.step(200);
  const int steps = 20;
  double plain_s = 0, deformable_s = 0;
  using clock = std::chrono::steady_clock;
  for (auto _ : state) {
    const auto t0 = clock::now();
    plain.step(steps);
    plain.backend().synchronize();
    const auto t1 = clock::now();
    deformable.step(steps);
    deformable.backend().synchronize();
    const auto t2 = clock::now();
    plain_s += std::chrono::duration<double>(t1 - t0).count();
    deformable_s += std::chrono::duration<double>(t2 - t1).count();
    state.SetIterationTime(std::chrono::duration<double>(t2 - t1).count());
  }
  const double iterations = static_cast<double>(state.iterations());
  state.counters["ratio"] = deformable_s / plain_s;
  state.counters["plain_ms_per_100_steps"] = 1e3 * plain_s / iterations * (100.0 / steps);
  state.counters["deformable_ms_per_100_steps"] = 1e3 * deformable_s / iterations * (100.0 / steps);
  state.counters["threads"] = dem::backend::host::concurrency();
}
BENCHMARK(deformable_cost<dem::force::hertz_mindlin>)
    ->Name("deformable_cost/host/hertz_mindlin")
    ->Arg(10000)
    ->Unit(benchmark::kMillisecond)
    ->UseManualTime()
    ->MinTime(4.0);
BENCHMARK(deformable_cost<dem::force::linear_spring_dashpot>)
    ->Name("deformable_cost/host/linear_spring_dashpot")
    ->Arg(10000)
    ->Unit(benchmark::kMillisecond)
    ->UseManualTime()
    ->MinTime(4.0);

// Writing (atomically, fsync included) and loading a checkpoint of the settled bed, in the
// working directory.
template <bool Save>
void checkpoint_io(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const dem::particle_set bed = bench::settled<dem::force::hertz_mindlin>(n);
  using Sim = dem::Simulator<dem::policies<>, dem::backend::host>;
  Sim sim(bench::bed_config(bench::initial_bed(n)));
  sim.set_log(nullptr);
  bench::setup(sim, bed);
  sim.step(200);
  const std::string path = "checkpoint_bench_" + std::to_string(n) + ".ckpt";
  sim.save_checkpoint(path);
  for (auto _ : state) {
    if constexpr (Save) sim.save_checkpoint(path);
    else benchmark::DoNotOptimize(Sim::from_checkpoint(path).num_particles());
  }
  state.counters["bytes"] = static_cast<double>(std::filesystem::file_size(path));
  state.counters["bytes_per_particle"] = static_cast<double>(std::filesystem::file_size(path)) / static_cast<double>(n);
  std::filesystem::remove(path);
}
BENCHMARK(checkpoint_io<true>)->Name("checkpoint/save")->Arg(10000)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(1.0);
BENCHMARK(checkpoint_io<false>)->Name("checkpoint/load")->Arg(10000)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(1.0);

// The same bed with the energy ledger on (its cost).
BENCHMARK(settled_bed<dem::backend::host, dem::force::hertz_mindlin, dem::precision::single, dem::coord::floating, true>)
    ->Name("settled_bed/host/hertz_mindlin_ledger")
    ->Arg(10000)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MinTime(2.0);

// Coordinate x precision matrix (N = 10,000).
#define DEM_BED_MATRIX(P, C, name)                                                          \
  BENCHMARK(settled_bed<dem::backend::host, dem::force::hertz_mindlin, dem::precision::P, C>) \
      ->Name("settled_bed/host/hertz_mindlin/" name)                                        \
      ->Arg(10000)                                                                          \
      ->Unit(benchmark::kMillisecond)                                                       \
      ->UseRealTime()                                                                       \
      ->MinTime(2.0)
DEM_BED_MATRIX(single, dem::coord::floating, "single/floating");
DEM_BED_MATRIX(mixed, dem::coord::floating, "mixed/floating");
DEM_BED_MATRIX(double_, dem::coord::floating, "double/floating");
DEM_BED_MATRIX(single, dem::coord::voxel<16>, "single/voxel16");
DEM_BED_MATRIX(mixed, dem::coord::voxel<16>, "mixed/voxel16");
DEM_BED_MATRIX(double_, dem::coord::voxel<16>, "double/voxel16");
#undef DEM_BED_MATRIX

BENCHMARK_MAIN();
