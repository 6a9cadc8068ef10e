// Boundaries on every backend: triangle meshes against the analytic plane they tile (resting,
// sliding and rolling across edges and vertices, restitution on faces, edges and corners), a bed
// in a mesh box against a plane box, a sphere rolling in a rotating drum, a servo wall, a mesh
// following its prescribed pose, readouts independent of the thread count, and bad input.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <map>
#include <vector>

#if defined(_OPENMP)
#include <omp.h>
#endif

#include "dem/sample/lattice.hpp"
#include "support/scenarios.hpp"

using namespace dem_test;
using dem::vec3d;
namespace bd = dem::boundary;

namespace {
using sim = sim_t<dem::force::hertz_mindlin>;  // double precision

// The square [-h, h]^2 at height z, as n x n squares each split along its diagonal (2 n^2 triangles).
bd::triangle_mesh floor_mesh(int n, double h, double z = 0) {
  bd::triangle_mesh m;
  m.name = "floor " + std::to_string(2 * n * n);
  for (int i = 0; i <= n; ++i)
    for (int j = 0; j <= n; ++j) m.vertices.push_back({-h + 2 * h * i / n, -h + 2 * h * j / n, z});
  auto v = [&](int i, int j) { return static_cast<std::uint32_t>(i * (n + 1) + j); };
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      m.triangles.push_back({v(i, j), v(i + 1, j), v(i + 1, j + 1)});
      m.triangles.push_back({v(i, j), v(i + 1, j + 1), v(i, j + 1)});
    }
  return m;
}


const dem::material glass{"glass", 2500, 1e8, 0.3, 0.5, 0.4, 0.0};

struct track {
  std::vector<vec3d> x, w, floor_force;
};

// A sphere (r = 2 mm) at rest on the floor (0 = the plane z = 0, else a mesh of the square
// [-12, 12] mm^2 with that many squares per side), launched at v0; the floor's force, the centre and
// the spin per step.
track slide(int squares, vec3d start, vec3d v0, int steps, double rolling_friction = 0) {
  const double r = 2e-3;
  dem::simulation_config cfg;
  cfg.domain = {{-0.05, -0.05, -0.01}, {0.05, 0.05, 0.05}};
  cfg.dt = 2e-6;
  sim s(cfg);
  s.set_log(nullptr);
  dem::material m = glass;
  m.rolling_friction = rolling_friction;
  const auto mat = s.add_material(m);
  if (squares == 0) s.add_plane({0, 0, 0}, {0, 0, 1}, mat);
  else s.add_mesh(floor_mesh(squares, 0.012), mat);
  // Resting overlap: 4/3 E* sqrt(r) d^(3/2) = m g.
  const double mass = 2500 * 4.0 / 3 * M_PI * r * r * r, estar = 1e8 / (2 * (1 - 0.09));
  const double d = std::pow(mass * 9.81 / (4.0 / 3 * estar * std::sqrt(r)), 2.0 / 3);
  dem::particle_set p;
  p.positions = {{start.x, start.y, r - d}};
  p.radii = {r};
  p.velocities = {v0};
  s.add_particles(p, mat);
  track t;
  for (int k = 0; k < steps; ++k) {
    s.step();
    t.x.push_back(s.positions()[0]);
    t.w.push_back(s.angular_velocities()[0]);
    t.floor_force.push_back(s.boundary_force(0));
  }
  return t;
}
}  // namespace

