// Rigid non-spherical bodies in the Simulator: polyhedra and clumps resting, tipping, sliding and
// colliding, against their analytic outcomes.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "dem/shape/clump.hpp"
#include "dem/shape/polyhedron.hpp"
#include "support/scenarios.hpp"

using namespace dem_test;

namespace {

template <class Shape, class Force = dem::force::hertz_mindlin>
using body_sim = dem::Simulator<dem::policies<Shape, Force, dem::integrate::velocity_verlet, dem::precision::double_>, test_backend>;
using cube_sim = body_sim<dem::shape::polyhedron<8>>;

constexpr double half_edge = 0.005;  // cube half_edge edge (1 cm cubes)
constexpr double g_accel = 9.81;

dem::shape::poly::polyhedron_template cube_template() {
  std::vector<dem::vec3d> pts;
  for (int i = 0; i < 8; ++i) pts.push_back({(i & 1 ? half_edge : -half_edge), (i & 2 ? half_edge : -half_edge), (i & 4 ? half_edge : -half_edge)});
  return dem::shape::poly::make_polyhedron_template(pts, "cube");
}

dem::simulation_config box_config(double dt = 2e-6) {
  dem::simulation_config cfg;
  cfg.domain = {{-0.1, -0.1, -0.01}, {0.1, 0.1, 0.1}};
  cfg.gravity = {0, 0, -g_accel};
  cfg.dt = dt;
  return cfg;
}

// Rotation angle about y of an orientation that is (close to) a rotation about y.
double angle_about_y(const dem::quatd& q) { return 2 * std::atan2(q.y, q.w); }

}  // namespace

TEST_CASE("polyhedron: a cube dropped flat comes to rest flat with zero torque") {
  cube_sim sim(box_config());
  const auto m = sim.add_material({"m", 2500, 1e7, 0.3, 0.5, 0.5, 0.0});
  sim.add_plane({0, 0, 0}, {0, 0, 1}, m);
  const auto cube = sim.add_shape(cube_template());
  dem::particle_set s;
  s.positions = {{0, 0, half_edge * 1.5}};
  sim.add_bodies(cube, s, {}, m);
  sim.advance(0.2);
  const auto q = sim.orientations()[0];
  const double mass = 2500 * 8 * half_edge * half_edge * half_edge;
  CHECK(std::abs(q.w) == doctest::Approx(1.0).epsilon(1e-9));
  CHECK(dem::norm(sim.torques()[0]) < 1e-9 * mass * g_accel * half_edge);
  CHECK(sim.velocities()[0].z == doctest::Approx(0).scale(1e-6));
  CHECK(sim.forces()[0].z == doctest::Approx(0).scale(1e-6 * mass * g_accel));  // contact carries the weight
  CHECK(sim.positions()[0].z < half_edge);
  CHECK(sim.positions()[0].z > 0.99 * half_edge);
}

TEST_CASE("polyhedron: a cube balanced on an edge tips over towards its centre of mass") {
  for (double tilt_deg : {40.0, 50.0}) {
    CAPTURE(tilt_deg);
    cube_sim sim(box_config());
    const auto m = sim.add_material({"m", 2500, 1e7, 0.3, 0.3, 0.8, 0.0});
    sim.add_plane({0, 0, 0}, {0, 0, 1}, m);
    const auto cube = sim.add_shape(cube_template());
    const double tilt = tilt_deg * M_PI / 180;
    // Lowest corner height of a cube turned by `tilt` about y: half_edge (cos + sin).
    const double z0 = half_edge * (std::cos(tilt) + std::sin(tilt)) * 1.001;
    dem::particle_set s;
    s.positions = {{0, 0, z0}};
    sim.add_bodies(cube, s, {dem::from_axis_angle(dem::vec3d{0, 1, 0}, tilt)}, m);
    sim.advance(sanitized ? 0.08 : 0.5);
    const double a = angle_about_y(sim.orientations()[0]);
    // Below 45 degrees the centre of mass is on the side of the smaller angle: back to 0; above, on to 90.
    const double expected = tilt_deg < 45 ? 0.0 : M_PI / 2;
    MESSAGE("after " << sim.time() << " s: " << a * 180 / M_PI << " degrees");
    if (sanitized) {  // 80 ms, on its way: turned more than half-way from the start towards its rest
      CHECK(std::abs(a - expected) < 0.5 * std::abs(tilt - expected));
      continue;
    }
    CHECK(a == doctest::Approx(expected).epsilon(1e-3).scale(1));
    CHECK(sim.kinetic_energy() < 1e-9);
    CHECK(sim.positions()[0].z == doctest::Approx(half_edge).epsilon(0.01).scale(0));
  }
}

