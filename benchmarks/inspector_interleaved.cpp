// The contact inspector's passes timed interleaved with a step on one tiled bed of 1e6 spheres
// (docs/performance.md, "Inspectors", 2026-12-07): the walk of 71e3854 against today's, the pair
// pass with and without flags, pass 1 alone and pass 1 with a buffer kept between calls.
// Each is run 15 times in turn; medians and minima are printed. Between processes the VM's speed
// drifts more than these effects, hence one process. Not part of the CMake build; the old walk is
// taken from git (run from the repository root):
//   git show 71e3854:include/dem/inspect/contact_summary.hpp | sed -n '/^struct contact_incident_summary_kernel/,/^};/p' |
//       sed 's/contact_incident_summary_kernel/old_incident_kernel/' > /tmp/old_incident_kernel.inc
//   g++ -I /tmp -I benchmarks -I include -isystem /usr/include/eigen3 -O3 -march=native -fno-math-errno
//       -ffp-contract=off -fopenmp -std=gnu++20 benchmarks/inspector_interleaved.cpp -o /tmp/inspector_interleaved
//       -lbenchmark -lpthread   (one command), then: OMP_NUM_THREADS=2 /tmp/inspector_interleaved
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>
#include "suite.hpp"
struct probe_tag {};
namespace dem::inspect::detail {
template <class P>
#include "old_incident_kernel.inc"  // the walk of 71e3854, see the command above
}
namespace dem::inspect {
template <>
struct access<probe_tag> {
  template <class Sim>
  static double run(Sim& s, int mode, const box& region) {
    using P = typename Sim::policy;
    using R = box;
    detail::contact_accumulator a = detail::contact_accumulator::identity();
    if (!s.count_touching_) s.count_touching();  // as inspect::contacts' first call (the steps count from then on)
    static typename Sim::template buffer<std::uint32_t> kept;
    typename Sim::template buffer<std::uint32_t> fresh;
    if (mode == 8) kept.resize(s.num_particles_); else fresh.resize(s.num_particles_);
    auto& selected = mode == 8 ? kept : fresh;
    a = s.backend_.transform_reduce(s.num_particles_,
                                    detail::contact_selection_kernel<P, R, any_particle>{s.view(), s.coord_, s.touching_count_.data(), selected.data(), region, {}},
                                    detail::fold_contacts{}, a);
    const auto identity = detail::contact_accumulator::identity();
    detail::contact_incident_summary_kernel<P> inc{s.view(), s.coord_, s.pair_a_.data(), s.pair_b_.data(), s.results(), s.incident_offset_.data(), s.incident_entry_.data(), selected.data()};
    detail::contact_pair_summary_kernel<P> pk{s.view(), s.coord_, s.pair_a_.data(), s.pair_b_.data(), s.results(), selected.data()};
    detail::old_incident_kernel<P> old{s.view(), s.coord_, s.pair_a_.data(), s.pair_b_.data(), s.results(), s.incident_offset_.data(), s.incident_entry_.data(), selected.data()};
    if (mode == 0) a = detail::fold_contacts{}(a, s.backend_.transform_reduce(s.num_particles_, old, detail::fold_contacts{}, identity));
    if (mode == 1) a = detail::fold_contacts{}(a, s.backend_.transform_reduce(s.num_particles_, inc, detail::fold_contacts{}, identity));
    if (mode == 2) a = detail::fold_contacts{}(a, s.backend_.transform_reduce(s.num_contacts_, pk, detail::fold_contacts{}, identity));
    if (mode == 3) { pk.selected = nullptr; a = detail::fold_contacts{}(a, s.backend_.transform_reduce(s.num_contacts_, pk, detail::fold_contacts{}, identity)); }
    if (mode == 4 || mode == 8) return a.sum[detail::c_ends];  // pass 1 alone
    return a.sum[detail::c_ends] + a.sum[detail::c_moment];
  }
};
}  // namespace dem::inspect
int main() {
  using Sim = bench::suite::simulator<dem::backend::host, dem::force::hertz_mindlin>;
  const std::size_t n = 1000000;
  auto b = bench::suite::make_tiled_bed<dem::force::hertz_mindlin>(n);
  Sim sim(bench::suite::config_for(b.domain));
  sim.set_log(nullptr);
  bench::setup(sim, b.set);
  sim.step(300);
  const auto all = dem::inspect::particles(sim);
  const dem::vec3d lo = all.extent_lo, hi = all.extent_hi, e = hi - lo;
  const dem::inspect::box middle{lo + e * 0.25, hi - e * 0.25}, whole{lo - e * 0.01, hi + e * 0.01};
  using A = dem::inspect::access<probe_tag>;
  const char* names[] = {"region old (scalar walk)", "region new (A-end walk)", "whole old (flags)", "whole new (no flags)", "pass 1 alone (region)", "step", "pass 1, kept buffer"};
  std::vector<std::vector<double>> t(7);
  double check[5] = {};
  for (int rep = 0; rep < 15; ++rep) {
    for (int m = 0; m < 7; ++m) {
      const auto t0 = std::chrono::steady_clock::now();
      if (m < 2) check[m] = A::run(sim, m, middle);
      else if (m < 4) check[m] = A::run(sim, m, whole);
      else if (m == 4) check[m] = A::run(sim, 4, middle);
      else if (m == 5) sim.step(1);
      else A::run(sim, 8, middle);  // m == 6
      t[m].push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() * 1e3);
    }
  }
  for (int m = 0; m < 7; ++m) {
    auto v = t[m];
    std::sort(v.begin(), v.end());
    std::printf("%-28s median %7.2f ms  min %7.2f ms\n", names[m], v[v.size() / 2], v[0]);
  }
  std::printf("checks: region %.12g %.12g, whole %.12g %.12g\n", check[0], check[1], check[2], check[3]);
}
