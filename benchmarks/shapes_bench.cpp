// Google Benchmark: non-spherical bodies against spheres at the same N. Bodies of equal volume
// (spheres of r = 1 mm; 3-sphere clumps; cubes) start on a lattice at 1.05 x their bounding diameter
// in a box, fall and pack for 0.15 s, then steps are timed.
// Names: shapes/host/<shape>/<N>. Counters: particle_steps_per_s (body-steps), contacts_per_body,
// bytes_per_body (state, wall history, listed pairs).
#include <benchmark/benchmark.h>

#include <cmath>
#include <random>
#include <vector>

#include <dem/dem.hpp>
#include <dem/shape/clump.hpp>
#include <dem/shape/polyhedron.hpp>

namespace {

constexpr double sphere_r = 1e-3;
const double sphere_volume = 4.0 / 3.0 * M_PI * sphere_r * sphere_r * sphere_r;

struct lattice {
  dem::particle_set set;
  std::vector<dem::quatd> orientation;
  dem::aabb box;
};

lattice make_lattice(std::size_t n, double bounding_radius) {
  const double a = 2.1 * bounding_radius;
  const std::size_t side = static_cast<std::size_t>(std::ceil(std::sqrt(n / 4.0)));  // about 4x as tall as wide
  lattice l;
  std::mt19937_64 g(5);
  std::uniform_real_distribution<double> u(-1, 1);
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t i = k % side, j = (k / side) % side, h = k / (side * side);
    const double jitter = 0.04 * bounding_radius;  // breaks the columns a perfect lattice would stack into
    l.set.positions.push_back({(i + 0.5) * a + jitter * u(g), (j + 0.5) * a + jitter * u(g), (h + 0.5) * a});
    l.set.radii.push_back(bounding_radius);
    l.orientation.push_back(dem::normalized(dem::quatd{u(g), u(g), u(g), u(g)}));
  }
  l.box = {{0, 0, 0}, {side * a, side * a, (static_cast<double>(n / (side * side)) + 2) * a}};
  return l;
}

template <class Sim>
void time_steps(benchmark::State& state, Sim& sim, std::size_t n) {
  sim.set_log(nullptr);
  sim.advance(0.15);
  const int steps = 50;
  for (auto _ : state) sim.step(steps);
  state.counters["particle_steps_per_s"] = benchmark::Counter(static_cast<double>(n) * steps * static_cast<double>(state.iterations()),
                                                              benchmark::Counter::kIsRate);
  state.counters["contacts_per_body"] = 2.0 * static_cast<double>(sim.num_touching_pairs()) / static_cast<double>(n);
  state.counters["bytes_per_body"] = static_cast<double>(Sim::bytes_per_particle() + sim.wall_history_bytes_per_particle()) +
                                     static_cast<double>(Sim::bytes_per_contact()) * static_cast<double>(sim.num_listed_pairs()) / static_cast<double>(n);
  state.counters["threads"] = dem::backend::host::concurrency();
}

const dem::material beads{"beads", 2500, 1e7, 0.3, 0.5, 0.5, 0.0};

void spheres(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  lattice l = make_lattice(n, sphere_r);
  dem::Simulator<dem::policies<>, dem::backend::host> sim({.domain = l.box, .dt = 1e-5});
  const auto m = sim.add_material(beads);
  sim.add_box(l.box, m);
  sim.add_particles(l.set, m);
  time_steps(state, sim, n);
}

void clumps(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  // Three spheres in a triangle, 1.2 r apart, scaled to the sphere's volume.
  const auto unit = dem::shape::clumps::three_sphere(1.0, 1.2, dem::shape::clumps::layout::triangle);
  const double s = std::cbrt(sphere_volume / unit.volume());
  const auto grain = dem::shape::clumps::three_sphere(s, 1.2 * s, dem::shape::clumps::layout::triangle);
  lattice l = make_lattice(n, grain.bounding_radius());
  dem::Simulator<dem::policies<dem::shape::clump<3>>, dem::backend::host> sim({.domain = l.box, .dt = 1e-5});
  const auto m = sim.add_material(beads);
  sim.add_box(l.box, m);
  sim.add_bodies(sim.add_shape(grain), l.set, l.orientation, m);
  time_steps(state, sim, n);
}

void cubes(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const double h = 0.5 * std::cbrt(sphere_volume);
  std::vector<dem::vec3d> pts;
  for (int i = 0; i < 8; ++i) pts.push_back({(i & 1 ? h : -h), (i & 2 ? h : -h), (i & 4 ? h : -h)});
  const auto cube = dem::shape::poly::make_polyhedron_template(pts, "cube");
  lattice l = make_lattice(n, cube.bounding_radius);
  dem::Simulator<dem::policies<dem::shape::polyhedron<8>>, dem::backend::host> sim({.domain = l.box, .dt = 1e-5});
  const auto m = sim.add_material(beads);
  sim.add_box(l.box, m);
  sim.add_bodies(sim.add_shape(cube), l.set, l.orientation, m);
  time_steps(state, sim, n);
}

}  // namespace

BENCHMARK(spheres)->Name("shapes/host/sphere")->Arg(4000)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(1.0);
BENCHMARK(clumps)->Name("shapes/host/clump3")->Arg(4000)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(1.0);
BENCHMARK(cubes)->Name("shapes/host/cube")->Arg(4000)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(1.0);

BENCHMARK_MAIN();
