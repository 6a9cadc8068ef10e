#pragma once
// force::linear_spring_dashpot — F_n = k_n δ - c_n v_n (never attractive), tangential spring
// k_t = ratio k_n with damping and Coulomb cap (YADE's incremental spring), constant-torque rolling
// resistance. k_n is the pair's `normal_stiffness` when set, else 2 E_h R* with E_h the harmonic
// mean of the Young's moduli (YADE's choice: k_n = E R for two equal spheres).
#include "dem/force/compose.hpp"

namespace dem::force {

struct linear_spring_dashpot
    : composed<normal::linear, damping::restitution, tangential::linear, rolling::constant_torque> {
  static constexpr const char* name = "linear_spring_dashpot";
  static double normal_stiffness(const material_pair& p, double r_eff) { return normal::linear::stiffness(p, r_eff); }
};

}  // namespace dem::force
