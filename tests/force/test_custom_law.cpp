// User-written force laws: a law from scratch against the built-in one, user properties
// ("wildcards") read and written by a law, their determinism, cohesion with a range the contact
// detection must honour, and the pair-order symmetry of history.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <utility>
#include <cstdint>
#include <vector>

#include "../../examples/04_custom_force_law/hertz_mindlin_by_hand.hpp"
#include "support/scenarios.hpp"

#if !defined(DEM_TEST_BACKEND_CUDA)
#include <omp.h>
#endif

using namespace dem_test;

namespace {

// What a contact adds to each body it touches: impulse and the number of contact evaluations.
struct tally {
  double impulse;
  std::uint32_t touches;
  DEM_HD tally& operator+=(const tally& o) {
    impulse += o.impulse;
    touches += o.touches;
    return *this;
  }
};

// A property per geometry that scales the normal force (read-only for the law).
struct stiffness_scale {
  double scale;
};

// Hertz–Mindlin that records each body's normal impulse and contact count, and scales its force
// by the mean of the two geometries' `scale` (walls: 1).
struct tallying_law {
  static constexpr const char* name = "tallying_law";
  template <class Real>
  struct law {
    using base = typename dem::force::hertz_mindlin::template law<Real>;
    using params = typename base::params;
    using history = typename base::history;
    using owner_wildcards = tally;
    using geometry_wildcards = stiffness_scale;
    static constexpr bool writes_owner_wildcards = true;
    static params make_params(const dem::material_pair& p) { return base::make_params(p); }
    DEM_HD dem::force::contact_force<Real> operator()(const dem::force::contact<Real>& c, const params& p, history& h,
                                                      dem::force::wildcards<tally, stiffness_scale>& w) const {
      dem::force::contact_force<Real> f = base{}(c, p, h);
      const Real scale = c.wall ? Real(w.geometry_a.scale) : Real(0.5 * (w.geometry_a.scale + w.geometry_b.scale));
      f.force *= scale;
      const double j = static_cast<double>(dot(f.force, c.normal)) * static_cast<double>(c.dt);
      w.owner_increment_a = {j, 1u};
      w.owner_increment_b = {j, 1u};
      return f;
    }
  };
  static double stable_time_step(const dem::material& m, const dem::material_pair& mp, double r, double mass) {
    return dem::force::hertz_mindlin::stable_time_step(m, mp, r, mass);
  }
};

using hertz_mindlin_no_rolling =
    dem::force::composed<dem::force::normal::hertz, dem::force::damping::restitution, dem::force::tangential::mindlin>;

template <class Sim>
void drop_pile(Sim& sim, int n, std::uint64_t seed = 3) {
  const auto m = sim.add_material({"m", 2500, 1e7, 0.3, 0.5, 0.5, 0.0});
  const auto& d = sim.config().domain;
  sim.add_plane(d.lo, {0, 0, 1}, m);
  sim.add_plane(d.lo, {1, 0, 0}, m);
  sim.add_plane(d.hi, {-1, 0, 0}, m);
  sim.add_plane(d.lo, {0, 1, 0}, m);
  sim.add_plane(d.hi, {0, -1, 0}, m);
  dem::sample::lattice_options o;
  o.radius = 1e-3;
  o.radius_spread = 0.2;
  o.jitter = 1e-4;
  o.spacing = 2 * 1.2e-3 * 1.01;  // tighter than the overlap-free default: a pile within 3000 steps (no overlap for these seeds)
  o.max_count = static_cast<std::size_t>(n);
  o.seed = seed;
  const dem::aabb box = d;
  sim.add_particles(dem::sample::cubic_lattice(box, o), m);
}

dem::simulation_config pile_config() {
  dem::simulation_config cfg;
  cfg.domain = {{0, 0, 0}, {0.02, 0.02, 0.08}};
  cfg.dt = 1e-5;
  return cfg;
}

}  // namespace

