// The contact inspector's passes timed interleaved with a step on one tiled bed of 1e6 spheres
// (docs/performance.md, "Inspectors"): the walk of 71e3854 against today's (a region of 1/8), the
// pair pass of 11283f8 (one loop with gathers) against today's (blocks), over the whole bed (no
// flags) and over its lower half (flags), then each inspector as a user calls it (particles and
// contacts: the whole bed without a region, and the region), pass 1 alone, and one step.
// Each is run 15 times in turn; medians and minima are printed. Between processes the VM's speed
// drifts more than these effects, hence one process. Not part of the CMake build; the old kernels
// are taken from git (run from the repository root):
//   git show 71e3854:include/dem/inspect/contact_summary.hpp | sed -n '/^struct contact_incident_summary_kernel/,/^};/p' |
//       sed 's/contact_incident_summary_kernel/old_incident_kernel/' > /tmp/old_incident_kernel.inc
//   git show 11283f8:include/dem/inspect/contact_summary.hpp | sed -n '/^struct contact_pair_summary_kernel/,/^};/p' |
//       sed 's/contact_pair_summary_kernel/old_pair_kernel/' > /tmp/old_pair_kernel.inc
//   g++ -I /tmp -I benchmarks -I include -isystem /usr/include/eigen3 -O3 -march=native -fno-math-errno
//       -ffp-contract=off -fopenmp -std=gnu++20 benchmarks/inspector_interleaved.cpp -o /tmp/inspector_interleaved
//       -lbenchmark -lpthread   (one command), then: OMP_NUM_THREADS=2 /tmp/inspector_interleaved
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <vector>
#include "suite.hpp"
struct probe_tag {};
namespace dem::inspect::detail {
template <class P>
#include "old_incident_kernel.inc"  // the walk of 71e3854, see the commands above
template <class P>
#include "old_pair_kernel.inc"  // the pair pass of 11283f8
}  // namespace dem::inspect::detail
namespace dem::inspect {
template <>
struct access<probe_tag> {
  enum mode { region_old, region_new, whole_old, whole_new, half_old, half_new, contacts_whole, contacts_region, particles_whole, particles_region, pass_1, step };
  template <class Sim>
  static double run(Sim& s, mode m, const box& region) {
    using P = typename Sim::policy;
    // As a user calls them: the whole bed without a region, the region as a box.
    if (m == contacts_whole || m == contacts_region) {
      const auto c = m == contacts_whole ? inspect::contacts(s) : inspect::contacts(s, region);
      return double(c.contact_ends) + c.force_moment[0];
    }
    if (m == particles_whole || m == particles_region) {
      const auto c = m == particles_whole ? inspect::particles(s) : inspect::particles(s, region);
      return double(c.count) + c.kinetic_energy() + c.packing_fraction;
    }
    detail::contact_accumulator a = detail::contact_accumulator::identity();
    if (!s.count_touching_) s.count_touching();  // as inspect::contacts' first call (the steps count from then on)
    typename Sim::template buffer<std::uint32_t> selected(s.num_particles_);
    a = s.backend_.transform_reduce(s.num_particles_,
                                    detail::contact_selection_kernel<P, box, any_particle>{s.view(), s.coord_, s.touching_count_.data(), selected.data(), region, {}},
                                    detail::fold_contacts{}, a);
    if (m == pass_1) return a.sum[detail::c_particles];
    const auto identity = detail::contact_accumulator::identity();
    const std::uint32_t* flags = m == whole_old || m == whole_new ? nullptr : selected.data();
    detail::contact_accumulator b = identity;
    if (m == region_old)
      b = s.backend_.transform_reduce(s.num_particles_, detail::old_incident_kernel<P>{s.view(), s.coord_, s.pair_a_.data(), s.pair_b_.data(), s.results(), s.incident_offset_.data(), s.incident_entry_.data(), flags}, detail::fold_contacts{}, identity);
    if (m == region_new)
      b = s.backend_.transform_reduce(s.num_particles_, detail::contact_incident_summary_kernel<P>{s.view(), s.coord_, s.pair_a_.data(), s.pair_b_.data(), s.results(), s.incident_offset_.data(), s.incident_entry_.data(), flags}, detail::fold_contacts{}, identity);
    if (m == whole_old || m == half_old)
      b = s.backend_.transform_reduce(s.num_contacts_, detail::old_pair_kernel<P>{s.view(), s.coord_, s.pair_a_.data(), s.pair_b_.data(), s.results(), flags}, detail::fold_contacts{}, identity);
    if (m == whole_new || m == half_new)
      b = s.backend_.transform_reduce(s.num_contacts_, detail::contact_pair_summary_kernel<P>{s.view(), s.coord_, s.pair_a_.data(), s.pair_b_.data(), s.results(), flags}, detail::fold_contacts{}, identity);
    last[m][0] = b.sum[detail::c_ends], last[m][1] = b.sum[detail::c_moment], last[m][2] = b.sum[detail::c_fabric + 4];
    return b.sum[detail::c_ends];
  }
  static inline double last[6][3] = {};  // the pair passes' and walks' contact ends, moment xx, fabric yy sums
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
  const dem::inspect::box middle{lo + e * 0.25, hi - e * 0.25}, whole{lo - e * 0.01, hi + e * 0.01},
      lower{lo - e * 0.01, {hi.x + e.x * 0.01, hi.y + e.y * 0.01, lo.z + e.z * 0.5}};
  using A = dem::inspect::access<probe_tag>;
  const char* names[] = {"region: walk of 71e3854", "region: walk now", "whole: pair pass of 11283f8", "whole: pair pass now",
                         "lower half: pair pass of 11283f8", "lower half: pair pass now", "inspect::contacts, whole", "inspect::contacts, region",
                         "inspect::particles, whole", "inspect::particles, region", "pass 1 alone (whole)", "step"};
  constexpr int modes = 12;
  std::vector<std::vector<double>> t(modes);
  double check[modes] = {};
  for (int rep = 0; rep < 15; ++rep) {
    for (int m = 0; m < modes; ++m) {
      const auto t0 = std::chrono::steady_clock::now();
      const auto mode = static_cast<A::mode>(m);
      const bool in_middle = mode == A::region_old || mode == A::region_new || mode == A::contacts_region || mode == A::particles_region;
      if (mode == A::step) sim.step(1);
      else check[m] = A::run(sim, mode, in_middle ? middle : mode == A::half_old || mode == A::half_new ? lower : whole);
      t[m].push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() * 1e3);
    }
  }
  const double step = [&] { auto v = t[A::step]; std::sort(v.begin(), v.end()); return v[v.size() / 2]; }();
  for (int m = 0; m < modes; ++m) {
    auto v = t[m];
    std::sort(v.begin(), v.end());
    std::printf("%-34s median %7.2f ms  min %7.2f ms  median / step's %.3f\n", names[m], v[v.size() / 2], v[0], v[v.size() / 2] / step);
  }
  // Old and new must agree, from the final round (the same state): the contact ends exactly, the
  // sums of the moment's xx and the fabric's yy to float rounding (the pair passes sum in float
  // lanes, in another order).
  const char* what[] = {"region", "whole", "lower half"};
  for (int k = 0; k < 3; ++k)
    std::printf("check %-10s ends %.0f / %.0f, moment xx %.9g / %.9g (rel %.1e), fabric yy %.9g / %.9g (rel %.1e)\n", what[k], A::last[2 * k][0],
                A::last[2 * k + 1][0], A::last[2 * k][1], A::last[2 * k + 1][1], std::abs(A::last[2 * k][1] / A::last[2 * k + 1][1] - 1),
                A::last[2 * k][2], A::last[2 * k + 1][2], std::abs(A::last[2 * k][2] / A::last[2 * k + 1][2] - 1));
  (void)check;
}
