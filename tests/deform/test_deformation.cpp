// Deformable spheres (shape::deformable_sphere, deform/, sim/deformation.hpp): the solver against
// the closed form between two walls and the wall force k_n (R' - h/2); volume conservation per
// particle in a dense packing against an independent brute-force computation of the caps;
// reversibility to the bit; Newton iterations reported; the detection margin (the same bits whatever
// the margin, so whatever the rebuild schedule); every law runs; named errors; checkpoints.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <memory>
#include <vector>

#include <unistd.h>

#include "support/scenarios.hpp"

using namespace dem_test;
using dem::vec3d;

namespace {

template <class Force, class Precision = dem::precision::double_>
using deformable_t = dem::Simulator<dem::policies<dem::shape::deformable_sphere, Force, dem::integrate::velocity_verlet, Precision>, test_backend>;
using linear = deformable_t<dem::force::linear_spring_dashpot>;
// The same under symplectic Euler, which moves particles after the force evaluation: the radii are
// solved before it, in a kernel of their own.
using euler = dem::Simulator<dem::policies<dem::shape::deformable_sphere, dem::force::linear_spring_dashpot, dem::integrate::symplectic_euler,
                                           dem::precision::double_>,
                             test_backend>;

// A sphere of radius R held between the planes z = -h/2 and z = h/2 (linear law, k_n = 1300 N/m).
template <class S = linear>
struct squeezed {
  S sim;
  std::uint32_t lower, upper;
};
template <class S = linear>
squeezed<S> between_walls(double R, double h) {
  dem::simulation_config c = zero_g_config(0.05);
  c.allow_initial_overlap = true;
  c.dt = 1e-5;
  squeezed<S> s{S(c), 0, 0};
  const auto m = s.sim.add_material({"soft", 2000, 1e7, 0.3, 0.7, 0.5, 0.0});
  s.sim.materials().set_pair(m, m, dem::pair_override{.normal_stiffness = 1300.0});
  s.lower = s.sim.add_plane({0, 0, -h / 2}, {0, 0, 1}, m);
  s.upper = s.sim.add_plane({0, 0, h / 2}, {0, 0, -1}, m);
  dem::particle_set p;
  p.positions = {{0, 0, 0}};
  p.radii = {R};
  s.sim.add_particles(p, m);
  return s;
}

// R^3 - (the enlarged sphere minus its caps), over R^3, for particle i: the caps recomputed here
// from every other particle (brute force) and the box's planes, with the final radii.
double volume_error(const std::vector<vec3d>& x, const std::vector<double>& R, const std::vector<double>& Rd, const dem::aabb& box,
                    std::size_t i) {
  const double r = Rd[i];
  double caps = 0;
  auto cap = [&](double d) {
    if (d < r) caps += 0.25 * (r - d) * (r - d) * (2 * r + d);
  };
  for (std::size_t j = 0; j < x.size(); ++j) {
    if (j == i) continue;
    const double L = dem::norm(x[i] - x[j]);
    if (L < r + Rd[j]) cap((L * L + r * r - Rd[j] * Rd[j]) / (2 * L));
  }
  for (int k = 0; k < 3; ++k) {
    cap(x[i][k] - box.lo[k]);
    cap(box.hi[k] - x[i][k]);
  }
  return (r * r * r - caps - R[i] * R[i] * R[i]) / (R[i] * R[i] * R[i]);
}

// 60 soft spheres of 1.2 mm +- 20 % falling into a 10 x 10 x 20 mm box, with the given margin.
template <class S>
std::unique_ptr<S> small_bed(double margin) {
  dem::simulation_config c;
  c.domain = {{0, 0, 0}, {0.01, 0.01, 0.02}};
  c.dt = 2e-5;
  c.contact_margin = margin;
  auto s = std::make_unique<S>(c);
  const auto m = s->add_material({"soft", 2000, 1e7, 0.3, 0.5, 0.5, 0.0});
  s->materials().set_pair(m, m, dem::pair_override{.normal_stiffness = 20.0});
  s->add_box(c.domain, m);
  dem::sample::lattice_options lo;
  lo.radius = 1.2e-3;
  lo.radius_spread = 0.2;
  lo.jitter = 2e-4;
  lo.max_count = 60;
  s->add_particles(dem::sample::cubic_lattice(c.domain, lo), m);
  return s;
}

// Two margins, two rebuild schedules: the same bits (no plane missed as the radii grow). Returns the
// run with the smaller margin.
template <class S>
std::unique_ptr<S> check_same_bits_for_two_margins() {
  auto a = small_bed<S>(1e-4), b = small_bed<S>(5e-4);
  a->step(8000);
  b->step(8000);
  REQUIRE(a->deformation_report().deformed > 10);
  CHECK(a->num_rebuilds() > b->num_rebuilds());
  CHECK(a->positions() == b->positions());
  CHECK(a->deformed_radii() == b->deformed_radii());
  return a;
}

}  // namespace

