#pragma once
// clump_shape<Real, MaxSpheres>: a clump template as the kernels see it: fixed arrays, trivially
// copyable, no heap, so a table of them can live in device memory. Built on the host by
// clump_template::to_shape<Real, MaxSpheres>() (which refuses more spheres than MaxSpheres).
// Everything is in the principal frame (centroid at the origin, inertia diagonal); an owner's
// orientation quaternion maps this frame to the world.
#include <cstdint>

#include "dem/config.hpp"
#include "dem/math/vec3.hpp"

namespace dem::shape {

template <class Real, int MaxSpheres>
struct clump_shape {
  static_assert(MaxSpheres >= 1, "clump_shape: MaxSpheres must be at least 1");
  static constexpr int max_spheres = MaxSpheres;

  int count;                            // spheres in use, 1..MaxSpheres
  vec3<Real> centre[MaxSpheres];        // component centres, principal frame
  Real radius[MaxSpheres];
  std::uint16_t material[MaxSpheres];   // dem::material_id of each component
  Real volume;                          // of the union of the spheres
  vec3<Real> inertia_per_density;       // principal moments I1 <= I2 <= I3 divided by density
  Real bounding_radius;                 // about the centroid, enclosing every component

  DEM_HD constexpr Real mass(Real density) const { return density * volume; }
  DEM_HD constexpr vec3<Real> principal_inertia(Real density) const { return inertia_per_density * density; }
};

}  // namespace dem::shape
