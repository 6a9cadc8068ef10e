// The step alone, timed on the tiled bed (host backend, Hertz-Mindlin, single precision): 300 steps,
// then seven runs of 200 steps; prints the median run's and the fastest run's particle-steps/s.
// Used for the before/after figures of the step in docs/performance.md, "Memory" (2026-12-07,
// later): build it against each tree and run the two in turn (the VM drifts between phases).
// Not part of the CMake build, and self-contained (it is compiled against other trees). From the
// repository root (R = the tree to measure; the copy outside the tree makes "suite.hpp" R's):
//   cp benchmarks/step_time.cpp /tmp/ && g++ -I $R/benchmarks -I $R/include -isystem /usr/include/eigen3 -O3 -march=native
//       -fno-math-errno -ffp-contract=off -fopenmp -std=gnu++20 -DNDEBUG /tmp/step_time.cpp -o /tmp/step_time -lbenchmark -lpthread
//   (one command), then: cd build/benchmarks && OMP_NUM_THREADS=2 /tmp/step_time 10000
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>
#include "suite.hpp"
using namespace bench::suite;
int main(int argc, char** argv) {
  const std::size_t n = argc > 1 ? std::atol(argv[1]) : 100000;
  using Sim = dem::Simulator<dem::policies<dem::shape::sphere, dem::force::hertz_mindlin, dem::integrate::velocity_verlet, dem::precision::single, dem::coord::floating>, dem::backend::host>;
  bed b = make_tiled_bed<dem::force::hertz_mindlin>(n);
  Sim sim(config_for(b.domain));
  sim.set_log(nullptr);
  bench::setup(sim, b.set);
  sim.step(300);
  std::vector<double> t;
  for (int k = 0; k < 7; ++k) {
    auto a = std::chrono::steady_clock::now();
    sim.step(200);
    auto c = std::chrono::steady_clock::now();
    t.push_back(std::chrono::duration<double>(c - a).count());
  }
  std::sort(t.begin(), t.end());
  std::printf("N %zu rate median %.3e min-time rate %.3e particle-steps/s, rebuilds %llu\n", n, n * 200 / t[3], n * 200 / t[0], (unsigned long long)sim.num_rebuilds());
}
