// Boundary geometry on the host: closest points of every element kind, the contact rule on flat,
// convex and concave patches, the bounding-volume hierarchy against a brute-force search, mesh
// checks, and the built-in motions.
#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <set>
#include <vector>

#include "dem/boundary/boundary_set.hpp"
#include "dem/boundary/bvh.hpp"
#include "dem/boundary/contact_rule.hpp"
#include "dem/boundary/element.hpp"
#include "dem/boundary/mesh.hpp"
#include "dem/boundary/motion.hpp"

using namespace dem;
using namespace dem::boundary;
using E = element<double>;

namespace {
E blank(std::uint32_t kind) {
  E e{};
  e.kind = kind;
  for (int k = 0; k < 3; ++k) e.vertex[k] = e.edge[k] = no_feature_id;
  return e;
}
E triangle(vec3d a, vec3d b, vec3d c, std::array<std::uint32_t, 3> v, std::array<std::uint32_t, 3> ed, std::uint32_t boundary = 0) {
  E e = blank(triangle_kind);
  e.a = a;
  e.b = b;
  e.c = c;
  const vec3d n = cross(b - a, c - a);
  e.n = n / norm(n);
  for (int k = 0; k < 3; ++k) {
    e.vertex[k] = v[k];
    e.edge[k] = ed[k];
  }
  e.boundary = boundary;
  return e;
}

// The reports of elements es for a point x, and which count under the rule.
std::vector<bool> counted(const std::vector<E>& es, const vec3d& x, double r) {
  std::vector<report<double>> reps;
  for (const E& e : es) {
    const surface_point<double> s = closest(e, x);
    reps.push_back({s.distance, s.feature});
  }
  std::vector<bool> out;
  auto element_of = [&](std::uint32_t j) -> const E& { return es[j]; };
  auto report_of = [&](std::uint32_t j) { return reps[j]; };
  for (std::uint32_t k = 0; k < es.size(); ++k)
    out.push_back(reps[k].distance < r && counts<double>(k, 0, static_cast<std::uint32_t>(es.size()), element_of, report_of, rule_tolerance(1.0, r)));
  return out;
}
int how_many(const std::vector<bool>& v) {
  int n = 0;
  for (bool b : v) n += b;
  return n;
}

// A flat square [-1, 1]^2 at z = 0 made of two triangles sharing the diagonal (vertices 0..3,
// edges: 0 = 0-1, 1 = 1-2, 2 = 2-0 (diagonal), 3 = 2-3, 4 = 3-0).
std::vector<E> flat_square() {
  const vec3d p0{-1, -1, 0}, p1{1, -1, 0}, p2{1, 1, 0}, p3{-1, 1, 0};
  return {triangle(p0, p1, p2, {0, 1, 2}, {0, 1, 2}), triangle(p0, p2, p3, {0, 2, 3}, {2, 3, 4})};
}
}  // namespace

TEST_CASE("closest point: triangle regions, plane, plate, disc, annulus") {
  const E t = triangle({0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 1, 2}, {0, 1, 2});
  auto s = closest(t, vec3d{0.25, 0.25, 0.5});
  CHECK(s.feature == on_face);
  CHECK(s.distance == doctest::Approx(0.5));
  CHECK(s.normal.z == 1.0);
  s = closest(t, vec3d{0.25, 0.25, -0.5});  // two-sided
  CHECK(s.distance == doctest::Approx(0.5));
  CHECK(s.normal.z == -1.0);
  s = closest(t, vec3d{-1, -1, 0});
  CHECK(s.feature == on_vertex0);
  CHECK(s.distance == doctest::Approx(std::sqrt(2.0)));
  s = closest(t, vec3d{0.5, -1, 0});
  CHECK(s.feature == on_edge0);
  CHECK(s.distance == doctest::Approx(1.0));
  s = closest(t, vec3d{1, 1, 0});
  CHECK(s.feature == on_edge1);
  CHECK(s.distance == doctest::Approx(std::sqrt(0.5)));
  s = closest(t, vec3d{-1, 0.5, 0});
  CHECK(s.feature == on_edge2);
  s = closest(t, vec3d{2, -0.5, 0});
  CHECK(s.feature == on_vertex1);
  s = closest(t, vec3d{-0.5, 2, 0});
  CHECK(s.feature == on_vertex2);

  E plane = blank(plane_kind);
  plane.n = {0, 0, 1};
  s = closest(plane, vec3d{3, 4, -0.2});  // one-sided: behind is negative
  CHECK(s.distance == doctest::Approx(-0.2));

  E plate = blank(plate_kind);
  plate.n = {0, 0, 1};
  plate.b = {1, 0, 0};
  plate.s0 = 1;
  plate.s1 = 0.5;
  s = closest(plate, vec3d{0.5, 0.25, 0.3});
  CHECK(s.feature == on_face);
  CHECK(s.distance == doctest::Approx(0.3));
  s = closest(plate, vec3d{2, 0, 0});
  CHECK(s.distance == doctest::Approx(1.0));
  CHECK(s.normal.x == doctest::Approx(1.0));

  E disc = blank(disc_kind);
  disc.n = {0, 0, 1};
  disc.r0 = 1;
  disc.r1 = 0.25;  // an annulus: an orifice of radius 0.25
  s = closest(disc, vec3d{0.5, 0, -0.1});
  CHECK(s.feature == on_face);
  CHECK(s.distance == doctest::Approx(0.1));
  s = closest(disc, vec3d{0, 0, 0.1});  // above the hole: the inner rim
  CHECK(s.feature == on_edge1);
  CHECK(s.distance == doctest::Approx(std::sqrt(0.25 * 0.25 + 0.01)));
  s = closest(disc, vec3d{2, 0, 0});
  CHECK(s.feature == on_edge0);
  CHECK(s.distance == doctest::Approx(1.0));
}

