// Trackers (track/tracker.hpp): the tracked particles' state read and set bit-exactly through
// reorderings, a moved particle's contacts found, the contact load equal to the sum of its contact
// forces, and named errors.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "support/scenarios.hpp"

using namespace dem_test;
using dem::vec3d;

namespace {

using sim = sim_t<dem::force::hertz_mindlin>;
const dem::material glass{"glass", 2500, 1e8, 0.3, 0.5, 0.5, 0.0};

// A compressed n^3 cubic lattice (2 um overlaps), gravity on, no walls.
sim lattice(int n) {
  dem::simulation_config c = zero_g_config(0.02);
  c.gravity = {0, 0, -9.81};
  c.allow_initial_overlap = true;
  c.dt = 1e-7;
  sim s(c);
  const auto m = s.add_material(glass);
  s.add_particles(pressed_cubic_lattice(n, 1e-3, 2e-6), m);
  return s;
}

}  // namespace

TEST_CASE("tracker: get and set the tracked particles only, bit-exact, through reorderings") {
  sim s = lattice(4);
  s.step(5);
  auto t = dem::track::particles(s, {5, 0, 63, 21});
  CHECK(t.size() == 4);
  // Reads equal the full copy's entries.
  const auto x = s.positions(), v = s.velocities(), w = s.angular_velocities();
  const auto tx = t.positions(), tv = t.velocities(), tw = t.angular_velocities();
  for (std::size_t k = 0; k < 4; ++k) {
    CHECK(tx[k] == x[t.ids()[k]]);
    CHECK(tv[k] == v[t.ids()[k]]);
    CHECK(tw[k] == w[t.ids()[k]]);
  }
  // Set, reorder (rebuild), read back: the same bits, and no other particle touched.
  const std::vector<vec3d> nv = {{0.1, 0, 0}, {0, 0.25, 0}, {0, 0, -0.5}, {0.125, 0.125, 0}};
  const std::vector<vec3d> nw = {{1, 2, 3}, {0, 0, 0}, {-4, 0, 0.5}, {0, 8, 0}};
  t.set_velocities(nv);
  t.set_angular_velocities(nw);
  s.request_rebuild();
  s.rebuild_contact_list();  // particles sorted by cell again
  CHECK(t.velocities() == nv);
  CHECK(t.angular_velocities() == nw);
  const auto v2 = s.velocities();
  for (std::uint32_t id = 0; id < 64; ++id) {
    const bool tracked = id == 5 || id == 0 || id == 63 || id == 21;
    if (!tracked) CHECK(v2[id] == v[id]);
  }
  CHECK(t.active() == std::vector<bool>(4, true));
}

TEST_CASE("tracker: the contact load equals the sum of the contact forces (gravity and external forces excluded)") {
  sim s = lattice(5);
  std::vector<vec3d> ext(125, vec3d{0, 0, 0});
  ext[62] = {1e-3, 0, 0};  // the centre particle (2, 2, 2)
  s.set_external_forces(ext);
  s.step(3);
  auto t = dem::track::particles(s, {62, 0, 31});
  const auto f = t.contact_forces();
  const auto net = dem::inspect::network(s);
  for (std::size_t k = 0; k < 3; ++k) {
    vec3d sum{0, 0, 0};
    for (std::size_t c = 0; c < net.size(); ++c) {
      const vec3d fa = net.normal_force[c] + net.tangential_force[c];
      if (net.id_a[c] == t.ids()[k]) sum += fa;
      if (net.id_b[c] == t.ids()[k]) sum -= fa;
    }
    INFO("particle " << t.ids()[k] << ": " << f[k].x << " " << f[k].y << " " << f[k].z << " against " << sum.x << " " << sum.y << " " << sum.z);
    CHECK(norm(f[k] - sum) < 1e-6 * std::max(1e-12, norm(sum)) + 1e-12);
  }
  CHECK(norm(f[1]) > 1e-3);  // a corner particle is pushed out by its three neighbours
}

TEST_CASE("tracker: a particle moved onto another is found by the contact detection at once") {
  dem::simulation_config c = zero_g_config(0.05);
  c.dt = 1e-6;
  sim s(c);
  const auto m = s.add_material(glass);
  dem::particle_set p;
  p.positions = {{0, 0, 0}, {0.03, 0, 0}};
  p.radii = {1e-3, 1e-3};
  s.add_particles(p, m);
  s.step(10);
  auto t = dem::track::particles(s, {1});
  t.set_positions({{1.99e-3, 0, 0}});  // 10 um overlap with particle 0, far beyond the margin it was at
  CHECK(t.positions()[0].x == doctest::Approx(1.99e-3).epsilon(1e-12));
  s.step(1);
  const auto v = s.velocities();
  CHECK(v[0].x < 0);  // pushed apart in the first step
  CHECK(v[1].x > 0);
}

TEST_CASE("tracker: bad ids, counts and values, and lost particles, are refused by name") {
  sim s = lattice(2);
  CHECK_THROWS_WITH_AS(dem::track::particles(s, {3, 8}), doctest::Contains("particle id 8 does not exist (8 particles)"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(dem::track::particles(s, {3, 1, 3}), doctest::Contains("particle id 3 is tracked twice"), std::invalid_argument);
  auto t = dem::track::particles(s, {1, 2});
  CHECK_THROWS_WITH_AS(t.set_velocities({{0, 0, 0}}), doctest::Contains("got 1 values of velocity for 2 tracked particles"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(t.set_positions({{0, 0, 0}, {0, std::nan(""), 0}}), doctest::Contains("position of particle 2 is not finite"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(t.set_positions({{0, 0, 0}, {1, 0, 0}}), doctest::Contains("position of particle 2 is outside the domain"), std::invalid_argument);
  // A particle that leaves the domain: read as inactive, refused when set.
  dem::simulation_config c = zero_g_config(0.01);
  c.dt = 1e-6;
  sim lone(c);
  lone.set_log(nullptr);
  const auto m = lone.add_material(glass);
  dem::particle_set p;
  p.positions = {{0.009995, 0, 0}, {0, 0, 0}};  // leaves through +x in the first step
  p.radii = {1e-4, 1e-4};
  p.velocities = {{10, 0, 0}, {0, 0, 0}};
  lone.add_particles(p, m);
  lone.step(3);
  REQUIRE(lone.num_lost() == 1);
  auto gone = dem::track::particles(lone, {0, 1});
  CHECK(gone.active() == std::vector<bool>{false, true});
  CHECK(lone.num_stored() == 1);  // compacted away at the build after it left: read as NaN, no load
  CHECK(std::isnan(gone.positions()[0].x));
  CHECK(std::isnan(gone.velocities()[0].x));
  CHECK(gone.contact_forces()[0].x == 0);
  CHECK(gone.positions()[1].x == 0);
  CHECK_THROWS_WITH_AS(gone.set_velocities({{0, 0, 0}, {0, 0, 0}}), doctest::Contains("particle 0 has left the domain (lost); its velocity cannot be set"),
                       std::invalid_argument);
}
