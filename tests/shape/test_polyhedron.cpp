// Convex polyhedra: hull, mass properties against exact formulas, bad input, mesh files, and the
// narrow phase against hand-computed contacts and a brute-force SAT.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <algorithm>
#include <type_traits>
#include <unistd.h>
#include <string>
#include <vector>

#include "dem/io/mesh.hpp"
#include "dem/shape/polyhedron/collide.hpp"
#include "dem/shape/polyhedron/collide_polygon.hpp"
#include "dem/shape/polyhedron/from_mesh.hpp"
#include "dem/shape/polyhedron/polyhedron.hpp"

using namespace dem;
using namespace dem::shape::poly;

namespace {

const std::string data_dir = [] {
  std::string f = __FILE__;
  return f.substr(0, f.find_last_of('/')) + "/data/";
}();

std::vector<vec3d> box_points(double lx, double ly, double lz) {
  std::vector<vec3d> p;
  for (int i = 0; i < 8; ++i) p.push_back({(i & 1 ? 0.5 : -0.5) * lx, (i & 2 ? 0.5 : -0.5) * ly, (i & 4 ? 0.5 : -0.5) * lz});
  return p;
}
std::vector<vec3d> tetra_points() { return {{1, 1, 1}, {1, -1, -1}, {-1, 1, -1}, {-1, -1, 1}}; }  // edge 2 sqrt 2
std::vector<vec3d> octa_points() { return {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}}; }  // edge sqrt 2

void check_rel(double got, double want, double tol = 1e-9) { CHECK(std::abs(got - want) <= tol * std::abs(want)); }
void check_vec(const vec3d& got, const vec3d& want, double tol = 1e-9) {
  CHECK(std::abs(got.x - want.x) <= tol);
  CHECK(std::abs(got.y - want.y) <= tol);
  CHECK(std::abs(got.z - want.z) <= tol);
}

std::string error_of(auto&& f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(no error)";
}

quatd axis_angle(vec3d axis, double angle) { return from_axis_angle(axis / norm(axis), angle); }

// Brute-force SAT depth in double: every face normal and every edge cross product, full projections.
template <int M>
double brute_force_depth(const convex_shape<double, M>& a, quatd qa, const convex_shape<double, M>& b, quatd qb, vec3d d) {
  std::vector<vec3d> va, vb, axes;
  for (int i = 0; i < a.n_vertices; ++i) va.push_back(rotate(qa, a.vertex[i]) + d);
  for (int i = 0; i < b.n_vertices; ++i) vb.push_back(rotate(qb, b.vertex[i]));
  for (int f = 0; f < a.n_faces; ++f) axes.push_back(rotate(qa, a.face_normal[f]));
  for (int f = 0; f < b.n_faces; ++f) axes.push_back(rotate(qb, b.face_normal[f]));
  for (int i = 0; i < a.n_edges; ++i)
    for (int j = 0; j < b.n_edges; ++j) {
      const vec3d c = cross(va[a.edge[i][1]] - va[a.edge[i][0]], vb[b.edge[j][1]] - vb[b.edge[j][0]]);
      if (norm(c) > 1e-9) axes.push_back(c / norm(c));
    }
  double depth = 1e300;
  for (const vec3d& n : axes) {
    double amin = 1e300, amax = -1e300, bmin = 1e300, bmax = -1e300;
    for (const auto& v : va) amin = std::min(amin, dot(n, v)), amax = std::max(amax, dot(n, v));
    for (const auto& v : vb) bmin = std::min(bmin, dot(n, v)), bmax = std::max(bmax, dot(n, v));
    depth = std::min(depth, std::min(amax - bmin, bmax - amin));
  }
  return depth;  // <= 0: separated
}

}  // namespace