TEST_CASE("mesh floors act as the plane they tile: resting, sliding and rolling across edges and vertices") {
  const double r = 2e-3, mass = 2500 * 4.0 / 3 * M_PI * r * r * r, weight = mass * 9.81;
  // Along the diagonal x = y: on the seams of every square and through vertices; and across edges
  // at arbitrary points.
  for (const vec3d dir : {vec3d{1, 1, 0} / std::sqrt(2.0), vec3d{1, 0.3, 0} / std::sqrt(1.09)}) {
    if (sanitized && dir.y != dir.x) continue;  // under the sanitizers: the diagonal, through the vertices, only
    const vec3d start{-0.01, -0.01 * dir.y / dir.x, 0};
    const int steps = 20000;  // 40 ms: sliding for 2 v0 / (7 mu g) = 36 ms, then rolling
    const track plane = slide(0, start, dir * 0.5, steps, 0.02);
    for (int squares : {1, 2, 10}) {
      CAPTURE(squares);
      CAPTURE(dir.y);
      const track mesh = slide(squares, start, dir * 0.5, steps, 0.02);
      double worst_force = 0, worst_x = 0, worst_w = 0;
      for (int k = 0; k < steps; ++k) {
        worst_force = std::max(worst_force, std::fabs(mesh.floor_force[k].z + weight) / weight);
        worst_x = std::max(worst_x, norm(mesh.x[k] - plane.x[k]));
        worst_w = std::max(worst_w, norm(mesh.w[k] - plane.w[k]));
      }
      CHECK(worst_force < 1e-6);   // the floor carries the weight, no spike at edges or vertices
      CHECK(worst_x < 1e-12);      // the same path as on the plane: the tangential spring carried across
      CHECK(worst_w < 1e-9);
      // It crossed: over 15 mm, through the centre vertex or seams of 2 and 8 triangles and six
      // squares of 200.
      CHECK(norm(mesh.x.back() - mesh.x.front()) > 0.015);
    }
  }
}

TEST_CASE("every mesh is searched: spheres rest on the first and on the second of two meshes") {
  // Each mesh's hierarchy sits after the previous ones' in one array. Until 2026-12-06 the search
  // offset the second mesh's nodes twice: a sphere over it read past the array, or fell through.
  const double r = 2e-3, mass = 2500 * 4.0 / 3 * M_PI * r * r * r, weight = mass * 9.81;
  dem::simulation_config cfg;
  cfg.domain = {{-0.05, -0.05, -0.01}, {0.05, 0.05, 0.05}};
  cfg.dt = 2e-6;
  sim s(cfg);
  s.set_log(nullptr);
  const auto mat = s.add_material(glass);
  bd::triangle_mesh low = floor_mesh(10, 0.012), high = floor_mesh(10, 0.012, 0.02);
  for (vec3d& v : high.vertices) v.x += 0.03;  // beside the first, higher
  const std::uint32_t first = s.add_mesh(low, mat), second = s.add_mesh(high, mat);
  dem::particle_set p;
  p.positions = {{0.003, 0.002, 1.01 * r}, {0.033, 0.002, 0.02 + 1.01 * r}};
  p.radii = {r, r};
  s.add_particles(p, mat);
  s.advance(0.05);
  CHECK(s.boundary_force(first).z == doctest::Approx(-weight).epsilon(1e-6));
  CHECK(s.boundary_force(second).z == doctest::Approx(-weight).epsilon(1e-6));
  CHECK(s.positions()[1].z == doctest::Approx(0.02 + r).epsilon(1e-3));
}

TEST_CASE("restitution on a mesh face, edge and corner equals the input") {
  // A cube mesh (12 triangles, 10 mm side) hit by a sphere moving towards its face centre, the
  // middle of an edge (along the bisector) and a corner (along the diagonal).
  const dem::aabb cube{{-0.005, -0.005, -0.005}, {0.005, 0.005, 0.005}};
  const double r = 1e-3, speed = 0.5;
  for (const double e : {0.3, 0.8}) {
    double face_peak = 0;
    for (const vec3d target : {vec3d{0, 0, 0.005}, vec3d{0, 0.005, 0.005}, vec3d{0.005, 0.005, 0.005}}) {
      const vec3d n = (target - vec3d{0, 0, 0}) / norm(target);  // outward: face normal, edge bisector, corner diagonal
      dem::simulation_config cfg = zero_g_config(0.05);
      cfg.dt = 2e-7;
      sim s(cfg);
      s.set_log(nullptr);
      dem::material m = glass;
      m.restitution = e;
      m.friction = 0;
      const auto mat = s.add_material(m);
      dem::material rigid = m;
      rigid.rigid = true;
      const auto wall = s.add_material(rigid);
      s.add_mesh(bd::box_mesh(cube), wall);
      dem::particle_set p;
      p.positions = {target + n * (r + 1e-5)};
      p.radii = {r};
      p.velocities = {n * -speed};
      s.add_particles(p, mat);
      double peak = 0;
      for (int k = 0; k < 1000; ++k) {
        s.step();
        peak = std::max(peak, norm(s.boundary_force(0)));
      }
      const double out = dot(s.velocities()[0], n);
      CAPTURE(e);
      CAPTURE(target.y);
      CAPTURE(target.x);
      CHECK(out / speed == doctest::Approx(e).epsilon(0.02));
      // One contact: the sphere left along the line it came, and the peak force is the face's (two
      // contacts at one point would make the contact twice as stiff).
      const vec3d v = s.velocities()[0];
      CHECK(norm(v - n * dot(v, n)) < 1e-9 * speed);
      if (target.y == 0) face_peak = peak;
      else CHECK(peak == doctest::Approx(face_peak).epsilon(0.01));
    }
  }
}