TEST_CASE("deform: the solver between two walls gives the closed form (R = 5 mm: 5.951 mm at h = 5 mm, 7.170 mm at h = 3.3 mm)") {
  const double R = 5e-3;
  for (const double h : {5e-3, 3.3e-3}) {
    CAPTURE(h);
    dem::deform::plane_set<double, 4> planes;
    planes.push(dem::deform::wall_plane(h / 2));
    planes.push(dem::deform::wall_plane(h / 2));
    const dem::deform::solution<double> s = dem::deform::solve(R, planes, R, 2.0, 1e-13);
    CHECK(s.status == dem::deform::solve_status::ok);
    CHECK(s.iterations <= 12);
    const double expected = h == 5e-3 ? 5.951e-3 : 7.170e-3;
    CHECK(s.radius == doctest::Approx(expected).epsilon(1e-4).scale(0));
    // f(R') = 0: the enlarged sphere minus the two caps has the original volume.
    CHECK(dem::deform::kept_volume(planes, s.radius) == doctest::Approx(R * R * R).epsilon(1e-12).scale(0));
  }
}

TEST_CASE("deform: a pair's plane moves with the sphere's own radius, and a plane that does not cut is no plane") {
  // Two equal spheres at centre distance L: the plane is mid-way whatever R', and the root is the
  // one of a sphere against a wall at L/2.
  const double R = 1e-3, L = 1.8e-3;
  dem::deform::plane_set<double, 1> pair, wall, far;
  pair.push(dem::deform::pair_plane(L, 1.05e-3));
  wall.push(dem::deform::wall_plane(0.9e-3));
  far.push(dem::deform::wall_plane(1.5e-3));
  const auto a = dem::deform::solve(R, pair, R, 2.0, 1e-13);
  const auto b = dem::deform::solve(R, wall, R, 2.0, 1e-13);
  CHECK(a.status == dem::deform::solve_status::ok);
  // The partner's R' (1.05 mm) pushes the plane towards this sphere: a larger cap than the wall's.
  CHECK(a.radius > b.radius);
  const double d = (L * L + a.radius * a.radius - 1.05e-3 * 1.05e-3) / (2 * L);
  const double kept = a.radius * a.radius * a.radius - 0.25 * (a.radius - d) * (a.radius - d) * (2 * a.radius + d);
  CHECK(kept == doctest::Approx(R * R * R).epsilon(1e-12).scale(0));
  const auto c = dem::deform::solve(R, far, 1.2e-3, 2.0, 1e-13);
  CHECK(c.radius == doctest::Approx(R).epsilon(1e-12).scale(0));
}