TEST_CASE("mass properties of a cube, regular tetrahedron, regular octahedron and 4:1:1 box are exact") {
  {
    const double a = 0.7;
    const auto t = make_polyhedron_template(box_points(a, a, a), "cube");
    check_rel(t.volume, a * a * a);
    for (int k = 0; k < 3; ++k) check_rel(t.principal_moments[k], a * a * a * a * a / 6);
    CHECK(t.geometry.vertices.size() == 8);
    CHECK(t.geometry.faces.size() == 6);
    check_rel(t.bounding_radius, std::sqrt(3.0) / 2 * a);
  }
  {
    const auto t = make_polyhedron_template(tetra_points(), "tetrahedron");
    const double e = 2 * std::sqrt(2.0), v = e * e * e / (6 * std::sqrt(2.0));
    check_rel(t.volume, v);
    for (int k = 0; k < 3; ++k) check_rel(t.principal_moments[k], v * e * e / 20);
    CHECK(t.geometry.faces.size() == 4);
  }
  {
    const auto t = make_polyhedron_template(octa_points(), "octahedron");
    const double e = std::sqrt(2.0), v = std::sqrt(2.0) / 3 * e * e * e;
    check_rel(t.volume, v);
    for (int k = 0; k < 3; ++k) check_rel(t.principal_moments[k], v * e * e / 10);
    CHECK(t.geometry.faces.size() == 8);
  }
  {
    const auto t = make_polyhedron_template(box_points(4, 1, 1), "rod");
    check_rel(t.volume, 4);
    check_rel(t.principal_moments.x, 4 * (1 + 1) / 12.0);
    check_rel(t.principal_moments.y, 4 * (16 + 1) / 12.0);
    check_rel(t.principal_moments.z, 4 * (16 + 1) / 12.0);
  }
}

TEST_CASE("a shape given in a rotated and translated frame: same moments, principal frame recovered") {
  const quatd r = axis_angle({1, 2, 3}, 0.7);
  const vec3d shift{10, -3, 2.5};
  std::vector<vec3d> pts;
  for (const auto& p : box_points(4, 2, 1)) pts.push_back(rotate(r, p) + shift);
  const auto t = make_polyhedron_template(pts, "rotated box");
  check_rel(t.volume, 8);
  // Ascending: about the long axis (4) first, then the 2 axis, then the short (1) axis.
  check_rel(t.principal_moments.x, 8 * (4 + 1) / 12.0);
  check_rel(t.principal_moments.y, 8 * (16 + 1) / 12.0);
  check_rel(t.principal_moments.z, 8 * (16 + 4) / 12.0);
  check_vec(t.centroid_in_input, shift, 1e-9);
  // In the principal frame the box is axis-aligned: |x| = 2, |y| = 1, |z| = 0.5 at every corner.
  for (const auto& v : t.geometry.vertices) {
    check_rel(std::abs(v.x), 2);
    check_rel(std::abs(v.y), 1);
    check_rel(std::abs(v.z), 0.5);
  }
  // principal_to_input maps principal vertices back onto the input corners.
  for (const auto& v : t.geometry.vertices) {
    const vec3d back = rotate(t.principal_to_input, v) + t.centroid_in_input;
    double best = 1e300;
    for (const auto& p : pts) best = std::min(best, norm(back - p));
    CHECK(best < 1e-9);
  }
  // Principal frame is right-handed: faces still point outwards (positive volume after the move).
  const auto mp = compute_mass_properties(t.geometry.vertices, t.geometry.faces);
  check_rel(mp.volume, 8);
  CHECK(norm(mp.centroid) < 1e-12);
}

TEST_CASE("hull of a point cloud drops interior, face and edge points and merges coplanar triangles") {
  std::vector<vec3d> pts = box_points(1, 1, 1);
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-0.45, 0.45);
  for (int i = 0; i < 200; ++i) pts.push_back({u(rng), u(rng), u(rng)});
  for (int i = 0; i < 20; ++i) pts.push_back({u(rng), u(rng), 0.5});  // on the top face
  pts.push_back({0.5, 0.5, 0.1});                                       // on an edge
  pts.push_back({0.0, -0.5, -0.5});                                     // on an edge
  std::shuffle(pts.begin(), pts.end(), rng);
  const hull h = convex_hull(pts, "cloud");
  CHECK(h.vertices.size() == 8);
  REQUIRE(h.faces.size() == 6);
  for (const auto& f : h.faces) CHECK(f.size() == 4);
  check_rel(compute_mass_properties(h.vertices, h.faces).volume, 1.0);
  // Outward normals and offsets.
  for (std::size_t f = 0; f < 6; ++f) check_rel(h.offsets[f], 0.5);
}

