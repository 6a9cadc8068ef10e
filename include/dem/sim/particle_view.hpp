#pragma once
// Raw-pointer views of the simulator's state, passed by value into kernels on either backend.
#include <array>
#include <bit>
#include <cstddef>
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
  std::uint32_t* material;            // a material_id, stored 32 bits wide (the pair loop gathers it)
  std::uint32_t* id;                  // stable particle id (order of creation)
  std::uint32_t* active;              // 0 once the particle has left the domain (32 bits: gathered too)
  typename carry_of<Space>::type* carry;  // null where the coordinate policy has no carry
  std::uint32_t* family = nullptr;        // family ids (sim/families.hpp); null until families are used: all in family 0
  // The radius of the sphere with the particle's volume where `radius` is not it (deformable
  // spheres: `radius` is the enlarged R', this the original R); null: `radius`.
  Real* volume_radius = nullptr;
};

// v[i] read as the scalars 3i, 3i+1, 3i+2 of the array: the form GCC turns into vector gathers
// (it cannot gather with an index scaled by 12 bytes). Other element types are read as they are.
template <class T>
DEM_HD inline vec3<T> load(const vec3<T>* v, std::uint32_t i) {
  static_assert(sizeof(vec3<T>) == 3 * sizeof(T), "vec3<T> must be three T without padding");
#if DEM_DEVICE_PATHS
  return v[i];
#else
  const T* f = &v[0].x;
  const auto k = static_cast<std::int32_t>(3 * i);  // gathers take signed 32-bit indices (Simulator::max_particles)
  return {f[k], f[k + 1], f[k + 2]};
#endif
}
// Word-wise handling of small structs (law parameters, histories) on the host, where the vectoriser
// needs it: words as wide as the struct's alignment (4 bytes for float fields, 8 for double), so
// that each word maps onto one field. `word_wise<T>` says whether T qualifies.
namespace detail {
#if defined(__GNUC__)
using word32_alias = std::uint32_t __attribute__((may_alias));
using word64_alias = std::uint64_t __attribute__((may_alias));
#endif
}  // namespace detail
template <class T>
using struct_word = std::conditional_t<alignof(T) == 8, std::uint64_t, std::uint32_t>;
template <class T>
inline constexpr bool word_wise = (alignof(T) == 4 || alignof(T) == 8) && sizeof(T) % alignof(T) == 0 && std::is_trivially_copyable_v<T>;

template <class T>
DEM_HD inline T load(const T* v, std::uint32_t i) {
#if defined(__GNUC__) && !DEM_DEVICE_PATHS
  // Structs (force-law parameters) are read word by word, through a type that may alias anything,
  // for the same reason: an index scaled by their size cannot be gathered.
  if constexpr (word_wise<T> && sizeof(T) > alignof(T)) {
    constexpr auto n = static_cast<std::int32_t>(sizeof(T) / sizeof(struct_word<T>));
    const auto first = n * static_cast<std::int32_t>(i);  // signed 32-bit, as above (table sizes are checked)
    std::array<struct_word<T>, n> out;
    // may_alias types named directly (GCC ignores the attribute on a dependent type).
    if constexpr (sizeof(struct_word<T>) == 8) {
      const detail::word64_alias* w = reinterpret_cast<const detail::word64_alias*>(v);
      for (std::int32_t k = 0; k < n; ++k) out[k] = w[first + k];
    } else {
      const detail::word32_alias* w = reinterpret_cast<const detail::word32_alias*>(v);
      for (std::int32_t k = 0; k < n; ++k) out[k] = w[first + k];
    }
    return std::bit_cast<T>(out);
  }
  // Scalars too: with the unsigned index widened to 64 bits GCC cannot gather and builds each
  // vector from 16 scalar loads.
  return v[static_cast<std::int32_t>(i)];
#else
  return v[i];
#endif
}

// Rigid (non-spherical) bodies: orientation, principal inertia and shape of each body, and the
// shape table. Null for spheres.
template <class Real, class ShapeData>
struct rigid_view {
  quat<Real>* orientation;  // body (principal frame) -> world
  vec3<Real>* inertia;      // principal moments
  std::uint32_t* shape;     // index into `shapes`
  const ShapeData* shapes;
};

// History of one pair of rigid bodies (or of a body and a boundary element): one slot per possible
// contact point, and which slots were in contact at the last evaluation (only those are reset when
// they end).
template <class History, int Slots>
struct slot_histories {
  // Bit k: slot k touched at the last evaluation. 32 bits where they suffice (spheres: 1 slot), so
  // that a sphere's boundary entry under a 12-byte history takes 16 bytes, not 24.
  std::conditional_t<(Slots <= 32), std::uint32_t, std::uint64_t> touching;
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

// Spheres hold no inverse inertia (4 bytes per particle): 1 / (2/5 m r^2) = 2.5 (1/m) / r^2, from
// the inverse mass and the radius (shape::sphere::inertia; a deformable sphere's at rest, in
// `volume_radius`). Rigid bodies hold theirs.
template <class Real>
DEM_HD DEM_INLINE Real sphere_inverse_inertia(Real inv_mass, Real radius) {
  return Real(2.5) * inv_mass / (radius * radius);
}
template <class P>
DEM_HD DEM_INLINE typename P::real inverse_inertia(const particle_view<typename P::coord_space>& p, index_t i) {
  if constexpr (P::rigid) return p.inv_inertia[i];
  else if constexpr (P::deformable) return sphere_inverse_inertia(p.inv_mass[i], p.volume_radius[i]);
  else return sphere_inverse_inertia(p.inv_mass[i], p.radius[i]);
}

// Per-contact results written by the pair kernel and gathered by the particle kernel. The torques
// are two halves of one array, torque[c] on A and torque[pairs + c] on B: the pair loop then
// stores each half as a stream of vec3s, which GCC vectorises (interleaved, [2c] and [2c + 1], it
// stored each lane's six values one by one). An incident entry e (2c for A, 2c + 1 for B) finds
// its torque without a branch (on_side).
// Where the policies allow (policies::one_torque_per_pair: spheres, a law without
// torque_only_force) only A's half is stored: B's torque is T_B = -d x F - T_A, d = x_A - x_B,
// since T_A + T_B = (branch_a - branch_b) x F and branch_a - branch_b = -d for two spheres.
template <class Real>
struct contact_results {
  vec3<Real>* force;   // on A (B gets its negative)
  vec3<Real>* torque;  // 2 per contact: A's, then B's (1 per contact: A's, with one_torque_per_pair)
  std::size_t pairs;
  const std::uint32_t* pair_a;  // for B's torque, with one_torque_per_pair
  DEM_HD std::size_t on_side(std::uint32_t e) const { return (e >> 1) + (e & 1u) * pairs; }
};

// Whether a listed pair touched at its last evaluation, from its stored force, as 1 or 0 (no
// branch): the pair kernel stores exactly zero for a pair out of reach, and a touching pair's force
// is zero only at the exact balance of a cohesive law or at an overlap of exactly zero. And a count
// of them in a byte (saturating), as the contact inspectors read it (Simulator::count_touching).
template <class Real>
DEM_HD inline std::uint32_t is_touching(const vec3<Real>& f) {
  return (f.x != Real(0)) | (f.y != Real(0)) | (f.z != Real(0));
}
DEM_HD inline std::uint8_t touching_byte(std::uint32_t count) { return static_cast<std::uint8_t>(count < 255u ? count : 255u); }

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
