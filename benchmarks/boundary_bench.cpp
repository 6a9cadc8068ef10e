// Google Benchmark: boundaries (docs/boundaries.md, docs/performance.md "Boundaries").
//
//   boundary_box/host/<planes|mesh12>/10000   the settled bed (settled_bed.hpp) in its box made of five
//                                             planes, or of a 12-triangle mesh: the mesh must cost at
//                                             most 1.2x the planes
//   drum/host/liner<T>/<N>                    N = 50,000 spheres (r = 1 mm) in a drum (R = 60 mm,
//                                             100 mm long) whose liner with 16 lifter bars is one mesh
//                                             of T triangles (2e4), turning at 4 rad/s (Fr = 0.1):
//                                             target 1e7 particle-steps/s on 2 threads
//   mesh_detection/host/<triangles>/10000     contact detection alone for the bed on a floor of 2 or
//                                             20,000 triangles: large triangles do not make it quadratic
//
// The drum's settled charge is cached in the working directory (drum_settled_<N>.csv).
#include <benchmark/benchmark.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iomanip>

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

// ---- the drum ----------------------------------------------------------------------------------
constexpr double drum_r = 0.06, drum_l = 0.1, drum_omega = 4.0;

// The liner: a cylinder of `around` x `along` quads (two triangles each), with 16 lifter bars
// (10 mm high and wide, boxes of 12 triangles) along it. Axis y, centred at the origin.
bd::triangle_mesh liner(int around, int along) {
  bd::triangle_mesh m;
  m.name = "liner";
  for (int j = 0; j <= along; ++j)
    for (int i = 0; i < around; ++i) {
      const double a = 2 * M_PI * i / around;
      m.vertices.push_back({drum_r * std::cos(a), -drum_l / 2 + drum_l * j / along, drum_r * std::sin(a)});
    }
  auto v = [&](int i, int j) { return static_cast<std::uint32_t>(j * around + (i % around)); };
  for (int j = 0; j < along; ++j)
    for (int i = 0; i < around; ++i) {
      m.triangles.push_back({v(i, j), v(i + 1, j), v(i + 1, j + 1)});
      m.triangles.push_back({v(i, j), v(i + 1, j + 1), v(i, j + 1)});
    }
  for (int k = 0; k < 16; ++k) {
    const double a = 2 * M_PI * (k + 0.5) / 16;
    const dem::vec3d axes[3] = {{std::cos(a), 0, std::sin(a)}, {0, 1, 0}, {-std::sin(a), 0, std::cos(a)}};
    bd::append_box(m, axes[0] * (drum_r - 0.005), axes, {0.00505, drum_l / 2, 0.005});
  }
  return m;
}

dem::simulation_config drum_config() {
  dem::simulation_config cfg;
  cfg.domain = {{-drum_r - 0.003, -drum_l / 2 - 0.003, -drum_r - 0.003}, {drum_r + 0.003, drum_l / 2 + 0.003, drum_r + 0.003}};
  cfg.dt = 1e-5;
  cfg.boundary_margin = 0.002;  // the liner turns: its triangles are listed 2 mm out (a rebuild every ~800 steps)
  return cfg;
}

void drum_setup(Sim& sim, const bd::triangle_mesh& mesh, std::uint32_t& liner_id) {
  const auto beads = sim.add_material({"beads", 2500, 1e7, 0.3, 0.5, 0.5, 0.0});
  const auto steel = sim.add_material({.name = "steel", .density = 7800, .youngs_modulus = 2e11, .poisson_ratio = 0.3, .restitution = 0.5,
                                       .friction = 0.5, .rigid = true});
  (void)beads;
  liner_id = sim.add_mesh(mesh, steel, "liner");
  sim.add_plane({0, -drum_l / 2, 0}, {0, 1, 0}, steel, "end");
  sim.add_plane({0, drum_l / 2, 0}, {0, -1, 0}, steel, "end");
}

// The charge settled in the resting drum, cached.
dem::particle_set drum_charge(std::size_t n, const bd::triangle_mesh& mesh) {
  const std::string cache = "drum_settled_" + std::to_string(n) + ".csv";
  if (std::filesystem::exists(cache)) return bench::read_bed(cache);
  Sim sim(drum_config());
  sim.set_log(nullptr);
  std::uint32_t id = 0;
  drum_setup(sim, mesh, id);
  dem::sample::lattice_options o;
  o.radius = 1e-3;
  o.jitter = 1e-4;
  const dem::particle_set grid = dem::sample::cubic_lattice({{-drum_r, -drum_l / 2, -drum_r}, {drum_r, drum_l / 2, drum_r}}, o);
  dem::particle_set s;
  for (std::size_t k = 0; k < grid.size() && s.size() < n; ++k)
    if (std::hypot(grid.positions[k].x, grid.positions[k].z) < drum_r - 0.012) {
      s.positions.push_back(grid.positions[k]);
      s.radii.push_back(grid.radii[k]);
    }
  if (s.size() < n) throw std::runtime_error("the drum holds at most " + std::to_string(s.size()) + " spheres");
  sim.add_particles(s, 0);
  sim.advance(0.4);
  bench::write_bed(cache, sim.snapshot());
  return bench::read_bed(cache);
}

void drum(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const bd::triangle_mesh mesh = liner(320, 32);
  const dem::particle_set charge = drum_charge(n, mesh);
  Sim sim(drum_config());
  sim.set_log(nullptr);
  std::uint32_t id = 0;
  drum_setup(sim, mesh, id);
  sim.add_particles(charge, 0);
  sim.set_motion(id, bd::constant_velocity{.omega = {0, drum_omega, 0}});
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
