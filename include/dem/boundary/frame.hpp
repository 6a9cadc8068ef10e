#pragma once
// Where a boundary is and how it moves, as the kernels see it: the world position of its frame's
// origin (double, so that coord::voxel positions far from the world origin are measured against it
// exactly enough), the rotation of its frame (local -> world) and its twist. Updated on the host
// once per step for moving boundaries.
#include <cstdint>

#include "dem/config.hpp"
#include "dem/math/quaternion.hpp"
#include "dem/math/vec3.hpp"

namespace dem::boundary {

template <class Real>
struct frame {
  vec3d origin;                   // world position of the local origin
  vec3<Real> row0, row1, row2;    // rows of the rotation local -> world
  vec3<Real> velocity;            // of the boundary's point at its origin
  vec3<Real> omega;               // angular velocity
  std::uint32_t material;
  std::uint32_t moving;           // 0: velocity and omega are zero

  DEM_HD vec3<Real> to_world(const vec3<Real>& l) const { return {dot(row0, l), dot(row1, l), dot(row2, l)}; }
  // R^T w, written so that the identity rotation returns w exactly (fixed boundaries).
  DEM_HD vec3<Real> to_local(const vec3<Real>& w) const { return row0 * w.x + row1 * w.y + row2 * w.z; }
  // Velocity of the boundary's point at `rel` (world axes, from the origin).
  DEM_HD vec3<Real> velocity_at(const vec3<Real>& rel) const { return velocity + cross(omega, rel); }
};

// The frame at pose (origin, rotation) with twist (velocity of the origin, omega).
template <class Real>
frame<Real> make_frame(const vec3d& origin, const quatd& rotation, const vec3d& velocity, const vec3d& omega, std::uint32_t material) {
  frame<Real> f;
  f.origin = origin;
  const vec3d ex = rotate(rotation, vec3d{1, 0, 0}), ey = rotate(rotation, vec3d{0, 1, 0}), ez = rotate(rotation, vec3d{0, 0, 1});
  const bool identity = rotation == quatd::identity();
  // Columns ex, ey, ez; rows are their components. The identity is written exactly.
  f.row0 = identity ? vec3<Real>{1, 0, 0} : vec3<Real>(vec3d{ex.x, ey.x, ez.x});
  f.row1 = identity ? vec3<Real>{0, 1, 0} : vec3<Real>(vec3d{ex.y, ey.y, ez.y});
  f.row2 = identity ? vec3<Real>{0, 0, 1} : vec3<Real>(vec3d{ex.z, ey.z, ez.z});
  f.velocity = vec3<Real>(velocity);
  f.omega = vec3<Real>(omega);
  f.material = material;
  f.moving = (norm2(velocity) > 0 || norm2(omega) > 0) ? 1u : 0u;
  return f;
}

}  // namespace dem::boundary
