#pragma once
// Tangential slots: a spring-dashpot on the accumulated tangential displacement (history),
// Coulomb-capped at mu times the load.
//   tangential::mindlin  k_t = 8 G* a (Mindlin, no-slip; a the contact radius)
//   tangential::linear   k_t = ratio k_n (pair's tangential_stiffness_ratio)
//   tangential::none     frictionless
// Damping c_t = c sqrt(k_t m*) with the damping slot's c.
#include <cmath>

#include "dem/config.hpp"
#include "dem/force/contact.hpp"
#include "dem/force/slot/state.hpp"
#include "dem/material/material.hpp"
#include "dem/math/vec3.hpp"

namespace dem::force::tangential {

// Incremental tangential spring with history `shear` (displacement of A relative to B), capped at
// f_max. Returns the tangential force on A. Shared by the tangential slots.
// Written with selects instead of branches so that loops over contacts can be vectorised; the
// results are those of the branching form bit for bit (the untaken side scales by exactly 1).
template <class Real>
DEM_HD inline vec3<Real> spring(const contact<Real>& c, Real k_t, Real c_t, Real f_max, vec3<Real>& shear) {
  using std::sqrt;
  const bool touching = k_t > Real(0);  // else inside a cohesive range: nothing to store
  // Rotate the stored displacement into the current tangent plane, keeping its length.
  const Real len2 = norm2(shear);
  vec3<Real> u = shear - c.normal * dot(shear, c.normal);
  const Real plen2 = norm2(u);
  u *= plen2 > Real(0) ? sqrt(len2 / (plen2 > Real(0) ? plen2 : Real(1))) : Real(1);
  u += c.v_t * c.dt;
  vec3<Real> f = -(u * k_t) - c.v_t * c_t;
  const Real f2 = norm2(f);
  // Sliding: cap the force and shorten the spring so that spring + damper give the cap.
  const bool sliding = f2 > f_max * f_max;
  f *= sliding ? f_max / sqrt(f2) : Real(1);
  const vec3<Real> capped = -(f + c.v_t * c_t) / (touching ? k_t : Real(1));
  const vec3<Real> zero{0, 0, 0};
  store(shear, select(touching, select(sliding, capped, u), zero));
  return select(touching, f, zero);
}

template <class Real>
struct spring_history {
  vec3<Real> shear;  // accumulated tangential displacement of A relative to B
};

template <class Stiffness>
struct spring_slot {
  template <class Real>
  struct model {
    struct params {
      typename Stiffness::template params<Real> stiffness;
      Real friction;
    };
    using history = spring_history<Real>;
    static params make_params(const material_pair& p, const slot_setup&) {
      return {Stiffness::template make<Real>(p), static_cast<Real>(p.friction)};
    }
    DEM_HD void operator()(const contact<Real>& c, const params& p, history& h, contact_state<Real>& s) const {
      using std::sqrt;
      s.tangential_stiffness = Stiffness::value(p.stiffness, s);
      s.tangential_damping = s.damping * sqrt(s.tangential_stiffness * c.mass_eff);
      s.friction = p.friction;
      s.tangential_force = spring(c, s.tangential_stiffness, s.tangential_damping, p.friction * s.load, h.shear);
    }
    DEM_HD static Real energy(const contact<Real>&, const params& p, const history& h, const contact_state<Real>& s) {
      return Real(0.5) * Stiffness::value(p.stiffness, s) * norm2(h.shear);
    }
  };
};

struct mindlin_stiffness {
  template <class Real>
  struct params { Real eight_shear; };  // 8 G*
  template <class Real>
  static params<Real> make(const material_pair& p) { return {static_cast<Real>(8.0 * p.effective_shear)}; }
  template <class Real>
  DEM_HD static Real value(const params<Real>& p, const contact_state<Real>& s) { return p.eight_shear * s.contact_radius; }
};

struct ratio_stiffness {
  template <class Real>
  struct params { Real ratio; };  // k_t / k_n
  template <class Real>
  static params<Real> make(const material_pair& p) { return {static_cast<Real>(p.tangential_stiffness_ratio)}; }
  template <class Real>
  DEM_HD static Real value(const params<Real>& p, const contact_state<Real>& s) { return p.ratio * s.stiffness; }
};

struct mindlin : spring_slot<mindlin_stiffness> {};
struct linear : spring_slot<ratio_stiffness> {};

using none = inactive_slot;  // frictionless

}  // namespace dem::force::tangential
