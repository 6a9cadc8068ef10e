// Families (family/, sim/families.hpp): contacts disabled between families (particles and
// boundaries), a fixed family under a load, prescribed velocity followed exactly (constant, user
// motion with free components), added acceleration and force, change-of-family predicates firing at
// the predicted step, tracker round trips and contact loads, extra detection margins, checkpoints,
// named errors.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "support/scenarios.hpp"

using namespace dem_test;
using dem::vec3d;

namespace {

using sim = sim_t<dem::force::hertz_mindlin>;
const dem::material glass{"glass", 2500, 1e8, 0.3, 0.5, 0.5, 0.0};

// Two spheres of radius 1 mm flying at each other along x at 1 m/s each, families 1 and 2.
sim head_on(bool disabled) {
  dem::simulation_config c = zero_g_config(0.05);
  c.dt = 1e-6;
  sim s(c);
  const auto m = s.add_material(glass);
  dem::particle_set p;
  p.positions = {{-2e-3, 0, 0}, {2e-3, 0, 0}};
  p.radii = {1e-3, 1e-3};
  p.velocities = {{1, 0, 0}, {-1, 0, 0}};
  s.add_particles(p, m);
  s.set_families({1, 2});
  if (disabled) s.disable_contacts(1, 2);
  return s;
}

// A particle of radius 1 mm at the origin, no gravity, in family 3.
sim lone(double dt = 1e-6, vec3d g = {0, 0, 0}) {
  dem::simulation_config c = zero_g_config(0.5);
  c.dt = dt;
  c.gravity = g;
  sim s(c);
  const auto m = s.add_material(glass);
  dem::particle_set p;
  p.positions = {{0, 0, 0}};
  p.radii = {1e-3};
  s.add_particles(p, m);
  s.set_families({3});
  return s;
}

struct below {  // z below a threshold
  double z;
  DEM_HD bool operator()(const dem::family::particle_state& s) const { return s.position.z < z; }
};

struct sway {  // z prescribed as 1 mm sin(50 t); x and y free
  static constexpr dem::family::components linear = dem::family::z;
  static constexpr dem::family::components angular = dem::family::none;
  vec3d velocity(double t) const { return {0, 0, 1e-3 * 50 * std::cos(50 * t)}; }
};

struct broken {  // not finite after 10 us
  static constexpr dem::family::components linear = dem::family::x;
  static constexpr dem::family::components angular = dem::family::none;
  vec3d velocity(double t) const { return {t > 1e-5 ? std::nan("") : 0.0, 0, 0}; }
};

struct spin {  // angular velocity about z, 10 t rad/s; translation free
  static constexpr dem::family::components linear = dem::family::none;
  static constexpr dem::family::components angular = dem::family::xyz;
  vec3d angular_velocity(double t) const { return {0, 0, 10 * t}; }
};

}  // namespace

TEST_CASE("families: two families with contacts disabled pass through each other; enabled, they collide") {
  sim through = head_on(true), bounce = head_on(false);
  through.step(1000);  // they overlap now, unlisted
  CHECK(through.num_listed_pairs() == 0);
  through.step(4000);  // 5 ms: they would have met after 1 ms
  bounce.step(5000);
  const auto v = through.velocities(), x = through.positions();
  CHECK(v[0] == vec3d{1, 0, 0});  // untouched, to the bit
  CHECK(v[1] == vec3d{-1, 0, 0});
  CHECK(x[0].x == doctest::Approx(-2e-3 + 5e-3).epsilon(1e-9));
  const auto vb = bounce.velocities();
  CHECK(vb[0].x < -0.1);  // rebounded
  CHECK(vb[1].x > 0.1);
  // Enabled again mid-run: listed again at once (the list is rebuilt).
  sim again = head_on(true);
  again.step(500);
  again.enable_contacts(1, 2);
  CHECK(again.contacts_enabled(1, 2));
  again.step(4500);
  CHECK(again.velocities()[0].x < -0.1);
}

