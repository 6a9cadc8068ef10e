#pragma once
// Stable-time-step estimates for force policies (custom laws call these from stable_time_step).
#include <cmath>

#include "dem/material/material.hpp"

namespace dem::force {

// Rayleigh time step of a sphere of radius r made of m: the period of the Rayleigh surface wave
// crossing the particle. Hertzian assemblies usually run at 10–30 % of it.
inline double rayleigh_time_step(const material& m, double radius) {
  const double shear_modulus = m.youngs_modulus / (2.0 * (1.0 + m.poisson_ratio));
  return M_PI * radius * std::sqrt(m.density / shear_modulus) / (0.1631 * m.poisson_ratio + 0.8766);
}

// sqrt(m/k): 1/π of the half-period of an undamped linear contact of mass m and stiffness k.
inline double spring_time_step(double mass, double stiffness) { return std::sqrt(mass / stiffness); }

}  // namespace dem::force