TEST_CASE("custom law: a law written from scratch runs and matches the same law built from slots") {
  sim_t<hertz_mindlin_by_hand> mine(pile_config());
  sim_t<hertz_mindlin_no_rolling> builtin(pile_config());
  drop_pile(mine, 300);
  drop_pile(builtin, 300);
  REQUIRE(mine.num_particles() == 300);
  mine.step(3000);  // falling, first impacts, a pile forming: tangential history matters
  builtin.step(3000);
  CHECK(builtin.num_touching_pairs() > 100);
  const auto a = mine.positions(), b = builtin.positions();
  const auto fa = mine.forces(), fb = builtin.forces();
  double max_dx = 0, max_df = 0, f_scale = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    max_dx = std::max(max_dx, dem::norm(a[i] - b[i]));
    max_df = std::max(max_df, dem::norm(fa[i] - fb[i]));
    f_scale = std::max(f_scale, dem::norm(fb[i]));
  }
  CHECK(max_dx < 1e-9);  // same physics, same operations: equal to rounding
  CHECK(max_df <= 1e-6 * f_scale);
}

TEST_CASE("wildcards: a law reads geometry properties and writes owner increments, summed once per step") {
  dem::simulation_config cfg = zero_g_config(0.01);
  cfg.dt = 1e-6;
  cfg.allow_initial_overlap = true;
  sim_t<tallying_law> sim(cfg);
  const auto m = sim.add_material({"m", 2500, 1e7, 0.3, 1.0, 0.5, 0.0});
  const double r = 1e-3;
  dem::particle_set s;
  s.positions = {{-r, 0, 0}, {r - 2e-5, 0, 0}};  // overlapping by 20 um, at rest
  s.radii = {r, r};
  sim.add_particles(s, m);
  sim.set_geometry_wildcards({{1.0}, {1.0}});
  sim.set_owner_wildcards({{0.0, 0u}, {0.0, 0u}});
  sim.step();
  const double f1 = sim.forces()[0].x;
  CHECK(f1 < 0);  // pushed away from particle 1
  // The same state with both scales doubled: double the force (settable between steps).
  sim_t<tallying_law> twice(cfg);
  twice.add_material({"m", 2500, 1e7, 0.3, 1.0, 0.5, 0.0});
  twice.add_particles(s, m);
  twice.set_geometry_wildcards({{2.0}, {2.0}});
  twice.step();
  CHECK(twice.forces()[0].x == doctest::Approx(2 * f1).epsilon(1e-3));  // after one step from the same state
  // Increments: one touch per step for each body; the impulses are equal and opposite in effect,
  // and their sum matches the momentum each body has gained.
  sim.step(99);
  const auto t = sim.owner_wildcards();
  CHECK(t[0].touches == 100u);
  CHECK(t[1].touches == 100u);
  CHECK(t[0].impulse == doctest::Approx(t[1].impulse).scale(0));
  const double mass = 2500 * 4.0 / 3.0 * M_PI * r * r * r;
  CHECK(t[0].impulse == doctest::Approx(mass * std::abs(sim.velocities()[0].x)).epsilon(0.01).scale(0));
}

TEST_CASE("wildcards: properties changed during a run take effect at the next step") {
  dem::simulation_config cfg = zero_g_config(0.01);
  cfg.dt = 1e-6;
  cfg.allow_initial_overlap = true;
  auto make = [&](sim_t<tallying_law>& sim) {
    const auto m = sim.add_material({"m", 2500, 1e7, 0.3, 1.0, 0.5, 0.0});
    dem::particle_set s;
    s.positions = {{-1e-3, 0, 0}, {1e-3 - 2e-5, 0, 0}};
    s.radii = {1e-3, 1e-3};
    sim.add_particles(s, m);
    sim.set_geometry_wildcards({{1.0}, {1.0}});
  };
  sim_t<tallying_law> a(cfg), b(cfg);
  make(a);
  make(b);
  a.step(50);
  b.step(50);
  b.set_geometry_wildcards({{0.5}, {0.5}});
  a.step();
  b.step();  // positions after this step are the same (Verlet drift uses the old forces)
  CHECK(a.positions()[0] == b.positions()[0]);
  CHECK(b.forces()[0].x == doctest::Approx(0.5 * a.forces()[0].x).epsilon(1e-12));
  CHECK(b.forces()[0].x != 0);
}

