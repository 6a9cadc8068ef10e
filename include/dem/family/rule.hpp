#pragma once
// Families, as the kernels see them: a family id per particle (and per boundary), a rule per family
// (prescribed velocity components, an added acceleration and force), and a bit matrix of family
// pairs whose contacts are disabled. Host-side management is in family/family_set.hpp and
// sim/families.hpp; docs/families.md describes the whole feature.
//
// A prescribed component is held the kinematic way: the particle's force (torque) component is
// replaced by zero and its velocity (angular velocity) component by the prescribed value, in the
// particle kernel after the gather. Every integrator then moves that component by velocity x dt
// and leaves the velocity as it is, whichever half of the step it drifts in; the host gives each
// step's rule the mean of the prescribed velocity over the interval the integrator will drift
// through next, so the displacement is the prescribed one (Simpson's rule: exact to cubics).
#include <concepts>
#include <cstdint>

#include "dem/backend/atomic.hpp"
#include "dem/config.hpp"
#include "dem/math/vec3.hpp"

namespace dem::family {

using family_id = std::uint32_t;
inline constexpr family_id max_families = 256;
inline constexpr std::uint32_t mask_words = max_families / 64;  // 64-bit words per row of the contact matrix
// What Simulator::families() gives for an id no longer stored (lost or removed, then compacted);
// set_families accepts it there only.
inline constexpr family_id not_stored = 0xffffffffu;

// Which of x, y, z a motion prescribes (bits 0, 1, 2).
using components = std::uint32_t;
inline constexpr components none = 0, x = 1, y = 2, z = 4, xy = 3, xz = 5, yz = 6, xyz = 7;

template <class Real>
struct rule {
  std::uint32_t linear = none;   // prescribed components of the velocity
  std::uint32_t angular = none;  // and of the angular velocity
  std::uint32_t adds = 0;        // 1: acceleration or force is not zero
  std::uint32_t unused = 0;      // no padding before the vectors (the host compares tables bytewise)
  vec3<Real> velocity{0, 0, 0};  // mean over the interval the integrator drifts through next
  vec3<Real> omega{0, 0, 0};
  vec3<Real> acceleration{0, 0, 0};  // added to every particle of the family (m a)
  vec3<Real> force{0, 0, 0};         // added to every particle of the family
};

// Whether contacts between families a and b are disabled (row a of the symmetric bit matrix).
DEM_HD inline bool disabled(const std::uint64_t* mask, family_id a, family_id b) {
  return (mask[a * mask_words + (b >> 6)] >> (b & 63u)) & 1u;
}

// What pair and wall detection need: null `family` (no families in use) or null `mask` (no pair
// disabled) lists everything.
struct mask_view {
  const std::uint32_t* family = nullptr;           // per particle
  const std::uint32_t* boundary_family = nullptr;  // per boundary
  const std::uint64_t* mask = nullptr;
  DEM_HD bool active() const { return family != nullptr && mask != nullptr; }
  DEM_HD bool pair_disabled(std::uint32_t i, std::uint32_t j) const { return disabled(mask, family[i], family[j]); }
  DEM_HD bool wall_disabled(std::uint32_t i, std::uint32_t boundary) const { return disabled(mask, family[i], boundary_family[boundary]); }
};

// What the particle kernel needs: null `family` means no rule anywhere (nothing is read).
template <class Real>
struct rule_view {
  const std::uint32_t* family = nullptr;
  const rule<Real>* rules = nullptr;
  vec3<Real>* contact_force = nullptr;  // per particle: the contact load before the rule (trackers read it)
  vec3<Real>* contact_torque = nullptr;
};

// Adds the family's acceleration and force to f, then holds the prescribed components.
template <class Real, class G>
DEM_HD inline void apply(const rule<Real>& r, Real mass, vec3<G>& f, vec3<G>& t, vec3<Real>& v, vec3<Real>& w) {
  if (r.adds) f += vec3<G>(r.acceleration * mass + r.force);
  for (int k = 0; k < 3; ++k) {
    if (r.linear & (1u << k)) {
      f[k] = G(0);
      v[k] = r.velocity[k];
    }
    if (r.angular & (1u << k)) {
      t[k] = G(0);
      w[k] = r.omega[k];
    }
  }
}

// After a rigid body's rotation update (whose gyroscopic term can turn omega without a torque): the
// prescribed components again.
template <class Real>
DEM_HD inline void hold(const rule<Real>& r, vec3<Real>& v, vec3<Real>& w) {
  for (int k = 0; k < 3; ++k) {
    if (r.linear & (1u << k)) v[k] = r.velocity[k];
    if (r.angular & (1u << k)) w[k] = r.omega[k];
  }
}

// What a change-of-family predicate sees of a particle (world units, the state at the end of the
// step just taken; radius is a rigid body's bounding radius).
struct particle_state {
  vec3d position;
  vec3d velocity;
  vec3d angular_velocity;
  double radius;
  double mass;
  std::uint32_t id;
  family_id family;
  double time;
};

template <class Pred>
concept predicate = std::is_trivially_copyable_v<Pred> && requires(const Pred& p, const particle_state& s) {
  { p(s) } -> std::convertible_to<bool>;
};

struct always {
  DEM_HD bool operator()(const particle_state&) const { return true; }
};

// Moves every active particle of family `from` whose state satisfies `pred` to family `to`,
// counting the moves in *changes (the simulator's status word).
template <class Space, class Pred>
struct change_kernel {
  using Real = typename Space::real;
  const typename Space::position* pos;
  const vec3<Real>* vel;
  const vec3<Real>* omega;
  const Real* radius;
  const Real* inv_mass;
  const std::uint32_t* id;
  const std::uint32_t* active;
  typename Space::params coord;
  std::uint32_t* family;
  family_id from, to;
  Pred pred;
  double time;
  std::uint32_t* changes;
  DEM_HD void operator()(index_t i) const {
    if (!active[i] || family[i] != from) return;
    const particle_state s{Space::to_world(coord, pos[i]), vec3d(vel[i]), vec3d(omega[i]), static_cast<double>(radius[i]),
                           1.0 / static_cast<double>(inv_mass[i]), id[i], from, time};
    if (pred(s)) {
      family[i] = to;
      atomic::add(changes, 1u);
    }
  }
};

}  // namespace dem::family
