#pragma once
// inspect::contacts: the coordination number and its histogram, the fabric tensor and the
// Love–Weber stress of a selection, in one pass over the particles (which are selected, and the
// histogram of their touching counts) and one over the listed pairs (each contact once, weighted
// by its selected ends).
//
// A listed pair is a contact when the law gave it a non-zero force at the last evaluation
// (cohesive laws: within their range). Contacts with boundaries are not counted: choose a region
// away from the walls, as is usual for these averages.
//
// Love–Weber stress, tension positive: sigma_ij = (1/V) sum over selected particles p, over their
// contacts c, of 1/2 (x_other - x_p)_i f_j(on p). A contact between two selected particles adds
// (x_B - x_A) (x) f_A whatever the contact point (equal and opposite forces), so the average is exact
// for spheres and rigid bodies alike; contacts with particles outside the selection count half.
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>

#include "dem/config.hpp"
#include "dem/inspect/particle_summary.hpp"
#include "dem/inspect/region.hpp"
#include "dem/sim/particle_view.hpp"

namespace dem::inspect {

struct contact_summary {
  static constexpr int bins = 16;
  std::uint64_t particles = 0;           // selected particles (centre in the region, filter passed)
  std::uint64_t contact_ends = 0;        // their contacts, each counted once per selected particle in it
  double coordination = 0;               // contact_ends / particles (NaN when no particle)
  std::array<std::uint64_t, bins> histogram{};  // particles with k contacts; the last bin holds k >= bins - 1
  std::array<double, 9> stress{};        // Love–Weber, row-major, Pa, tension positive (NaN without a region volume)
  std::array<double, 9> force_moment{};  // sum of 1/2 (x_other - x_p) (x) f_p, N m: the stress times the volume
  std::array<double, 9> fabric{};        // mean n (x) n over the contact ends (NaN when none)
  double region_volume = 0;
  double mean_pressure() const { return -(stress[0] + stress[4] + stress[8]) / 3.0; }  // compression positive
};

namespace detail {

struct contact_accumulator {
  static constexpr int sums = 2 + contact_summary::bins + 9 + 9;
  double sum[sums];
  static DEM_HD contact_accumulator identity() {
    contact_accumulator a;
    for (int k = 0; k < sums; ++k) a.sum[k] = 0.0;
    return a;
  }
};
struct fold_contacts {
  DEM_HD contact_accumulator operator()(const contact_accumulator& a, const contact_accumulator& b) const {
    contact_accumulator r;
    for (int k = 0; k < contact_accumulator::sums; ++k) r.sum[k] = a.sum[k] + b.sum[k];
    return r;
  }
};
inline constexpr int c_particles = 0, c_ends = 1, c_histogram = 2, c_moment = c_histogram + contact_summary::bins, c_fabric = c_moment + 9;

// Whether listed pair c touched at the last evaluation (sim::is_touching). The force alone is read
// (not the torques): at 1e6 particles this pass is bound by memory traffic, and the torques would
// double it.
template <class Real>
DEM_HD bool touching(const sim::contact_results<Real>& r, std::uint32_t c) {
  return sim::is_touching(r.force[c]) != 0;
}

// Pass 1, over the particles: which are selected (`selected`, 1 or 0 per particle, for pass 2),
// their count, and the histogram of their touching contacts (counted by the step's particle
// kernel, sim/step_kernels.hpp: gathering every incident force again cost most of a step at 1e6).
template <class P, class Region, class Filter>
struct contact_selection_kernel {
  using Space = typename P::coord_space;
  sim::particle_view<Space> p;
  typename Space::params coord;
  const std::uint8_t* touching_count;  // null when there are no contacts
  std::uint32_t* selected;  // 1 or 0 per particle (32 bits: a byte would do since the pair pass stopped gathering them)
  Region where;
  Filter filter;
  DEM_HD contact_accumulator operator()(index_t i) const {
    contact_accumulator a = contact_accumulator::identity();
    accumulate(a, i);
    return a;
  }
  // a = fold(a, (*this)(i)), without building the element's accumulator (backend::host uses it).
  DEM_HD void accumulate(contact_accumulator& a, index_t i) const {
    bool in = false;
    if (p.active[i]) {
      const vec3d x = Space::to_world(coord, p.pos[i]);
      in = where.contains(x) && filter(state_of<P>(p, i, x));
    }
    selected[i] = in ? 1 : 0;
    if (!in) return;
    const int n = touching_count ? touching_count[i] : 0;
    a.sum[c_particles] += 1.0;
    a.sum[c_histogram + (n < contact_summary::bins - 1 ? n : contact_summary::bins - 1)] += 1.0;
  }
};

// Pass 2, over the listed pairs, each once: a touching pair adds its terms once per selected end.
// A's end: (x_B - x_A) (x) f_A; B's: (x_A - x_B) (x) (-f_A), the same product; the fabric's
// n (x) n is the same at both ends too. So the weight is the number of selected ends. `selected`
// is null when pass 1 selected every particle: each touching pair then weighs 2, and the pass
// reads no flags.
template <class P>
struct contact_pair_summary_kernel {
  using Space = typename P::coord_space;
  using Real = typename P::real;
  sim::particle_view<Space> p;
  typename Space::params coord;
  const std::uint32_t* pair_a;
  const std::uint32_t* pair_b;
  sim::contact_results<Real> results;
  const std::uint32_t* selected;
  DEM_HD contact_accumulator operator()(index_t c) const {
    contact_accumulator a = contact_accumulator::identity();
    accumulate(a, c);
    return a;
  }
  DEM_HD void accumulate(contact_accumulator& a, index_t c) const {
    if (!touching(results, c)) return;
    const std::uint32_t ia = pair_a[c], ib = pair_b[c];
    const double w = selected ? double(selected[ia]) + double(selected[ib]) : 2.0;
    if (w == 0.0) return;
    const vec3d l(Space::difference(coord, p.pos[ib], p.pos[ia]));  // from A to B
    const vec3d f(results.force[c]);
    const double half = 0.5 * w;
    for (int r = 0; r < 3; ++r)
      for (int s = 0; s < 3; ++s) a.sum[c_moment + 3 * r + s] += half * l[r] * f[s];
    const double d2 = norm2(l), scale = w / (d2 > 0 ? d2 : 1.0);
    const double xx = l.x * l.x * scale, xy = l.x * l.y * scale, xz = l.x * l.z * scale, yy = l.y * l.y * scale,
                 yz = l.y * l.z * scale, zz = l.z * l.z * scale;
    a.sum[c_fabric + 0] += xx, a.sum[c_fabric + 1] += xy, a.sum[c_fabric + 2] += xz;
    a.sum[c_fabric + 3] += xy, a.sum[c_fabric + 4] += yy, a.sum[c_fabric + 5] += yz;
    a.sum[c_fabric + 6] += xz, a.sum[c_fabric + 7] += yz, a.sum[c_fabric + 8] += zz;
    a.sum[c_ends] += w;
  }
#if !DEM_DEVICE_CODE
  // The host's loop over pairs [begin, end) (backend::host calls it per chunk): the same sums in
  // blocks of `block` pairs, two loops each. The first, scalar, reads each pair's indices, force
  // and both positions and writes the branch vector and the force of each pair that counts into
  // small contiguous arrays, compacted without a branch. The second sums those arrays in an
  // `omp simd` loop with contiguous loads, each SIMD lane in a fixed order, so the result does not
  // depend on the thread count; the block's sums then go into double (a lane sums at most 128
  // pairs in the run's precision, 32 with four lanes). One loop over the pairs with gathers vectorised
  // only where the compiler's tuning allows gathers (GCC's for an AMD EPYC taken as Zen 1 does not;
  // it ran scalar there): on the 1e6 bed the pair pass took 36.6 ms that way, 13.3 ms in blocks
  // (docs/performance.md, "Inspectors", 2026-12-07 night).
  static constexpr int block = 128;
  void accumulate_range(contact_accumulator& a, index_t begin, index_t end) const {
    if (selected) sum_range<false>(a, begin, end);
    else sum_range<true>(a, begin, end);
  }
  template <bool Everyone>
  void sum_range(contact_accumulator& a, index_t begin, index_t end) const {
    using T = Real;
    alignas(64) T lx[block], ly[block], lz[block], fx[block], fy[block], fz[block], ws[block];
    for (index_t b0 = begin; b0 < end; b0 += block) {
      const index_t b1 = end - b0 < index_t(block) ? end : b0 + index_t(block);
      int n = 0;  // the block's pairs that count, compacted to the front
      for (index_t c = b0; c < b1; ++c) {
        const vec3<T> f = results.force[c];
        const std::uint32_t ia = pair_a[c], ib = pair_b[c];
        const vec3<T> d = Space::difference(coord, p.pos[ib], p.pos[ia]);  // from A to B
        std::uint32_t w = 2;  // the selected ends
        if constexpr (!Everyone) w = selected[ia] + selected[ib];
        lx[n] = d.x, ly[n] = d.y, lz[n] = d.z, fx[n] = f.x, fy[n] = f.y, fz[n] = f.z;
        if constexpr (!Everyone) ws[n] = T(w);
        n += int(sim::is_touching(f) & std::uint32_t(w != 0));
      }
      T m0 = 0, m1 = 0, m2 = 0, m3 = 0, m4 = 0, m5 = 0, m6 = 0, m7 = 0, m8 = 0;
      T qxx = 0, qxy = 0, qxz = 0, qyy = 0, qyz = 0, qzz = 0, ends = 0;
#if defined(_OPENMP)
#pragma omp simd reduction(+ : m0, m1, m2, m3, m4, m5, m6, m7, m8, qxx, qxy, qxz, qyy, qyz, qzz, ends)
#endif
      for (int k = 0; k < n; ++k) {
        const T w = Everyone ? T(1) : ws[k];  // Everyone: each pair weighs 2, applied below
        const T x = lx[k], y = ly[k], z = lz[k], Fx = fx[k], Fy = fy[k], Fz = fz[k];
        const T hx = w * x, hy = w * y, hz = w * z;
        m0 += hx * Fx, m1 += hx * Fy, m2 += hx * Fz;
        m3 += hy * Fx, m4 += hy * Fy, m5 += hy * Fz;
        m6 += hz * Fx, m7 += hz * Fy, m8 += hz * Fz;
        const T d2 = x * x + y * y + z * z;
        const T scale = w / (d2 + T(d2 == T(0)));
        qxx += x * x * scale, qxy += x * y * scale, qxz += x * z * scale;
        qyy += y * y * scale, qyz += y * z * scale, qzz += z * z * scale;
        ends += w;
      }
      // The moment is 1/2 w l (x) f; Everyone's weight 2 times that half is 1.
      const double half = Everyone ? 1.0 : 0.5, weight = Everyone ? 2.0 : 1.0;
      const double m[9] = {m0, m1, m2, m3, m4, m5, m6, m7, m8}, q[9] = {qxx, qxy, qxz, qxy, qyy, qyz, qxz, qyz, qzz};
      for (int k = 0; k < 9; ++k) a.sum[c_moment + k] += half * m[k], a.sum[c_fabric + k] += weight * q[k];
      a.sum[c_ends] += weight * double(ends);
    }
  }
#endif
};

// Pass 2 for a small selection: each selected particle walks its incident entries, which costs in
// proportion to the selection where the pair pass reads every listed pair. The same sums as
// contact_pair_summary_kernel, in another order. A contact is summed once, from its A end (pair_a,
// the particle whose row of the pair list holds it) where A is selected (weighted 1 + whether B
// is), else from its B end (weight 1): an entry whose pair is listed under a selected particle
// costs a read of that particle's flag and nothing more. Those are the
// entries whose force and partner position lie far away in memory (the pair is in the A end's row):
// on the 1e6 bed's middle box the walk reading them all took 6.5–6.8 ms, 0.13 of a step, against
// 4.6–5.3 ms now (benchmarks/inspector_interleaved.cpp; docs/performance.md, "Inspectors").
template <class P>
struct contact_incident_summary_kernel {
  using Space = typename P::coord_space;
  using Real = typename P::real;
  sim::particle_view<Space> p;
  typename Space::params coord;
  const std::uint32_t* pair_a;
  const std::uint32_t* pair_b;
  sim::contact_results<Real> results;
  const std::uint32_t* incident_offset;
  const std::uint32_t* incident_entry;
  const std::uint32_t* selected;
  DEM_HD contact_accumulator operator()(index_t i) const {
    contact_accumulator a = contact_accumulator::identity();
    accumulate(a, i);
    return a;
  }
  DEM_HD void accumulate(contact_accumulator& a, index_t i) const {
    if (!selected[i]) return;
    // The particle's sums in registers first (the fabric is symmetric: 6 of its 9), then added once.
    double moment[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0}, fabric[6] = {0, 0, 0, 0, 0, 0};
    double count = 0;
    for (std::uint32_t k = incident_offset[i]; k < incident_offset[i + 1]; ++k) {
      const std::uint32_t e = incident_entry[k], c = e >> 1, is_b = e & 1;
      std::uint32_t other;
      double w;
      if (is_b) {
        other = pair_a[c];
        if (selected[other]) continue;  // summed from the A end, with both ends' weight
        w = 1.0;
      } else {
        other = pair_b[c];
        w = 1.0 + double(selected[other]);
      }
      if (!touching(results, c)) continue;
      const vec3d l(Space::difference(coord, p.pos[other], p.pos[i]));  // towards the other particle
      const vec3d f = vec3d(results.force[c]) * (is_b ? -w : w);       // on particle i, times the weight
      const double d2 = norm2(l), scale = w / (d2 > 0 ? d2 : 1.0);
      for (int r = 0; r < 3; ++r)
        for (int s = 0; s < 3; ++s) moment[3 * r + s] += l[r] * f[s];
      fabric[0] += l.x * l.x * scale;
      fabric[1] += l.x * l.y * scale;
      fabric[2] += l.x * l.z * scale;
      fabric[3] += l.y * l.y * scale;
      fabric[4] += l.y * l.z * scale;
      fabric[5] += l.z * l.z * scale;
      count += w;
    }
    for (int k = 0; k < 9; ++k) a.sum[c_moment + k] += 0.5 * moment[k];
    const int full[9] = {0, 1, 2, 1, 3, 4, 2, 4, 5};
    for (int k = 0; k < 9; ++k) a.sum[c_fabric + k] += fabric[full[k]];
    a.sum[c_ends] += count;
  }
};

inline contact_summary finish(const contact_accumulator& a, double region_volume) {
  contact_summary r;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  r.particles = static_cast<std::uint64_t>(a.sum[c_particles]);
  r.contact_ends = static_cast<std::uint64_t>(a.sum[c_ends]);
  r.coordination = r.particles ? a.sum[c_ends] / a.sum[c_particles] : nan;
  for (int k = 0; k < contact_summary::bins; ++k) r.histogram[k] = static_cast<std::uint64_t>(a.sum[c_histogram + k]);
  for (int k = 0; k < 9; ++k) {
    r.force_moment[k] = a.sum[c_moment + k];
    r.stress[k] = a.sum[c_moment + k] / region_volume;
    r.fabric[k] = r.contact_ends ? a.sum[c_fabric + k] / a.sum[c_ends] : nan;
  }
  r.region_volume = region_volume;
  return r;
}

}  // namespace detail
}  // namespace dem::inspect
