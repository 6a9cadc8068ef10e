#pragma once
// force::hertz_mindlin — Hertz normal force, Mindlin tangential spring with per-contact history
// (Coulomb-capped), damping from restitution, constant-torque rolling resistance.
// Equations: ../shared/references/PHYSICS.md, "Hertz–Mindlin with history".
#include <cmath>

#include "dem/config.hpp"
#include "dem/force/contact.hpp"
#include "dem/force/restitution.hpp"
#include "dem/force/slots.hpp"
#include "dem/material/material.hpp"

namespace dem::force {

struct hertz_mindlin {
  static constexpr const char* name = "hertz_mindlin";

  template <class Real>
  struct law {
    struct params {
      Real effective_youngs;  // E*
      Real effective_shear;   // G*
      Real damping;           // 2 sqrt(5/6) |beta|, calibrated (force/restitution.hpp)
      Real friction;
      Real rolling_friction;
    };
    struct history {
      vec3<Real> shear;  // accumulated tangential displacement of A relative to B
    };

    static params make_params(const material_pair& p) {
      const double gamma = restitution::damping_for(restitution::model::hertz, p.restitution);
      return {static_cast<Real>(p.effective_youngs), static_cast<Real>(p.effective_shear),
              static_cast<Real>(2.0 * gamma / std::sqrt(6.0)), static_cast<Real>(p.friction),
              static_cast<Real>(p.rolling_friction)};
    }

    DEM_HD contact_force<Real> operator()(const contact<Real>& c, const params& p, history& h) const {
      using std::sqrt;
      const Real sqrt_rd = sqrt(c.radius_eff * c.overlap);
      const Real s_n = Real(2) * p.effective_youngs * sqrt_rd;
      const Real s_t = Real(8) * p.effective_shear * sqrt_rd;
      Real f_n = Real(2) / Real(3) * s_n * c.overlap - p.damping * sqrt(s_n * c.mass_eff) * c.v_n;
      if (f_n < Real(0)) f_n = Real(0);  // never attractive
      const vec3<Real> f_t =
          slots::tangential_spring(c, s_t, p.damping * sqrt(s_t * c.mass_eff), p.friction * f_n, h.shear);
      return {c.normal * f_n + f_t, slots::rolling_constant_torque(c, p.rolling_friction, f_n)};
    }

    // Elastic energy stored in the contact (normal and tangential springs).
    DEM_HD static Real elastic_energy(const contact<Real>& c, const params& p, const history& h) {
      using std::sqrt;
      const Real sqrt_rd = sqrt(c.radius_eff * c.overlap);
      return Real(8) / Real(15) * p.effective_youngs * sqrt_rd * c.overlap * c.overlap +
             Real(4) * p.effective_shear * sqrt_rd * norm2(h.shear);
    }
  };

  // Rayleigh time step of a particle of radius r made of material m (for a settled assembly
  // one usually takes 10–30 % of it).
  static double stable_time_step(const material& m, const material_pair&, double radius, double /*mass*/) {
    const double shear_modulus = m.youngs_modulus / (2.0 * (1.0 + m.poisson_ratio));
    return M_PI * radius * std::sqrt(m.density / shear_modulus) / (0.1631 * m.poisson_ratio + 0.8766);
  }
};

}  // namespace dem::force