TEST_CASE("families: a boundary in a family whose contacts are disabled lets the particles through") {
  for (bool disabled : {false, true}) {
    dem::simulation_config c = zero_g_config(0.05);
    c.gravity = {0, 0, -9.81};
    c.dt = 1e-6;
    sim s(c);
    const auto m = s.add_material(glass);
    const auto floor = s.add_plane({0, 0, 0}, {0, 0, 1}, m);
    dem::particle_set p;
    p.positions = {{0, 0, 1.5e-3}};
    p.radii = {1e-3};
    s.add_particles(p, m);
    s.set_families({1});
    s.set_boundary_family(floor, 7);
    CHECK(s.boundary_family(floor) == 7);
    if (disabled) s.disable_contacts(1, 7);
    s.step(30000);  // 30 ms: a free fall of 4.4 mm
    const double z = s.positions()[0].z;
    if (disabled) CHECK(z < -2e-3);
    else CHECK(z > 0.9e-3);
  }
}

TEST_CASE("families: a fixed family holds still under a load, and its contact load is the load on it") {
  // A 4 x 4 x 4 pressed lattice under gravity; the bottom layer (z = 0) fixed.
  dem::simulation_config c = zero_g_config(0.02);
  c.gravity = {0, 0, -9.81};
  c.allow_initial_overlap = true;
  c.dt = 1e-7;
  sim s(c);
  const auto m = s.add_material(glass);
  s.add_particles(pressed_cubic_lattice(4, 1e-3, 2e-6), m);
  std::vector<dem::family::family_id> fam(64, 0);
  for (int k = 0; k < 16; ++k) fam[k] = 1;
  s.set_families(fam);
  s.set_family_motion(1, dem::family::fixed{});
  const auto x0 = s.positions();
  s.step(2000);
  const auto x = s.positions(), v = s.velocities(), w = s.angular_velocities();
  for (int k = 0; k < 16; ++k) {
    CHECK(x[k] == x0[k]);  // to the bit
    CHECK(v[k] == vec3d{0, 0, 0});
    CHECK(w[k] == vec3d{0, 0, 0});
  }
  CHECK(!(x[40] == x0[40]));  // the rest moves
  // The tracked load of each fixed particle equals the sum of its contact forces.
  std::vector<std::uint32_t> ids;
  for (std::uint32_t k = 0; k < 16; ++k) ids.push_back(k);
  auto t = dem::track::particles(s, ids);
  const auto f = t.contact_forces();
  const auto net = dem::inspect::network(s);
  double total = 0;
  for (std::size_t k = 0; k < ids.size(); ++k) {
    vec3d sum{0, 0, 0};
    for (std::size_t e = 0; e < net.size(); ++e) {
      const vec3d fa = net.normal_force[e] + net.tangential_force[e];
      if (net.id_a[e] == ids[k]) sum += fa;
      if (net.id_b[e] == ids[k]) sum -= fa;
    }
    CHECK(norm(f[k] - sum) < 1e-6 * norm(sum) + 1e-12);
    total += f[k].z;
  }
  CHECK(total < 0);  // pressed down by the particles above
  CHECK(t.families() == std::vector<dem::family::family_id>(16, 1));
  // The same selection by family, and the inspectors' family filter.
  CHECK(dem::track::in_family(s, 1).ids() == ids);
  const auto held = dem::inspect::particles(s, dem::inspect::where(dem::inspect::everywhere{}, dem::inspect::in_family{1}));
  CHECK(held.count == 16);
  CHECK(held.kinetic_energy() == 0.0);
  CHECK(dem::inspect::particles(s, dem::inspect::where(dem::inspect::everywhere{}, dem::inspect::in_family{0})).count == 48);
}

