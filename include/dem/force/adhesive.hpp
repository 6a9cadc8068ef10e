#pragma once
// force::hertz_mindlin_jkr and force::hertz_mindlin_dmt — adhesive contact for fine, dry powders:
// the JKR or DMT normal slot (force/slot/adhesion.hpp) with the pair's work of adhesion, damping
// calibrated to the pair's restitution as for Hertz, the Mindlin tangential spring on the contact
// radius (non-zero at zero overlap under JKR) and EPSD rolling resistance.
#include "dem/force/compose.hpp"
#include "dem/force/slot/adhesion.hpp"

namespace dem::force {

struct hertz_mindlin_jkr : composed<normal::jkr, damping::restitution, tangential::mindlin, rolling::epsd> {
  static constexpr const char* name = "hertz_mindlin_jkr";
};

struct hertz_mindlin_dmt : composed<normal::dmt, damping::restitution, tangential::mindlin, rolling::epsd> {
  static constexpr const char* name = "hertz_mindlin_dmt";
};

}  // namespace dem::force
