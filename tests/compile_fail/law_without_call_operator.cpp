// Must not compile: the law's call operator takes the wrong arguments (no history).
#include <dem/dem.hpp>

struct my_law {
  static constexpr const char* name = "my_law";
  template <class Real>
  struct law {
    struct params { Real k; };
    using history = dem::force::no_history;
    static params make_params(const dem::material_pair&) { return {1}; }
    dem::force::contact_force<Real> operator()(const dem::force::contact<Real>& c, const params& p) const {
      return {c.normal * (p.k * c.overlap)};
    }
  };
  static double stable_time_step(const dem::material&, const dem::material_pair&, double, double) { return 1; }
};

int main() { dem::Simulator<dem::policies<dem::shape::sphere, my_law>> sim(dem::simulation_config{}); }
