// Bad input is refused before any step runs, with a message naming the parameter, the particle
// or material, and the value; runs that diverge stop with the particle and the step.
#include <doctest/doctest.h>

#include <limits>
#include <sstream>

#include "support/scenarios.hpp"

using namespace dem_test;
using sim = sim_t<dem::force::hertz_mindlin>;

namespace {
dem::simulation_config cfg() {
  dem::simulation_config c;
  c.domain = {{-1, -1, -1}, {1, 1, 1}};
  return c;
}
dem::particle_set one(double r = 1e-3, dem::vec3d x = {0, 0, 0}, dem::vec3d v = {0, 0, 0}) {
  dem::particle_set s;
  s.positions = {x};
  s.radii = {r};
  s.velocities = {v};
  return s;
}
const double nan_v = std::numeric_limits<double>::quiet_NaN();

// Runs `steps` steps and checks that they stop with a divergence error containing every fragment.
template <class Sim>
void expect_divergence(Sim& s, int steps, std::initializer_list<const char*> fragments) {
  try {
    s.step(steps);
    FAIL("no divergence reported");
  } catch (const std::runtime_error& e) {
    const std::string msg = e.what();
    CAPTURE(msg);
    for (const char* f : fragments) {
      CAPTURE(f);
      CHECK(msg.find(f) != std::string::npos);
    }
  }
}
const double inf = std::numeric_limits<double>::infinity();
}  // namespace