// The particle kernel's first Newton step sums the caps the pair kernel wrote (deform::pair_cap);
// solve_particle, which the separate kernel and the rebuild run, sums add_cap over pair_plane: the
// two must be the same bits, or the radii would depend on when the list was rebuilt.
template <class Real>
void check_pair_caps() {
  std::uint64_t state = 12345;
  const auto uniform = [&](double lo, double hi) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return lo + (hi - lo) * static_cast<double>(state >> 11) * 0x1.0p-53;
  };
  int cutting = 0, mismatches = 0;
  for (int n = 0; n < 20000; ++n) {
    const Real R = static_cast<Real>(uniform(0.5e-3, 1.5e-3)), rj = static_cast<Real>(uniform(0.5e-3, 1.6e-3));
    const Real last = n % 3 ? static_cast<Real>(R * uniform(1.0, 1.3)) : R;  // some beyond the limit 1.2: the first iterate is R
    const Real L = static_cast<Real>((R + rj) * uniform(0.6, 1.1));
    const dem::deform::cap_entry<Real> rec = dem::deform::pair_cap(L, rj, R, last, Real(1.2));
    dem::deform::caps<Real> sum;
    dem::deform::add_cap(dem::deform::pair_plane(L, rj), dem::deform::first_iterate(R, last, Real(1.2)), sum);
    const bool cuts = R + (rj - L) > 0;
    cutting += cuts;
    // The volume's sign bit says whether the plane cuts R (deform::add_entry reads it so).
    dem::deform::cap_record<Real> added{};
    dem::deform::add_entry(added, rec);
    mismatches += !(added.volume == sum.volume && added.slope == sum.slope && added.cuts() == cuts && std::signbit(rec.volume) == cuts);
  }
  CHECK(mismatches == 0);
  CHECK(cutting > 5000);  // both kinds of plane were drawn
  CHECK(cutting < 19000);
  const dem::deform::cap_entry<Real> coincident = dem::deform::pair_cap(Real(0), Real(1e-3), Real(1e-3), Real(1e-3), Real(1.2));
  CHECK(coincident.volume == 0);  // coincident centres: no plane (solve_particle skips them)
  CHECK(!std::signbit(coincident.volume));
  CHECK(coincident.slope == 0);
  // A much larger partner whose surface passes near this sphere's centre: a cap higher than 3 R'
  // (a negative volume), outside the model: marked NaN, which sends the sphere to the whole solve.
  const dem::deform::cap_entry<Real> through = dem::deform::pair_cap(Real(1e-3), Real(3e-3), Real(1e-3), Real(1e-3), Real(1.2));
  CHECK(std::isnan(through.volume));
}

TEST_CASE("deform: the pair kernel's caps are the solve's first pass, to the bit (single and double)") {
  check_pair_caps<float>();
  check_pair_caps<double>();
}

TEST_CASE("deform: a sphere between walls grows to R' and the walls feel k_n (R' - h/2)") {
  const double R = 5e-3;
  for (const double h : {5e-3, 3.3e-3}) {
    CAPTURE(h);
    squeezed s = between_walls(R, h);
    s.sim.step(3);
    const double Rd = s.sim.deformed_radii()[0];
    const double expected = h == 5e-3 ? 5.951190357e-3 : 7.170254563e-3;
    CHECK(Rd == doctest::Approx(expected).epsilon(1e-9).scale(0));
    CHECK(s.sim.radii()[0] == R);  // the particle's radius stays R
    const double f = 1300 * (Rd - h / 2);
    CHECK(s.sim.boundary_force(s.lower).z == doctest::Approx(-f).epsilon(1e-9).scale(0));
    CHECK(s.sim.boundary_force(s.upper).z == doctest::Approx(f).epsilon(1e-9).scale(0));
    // Inspectors count the sphere's own volume (kept), and see the enlarged sphere's extent.
    const dem::inspect::particle_summary in = dem::inspect::particles(s.sim, dem::inspect::box{{-0.01, -0.01, -0.01}, {0.01, 0.01, 0.01}});
    CHECK(in.volume == doctest::Approx(4.0 / 3 * M_PI * R * R * R).epsilon(1e-12).scale(0));
    CHECK(in.solid_volume == doctest::Approx(4.0 / 3 * M_PI * R * R * R).epsilon(1e-12).scale(0));
    CHECK(in.extent_hi.z == doctest::Approx(expected).epsilon(1e-9).scale(0));
    const dem::deformation_report rep = s.sim.deformation_report();
    CHECK(rep.deformed == 1);
    CHECK(rep.max_ratio == doctest::Approx(expected / R).epsilon(1e-9).scale(0));
    // Started from last step's R': once converged, one Newton step confirms it.
    CHECK(rep.iterations >= 1);
    CHECK(rep.max_iterations <= 3);
  }
}

