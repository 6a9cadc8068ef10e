#pragma once
// A force law written from scratch: Hertz normal force with damping, a Mindlin tangential spring
// with history and a Coulomb cap. It is the physics of dem::force::hertz_mindlin (without rolling
// resistance), so tests/force/test_custom_law.cpp checks it against the built-in law and
// benchmarks/custom_law_bench.cpp shows it runs as fast. docs/force-laws.md explains each member.
#include <cmath>

#include <dem/dem.hpp>

struct hertz_mindlin_by_hand {
  static constexpr const char* name = "hertz_mindlin_by_hand";

  template <class Real>
  struct law {
    struct params { Real youngs, shear, damping, friction; };  // E*, G*, c, mu of one material pair
    struct history { dem::vec3<Real> shear; };                 // tangential displacement, zero at first touch

    static params make_params(const dem::material_pair& p) {
      const double c = dem::force::restitution::coefficient(dem::force::restitution::model::hertz, p.restitution);
      return {Real(p.effective_youngs), Real(p.effective_shear), Real(c), Real(p.friction)};
    }

    DEM_HD dem::force::contact_force<Real> operator()(const dem::force::contact<Real>& c, const params& p, history& h) const {
      using std::sqrt;
      const Real a = sqrt(c.radius_eff * c.overlap);           // contact radius
      const Real k_n = 2 * p.youngs * a, k_t = 8 * p.shear * a;  // tangent stiffnesses
      Real f_n = Real(2) / 3 * k_n * c.overlap - p.damping * sqrt(k_n * c.mass_eff) * c.v_n;
      if (f_n < 0) f_n = 0;                                      // no pull
      // Rotate the spring into the tangent plane, stretch it, cap it at mu f_n.
      dem::vec3<Real> s = h.shear - c.normal * dot(h.shear, c.normal);
      const Real s2 = norm2(s);
      if (s2 > 0) s *= sqrt(norm2(h.shear) / s2);
      s += c.v_t * c.dt;
      const Real c_t = p.damping * sqrt(k_t * c.mass_eff);
      dem::vec3<Real> f_t = -(s * k_t) - c.v_t * c_t;
      const Real cap = p.friction * f_n;
      if (norm2(f_t) > cap * cap) {  // sliding: the spring carries the whole capped force
        f_t *= cap / sqrt(norm2(f_t));
        s = -f_t / k_t;
      }
      h.shear = s;
      return {c.normal * f_n + f_t};
    }
  };

  static double stable_time_step(const dem::material& m, const dem::material_pair&, double radius, double) {
    return dem::force::rayleigh_time_step(m, radius);
  }
};