TEST_CASE("families: a prescribed velocity is followed exactly; free components still feel the forces") {
  SUBCASE("constant velocity, all components") {
    sim s = lone();
    const vec3d v{0.3, -0.2, 0.1};
    s.set_family_motion(3, dem::family::constant_velocity{v, {0, 0, 5}});
    s.step(1000);
    const vec3d x = s.positions()[0];
    CHECK(s.velocities()[0] == v);
    CHECK(s.angular_velocities()[0] == vec3d{0, 0, 5});
    CHECK(norm(x - v * (1000 * 1e-6)) < 1e-15);
  }
  SUBCASE("a user motion in z, gravity acting on x") {
    sim s = lone(1e-5, {-9.81, 0, 0});
    s.set_family_motion(3, sway{});
    const int n = 2000;
    s.step(n);
    const double t = n * 1e-5;
    const vec3d x = s.positions()[0];
    CHECK(std::abs(x.z - 1e-3 * std::sin(50 * t)) < 1e-12);  // the integral of the prescribed velocity (Simpson per step)
    CHECK(x.x == doctest::Approx(-0.5 * 9.81 * t * t).epsilon(1e-9));  // free fall in x
    CHECK(x.y == 0);
  }
  SUBCASE("a prescribed angular velocity, translation free under gravity") {
    sim s = lone(1e-5, {0, 0, -9.81});
    s.set_family_motion(3, spin{});
    s.step(100);
    const double t = 100 * 1e-5;
    CHECK(s.angular_velocities()[0].z == doctest::Approx(10 * (t + 0.5e-5)).epsilon(1e-12));  // the mean over the next step (velocity Verlet)
    CHECK(s.positions()[0].z == doctest::Approx(-0.5 * 9.81 * t * t).epsilon(1e-9));
  }
  SUBCASE("back to free: the particle keeps its last velocity and feels gravity again") {
    sim s = lone(1e-6, {0, 0, -9.81});
    s.set_family_motion(3, dem::family::constant_velocity{{0, 0, 1}, {0, 0, 0}});
    s.step(100);
    CHECK(s.velocities()[0].z == 1.0);
    s.set_family_motion(3, dem::family::free{});
    s.step(100);
    CHECK(s.velocities()[0].z == doctest::Approx(1.0 - 9.81 * 100 * 1e-6).epsilon(1e-12));
  }
}

TEST_CASE("families: an added acceleration and force act on every particle of the family") {
  sim s = lone(1e-5);
  const double mass = 2500 * 4.0 / 3.0 * M_PI * 1e-9;
  s.set_family_acceleration(3, {0, 0, 2});
  s.set_family_force(3, {mass * 1.0, 0, 0});
  s.step(1000);
  const vec3d v = s.velocities()[0];
  CHECK(v.z == doctest::Approx(2 * 1000 * 1e-5).epsilon(1e-9));
  CHECK(v.x == doctest::Approx(1 * 1000 * 1e-5).epsilon(1e-6));
  // Another family feels nothing.
  s.set_families({0});
  s.step(10);
  CHECK(s.velocities()[0] == v);
}

TEST_CASE("families: a change-of-family predicate fires at the predicted step, on the backend") {
  // Free fall from rest: z_n = -g (n dt)^2 / 2 (velocity Verlet is exact for constant gravity).
  const double g = 9.81, dt = 2e-5, threshold = -0.0123;
  sim s = lone(dt, {0, 0, -g});
  s.set_families({0});
  s.change_family_when(0, 5, below{threshold});
  s.set_family_motion(5, dem::family::fixed{});  // caught when it gets there
  int expected = 0;
  while (!(-0.5 * g * (expected * dt) * (expected * dt) < threshold)) ++expected;
  int fired = -1;
  for (int n = 1; n <= expected + 5; ++n) {
    s.step(1);
    if (fired < 0 && s.families()[0] == 5) fired = n;
  }
  CHECK(fired == expected);
  // Held from the step after it fired: velocity zero since.
  CHECK(s.velocities()[0] == vec3d{0, 0, 0});
  const double z = s.positions()[0].z;
  s.step(10);
  CHECK(s.positions()[0].z == z);
  // change_family now: all of family 5 back to 0 (counted), then it falls again.
  CHECK(s.change_family(5, 0) == 1);
  s.clear_family_predicates();
  s.step(10);
  CHECK(s.positions()[0].z < z);
}

