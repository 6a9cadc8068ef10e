#pragma once
// sim::local_arrays — the particle state where it is stored, without a copy (host backends only):
// what the Python module hands to NumPy as views, and what a C++ analysis loop can read directly.
//
// The arrays are in storage order, not by id: the Simulator sorts them by cell at every
// contact-list build, and `id[i]` is the id of the particle in slot i. They stay valid until the
// next call that steps, adds or removes particles, or loads a checkpoint (a build may exchange
// them with scratch arrays, an addition may reallocate them). Everything is read-only: writing a
// position or a velocity behind the Simulator's back would skip the checks that keep the contact
// list complete; set_velocities, trackers and the like do it safely.
#include <cstdint>

#include "dem/math/quaternion.hpp"
#include "dem/math/vec3.hpp"

namespace dem::sim {

template <class Real, class Position>
struct local_arrays {
  std::uint32_t size = 0;                  // particles (or bodies) in storage, inactive ones included
  const Position* position = nullptr;      // the coordinate policy's type (vec3<Real> for coord::floating)
  const vec3<Real>* velocity = nullptr;
  const vec3<Real>* angular_velocity = nullptr;
  const vec3<Real>* force = nullptr;       // total force of the last evaluation, gravity included
  const vec3<Real>* torque = nullptr;
  const Real* radius = nullptr;            // bounding radius for rigid bodies; the original R for deformable spheres
  const Real* deformed_radius = nullptr;   // deformable spheres: R' now; else null
  const std::uint32_t* id = nullptr;       // id of the particle in each slot
  const std::uint32_t* active = nullptr;   // 0 once the particle has left the domain or was removed
  const std::uint32_t* material = nullptr;
  const std::uint32_t* family = nullptr;   // null until families are used (all in family 0)
  const quat<Real>* orientation = nullptr; // rigid bodies: principal frame -> world; else null
};

}  // namespace dem::sim
