#pragma once
#include "dem/math/vec3.hpp"

namespace dem {

// Axis-aligned box, lower and upper corner, in world units (metres).
struct aabb {
  vec3d lo{0, 0, 0};
  vec3d hi{0, 0, 0};
  vec3d extent() const { return hi - lo; }
  bool contains(const vec3d& p) const {
    return p.x >= lo.x && p.y >= lo.y && p.z >= lo.z && p.x <= hi.x && p.y <= hi.y && p.z <= hi.z;
  }
  double volume() const { const vec3d e = extent(); return e.x * e.y * e.z; }
};

}  // namespace dem
