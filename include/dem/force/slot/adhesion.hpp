#pragma once
// Adhesive normal slots for fine powders, with the pair's work of adhesion Γ (`work_of_adhesion`):
//   normal::dmt  Derjaguin–Muller–Toporov: Hertz plus a constant pull 2 π Γ R* while touching; the
//                pull-off force is 2 π Γ R*, no hysteresis (stiff, small particles).
//   normal::jkr  Johnson–Kendall–Roberts: the contact radius a solves δ = a²/R* − sqrt(2 π Γ a / E*),
//                F = 4 E* a³ / (3 R*) − sqrt(8 π Γ E* a³). The contact forms at δ = 0 (the force jumps
//                to −4/3 π Γ R*), holds on while the bodies separate, and breaks at the negative overlap
//                δ_c = −3/4 (π² Γ² R* / E*²)^(1/3) (force −5/6 π Γ R* there); under a growing pull the
//                sphere leaves at the pull-off force 3/2 π Γ R*. History: whether the contact is formed.
// The JKR slot reports the Hertzian stiffness of its contact radius, 2 E* a, to the damping and
// tangential slots (the JKR tangent stiffness is infinite at the break), and as the load for the
// Coulomb limits the Hertzian part 4 E* a³ / (3 R*), which exceeds the net push by the adhesion (as
// in Thornton's F_n + 2 F_c).
#include <algorithm>
#include <cmath>
#include <limits>

#include "dem/config.hpp"
#include "dem/force/contact.hpp"
#include "dem/force/slot/state.hpp"
#include "dem/force/slot/normal.hpp"
#include "dem/material/material.hpp"

namespace dem::force::normal {

struct dmt {
  static constexpr restitution::model calibration = hertz::calibration;
  template <class Real>
  struct model {
    using base = hertz::model<Real>;
    struct params {
      typename base::params elastic;
      Real pull_per_radius;  // 2 π Γ
    };
    using history = no_history;
    static params make_params(const material_pair& p, const slot_setup& setup) {
      return {base::make_params(p, setup), static_cast<Real>(2.0 * M_PI * p.work_of_adhesion)};
    }
    DEM_HD void operator()(const contact<Real>& c, const params& p, history& h, contact_state<Real>& s) const {
      base{}(c, p.elastic, h, s);
      s.attraction = c.overlap >= Real(0) ? p.pull_per_radius * c.radius_eff : Real(0);
    }
    // Hertz's elastic energy plus the pull's potential, -F_0 δ (zero at first touch).
    DEM_HD static Real energy(const contact<Real>& c, const params& p, const history& h, const contact_state<Real>& s) {
      return c.overlap >= Real(0) ? base::energy(c, p.elastic, h, s) - p.pull_per_radius * c.radius_eff * c.overlap : Real(0);
    }
  };
  static double stable_time_step(const material& m, const material_pair& p, double radius, double mass) {
    return hertz::stable_time_step(m, p, radius, mass);
  }
};

struct jkr {
  static constexpr restitution::model calibration = hertz::calibration;
  template <class Real>
  struct model {
    struct params {
      Real effective_youngs;  // E*
      Real beta2;             // 2 π Γ / E* (m)
      Real range;             // listed up to this gap: the break gap of R* = 1 m, or the pair's cohesion_range if larger
    };
    struct history {
      Real formed;  // 1 from the first touch until the overlap falls below the break, else 0
    };
    // -δ_c = 3/4 (π² Γ² R / E*²)^(1/3) = 3/4 (R β² / 4)^(1/3), β² = 2 π Γ / E*.
    DEM_HD static Real break_gap(Real radius, Real beta2) {
      using std::cbrt;
      return Real(0.75) * cbrt(radius * beta2 * beta2 / Real(4));
    }
    static params make_params(const material_pair& p, const slot_setup&) {
      const double beta2 = p.effective_youngs > 0 ? 2.0 * M_PI * p.work_of_adhesion / p.effective_youngs : 0.0;
      const double gap = 0.75 * std::cbrt(beta2 * beta2 / 4.0);  // R* = 1 m: the break scales as R*^(1/3)
      return {static_cast<Real>(p.effective_youngs), static_cast<Real>(beta2), static_cast<Real>(std::max(gap, p.cohesion_range))};
    }
    DEM_HD static Real range(const params& p) { return p.range; }

    // The contact radius on the stable branch for overlap δ above the break: x = sqrt(a) solves
    // g(x) = x⁴/R − β x − δ = 0 with g'(x) = 4x³/R − β ≥ 0. g is convex, so Newton's method started
    // right of the root, at (R max(δ,0))^(1/4) + (R β)^(1/3), descends onto it without overshooting.
    // Near the break the root is nearly double and the convergence only linear: up to 60 steps.
    DEM_HD static Real contact_radius(Real overlap, Real radius, Real beta2) {
      using std::cbrt;
      using std::sqrt;
      const Real beta = sqrt(beta2);
      const Real x_fold = cbrt(radius * beta / Real(4));  // g'(x_fold) = 0: the break
      Real x = sqrt(sqrt(radius * (overlap > Real(0) ? overlap : Real(0)))) + cbrt(radius * beta);
      for (int k = 0; k < 60; ++k) {
        const Real x2 = x * x;
        const Real g = x2 * x2 / radius - beta * x - overlap;
        const Real slope = Real(4) * x2 * x / radius - beta;
        if (!(g > Real(0)) || !(slope > Real(0))) break;
        const Real step = g / slope;
        x -= step;
        if (step <= x * (Real(4) * std::numeric_limits<Real>::epsilon())) break;
      }
      if (x < x_fold) x = x_fold;
      return x * x;
    }

    DEM_HD void operator()(const contact<Real>& c, const params& p, history& h, contact_state<Real>& s) const {
      using std::sqrt;
      const Real radius = c.radius_eff;
      const bool formed = (c.overlap >= Real(0)) || (h.formed > Real(0) && c.overlap > -break_gap(radius, p.beta2));
      h.formed = formed ? Real(1) : Real(0);
      if (!formed) return;  // the state stays zero: no force
      const Real a = contact_radius(c.overlap, radius, p.beta2);
      s.contact_radius = a;
      s.stiffness = Real(2) * p.effective_youngs * a;
      s.elastic = Real(4) * p.effective_youngs * a * a * a / (Real(3) * radius);
      s.attraction = Real(2) * p.effective_youngs * sqrt(p.beta2 * a * a * a);
    }
  };
  static double stable_time_step(const material& m, const material_pair& p, double radius, double mass) {
    return hertz::stable_time_step(m, p, radius, mass);
  }
};

}  // namespace dem::force::normal