TEST_CASE("bad point sets are refused with the shape's name and the problem") {
  auto msg = error_of([] { make_polyhedron_template({{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}, "triangle"); });
  CHECK(msg.find("'triangle'") != std::string::npos);
  CHECK(msg.find("at least 4 points, got 3") != std::string::npos);

  auto dup = box_points(1, 1, 1);
  dup.push_back(dup[3] + vec3d{1e-12, 0, 0});
  msg = error_of([&] { make_polyhedron_template(dup, "dup cube"); });
  CHECK(msg.find("'dup cube'") != std::string::npos);
  CHECK(msg.find("points 3 and 8 coincide") != std::string::npos);

  msg = error_of([] { make_polyhedron_template({{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}, {0.5, 0.2, 0}}, "flat"); });
  CHECK(msg.find("'flat'") != std::string::npos);
  CHECK(msg.find("coplanar") != std::string::npos);

  msg = error_of([] { make_polyhedron_template({{0, 0, 0}, {1, 1, 1}, {2, 2, 2}, {3, 3, 3}}, "stick"); });
  CHECK(msg.find("'stick'") != std::string::npos);
  CHECK(msg.find("collinear") != std::string::npos);

  msg = error_of([] { make_polyhedron_template({{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, NAN}}, "nan"); });
  CHECK(msg.find("point 3 is not finite") != std::string::npos);

  // 40 points on a sphere: all on the hull, more than 32.
  std::vector<vec3d> ball;
  for (int i = 0; i < 40; ++i) {
    const double z = 1 - (2 * i + 1) / 40.0, r = std::sqrt(1 - z * z), phi = i * 2.399963229728653;
    ball.push_back({r * std::cos(phi), r * std::sin(phi), z});
  }
  msg = error_of([&] { make_polyhedron_template(ball, "pebble"); });
  CHECK(msg.find("'pebble'") != std::string::npos);
  CHECK(msg.find("40 vertices, more than the bound of 32") != std::string::npos);
  // The compile-time bound of the device shape is checked too.
  const auto big = make_polyhedron_template(ball, "pebble", 64);
  msg = error_of([&] { (void)make_convex_shape<float, 32>(big); });
  CHECK(msg.find("'pebble'") != std::string::npos);
  CHECK(msg.find("MaxVertices = 32") != std::string::npos);
  CHECK(make_convex_shape<float, 40>(big).n_vertices == 40);
}

TEST_CASE("mesh files: OBJ with quads and negative indices, ASCII and binary STL, errors with file and line") {
  const auto cube = load_polyhedron_template(data_dir + "cube.obj", {.name = "obj cube"});
  check_rel(cube.volume, 1);
  CHECK(cube.geometry.faces.size() == 6);

  const auto tetra = load_polyhedron_template(data_dir + "tetra.stl");
  check_rel(tetra.volume, 16 * std::sqrt(2.0) / (6 * std::sqrt(2.0)));

  // Binary STL written here (a unit cube as 12 triangles), header starting with "solid" on purpose.
  const std::string bin = "/tmp/dem_test_polyhedron_cube_" + std::to_string(::getpid()) + ".stl";
  {
    const auto m = io::read_obj(data_dir + "cube.obj");
    std::ofstream out(bin, std::ios::binary);
    char header[80] = "solid binary but not ascii";
    out.write(header, 80);
    const std::uint32_t n = 12;
    out.write(reinterpret_cast<const char*>(&n), 4);
    for (const auto& f : m.faces)
      for (int k = 1; k < 3; ++k) {
        float rec[12] = {0, 0, 0};
        const int tri[3] = {f[0], f[k], f[k + 1]};
        for (int c = 0; c < 3; ++c)
          rec[3 + 3 * c] = float(m.vertices[tri[c]].x), rec[4 + 3 * c] = float(m.vertices[tri[c]].y), rec[5 + 3 * c] = float(m.vertices[tri[c]].z);
        out.write(reinterpret_cast<const char*>(rec), 48);
        out.write("\0\0", 2);
      }
  }
  const auto stl = io::read_stl(bin);
  CHECK(stl.vertices.size() == 8);
  CHECK(stl.faces.size() == 12);
  CHECK(io::is_convex(stl));
  check_rel(make_polyhedron_template(stl).volume, 1);
  std::remove(bin.c_str());

  // Non-convex: an error naming the file, unless the hull is asked for.
  const auto l = io::read_obj(data_dir + "l_prism.obj");
  CHECK_FALSE(io::is_convex(l));
  auto msg = error_of([] { load_polyhedron_template(data_dir + "l_prism.obj", {.name = "ell"}); });
  CHECK(msg.find("'ell'") != std::string::npos);
  CHECK(msg.find("l_prism.obj' is not convex") != std::string::npos);
  CHECK(msg.find("allow_convex_hull") != std::string::npos);
  const auto hull_of_l = load_polyhedron_template(data_dir + "l_prism.obj", {.name = "ell", .allow_convex_hull = true});
  check_rel(hull_of_l.volume, 3.5);  // the L (area 3) plus the triangle (area 0.5) that fills its corner

  msg = error_of([] { io::read_obj(data_dir + "bad_vertex.obj"); });
  CHECK(msg.find("bad_vertex.obj', line 3") != std::string::npos);
  CHECK(msg.find("'one' is not a finite number") != std::string::npos);
  msg = error_of([] { io::read_obj(data_dir + "bad_index.obj"); });
  CHECK(msg.find("bad_index.obj', line 6") != std::string::npos);
  CHECK(msg.find("vertex index 7 is out of range") != std::string::npos);
  msg = error_of([] { io::read_mesh(data_dir + "missing.obj"); });
  CHECK(msg.find("missing.obj'") != std::string::npos);
  CHECK(msg.find("cannot be opened") != std::string::npos);
  msg = error_of([] { io::read_stl(data_dir + "cube.obj"); });
  CHECK(msg.find("cube.obj', line 1") != std::string::npos);
  msg = error_of([] { io::read_mesh(data_dir + "cube.ply"); });
  CHECK(msg.find("unknown mesh format '.ply'") != std::string::npos);
}

TEST_CASE("convex_shape: faces, edges and adjacency of a cube") {
  const auto s = make_convex_shape<double>(make_polyhedron_template(box_points(1, 1, 1), "cube"));
  static_assert(std::is_trivially_copyable_v<convex_shape<float>>);
  CHECK(s.n_vertices == 8);
  CHECK(s.n_faces == 6);
  CHECK(s.n_edges == 12);
  for (int e = 0; e < s.n_edges; ++e) {
    const vec3d a = s.vertex[s.edge[e][0]], b = s.vertex[s.edge[e][1]];
    check_rel(norm(b - a), 1);
    for (int k = 0; k < 2; ++k) {  // both endpoints on both adjacent faces
      const int f = s.edge_face[e][k];
      CHECK(std::abs(dot(s.face_normal[f], a) - s.face_offset[f]) < 1e-12);
      CHECK(std::abs(dot(s.face_normal[f], b) - s.face_offset[f]) < 1e-12);
    }
    CHECK(s.edge_face[e][0] != s.edge_face[e][1]);
  }
}

TEST_CASE("face-face: cube on cube, parallel faces with an offset") {
  const auto s = make_convex_shape<double>(make_polyhedron_template(box_points(1, 1, 1), "cube"));
  contact_geometry<double> g{};
  REQUIRE(collide(s, quatd::identity(), s, quatd::identity(), vec3d{0.3, -0.2, 0.92}, g));
  check_rel(g.overlap, 0.08);
  check_vec(g.normal, {0, 0, 1}, 1e-12);
  // Overlap rectangle x in [-0.2, 0.5], y in [-0.5, 0.3], z in [0.42, 0.5]: its centre.
  check_vec(g.point, {0.15, -0.1, 0.46}, 1e-12);
  CHECK(g.feature == contact_feature::face_face);
  // Apart: no contact; A below B: normal flips.
  CHECK_FALSE(collide(s, quatd::identity(), s, quatd::identity(), vec3d{0.3, -0.2, 1.01}, g));
  REQUIRE(collide(s, quatd::identity(), s, quatd::identity(), vec3d{0.3, -0.2, -0.92}, g));
  check_vec(g.normal, {0, 0, -1}, 1e-12);
  check_vec(g.point, {0.15, -0.1, -0.46}, 1e-12);
  // A turned about z by 30 degrees still rests flat: normal and depth unchanged, point on the axis.
  REQUIRE(collide(s, axis_angle({0, 0, 1}, 0.5236), s, quatd::identity(), vec3d{0, 0, 0.95}, g));
  check_rel(g.overlap, 0.05);
  check_vec(g.normal, {0, 0, 1}, 1e-12);
  check_vec(g.point, {0, 0, 0.475}, 1e-9);
}

TEST_CASE("edge-edge: two cubes rotated 45 degrees about perpendicular axes") {
  const auto s = make_convex_shape<double>(make_polyhedron_template(box_points(1, 1, 1), "cube"));
  const double h = std::sqrt(0.5), delta = 0.03;
  const quatd qa = axis_angle({1, 0, 0}, M_PI / 4);  // bottom edge of A along x at z = -h
  const quatd qb = axis_angle({0, 1, 0}, M_PI / 4);  // top edge of B along y at z = +h
  contact_geometry<double> g{};
  const vec3d d{0.1, 0.2, 2 * h - delta};
  REQUIRE(collide(s, qa, s, qb, d, g));
  CHECK(g.feature == contact_feature::edge_edge);
  check_rel(g.overlap, delta);
  check_vec(g.normal, {0, 0, 1}, 1e-12);
  // Closest points (0, 0.2, h) on B's edge and (0, 0.2, d.z - h) on A's: their midpoint.
  check_vec(g.point, {0, 0.2, d.z / 2}, 1e-12);
}

TEST_CASE("vertex-face: a cube balanced on a corner over a face") {
  const auto s = make_convex_shape<double>(make_polyhedron_template(box_points(1, 1, 1), "cube"));
  // Turn the diagonal (1, 1, 1) to point down: the corner (0.5, 0.5, 0.5) becomes the lowest point.
  const vec3d u = vec3d{1, 1, 1} / std::sqrt(3.0);
  const quatd qa = axis_angle(cross(u, vec3d{0, 0, -1}), std::acos(-u.z));
  const double delta = 0.02;
  const vec3d d{0.1, -0.15, 0.5 + std::sqrt(3.0) / 2 - delta};
  contact_geometry<double> g{};
  REQUIRE(collide(s, qa, s, quatd::identity(), d, g));
  CHECK(g.feature == contact_feature::vertex_face);
  check_rel(g.overlap, delta);
  check_vec(g.normal, {0, 0, 1}, 1e-12);
  // The centroid of the overlap over one incident face next to the corner: within the overlap's size
  // of the corner, between the corner and the face.
  CHECK(std::hypot(g.point.x - 0.1, g.point.y + 0.15) < delta);
  CHECK(g.point.z > 0.5 - delta);
  CHECK(g.point.z < 0.5);
}

TEST_CASE("nearly parallel edges: no NaN, the result moves continuously as the edges turn") {
  const auto s = make_convex_shape<double>(make_polyhedron_template(box_points(1, 1, 1), "cube"));
  const auto sf = make_convex_shape<float>(make_polyhedron_template(box_points(1, 1, 1), "cube"));
  // Two prisms of diamond section touching along (nearly) parallel edges; A shifted in y.
  const double h = std::sqrt(0.5);
  const vec3d d{0, 0.05, 2 * h - 0.1};
  const quatd qb = axis_angle({1, 0, 0}, M_PI / 4);
  contact_geometry<double> g0{};
  REQUIRE(collide(s, qb, s, qb, d, g0));
  // Exactly parallel: the Minkowski difference's face (0, 1, 1)/sqrt 2, depth (0.1 - 0.05) / sqrt 2.
  check_rel(g0.overlap, 0.05 / std::sqrt(2.0));
  check_vec(g0.normal, vec3d{0, 1, 1} / std::sqrt(2.0), 1e-12);
  for (const double eps : {1e-12, 1e-9, 1e-6, 1e-4, 1e-3}) {
    CAPTURE(eps);
    contact_geometry<double> g{};
    REQUIRE(collide(s, axis_angle({0, 0, 1}, eps) * qb, s, qb, d, g));
    CHECK(all_finite(g.normal));
    CHECK(all_finite(g.point));
    CHECK(std::abs(g.overlap - g0.overlap) < 10 * eps + 1e-12);
    CHECK(norm(g.normal - g0.normal) < 10 * eps + 1e-12);
    CHECK(norm(g.point - g0.point) < 1e3 * eps + 1e-9);
    contact_geometry<float> gf{};
    REQUIRE(collide(sf, quatf(axis_angle({0, 0, 1}, eps) * qb), sf, quatf(qb), vec3f(d), gf));
    CHECK(all_finite(gf.normal));
    CHECK(all_finite(gf.point));
    CHECK(std::abs(gf.overlap - g0.overlap) < 1e-5 + 10 * eps);
  }
}

TEST_CASE("elongated 4:1 boxes side by side, parallel and turned") {
  const auto s = make_convex_shape<double>(make_polyhedron_template(box_points(4, 1, 1), "rod"));
  contact_geometry<double> g{};
  REQUIRE(collide(s, quatd::identity(), s, quatd::identity(), vec3d{0.5, 0.95, 0}, g));
  check_rel(g.overlap, 0.05);
  check_vec(g.normal, {0, 1, 0}, 1e-12);
  check_vec(g.point, {0.25, 0.475, 0}, 1e-12);  // overlap x in [-1.5, 2], y in [0.45, 0.5]
  CHECK(g.feature == contact_feature::face_face);
  // A turned by 0.05 rad about z: only its end at x ~ -2 dips into B, along a vertical edge.
  const double th = 0.05, depth = 0.02;
  const double dy = 0.5 + 2 * std::sin(th) + 0.5 * std::cos(th) - depth;
  REQUIRE(collide(s, axis_angle({0, 0, 1}, th), s, quatd::identity(), vec3d{0, dy, 0}, g));
  check_rel(g.overlap, depth);
  check_vec(g.normal, {0, 1, 0}, 1e-12);
  // The overlap is a wedge under A's bottom face, from A's corner edge (depth 0.02) to where the face
  // leaves B (s0 = depth / sin th along the face): its centroid is a third of the way along, a third
  // of the depth below B's face.
  const double xc = -2 * std::cos(th) + 0.5 * std::sin(th), s0 = depth / std::sin(th);
  check_vec(g.point, {xc + s0 / 3 * std::cos(th), 0.5 - depth / 3, 0}, 1e-12);
  CHECK(g.feature == contact_feature::edge_face);
  // The same in float: 4:1 keeps its accuracy.
  const auto sf = make_convex_shape<float>(make_polyhedron_template(box_points(4, 1, 1), "rod"));
  contact_geometry<float> gf{};
  REQUIRE(collide(sf, quatf(axis_angle({0, 0, 1}, th)), sf, quatf::identity(), vec3f(vec3d{0, dy, 0}), gf));
  CHECK(std::abs(gf.overlap - depth) < 2e-6);
  CHECK(std::abs(gf.point.x - (xc + s0 / 3 * std::cos(th))) < 1e-4);
}

TEST_CASE("SAT agrees with a brute-force separating-axis search for random poses") {
  const auto rod = make_convex_shape<double>(make_polyhedron_template(box_points(4, 1, 1), "rod"));
  const auto tet = make_convex_shape<double>(make_polyhedron_template(tetra_points(), "tetra"));
  const auto oct = make_convex_shape<double>(make_polyhedron_template(octa_points(), "octa"));
  const convex_shape<double> shapes[3] = {rod, tet, oct};
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(-1, 1);
  int contacts = 0, edges = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    const auto& a = shapes[trial % 3];
    const auto& b = shapes[(trial / 3) % 3];
    const quatd qa = normalized(quatd{u(rng), u(rng), u(rng), u(rng)});
    const quatd qb = normalized(quatd{u(rng), u(rng), u(rng), u(rng)});
    const vec3d d = vec3d{u(rng), u(rng), u(rng)} * 2.5;
    const double want = brute_force_depth(a, qa, b, qb, d);
    contact_geometry<double> g{};
    const bool hit = collide(a, qa, b, qb, d, g);
    CAPTURE(trial);
    CHECK(hit == (want > 0));
    if (!hit || want <= 0) continue;
    ++contacts;
    edges += g.feature == contact_feature::edge_edge;
    // Faces are preferred within 1e-3 relative; never a deeper axis than that.
    CHECK(g.overlap >= want - 1e-12);
    CHECK(g.overlap <= want * (1 + 1.001e-3) + 1e-12);
    CHECK(std::abs(norm(g.normal) - 1) < 1e-12);
    // The normal separates: pushing A by the overlap along it ends the contact (up to the bias).
    CHECK(brute_force_depth(a, qa, b, qb, d + g.normal * (g.overlap + 1e-9)) <= 1e-3 * want + 1e-9);
    // Swapping A and B gives the same depth and the opposite normal.
    contact_geometry<double> h{};
    REQUIRE(collide(b, qb, a, qa, -d, h));
    CHECK(std::abs(h.overlap - g.overlap) <= 1.001e-3 * want + 1e-12);
  }
  CHECK(contacts > 500);
  CHECK(edges > 20);  // the edge-edge branch was exercised
}