TEST_CASE("closest point: cylinders and cones, inside and outside, rims") {
  E cyl = blank(cone_kind);
  cyl.n = {0, 0, 1};
  cyl.s0 = 0;
  cyl.s1 = 2;
  cyl.r0 = cyl.r1 = 1;
  cyl.flags = particles_inside;
  auto s = closest(cyl, vec3d{0.7, 0, 1});
  CHECK(s.feature == on_face);
  CHECK(s.distance == doctest::Approx(0.3));
  CHECK(s.normal.x == doctest::Approx(-1.0));  // towards the axis
  s = closest(cyl, vec3d{1.2, 0, 1});  // outside an inside-cylinder: behind its surface
  CHECK(s.distance == doctest::Approx(-0.2));
  s = closest(cyl, vec3d{0.5, 0, 2.5});  // beyond the top: the rim
  CHECK(s.feature == on_edge1);
  CHECK(s.distance == doctest::Approx(std::sqrt(0.25 + 0.25)));
  cyl.flags = 0;  // particles outside
  s = closest(cyl, vec3d{1.5, 0, 1});
  CHECK(s.distance == doctest::Approx(0.5));
  CHECK(s.normal.x == doctest::Approx(1.0));

  // A hopper: radius 0.5 at s = 0 widening to 1.5 at s = 1 (45 degrees), particles inside.
  E cone = blank(cone_kind);
  cone.n = {0, 0, 1};
  cone.s0 = 0;
  cone.s1 = 1;
  cone.r0 = 0.5;
  cone.r1 = 1.5;
  cone.flags = particles_inside;
  s = closest(cone, vec3d{0.5, 0, 0.5});  // the wall is at rho = 1 here; distance (1 - 0.5) cos 45
  CHECK(s.feature == on_face);
  CHECK(s.distance == doctest::Approx(0.5 / std::sqrt(2.0)));
  CHECK(s.normal.x == doctest::Approx(-1 / std::sqrt(2.0)));
  CHECK(s.normal.z == doctest::Approx(1 / std::sqrt(2.0)));
}

