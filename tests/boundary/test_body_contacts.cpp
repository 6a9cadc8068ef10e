// Polyhedra against triangle meshes and plates (boundary/body_contacts.hpp,
// shape/polyhedron/collide_polygon.hpp): a flat mesh of any number of triangles acts as the plane,
// a convex edge gives one contact, a concave crease one per face, and history goes on across seams.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "dem/shape/polyhedron.hpp"
#include "support/scenarios.hpp"

using namespace dem_test;

namespace {

std::string str(const dem::vec3d& v) {
  return "(" + std::to_string(v.x) + ", " + std::to_string(v.y) + ", " + std::to_string(v.z) + ")";
}

using cube_sim = dem::Simulator<dem::policies<dem::shape::polyhedron<8>, dem::force::hertz_mindlin, dem::integrate::velocity_verlet, dem::precision::double_>,
                                test_backend>;

constexpr double h = 0.005;  // the cube's half edge
constexpr double g_accel = 9.81;
constexpr double cube_mass = 2500 * 8 * h * h * h;

dem::shape::poly::polyhedron_template cube_template() {
  std::vector<dem::vec3d> pts;
  for (int i = 0; i < 8; ++i) pts.push_back({(i & 1 ? h : -h), (i & 2 ? h : -h), (i & 4 ? h : -h)});
  return dem::shape::poly::make_polyhedron_template(pts, "cube");
}

dem::simulation_config config() {
  dem::simulation_config cfg;
  cfg.domain = {{-0.1, -0.1, -0.05}, {0.1, 0.1, 0.1}};
  cfg.gravity = {0, 0, -g_accel};
  cfg.dt = 2e-6;
  return cfg;
}

// The square [-a, a]^2 at height z as n x n squares of two triangles each, the diagonals
// alternating (so seams run along x, along y and diagonally).
dem::boundary::triangle_mesh floor_mesh(int n, double a, double z = 0) {
  dem::boundary::triangle_mesh m;
  m.name = "floor " + std::to_string(2 * n * n);
  for (int j = 0; j <= n; ++j)
    for (int i = 0; i <= n; ++i) m.vertices.push_back({-a + 2 * a * i / n, -a + 2 * a * j / n, z});
  auto v = [&](int i, int j) { return static_cast<std::uint32_t>(j * (n + 1) + i); };
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      if ((i + j) % 2 == 0) {
        m.triangles.push_back({v(i, j), v(i + 1, j), v(i + 1, j + 1)});
        m.triangles.push_back({v(i, j), v(i + 1, j + 1), v(i, j + 1)});
      } else {
        m.triangles.push_back({v(i, j), v(i + 1, j), v(i, j + 1)});
        m.triangles.push_back({v(i + 1, j), v(i + 1, j + 1), v(i, j + 1)});
      }
    }
  return m;
}

struct run {
  double rest_fz = 0;  // the surface's vertical load at rest, before the push
  std::vector<dem::vec3d> x, v;
  std::vector<double> fz;  // the surface's vertical load after each segment
};

// A cube dropped flat onto the surface `add` builds, settled, then pushed along +x (and a little
// +y) at v0 across the floor's seams, recorded every `every` steps.
template <class Add>
run drop_and_slide(Add&& add, double v0, int segments, int every) {
  cube_sim sim(config());
  const auto m = sim.add_material({"m", 2500, 1e7, 0.3, 0.5, 0.3, 0.0});
  const std::uint32_t b = add(sim, m);
  const auto cube = sim.add_shape(cube_template());
  dem::particle_set s;
  s.positions = {{-0.021, -0.013, 1.002 * h}};
  sim.add_bodies(cube, s, {}, m);
  sim.advance(0.05);
  run r;
  r.rest_fz = sim.boundary_force(b).z;
  sim.set_velocities({{v0, 0.3 * v0, 0}});
  for (int k = 0; k < segments; ++k) {
    sim.step(every);
    r.x.push_back(sim.positions()[0]);
    r.v.push_back(sim.velocities()[0]);
    r.fz.push_back(sim.boundary_force(b).z);
  }
  CHECK(sim.num_lost() == 0);
  return r;
}

}  // namespace