TEST_CASE("plane contacts: a cube flat on its face and on an edge") {
  const auto s = make_convex_shape<double>(make_polyhedron_template(box_points(1, 1, 1), "cube"));
  contact_geometry<double> g{};
  const double delta = 0.01;
  // Flat: the face centre, half-way up the overlap.
  REQUIRE(collide_plane(s, quatd::identity(), vec3d{0.3, 0.2, 0.5 - delta}, vec3d{0, 0, 1}, g));
  check_rel(g.overlap, delta);
  check_vec(g.normal, {0, 0, 1}, 1e-15);
  check_vec(g.point, {0.3, 0.2, -delta / 2}, 1e-12);
  CHECK(g.feature == contact_feature::face_face);
  // On an edge (45 degrees about x): the edge midpoint.
  REQUIRE(collide_plane(s, axis_angle({1, 0, 0}, M_PI / 4), vec3d{0.3, 0.2, std::sqrt(0.5) - delta}, vec3d{0, 0, 1}, g));
  check_rel(g.overlap, delta);
  check_vec(g.point, {0.3, 0.2, -delta / 2}, 1e-12);
  CHECK(g.feature == contact_feature::edge_face);
  // Above the plane: none.
  CHECK_FALSE(collide_plane(s, quatd::identity(), vec3d{0, 0, 0.51}, vec3d{0, 0, 1}, g));
  CHECK_FALSE(collide_plane(s, axis_angle({1, 0, 0}, M_PI / 4), vec3d{0, 0, 0.75}, vec3d{0, 0, 1}, g));
}

