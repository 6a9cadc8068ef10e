#pragma once
#include <vector>

#include "dem/math/vec3.hpp"

namespace dem {

// Particles to add to a simulation: positions and radii (and, optionally, velocities).
struct particle_set {
  std::vector<vec3d> positions;
  std::vector<double> radii;
  std::vector<vec3d> velocities;  // empty: at rest
  std::size_t size() const { return positions.size(); }
};

}  // namespace dem
