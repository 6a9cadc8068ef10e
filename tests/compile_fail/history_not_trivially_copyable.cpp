// Must not compile: per-contact history must be trivially copyable (it is moved between lists
// and devices as raw bytes).
#include <dem/dem.hpp>

#include <vector>

struct my_law {
  static constexpr const char* name = "my_law";
  template <class Real>
  struct law {
    struct params { Real k; };
    struct history { std::vector<Real> samples; };
    static params make_params(const dem::material_pair&) { return {1}; }
    dem::force::contact_force<Real> operator()(const dem::force::contact<Real>& c, const params& p, history&) const {
      return {c.normal * (p.k * c.overlap)};
    }
  };
  static double stable_time_step(const dem::material&, const dem::material_pair&, double, double) { return 1; }
};

int main() { dem::Simulator<dem::policies<dem::shape::sphere, my_law>> sim(dem::simulation_config{}); }
