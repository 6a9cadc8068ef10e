// A force law written from scratch (hertz_mindlin_by_hand.hpp, ~40 lines), run as any built-in
// law is; then the same law extended with a user property per particle ("wildcard") that the law
// writes: the frictional work each particle has received; then with material properties of its own
// (a liquid bridge's surface tension, and whether a material wets), set by name per material and
// per pair. See docs/force-laws.md.
//
//   custom_force_law [--n 800] [--time 0.3]
#include <algorithm>
#include <cstdio>
#include <string>
#include <tuple>
#include <vector>

#include <dem/dem.hpp>

#include "../common/example.hpp"
#include "hertz_mindlin_by_hand.hpp"

// Per-particle property: frictional work received (J). Increments from all contacts are summed
// once per step, in a fixed order (same bits for any thread count).
struct friction_work {
  double joules;
  DEM_HD friction_work& operator+=(const friction_work& o) { joules += o.joules; return *this; }
};

// The hand-written law plus a tally: each contact adds |F_t . v_t| dt to both bodies.
struct hertz_mindlin_with_wear {
  static constexpr const char* name = "hertz_mindlin_with_wear";
  template <class Real>
  struct law {
    using base = hertz_mindlin_by_hand::law<Real>;
    using params = typename base::params;
    using history = typename base::history;
    using owner_wildcards = friction_work;
    static constexpr bool writes_owner_wildcards = true;
    static params make_params(const dem::material_pair& p) { return base::make_params(p); }
    DEM_HD dem::force::contact_force<Real> operator()(const dem::force::contact<Real>& c, const params& p, history& h,
                                                      dem::force::wildcards<friction_work, dem::force::no_wildcards>& w) const {
      const dem::force::contact_force<Real> f = base{}(c, p, h);
      const dem::vec3<Real> f_t = f.force - c.normal * dot(f.force, c.normal);
      const double work = static_cast<double>(dot(f_t, c.v_t) < 0 ? -dot(f_t, c.v_t) : dot(f_t, c.v_t)) * c.dt;
      w.owner_increment_a.joules = 0.5 * work;  // shared between the two bodies
      w.owner_increment_b.joules = 0.5 * work;
      return f;
    }
  };
  static double stable_time_step(const dem::material& m, const dem::material_pair& mp, double r, double mass) {
    return hertz_mindlin_by_hand::stable_time_step(m, mp, r, mass);
  }
};

// The hand-written law plus a liquid bridge between wet grains: a constant capillary pull
// 2 pi gamma R* while touching (the pendular bridge at zero separation, contact angle 0). gamma and
// whether a material wets are the law's own material properties, which material_pair does not hold.
struct hertz_mindlin_wet {
  static constexpr const char* name = "hertz_mindlin_wet";
  template <class Real>
  struct law {
    using base = hertz_mindlin_by_hand::law<Real>;
    struct params {
      typename base::params dry;
      Real pull_per_radius;  // 2 pi gamma, 0 when either grain is dry
    };
    using history = typename base::history;
    struct properties {
      double surface_tension;  // N/m
      bool wets;
    };
    static constexpr auto property_fields = std::make_tuple(dem::force::property("surface_tension", &properties::surface_tension),
                                                            dem::force::property("wets", &properties::wets));
    // A bridge forms only between two wetting grains; its tension is the two liquids' mean.
    static properties mix(const properties& a, const properties& b) {
      return {0.5 * (a.surface_tension + b.surface_tension), a.wets && b.wets};
    }
    static params make_params(const dem::material_pair& p, const properties& q) {
      return {base::make_params(p), static_cast<Real>(q.wets ? 2 * 3.14159265358979 * q.surface_tension : 0.0)};
    }
    DEM_HD dem::force::contact_force<Real> operator()(const dem::force::contact<Real>& c, const params& p, history& h) const {
      dem::force::contact_force<Real> f = base{}(c, p.dry, h);
      f.force -= c.normal * (p.pull_per_radius * c.radius_eff);
      return f;
    }
  };
  static double stable_time_step(const dem::material& m, const dem::material_pair& mp, double r, double mass) {
    return hertz_mindlin_by_hand::stable_time_step(m, mp, r, mass);
  }
};