TEST_CASE("polygon contacts: the plane's triangle, a floor in two pieces, an edge under a face") {
  const auto s = make_convex_shape<double>(make_polyhedron_template(box_points(1, 1, 1), "cube"));
  const double delta = 0.01;
  const vec3d centre{0.3, 0.2, 0.5 - delta};
  const quatd q = axis_angle({1, 1, 0}, 0.005);  // slightly tilted: the overlap is not uniform
  polygon_contact<double> plane{};
  REQUIRE(collide_polygon(s, q, centre, plane_triangle(centre, vec3d{0, 0, 1}, s.bounding_radius), plane));
  CHECK(plane.face);
  check_vec(plane.normal, {0, 0, 1}, 1e-15);
  // The deepest corner of the tilted cube, and the centroid of the overlap on the cube's side of it.
  double deepest = 0;
  for (int i = 0; i < 8; ++i) deepest = std::max(deepest, -(rotate(q, s.vertex[i]) + centre).z);
  check_rel(plane.overlap, deepest, 1e-12);
  CHECK(plane.point.z < 0);
  CHECK(plane.point.z > -deepest);
  // A floor of two triangles meeting along a seam under the cube (marked open on both): two pieces
  // whose moments add up to the plane's.
  // Triangle 1 owns the seam and both corners on it.
  flat_polygon<double> t1{3, {{-2, -2, 0}, {2, -2, 0}, {2, 2, 0}}, {0, 0, 1}, 0b100u, 0b100u | (0b101u << 4), false};
  flat_polygon<double> t2{3, {{-2, -2, 0}, {2, 2, 0}, {-2, 2, 0}}, {0, 0, 1}, 0b001u, 0u, false};
  polygon_contact<double> a{}, b{};
  REQUIRE(collide_polygon(s, q, centre, t1, a));
  REQUIRE(collide_polygon(s, q, centre, t2, b));
  CHECK(a.face);
  CHECK(b.face);
  CHECK(a.corner_w > 0.1 * plane.corner_w);  // the seam x = y runs under the cube
  CHECK(b.corner_w > 0.1 * plane.corner_w);
  check_rel(a.corner_w + b.corner_w, plane.corner_w, 1e-12);
  check_vec((a.corner_x + b.corner_x) / (a.corner_w + b.corner_w), plane.point, 1e-12);
  check_rel(std::max(a.overlap, b.overlap), plane.overlap, 1e-12);
  // A corner of the cube exactly on the seam counts once, on the seam's owner.
  const vec3d on_seam{0.5, 0.5, 0.5 - delta};  // corner (0, 0) of the untilted cube's lower face
  polygon_contact<double> whole{};
  REQUIRE(collide_polygon(s, quatd::identity(), on_seam, plane_triangle(on_seam, vec3d{0, 0, 1}, s.bounding_radius), whole));
  REQUIRE(collide_polygon(s, quatd::identity(), on_seam, t1, a));
  REQUIRE(collide_polygon(s, quatd::identity(), on_seam, t2, b));
  check_rel(a.corner_w + b.corner_w, whole.corner_w, 1e-12);
  check_vec((a.corner_x + b.corner_x) / (a.corner_w + b.corner_w), whole.point, 1e-12);
  // The same seam unmarked (a real edge): pieces still, but no sideways axis either way.
  t1.open = t2.open = 0;
  REQUIRE(collide_polygon(s, q, centre, t1, a));
  CHECK(a.face);
  // A ridge: a triangle standing on its edge along x at z = 0 under the cube's face, which presses
  // into the face: the contact is on the triangle's edge (corners 0 and 1 deepest), pushing the
  // cube up along its own face normal.
  flat_polygon<double> ridge{3, {{-2, 0, 0}, {2, 0, 0}, {0, 0, -2}}, {0, -1, 0}, 0u, 0u, false};
  const vec3d above{0.1, 0.05, 0.5 - delta};
  REQUIRE(collide_polygon(s, quatd::identity(), above, ridge, a));
  CHECK_FALSE(a.face);
  CHECK(a.deep == 0b011u);
  check_rel(a.overlap, delta, 1e-9);
  check_vec(a.normal, {0, 0, 1}, 1e-12);
  CHECK(std::abs(a.point.y) < 1e-12);
  CHECK(std::abs(a.point.x - 0.1) < 1e-9);  // the middle of the part of the edge under the face
  // Out of reach, and the one-sided plane: a body whose centroid went below is pushed back up.
  CHECK_FALSE(collide_polygon(s, quatd::identity(), vec3d{0, 0, 0.51}, t1, a));
  const vec3d sunk{0, 0, -0.1};
  REQUIRE(collide_polygon(s, quatd::identity(), sunk, plane_triangle(sunk, vec3d{0, 0, 1}, s.bounding_radius), a));
  check_vec(a.normal, {0, 0, 1}, 1e-15);
  check_rel(a.overlap, 0.6, 1e-12);
}
