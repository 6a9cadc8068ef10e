#pragma once
// Rolling-resistance slots: a couple on A opposing the relative rolling rotation
// w_r = (omega_A - omega_B) minus its twisting (normal) part.
//   rolling::constant_torque  |M| = mu_r R* F_n (PHYSICS.md), turning viscous near rest at the
//                             contact's natural frequency (no dt in it)
//   rolling::epsd             elastic-plastic spring-dashpot (Ai, Chen, Rotter & Ooi 2011, model C):
//                             spring k_r = 2.25 k_n mu_r^2 R*^2 on the accumulated rolling angle,
//                             capped at mu_r R* F_n, viscous part C_r = eta_r 2 sqrt(I_r k_r) while
//                             the spring is below the cap, I_r the paper's rolling inertia
//                             (contact::rolling_inertia: each body's inertia about the contact
//                             point). History: the spring torque.
//   rolling::none
#include <cmath>

#include "dem/config.hpp"
#include "dem/force/contact.hpp"
#include "dem/force/slot/state.hpp"
#include "dem/material/material.hpp"
#include "dem/math/vec3.hpp"

namespace dem::force::rolling {

template <class Real>
DEM_HD inline vec3<Real> rolling_rate(const contact<Real>& c) {
  return c.omega_rel - c.normal * dot(c.omega_rel, c.normal);
}

struct constant_torque {
  template <class Real>
  struct model {
    struct params { Real rolling_friction; };
    using history = no_history;
    static params make_params(const material_pair& p, const slot_setup&) { return {static_cast<Real>(p.rolling_friction)}; }
    // Near rest the couple turns viscous, C_r = I* sqrt(k_n / m*): a relative rolling rotation
    // below w_0 = mu_r R* F_n / C_r decays at the contact's own natural frequency. Both come from
    // the contact, not from dt (the old cap, a tenth of the rotation per step, made heaps creep at
    // a rate proportional to dt). A pure constant torque jitters forever in packed beds; a
    // viscous-only one cannot hold a static couple. rolling::epsd holds one.
    DEM_HD void operator()(const contact<Real>& c, const params& p, history&, contact_state<Real>& s) const {
      using std::sqrt;
      // Written as selects, not early returns, so that the couple stays in registers (a
      // conditionally updated couple made GCC spill it and stall on store forwarding).
      const vec3<Real> w = rolling_rate(c);
      const Real wn = sqrt(norm2(w));
      Real t = p.rolling_friction * s.load * c.radius_eff;
      const Real t_stop = wn * c.inertia_eff * sqrt(s.stiffness / c.mass_eff);
      if (t > t_stop) t = t_stop;
      const bool acts = (p.rolling_friction > Real(0)) & (wn > Real(0));  // `&`: no branch
      s.couple += w * (acts ? -t / wn : Real(0));
    }
    // The viscous rate per contact is (I*/I) sqrt(k_n/m*) <= sqrt(k_n/m*): explicit steps stay
    // monotone while the sum over a particle's contacts of sqrt(k_n/m*) dt is below 1.
  };
};

struct epsd {
  template <class Real>
  struct model {
    struct params {
      Real rolling_friction;  // mu_r
      Real damping_ratio;     // eta_r
    };
    struct history { vec3<Real> torque; };  // spring torque on A
    static params make_params(const material_pair& p, const slot_setup&) {
      return {static_cast<Real>(p.rolling_friction), static_cast<Real>(p.rolling_damping)};
    }
    DEM_HD static Real stiffness(const contact<Real>& c, const params& p, const contact_state<Real>& s) {
      return Real(2.25) * s.stiffness * p.rolling_friction * p.rolling_friction * c.radius_eff * c.radius_eff;
    }
    DEM_HD void operator()(const contact<Real>& c, const params& p, history& h, contact_state<Real>& s) const {
      using std::sqrt;
      const Real k_r = stiffness(c, p, s);
      if (!(k_r > Real(0))) { h.torque = vec3<Real>{0, 0, 0}; return; }
      const vec3<Real> w = rolling_rate(c);
      // Keep the stored torque in the current tangent plane (the normal turns as bodies roll).
      const Real len2 = norm2(h.torque);
      vec3<Real> m = h.torque - c.normal * dot(h.torque, c.normal);
      const Real plen2 = norm2(m);
      if (plen2 > Real(0)) m *= sqrt(len2 / plen2);
      m -= w * (k_r * c.dt);
      const Real cap = p.rolling_friction * c.radius_eff * s.load;
      const Real m2 = norm2(m);
      vec3<Real> damper{0, 0, 0};
      if (m2 > cap * cap) {
        m *= cap / sqrt(m2);  // fully mobilised: plastic, no viscous part (model C with f = 0)
      } else {
        damper = w * (-p.damping_ratio * Real(2) * sqrt(c.rolling_inertia * k_r));
      }
      h.torque = m;
      s.couple += m + damper;
    }
    DEM_HD static Real energy(const contact<Real>& c, const params& p, const history& h, const contact_state<Real>& s) {
      const Real k_r = stiffness(c, p, s);
      return k_r > Real(0) ? Real(0.5) * norm2(h.torque) / k_r : Real(0);
    }
  };
};

using none = inactive_slot;  // no rolling resistance

}  // namespace dem::force::rolling