TEST_CASE("polyhedron on a mesh: a flat floor of 2, 8 or 200 triangles, and a plate, act as the plane") {
  const int segments = sanitized ? 10 : 60, every = 500;
  const double v0 = 0.4;
  const run plane = drop_and_slide([](cube_sim& s, dem::material_id m) { return s.add_plane({0, 0, 0}, {0, 0, 1}, m); }, v0, segments, every);
  // Resting and sliding, the plane carries the weight (no tipping, no bounce at this speed).
  CHECK(plane.rest_fz == doctest::Approx(-cube_mass * g_accel).epsilon(1e-6));
  if (!sanitized) CHECK(plane.x.back().x > plane.x.front().x + 0.01);  // it slid over several seams of the finer floors
  auto compare = [&](const run& r) {
    double dx = 0, dv = 0, df = 0;
    for (int k = 0; k < segments; ++k) {
      dx = std::max(dx, dem::norm(r.x[k] - plane.x[k]));
      dv = std::max(dv, dem::norm(r.v[k] - plane.v[k]));
      df = std::max(df, std::abs(r.fz[k] - plane.fz[k]));
    }
    df = std::max(df, std::abs(r.rest_fz - plane.rest_fz));
    MESSAGE("largest difference from the plane: position " << dx << " m, velocity " << dv << " m/s, load " << df << " N");
    CHECK(dx < 1e-9);
    CHECK(dv < 1e-8);
    CHECK(df < 1e-6 * cube_mass * g_accel);
  };
  for (int n : {1, 2, 10}) {
    CAPTURE(n);
    compare(drop_and_slide([n](cube_sim& s, dem::material_id m) { return s.add_mesh(floor_mesh(n, 0.05), m); }, v0, segments, every));
  }
  compare(drop_and_slide([](cube_sim& s, dem::material_id m) { return s.add_plate({0, 0, 0}, {0, 0, 1}, {1, 0, 0}, 0.05, 0.05, m); }, v0, segments, every));
}

TEST_CASE("polyhedron on a mesh: over a convex edge one triangle holds it, and past its balance it tips off") {
  // A block's top face at z = 0 ends at x = 0 (a box mesh of 12 triangles). A cube with 35 % of its
  // base beyond the edge is held by the top face alone: its side triangles, which meet the cube's
  // base along the edge, never carry load (their contact is the top face's). It tilts onto the edge
  // by a few milliradians (its single contact point moves under its centre of mass as the depth
  // grows towards the edge) and its load averages the weight. With 70 % beyond, it tips off.
  auto rest = [](double centre_x, double seconds, double& tilt, double& mean_load, bool& side_loaded) {
    cube_sim sim(config());
    const auto m = sim.add_material({"m", 2500, 1e7, 0.3, 0.5, 0.5, 0.0});
    const std::uint32_t b = sim.add_mesh(dem::boundary::box_mesh({{-0.05, -0.05, -0.04}, {0.0, 0.05, 0.0}}), m);
    const auto cube = sim.add_shape(cube_template());
    dem::particle_set s;
    s.positions = {{centre_x, 0, h * 1.002}};
    sim.add_bodies(cube, s, {}, m);
    sim.advance(0.02);
    const int segments = int(seconds / 0.002);
    double load = 0;
    side_loaded = false;
    tilt = 0;
    for (int k = 0; k < segments; ++k) {
      sim.step(1000);
      load += sim.boundary_force(b).z;
      const std::vector<dem::vec3d> per = sim.boundary_element_forces(b);
      for (std::size_t e = 0; e < per.size(); ++e)
        if (e != 2 && e != 3 && dem::norm(per[e]) > 0) side_loaded = true;  // triangles 2 and 3: the top face
      const dem::quatd q = sim.orientations()[0];
      tilt = std::max(tilt, 2 * std::atan2(std::hypot(q.x, q.y), std::abs(q.w)));
    }
    mean_load = -load / segments;
    CHECK(sim.num_lost() == 0);
    return sim.positions()[0];
  };
  double tilt = 0, load = 0;
  bool side = false;
  const dem::vec3d held = rest(-0.3 * h, sanitized ? 0.06 : 0.3, tilt, load, side);
  MESSAGE("35 % over the edge: at x = " << held.x << " m, largest tilt " << tilt << " rad, mean load " << load / (cube_mass * g_accel) << " m g");
  CHECK(!side);
  CHECK(tilt < 0.01);
  CHECK(std::abs(held.x + 0.3 * h) < 0.02 * h);  // it stays where it was put
  CHECK(held.z > 0.98 * h);
  CHECK(load == doctest::Approx(cube_mass * g_accel).epsilon(0.01));
  rest(0.4 * h, 0.1, tilt, load, side);  // 70 % over: its centre of mass is past the edge
  CHECK(tilt > 0.3);
}