TEST_CASE("deform: the walls opened, R' returns to R exactly") {
  squeezed s = between_walls(5e-3, 5e-3);
  s.sim.step(5);
  REQUIRE(s.sim.deformed_radii()[0] > 5.9e-3);
  s.sim.set_motion(s.lower, dem::boundary::constant_velocity{{0, 0, -1}});
  s.sim.set_motion(s.upper, dem::boundary::constant_velocity{{0, 0, 1}});
  s.sim.step(400);  // 4 mm apart on each side: no contact left
  CHECK(s.sim.deformed_radii()[0] == 5e-3);
  CHECK(s.sim.deformation_report().deformed == 0);
  CHECK(s.sim.deformation_report().iterations == 0);
}

TEST_CASE("deform: volume is conserved per particle in a dense packing to 1e-9 (double precision)") {
  if (sanitized) return;  // a settling run
  const dem::aabb box{{0, 0, 0}, {0.02, 0.02, 0.03}};
  dem::simulation_config c;
  c.domain = box;
  c.dt = 2e-5;
  linear s(c);
  const auto m = s.add_material({"soft", 2000, 1e7, 0.3, 0.3, 0.3, 0.0});
  s.materials().set_pair(m, m, dem::pair_override{.normal_stiffness = 20.0});  // soft: overlaps of a few per cent
  s.add_box(box, m);
  dem::sample::lattice_options lo;
  lo.radius = 1.6e-3;
  lo.radius_spread = 0.15;
  lo.jitter = 2e-4;
  lo.max_count = 150;
  s.add_particles(dem::sample::cubic_lattice({{0, 0, 0}, {0.02, 0.02, 0.03}}, lo), m);
  s.step(10000);  // 0.2 s: the column falls and packs under gravity
  // Hold every particle where it is and let the radii settle (a Jacobi sweep per step).
  s.set_families(std::vector<dem::family::family_id>(s.num_particles(), 1));
  s.set_family_motion(1, dem::family::fixed{});
  s.step(400);
  const dem::deformation_report rep = s.deformation_report();
  CHECK(rep.deformed > s.num_particles() / 2);
  CHECK(rep.max_ratio > 1.002);
  MESSAGE("deformed " << rep.deformed << " of " << rep.particles << ", largest R'/R " << rep.max_ratio << ", mean Newton iterations "
                      << rep.mean_iterations << ", most " << rep.max_iterations);
  const auto x = s.positions();
  const auto R = s.radii();
  const auto Rd = s.deformed_radii();
  double worst = 0;
  for (std::size_t i = 0; i < x.size(); ++i) worst = std::max(worst, std::fabs(volume_error(x, R, Rd, box, i)));
  CHECK(worst < 1e-9);
}

TEST_CASE("deform: the same bits whatever the margin (no contact missed as radii grow) and across a checkpoint") {
  if (sanitized) return;
  const auto a = check_same_bits_for_two_margins<linear>();
  // Saved and restored mid-run, the run goes on with the same bits.
  char name[] = "/tmp/dem_deform_XXXXXX";
  const int fd = mkstemp(name);
  REQUIRE(fd >= 0);
  close(fd);
  auto cont = small_bed<linear>(1e-4);
  cont->step(4000);
  cont->save_checkpoint(name);
  auto restored = linear::from_checkpoint(name);
  std::remove(name);
  restored.step(4000);
  CHECK(restored.positions() == a->positions());
  CHECK(restored.deformed_radii() == a->deformed_radii());
  CHECK(restored.deformation_limit() == a->deformation_limit());
}