TEST_CASE("families: tracker set and get round trip, through reorderings") {
  sim s = head_on(false);
  auto t = dem::track::particles(s, {1});
  CHECK(t.families() == std::vector<dem::family::family_id>{2});
  t.set_family(9);
  s.request_rebuild();
  s.step(3);
  CHECK(t.families() == std::vector<dem::family::family_id>{9});
  CHECK(s.families() == std::vector<dem::family::family_id>{1, 9});
  s.set_family({0, 1}, 4);
  CHECK(s.families() == std::vector<dem::family::family_id>{4, 4});
}

TEST_CASE("families: ids, the contact matrix and boundary families survive a checkpoint") {
  sim s = head_on(true);
  s.step(100);
  const std::string path = "test_families_checkpoint.bin";
  s.save_checkpoint(path);
  sim r = sim::from_checkpoint(path);
  std::remove(path.c_str());
  CHECK(r.families() == s.families());
  CHECK(!r.contacts_enabled(1, 2));
  CHECK(r.contacts_enabled(1, 1));
  s.step(3000);
  r.step(3000);
  CHECK(r.positions() == s.positions());
  CHECK(r.velocities()[0] == vec3d{1, 0, 0});
}

TEST_CASE("families: bad input is refused by name") {
  sim s = head_on(false);
  CHECK_THROWS_WITH_AS(s.set_families({1}), doctest::Contains("got 1 family ids for 2 particles"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(s.set_families({1, 256}), doctest::Contains("family 256 does not exist (families are 0 .. 255)"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(s.disable_contacts(1, 300), doctest::Contains("disable_contacts: family 300 does not exist"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(s.set_family_motion(999, dem::family::fixed{}), doctest::Contains("set_family_motion: family 999 does not exist"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(s.set_family_acceleration(1, {0, std::nan(""), 0}), doctest::Contains("family acceleration is"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(s.set_boundary_family(4, 1), doctest::Contains("boundary"), std::exception);
  CHECK_THROWS_WITH_AS(s.change_family(1, 256), doctest::Contains("change_family (to): family 256 does not exist"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(s.set_family({7}, 1), doctest::Contains("particle id 7 does not exist"), std::invalid_argument);
  auto t = dem::track::particles(s, {0});
  CHECK_THROWS_WITH_AS(t.set_families({1, 2}), doctest::Contains("got 2 values of family for 1 tracked particles"), std::invalid_argument);
  // A motion whose velocity is not finite is named when it is evaluated.
  s.set_family_motion(1, broken{});
  CHECK_THROWS_WITH_AS(s.step(20), doctest::Contains("the prescribed motion of family 1 gives a velocity that is not finite"), std::invalid_argument);
}

namespace {

// A projectile (radius 1 mm, 5 m/s along x, family `family`) shot at a 3 x 3 x 3 cluster of resting
// spheres, no gravity, margin 0.1 mm: under the global criterion (max_overrun = 0) the plain list
// is rebuilt every 10 steps for the projectile.
sim projectile(dem::family::family_id family, double extra, std::uint32_t max_overrun = 0) {
  dem::simulation_config c = zero_g_config(0.05);
  c.dt = 1e-6;
  c.contact_margin = 1e-4;
  c.max_overrun = max_overrun;
  sim s(c);
  const auto m = s.add_material(glass);
  dem::particle_set p;
  p.positions = {{-20e-3, 0.3e-3, 0.2e-3}};
  p.velocities = {{5, 0, 0}};
  for (int i = 0; i < 3; ++i)
    for (int j = -1; j <= 1; ++j)
      for (int k = -1; k <= 1; ++k) p.positions.push_back({2.2e-3 * i, 2.2e-3 * j, 2.2e-3 * k});
  p.radii.assign(p.positions.size(), 1e-3);
  p.velocities.resize(p.positions.size(), vec3d{0, 0, 0});
  s.add_particles(p, m);
  std::vector<dem::family::family_id> f(p.positions.size(), 0);
  f[0] = family;
  s.set_families(f);
  if (extra > 0) s.set_family_margin(1, extra);
  return s;
}

struct fast {  // the projectile
  DEM_HD bool operator()(const dem::family::particle_state& s) const { return s.velocity.x > 1; }
};

}  // namespace

TEST_CASE("families: an extra detection margin spares the rebuilds a fast family causes, and changes no bit") {
  sim plain = projectile(1, 0), wide = projectile(1, 2e-3);
  CHECK(wide.family_margin(1) == 2e-3);
  CHECK(wide.family_margin(0) == 0);
  plain.step(3300);  // the projectile's surface 1.5 mm from the cluster's: listed only with the extra margin
  wide.step(3300);
  CHECK(plain.num_listed_pairs() == 0);
  CHECK(wide.num_listed_pairs() > 0);
  CHECK(wide.positions() == plain.positions());
  // On the way (16.5 mm at 0.05 mm per half margin): a rebuild every 10 steps, or every 410.
  MESSAGE("rebuilds on the way: plain " << plain.num_rebuilds() << ", with the extra margin " << wide.num_rebuilds());
  CHECK(plain.num_rebuilds() > 300);
  CHECK(wide.num_rebuilds() < 15);
  // Local validity (the default) spares them too, without the extra margin: the projectile alone
  // is checked each step until it nears the cluster.
  sim local = projectile(1, 0, 256);
  local.step(3300);
  CHECK(local.num_rebuilds() < 15);
  CHECK(local.positions() == plain.positions());
  plain.step(4700);  // through the impact and after
  wide.step(4700);
  local.step(4700);
  CHECK(wide.positions() == plain.positions());
  CHECK(wide.velocities() == plain.velocities());
  CHECK(local.positions() == plain.positions());
  CHECK(local.velocities() == plain.velocities());
  CHECK(plain.velocities()[0].x < 4);  // it hit the cluster

  // A particle that moves into a family with a larger margin had its partners listed for the
  // smaller one: the move rebuilds the list, or the projectile would fly through the cluster.
  sim now = projectile(0, 2e-3), later = projectile(0, 2e-3);
  later.change_family_when(0, 1, fast{});  // on the backend, after the first step
  now.step(3300);                          // 1.5 mm apart, not listed
  CHECK(now.change_family(0, 1, fast{}) == 1);
  now.step(4700);
  later.step(8000);
  CHECK(now.positions() == plain.positions());
  CHECK(later.positions() == plain.positions());

  // Kept by checkpoints; bad values named.
  const std::string path = "test_families_margin.bin";
  wide.save_checkpoint(path);
  sim r = sim::from_checkpoint(path);
  std::remove(path.c_str());
  CHECK(r.family_margin(1) == 2e-3);
  CHECK_THROWS_WITH_AS(wide.set_family_margin(1, -1e-3), doctest::Contains("set_family_margin: extra margin -0.001 m for family 1; it must be >= 0"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(wide.set_family_margin(2, std::nan("")), doctest::Contains("extra margin nan m for family 2"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(wide.set_family_margin(256, 1e-3), doctest::Contains("set_family_margin: family 256 does not exist"), std::invalid_argument);
}

TEST_CASE("families: the energy ledger refuses family rules it cannot account") {
  if constexpr (sim::ledger_supported) {
    sim s = lone();
    s.enable_energy_ledger();
    s.set_family_motion(3, dem::family::fixed{});
    CHECK_THROWS_WITH_AS(s.step(1), doctest::Contains("energy ledger does not account the work of prescribed family motion"), std::logic_error);
  }
}
