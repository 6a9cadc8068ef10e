#pragma once
// force::linear_spring_dashpot — F_n = k_n delta - c_n v_n (never attractive), tangential
// spring k_t with damping and Coulomb cap (YADE's incremental spring), constant-torque rolling
// resistance. k_n is the pair's `normal_stiffness` when set, else 2 E_h R* with E_h the harmonic
// mean of the Young's moduli (YADE's choice: k_n = E R for two equal spheres).
#include <cmath>

#include "dem/config.hpp"
#include "dem/force/contact.hpp"
#include "dem/force/restitution.hpp"
#include "dem/force/slots.hpp"
#include "dem/material/material.hpp"

namespace dem::force {

struct linear_spring_dashpot {
  static constexpr const char* name = "linear_spring_dashpot";

  // Normal stiffness for a contact of effective radius r_eff.
  static double normal_stiffness(const material_pair& p, double r_eff) {
    return p.normal_stiffness > 0 ? p.normal_stiffness : 2.0 * p.harmonic_youngs * r_eff;
  }

  template <class Real>
  struct law {
    struct params {
      Real fixed_stiffness;      // k_n if > 0
      Real stiffness_per_radius; // k_n = this * R* otherwise
      Real stiffness_ratio;      // k_t / k_n
      Real damping;              // 2 zeta, calibrated (force/restitution.hpp)
      Real friction;
      Real rolling_friction;
    };
    struct history {
      vec3<Real> shear;
    };

    static params make_params(const material_pair& p) {
      return {static_cast<Real>(p.normal_stiffness), static_cast<Real>(2.0 * p.harmonic_youngs),
              static_cast<Real>(p.tangential_stiffness_ratio),
              static_cast<Real>(restitution::damping_for(restitution::model::linear, p.restitution)),
              static_cast<Real>(p.friction), static_cast<Real>(p.rolling_friction)};
    }

    DEM_HD static Real stiffness(const contact<Real>& c, const params& p) {
      return p.fixed_stiffness > Real(0) ? p.fixed_stiffness : p.stiffness_per_radius * c.radius_eff;
    }

    DEM_HD contact_force<Real> operator()(const contact<Real>& c, const params& p, history& h) const {
      using std::sqrt;
      const Real k_n = stiffness(c, p);
      const Real k_t = p.stiffness_ratio * k_n;
      Real f_n = k_n * c.overlap - p.damping * sqrt(k_n * c.mass_eff) * c.v_n;
      if (f_n < Real(0)) f_n = Real(0);
      const vec3<Real> f_t =
          slots::tangential_spring(c, k_t, p.damping * sqrt(k_t * c.mass_eff), p.friction * f_n, h.shear);
      return {c.normal * f_n + f_t, slots::rolling_constant_torque(c, p.rolling_friction, f_n)};
    }

    DEM_HD static Real elastic_energy(const contact<Real>& c, const params& p, const history& h) {
      const Real k_n = stiffness(c, p);
      return Real(0.5) * k_n * c.overlap * c.overlap + Real(0.5) * p.stiffness_ratio * k_n * norm2(h.shear);
    }
  };

  // sqrt(m*/k_n) for the stiffer of the two contacts a particle can have: with an equal
  // particle (m* = m/2, R* = r/2) and with a wall (m* = m, R* = r).
  static double stable_time_step(const material&, const material_pair& self, double radius, double mass) {
    const double pair = std::sqrt(0.5 * mass / normal_stiffness(self, 0.5 * radius));
    const double wall = std::sqrt(mass / normal_stiffness(self, radius));
    return pair < wall ? pair : wall;
  }
};

}  // namespace dem::force
