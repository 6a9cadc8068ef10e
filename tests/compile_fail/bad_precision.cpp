// Must not compile: an integer "precision".
#include <dem/dem.hpp>

struct integer_precision {
  using real = int;
  using accum = long;
  static constexpr const char* name = "int";
};

int main() {
  using P = dem::policies<dem::shape::sphere, dem::force::hertz_mindlin, dem::integrate::velocity_verlet, integer_precision>;
  return sizeof(P);
}