TEST_CASE("polyhedron: a cube sliding on a plane decelerates at mu g") {
  cube_sim sim(box_config());
  const double mu = 0.3;
  const auto m = sim.add_material({"m", 2500, 1e7, 0.3, 0.5, mu, 0.0});
  sim.add_plane({0, 0, 0}, {0, 0, 1}, m);
  const auto cube = sim.add_shape(cube_template());
  dem::particle_set s;
  s.positions = {{0, 0, half_edge * 0.999}};
  sim.add_bodies(cube, s, {}, m);
  sim.advance(0.02);  // settle onto the plane
  const double v0 = 0.5;
  sim.set_velocities({{v0, 0, 0}});
  const double t = 0.1;  // stops at v0 / (mu g) = 0.17 s
  sim.advance(t);
  CHECK(sim.velocities()[0].x == doctest::Approx(v0 - mu * g_accel * t).epsilon(0.02).scale(0));
  CHECK(std::abs(angle_about_y(sim.orientations()[0])) < 0.01);  // slides, does not tip
  if (sanitized) return;  // under the sanitizers: the deceleration only
  sim.advance(0.2);
  CHECK(std::abs(sim.velocities()[0].x) < 1e-4);
  CHECK(sim.positions()[0].x == doctest::Approx(v0 * v0 / (2 * mu * g_accel)).epsilon(0.03).scale(0));
}

TEST_CASE("polyhedron: an elastic, frictionless collision of two cubes conserves energy") {
  dem::simulation_config cfg = box_config(1e-6);
  cfg.gravity = {0, 0, 0};
  cube_sim sim(cfg);
  const auto m = sim.add_material({"m", 2500, 1e7, 0.3, 1.0, 0.0, 0.0});
  const auto cube = sim.add_shape(cube_template());
  dem::particle_set s;
  // Off-centre and tilted: the impact is on an edge and sets both cubes spinning.
  s.positions = {{-0.012, 0.002, 0}, {0.012, -0.002, 0.001}};
  s.velocities = {{0.3, 0, 0}, {-0.3, 0, 0}};
  sim.add_bodies(cube, s, {dem::from_axis_angle(dem::vec3d{0, 0, 1}, 0.3), dem::from_axis_angle(dem::vec3d{0, 1, 0}, 0.5)}, m);
  const double e0 = sim.kinetic_energy();
  sim.advance(0.08);
  CHECK(sim.num_touching_pairs() == 0);  // apart again
  const auto w = sim.angular_velocities();
  CHECK(dem::norm(w[0]) + dem::norm(w[1]) > 1.0);  // the collision made them spin
  CHECK(sim.kinetic_energy() == doctest::Approx(e0).epsilon(0.01).scale(0));
  // Momentum is conserved exactly (equal masses): velocities sum to zero.
  const auto v = sim.velocities();
  CHECK(dem::norm(v[0] + v[1]) < 1e-9);
}

TEST_CASE("clump: a free asymmetric clump keeps its angular momentum and energy") {
  dem::simulation_config cfg = box_config(1e-6);
  cfg.gravity = {0, 0, 0};
  body_sim<dem::shape::clump<4>> sim(cfg);
  const auto m = sim.add_material({"m", 2500, 1e7, 0.3, 1.0, 0.0, 0.0});
  const auto shape = sim.add_shape(dem::shape::clumps::three_sphere(0.002, 0.003, dem::shape::clumps::layout::triangle));
  dem::particle_set s;
  s.positions = {{0, 0, 0.05}};
  sim.add_bodies(shape, s, {dem::from_axis_angle(dem::vec3d{1, 1, 0} / std::sqrt(2.0), 0.7)}, m);
  sim.set_angular_velocities({{30, 5, 20}});
  auto momentum = [&] {
    const auto q = sim.orientations()[0];
    const dem::shape::clump_template t = dem::shape::clumps::three_sphere(0.002, 0.003, dem::shape::clumps::layout::triangle);
    return dem::integrate::angular_momentum(q, t.principal_inertia(2500), sim.angular_velocities()[0]);
  };
  const dem::vec3d l0 = momentum();
  const double e0 = sim.kinetic_energy();
  sim.advance(0.05);
  CHECK(dem::norm(momentum() - l0) < 1e-9 * dem::norm(l0));
  CHECK(sim.kinetic_energy() == doctest::Approx(e0).epsilon(1e-5).scale(0));
  CHECK(dem::norm(sim.angular_velocities()[0] - dem::vec3d{30, 5, 20}) > 1.0);  // omega itself precesses
}