TEST_CASE("contact rule: one contact on a flat seam, a ridge and a corner; two in a crease") {
  const double r = 0.1;
  const std::vector<E> flat = flat_square();
  // Over a face: one.
  CHECK(how_many(counted(flat, {0.5, -0.5, 0.09}, r)) == 1);
  // Exactly over the shared diagonal, and just either side of it: one.
  for (double off : {0.0, 1e-12, -1e-12, 1e-7, -1e-7})
    CHECK(how_many(counted(flat, {0.3 + off, 0.3 - off, 0.09}, r)) == 1);
  // Over the shared corner (vertex 0 and 2 are corners of both): one.
  CHECK(how_many(counted(flat, {-1, -1, 0.09}, r)) == 1);
  CHECK(how_many(counted(flat, {1, 1, 0.09}, r)) == 1);
  // Near the diagonal but over one face only, close enough that the other triangle's edge report
  // is within reach: still one, and it is the face.
  {
    const auto c = counted(flat, {0.3, 0.25, 0.09}, r);
    CHECK(how_many(c) == 1);
    CHECK(closest(flat[c[0] ? 0 : 1], vec3d{0.3, 0.25, 0.09}).feature == on_face);
  }

  // A convex ridge: two faces meeting at 90 degrees along the x axis (a roof), sphere above it.
  const vec3d a{-1, 0, 0}, b{1, 0, 0};
  const std::vector<E> roof = {triangle(a, b, {0, -1, -1}, {0, 1, 2}, {0, 1, 2}), triangle(b, a, {0, 1, -1}, {1, 0, 3}, {0, 3, 4})};
  CHECK(how_many(counted(roof, {0, 0, 0.09}, r)) == 1);
  CHECK(how_many(counted(roof, {0.2, 0.01, 0.09}, r)) == 1);

  // A concave crease (a valley along x), sphere sitting in it touching both faces: two.
  const std::vector<E> valley = {triangle(a, b, {0, -1, 1}, {0, 1, 2}, {0, 1, 2}), triangle(b, a, {0, 1, 1}, {1, 0, 3}, {0, 3, 4})};
  CHECK(how_many(counted(valley, {0, 0, 0.13}, r)) == 2);
  // ... and a sphere in the valley touching one face only: one (the other's edge report is not the nearest point).
  CHECK(how_many(counted(valley, {0, 0.3, 0.35}, r)) == 1);

  // A convex corner of a cube (three faces, six triangles): one contact over the corner.
  // Unit cube corner at the origin, faces x = 0, y = 0, z = 0 seen from outside (negative side).
  const vec3d o{0, 0, 0}, x1{1, 0, 0}, y1{0, 1, 0}, z1{0, 0, 1}, xy{1, 1, 0}, yz{0, 1, 1}, xz{1, 0, 1};
  // vertex ids: o 0, x1 1, y1 2, z1 3, xy 4, yz 5, xz 6; edge ids arbitrary but shared where shared.
  const std::vector<E> corner = {
      triangle(o, y1, xy, {0, 2, 4}, {10, 11, 12}), triangle(o, xy, x1, {0, 4, 1}, {12, 13, 14}),   // z = 0
      triangle(o, x1, xz, {0, 1, 6}, {14, 15, 16}), triangle(o, xz, z1, {0, 6, 3}, {16, 17, 18}),   // y = 0
      triangle(o, z1, yz, {0, 3, 5}, {18, 19, 20}), triangle(o, yz, y1, {0, 5, 2}, {20, 21, 10})};  // x = 0
  CHECK(how_many(counted(corner, {-0.05, -0.05, -0.05}, r)) == 1);
  CHECK(how_many(counted(corner, {0.5, -0.05, -0.05}, r)) == 1);  // along the edge x
  CHECK(how_many(counted(corner, {0.5, 0.5, -0.05}, r)) == 1);    // over a face's diagonal seam
}

TEST_CASE("contact rule: a sphere crossing a floor of many triangles keeps exactly one contact") {
  // 20 x 20 squares, each split in two: 800 triangles; a sphere swept along a line that crosses
  // edges, diagonals and vertices.
  const int n = 20;
  std::vector<E> floor;
  auto vid = [&](int i, int j) { return static_cast<std::uint32_t>(i * (n + 1) + j); };
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint32_t> eid;
  auto edge = [&](std::uint32_t u, std::uint32_t v) {
    auto key = std::minmax(u, v);
    auto [it, fresh] = eid.emplace(key, static_cast<std::uint32_t>(eid.size()));
    return it->second;
  };
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      const vec3d p00{double(i), double(j), 0}, p10{double(i + 1), double(j), 0}, p11{double(i + 1), double(j + 1), 0}, p01{double(i), double(j + 1), 0};
      const auto v00 = vid(i, j), v10 = vid(i + 1, j), v11 = vid(i + 1, j + 1), v01 = vid(i, j + 1);
      floor.push_back(triangle(p00, p10, p11, {v00, v10, v11}, {edge(v00, v10), edge(v10, v11), edge(v11, v00)}));
      floor.push_back(triangle(p00, p11, p01, {v00, v11, v01}, {edge(v00, v11), edge(v11, v01), edge(v01, v00)}));
    }
  const double r = 0.4;
  for (int k = 0; k <= 400; ++k) {
    const double s = 2 + 16.0 * k / 400;
    const vec3d x{s, 2 + 0.5 * (s - 2), r * 0.99};
    std::vector<E> near;
    for (const E& e : floor)
      if (closest(e, x).distance < r + 0.2) near.push_back(e);
    INFO("x = " << x.x << ", " << x.y);
    CHECK(how_many(counted(near, x, r)) == 1);
  }
}

TEST_CASE("bounding-volume hierarchy finds what a brute-force search finds") {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<std::array<vec3d, 2>> boxes;
  for (int k = 0; k < 3000; ++k) {
    const vec3d c{u(rng), u(rng), u(rng)};
    const double h = 0.002 + 0.05 * std::fabs(u(rng)) + (k % 500 == 0 ? 0.8 : 0.0);  // a few large ones
    boxes.push_back({c - vec3d{h, h, h}, c + vec3d{h, h, h}});
  }
  std::vector<std::uint32_t> items;
  const auto nodes = build_bvh<float>(boxes, items);
  for (int q = 0; q < 300; ++q) {
    const vec3f x{float(u(rng)), float(u(rng)), float(u(rng))};
    const float reach = 0.05f;
    std::set<std::uint32_t> found, expect;
    query_bvh(nodes.data(), 0, items.data(), x, reach, [&](std::uint32_t k) { found.insert(k); });
    for (std::uint32_t k = 0; k < boxes.size(); ++k) {
      double d2 = 0;
      for (int a = 0; a < 3; ++a) {
        const double lo = boxes[k][0][a] - x[a], hi = x[a] - boxes[k][1][a];
        const double d = std::max({lo, hi, 0.0});
        d2 += d * d;
      }
      if (d2 < double(reach) * reach * 0.999) expect.insert(k);
    }
    for (std::uint32_t k : expect) CHECK(found.count(k) == 1);
  }
}

