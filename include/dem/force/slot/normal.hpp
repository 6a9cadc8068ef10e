#pragma once
// Normal slots: elastic normal force, its tangent stiffness and contact radius.
//   normal::hertz          F = 4/3 E* sqrt(R*) δ^1.5                 (Hertz; PHYSICS.md)
//   normal::linear         F = k_n δ, k_n from the pair or 2 E_h R*   (YADE's choice)
//   normal::cohesive<Base> Base plus a pull F_0 = 2 π w R* (DMT pull-off, w: work of adhesion),
//                          constant while touching and fading linearly to zero at a gap `range`
#include <cmath>

#include "dem/config.hpp"
#include "dem/force/contact.hpp"
#include "dem/force/slot/state.hpp"
#include "dem/force/time_step.hpp"
#include "dem/material/material.hpp"

namespace dem::force::normal {

struct hertz {
  static constexpr restitution::model calibration = restitution::model::hertz;
  template <class Real>
  struct model {
    struct params { Real effective_youngs; };
    using history = no_history;
    static params make_params(const material_pair& p, const slot_setup&) { return {static_cast<Real>(p.effective_youngs)}; }
    DEM_HD void operator()(const contact<Real>& c, const params& p, history&, contact_state<Real>& s) const {
      using std::sqrt;
      // Selects rather than an early return (branch-free slots let the pair loop vectorise): with
      // no overlap (inside a cohesive range) every output is 0, as the state starts.
      const Real overlap = c.overlap > Real(0) ? c.overlap : Real(0);
      s.contact_radius = sqrt(c.radius_eff * overlap);
      s.stiffness = Real(2) * p.effective_youngs * s.contact_radius;
      s.elastic = Real(2) / Real(3) * s.stiffness * overlap;
    }
    DEM_HD static Real energy(const contact<Real>& c, const params& p, const history&, const contact_state<Real>& s) {
      return c.overlap > Real(0) ? Real(8) / Real(15) * p.effective_youngs * s.contact_radius * c.overlap * c.overlap : Real(0);
    }
  };
  static double stable_time_step(const material& m, const material_pair&, double radius, double) {
    return rayleigh_time_step(m, radius);
  }
};

struct linear {
  static constexpr restitution::model calibration = restitution::model::linear;
  // k_n of a pair for a contact of effective radius r_eff.
  static double stiffness(const material_pair& p, double r_eff) {
    return p.normal_stiffness > 0 ? p.normal_stiffness : 2.0 * p.harmonic_youngs * r_eff;
  }
  template <class Real>
  struct model {
    struct params {
      Real fixed_stiffness;       // k_n if > 0
      Real stiffness_per_radius;  // else k_n = this * R*
    };
    using history = no_history;
    static params make_params(const material_pair& p, const slot_setup&) {
      return {static_cast<Real>(p.normal_stiffness), static_cast<Real>(2.0 * p.harmonic_youngs)};
    }
    DEM_HD static Real stiffness(const contact<Real>& c, const params& p) {
      return p.fixed_stiffness > Real(0) ? p.fixed_stiffness : p.stiffness_per_radius * c.radius_eff;
    }
    DEM_HD void operator()(const contact<Real>& c, const params& p, history&, contact_state<Real>& s) const {
      using std::sqrt;
      if (!(c.overlap > Real(0))) return;
      s.stiffness = stiffness(c, p);
      s.elastic = s.stiffness * c.overlap;
      s.contact_radius = sqrt(c.radius_eff * c.overlap);  // for twisting slots
    }
    DEM_HD static Real energy(const contact<Real>& c, const params& p, const history&, const contact_state<Real>&) {
      return c.overlap > Real(0) ? Real(0.5) * stiffness(c, p) * c.overlap * c.overlap : Real(0);
    }
  };
  // sqrt(m*/k_n) for the stiffer of a particle's contacts: with an equal particle
  // (m* = m/2, R* = r/2) and with a wall (m* = m, R* = r).
  static double stable_time_step(const material&, const material_pair& self, double radius, double mass) {
    return std::fmin(spring_time_step(0.5 * mass, stiffness(self, 0.5 * radius)), spring_time_step(mass, stiffness(self, radius)));
  }
};

template <class Base>
struct cohesive {
  static constexpr restitution::model calibration = Base::calibration;
  template <class Real>
  struct model {
    using base = typename Base::template model<Real>;
    struct params {
      typename base::params elastic;
      Real pull_per_radius;  // F_0 / R* = 2 π w
      Real range;            // gap at which the pull has faded to zero
    };
    using history = typename base::history;
    static params make_params(const material_pair& p, const slot_setup& setup) {
      return {base::make_params(p, setup), static_cast<Real>(2.0 * M_PI * p.work_of_adhesion), static_cast<Real>(p.cohesion_range)};
    }
    DEM_HD static Real range(const params& p) { return p.range; }
    DEM_HD static Real pull(const contact<Real>& c, const params& p) {
      const Real f0 = p.pull_per_radius * c.radius_eff;
      if (c.overlap >= Real(0)) return f0;
      if (!(p.range > Real(0)) || c.overlap <= -p.range) return Real(0);
      return f0 * (Real(1) + c.overlap / p.range);
    }
    DEM_HD void operator()(const contact<Real>& c, const params& p, history& h, contact_state<Real>& s) const {
      base{}(c, p.elastic, h, s);
      s.attraction = pull(c, p);
    }
    // Elastic energy plus the potential of the pull (zero at the end of the range, negative inside).
    DEM_HD static Real energy(const contact<Real>& c, const params& p, const history& h, const contact_state<Real>& s) {
      const Real f0 = p.pull_per_radius * c.radius_eff;
      Real e = base::energy(c, p.elastic, h, s);
      if (c.overlap >= Real(0)) e -= f0 * (Real(0.5) * p.range + c.overlap);
      else if (c.overlap > -p.range) e -= Real(0.5) * f0 * (c.overlap + p.range) * (c.overlap + p.range) / p.range;
      return e;
    }
  };
  static double stable_time_step(const material& m, const material_pair& self, double radius, double mass) {
    return Base::stable_time_step(m, self, radius, mass);
  }
};

}  // namespace dem::force::normal