TEST_CASE("clump: a dumbbell dropped on its end falls over and lies on both spheres") {
  body_sim<dem::shape::clump<2>> sim(box_config());
  const auto m = sim.add_material({"m", 2500, 1e7, 0.3, 0.5, 0.5, 0.0});
  sim.add_plane({0, 0, 0}, {0, 0, 1}, m);
  const double r = 0.002, d = 0.003;
  const auto shape = sim.add_shape(dem::shape::clumps::two_sphere(r, d));
  dem::particle_set s;
  s.positions = {{0, 0, r + d / 2 + 1e-4}};
  // Principal axis of the dumbbell (smallest moment) almost vertical: it topples.
  const auto t = dem::shape::clumps::two_sphere(r, d);
  dem::vec3d axis_body{0, 0, 0};
  axis_body[0] = 1;  // the smallest principal moment is I1: the dumbbell's axis
  const dem::quatd up = dem::from_axis_angle(dem::vec3d{0, 1, 0}, -M_PI / 2 + 0.05);
  sim.add_bodies(shape, s, {up}, m);
  sim.advance(sanitized ? 0.25 : 0.6);  // under the sanitizers: 0.25 s, by when it has come to rest (1.5e-16 J)
  CHECK(sim.kinetic_energy() < 1e-9);
  CHECK(sim.positions()[0].z == doctest::Approx(r).epsilon(0.01).scale(0));  // both spheres on the floor
  const dem::vec3d axis = dem::rotate(sim.orientations()[0], axis_body);
  CHECK(std::abs(axis.z) < 1e-3);
  (void)t;
}

TEST_CASE("clump: an elastic, frictionless collision of two clumps conserves energy and momentum") {
  dem::simulation_config cfg = box_config(1e-6);
  cfg.gravity = {0, 0, 0};
  body_sim<dem::shape::clump<4>> sim(cfg);
  const auto m = sim.add_material({"m", 2500, 1e7, 0.3, 1.0, 0.0, 0.0});
  const auto shape = sim.add_shape(dem::shape::clumps::tetrahedral_four_sphere(0.0015, 0.002));
  dem::particle_set s;
  s.positions = {{-0.004, 0.0005, 0}, {0.004, -0.0005, 0.0003}};
  s.velocities = {{0.2, 0, 0}, {-0.2, 0, 0}};
  sim.add_bodies(shape, s, {dem::quatd::identity(), dem::from_axis_angle(dem::vec3d{0, 0, 1}, 0.9)}, m);
  const double e0 = sim.kinetic_energy();
  sim.advance(0.05);
  CHECK(sim.num_touching_pairs() == 0);
  CHECK(sim.kinetic_energy() == doctest::Approx(e0).epsilon(0.01).scale(0));
  const auto v = sim.velocities();
  CHECK(dem::norm(v[0] + v[1]) < 1e-9);
  CHECK(std::abs(v[0].x) < 0.2);  // they did collide
}

