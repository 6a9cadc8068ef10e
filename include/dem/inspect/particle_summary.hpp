#pragma once
// inspect::particles: one pass over the particles (a backend transform_reduce, no state copy) that
// gives count, mass, volume, centre of mass, momentum, kinetic energy (translation; rotation with
// the body's inertia tensor), the highest speed, the extremes of the centres and of the particles'
// extents, and the solid volume inside the region (packing fraction).
#include <cmath>
#include <cstdint>
#include <limits>

#include "dem/config.hpp"
#include "dem/inspect/region.hpp"
#include "dem/math/vec3.hpp"
#include "dem/sim/particle_view.hpp"
#include "dem/sim/step_kernels.hpp"  // sim::kinetic_energy_of

namespace dem::inspect {

struct particle_summary {
  std::uint64_t count = 0;        // active particles whose centre is in the region and that pass the filter
  double mass = 0, volume = 0;    // of those particles (whole particles)
  vec3d centre_of_mass{0, 0, 0};  // NaN when count is 0
  vec3d momentum{0, 0, 0};
  double kinetic_translational = 0, kinetic_rotational = 0;
  double max_speed = 0;
  vec3d lowest{0, 0, 0}, highest{0, 0, 0};      // componentwise extremes of the centres (NaN when count is 0)
  vec3d extent_lo{0, 0, 0}, extent_hi{0, 0, 0};  // of centre -/+ radius (the bounding radius of a rigid body)
  // Particle volume inside the region, counting the parts of particles whose centres lie outside
  // (spheres in a box, ball or cylinder: exact); NaN for regions without a volume.
  double solid_volume = 0;
  double region_volume = 0;     // NaN where the region has none (everywhere, user regions)
  double packing_fraction = 0;  // solid_volume / region_volume
  double kinetic_energy() const { return kinetic_translational + kinetic_rotational; }
};

namespace detail {

// Sums and maxima of one pass (minima as maxima of the negatives), folded by transform_reduce.
struct particle_accumulator {
  static constexpr int sums = 12, maxima = 13;
  double sum[sums];
  double max[maxima];
  static DEM_HD particle_accumulator identity() {
    particle_accumulator a;
    for (int k = 0; k < sums; ++k) a.sum[k] = 0.0;
    for (int k = 0; k < maxima; ++k) a.max[k] = -std::numeric_limits<double>::infinity();
    return a;
  }
};
struct fold_particles {
  DEM_HD particle_accumulator operator()(const particle_accumulator& a, const particle_accumulator& b) const {
    particle_accumulator r;
    for (int k = 0; k < particle_accumulator::sums; ++k) r.sum[k] = a.sum[k] + b.sum[k];
    for (int k = 0; k < particle_accumulator::maxima; ++k) r.max[k] = a.max[k] > b.max[k] ? a.max[k] : b.max[k];
    return r;
  }
};
enum particle_sum : int { s_count, s_mass, s_volume, s_solid, s_mx, s_my, s_mz, s_px, s_py, s_pz, s_ket, s_ker };
enum particle_max : int { m_speed2, m_min_x, m_min_y = m_min_x + 1, m_max_x = m_min_x + 3, m_lo_x = m_min_x + 6, m_hi_x = m_min_x + 9 };

// The state of particle i as a filter sees it.
template <class P>
DEM_HD particle state_of(const sim::particle_view<typename P::coord_space>& p, index_t i, const vec3d& x) {
  return {x, vec3d(p.vel[i]), vec3d(p.omega[i]), static_cast<double>(p.radius[i]), 1.0 / static_cast<double>(p.inv_mass[i]), p.id[i],
          p.material[i], p.family ? p.family[i] : 0u};
}

template <class P, class Region, class Filter>
struct particle_summary_kernel {
  using Space = typename P::coord_space;
  sim::particle_view<Space> p;
  sim::rigid_view<typename P::real, typename P::shape_data> rigid;
  typename Space::params coord;
  const double* shape_volume;  // rigid bodies: volume per shape
  Region where;
  Filter filter;
  DEM_HD particle_accumulator operator()(index_t i) const {
    particle_accumulator a = particle_accumulator::identity();
    accumulate(a, i);
    return a;
  }
  // a = fold(a, (*this)(i)), without building the element's accumulator (backend::host uses it).
  DEM_HD void accumulate(particle_accumulator& a, index_t i) const {
    if (!p.active[i]) return;
    const vec3d x = Space::to_world(coord, p.pos[i]);
    const particle s = state_of<P>(p, i, x);
    if (!filter(s)) return;
    double volume;
    // A deformable sphere keeps the volume of its original radius (its solid volume in a region is
    // that sphere's, centred where it is: the caps it lost are not located).
    const double volume_radius = p.volume_radius ? static_cast<double>(p.volume_radius[i]) : s.radius;
    if constexpr (P::rigid) volume = shape_volume[rigid.shape[i]];
    else volume = sphere_volume(volume_radius);
    if constexpr (measured_region<Region>) {
      if constexpr (P::rigid) a.sum[s_solid] += where.contains(x) ? volume : 0.0;  // not exact: by centre
      else a.sum[s_solid] += where.solid_volume(x, volume_radius);
    }
    if (!where.contains(x)) return;
    const double m = s.mass;
    a.sum[s_count] += 1.0;
    a.sum[s_mass] += m;
    a.sum[s_volume] += volume;
    a.sum[s_mx] += m * x.x;
    a.sum[s_my] += m * x.y;
    a.sum[s_mz] += m * x.z;
    a.sum[s_px] += m * s.velocity.x;
    a.sum[s_py] += m * s.velocity.y;
    a.sum[s_pz] += m * s.velocity.z;
    const sim::kinetic_energy_of<P> kinetic{p, rigid};  // the simulator's own kinetic energy, in its two parts
    a.sum[s_ket] += kinetic.translational(i);
    a.sum[s_ker] += kinetic.rotational(i);
    const auto up = [&](int k, double v) { a.max[k] = a.max[k] > v ? a.max[k] : v; };
    up(m_speed2, norm2(s.velocity));
    for (int k = 0; k < 3; ++k) {
      up(m_min_x + k, -x[k]);
      up(m_max_x + k, x[k]);
      up(m_lo_x + k, -(x[k] - s.radius));
      up(m_hi_x + k, x[k] + s.radius);
    }
  }
};

inline particle_summary finish(const particle_accumulator& a, double region_volume) {
  particle_summary r;
  r.count = static_cast<std::uint64_t>(a.sum[s_count]);
  r.mass = a.sum[s_mass];
  r.volume = a.sum[s_volume];
  const double nan = std::numeric_limits<double>::quiet_NaN();
  r.centre_of_mass = r.count ? vec3d{a.sum[s_mx], a.sum[s_my], a.sum[s_mz]} / r.mass : vec3d{nan, nan, nan};
  r.momentum = {a.sum[s_px], a.sum[s_py], a.sum[s_pz]};
  r.kinetic_translational = a.sum[s_ket];
  r.kinetic_rotational = a.sum[s_ker];
  r.max_speed = r.count ? std::sqrt(a.max[m_speed2]) : 0.0;
  for (int k = 0; k < 3; ++k) {
    r.lowest[k] = r.count ? -a.max[m_min_x + k] : nan;
    r.highest[k] = r.count ? a.max[m_max_x + k] : nan;
    r.extent_lo[k] = r.count ? -a.max[m_lo_x + k] : nan;
    r.extent_hi[k] = r.count ? a.max[m_hi_x + k] : nan;
  }
  r.region_volume = region_volume;
  r.solid_volume = std::isnan(region_volume) ? nan : a.sum[s_solid];
  r.packing_fraction = r.solid_volume / region_volume;
  return r;
}

}  // namespace detail
}  // namespace dem::inspect
