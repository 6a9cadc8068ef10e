// Must not compile: the damping slot of a composition is not a slot.
#include <dem/dem.hpp>

struct my_damping {};  // no `template <class Real> struct model`

struct my_law : dem::force::composed<dem::force::normal::hertz, my_damping, dem::force::tangential::mindlin> {
  static constexpr const char* name = "my_law";
};

int main() { dem::Simulator<dem::policies<dem::shape::sphere, my_law>> sim(dem::simulation_config{}); }