// Polyhedra inside cylinders and cones: the walls of a container the bodies are inside, met vertex
// by vertex (boundary/element.hpp, behind_wall).
namespace {
// A horizontal cylinder along x, axis at height zc, radius R, capped at x = -/+ 0.02.
dem::boundary::axisymmetric tube(double zc, double R) {
  dem::boundary::axisymmetric c;
  c.base = {-0.02, 0, zc};
  c.axis = {1, 0, 0};
  c.length = 0.04;
  c.radius = R;
  c.cap_base = c.cap_top = true;
  return c;
}
// An upright container on the floor z = 10 mm, particles inside: a cylinder (top_radius < 0) or cone.
dem::boundary::axisymmetric upright(double length, double radius, double top_radius, bool caps) {
  dem::boundary::axisymmetric c;
  c.base = {0, 0, 0.01};
  c.axis = {0, 0, 1};
  c.length = length;
  c.radius = radius;
  c.top_radius = top_radius;
  c.cap_base = c.cap_top = caps;
  return c;
}
}  // namespace

TEST_CASE("polyhedron: a cube rests on the curved wall of a cylinder it is inside, which carries its weight") {
  // Flat on the bottom of the tube, the cube touches the wall along its two lower edges, at height
  // zc - sqrt(R^2 - h^2): its centre rests h above that (less the overlap), level and centred.
  const double zc = 0.03, R = 0.02;
  cube_sim sim(box_config());
  const auto m = sim.add_material({"m", 2500, 1e7, 0.3, 0.3, 0.5, 0.0});
  const auto b = sim.add_cylinder(tube(zc, R), m, "tube");
  const auto cube = sim.add_shape(cube_template());
  const double rest = zc - std::sqrt(R * R - half_edge * half_edge) + half_edge;
  dem::particle_set s;
  s.positions = {{0, 0, rest + 1e-4}};
  sim.add_bodies(cube, s, {}, m);
  sim.advance(sanitized ? 0.01 : 0.2);  // under the sanitizers: the drop and first contacts only
  CHECK(sim.num_lost() == 0);
  CHECK(sim.positions()[0].z < rest);
  if (sanitized) return;
  const double mass = 2500 * 8 * half_edge * half_edge * half_edge;
  const dem::vec3d x = sim.positions()[0], f = sim.boundary_force(b);
  MESSAGE("cube in a tube: centre at z = " << x.z << " (flat on the edges: " << rest << "), load " << f.z << " N (weight " << mass * g_accel << " N)");
  CHECK(x.z > rest - 0.01 * half_edge);
  CHECK(std::abs(x.y) < 1e-9);
  CHECK(std::abs(sim.orientations()[0].w) == doctest::Approx(1.0).epsilon(1e-9));
  CHECK(sim.kinetic_energy() < 1e-12);
  CHECK(f.z == doctest::Approx(-mass * g_accel).epsilon(1e-6).scale(0));  // the weight, on the tube
  CHECK(std::abs(f.x) + std::abs(f.y) < 1e-9 * mass * g_accel);
}

TEST_CASE("polyhedron: a cube stands on the cap of an upright cylinder and is held by a cone it is inside") {
  const double mass = 2500 * 8 * half_edge * half_edge * half_edge;
  {  // On the base cap of an upright tube: the cap is a floor.
    cube_sim sim(box_config());
    const auto m = sim.add_material({"m", 2500, 1e7, 0.3, 0.3, 0.5, 0.0});
    const auto b = sim.add_cylinder(upright(0.05, 0.02, -1, true), m, "can");
    dem::particle_set s;
    s.positions = {{0.003, 0.002, 0.01 + half_edge * 1.2}};
    sim.add_bodies(sim.add_shape(cube_template()), s, {dem::from_axis_angle(dem::vec3d{0, 0, 1}, 0.3)}, m);
    sim.advance(sanitized ? 0.01 : 0.15);
    CHECK(sim.num_lost() == 0);
    CHECK(sim.positions()[0].z > 0.01 + 0.99 * half_edge);
    if (!sanitized) {
      CHECK(sim.positions()[0].z < 0.01 + half_edge);
      CHECK(sim.boundary_force(b).z == doctest::Approx(-mass * g_accel).epsilon(1e-6).scale(0));
    }
  }
  {  // In a hopper (a cone opening upwards, 45 degrees, its tip cut at 4 mm radius): the cube drops
     // in tilted, wedges against the wall and the cone carries its weight.
    cube_sim sim(box_config());
    const auto m = sim.add_material({"m", 2500, 1e7, 0.3, 0.3, 0.5, 0.0});
    const auto b = sim.add_cone(upright(0.03, 0.004, 0.034, false), m, "hopper");
    dem::particle_set s;
    s.positions = {{0.001, 0, 0.03}};
    sim.add_bodies(sim.add_shape(cube_template()), s, {dem::from_axis_angle(dem::vec3d{1, 1, 0} / std::sqrt(2.0), 0.4)}, m);
    sim.advance(sanitized ? 0.01 : 0.3);
    CHECK(sim.num_lost() == 0);
    if (!sanitized) {
      const dem::vec3d x = sim.positions()[0];
      MESSAGE("cube in a hopper: rests at " << x.x << ", " << x.y << ", " << x.z);
      // No lower than its inscribed sphere (radius h) could go: touching the 45-degree wall, whose
      // radius at height z is 4 mm + (z - 10 mm), with its centre on the axis at sqrt(2) h from it.
      CHECK(x.z > 0.01 + std::sqrt(2.0) * half_edge - 0.004 - 1e-4);
      CHECK(sim.kinetic_energy() < 1e-12);
      CHECK(sim.boundary_force(b).z == doctest::Approx(-mass * g_accel).epsilon(1e-6).scale(0));
    }
  }
}

