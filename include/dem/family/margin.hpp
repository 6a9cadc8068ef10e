#pragma once
// Extra detection margins per family (Simulator::set_family_margin; docs/families.md). A particle of
// a family with extra margin e is searched with radius R + e, so the list holds every pair within
// R_a + R_b + margin + e_a + e_b (and every boundary element within the boundary margin + e). A
// pair not listed then stays apart while d_a + d_b <= margin + e_a + e_b, which holds while every
// particle's displacement since the build is at most margin / 2 + e: the rebuild criterion becomes
// max over particles of (d_i - e_i) > margin / 2.
#include <cmath>
#include <cstdint>
#include <limits>

#include "dem/config.hpp"
#include "dem/sim/particle_view.hpp"

namespace dem::family {

// The radius detection searches with: R + e of the particle's family (null `family`: all in family 0).
template <class Real>
struct search_radius_kernel {
  const Real* radius;
  const std::uint32_t* family;
  const Real* margin;  // per family id
  Real* out;
  DEM_HD void operator()(index_t i) const { out[i] = radius[i] + margin[family ? family[i] : 0u]; }
};

// Per active particle, its displacement since the build less its family's extra margin (at least
// 0): the maximum is what the Verlet criterion compares with half the margin.
template <class Space>
struct displacement_beyond_margin {
  sim::particle_view<Space> p;
  typename Space::params coord;
  const typename Space::real* margin;  // per family id
  DEM_HD double operator()(index_t i) const {
    using std::sqrt;
    if (!p.active[i]) return 0.0;
    const double d = sqrt(static_cast<double>(norm2(Space::difference(coord, p.pos[i], p.pos_ref[i]))));
    const double beyond = d - static_cast<double>(margin[p.family ? p.family[i] : 0u]);
    if (beyond != beyond) return std::numeric_limits<double>::infinity();  // NaN (which a maximum drops): rebuild, as the start kernel's check does
    return beyond > 0 ? beyond : 0.0;
  }
};

}  // namespace dem::family
