#pragma once
// shape::sphere — every particle is one sphere (owner and geometry coincide), polydisperse radii.
//
// A shape policy provides the mass properties of a body from its geometry and density, and the
// narrow phase that turns a candidate pair into contact geometry. Non-spherical shapes (clumps,
// polyhedra) add owner/geometry indirection and orientations; see docs/architecture.md.
#include <cmath>

#include "dem/config.hpp"
#include "dem/math/vec3.hpp"

namespace dem::shape {

struct sphere {
  static constexpr const char* name = "sphere";

  static double volume(double r) { return 4.0 / 3.0 * M_PI * r * r * r; }
  static double mass(double r, double density) { return density * volume(r); }
  // Moment of inertia about any axis through the centre of a solid sphere.
  static double inertia(double r, double mass) { return 0.4 * mass * r * r; }

  // Contact point geometry between two spheres whose centres differ by d = x_A - x_B.
  // Returns false when the gap between them is `range` or more (range = 0: when they do not
  // overlap); inside a range the overlap is negative and the contact point is mid-gap.
  template <class Real>
  struct pair_geometry {
    Real overlap;
    vec3<Real> normal;    // from B to A
    vec3<Real> branch_a;  // centre of A to contact point
    vec3<Real> branch_b;  // centre of B to contact point
  };

  template <class Real>
  DEM_HD static bool collide(const vec3<Real>& d, Real r_a, Real r_b, pair_geometry<Real>& g, Real range = Real(0)) {
    using std::sqrt;
    // The geometry is computed whether or not the spheres touch (finite either way): branch-free,
    // the loop over pairs vectorises on the host and does not diverge on a GPU.
    const Real dist2 = norm2(d);
    const Real rs = r_a + r_b;
    const Real reach = rs + range;
    const bool hit = (dist2 < reach * reach) & (dist2 > Real(0));  // `&`: both compared, no branch
    const Real dist = sqrt(dist2);
    g.overlap = rs - dist;
    g.normal = d * (Real(1) / (dist2 > Real(0) ? dist : Real(1)));  // one division, not three
    // Contact point in the middle of the overlap region.
    g.branch_a = g.normal * (-(r_a - Real(0.5) * g.overlap));
    g.branch_b = g.normal * (r_b - Real(0.5) * g.overlap);
    return hit;
  }

  // Sphere against a plane through `point` with unit `normal` pointing to the side the particles
  // live on. `centre` and `point` are in the same frame.
  template <class Real>
  DEM_HD static bool collide_plane(const vec3<Real>& centre, Real r, const vec3<Real>& point,
                                   const vec3<Real>& normal, pair_geometry<Real>& g, Real range = Real(0)) {
    const Real dist = dot(centre - point, normal);
    if (dist >= r + range) return false;
    g.overlap = r - dist;
    g.normal = normal;
    g.branch_a = normal * (-(r - Real(0.5) * g.overlap));
    g.branch_b = {0, 0, 0};
    return true;
  }
};

}  // namespace dem::shape
