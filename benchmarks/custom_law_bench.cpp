// Google Benchmark: does a user-written law cost anything compared with the same law built in?
// The settled bed (settled_bed.hpp) with three laws of identical physics (Hertz–Mindlin without
// rolling resistance; the bed's rolling friction is 0):
//   custom_law/host/by_hand/<N>   examples/04_custom_force_law/hertz_mindlin_by_hand.hpp, written from scratch
//   custom_law/host/composed/<N>  composed<normal::hertz, damping::restitution, tangential::mindlin>
//   custom_law/host/builtin/<N>   dem::force::hertz_mindlin (its constant-torque rolling slot sees mu_r = 0)
// Run with --benchmark_repetitions=5 --benchmark_enable_random_interleaving=true: the VM's
// run-to-run noise (±20 %) is larger than any difference between them.
#include <benchmark/benchmark.h>

#include "../examples/04_custom_force_law/hertz_mindlin_by_hand.hpp"
#include "settled_cache.hpp"

namespace {

using composed_hertz_mindlin =
    dem::force::composed<dem::force::normal::hertz, dem::force::damping::restitution, dem::force::tangential::mindlin>;

template <class Force>
void custom_law(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const dem::particle_set bed = bench::settled<dem::force::hertz_mindlin>(n);
  using Sim = dem::Simulator<dem::policies<dem::shape::sphere, Force>, dem::backend::host>;
  Sim sim(bench::bed_config(bench::initial_bed(n)));
  sim.set_log(nullptr);
  bench::setup(sim, bed);
  sim.step(200);
  const int steps = 100;
  for (auto _ : state) sim.step(steps);
  state.counters["particle_steps_per_s"] =
      benchmark::Counter(static_cast<double>(bed.size()) * steps * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
  state.counters["bytes_per_contact"] = static_cast<double>(Sim::bytes_per_contact());
}

}  // namespace

BENCHMARK(custom_law<hertz_mindlin_by_hand>)->Name("custom_law/host/by_hand")->Arg(10000)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(2.0);
BENCHMARK(custom_law<composed_hertz_mindlin>)->Name("custom_law/host/composed")->Arg(10000)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(2.0);
BENCHMARK(custom_law<dem::force::hertz_mindlin>)->Name("custom_law/host/builtin")->Arg(10000)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(2.0);

BENCHMARK_MAIN();
