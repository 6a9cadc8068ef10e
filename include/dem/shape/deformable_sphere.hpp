#pragma once
// shape::deformable_sphere — spheres that keep their volume as contacts flatten them (YADE's
// deformation engine, PHYSICS.md "Deformation engine"): before every force evaluation each sphere's
// radius R' is solved from its contact planes so that the enlarged sphere minus its caps has the
// volume of the original one (dem/deform/). The narrow phase is the sphere's, on the enlarged radii,
// so every force law (linear, Hertz-Mindlin, cohesive, the user's own) sees the overlap of the
// enlarged spheres. Mass and inertia stay those of the original sphere. docs/deformation.md.
#include "dem/shape/sphere.hpp"

namespace dem::shape {

struct deformable_sphere : sphere {
  static constexpr const char* name = "deformable_sphere";
  static constexpr bool deformable = true;

  // The sphere's contact geometry and the centre distance, which the radius update reads.
  template <class Real>
  struct pair_geometry : sphere::pair_geometry<Real> {
    Real dist;
  };
  template <class Real>
  DEM_HD static bool collide(const vec3<Real>& d, Real r_a, Real r_b, pair_geometry<Real>& g, Real range = Real(0)) {
    using std::sqrt;
    g.dist = sqrt(norm2(d));  // the same operations as sphere::collide's (one square root once inlined)
    return sphere::collide(d, r_a, r_b, static_cast<sphere::pair_geometry<Real>&>(g), range);
  }
};

}  // namespace dem::shape
