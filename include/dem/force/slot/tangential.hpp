#pragma once
// Tangential slots: a spring-dashpot Coulomb-capped at mu times the load.
//   tangential::mindlin              total form: F_t = -k_t xi on the accumulated tangential
//                                    displacement xi (history), k_t = 8 G* a (Mindlin, no-slip; a the
//                                    contact radius) from the current overlap. xi is projected onto
//                                    the new tangent plane each step, its length kept; it does not
//                                    turn with the pair's spin. LIGGGHTS' tangential_history and
//                                    DEM-Engine's Hertz-Mindlin work this way. The default.
//   tangential::mindlin_incremental  incremental form: F_t <- R F_t - k_t v_t dt on the stored force
//                                    (history), R turning it with the contact frame: the tilt of the
//                                    normal (projection, length kept) and the mean spin
//                                    (omega_A + omega_B)/2 . n about it. When k_t falls (normal
//                                    unloading) F_t is first scaled by k_t,new / k_t,old (Thornton &
//                                    Yin 1991), so it vanishes with the contact; a rising k_t leaves it
//                                    as it is (Mindlin-Deresiewicz: at fixed tangential displacement a
//                                    larger normal load adds no tangential force). YADE's
//                                    Law2_ScGeom_MindlinPhys_Mindlin is incremental and co-rotating
//                                    (first order), without the unloading scaling.
//   tangential::linear               total form, k_t = ratio k_n (pair's tangential_stiffness_ratio)
//   tangential::none                 frictionless
// Damping c_t = c sqrt(k_t m*) with the damping slot's c. docs/force-laws.md compares the two forms.
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
  // Sliding: cap the force; the spring then carries all of it (Coulomb's law sets the whole force
  // while sliding, and the damper, which only dissipates the spring's elastic motion, has none to
  // act on). Shortening the spring to "cap minus damper" instead, as LAMMPS' granular Mindlin model
  // does, turns it against the slip when the damper alone exceeds the cap (a contact's first
  // steps): as k_t grew the next step, friction pushed along the slip, and the tangential impulse
  // of an impact in gross sliding came out 16 % short at e = 0.5 (tests/force/test_impact.cpp,
  // Chung & Ooi test 5).
  const bool sliding = f2 > f_max * f_max;
  f *= sliding ? f_max / sqrt(f2) : Real(1);
  const vec3<Real> capped = -f / (touching ? k_t : Real(1));
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

// The incremental spring of tangential::mindlin_incremental (see the top): `force` is the stored
// tangential spring force on A, `stiffness` the k_t it was last scaled with. Returns the
// tangential force on A (spring and damper, capped at f_max).
template <class Real>
struct incremental_history {
  vec3<Real> force;
  Real stiffness;
};

template <class Real>
DEM_HD inline vec3<Real> incremental_spring(const contact<Real>& c, Real k_t, Real c_t, Real f_max, incremental_history<Real>& h) {
  using std::cos;
  using std::sin;
  using std::sqrt;
  const bool touching = k_t > Real(0);
  // Turn with the contact frame: the normal's tilt (onto the new tangent plane, length kept) ...
  const Real len2 = norm2(h.force);
  vec3<Real> f_s = h.force - c.normal * dot(h.force, c.normal);
  const Real plen2 = norm2(f_s);
  f_s *= plen2 > Real(0) ? sqrt(len2 / (plen2 > Real(0) ? plen2 : Real(1))) : Real(1);
  // ... and the pair's mean spin about it (an exact rotation: the length stays).
  const Real turn = c.spin * c.dt;
  f_s = f_s * cos(turn) + cross(c.normal, f_s) * sin(turn);
  // Thornton's unloading: a falling stiffness scales the stored force down with it.
  const bool unloading = h.stiffness > k_t;
  f_s *= unloading ? k_t / (h.stiffness > Real(0) ? h.stiffness : Real(1)) : Real(1);
  f_s -= c.v_t * (k_t * c.dt);
  vec3<Real> f = f_s - c.v_t * c_t;
  const Real f2 = norm2(f);
  // Sliding: cap the force; the spring carries all of it (as in spring() above).
  const bool sliding = f2 > f_max * f_max;
  f *= sliding ? f_max / sqrt(f2) : Real(1);
  const vec3<Real> zero{0, 0, 0};
  store(h.force, select(touching, select(sliding, f, f_s), zero));
  h.stiffness = touching ? k_t : Real(0);
  return select(touching, f, zero);
}

struct mindlin_incremental {
  template <class Real>
  struct model {
    struct params {
      mindlin_stiffness::params<Real> stiffness;
      Real friction;
    };
    using history = incremental_history<Real>;
    static params make_params(const material_pair& p, const slot_setup&) {
      return {mindlin_stiffness::make<Real>(p), static_cast<Real>(p.friction)};
    }
    DEM_HD void operator()(const contact<Real>& c, const params& p, history& h, contact_state<Real>& s) const {
      using std::sqrt;
      s.tangential_stiffness = mindlin_stiffness::value(p.stiffness, s);
      s.tangential_damping = s.damping * sqrt(s.tangential_stiffness * c.mass_eff);
      s.friction = p.friction;
      s.tangential_force = incremental_spring(c, s.tangential_stiffness, s.tangential_damping, p.friction * s.load, h);
    }
    DEM_HD static Real energy(const contact<Real>&, const params& p, const history& h, const contact_state<Real>& s) {
      const Real k_t = mindlin_stiffness::value(p.stiffness, s);
      return k_t > Real(0) ? Real(0.5) * norm2(h.force) / k_t : Real(0);
    }
  };
};

using none = inactive_slot;  // frictionless

}  // namespace dem::force::tangential
