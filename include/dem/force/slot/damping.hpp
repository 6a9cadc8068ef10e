#pragma once
// Damping slots: turn the elastic normal force into the applied normal force and the load.
//   damping::restitution  F_d = -c sqrt(k m*) v_n, c calibrated so that the measured restitution
//                         equals the pair's e for the normal slot's model (force/restitution.hpp);
//                         the repulsive part never pulls: max(0, F_el + F_d)
//   damping::none         elastic only
// Both subtract the normal slot's attraction after the clamp; the load for the Coulomb limits is
// the repulsive part.
#include <cmath>

#include "dem/config.hpp"
#include "dem/force/contact.hpp"
#include "dem/force/slot/state.hpp"
#include "dem/material/material.hpp"

namespace dem::force::damping {

struct restitution {
  template <class Real>
  struct model {
    struct params { Real coefficient; };
    using history = no_history;
    static params make_params(const material_pair& p, const slot_setup& setup) {
      return {static_cast<Real>(force::restitution::coefficient(setup.calibration, p.restitution))};
    }
    DEM_HD void operator()(const contact<Real>& c, const params& p, history&, contact_state<Real>& s) const {
      using std::sqrt;
      s.damping = p.coefficient;
      Real f = s.elastic - p.coefficient * sqrt(s.stiffness * c.mass_eff) * c.v_n;
      if (f < Real(0)) f = Real(0);  // never attractive
      s.load = f;
      s.normal_force = f - s.attraction;
    }
  };
};

struct none {
  template <class Real>
  struct model {
    struct params {};
    using history = no_history;
    static params make_params(const material_pair&, const slot_setup&) { return {}; }
    DEM_HD void operator()(const contact<Real>&, const params&, history&, contact_state<Real>& s) const {
      s.damping = Real(0);
      s.load = s.elastic;
      s.normal_force = s.elastic - s.attraction;
    }
  };
};

}  // namespace dem::force::damping
