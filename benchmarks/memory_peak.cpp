// Bytes per particle the backend's buffers hold on the settled bed (docs/performance.md, "Memory"):
// between rebuilds and at the peak, which a rebuild reaches, for each law x precision x coordinate
// combination of spheres, on backend::emulated_device (it allocates what backend::cuda allocates,
// buffer for buffer, the sort's scratch included: the GPU's figure without a GPU) and on
// backend::host (which keeps a rebuild's scratch between rebuilds). The bed: the settled 10,000
// spheres of the suite (benchmarks/settled_cache.hpp), 200 steps, then one more rebuild; the peak
// counts from the simulator's construction (backend/memory_meter.hpp). Not part of the CMake build
// (each combination is a simulator of its own to compile); from the repository root:
//   g++ -I benchmarks -I include -isystem /usr/include/eigen3 -O2 -march=native -fno-math-errno -ffp-contract=off
//       -fopenmp -std=gnu++20 -DDEM_EMULATE_DEVICE_PATHS benchmarks/memory_peak.cpp -o /tmp/memory_peak -lbenchmark -lpthread
//   (one command), then: cd build/benchmarks && OMP_NUM_THREADS=2 /tmp/memory_peak [N [emulated]]
// (N: the tiled bed's particle count, 10,000 by default; `emulated`: the emulated device's rows alone;
// `deferred`: deferred detection's cost on a stirred bed, deferred_cost below.)
// (build/benchmarks holds the settled bed's cache; it is settled first where it is missing.)
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <string>
#include <typeinfo>
#include <vector>

#include "dem/backend/emulated_device.hpp"
#include "suite.hpp"

namespace {

using namespace bench::suite;
using hertz_mindlin = dem::force::hertz_mindlin;
using linear_spring_dashpot = dem::force::linear_spring_dashpot;

std::size_t particles = 10000;

template <class Backend, class Force, class Precision, class Coord>
void measure(const char* law, const char* precision, const char* coord) {
  using Sim = dem::Simulator<dem::policies<dem::shape::sphere, Force, dem::integrate::velocity_verlet, Precision, Coord>, Backend>;
  bed b = make_tiled_bed<Force>(particles);
  const std::size_t base = Backend::memory().live;
  Backend::reset_memory_peak();
  {
    Sim sim(config_for(b.domain));
    sim.set_log(nullptr);
    bench::setup(sim, b.set);
    sim.step(200);
    sim.rebuild_contact_list();
    sim.step(1);
    const double n = static_cast<double>(sim.num_particles());
    const dem::backend::memory_use use = Backend::memory();
    std::printf("| %s | %s | %s | %s | %.2f | %.1f | %.1f | %.1f |\n", Backend::name, law, precision, coord,
                static_cast<double>(sim.num_listed_pairs()) / n, static_cast<double>(use.live - base) / n, static_cast<double>(use.peak - base) / n,
                static_cast<double>(Sim::bytes_per_particle() + sim.wall_history_bytes_per_particle()) +
                    static_cast<double>(Sim::bytes_per_contact() * sim.num_listed_pairs()) / n);
  }
}

template <class Backend>
void all() {
  using dem::coord::floating;
  using dem::coord::voxel;
  using namespace dem::precision;
  measure<Backend, hertz_mindlin, single, floating>("hertz_mindlin", "single", "floating");
  measure<Backend, hertz_mindlin, mixed, floating>("hertz_mindlin", "mixed", "floating");
  measure<Backend, hertz_mindlin, double_, floating>("hertz_mindlin", "double", "floating");
  measure<Backend, hertz_mindlin, single, voxel<16>>("hertz_mindlin", "single", "voxel<16>");
  measure<Backend, hertz_mindlin, double_, voxel<16>>("hertz_mindlin", "double", "voxel<16>");
  measure<Backend, linear_spring_dashpot, single, floating>("linear_spring_dashpot", "single", "floating");
  measure<Backend, linear_spring_dashpot, double_, floating>("linear_spring_dashpot", "double", "floating");
}

// Deferred detection's cost (config.deferred_detection; `memory_peak N deferred`): the bed stirred
// (each sphere given 0.3 m/s in a direction of its own, so that lists are rebuilt every ~10 steps),
// 300 steps with and without deferred builds, Hertz-Mindlin, single precision, floating.
template <class Backend>
void deferred_cost(bool deferred) {
  using Sim = dem::Simulator<dem::policies<dem::shape::sphere, hertz_mindlin, dem::integrate::velocity_verlet, dem::precision::single>, Backend>;
  bed b = make_tiled_bed<hertz_mindlin>(particles);
  const std::size_t base = Backend::memory().live;
  Backend::reset_memory_peak();
  {
    dem::simulation_config cfg = config_for(b.domain);
    cfg.deferred_detection = deferred;
    Sim sim(cfg);
    sim.set_log(nullptr);
    bench::setup(sim, b.set);
    std::vector<dem::vec3d> v(sim.num_particles());
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = {0.3 * std::sin(3.0 * i), 0.3 * std::cos(5.0 * i), 0.3 * std::sin(7.0 * i + 1)};
    sim.set_velocities(v);
    sim.step(300);
    const double n = static_cast<double>(sim.num_particles());
    const dem::backend::memory_use use = Backend::memory();
    const dem::sim::deferred_stats d = sim.deferred_statistics();
    std::printf("| %s | %s | %.2f | %llu | %llu | %.1f | %.1f |\n", Backend::name, deferred ? "deferred" : "synchronous",
                static_cast<double>(sim.num_listed_pairs()) / n, static_cast<unsigned long long>(sim.num_rebuilds()),
                static_cast<unsigned long long>(d.applied), static_cast<double>(use.live - base) / n, static_cast<double>(use.peak - base) / n);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 2 && std::string(argv[2]) == "deferred") {
    particles = static_cast<std::size_t>(std::atol(argv[1]));
    std::printf("| backend | detection | listed pairs / particle | builds | of them deferred | held B / particle | peak B / particle |\n");
    std::printf("| --- | --- | --- | --- | --- | --- | --- |\n");
    for (const bool deferred : {false, true}) deferred_cost<dem::backend::emulated_device>(deferred);
    for (const bool deferred : {false, true}) deferred_cost<dem::backend::host>(deferred);
    return 0;
  }
  if (argc > 1) particles = static_cast<std::size_t>(std::atol(argv[1]));
  const bool emulated_only = argc > 2 && std::string(argv[2]) == "emulated";
  std::printf("| backend | law | precision | coordinates | listed pairs / particle | held B / particle | peak B / particle | model (bytes_per_particle + wall list + bytes_per_contact x pairs) |\n");
  std::printf("| --- | --- | --- | --- | --- | --- | --- | --- |\n");
  all<dem::backend::emulated_device>();
  if (!emulated_only) all<dem::backend::host>();
}