TEST_CASE("a bed in a 12-triangle mesh box matches the bed in a plane box" * doctest::skip(sanitized)) {
  // 300 spheres poured into a 14 x 14 mm box with frictionless walls: bed height within 2 %, and
  // once settled the floor carries the bed's weight within 0.5 % (scripts/validate-boundaries.sh
  // runs the 10,000-sphere bed). The height is twice the volume-weighted mean centre height: the
  // highest sphere's top is one particle of a chaotic settling, and its mesh/plane difference was
  // 3.2 % on the H200 (2026-12-04, FMA-contracted device arithmetic) and up to 3.8 % on the host
  // over six lattice seeds built with -ffp-contract=fast; the centroid differed by 1.0 % at most
  // over those twelve pairs (a wall offset by a tenth of a radius moves it by about 2 %).
  const dem::aabb box{{0, 0, 0}, {0.014, 0.014, 0.03}};
  struct result { double height, floor, weight; };
  auto run = [&](bool mesh) {
    dem::simulation_config cfg;
    cfg.domain = {{-0.001, -0.001, -0.001}, {0.015, 0.015, 0.031}};
    cfg.dt = 1e-5;
    sim_t<dem::force::hertz_mindlin_epsd> s(cfg);
    s.set_log(nullptr);
    const auto mat = s.add_material({"beads", 2500, 1e7, 0.3, 0.5, 0.5, 0.1});
    const auto walls = s.add_material({"walls", 2500, 1e7, 0.3, 0.5, 0.0, 0.0});
    s.materials().set_pair(mat, walls, {.friction = 0.0, .rolling_friction = 0.0});
    std::uint32_t floor = 0;
    if (mesh) {
      floor = s.add_mesh(bd::box_mesh(box), walls);
    } else {
      s.add_box(box, walls);
      floor = 2;  // box -z
    }
    dem::sample::lattice_options o;
    o.radius = 7e-4;
    o.radius_spread = 0.1;
    o.jitter = 1e-4;
    o.max_count = 300;
    s.add_particles(dem::sample::cubic_lattice({{0, 0, 0.001}, {0.014, 0.014, 0.03}}, o), mat);
    s.advance(0.25);
    double weight = 0, moment = 0;
    const auto x = s.positions();
    const auto snap = s.snapshot();
    for (std::size_t k = 0; k < x.size(); ++k) {
      const double m = 2500 * 4.0 / 3 * M_PI * std::pow(snap.radius[k], 3);
      weight += m * 9.81;
      moment += m * 9.81 * x[k].z;
    }
    const double height = 2 * moment / weight;
    double fz = 0;
    if (mesh) {  // the floor's two triangles: the mesh's triangles 0 and 1 (face z = 0)
      const auto per = s.boundary_element_forces(floor);
      fz = -(per[0].z + per[1].z);
    } else {
      fz = -s.boundary_force(floor).z;
    }
    return result{height, fz, weight};
  };
  const result plane = run(false), mesh = run(true);
  CHECK(mesh.height == doctest::Approx(plane.height).epsilon(0.02).scale(0));  // relative: about 4.2 mm
  CHECK(plane.floor == doctest::Approx(plane.weight).epsilon(0.005).scale(0));
  CHECK(mesh.floor == doctest::Approx(mesh.weight).epsilon(0.005).scale(0));
}