TEST_CASE("wildcards: increments from wall contacts count for the particle, walls have neutral properties") {
  dem::simulation_config cfg = zero_g_config(0.01);
  cfg.gravity = {0, 0, -9.81};
  cfg.dt = 1e-5;
  sim_t<tallying_law> sim(cfg);
  const auto m = sim.add_material({"m", 2500, 1e7, 0.3, 0.5, 0.5, 0.0});
  sim.add_plane({0, 0, 0}, {0, 0, 1}, m);
  const double r = 1e-3;
  dem::particle_set s;
  s.positions = {{0, 0, r * 0.999}};
  s.radii = {r};
  sim.add_particles(s, m);
  sim.set_geometry_wildcards({{1.0}});
  sim.step(2000);  // rests on the floor from the start
  const auto t = sim.owner_wildcards();
  CHECK(t[0].touches == 2000u);
  const double weight = 2500 * 4.0 / 3.0 * M_PI * r * r * r * 9.81;
  CHECK(t[0].impulse == doctest::Approx(weight * 2000 * cfg.dt).epsilon(0.02).scale(0));
}

#if !defined(DEM_TEST_BACKEND_CUDA)
TEST_CASE("wildcards: increments give the same bits for 1 and 2 threads") {
  auto run = [](int threads) {
    const int saved = omp_get_max_threads();
    omp_set_num_threads(threads);
    // A compressed lattice (3 % overlaps) expanding in a box: thousands of contacts at once.
    dem::simulation_config cfg = zero_g_config(0.015);
    cfg.dt = 1e-6;
    cfg.allow_initial_overlap = true;
    sim_t<tallying_law, dem::precision::single> sim(cfg);
    const auto m = sim.add_material({"m", 2500, 1e7, 0.3, 0.5, 0.5, 0.0});
    sim.add_box(cfg.domain, m);
    dem::sample::lattice_options o;
    o.radius = 1e-3;
    o.spacing = 1.94e-3;
    o.jitter = 2e-5;
    o.max_count = 3000;
    sim.add_particles(dem::sample::cubic_lattice(cfg.domain, o), m);
    REQUIRE(sim.num_particles() == 3000);
    sim.set_geometry_wildcards(std::vector<stiffness_scale>(3000, {1.0}));
    sim.step(sanitized ? 40 : 200);  // under ASan + UBSan at -O0 fewer: every step already sums thousands of contacts
    omp_set_num_threads(saved);
    return std::make_pair(sim.owner_wildcards(), sim.num_listed_pairs());
  };
  const auto [one, pairs] = run(1);
  const auto [two, pairs2] = run(2);
  CHECK(pairs > 2048);
  CHECK(pairs == pairs2);
  std::uint64_t touches = 0;
  bool same = true;
  for (std::size_t i = 0; i < one.size(); ++i) {
    touches += one[i].touches;
    same = same && one[i].impulse == two[i].impulse && one[i].touches == two[i].touches;
  }
  CHECK(touches > 1000);
  CHECK(same);
}
#endif

TEST_CASE("cohesion: the contact detection lists pairs within the range, beyond the margin") {
  dem::simulation_config cfg = zero_g_config(0.01);
  cfg.dt = 1e-6;
  sim_t<dem::force::hertz_mindlin_cohesive> sim(cfg);
  dem::material mat{"wet", 2500, 1e7, 0.3, 0.5, 0.5, 0.0};
  mat.work_of_adhesion = 0.1;
  const double r = 1e-3;
  mat.cohesion_range = 0.5 * r;  // more than the default margin (0.2 r)
  const auto m = sim.add_material(mat);
  sim.add_plane({0, 0, -0.005}, {0, 0, 1}, m);
  dem::particle_set s;
  const double gap = 0.4 * r;
  s.positions = {{-r - gap / 2, 0, 0}, {r + gap / 2, 0, 0}, {0.005, 0, -0.005 + r + gap}};
  s.radii = {r, r, r};
  sim.add_particles(s, m);
  CHECK(sim.contact_range() == doctest::Approx(0.5 * r));
  sim.step();
  const auto f = sim.forces();
  const double f0 = 2 * M_PI * 0.1 * (r / 2);  // pull-off 2 pi w R*
  CHECK(f[0].x == doctest::Approx(f0 * (1 - gap / (0.5 * r))).epsilon(1e-3).scale(0));  // pulled towards particle 1 (relative: the force is 6e-5 N)
  CHECK(f[1].x == doctest::Approx(-f[0].x).scale(0));
  CHECK(f[2].z == doctest::Approx(-2 * M_PI * 0.1 * r * (1 - gap / (0.5 * r))).epsilon(1e-3).scale(0));  // towards the floor
}