template <class Force>
using sim_type = dem::Simulator<dem::policies<dem::shape::sphere, Force>, dem::backend::host>;

template <class Sim>
void fill(Sim& sim, std::size_t n) {
  const auto glass = sim.add_material({"glass", 2500, 1e7, 0.3, 0.5, 0.5, 0.0});
  sim.add_box(sim.config().domain, glass);
  const dem::aabb d = sim.config().domain;
  sim.add_particles(dem::sample::cubic_lattice({{d.lo.x, d.lo.y, d.lo.z + 0.005}, d.hi},
                                               {.radius = 1e-3, .radius_spread = 0.1, .jitter = 3e-5, .max_count = n}),
                    glass);
}

int run(std::size_t n, double time) {
  const dem::simulation_config cfg{.domain = {{0, 0, 0}, {0.02, 0.02, 0.06}}, .dt = 1e-5};
  example::progress progress(3 * example::steps_for(time, cfg.dt));
  sim_type<hertz_mindlin_by_hand> mine(cfg);
  fill(mine, n);
  example::advance(mine, time, progress);
  std::printf("%s: %u spheres, t = %.2f s, kinetic energy %.3e J, %llu touching pairs\n", hertz_mindlin_by_hand::name,
              mine.num_particles(), mine.time(), mine.kinetic_energy(), static_cast<unsigned long long>(mine.num_touching_pairs()));

  sim_type<hertz_mindlin_with_wear> worn(cfg);
  fill(worn, n);
  example::advance(worn, time, progress);
  std::vector<friction_work> work = worn.owner_wildcards();
  double total = 0;
  for (const auto& w : work) total += w.joules;
  std::vector<std::size_t> order(work.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return work[a].joules > work[b].joules; });
  std::printf("%s: frictional work %.3e J in total; most worn particles:\n", hertz_mindlin_with_wear::name, total);
  for (std::size_t k = 0; k < std::min<std::size_t>(5, order.size()); ++k)
    std::printf("  particle %zu  %.3e J\n", order[k], work[order[k]].joules);
  std::printf("summary: n=%u kinetic_energy=%.4e friction_work=%.4e\n", worn.num_particles(), worn.kinetic_energy(), total);

  // The law's own material properties: water on glass grains (gamma = 0.072 N/m), a dry steel box.
  // The pair override thins the liquid between grain and box (a film of lower tension).
  sim_type<hertz_mindlin_wet> wet(cfg);
  dem::material glass{"wet glass", 2500, 1e7, 0.3, 0.5, 0.5, 0.0};
  glass.properties = {{"surface_tension", 0.072}, {"wets", 1}};
  dem::material steel{"steel box", 7800, 2e11, 0.3, 0.5, 0.5, 0.0};
  steel.properties = {{"surface_tension", 0.0}, {"wets", 1}};
  const auto g = wet.add_material(glass), box = wet.add_material(steel);
  wet.materials().set_pair(g, box, {.properties = {{"surface_tension", 0.02}}});
  wet.add_box(cfg.domain, box);
  const dem::aabb d = cfg.domain;
  wet.add_particles(dem::sample::cubic_lattice({{d.lo.x, d.lo.y, d.lo.z + 0.005}, d.hi},
                                               {.radius = 1e-3, .radius_spread = 0.1, .jitter = 3e-5, .max_count = n}),
                    g);
  example::advance(wet, time, progress);
  std::printf("%s: %u spheres, kinetic energy %.3e J, %llu touching pairs (dry: %llu)\n", hertz_mindlin_wet::name, wet.num_particles(),
              wet.kinetic_energy(), static_cast<unsigned long long>(wet.num_touching_pairs()),
              static_cast<unsigned long long>(mine.num_touching_pairs()));
  return 0;
}

int main(int argc, char** argv) {
  example::flags f("custom_force_law", "[--n 800] [--time 0.3]", argc, argv);
  const std::size_t n = f.count("--n", 800, 1, 1000000);
  const double time = f.number("--time", 0.3, 1e-5, 1e4);
  f.done();
  return example::guarded_main("custom_force_law", [&] { return run(n, time); });
}
