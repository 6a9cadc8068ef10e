#pragma once
// force::hertz_mindlin — Hertz normal force, damping calibrated to the pair's restitution,
// Mindlin tangential spring with per-contact history (Coulomb-capped), constant-torque rolling
// resistance. Equations: ../shared/references/PHYSICS.md, "Hertz–Mindlin with history".
// force::hertz_mindlin_epsd swaps the rolling slot for the elastic-plastic spring-dashpot;
// force::hertz_mindlin_incremental the tangential slot for the incremental, co-rotating one.
#include "dem/force/compose.hpp"

namespace dem::force {

struct hertz_mindlin
    : composed<normal::hertz, damping::restitution, tangential::mindlin, rolling::constant_torque> {
  static constexpr const char* name = "hertz_mindlin";
};

struct hertz_mindlin_epsd : composed<normal::hertz, damping::restitution, tangential::mindlin, rolling::epsd> {
  static constexpr const char* name = "hertz_mindlin_epsd";
};

// The incremental, co-rotating tangential force (Mindlin-Deresiewicz loading, Thornton's unloading)
// in place of the total-displacement spring: docs/force-laws.md, "Tangential history".
struct hertz_mindlin_incremental
    : composed<normal::hertz, damping::restitution, tangential::mindlin_incremental, rolling::constant_torque> {
  static constexpr const char* name = "hertz_mindlin_incremental";
};

}  // namespace dem::force
