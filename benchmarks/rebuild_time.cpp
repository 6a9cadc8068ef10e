// One contact-list build timed alone on the tiled bed (host backend, Hertz-Mindlin, single precision):
// median and minimum of 15 rebuilds after 300 steps, and the median step after each. Used for the
// before/after figure of the rebuild in docs/performance.md, "Memory" (2026-12-07): build it once
// against each tree and run the two in turn in the same minutes (the VM drifts between phases).
// Not part of the CMake build, and self-contained (it is compiled against other trees). From the
// repository root (R = the tree to measure; the copy outside the tree makes "suite.hpp" R's):
//   cp benchmarks/rebuild_time.cpp /tmp/ && g++ -I $R/benchmarks -I $R/include -isystem /usr/include/eigen3 -O3 -march=native
//       -fno-math-errno -ffp-contract=off -fopenmp -std=gnu++20 -DNDEBUG /tmp/rebuild_time.cpp -o /tmp/rebuild_time -lbenchmark -lpthread
//   (one command), then: cd build/benchmarks && OMP_NUM_THREADS=2 /tmp/rebuild_time 100000
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
  std::vector<double> t, s;
  for (int k = 0; k < 15; ++k) {
    auto a = std::chrono::steady_clock::now();
    sim.rebuild_contact_list();
    auto c = std::chrono::steady_clock::now();
    sim.step(1);
    auto d = std::chrono::steady_clock::now();
    t.push_back(std::chrono::duration<double, std::milli>(c - a).count());
    s.push_back(std::chrono::duration<double, std::milli>(d - c).count());
  }
  std::sort(t.begin(), t.end()); std::sort(s.begin(), s.end());
  std::printf("N %zu pairs/p %.2f rebuild median %.2f ms (min %.2f), the step after it median %.2f ms\n", n, double(sim.num_listed_pairs()) / n, t[7], t[0], s[7]);
}
