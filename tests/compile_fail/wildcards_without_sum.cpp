// Must not compile: the law writes owner wildcards whose type cannot be summed.
#include <dem/dem.hpp>

struct charge { float q; };  // no operator+=

struct my_law {
  static constexpr const char* name = "my_law";
  template <class Real>
  struct law {
    struct params { Real k; };
    using history = dem::force::no_history;
    using owner_wildcards = charge;
    static constexpr bool writes_owner_wildcards = true;
    static params make_params(const dem::material_pair&) { return {1}; }
    dem::force::contact_force<Real> operator()(const dem::force::contact<Real>& c, const params& p, history&,
                                               dem::force::wildcards<charge, dem::force::no_wildcards>& w) const {
      w.owner_increment_a.q = 1;
      return {c.normal * (p.k * c.overlap)};
    }
  };
  static double stable_time_step(const dem::material&, const dem::material_pair&, double, double) { return 1; }
};

int main() { dem::Simulator<dem::policies<dem::shape::sphere, my_law>> sim(dem::simulation_config{}); }