TEST_CASE("cohesion: holds two spheres together until they are pulled beyond the range") {
  // Two spheres just touching fly apart at relative speed v. Outside the overlap only the pull
  // acts (no stiffness, no damping), so they separate iff 1/2 m* v^2 > F_0 range / 2, and then
  // drift apart at sqrt(v^2 - v_esc^2).
  const double r = 1e-3, w = 0.05, range = 2e-4;
  const double mass = 2500 * 4.0 / 3.0 * M_PI * r * r * r, m_star = mass / 2;
  const double f0 = 2 * M_PI * w * (r / 2);
  const double v_esc = std::sqrt(f0 * range / m_star);
  for (double ratio : {0.8, 1.25}) {
    CAPTURE(ratio);
    dem::simulation_config cfg = zero_g_config(0.05);
    cfg.dt = 2e-6;
    sim_t<dem::force::hertz_mindlin_cohesive> sim(cfg);
    dem::material mat{"wet", 2500, 1e7, 0.3, 0.5, 0.5, 0.0};
    mat.work_of_adhesion = w;
    mat.cohesion_range = range;
    const auto m = sim.add_material(mat);
    const double v = ratio * v_esc;
    dem::particle_set s;
    s.positions = {{-r, 0, 0}, {r, 0, 0}};
    s.radii = {r, r};
    s.velocities = {{-v / 2, 0, 0}, {v / 2, 0, 0}};
    sim.add_particles(s, m);
    double max_gap = 0;
    const double t_end = 40 * range / v_esc;
    for (double t = 0; t < t_end; t += 1e-4) {
      sim.advance(1e-4);
      const auto p = sim.positions();
      max_gap = std::max(max_gap, p[1].x - p[0].x - 2 * r);
    }
    const auto u = sim.velocities();
    if (ratio < 1) {
      CHECK(max_gap < range);
      // The turning point: the pull F_0 (1 - x / range) does work F_0 range (u - u^2 / 2) up to gap
      // u range, which takes the kinetic energy (ratio^2 of the escape energy F_0 range / 2):
      // u = 1 - sqrt(1 - ratio^2), 0.4 range at 0.8 of the escape speed.
      CHECK(max_gap == doctest::Approx(range * (1 - std::sqrt(1 - ratio * ratio))).epsilon(0.02).scale(0));
    } else {
      CHECK(max_gap > 10 * range);
      CHECK(u[1].x - u[0].x == doctest::Approx(std::sqrt(v * v - v_esc * v_esc)).epsilon(0.02).scale(0));
    }
  }
}