TEST_CASE("bad input: particle radius, position and velocity") {
  sim s(cfg());
  const auto m = s.add_material({});
  CHECK_THROWS_WITH_AS(s.add_particles(one(-1e-3), m), doctest::Contains("radius of particle 0 is -0.001"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(s.add_particles(one(0.0), m), doctest::Contains("radius of particle 0 is 0"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(s.add_particles(one(nan_v), m), doctest::Contains("radius of particle 0 is nan"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(s.add_particles(one(1e-3, {nan_v, 0, 0}), m), doctest::Contains("position of particle 0 is not finite"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(s.add_particles(one(1e-3, {0, 0, 0}, {0, inf, 0}), m), doctest::Contains("velocity of particle 0 is not finite"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(s.add_particles(one(1e-3, {5, 0, 0}), m), doctest::Contains("outside the domain"), std::invalid_argument);
  CHECK(s.num_particles() == 0);  // nothing half-added
  s.add_particles(one(), m);
  CHECK_THROWS_WITH_AS(s.add_particles(one(-2.0, {0.5, 0, 0}), m), doctest::Contains("radius of particle 1 is -2"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(s.set_velocities({{nan_v, 0, 0}}), doctest::Contains("velocity of particle 0 is not finite"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(s.add_particles(one(1e-3, {0, 0, 0}), 7), doctest::Contains("material id 7 does not exist"), std::invalid_argument);
}

TEST_CASE("bad input: material properties name the material and the value") {
  sim s(cfg());
  auto bad = [&](dem::material m) { return [&s, m] { s.add_material(m); }; };
  dem::material m{"sand", 2500, 1e7, 0.3, 0.5, 0.5, 0.0};
  auto with = [&](auto f) { dem::material x = m; f(x); return x; };
  CHECK_THROWS_WITH_AS(bad(with([](auto& x) { x.density = -1; }))(), doctest::Contains("density of material 'sand' (id 0) is -1"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(bad(with([](auto& x) { x.density = 0; }))(), doctest::Contains("density"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(bad(with([](auto& x) { x.youngs_modulus = 0; }))(), doctest::Contains("youngs_modulus of material 'sand' (id 0) is 0"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(bad(with([](auto& x) { x.poisson_ratio = 0.6; }))(), doctest::Contains("poisson_ratio of material 'sand' (id 0) is 0.6"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(bad(with([](auto& x) { x.poisson_ratio = -1; }))(), doctest::Contains("poisson_ratio"), std::invalid_argument);
  CHECK_NOTHROW(bad(with([](auto& x) { x.poisson_ratio = 0.5; }))());
  CHECK_THROWS_WITH_AS(bad(with([](auto& x) { x.restitution = 0; }))(), doctest::Contains("restitution of material 'sand' (id 1) is 0"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(bad(with([](auto& x) { x.restitution = 1.1; }))(), doctest::Contains("restitution"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(bad(with([](auto& x) { x.friction = -0.1; }))(), doctest::Contains("friction of material 'sand' (id 1) is -0.1"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(bad(with([](auto& x) { x.rolling_friction = -0.1; }))(), doctest::Contains("rolling_friction"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(s.materials().set_pair(0, 0, {.restitution = 0.0}), doctest::Contains("restitution of material pair (0, 0) is 0"), std::invalid_argument);
}

TEST_CASE("bad input: time step") {
  dem::simulation_config c = cfg();
  c.dt = 0;
  CHECK_THROWS_WITH_AS(sim{c}, doctest::Contains("dt is 0"), std::invalid_argument);
  c.dt = -1e-5;
  CHECK_THROWS_WITH_AS(sim{c}, doctest::Contains("dt is -1e-05"), std::invalid_argument);
  c.dt = nan_v;
  CHECK_THROWS_AS(sim{c}, std::invalid_argument);

  // dt above the Rayleigh step is refused before the first step, unless asked for.
  c.dt = 1e-3;
  sim s(c);
  const auto m = s.add_material({});
  s.add_particles(one(), m);
  CHECK_THROWS_WITH_AS(s.step(), doctest::Contains("exceeds the stable time step"), std::invalid_argument);
  CHECK(s.step_count() == 0);
  c.allow_unstable_dt = true;
  sim t(c);
  t.add_particles(one(), t.add_material({}));
  CHECK_NOTHROW(t.step());
  CHECK_THROWS_WITH_AS(t.set_dt(-1), doctest::Contains("dt is -1"), std::invalid_argument);
}

TEST_CASE("bad input: initial overlap above 10 % of the smaller radius") {
  dem::particle_set s;
  s.positions = {{0, 0, 0}, {1.7e-3, 0, 0}};  // overlap 0.3 mm of r = 1 mm
  s.radii = {1e-3, 1e-3};
  {
    sim a(cfg());
    a.add_particles(s, a.add_material({}));
    CHECK_THROWS_WITH_AS(a.step(), doctest::Contains("particles 0 and 1 overlap by"), std::invalid_argument);
  }
  {
    dem::simulation_config c = cfg();
    c.allow_initial_overlap = true;
    sim a(c);
    a.add_particles(s, a.add_material({}));
    CHECK_NOTHROW(a.step());
  }
  {
    sim a(cfg());
    const auto m = a.add_material({});
    a.add_plane({0, 0, 0}, {0, 0, 1}, m);
    a.add_particles(one(1e-3, {0, 0, 0.5e-3}), m);
    CHECK_THROWS_WITH_AS(a.step(), doctest::Contains("particle 0 overlaps boundary 0 ('plane 0') by 0.0005 m at the start"), std::invalid_argument);
  }
}

TEST_CASE("bad input: domain and planes") {
  dem::simulation_config c = cfg();
  c.domain = {{0, 0, 0}, {1, 0, 1}};
  CHECK_THROWS_WITH_AS(sim{c}, doctest::Contains("config.domain"), std::invalid_argument);
  sim s(cfg());
  const auto m = s.add_material({});
  CHECK_THROWS_WITH_AS(s.add_plane({0, 0, 0}, {0, 0, 0}, m), doctest::Contains("normal"), std::invalid_argument);
  CHECK_THROWS_AS(s.step(), std::invalid_argument);  // no particles
}

TEST_CASE("divergence: a particle above the speed bound stops the run, naming particle and step") {
  dem::simulation_config c = cfg();
  c.max_speed = 5.0;
  c.gravity = {0, 0, -1000};
  c.dt = 1e-4;
  c.allow_unstable_dt = true;
  sim s(c);
  const auto m = s.add_material({});
  dem::particle_set p = one(1e-3, {0.5, 0, 0.9}, {0, 0, -1.05});
  p.positions.push_back({0, 0, 0.9});
  p.radii.push_back(1e-3);
  p.velocities.push_back({0, 0, 0});
  s.add_particles(p, m);
  // Particle 0 (ahead of particle 1 by 1.05 m/s) passes 5 m/s at step 40: |v| = 1.05 + 0.1 n.
  expect_divergence(s, 100, {"diverged at step 40 ", "particle 0", "config.max_speed"});
}

namespace {
// A law with a bug: its force is NaN once particles touch.
struct broken_law {
  static constexpr const char* name = "broken";
  template <class Real>
  struct law {
    struct params {
      Real unused;
    };
    using history = dem::force::no_history;
    static params make_params(const dem::material_pair&) { return {0}; }
    DEM_HD dem::force::contact_force<Real> operator()(const dem::force::contact<Real>& c, const params&, history&) const {
      return {c.normal * std::sqrt(-c.overlap), {0, 0, 0}};
    }
  };
  static double stable_time_step(const dem::material&, const dem::material_pair&, double, double) { return 1.0; }
};
}  // namespace

TEST_CASE("divergence: NaN is reported with the particle and the step") {
  dem::simulation_config c = cfg();
  c.gravity = {0, 0, 0};
  sim_t<broken_law> s(c);
  const auto m = s.add_material({});
  dem::particle_set p;
  p.positions = {{0, 0, 0}, {2.001e-3, 0, 0}};
  p.radii = {1e-3, 1e-3};
  p.velocities = {{0.1, 0, 0}, {0, 0, 0}};
  s.add_particles(p, m);
  // The gap of 1 um closes after 1e-5 s = 1 step; the NaN force appears in the step after.
  expect_divergence(s, 100, {"diverged at step 2 (t = 2e-05 s): particle 0 has velocity (", "nan"});
}

namespace {
// A law that turns NaN for one pair once the run is past 1 ms: a fault injected mid-run.
struct nan_after_1ms_law : hertz_mindlin_time_step {
  static constexpr const char* name = "nan_after_1ms";
  template <class Real>
  struct law : hertz_mindlin_based<Real> {
    using typename hertz_mindlin_based<Real>::base;
    using typename hertz_mindlin_based<Real>::params;
    using typename hertz_mindlin_based<Real>::history;
    DEM_HD dem::force::contact_force<Real> operator()(const dem::force::contact<Real>& c, const params& p, history& h) const {
      dem::force::contact_force<Real> f = base{}(c, p, h);
      if (c.time > Real(1e-3) && !c.wall && c.point.x > Real(0.0035)) f.force.x = f.force.x * std::sqrt(Real(-1));
      return f;
    }
  };
};
}  // namespace

TEST_CASE("divergence: a NaN injected mid-run stops it at that step, naming the particle") {
  dem::simulation_config c;
  c.domain = {{0, 0, 0}, {0.006, 0.006, 0.006}};
  c.allow_initial_overlap = true;
  sim_t<nan_after_1ms_law> s(c);
  const auto m = s.add_material({});
  s.add_box(c.domain, m);
  dem::sample::lattice_options o;
  o.radius = 1e-3;
  o.spacing = 1.98e-3;  // touching from the start
  s.add_particles(dem::sample::cubic_lattice(c.domain, o), m);
  REQUIRE(s.num_particles() == 27);
  s.step(100);  // 1 ms: fine so far
  // The step that passes t = 1 ms evaluates NaN; its particles diverge at once.
  expect_divergence(s, 100, {"diverged at step 101 (t = 0.00101 s): particle 1 has velocity (", "nan"});
}

TEST_CASE("lost particles are deactivated, counted and reported, never read out of bounds") {
  dem::simulation_config c = cfg();
  c.gravity = {0, 0, 0};
  sim s(c);
  const auto m = s.add_material({});
  dem::particle_set p = one(1e-3, {0.99, 0, 0}, {10, 0, 0});
  p.positions.push_back({0, 0, 0});
  p.radii.push_back(1e-3);
  p.velocities.push_back({0, 0, 1});
  s.add_particles(p, m);
  std::ostringstream log;
  s.set_log(&log);
  s.step(200);
  CHECK(s.num_lost() == 1);
  CHECK(s.num_active() == 1);
  CHECK(log.str().find("1 particle(s) left the domain") != std::string::npos);
  const auto active = s.active();  // by id
  CHECK(active[0] == 0);
  CHECK(active[1] == 1);
  const auto x = s.positions();
  CHECK(x[1].z == doctest::Approx(200 * 1e-5 * 1.0));
  CHECK(std::isnan(x[0].x));  // compacted away at the build after it left
  CHECK(s.num_stored() == 1);
  CHECK(s.snapshot().id == std::vector<std::uint32_t>{1});
  s.step(10);  // rebuilds after the compaction keep working
  CHECK(s.num_lost() == 1);
  CHECK(s.num_particles() == 2);
}

// Enough particles for the host's vectorised end-of-step loop to run full vectors (the tests above
// have two particles): one lost and, in a second run, one too fast, among 64.
namespace {
dem::particle_set row_of_64(std::uint32_t special, dem::vec3d special_velocity) {
  dem::particle_set p;
  for (std::uint32_t k = 0; k < 64; ++k) {
    p.positions.push_back({-0.9 + 0.02 * (k % 8), -0.5 + 0.02 * (k / 8), 0});
    p.radii.push_back(1e-3);
    p.velocities.push_back(k == special ? special_velocity : dem::vec3d{0, 0, 0.01 * k});
  }
  return p;
}
}  // namespace

TEST_CASE("lost and diverged particles among many") {
  dem::simulation_config c = cfg();
  c.gravity = {0, 0, 0};
  c.max_speed = 5.0;
  {
    sim s(c);
    const auto m = s.add_material({});
    s.add_particles(row_of_64(37, {0, 0, 4}), m);  // reaches z = 1 after 25,000 steps
    s.set_log(nullptr);
    s.step(25100);
    CHECK(s.num_lost() == 1);
    CHECK(s.num_active() == 63);
    CHECK(s.active()[37] == 0);
    CHECK(s.num_stored() == 63);  // compacted away at the build after it left
    s.step(10);
    const auto x = s.positions();
    CHECK(std::isnan(x[37].z));
    CHECK(x[63].z == doctest::Approx(25110 * 1e-5 * 0.63));
    CHECK(x[36].z == doctest::Approx(25110 * 1e-5 * 0.36));
  }
  {
    sim s(c);
    const auto m = s.add_material({});
    s.add_particles(row_of_64(41, {0, 5.5, 0}), m);
    expect_divergence(s, 10, {"diverged at step 1 ", "particle 41", "config.max_speed"});
  }
}

// Listed pairs hold active particles only (the sphere pair kernel does not check): a particle that
// leaves the domain next to another must stop acting on it at once, not at the next skin rebuild.
TEST_CASE("a lost particle no longer touches anything") {
  dem::simulation_config c = cfg();
  c.gravity = {0, 0, 0};
  sim s(c);
  const auto m = s.add_material({});
  dem::particle_set p;
  p.positions = {{1 - 1e-6, 0, 0}, {1 - 1e-6 - 2e-3 - 5e-6, 0, 0}};  // 5 um apart: a listed pair
  p.radii = {1e-3, 1e-3};
  p.velocities = {{1, 0, 0}, {0.5, 0, 0}};  // the first leaves in one step; the second runs into where it stopped
  s.add_particles(p, m);
  s.set_log(nullptr);
  s.step(1);
  CHECK(s.num_lost() == 1);
  s.step(14);  // 65 um further: deep into where the lost particle stopped (beyond x = 1), but less than half the margin
  CHECK(s.active()[1] == 1);
  CHECK(s.velocities()[1].x == doctest::Approx(0.5).epsilon(1e-12));
  CHECK(s.positions()[1].x > 1.0 - 2e-3 + 5e-5);  // overlaps the lost particle's place by > 50 um
}
