#pragma once
// force::hertz_mindlin_cohesive — Hertz–Mindlin with a cohesive pull acting up to a gap
// (normal::cohesive): F_0 = 2 π w R* while touching, fading linearly to zero at the pair's
// cohesion_range. The contact detection widens its search by the largest range, so pairs are
// listed before they touch. EPSD rolling resistance and Marshall twisting, as for wet or fine
// powders where rolling and twisting resistance matter.
#include "dem/force/compose.hpp"

namespace dem::force {

struct hertz_mindlin_cohesive : composed<normal::cohesive<normal::hertz>, damping::restitution, tangential::mindlin,
                                         rolling::epsd, twisting::marshall> {
  static constexpr const char* name = "hertz_mindlin_cohesive";
};

}  // namespace dem::force
