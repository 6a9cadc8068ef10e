#pragma once
// coord::floating — positions stored as a floating-point vec3 in world coordinates.
//
// A coordinate policy C provides `template <class Real, class Stored = Real> struct space` (Real:
// the kernels' type; Stored: the precision policy's `position` type, which a policy may ignore —
// coord::voxel stores integers) with:
//   using real = Real;
//   using position;                               // what is stored per particle
//   struct params;                                // built on the host from the domain box
//   static params make_params(const aabb& domain, double required_step);  // throws if coarser
//   static double resolution(const params&);      // host: worst position step in the domain (m)
//   static position from_world(const params&, vec3d);              // host: encode
//   DEM_HD static vec3d to_world(const params&, const position&);  // output, in double
//   DEM_HD static vec3<Real> difference(const params&, const position& a, const position& b); // a - b
//   DEM_HD static position displace(const params&, const position&, vec3<Real> d);
//   DEM_HD static vec3<Real> to_real(const params&, const position&);  // world position (contact points)
//   DEM_HD static vec3<Real> relative_to(const params&, const position&, const vec3d& point); // p - point, in double first
//   DEM_HD static bool inside(const params&, const position&);          // within the domain box
//   DEM_HD static void cell_of(const params&, const position&, double inv_cell, std::uint32_t dims[3], std::uint32_t out[3]);
//   DEM_HD static void cell_span(const params&, const position&, double half, double inv_cell, const std::uint32_t dims[3],
//                                std::uint32_t lo[3], std::uint32_t hi[3]);  // cells meeting the box p -/+ half
// Optionally `using carry` and `displace(params, position, d, carry&)`: per-particle state that
// carries what a displacement lost to rounding into the next one (coord::voxel); the simulator
// then stores one carry per particle.
// Every position operation of the kernels goes through these, so a fixed-point policy
// (coord::voxel) replaces this one without touching kernels.
#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>

#include "dem/config.hpp"
#include "dem/math/aabb.hpp"
#include "dem/math/vec3.hpp"

namespace dem::coord {

struct floating {
  static constexpr const char* name = "floating";

  template <class Real, class Stored = Real>
  struct space {
    using real = Real;
    using stored = Stored;
    using position = vec3<Stored>;

    struct params {
      vec3<Stored> lo, hi;   // domain box
      vec3<Stored> origin;   // grid origin (= lo)
    };

    static params make_params(const aabb& domain) { return make_params(domain, 0.0); }

    // required_step > 0: throws if the spacing of Stored at the domain's farthest corner is coarser.
    static params make_params(const aabb& domain, double required_step) {
      const double step = resolution_for(domain);
      if (required_step > 0 && !(step <= required_step)) {
        const vec3d e = domain.extent();
        std::ostringstream m;
        m << "dem::coord::floating (" << (sizeof(Stored) == 4 ? "float" : "double") << " positions, "
          << std::numeric_limits<Stored>::digits << "-bit significand): domain extent " << e.x << " x " << e.y << " x " << e.z
          << " m from " << domain.lo.x << ", " << domain.lo.y << ", " << domain.lo.z << " has a resolution of " << step
          << " m at its farthest corner, coarser than the required " << required_step
          << " m; use precision::mixed or double_ (double positions), or coord::voxel";
        throw std::invalid_argument(m.str());
      }
      return {vec3<Stored>(domain.lo), vec3<Stored>(domain.hi), vec3<Stored>(domain.lo)};
    }

    // Spacing of Stored at the largest |coordinate| of the domain box (the coarsest step in it).
    static double resolution_for(const aabb& domain) {
      double far = 0;
      for (int k = 0; k < 3; ++k) far = std::fmax(far, std::fmax(std::fabs(domain.lo[k]), std::fabs(domain.hi[k])));
      const Stored x = static_cast<Stored>(far);
      return static_cast<double>(std::nextafter(x, std::numeric_limits<Stored>::infinity()) - x);
    }
    static double resolution(const params& c) {
      return resolution_for(aabb{vec3d(c.lo), vec3d(c.hi)});
    }

    static position from_world(const params&, const vec3d& p) { return vec3<Stored>(p); }
    DEM_HD static vec3d to_world(const params&, const position& p) { return vec3d(p); }
    DEM_HD static vec3<Real> to_real(const params&, const position& p) { return vec3<Real>(p); }
    DEM_HD static vec3<Real> relative_to(const params&, const position& p, const vec3d& point) {
      return vec3<Real>(vec3d(p) - point);
    }
    // In Stored, then one rounding to Real (mixed: double positions, float contact math).
    DEM_HD static vec3<Real> difference(const params&, const position& a, const position& b) { return vec3<Real>(a - b); }
    DEM_HD static position displace(const params&, const position& p, const vec3<Real>& d) { return p + vec3<Stored>(d); }
    DEM_HD static bool inside(const params& c, const position& p) {
      // & not &&: no branches, so that the host's integration loop vectorises.
      return (p.x >= c.lo.x) & (p.y >= c.lo.y) & (p.z >= c.lo.z) & (p.x <= c.hi.x) & (p.y <= c.hi.y) & (p.z <= c.hi.z);
    }
    // Grid cell of p, clamped into the grid (positions outside the domain are deactivated elsewhere).
    DEM_HD static void cell_of(const params& c, const position& p, double inv_cell, const std::uint32_t dims[3],
                               std::uint32_t out[3]) {
      const vec3<Stored> r = p - c.origin;
      for (int k = 0; k < 3; ++k) {
        const double f = std::floor(static_cast<double>(r[k]) * inv_cell);
        const double hi = static_cast<double>(dims[k] - 1);
        out[k] = static_cast<std::uint32_t>(f >= 0.0 ? (f > hi ? hi : f) : 0.0);  // NaN (a state about to be refused) maps to 0
      }
    }
    // The cells (clamped into the grid) that meet the box p -/+ half, widened by 1e-6 of the
    // offset and half: every position whose cell_of lies in the box's cells, whatever the rounding
    // of the stored type.
    DEM_HD static void cell_span(const params& c, const position& p, double half, double inv_cell, const std::uint32_t dims[3],
                                 std::uint32_t lo[3], std::uint32_t hi[3]) {
      const vec3<Stored> r = p - c.origin;
      for (int k = 0; k < 3; ++k) {
        const double x = static_cast<double>(r[k]), h = half + 1e-6 * (std::fabs(x) + half), top = static_cast<double>(dims[k] - 1);
        const double a = std::floor((x - h) * inv_cell), b = std::floor((x + h) * inv_cell);
        lo[k] = static_cast<std::uint32_t>(a >= 0.0 ? (a > top ? top : a) : 0.0);
        hi[k] = static_cast<std::uint32_t>(b >= 0.0 ? (b > top ? top : b) : 0.0);
      }
    }
  };
};

}  // namespace dem::coord
