#pragma once
// inspect::contacts: one pass over the selected particles and their listed contacts (through the
// incident lists the particle kernel gathers with) giving the coordination number and its
// histogram, the fabric tensor and the Love–Weber stress of the region.
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

// Whether listed pair c touched at the last evaluation: the pair kernel stores exactly zero for a
// pair out of reach, and a touching pair's force is zero only at the exact balance of a cohesive
// law or at an overlap of exactly zero. The force alone is read (not the two torques): at 1e6
// particles this pass is bound by memory traffic, and the torques would double it.
template <class Real>
DEM_HD bool touching(const sim::contact_results<Real>& r, std::uint32_t c) {
  const vec3<Real> z{0, 0, 0};
  return !(r.force[c] == z);
}

template <class P, class Region, class Filter>
struct contact_summary_kernel {
  using Space = typename P::coord_space;
  using Real = typename P::real;
  sim::particle_view<Space> p;
  typename Space::params coord;
  const std::uint32_t* pair_a;
  const std::uint32_t* pair_b;
  sim::contact_results<Real> results;
  const std::uint32_t* incident_offset;  // null when there are no contacts
  const std::uint32_t* incident_entry;
  Region where;
  Filter filter;
  DEM_HD contact_accumulator operator()(index_t i) const {
    contact_accumulator a = contact_accumulator::identity();
    accumulate(a, i);
    return a;
  }
  // a = fold(a, (*this)(i)), without building the element's accumulator (backend::host uses it).
  DEM_HD void accumulate(contact_accumulator& a, index_t i) const {
    if (!p.active[i]) return;
    const vec3d x = Space::to_world(coord, p.pos[i]);
    if (!where.contains(x) || !filter(state_of<P>(p, i, x))) return;
    // The particle's sums in registers first (the fabric is symmetric: 6 of its 9), then added once.
    // Branch-free over the entries: a listed pair out of reach has a zero force (its moment term
    // vanishes by itself) and a zero weight in the count and the fabric; a branch on it was
    // mispredicted about one time in three.
    double moment[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0}, fabric[6] = {0, 0, 0, 0, 0, 0};
    double count = 0;
    if (incident_offset)
      for (std::uint32_t k = incident_offset[i]; k < incident_offset[i + 1]; ++k) {
        const std::uint32_t e = incident_entry[k], c = e >> 1, is_b = e & 1;
        const std::uint32_t other = is_b ? pair_a[c] : pair_b[c];
        const vec3d l(Space::difference(coord, p.pos[other], p.pos[i]));  // towards the other particle
        const vec3d f = vec3d(results.force[c]) * (is_b ? -1.0 : 1.0);
        const double w = touching(results, c) ? 1.0 : 0.0;
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
    const int n = static_cast<int>(count);
    if (n) {
      for (int k = 0; k < 9; ++k) a.sum[c_moment + k] += 0.5 * moment[k];
      const int full[9] = {0, 1, 2, 1, 3, 4, 2, 4, 5};
      for (int k = 0; k < 9; ++k) a.sum[c_fabric + k] += fabric[full[k]];
    }
    a.sum[c_particles] += 1.0;
    a.sum[c_ends] += n;
    a.sum[c_histogram + (n < contact_summary::bins - 1 ? n : contact_summary::bins - 1)] += 1.0;
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