TEST_CASE("deform: every law sees the enlarged spheres (Hertz-Mindlin, cohesive, single precision)") {
  if (sanitized) return;
  auto check = [](auto tag) {
    using S = typename decltype(tag)::type;
    dem::simulation_config c;
    c.domain = {{0, 0, 0}, {0.01, 0.01, 0.02}};
    c.dt = 1e-5;
    S s(c);
    const auto m = s.add_material({"soft", 2000, 2e6, 0.3, 0.5, 0.5, 0.0, 0.3, 0.05, 1e-4});
    s.add_box(c.domain, m);
    dem::sample::lattice_options lo;
    lo.radius = 1.2e-3;
    lo.jitter = 2e-4;
    lo.max_count = 40;
    s.add_particles(dem::sample::cubic_lattice(c.domain, lo), m);
    s.step(40000);  // 0.4 s: fallen, settled and at rest
    const auto rep = s.deformation_report();
    CHECK(rep.deformed > 0);
    CHECK(rep.max_ratio > 1.0);
    CHECK(rep.max_ratio < 1.2);
    // The bed rests: the enlarged spheres carry the weight.
    const auto v = s.velocities();
    double vmax = 0;
    for (const vec3d& u : v) vmax = std::max(vmax, dem::norm(u));
    CHECK(vmax < 0.01);
  };
  check(std::type_identity<deformable_t<dem::force::hertz_mindlin>>{});
  check(std::type_identity<deformable_t<dem::force::hertz_mindlin, dem::precision::single>>{});
  check(std::type_identity<deformable_t<dem::force::hertz_mindlin_cohesive>>{});
}

TEST_CASE("deform: named errors: a limit below 1, a radius beyond the limit") {
  squeezed s = between_walls(5e-3, 3.3e-3);
  CHECK_THROWS_WITH_AS(s.sim.set_deformation_limit(0.5), doctest::Contains("set_deformation_limit: ratio is 0.5"), std::invalid_argument);
  s.sim.set_deformation_limit(1.3);  // 3.3 mm needs 1.434 R
  CHECK_THROWS_WITH_AS(s.sim.step(2), doctest::Contains("deformable sphere 0 (radius 0.005 m) at step 1"), std::runtime_error);
  squeezed t = between_walls(5e-3, 3.3e-3);
  try {
    t.sim.set_deformation_limit(1.3);
    t.sim.step(1);
    FAIL("no error");
  } catch (const std::runtime_error& e) {
    CHECK(std::string(e.what()).find("set_deformation_limit (now 1.3)") != std::string::npos);
  }
}

TEST_CASE("deform: with an interval the radii are solved every k-th step only") {
  squeezed s = between_walls(5e-3, 5e-3);
  CHECK_THROWS_WITH_AS(s.sim.set_deformation_interval(0), doctest::Contains("set_deformation_interval: steps is 0"), std::invalid_argument);
  s.sim.set_deformation_interval(4);
  s.sim.step(1);  // step 0 solves
  s.sim.set_motion(s.lower, dem::boundary::constant_velocity{{0, 0, 0.5}});  // squeezing on: R' grows at every solve
  double last = s.sim.deformed_radii()[0];
  for (int k = 1; k <= 12; ++k) {
    CAPTURE(k);
    s.sim.step(1);  // step k: solves when k % 4 == 0
    const double now = s.sim.deformed_radii()[0];
    if (k % 4 == 0) CHECK(now > last);
    else CHECK(now == last);
    last = now;
  }
}

TEST_CASE("deform: integrators that move after the force evaluation solve before it (symplectic Euler): the closed form and the same bits for any margin") {
  squeezed<euler> s = between_walls<euler>(5e-3, 5e-3);
  s.sim.step(3);
  CHECK(s.sim.deformed_radii()[0] == doctest::Approx(5.951190357e-3).epsilon(1e-9).scale(0));
  if (sanitized) return;
  check_same_bits_for_two_margins<euler>();
}
