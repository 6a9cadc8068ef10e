#pragma once
#include <cstdint>
#include <vector>

#include "dem/math/vec3.hpp"

namespace dem::io {

// Host copy of the particle state at one time, ordered by particle id (id[k] is entry k's id: once
// particles have left and storage was compacted, some ids are absent). Writers take this.
struct snapshot {
  double time = 0;
  std::uint64_t step = 0;
  std::vector<std::uint32_t> id;
  std::vector<vec3d> position, velocity, angular_velocity;
  std::vector<double> radius;
  std::vector<std::uint8_t> active;
  std::size_t size() const { return id.size(); }
};

}  // namespace dem::io