TEST_CASE("polyhedron on a mesh: in a concave crease it touches both faces") {
  // A V-groove of two faces at +-45 degrees (a mesh of 4 triangles), axis along y. A cube turned by
  // 45 degrees about y sits in it on two faces: each carries m g / sqrt(2) along its normal
  // (frictionless: with friction the split between the faces' normal and tangential loads would be
  // set by the history of the landing).
  cube_sim sim(config());
  const auto m = sim.add_material({"m", 2500, 1e7, 0.3, 0.5, 0.0, 0.0});
  dem::boundary::triangle_mesh v;
  v.name = "groove";
  const double L = 0.03;
  v.vertices = {{-L, -L, L}, {-L, L, L}, {0, -L, 0}, {0, L, 0}, {L, -L, L}, {L, L, L}};
  v.triangles = {{0, 2, 3}, {0, 3, 1}, {2, 4, 5}, {2, 5, 3}};
  const std::uint32_t b = sim.add_mesh(v, m);
  const auto cube = sim.add_shape(cube_template());
  dem::particle_set s;
  s.positions = {{0, 0, h * std::sqrt(2.0) * 1.02}};
  sim.add_bodies(cube, s, {dem::from_axis_angle(dem::vec3d{0, 1, 0}, M_PI / 4)}, m);
  sim.advance(sanitized ? 0.04 : 0.1);
  const std::vector<dem::vec3d> per = sim.boundary_element_forces(b);
  const dem::vec3d left = per[0] + per[1], right = per[2] + per[3];
  const double w = cube_mass * g_accel;
  MESSAGE("left face " << str(left) << " N, right face " << str(right) << " N");
  CHECK(sim.boundary_force(b).z == doctest::Approx(-w).epsilon(1e-4));
  CHECK(dem::norm(left) == doctest::Approx(w / std::sqrt(2.0)).epsilon(1e-3));
  CHECK(dem::norm(right) == doctest::Approx(w / std::sqrt(2.0)).epsilon(1e-3));
  CHECK(sim.positions()[0].x == doctest::Approx(0).scale(1e-6));
}

TEST_CASE("polyhedron on a mesh: a body dropped on the ridge of a lifter bar topples off it") {
  // A cube dropped on the ridge of a box (a lifter bar) lands on an edge and topples to one side;
  // it never sinks into the bar nor is thrown off by a doubled force.
  cube_sim sim(config());
  const auto m = sim.add_material({"m", 2500, 1e7, 0.3, 0.3, 0.5, 0.0});
  sim.add_plane({0, 0, -0.02}, {0, 0, 1}, m);
  const dem::vec3d axes[3] = {dem::vec3d{M_SQRT1_2, 0, M_SQRT1_2}, {0, 1, 0}, dem::vec3d{-M_SQRT1_2, 0, M_SQRT1_2}};
  dem::boundary::triangle_mesh bar;
  bar.name = "bar";
  dem::boundary::append_box(bar, {0, 0, -0.01}, axes, {0.01, 0.04, 0.01});  // a square bar turned by 45 degrees: its ridge at z = 0.0041
  sim.add_mesh(bar, m);
  const auto cube = sim.add_shape(cube_template());
  dem::particle_set s;
  s.positions = {{0.001, 0, 0.0041 + 1.5 * h}};
  sim.add_bodies(cube, s, {}, m);
  double highest_speed = 0;
  for (int k = 0; k < (sanitized ? 20 : 100); ++k) {
    sim.step(1000);
    highest_speed = std::max(highest_speed, dem::norm(sim.velocities()[0]));
  }
  const dem::vec3d x = sim.positions()[0];
  MESSAGE("cube after 0.2 s at " << str(x) << ", fastest " << highest_speed << " m/s");
  CHECK(sim.num_lost() == 0);
  CHECK(highest_speed < std::sqrt(2 * g_accel * 0.03));  // no energy gained: at most the speed of its fall
  if (!sanitized) {  // under the sanitizers: the landing only
    CHECK(x.x > 0.0);  // toppled to the side it leant to
    CHECK(x.z < 0.0);  // and fell past the bar's ridge
  }
}
