// External forces and torques per particle (Simulator::set_external_forces): applied exactly,
// following their particles through every reordering, changed and cleared between steps, counted by
// the energy ledger, kept by checkpoints, refused when malformed.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "support/scenarios.hpp"

using namespace dem_test;
using dem::vec3d;

namespace {

using sim = sim_t<dem::force::hertz_mindlin>;
const dem::material glass{"glass", 2500, 1e7, 0.3, 0.5, 0.5, 0.0};

// n spheres on a line along x, 3 mm apart, no gravity, no contact.
sim spread(std::size_t n, double dt = 1e-5) {
  dem::simulation_config c = zero_g_config(0.5);
  c.dt = dt;
  sim s(c);
  const auto m = s.add_material(glass);
  dem::particle_set p;
  for (std::size_t k = 0; k < n; ++k) {
    p.positions.push_back({-0.1 + 3e-3 * static_cast<double>(k), 0.01 * std::sin(double(k)), 0});
    p.radii.push_back(1e-3 * (1 + 0.2 * std::cos(double(k))));
  }
  s.add_particles(p, m);
  return s;
}

double mass_of(double r) { return 2500 * 4.0 / 3.0 * 3.14159265358979323846 * r * r * r; }

}  // namespace

TEST_CASE("external forces: each particle accelerates by its own force, through reorderings, and a cleared force stops acting") {
  sim s = spread(64);
  const auto radii = s.snapshot().radius;
  std::vector<vec3d> f(64), t(64);
  for (std::size_t k = 0; k < 64; ++k) {
    f[k] = {5e-6 * double(k % 5), -1e-5, 1.5e-6 * double(k)};  // small: no two particles meet (a contact would spoil the exact free flight checked below)
    t[k] = {0, 1e-9 * double(k), 0};
  }
  s.set_external_forces(f, t);
  CHECK(s.has_external_forces());
  s.step(500);
  s.request_rebuild();  // a reordering at least once (particles sorted by cell)
  s.step(500);
  const double time = s.time();
  const auto v = s.velocities();
  const auto w = s.angular_velocities();
  for (std::size_t k = 0; k < 64; ++k) {
    const double m = mass_of(radii[k]), I = 0.4 * m * radii[k] * radii[k];
    INFO("particle " << k);
    for (int a = 0; a < 3; ++a) CHECK(v[k][a] == doctest::Approx(f[k][a] / m * time).epsilon(1e-9).scale(1e-12));
    CHECK(w[k].y == doctest::Approx(t[k].y / I * time).epsilon(1e-9).scale(1e-12));
  }
  s.clear_external_forces();
  CHECK(!s.has_external_forces());
  s.step(200);
  const auto v2 = s.velocities();
  for (std::size_t k = 0; k < 64; ++k)
    for (int a = 0; a < 3; ++a) CHECK(v2[k][a] == v[k][a]);  // no force: velocity Verlet keeps them exactly
}

TEST_CASE("external forces: all zero gives the same bits as none; particles added later start without") {
  sim a = spread(32), b = spread(32);
  b.set_external_forces(std::vector<vec3d>(32, vec3d{0, 0, 0}));
  a.set_velocities(std::vector<vec3d>(32, vec3d{0.1, 0, 0}));
  b.set_velocities(std::vector<vec3d>(32, vec3d{0.1, 0, 0}));
  a.step(300);
  b.step(300);
  CHECK(a.positions() == b.positions());
  // A particle added after the forces were set gets none.
  sim s = spread(4);
  s.set_external_forces(std::vector<vec3d>(4, vec3d{0, 0, 1e-3}));
  dem::particle_set extra;
  extra.positions = {{0.2, 0.2, 0.2}};
  extra.radii = {1e-3};
  s.add_particles(extra, 0);
  s.step(100);
  const auto v = s.velocities();
  CHECK(v[4].z == 0.0);
  CHECK(v[0].z > 0.0);
}

TEST_CASE("external forces: the energy ledger counts their work, across a change") {
  sim s = spread(16);
  s.enable_energy_ledger();
  s.set_external_forces(std::vector<vec3d>(16, vec3d{2e-4, 0, 0}), std::vector<vec3d>(16, vec3d{0, 0, 1e-9}));
  s.step(400);
  s.set_external_forces(std::vector<vec3d>(16, vec3d{-1e-4, 3e-4, 0}));
  s.step(400);
  const dem::energy::ledger l = s.energy_ledger();
  INFO("external work " << l.external_work << ", kinetic change " << l.kinetic_change() << ", imbalance " << l.imbalance());
  CHECK(l.external_work > 0);
  CHECK(l.external_work == doctest::Approx(l.kinetic_change()).epsilon(1e-9));
  CHECK(l.relative_imbalance() < 1e-9);
}

TEST_CASE("external forces: a checkpoint keeps them (N + save + load + M = N + M)") {
  const std::string path = "external_forces.ckpt";
  sim a = spread(24), b = spread(24);
  std::vector<vec3d> f(24);
  for (std::size_t k = 0; k < 24; ++k) f[k] = {1e-4 * std::cos(double(k)), 1e-4 * std::sin(double(k)), 0};
  a.set_external_forces(f);
  b.set_external_forces(f);
  a.step(300);
  b.step(150);
  b.save_checkpoint(path);
  sim c = sim::from_checkpoint(path);
  CHECK(c.has_external_forces());
  c.step(150);
  CHECK(c.positions() == a.positions());
  CHECK(c.velocities() == a.velocities());
}

TEST_CASE("external forces: malformed input is refused with what is wrong") {
  sim s = spread(8);
  CHECK_THROWS_WITH_AS(s.set_external_forces(std::vector<vec3d>(7, vec3d{0, 0, 0})),
                       doctest::Contains("got 7 forces for 8 particles"), std::invalid_argument);
  std::vector<vec3d> bad(8, vec3d{0, 0, 0});
  bad[3].y = std::nan("");
  CHECK_THROWS_WITH_AS(s.set_external_forces(bad), doctest::Contains("the force on particle 3 is not finite"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(s.set_external_forces(std::vector<vec3d>(8, vec3d{0, 0, 0}), std::vector<vec3d>(2, vec3d{0, 0, 0})),
                       doctest::Contains("got 2 torques for 8 particles"), std::invalid_argument);
  CHECK(!s.has_external_forces());  // nothing was set
}