TEST_CASE("history: swapping which particle is A mirrors the contact exactly") {
  // The same oblique, spinning collision with the particles created in either order: the pair is
  // oriented by id, so A and B swap; every force and history must transform with them.
  auto run = [](bool reversed) {
    dem::simulation_config cfg = zero_g_config(0.01);
    cfg.dt = 1e-6;
    sim_t<dem::force::hertz_mindlin_cohesive> sim(cfg);
    dem::material mat{"m", 2500, 1e7, 0.3, 0.6, 0.4, 0.2};
    mat.work_of_adhesion = 0.02;
    mat.cohesion_range = 5e-5;
    const auto m = sim.add_material(mat);
    dem::particle_set s;
    s.positions = {{-1.2e-3, 0, 0}, {0.8e-3 + 1e-5, 0.3e-3, 0}};
    s.radii = {1.2e-3, 0.8e-3};
    s.velocities = {{0.05, 0.01, 0}, {-0.05, 0, 0.02}};
    if (reversed) {
      std::swap(s.positions[0], s.positions[1]);
      std::swap(s.radii[0], s.radii[1]);
      std::swap(s.velocities[0], s.velocities[1]);
    }
    sim.add_particles(s, m);
    std::vector<dem::vec3d> w = {{0, 0, 200}, {50, 0, -100}};
    if (reversed) std::swap(w[0], w[1]);
    sim.set_angular_velocities(w);
    sim.step(3000);
    auto p = sim.positions();
    auto om = sim.angular_velocities();
    if (reversed) {
      std::swap(p[0], p[1]);
      std::swap(om[0], om[1]);
    }
    return std::make_pair(p, om);
  };
  const auto [p, w] = run(false);
  const auto [q, u] = run(true);
  for (int i = 0; i < 2; ++i) {
    CHECK(dem::norm(p[i] - q[i]) < 1e-12);
    CHECK(dem::norm(w[i] - u[i]) < 1e-9 * (1 + dem::norm(w[i])));
  }
}

namespace {
// A law whose range is negative: refused when the parameter table is built.
struct bad_range_law {
  static constexpr const char* name = "bad_range_law";
  template <class Real>
  struct law {
    using base = typename dem::force::hertz_mindlin::template law<Real>;
    using params = typename base::params;
    using history = typename base::history;
    static params make_params(const dem::material_pair& p) { return base::make_params(p); }
    DEM_HD static Real range(const params&) { return Real(-1e-4); }
    DEM_HD dem::force::contact_force<Real> operator()(const dem::force::contact<Real>& c, const params& p, history& h) const {
      return base{}(c, p, h);
    }
  };
  static double stable_time_step(const dem::material& m, const dem::material_pair& mp, double r, double mass) {
    return dem::force::hertz_mindlin::stable_time_step(m, mp, r, mass);
  }
};
}  // namespace

TEST_CASE("custom law: a negative range is refused with the law, the value and the material pair") {
  sim_t<bad_range_law> sim(zero_g_config(0.01));
  const auto m = sim.add_material({"m", 2500, 1e7, 0.3, 0.5, 0.5, 0.0});
  dem::particle_set s;
  s.positions = {{0, 0, 0}};
  s.radii = {1e-3};
  sim.add_particles(s, m);
  CHECK_THROWS_WITH_AS(sim.step(), doctest::Contains("force law bad_range_law gives range -0.0001 for material pair (0, 0)"),
                       std::invalid_argument);
}

