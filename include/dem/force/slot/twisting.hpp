#pragma once
// Twisting slots: a couple on A about the normal opposing the relative spin w_n = (omega_rel . n).
//   twisting::marshall  spring-dashpot-slider from the tangential slot (Marshall 2009, as in
//                       LAMMPS): k_tw = k_t a^2 / 2, c_tw = c_t a^2 / 2, cap (2/3) a mu F_load.
//                       History: the twist angle.
//   twisting::none
#include <cmath>

#include "dem/config.hpp"
#include "dem/force/contact.hpp"
#include "dem/force/slot/state.hpp"
#include "dem/material/material.hpp"

namespace dem::force::twisting {

struct marshall {
  template <class Real>
  struct model {
    struct params {};
    struct history { Real angle; };
    static params make_params(const material_pair&, const slot_setup&) { return {}; }
    DEM_HD void operator()(const contact<Real>& c, const params&, history& h, contact_state<Real>& s) const {
      const Real a2 = s.contact_radius * s.contact_radius;
      const Real k = Real(0.5) * s.tangential_stiffness * a2;
      if (!(k > Real(0))) { h.angle = Real(0); return; }
      const Real c_tw = Real(0.5) * s.tangential_damping * a2;
      const Real cap = Real(2) / Real(3) * s.contact_radius * s.friction * s.load;
      const Real spin = dot(c.omega_rel, c.normal);
      Real angle = h.angle + spin * c.dt;
      Real m = -k * angle - c_tw * spin;
      if (m > cap || m < -cap) {
        m = m > Real(0) ? cap : -cap;
        angle = -(m + c_tw * spin) / k;  // slipping: spring + damper give the cap
      }
      h.angle = angle;
      s.couple += c.normal * m;
    }
    DEM_HD static Real energy(const contact<Real>&, const params&, const history& h, const contact_state<Real>& s) {
      return Real(0.25) * s.tangential_stiffness * s.contact_radius * s.contact_radius * h.angle * h.angle;
    }
  };
};

using none = inactive_slot;  // no twisting resistance

}  // namespace dem::force::twisting