TEST_CASE("polyhedron: a cube in a turning drum is carried up the wall and stays inside") {
  // The drum (axis along x, turning at +8 rad/s) drags the bottom of its wall towards +y: the cube
  // is carried that way and up, and falls back; no vertex ever lies more than the contact's overlap
  // outside the drum.
  const double zc = 0.03, R = 0.02, w = 8.0;
  cube_sim sim(box_config());
  const auto m = sim.add_material({"m", 2500, 1e7, 0.3, 0.3, 0.8, 0.0});
  const auto b = sim.add_cylinder(tube(zc, R), m, "drum");
  sim.set_motion(b, dem::boundary::constant_velocity{{0, 0, 0}, {w, 0, 0}, {0, 0, zc}});
  const auto cube = sim.add_shape(cube_template());
  dem::particle_set s;
  s.positions = {{0, 0, zc - std::sqrt(R * R - half_edge * half_edge) + half_edge + 1e-4}};
  sim.add_bodies(cube, s, {}, m);
  double highest_y = 0, worst_outside = -1;
  const int rounds = sanitized ? 5 : 100;
  for (int k = 0; k < rounds; ++k) {
    sim.step(1000);
    const dem::vec3d x = sim.positions()[0];
    const dem::quatd q = sim.orientations()[0];
    highest_y = std::max(highest_y, x.y);
    for (int v = 0; v < 8; ++v) {
      const dem::vec3d corner = x + dem::rotate(q, dem::vec3d{(v & 1 ? half_edge : -half_edge), (v & 2 ? half_edge : -half_edge), (v & 4 ? half_edge : -half_edge)});
      worst_outside = std::max(worst_outside, std::hypot(corner.y, corner.z - zc) - R);
    }
  }
  MESSAGE("cube in a drum: carried to y = " << highest_y << ", deepest corner " << worst_outside << " m outside the wall");
  CHECK(sim.num_lost() == 0);
  CHECK(worst_outside < 0.05 * half_edge);  // the overlaps of its impacts; a vertex through the wall would be mm out
  if (!sanitized) CHECK(highest_y > 0.2 * R);  // carried along with the wall
}

TEST_CASE("polyhedron: every boundary kind is accepted; discs and the outside of cylinders are meshes of facets") {
  cube_sim sim(box_config());
  const auto m = sim.add_material({"m", 2500, 1e7, 0.3, 0.5, 0.5, 0.0});
  dem::boundary::axisymmetric rod = tube(0.03, 0.005);
  rod.inside = false;
  const std::uint32_t r = sim.add_cylinder(rod, m);
  const std::uint32_t d = sim.add_disc({0, 0, 0.01}, {0, 0, 1}, 0.01, m);
  CHECK(sim.boundary(r).kind == "cylinder");
  const std::uint32_t n = dem::boundary::default_facets;
  const std::size_t cap = dem::boundary::faceted_disc({0, 0, 0}, {0, 0, 1}, 1.0, 0, n).triangles.size();
  CHECK(sim.boundary(r).element_count == 2 * n + 2 * cap);  // the side (two triangles per facet) and two caps
  CHECK(sim.boundary(d).kind == "disc");
  CHECK(sim.boundary(d).element_count == cap);
  CHECK_NOTHROW(sim.add_cylinder(tube(0.03, 0.02), m));
  // A body poking through the wall of a container at the start is refused, as against a plane.
  const auto cube = sim.add_shape(cube_template());
  dem::particle_set s;
  s.positions = {{0, 0, 0.03 - 0.02 + 0.6 * half_edge}};  // its lower face 0.4 h below the wall
  sim.add_bodies(cube, s, {}, m);
  CHECK_THROWS_WITH_AS(sim.step(), doctest::Contains("overlaps boundary"), std::invalid_argument);
}

