#pragma once
// force::hertz_mindlin — Hertz normal force, damping calibrated to the pair's restitution,
// Mindlin tangential spring with per-contact history (Coulomb-capped), constant-torque rolling
// resistance. Equations: ../shared/references/PHYSICS.md, "Hertz–Mindlin with history".
// force::hertz_mindlin_epsd swaps the rolling slot for the elastic-plastic spring-dashpot.
#include "dem/force/compose.hpp"

namespace dem::force {

struct hertz_mindlin
    : composed<normal::hertz, damping::restitution, tangential::mindlin, rolling::constant_torque> {
  static constexpr const char* name = "hertz_mindlin";
};

struct hertz_mindlin_epsd : composed<normal::hertz, damping::restitution, tangential::mindlin, rolling::epsd> {
  static constexpr const char* name = "hertz_mindlin_epsd";
};

}  // namespace dem::force
