#pragma once
// coord::floating — positions stored as vec3<real> in world coordinates.
//
// A coordinate policy C provides `template <class Real> struct space` with:
//   using position;                               // what is stored per particle
//   struct params;                                // built on the host from the domain box
//   static params make_params(const aabb& domain);
//   static position from_world(const params&, vec3d);              // host: encode
//   DEM_HD static vec3d to_world(const params&, const position&);  // output, in double
//   DEM_HD static vec3<Real> difference(const params&, const position& a, const position& b); // a - b
//   DEM_HD static position displace(const params&, const position&, vec3<Real> d);
//   DEM_HD static vec3<Real> to_real(const params&, const position&);  // world position (contact points)
//   DEM_HD static vec3<Real> relative_to(const params&, const position&, const vec3d& point); // p - point, in double first
//   DEM_HD static bool inside(const params&, const position&);          // within the domain box
//   DEM_HD static void cell_of(const params&, const position&, double inv_cell, std::uint32_t dims[3], std::uint32_t out[3]);
// Every position operation of the kernels goes through these, so a fixed-point policy
// (coord::voxel) replaces this one without touching kernels.
#include <cmath>
#include <cstdint>

#include "dem/config.hpp"
#include "dem/math/aabb.hpp"
#include "dem/math/vec3.hpp"

namespace dem::coord {

struct floating {
  static constexpr const char* name = "floating";

  template <class Real>
  struct space {
    using real = Real;
    using position = vec3<Real>;

    struct params {
      vec3<Real> lo, hi;   // domain box
      vec3<Real> origin;   // grid origin (= lo)
    };

    static params make_params(const aabb& domain) {
      return {vec3<Real>(domain.lo), vec3<Real>(domain.hi), vec3<Real>(domain.lo)};
    }
    static position from_world(const params&, const vec3d& p) { return vec3<Real>(p); }
    DEM_HD static vec3d to_world(const params&, const position& p) { return vec3d(p); }
    DEM_HD static vec3<Real> to_real(const params&, const position& p) { return p; }
    DEM_HD static vec3<Real> relative_to(const params&, const position& p, const vec3d& point) {
      return vec3<Real>(vec3d(p) - point);
    }
    DEM_HD static vec3<Real> difference(const params&, const position& a, const position& b) { return a - b; }
    DEM_HD static position displace(const params&, const position& p, const vec3<Real>& d) { return p + d; }
    DEM_HD static bool inside(const params& c, const position& p) {
      return p.x >= c.lo.x && p.y >= c.lo.y && p.z >= c.lo.z && p.x <= c.hi.x && p.y <= c.hi.y && p.z <= c.hi.z;
    }
    // Grid cell of p, clamped into the grid (positions outside the domain are deactivated elsewhere).
    DEM_HD static void cell_of(const params& c, const position& p, double inv_cell, const std::uint32_t dims[3],
                               std::uint32_t out[3]) {
      const vec3<Real> r = p - c.origin;
      for (int k = 0; k < 3; ++k) {
        const double f = std::floor(static_cast<double>(r[k]) * inv_cell);
        const double hi = static_cast<double>(dims[k] - 1);
        out[k] = static_cast<std::uint32_t>(f < 0.0 ? 0.0 : (f > hi ? hi : f));
      }
    }
  };
};

}  // namespace dem::coord