TEST_CASE("a sphere in a rotating drum rolls without slip at omega_drum R / r") {
  // The drum drags the sphere's contact point along: the sphere turns at omega_drum R / r (the
  // contact point at rest relative to the drum) and rocks about its equilibrium as a rolling
  // pendulum (nothing damps a rolling sphere but rolling resistance, which with a constant torque
  // only shifts the equilibrium to tan(theta) = mu_r up the wall).
  const double R = 0.02, r = 2e-3, w_drum = 2.0, mu_r = 0.05;
  dem::simulation_config cfg;
  cfg.domain = {{-0.03, -0.03, -0.03}, {0.03, 0.03, 0.03}};
  cfg.dt = 2e-6;
  cfg.gravity = {0, 0, -9.81};
  sim s(cfg);
  s.set_log(nullptr);
  dem::material m = glass;
  m.rolling_friction = mu_r;
  const auto mat = s.add_material(m);
  bd::axisymmetric drum;
  drum.base = {0, -0.01, 0};
  drum.axis = {0, 1, 0};
  drum.length = 0.02;
  drum.radius = R;
  drum.cap_base = drum.cap_top = true;
  const auto b = s.add_cylinder(drum, mat, "drum");
  s.set_motion(b, bd::constant_velocity{{0, 0, 0}, {0, w_drum, 0}, {0, 0, 0}});
  dem::particle_set p;
  p.positions = {{0, 0, -R + r}};
  p.radii = {r};
  s.add_particles(p, mat);
  s.advance(0.05);  // the slip phase is over within a few ms
  // Averages over exactly three periods of the rocking (a rolling pendulum in the drum:
  // T = 2 pi sqrt((R - r)(1 + 2/5) / g)): over a fraction of a period the rocking biases them.
  // (Under the sanitizers one period.)
  const double period = 2 * M_PI * std::sqrt((R - r) * 1.4 / 9.81);
  const int samples = static_cast<int>(std::lround((sanitized ? 1 : 3) * period / (100 * cfg.dt)));
  double worst_slip = 0, angle_sum = 0, power_sum = 0;
  for (int k = 0; k < samples; ++k) {
    s.step(100);
    const vec3d x = s.positions()[0], v = s.velocities()[0], w = s.angular_velocities()[0];
    const vec3d out = vec3d{x.x, 0, x.z} / std::hypot(x.x, x.z);  // from the axis to the sphere
    const vec3d c = x + out * r;                                   // the contact point
    const vec3d slip = (v + cross(w, out * r)) - cross(vec3d{0, w_drum, 0}, c);
    worst_slip = std::max(worst_slip, norm(slip));
    angle_sum += std::atan2(-x.x, -x.z);
    power_sum += s.boundary_power(b);
  }
  CHECK(worst_slip < 1e-3 * w_drum * R);
  INFO("mean angle " << angle_sum / samples << " rad over " << samples << " samples, mean power " << power_sum / samples << " W");
  CHECK(angle_sum / samples == doctest::Approx(std::atan(mu_r)).epsilon(0.1).scale(0));
  // The drum works against the rolling resistance: mu_r r N (omega_s - omega_drum) on average.
  const double weight = 2500 * 4.0 / 3 * M_PI * r * r * r * 9.81;
  CHECK(power_sum / samples == doctest::Approx(mu_r * r * weight * (w_drum * R / r - w_drum)).epsilon(0.05).scale(0));
}

