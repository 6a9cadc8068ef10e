#pragma once
// Raw-pointer views of the simulator's state, passed by value into kernels on either backend.
#include <cstdint>
#include <type_traits>

#include "dem/config.hpp"
#include "dem/material/material.hpp"
#include "dem/math/quaternion.hpp"
#include "dem/math/vec3.hpp"

namespace dem::sim {

// The per-particle rounding carry of coordinate policies that declare one (coord::voxel), or none.
struct no_carry {};
template <class Space>
struct carry_of { using type = no_carry; };
template <class Space>
  requires requires { typename Space::carry; }
struct carry_of<Space> { using type = typename Space::carry; };
template <class Space>
inline constexpr bool has_carry = !std::is_same_v<typename carry_of<Space>::type, no_carry>;

template <class Space>
struct particle_view {
  using Real = typename Space::real;
  typename Space::position* pos;
  typename Space::position* pos_ref;  // position at the last contact-list build
  vec3<Real>* vel;
  vec3<Real>* omega;
  vec3<Real>* force;                  // total force of the last evaluation (gravity included)
  vec3<Real>* torque;
  Real* radius;
  Real* inv_mass;
  Real* inv_inertia;
  material_id* material;
  std::uint32_t* id;                  // stable particle id (order of creation)
  std::uint8_t* active;               // 0 once the particle has left the domain
  std::uint32_t* plane_touch;         // bit k: touching plane k at the last evaluation
  typename carry_of<Space>::type* carry;  // null where the coordinate policy has no carry
};

// Rigid (non-spherical) bodies: orientation, principal inertia and shape of each body, and the
// shape table. Null for spheres.
template <class Real, class ShapeData>
struct rigid_view {
  quat<Real>* orientation;  // body (principal frame) -> world
  vec3<Real>* inertia;      // principal moments
  std::uint32_t* shape;     // index into `shapes`
  const ShapeData* shapes;
};

// History of one pair of rigid bodies (or of a body and a plane): one slot per possible contact
// point, and which slots were in contact at the last evaluation (only those are reset when they end).
template <class History, int Slots>
struct slot_histories {
  std::uint64_t touching;
  History slot[Slots];
};

// Index of the lowest set bit (x != 0), host and device.
DEM_HD inline int lowest_bit(std::uint64_t x) {
#if DEM_DEVICE_CODE
  return __ffsll(static_cast<long long>(x)) - 1;
#else
  return __builtin_ctzll(x);
#endif
}

// An infinite plane; particles live on the side `normal` points to. The point is kept in double
// so that positions far from the origin (coord::voxel) are measured against it exactly enough.
template <class Real>
struct plane {
  vec3d point;
  vec3<Real> normal;
  material_id material;
};

// Per-contact results written by the pair kernel and gathered by the particle kernel.
template <class Real>
struct contact_results {
  vec3<Real>* force;     // on A
  vec3<Real>* torque_a;
  vec3<Real>* torque_b;
};

// User properties of a law (force/wildcards.hpp): per-particle values and, for laws that write
// them, per-contact increments for each side. Null where the law declares no such capability.
template <class Owner, class Geometry>
struct wildcard_view {
  Owner* owner;
  Geometry* geometry;
  Owner* owner_increment;     // 2 per contact: [2c] for A, [2c + 1] for B
  Geometry* geometry_increment;
};

}  // namespace dem::sim
