#pragma once
// Building blocks shared by the built-in laws, in LAMMPS GRANULAR's slot order:
// normal (computed by each law) -> tangential (Coulomb-capped by the normal force) -> rolling.
#include <cmath>

#include "dem/config.hpp"
#include "dem/force/contact.hpp"
#include "dem/math/vec3.hpp"

namespace dem::force::slots {

// Tangential spring-dashpot with history `shear` (accumulated tangential displacement),
// capped at f_max = mu |F_n|. Returns the tangential force on A.
template <class Real>
DEM_HD inline vec3<Real> tangential_spring(const contact<Real>& c, Real k_t, Real c_t, Real f_max, vec3<Real>& shear) {
  using std::sqrt;
  // Rotate the stored displacement into the current tangent plane, keeping its length.
  const Real len2 = norm2(shear);
  vec3<Real> u = shear - c.normal * dot(shear, c.normal);
  const Real plen2 = norm2(u);
  if (plen2 > Real(0)) u *= sqrt(len2 / plen2);
  u += c.v_t * c.dt;
  vec3<Real> f = -(u * k_t) - c.v_t * c_t;
  const Real f2 = norm2(f);
  if (f2 > f_max * f_max) {
    // Sliding: cap the force and shorten the spring so that spring + damper give the cap.
    f *= f_max / sqrt(f2);
    u = (k_t > Real(0)) ? -(f + c.v_t * c_t) / k_t : vec3<Real>{0, 0, 0};
  }
  shear = u;
  return f;
}

// Constant-torque rolling resistance: a couple of magnitude mu_r |F_n| R* opposing the relative
// rolling rotation. Near rest it turns viscous (torque proportional to the rolling rate), with a
// rate that would remove a tenth of the relative rotation per step: a particle with up to ten such
// contacts is then still not driven past rest, which is what makes the pure constant-torque model
// jitter forever in packed beds.
template <class Real>
DEM_HD inline vec3<Real> rolling_constant_torque(const contact<Real>& c, Real mu_r, Real f_n) {
  using std::sqrt;
  if (mu_r <= Real(0)) return {0, 0, 0};
  const vec3<Real> w = c.omega_rel - c.normal * dot(c.omega_rel, c.normal);  // no twisting part
  const Real wn = sqrt(norm2(w));
  if (wn <= Real(0)) return {0, 0, 0};
  Real t = mu_r * f_n * c.radius_eff;
  const Real t_stop = Real(0.1) * wn * c.inertia_eff / c.dt;
  if (t > t_stop) t = t_stop;
  return w * (-t / wn);
}

}  // namespace dem::force::slots