// ---- a law's own material properties (force/properties.hpp) -----------------------------------
namespace {
// A linear spring whose stiffness is a per-material property of the law's own ("spring_rate",
// mixed as the series combination of the two), capped at an integer number of "newtons_cap" and
// switched off entirely by a bool "inert".
struct own_property_law {
  static constexpr const char* name = "own_property_law";
  template <class Real>
  struct law {
    struct params {
      Real k, cap;
      std::uint32_t inert;
    };
    using history = dem::force::no_history;
    struct properties {
      double spring_rate;
      std::uint32_t newtons_cap;
      bool inert;
    };
    static constexpr auto property_fields =
        std::make_tuple(dem::force::property("spring_rate", &properties::spring_rate), dem::force::property("newtons_cap", &properties::newtons_cap),
                        dem::force::property("inert", &properties::inert));
    static properties mix(const properties& a, const properties& b) {
      return {a.spring_rate * b.spring_rate / (a.spring_rate + b.spring_rate), std::min(a.newtons_cap, b.newtons_cap), a.inert || b.inert};
    }
    static params make_params(const dem::material_pair&, const properties& q) {
      return {static_cast<Real>(q.spring_rate), static_cast<Real>(q.newtons_cap), q.inert ? 1u : 0u};
    }
    DEM_HD dem::force::contact_force<Real> operator()(const dem::force::contact<Real>& c, const params& p, history&) const {
      Real f = p.k * c.overlap - Real(0.5) * c.v_n;  // a little damping, so that a sphere comes to rest
      f = f < Real(0) ? Real(0) : f > p.cap ? p.cap : f;
      return {c.normal * (p.inert ? Real(0) : f)};
    }
  };
  static double stable_time_step(const dem::material&, const dem::material_pair&, double, double mass) { return 0.3 * std::sqrt(mass / 1e4); }
};

// A sphere of mass m resting on a plane under gravity: overlap m g / k.
template <class Sim>
double resting_overlap(dem::material sphere, dem::material plane, const dem::pair_override* pair = nullptr) {
  dem::simulation_config cfg;
  cfg.domain = {{-0.05, -0.05, -0.05}, {0.05, 0.05, 0.05}};
  cfg.dt = 1e-5;
  Sim sim(cfg);
  sim.set_log(nullptr);
  const auto ms = sim.add_material(sphere), mp = sim.add_material(plane);
  if (pair) sim.materials().set_pair(ms, mp, *pair);
  sim.add_plane({0, 0, 0}, {0, 0, 1}, mp);
  dem::particle_set s;
  s.positions = {{0, 0, 0.00499}};
  s.radii = {0.005};
  sim.add_particles(s, ms);
  sim.step(12000);  // the damping's decay rate is 0.5 / (2 m) = 190 /s: 1e-10 of the start after 0.12 s
  // Sunk through the plane and out of the domain's floor (gravity is the only force beside it):
  // the particle is gone from storage, so its overlap grew past any bound.
  if (sim.num_lost() == 1) return std::numeric_limits<double>::infinity();
  return 0.005 - sim.positions()[0].z;
}
}  // namespace

TEST_CASE("material properties: a law's own named, typed properties reach its parameters, mixed by its rule, overridden per pair") {
  using Sim = sim_t<own_property_law>;
  dem::material sphere{"ball", 2500, 1e7, 0.3, 0.5, 0.5, 0.0};
  sphere.properties = {{"spring_rate", 3000.0}, {"newtons_cap", 1000}, {"inert", 0}};
  dem::material plane = sphere;
  plane.name = "floor";
  plane.properties["spring_rate"] = 6000.0;
  const double m = 2500 * 4.0 / 3.0 * M_PI * 0.005 * 0.005 * 0.005, g = 9.81;
  // Series mix: 3000 * 6000 / 9000 = 2000 N/m.
  CHECK(resting_overlap<Sim>(sphere, plane) == doctest::Approx(m * g / 2000).epsilon(1e-6).scale(0));
  dem::pair_override o;
  o.properties["spring_rate"] = 500.0;
  CHECK(resting_overlap<Sim>(sphere, plane, &o) == doctest::Approx(m * g / 500).epsilon(1e-6).scale(0));
  // The integer cap below the weight (about 1.28e-2 N): the sphere sinks through the plane.
  o = {};
  o.properties["newtons_cap"] = 0;
  CHECK(resting_overlap<Sim>(sphere, plane, &o) > 0.005);
  plane.properties["inert"] = 1;  // mixed by "or": the pair is inert
  CHECK(resting_overlap<Sim>(sphere, plane) > 0.005);
}