TEST_CASE("a servo wall stops at its force target; a moving mesh follows its pose exactly") {
  dem::simulation_config cfg;
  cfg.domain = {{0, 0, 0}, {0.01, 0.01, 0.03}};
  cfg.dt = 1e-6;
  sim s(cfg);
  s.set_log(nullptr);
  const auto mat = s.add_material(glass);
  s.add_box({{0, 0, 0}, {0.01, 0.01, 0.03}}, mat);
  dem::sample::lattice_options o;
  o.radius = 8e-4;
  o.max_count = 40;
  s.add_particles(dem::sample::cubic_lattice({{0, 0, 0}, {0.01, 0.01, 0.01}}, o), mat);
  s.advance(sanitized ? 0.01 : 0.05);  // settle (the layers start touching: under the sanitizers a shorter wait)
  // The piston starts 1 mm above the bed (its approach at 0.05 m/s: 20,000 steps; 0.2 mm under the sanitizers).
  const double top = dem::inspect::particles(s).highest.z + 8e-4;
  const auto piston = s.add_plate({0.005, 0.005, top + (sanitized ? 2e-4 : 1e-3)}, {0, 0, -1}, {1, 0, 0}, 0.005, 0.005, mat, "piston");
  bd::servo sv;
  sv.direction = {0, 0, -1};
  sv.speed = 0.05;
  sv.target_force = 2.0;
  s.set_motion(piston, sv);
  double travel = 0;
  for (int k = 0; k < 200000 && !s.servo_state(piston).reached; ++k) s.step();
  REQUIRE(s.servo_state(piston).reached);
  CHECK(s.servo_state(piston).load == doctest::Approx(2.0).epsilon(0.01));
  travel = s.servo_state(piston).travel;
  s.step(100);
  CHECK(s.servo_state(piston).travel == travel);  // stopped

  // A mesh turning at constant angular velocity is where the rotation puts it, to rounding.
  const auto mesh = s.add_mesh(floor_mesh(2, 0.003, 0.025), mat, "turning");
  s.set_motion(mesh, bd::constant_velocity{{0, 0, 0}, {0, 0, 3.0}, {0.005, 0.005, 0}});
  const double t0 = s.time();
  s.step(1000);
  const double angle = 3.0 * (s.time() - t0);
  const bd::surface_triangles surf = s.boundary_surface();
  const bd::triangle_mesh original = floor_mesh(2, 0.003, 0.025);
  int checked = 0;
  for (std::size_t k = 0; k < surf.triangles.size(); ++k) {
    if (surf.boundary[k] != mesh) continue;
    const auto& tri = original.triangles[surf.element[k]];
    for (int c = 0; c < 3; ++c) {
      const vec3d v = original.vertices[tri[c]] - vec3d{0.005, 0.005, 0};
      const vec3d expect = vec3d{0.005 + v.x * std::cos(angle) - v.y * std::sin(angle), 0.005 + v.x * std::sin(angle) + v.y * std::cos(angle), v.z};
      CHECK(norm(surf.points[surf.triangles[k][c]] - expect) < 1e-12);
      ++checked;
    }
  }
  CHECK(checked == 24);
}

TEST_CASE("a free body falls with gravity, then rests on a bed carrying its weight") {
  dem::simulation_config cfg;
  cfg.domain = {{0, 0, 0}, {0.01, 0.01, 0.04}};
  cfg.gravity = {0, 0, -9.81};
  cfg.dt = 1e-6;
  sim s(cfg);
  s.set_log(nullptr);
  const auto mat = s.add_material(glass);
  s.add_box({{0, 0, 0}, {0.01, 0.01, 0.04}}, mat);
  dem::sample::lattice_options o;
  o.radius = 8e-4;
  o.max_count = 40;
  s.add_particles(dem::sample::cubic_lattice({{0, 0, 0}, {0.01, 0.01, 0.01}}, o), mat);
  s.advance(sanitized ? 0.005 : 0.05);  // settle (the sanitizers' run checks the free fall only)
  const double mass = 5e-4;  // 0.5 g: a lid on a bed of about 0.2 g, 0.5 mm above it (the fall below takes 20 um)
  const double top = dem::inspect::particles(s).highest.z + 8e-4;
  const auto lid = s.add_plate({0.005, 0.005, top + 5e-4}, {0, 0, -1}, {1, 0, 0}, 0.00499, 0.00499, mat, "lid");
  bd::free_body fb;
  fb.mass = mass;
  s.set_motion(lid, fb);
  // Free fall until it meets the bed: semi-implicit Euler, x_n = -g dt^2 n (n + 1) / 2.
  const int n = 2000;
  s.step(n);
  CHECK(s.free_body_state(lid).velocity.z == doctest::Approx(-9.81 * n * 1e-6).epsilon(1e-12));
  CHECK(s.free_body_state(lid).displacement.z == doctest::Approx(-9.81 * 1e-12 * n * (n + 1) / 2.0).epsilon(1e-12));
  // Then it lands and comes to rest on the bed: the bed carries its weight (the particles' load on
  // the lid is upward), and the lid no longer moves. (250,000 steps: not under the sanitizers.)
  if (sanitized) return;
  s.advance(0.2);
  double load = 0, lo = 1, hi = -1;
  const int window = 50000;  // 50 ms
  for (int k = 0; k < window; ++k) {
    s.step();
    load += s.free_body_state(lid).load.z / window;
    lo = std::min(lo, s.free_body_state(lid).displacement.z);
    hi = std::max(hi, s.free_body_state(lid).displacement.z);
  }
  INFO("mean load " << load << " N, weight " << mass * 9.81 << " N; band " << lo << " .. " << hi << " m");
  CHECK(std::abs(load - mass * 9.81) < 0.02 * mass * 9.81);
  CHECK(hi - lo < 1e-6);
  CHECK(hi < -2e-4);  // it came down onto the bed
  CHECK_THROWS_WITH_AS(s.set_motion(lid, bd::free_body{-1.0}), doctest::Contains("free_body mass is -1"), std::invalid_argument);
}

