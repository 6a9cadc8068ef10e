// Must not compile: the law declares material properties of its own but no rule to mix them.
#include <dem/dem.hpp>

struct bonded {
  static constexpr const char* name = "bonded";
  template <class Real>
  struct law {
    struct params { Real k, strength; };
    using history = dem::force::no_history;
    struct properties { double bond_strength; };
    static constexpr auto property_fields = std::make_tuple(dem::force::property("bond_strength", &properties::bond_strength));
    static params make_params(const dem::material_pair&, const properties& q) { return {1, static_cast<Real>(q.bond_strength)}; }
    dem::force::contact_force<Real> operator()(const dem::force::contact<Real>& c, const params& p, history&) const {
      return {c.normal * (p.k * c.overlap)};
    }
  };
  static double stable_time_step(const dem::material&, const dem::material_pair&, double, double) { return 1; }
};

int main() { dem::Simulator<dem::policies<dem::shape::sphere, bonded>> sim(dem::simulation_config{}); }