TEST_CASE("material properties: missing, unknown and ill-typed values are named errors") {
  using Sim = sim_t<own_property_law>;
  dem::material good{"ball", 2500, 1e7, 0.3, 0.5, 0.5, 0.0};
  good.properties = {{"spring_rate", 3000.0}, {"newtons_cap", 1000}, {"inert", 0}};
  const auto fails = [&](const dem::material& bad, const dem::pair_override* pair, const std::vector<std::string>& parts) {
    dem::simulation_config cfg;
    cfg.domain = {{-0.05, -0.05, -0.05}, {0.05, 0.05, 0.05}};
    Sim sim(cfg);
    sim.set_log(nullptr);
    const auto a = sim.add_material(good), b = sim.add_material(bad);
    if (pair) sim.materials().set_pair(a, b, *pair);
    sim.add_particles({{{0, 0, 0}}, {0.005}, {}}, a);
    try {
      sim.step();
      FAIL("no error");
    } catch (const std::invalid_argument& e) {
      const std::string what = e.what();
      for (const auto& p : parts) CHECK_MESSAGE(what.find(p) != std::string::npos, what);
    }
  };
  dem::material missing = good;
  missing.name = "dry";
  missing.properties.erase("spring_rate");
  fails(missing, nullptr, {"own_property_law", "needs property 'spring_rate'", "material 'dry' (id 1)"});
  dem::material typo = good;
  typo.properties["sprng_rate"] = 1;
  fails(typo, nullptr, {"sets property 'sprng_rate'", "own_property_law does not declare", "spring_rate, newtons_cap, inert"});
  dem::material fraction = good;
  fraction.properties["newtons_cap"] = 2.5;
  fails(fraction, nullptr, {"property 'newtons_cap'", "is 2.5", "whole number"});
  dem::material maybe = good;
  maybe.properties["inert"] = 0.5;
  fails(maybe, nullptr, {"property 'inert'", "0 or 1"});
  dem::pair_override o;
  o.properties["spring_rte"] = 1;
  fails(good, &o, {"override of material pair (0, 1)", "'spring_rte'", "does not declare"});
  dem::material nan = good;
  nan.properties["spring_rate"] = std::nan("");
  dem::material_table table;
  CHECK_THROWS_WITH_AS(table.add(nan), doctest::Contains("property 'spring_rate' of material 'ball'"), std::invalid_argument);
  // A law that declares none refuses materials that set some.
  dem::simulation_config cfg;
  cfg.domain = {{-0.05, -0.05, -0.05}, {0.05, 0.05, 0.05}};
  sim_t<dem::force::hertz_mindlin> plain(cfg);
  plain.set_log(nullptr);
  plain.add_material(good);
  plain.add_particles({{{0, 0, 0}}, {0.005}, {}}, 0);
  CHECK_THROWS_WITH_AS(plain.step(), doctest::Contains("sets property 'inert', but force law hertz_mindlin declares no material properties"),
                       std::invalid_argument);
}

TEST_CASE("material properties: kept by checkpoints, material and pair alike") {
  using Sim = sim_t<own_property_law>;
  dem::simulation_config cfg;
  cfg.domain = {{-0.05, -0.05, -0.05}, {0.05, 0.05, 0.05}};
  Sim sim(cfg);
  sim.set_log(nullptr);
  dem::material ball{"ball", 2500, 1e7, 0.3, 0.5, 0.5, 0.0};
  ball.properties = {{"spring_rate", 3000.0}, {"newtons_cap", 1000}, {"inert", 0}};
  const auto a = sim.add_material(ball), b = sim.add_material(ball);
  dem::pair_override o;
  o.friction = 0.2;
  o.properties["spring_rate"] = 500.0;
  sim.materials().set_pair(a, b, o);
  sim.add_plane({0, 0, 0}, {0, 0, 1}, b);
  sim.add_particles({{{0, 0, 0.00499}}, {0.005}, {}}, a);
  sim.step(100);
  const std::string path = std::string("custom_law_properties_") + test_backend::name + ".ckpt";
  sim.save_checkpoint(path);
  Sim resumed = Sim::from_checkpoint(path);
  std::remove(path.c_str());
  // Read through the const accessor: the other one marks the parameters for a rebuild (and the
  // forces for a new evaluation), as a change would.
  const dem::material_table& table = std::as_const(resumed).materials();
  CHECK(table[a].properties == ball.properties);
  CHECK(table[b].properties == ball.properties);
  REQUIRE(table.overrides().size() == 1);
  CHECK(table.overrides().begin()->second.properties == o.properties);
  sim.step(2000);
  resumed.step(2000);
  CHECK(resumed.positions()[0].z == sim.positions()[0].z);  // the same parameters: the same bits
}
