// Google Benchmark: boundaries (docs/boundaries.md, docs/performance.md "Boundaries").
//
//   boundary_box/host/<planes|mesh12>/10000   the settled bed (settled_bed.hpp) in its box made of five
//                                             planes, or of a 12-triangle mesh: the mesh must cost at
//                                             most 1.2x the planes
//   drum/host/liner20672/<N>                  N = 50,000 spheres (r = 1 mm) in a drum (R = 60 mm,
//                                             100 mm long) whose liner with 16 lifter bars is one mesh
//                                             of 20,672 triangles, turning at 4 rad/s (Fr = 0.1):
//                                             target 1e7 particle-steps/s on 2 threads
//   mesh_detection/host/<triangles>/10000     contact detection alone for the bed on a floor of 2 or
//                                             20,000 triangles: large triangles do not make it quadratic
//
// The drum (drum.hpp) is the scenario of benchmarks/peers/drum.sh; its settled charge is cached in the
// working directory (drum_settled_<N>.csv).
#include <benchmark/benchmark.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iomanip>

#include "drum.hpp"
#include "settled_cache.hpp"

namespace {

namespace bd = dem::boundary;
using Sim = dem::Simulator<dem::policies<>, dem::backend::host>;


void set_counters(benchmark::State& state, Sim& sim, int steps, std::uint64_t steps0, std::uint64_t rebuilds0) {
  const double n = sim.num_particles();
  state.counters["particle_steps_per_s"] = benchmark::Counter(n * steps * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
  state.counters["wall_entries_per_particle"] = static_cast<double>(sim.num_wall_entries()) / n;
  state.counters["steps_per_rebuild"] =
      static_cast<double>(sim.step_count() - steps0) / static_cast<double>(std::max<std::uint64_t>(1, sim.num_rebuilds() - rebuilds0));
  state.counters["threads"] = dem::backend::host::concurrency();
}

// ---- the bed in a plane box and in a mesh box ------------------------------------------------
template <bool Mesh>
void boundary_box(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const dem::particle_set bed = bench::settled<dem::force::hertz_mindlin>(n);
  Sim sim(bench::bed_config(bench::initial_bed(n)));
  sim.set_log(nullptr);
  if constexpr (Mesh) {
    const auto m = sim.add_material({"beads", 2500, 1e7, 0.3, 0.5, 0.5, 0.0});
    sim.add_mesh(bd::box_mesh(sim.config().domain), m);
    sim.add_particles(bed, m);
  } else {
    bench::setup(sim, bed);
  }
  sim.step(200);
  const int steps = 100;
  const std::uint64_t steps0 = sim.step_count(), rebuilds0 = sim.num_rebuilds();
  for (auto _ : state) sim.step(steps);
  set_counters(state, sim, steps, steps0, rebuilds0);
}
BENCHMARK(boundary_box<false>)->Name("boundary_box/host/planes")->Arg(10000)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(2.0);
BENCHMARK(boundary_box<true>)->Name("boundary_box/host/mesh12")->Arg(10000)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(2.0);

// ---- the drum (drum.hpp) -----------------------------------------------------------------------
void drum(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const bd::triangle_mesh mesh = bench::drum::liner();
  const dem::particle_set charge = bench::drum::charge(n, mesh);
  Sim sim(bench::drum::config());
  sim.set_log(nullptr);
  const std::uint32_t id = bench::drum::setup(sim, mesh);
  sim.add_particles(charge, 0);
  sim.set_motion(id, bd::constant_velocity{.omega = {0, bench::drum::omega, 0}});
  sim.advance(0.1);  // the charge starts to turn
  const int steps = 100;
  const std::uint64_t steps0 = sim.step_count(), rebuilds0 = sim.num_rebuilds();
  for (auto _ : state) sim.step(steps);
  set_counters(state, sim, steps, steps0, rebuilds0);
  state.counters["triangles"] = static_cast<double>(mesh.triangles.size());
  state.counters["power_W"] = sim.boundary_power(id);
}
BENCHMARK(drum)->Name("drum/host/liner20672")->Arg(50000)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(5.0);

// ---- detection with large triangles --------------------------------------------------------------
template <int Squares>
void mesh_detection(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const dem::particle_set bed = bench::settled<dem::force::hertz_mindlin>(n);
  Sim sim(bench::bed_config(bench::initial_bed(n)));
  sim.set_log(nullptr);
  const auto m = sim.add_material({"beads", 2500, 1e7, 0.3, 0.5, 0.5, 0.0});
  const dem::aabb d = sim.config().domain;
  bd::triangle_mesh floor;
  for (int i = 0; i <= Squares; ++i)
    for (int j = 0; j <= Squares; ++j)
      floor.vertices.push_back({d.lo.x + (d.hi.x - d.lo.x) * i / Squares, d.lo.y + (d.hi.y - d.lo.y) * j / Squares, d.lo.z});
  auto v = [&](int i, int j) { return static_cast<std::uint32_t>(i * (Squares + 1) + j); };
  for (int i = 0; i < Squares; ++i)
    for (int j = 0; j < Squares; ++j) {
      floor.triangles.push_back({v(i, j), v(i + 1, j), v(i + 1, j + 1)});
      floor.triangles.push_back({v(i, j), v(i + 1, j + 1), v(i, j + 1)});
    }
  sim.add_mesh(floor, m);
  sim.add_particles(bed, m);
  sim.step(10);
  for (auto _ : state) sim.rebuild_contact_list();
  state.counters["particles_per_s"] = benchmark::Counter(static_cast<double>(n) * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
  state.counters["triangles"] = 2.0 * Squares * Squares;
  state.counters["wall_entries_per_particle"] = static_cast<double>(sim.num_wall_entries()) / static_cast<double>(n);
}
BENCHMARK(mesh_detection<1>)->Name("mesh_detection/host/2")->Arg(10000)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(1.0);
BENCHMARK(mesh_detection<100>)->Name("mesh_detection/host/20000")->Arg(10000)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(1.0);

}  // namespace

BENCHMARK_MAIN();
