// Must not compile: the integrator has no post_force.
#include <dem/dem.hpp>

struct half_integrator {
  static constexpr const char* name = "half";
  static constexpr bool needs_initial_force = false;
  template <class Real>
  static dem::vec3<Real> pre_force(dem::integrate::motion<Real>&, Real) { return {0, 0, 0}; }
};

int main() {
  using P = dem::policies<dem::shape::sphere, dem::force::hertz_mindlin, half_integrator>;
  return sizeof(P);
}