TEST_CASE("rigid bodies: bad input names the body, the shape and the problem") {
  cube_sim sim(box_config());
  const auto m = sim.add_material({"m", 2500, 1e7, 0.3, 0.5, 0.5, 0.0});
  const auto cube = sim.add_shape(cube_template());
  dem::particle_set s;
  s.positions = {{0, 0, 0.05}};
  CHECK_THROWS_WITH_AS(sim.add_bodies(7, s, {}, m), doctest::Contains("shape id 7 does not exist"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(sim.add_bodies(cube, s, {dem::quatd{0, 0, 0, 0}}, m), doctest::Contains("orientation of body 0 (shape 'cube') is not a unit quaternion"),
                       std::invalid_argument);
  s.positions = {{0, 0, 5}};
  CHECK_THROWS_WITH_AS(sim.add_bodies(cube, s, {}, m), doctest::Contains("is outside the domain"), std::invalid_argument);
  s.positions = {{0, 0, 0.05}, {0.004, 0, 0.05}};  // overlapping cubes
  sim.add_bodies(cube, s, {}, m);
  CHECK_THROWS_WITH_AS(sim.step(), doctest::Contains("bodies 0 and 1 overlap by"), std::invalid_argument);
}

TEST_CASE("clump: component spheres use their own material where the template gives one") {
  // A one-sphere clump pushed along a rough floor: with a frictionless component it keeps sliding at
  // v0; with the body's (rough) material it ends rolling at 5/7 v0.
  auto slide = [](bool own_slick_material) {
    body_sim<dem::shape::clump<2>> sim(box_config());
    const auto rough = sim.add_material({"rough", 2500, 1e7, 0.3, 0.5, 0.8, 0.0});
    const auto slick = sim.add_material({"slick", 2500, 1e7, 0.3, 0.5, 0.0, 0.0});
    sim.materials().set_pair(slick, rough, {.friction = 0.0});  // (the mixed value would be 0.4)
    sim.add_plane({0, 0, 0}, {0, 0, 1}, rough);
    const double r = 0.002;
    const dem::shape::clump_template t("one sphere", {{{0, 0, 0}, r, own_slick_material ? slick : dem::shape::body_material}});
    const auto shape = sim.add_shape(t);
    dem::particle_set s;
    s.positions = {{0, 0, r * 0.9999}};
    sim.add_bodies(shape, s, {}, rough);  // the body's material: rough (and the density)
    sim.advance(0.01);
    sim.set_velocities({{0.05, 0, 0}});
    sim.advance(0.05);
    return sim.velocities()[0].x;
  };
  CHECK(slide(true) == doctest::Approx(0.05).epsilon(1e-3));
  CHECK(slide(false) == doctest::Approx(0.05 * 5.0 / 7.0).epsilon(0.02).scale(0));
}

TEST_CASE("clump: a component material that does not exist is refused, naming the shape and the sphere") {
  body_sim<dem::shape::clump<2>> sim(box_config());
  const auto m = sim.add_material({"m", 2500, 1e7, 0.3, 0.5, 0.5, 0.0});
  const dem::shape::clump_template t("odd", {{{0, 0, 0}, 0.002, dem::shape::body_material}, {{0.003, 0, 0}, 0.002, 5}});
  dem::particle_set s;
  s.positions = {{0, 0, 0.05}};
  sim.add_bodies(sim.add_shape(t), s, {}, m);
  CHECK_THROWS_WITH_AS(sim.step(), doctest::Contains("component sphere 1 of shape 'odd' has material id 5, which does not exist"),
                       std::invalid_argument);
}