TEST_CASE("boundary readouts are the same bits for 1 and 2 threads") {
  auto run = [] {
    dem::simulation_config cfg;
    cfg.domain = {{-0.03, -0.03, -0.03}, {0.03, 0.03, 0.03}};
    cfg.dt = 5e-6;
    sim s(cfg);
    s.set_log(nullptr);
    const auto mat = s.add_material(glass);
    bd::axisymmetric drum;
    drum.base = {0, -0.01, 0};
    drum.axis = {0, 1, 0};
    drum.length = 0.02;
    drum.radius = 0.02;
    drum.cap_base = drum.cap_top = true;
    const auto b = s.add_cylinder(drum, mat, "drum");
    s.set_motion(b, bd::constant_velocity{{0, 0, 0}, {0, 4, 0}, {0, 0, 0}});
    const auto lifter = s.add_mesh(floor_mesh(3, 0.004, 0), mat, "lifter");  // a plate-like mesh inside, turning with it
    s.set_motion(lifter, bd::constant_velocity{{0, 0, 0}, {0, 4, 0}, {0, 0, 0}});
    dem::sample::lattice_options o;
    o.radius = 1e-3;
    o.max_count = sanitized ? 300 : 3000;  // under ASan + UBSan at -O0 the full charge takes minutes
    dem::particle_set set = dem::sample::cubic_lattice({{-0.012, -0.009, -0.013}, {0.012, 0.009, -0.002}}, o);
    set.velocities.assign(set.size(), vec3d{0, 0, -0.5});
    s.add_particles(set, mat);
    s.step(sanitized ? 3000 : 12000);  // fewer under the sanitizers: its lowest layer has landed on the drum by then
    std::vector<double> out;
    for (std::uint32_t k : {b, lifter}) {
      const bd::load l = s.boundary_load(k, {0, 0, 0});
      out.insert(out.end(), {l.force.x, l.force.y, l.force.z, l.torque.x, l.torque.y, l.torque.z, s.boundary_power(k)});
    }
    return out;
  };
#if defined(_OPENMP) && !defined(DEM_TEST_BACKEND_CUDA)
  const int before = omp_get_max_threads();
  omp_set_num_threads(1);
  const auto one = run();
  omp_set_num_threads(2);
  const auto two = run();
  omp_set_num_threads(before);
#else
  const auto one = run();
  const auto two = run();
#endif
  REQUIRE(one.size() == two.size());
  CHECK(std::memcmp(one.data(), two.data(), one.size() * sizeof(double)) == 0);
  CHECK(std::fabs(one[2]) > 0);  // the drum carries the load
}