TEST_CASE("mesh checks: empty, out of range, degenerate, non-finite, duplicates healed, non-manifold reported") {
  triangle_mesh m;
  m.name = "test";
  CHECK_THROWS_WITH(prepare(m), doctest::Contains("has no triangles"));
  m.vertices = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {2, 0, 0}};
  m.triangles = {{0, 1, 7}};
  CHECK_THROWS_WITH(prepare(m), doctest::Contains("triangle 0 names vertex 7 of 4"));
  m.triangles = {{0, 1, 2}, {0, 1, 3}};  // 0, 1, 3 are collinear
  CHECK_THROWS_WITH(prepare(m), doctest::Contains("triangle 1 is degenerate"));
  m.triangles = {{0, 1, 2}, {0, 0, 2}};
  CHECK_THROWS_WITH(prepare(m), doctest::Contains("triangle 1 is degenerate"));
  m.vertices[2].y = std::nan("");
  m.triangles = {{0, 1, 2}};
  CHECK_THROWS_WITH(prepare(m), doctest::Contains("vertex 2 is not finite"));
  m.vertices = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {0, -1, 0}};
  m.triangles = {{0, 1, 2}, {2, 1, 0}, {0, 1, 3}, {0, 1, 4}};  // a duplicate (flipped), edge 0-1 shared by three
  const prepared_mesh p = prepare(m);
  CHECK(p.triangles.size() == 3);
  CHECK(p.duplicates_removed == 1);
  CHECK(p.non_manifold_edges == 1);
  CHECK(p.report().find("1 duplicate triangle(s) removed") != std::string::npos);
  CHECK_THROWS_WITH(read_triangle_mesh("/nonexistent/drum.stl"), doctest::Contains("cannot be opened"));
}

TEST_CASE("motions: constant velocity, vibration, servo") {
  const constant_velocity cv{{0.1, 0, 0}, {0, 0, 2.0}, {1, 0, 0}, 0};
  const rigid_motion m = cv(0.5);  // turned 1 rad about the z axis through (1 + 0.05, 0, 0)
  const vec3d p0{2, 0, 0};
  const vec3d p = rotate(m.rotation, p0) + m.translation;
  const vec3d c{1.05, 0, 0};
  CHECK(norm(p - c) == doctest::Approx(1.0));  // stays 1 m from the moved axis
  CHECK(std::atan2(p.y - c.y, p.x - c.x) == doctest::Approx(1.0));
  // The velocity field: the axis point moves at v, the point at radius 1 at v + omega x r.
  const vec3d vp = m.velocity + cross(m.omega, p);
  const vec3d expect = vec3d{0.1, 0, 0} + cross(vec3d{0, 0, 2.0}, p - c);
  CHECK(norm(vp - expect) < 1e-12);

  const vibration vib{{0, 0, 0.001}, 50, 0, {0, 0, 0}, {0, 0, 0}, 0};
  const rigid_motion v0 = vib(0), vq = vib(0.005);  // a quarter period
  CHECK(norm(v0.translation) < 1e-15);
  CHECK(vq.translation.z == doctest::Approx(0.001));
  CHECK(v0.velocity.z == doctest::Approx(0.001 * 2 * M_PI * 50));

  servo s;
  s.direction = {0, 0, -1};
  s.speed = 0.01;
  s.target_force = 100;
  servo_state st;
  advance_servo(s, st, 10, 1e-3);
  CHECK(st.velocity == 0.01);
  CHECK(st.travel == doctest::Approx(1e-5).scale(0));
  advance_servo(s, st, 101, 1e-3);
  CHECK(st.reached == 1);
  CHECK(st.velocity == 0);
  s.after = servo::mode::reverse;
  servo_state back;
  advance_servo(s, back, 150, 1e-3);
  CHECK(back.velocity == -0.01);
  s.after = servo::mode::regulate;
  servo_state reg;
  advance_servo(s, reg, 50, 1e-3);
  CHECK(reg.velocity == doctest::Approx(0.005));
  advance_servo(s, reg, 300, 1e-3);
  CHECK(reg.velocity == doctest::Approx(-0.01));
  s.speed = -1;
  CHECK_THROWS_WITH(check(s), doctest::Contains("servo speed is -1"));
}