TEST_CASE("bad boundary input is refused with a named error") {
  dem::simulation_config cfg = zero_g_config(0.1);
  sim s(cfg);
  const auto mat = s.add_material(glass);
  CHECK_THROWS_WITH(s.add_mesh("/nonexistent/mill.stl", mat), doctest::Contains("cannot be opened"));
  bd::triangle_mesh empty;
  empty.name = "empty.obj";
  CHECK_THROWS_WITH(s.add_mesh(empty, mat), doctest::Contains("has no triangles"));
  bd::triangle_mesh bad = floor_mesh(1, 0.01);
  bad.vertices[1].x = std::nan("");
  CHECK_THROWS_WITH(s.add_mesh(bad, mat), doctest::Contains("vertex 1 is not finite"));
  bad = floor_mesh(1, 0.01);
  bad.triangles.push_back({0, 0, 1});
  CHECK_THROWS_WITH(s.add_mesh(bad, mat), doctest::Contains("triangle 2 is degenerate"));
  CHECK_THROWS_WITH(s.add_mesh(floor_mesh(1, 0.01, 5.0), mat), doctest::Contains("lies entirely outside the domain"));
  bd::axisymmetric c;
  c.radius = -1;
  c.length = 0.05;
  CHECK_THROWS_WITH(s.add_cylinder(c, mat), doctest::Contains("cylinder radius is -1"));
  c.radius = 0.01;
  c.length = 0;
  CHECK_THROWS_WITH(s.add_cylinder(c, mat), doctest::Contains("cylinder length is 0"));
  c.length = 0.05;
  c.top_radius = 0;
  c.radius = 0;
  CHECK_THROWS_WITH(s.add_cone(c, mat), doctest::Contains("cone radii are 0 and 0"));
  CHECK_THROWS_WITH(s.add_disc({0, 0, 0}, {0, 0, 1}, 0.01, mat, 0.02), doctest::Contains("disc inner_radius is 0.02"));
  CHECK_THROWS_WITH(s.add_plane({0, 0, 5}, {0, 0, 1}, mat), doctest::Contains("lies entirely outside the domain"));
  CHECK_THROWS_WITH(s.add_plate({0, 0, 0}, {0, 0, 1}, {0, 0, 2}, 0.01, 0.01, mat), doctest::Contains("is parallel to its normal"));
  dem::material rigid = glass;
  rigid.rigid = true;
  const auto steel = s.add_material(rigid);
  dem::particle_set p;
  p.positions = {{0, 0, 0}};
  p.radii = {1e-3};
  CHECK_THROWS_WITH(s.add_particles(p, steel), doctest::Contains("which is rigid: rigid materials are for boundaries"));
  // A motion that yields NaN stops the run with the boundary's name, and the step it refused is
  // undone: no particle has been kicked or drifted, no boundary moved (a boundary whose motion is
  // computed before the failing one's included), the clock stands. Set right, the run goes on to
  // the same bits as one that never failed.
  const auto run = [&](dem::simulation_config c, bool fail) {
    sim t(c);
    t.set_log(nullptr);
    const auto m = t.add_material(glass);
    const auto mover = t.add_plate({0, 0, 0.05}, {0, 0, -1}, {1, 0, 0}, 0.01, 0.01, m, "mover");
    t.set_motion(mover, bd::constant_velocity{{0, 0, -1.0}, {0, 0, 0}, {0, 0, 0}});
    const auto plate = t.add_plate({0, 0, -0.05}, {0, 0, 1}, {1, 0, 0}, 0.01, 0.01, m, "shaker");
    t.set_motion(plate, [fail](double time) {
      bd::rigid_motion r;
      r.translation = {0, 0, fail && time > 1.5e-5 ? std::nan("") : 0.0};
      return r;
    });
    dem::particle_set q = p;
    q.velocities = {{0.1, 0, 0}};
    t.add_particles(q, m);
    t.step(1);
    if (fail) {
      const auto x = t.positions(), v = t.velocities();
      const auto surface = t.boundary_surface().points;
      CHECK_THROWS_WITH(t.step(5), doctest::Contains("the motion of boundary 'shaker' gives a pose or velocity that is not finite"));
      CHECK(t.step_count() == 1);
      CHECK(t.time() == c.dt);
      CHECK(t.positions()[0] == x[0]);
      CHECK(t.velocities()[0] == v[0]);
      const auto after = t.boundary_surface().points;
      REQUIRE(after.size() == surface.size());
      for (std::size_t k = 0; k < after.size(); ++k) CHECK(after[k] == surface[k]);
      t.set_motion(plate, bd::fixed{});
    }
    t.step(5);
    return std::pair{t.positions()[0], t.boundary_surface().points};
  };
  dem::simulation_config g = cfg;
  g.gravity = {0, 0, -9.81};
  g.dt = 1e-5;
  const auto failed = run(g, true), clean = run(g, false);
  CHECK(failed.first == clean.first);
  CHECK(failed.second == clean.second);
}
