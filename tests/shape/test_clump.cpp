// Clump templates (shape/clump/): mass properties of unions of spheres against closed forms and
// an independent 1-D slice quadrature, the principal frame, the device copy, stock templates,
// loaders and every refusal of bad input.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <type_traits>
#include <vector>

#include "dem/shape/clump/clump.hpp"

namespace {

using dem::vec3d;
using namespace dem::shape;

constexpr double pi = M_PI;
double ball_volume(double r) { return 4.0 / 3.0 * pi * r * r * r; }

// Mass properties of an axisymmetric solid of revolution about axis z (slices are disks of
// radius rho(z)), by Gauss-Legendre on pieces where rho^2 is a polynomial: exact to round-off.
struct axisymmetric {
  double volume, z_centroid, i_axis, i_perp;  // inertia per unit density about the centroid
};
template <class Rho2>
axisymmetric revolve(Rho2 rho2, const std::vector<double>& cuts) {
  static const double x[3] = {-0.7745966692414834, 0.0, 0.7745966692414834};
  static const double w[3] = {5.0 / 9, 8.0 / 9, 5.0 / 9};
  double v = 0, mz = 0, mzz = 0, mpp = 0;
  for (std::size_t i = 0; i + 1 < cuts.size(); ++i) {
    const double c = 0.5 * (cuts[i] + cuts[i + 1]), h = 0.5 * (cuts[i + 1] - cuts[i]);
    // 3 points integrate degree 5: the integrands below have degree <= 4 in z on each piece
    for (int g = 0; g < 3; ++g) {
      const double z = c + x[g] * h, r2 = rho2(z), wt = w[g] * h;
      v += wt * pi * r2;
      mz += wt * pi * r2 * z;
      mzz += wt * pi * r2 * z * z;
      mpp += wt * pi * r2 * r2 / 4;  // in-plane second moment of a disk, per axis
    }
  }
  const double zc = mz / v;
  return {v, zc, 2 * mpp, mpp + (mzz - v * zc * zc)};
}

// Two balls on the z axis: radius r1 at 0 and r2 at d. The union's slice is a disk of radius
// max(rho1, rho2); rho^2 switches at the radical plane z = (d^2 + r1^2 - r2^2) / 2d.
axisymmetric two_ball_reference(double r1, double r2, double d) {
  auto rho2 = [&](double z) {
    return std::max(std::max(0.0, r1 * r1 - z * z), std::max(0.0, r2 * r2 - (z - d) * (z - d)));
  };
  std::vector<double> cuts{-r1, r1, d - r2, d + r2, (d * d + r1 * r1 - r2 * r2) / (2 * d)};
  std::sort(cuts.begin(), cuts.end());
  const double lo = std::min(-r1, d - r2), hi = std::max(r1, d + r2);
  std::vector<double> kept;
  for (double c : cuts)
    if (c >= lo && c <= hi) kept.push_back(c);
  return revolve(rho2, kept);
}

// The textbook lens volume of two overlapping balls.
double lens_volume(double r1, double r2, double d) {
  return pi * (r1 + r2 - d) * (r1 + r2 - d) * (d * d + 2 * d * (r1 + r2) - 3 * (r1 - r2) * (r1 - r2)) / (12 * d);
}

std::string message_of(auto&& f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(no exception)";
}

const dem::quatd tilt = dem::normalized(dem::quatd{0.8, -0.3, 0.4, 0.2});

// Sorted principal moments must match an axisymmetric body's (i_axis once, i_perp twice).
void check_axisymmetric(const vec3d& p, const axisymmetric& ref, double tol) {
  const bool axis_largest = ref.i_axis > ref.i_perp;
  const double a = axis_largest ? p.z : p.x, b1 = axis_largest ? p.x : p.y, b2 = axis_largest ? p.y : p.z;
  CHECK(a == doctest::Approx(ref.i_axis).epsilon(tol));
  CHECK(b1 == doctest::Approx(ref.i_perp).epsilon(tol));
  CHECK(b2 == doctest::Approx(ref.i_perp).epsilon(tol));
}

}  // namespace

TEST_CASE("clump: a single sphere is exact") {
  const clump_template c("ball", {{{1, -2, 3}, 0.5}});
  CHECK(c.method() == union_method::exact);
  CHECK(c.volume() == doctest::Approx(ball_volume(0.5)).epsilon(1e-15));
  CHECK(c.centroid() == vec3d{1, -2, 3});
  const double i = 0.4 * ball_volume(0.5) * 0.25;
  for (int k = 0; k < 3; ++k) CHECK(c.principal_inertia_per_density()[k] == doctest::Approx(i).epsilon(1e-14));
  CHECK(c.orientation() == dem::quatd::identity());
  CHECK(c.bounding_radius() == doctest::Approx(0.5));
  CHECK(dem::norm(c.spheres()[0].centre) < 1e-15);
}

TEST_CASE("clump: two overlapping spheres match the lens formula and a 1-D slice quadrature") {
  struct pair_case { double r1, r2, d; };
  for (const pair_case pc : {pair_case{1, 1, 1}, pair_case{1, 1, 1.9}, pair_case{1, 0.6, 0.7}, pair_case{0.5, 1.2, 1.0},
                             pair_case{1, 0.3, 0.9}}) {
    CAPTURE(pc.r1);
    CAPTURE(pc.r2);
    CAPTURE(pc.d);
    const double v_exact = ball_volume(pc.r1) + ball_volume(pc.r2) - lens_volume(pc.r1, pc.r2, pc.d);
    const axisymmetric ref = two_ball_reference(pc.r1, pc.r2, pc.d);
    CHECK(ref.volume == doctest::Approx(v_exact).epsilon(1e-13));  // the two references agree

    // The same pair placed along a tilted axis, away from the origin.
    const vec3d axis = dem::rotate(tilt, vec3d{0, 0, 1}), base{0.3, -0.2, 0.1};
    const clump_template c("pair", {{base, pc.r1}, {base + axis * pc.d, pc.r2}});
    CHECK(c.method() == union_method::exact);
    CHECK(c.volume() == doctest::Approx(v_exact).epsilon(1e-12));
    CHECK(dem::norm(c.centroid() - (base + axis * ref.z_centroid)) < 1e-12);
    check_axisymmetric(c.principal_inertia_per_density(), ref, 1e-12);

    // The slice quadrature, used for clumps where three spheres meet, on the same pair: its
    // measured error is what clump_template documents (< 1e-10 at rel_tol 1e-10).
    const solid_moments m = union_moments_by_slices({{base, pc.r1}, {base + axis * pc.d, pc.r2}}, 1e-10);
    const solid_moments e = union_moments({{base, pc.r1}, {base + axis * pc.d, pc.r2}});
    CHECK(m.volume == doctest::Approx(v_exact).epsilon(1e-10));
    CHECK(dem::norm(m.first - e.first) / e.volume < 1e-10);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) CHECK(std::fabs(m.second[i][j] - e.second[i][j]) < 1e-10 * e.volume);
  }
}

TEST_CASE("clump: nested and coincident spheres count once") {
  const clump_template nested("nested", {{{0, 0, 0}, 1.0}, {{0.2, 0.1, 0}, 0.5}});
  CHECK(nested.volume() == doctest::Approx(ball_volume(1)).epsilon(1e-14));
  const clump_template twins("twins", {{{1, 1, 1}, 0.7}, {{1, 1, 1}, 0.7}, {{1, 1, 1}, 0.7}});
  CHECK(twins.volume() == doctest::Approx(ball_volume(0.7)).epsilon(1e-10));
}

TEST_CASE("clump: separate spheres are the sum of spheres with the parallel axis theorem") {
  const std::vector<clump_sphere> s{{{0, 0, 0}, 1.0}, {{3, 0.5, 0}, 0.5}, {{-1, 2.5, 1}, 0.7}};
  const clump_template c("apart", s);
  CHECK(c.method() == union_method::exact);
  double v = 0;
  vec3d first{0, 0, 0};
  for (const auto& b : s) { v += ball_volume(b.radius); first += b.centre * ball_volume(b.radius); }
  const vec3d g = first / v;
  CHECK(c.volume() == doctest::Approx(v).epsilon(1e-14));
  CHECK(dem::norm(c.centroid() - g) < 1e-14);
  double j[3][3] = {};
  for (const auto& b : s) {
    const double m = ball_volume(b.radius);
    const vec3d d = b.centre - g;
    for (int a = 0; a < 3; ++a)
      for (int k = 0; k < 3; ++k) j[a][k] += (a == k ? 0.4 * m * b.radius * b.radius + m * norm2(d) : 0.0) - m * d[a] * d[k];
  }
  for (int a = 0; a < 3; ++a)
    for (int k = 0; k < 3; ++k) CHECK(c.inertia_tensor_per_density()[a][k] == doctest::Approx(j[a][k]).epsilon(1e-12).scale(1));
}

TEST_CASE("clump: a tetrahedral four-sphere clump has isotropic inertia (slice quadrature)") {
  for (double edge : {1.0, 1.6, 2.5}) {  // strongly overlapping, touching in threes, apart
    CAPTURE(edge);
    const clump_template c = clumps::tetrahedral_four_sphere(1.0, edge);
    CHECK(c.size() == 4);
    const vec3d p = c.principal_inertia_per_density();
    CHECK((p.z - p.x) / p.z < 1e-9);
    CHECK(dem::norm(c.centroid()) < 1e-12);
    CHECK(c.volume() > ball_volume(1.0));
    CHECK(c.volume() <= 4 * ball_volume(1.0) * (1 + 1e-14));
    if (edge >= 2) CHECK(c.volume() == doctest::Approx(4 * ball_volume(1.0)).epsilon(1e-14));
    // Slicing another way (the clump turned) gives the same volume: an independent quadrature.
    std::vector<ball> turned;
    for (const auto& s : c.input_spheres()) turned.push_back({dem::rotate(tilt, s.centre), s.radius});
    CHECK(union_moments_by_slices(turned).volume == doctest::Approx(c.volume()).epsilon(1e-10));
  }
  CHECK(clumps::tetrahedral_four_sphere(1.0, 1.0).method() == union_method::slices);
}

TEST_CASE("clump: stock two- and three-sphere templates") {
  const auto two = clumps::two_sphere(0.5, 0.6);
  const axisymmetric ref = two_ball_reference(0.5, 0.5, 0.6);
  CHECK(two.volume() == doctest::Approx(ref.volume).epsilon(1e-13));
  check_axisymmetric(two.principal_inertia_per_density(), ref, 1e-12);
  CHECK(two.bounding_radius() == doctest::Approx(0.8));
  const auto line = clumps::three_sphere(0.5, 0.6);  // 1 and 3 apart: exact
  CHECK(line.method() == union_method::exact);
  CHECK(line.bounding_radius() == doctest::Approx(1.1));
  std::vector<ball> balls;
  for (const auto& s : line.input_spheres()) balls.push_back({s.centre, s.radius});
  CHECK(union_moments_by_slices(balls).volume == doctest::Approx(line.volume()).epsilon(1e-10));
  const auto tri = clumps::three_sphere(0.5, 0.6, clumps::layout::triangle);
  CHECK(tri.method() == union_method::slices);
  const vec3d p = tri.principal_inertia_per_density();
  // A planar equilateral arrangement: two equal in-plane moments, the normal one largest.
  CHECK(p.y == doctest::Approx(p.x).epsilon(1e-9));
  CHECK(p.z > p.y);
  CHECK(std::fabs(dem::rotate(tri.orientation(), vec3d{0, 0, 1}).z) == doctest::Approx(1.0).epsilon(1e-12));
}

TEST_CASE("clump: principal frame round trip") {
  const std::vector<clump_sphere> s{{{0.1, 0.2, 0.3}, 0.5, 2}, {{0.6, 0.1, 0.2}, 0.4, 3}, {{0.2, 0.7, -0.1}, 0.3, 4},
                                    {{0.3, 0.3, 0.6}, 0.35, 5}, {{-0.3, 0.1, 0.1}, 0.45, 6}};
  const clump_template c("blob", s);
  const auto q = c.orientation();
  CHECK(std::fabs(dem::norm2(q) - 1) < 1e-14);
  for (std::size_t i = 0; i < s.size(); ++i) {
    CHECK(dem::norm(c.to_input_frame(c.spheres()[i].centre) - s[i].centre) < 1e-14);
    CHECK(c.spheres()[i].radius == s[i].radius);
    CHECK(c.spheres()[i].material == s[i].material);
  }
  const vec3d p = c.principal_inertia_per_density();
  CHECK(p.x <= p.y);
  CHECK(p.y <= p.z);
  // J_input = R diag(p) R^T
  for (int a = 0; a < 3; ++a) {
    vec3d ea{0, 0, 0};
    ea[a] = 1;
    const vec3d eb = dem::rotate_inverse(q, ea);
    const vec3d jcol = dem::rotate(q, vec3d{p.x * eb.x, p.y * eb.y, p.z * eb.z});
    for (int b = 0; b < 3; ++b)
      CHECK(jcol[b] == doctest::Approx(c.inertia_tensor_per_density()[b][a]).epsilon(1e-9).scale(p.z));
  }
  // A rigidly moved input gives the same body.
  std::vector<clump_sphere> moved = s;
  for (auto& m : moved) m.centre = dem::rotate(tilt, m.centre) + vec3d{5, -1, 2};
  const clump_template c2("blob moved", moved);
  CHECK(c2.volume() == doctest::Approx(c.volume()).epsilon(1e-10));
  for (int k = 0; k < 3; ++k)
    CHECK(c2.principal_inertia_per_density()[k] == doctest::Approx(p[k]).epsilon(1e-9));
  // Every principal axis of c, moved with the input, is a principal axis of c2.
  for (int k = 0; k < 3; ++k) {
    vec3d e{0, 0, 0};
    e[k] = 1;
    const vec3d a1 = dem::rotate(tilt, dem::rotate(c.orientation(), e)), a2 = dem::rotate(c2.orientation(), e);
    CHECK(std::fabs(dem::dot(a1, a2)) == doctest::Approx(1.0).epsilon(1e-8));
  }
  // Bounding radius encloses every sphere and touches one.
  double reach = 0;
  for (const auto& sp : c.spheres()) reach = std::max(reach, dem::norm(sp.centre) + sp.radius);
  CHECK(c.bounding_radius() == doctest::Approx(reach));
}

TEST_CASE("clump: the device copy") {
  static_assert(std::is_trivially_copyable_v<clump_shape<float, 8>>);
  static_assert(std::is_trivially_copyable_v<clump_shape<double, 1>>);
  const auto c = clumps::tetrahedral_four_sphere(1e-3, 1.5e-3, 7);
  const auto s = c.to_shape<float, 8>();
  CHECK(s.count == 4);
  CHECK(s.radius[3] == doctest::Approx(1e-3));
  CHECK(s.material[2] == 7);
  CHECK(s.volume == doctest::Approx(c.volume()).scale(0));
  CHECK(s.mass(2500.0f) == doctest::Approx(2500 * c.volume()).epsilon(1e-6));
  CHECK(s.principal_inertia(2500.0f).y == doctest::Approx(2500 * c.principal_inertia_per_density().y).epsilon(1e-6).scale(0));
  CHECK(s.bounding_radius == doctest::Approx(c.bounding_radius()));
  CHECK(dem::norm(vec3d(s.centre[1]) - c.spheres()[1].centre) < 1e-9);
}

TEST_CASE("clump: bad input is refused with the clump's name and the problem") {
  auto has = [](const std::string& msg, const std::string& a, const std::string& b) {
    CAPTURE(msg);
    CHECK(msg.find(a) != std::string::npos);
    CHECK(msg.find(b) != std::string::npos);
  };
  has(message_of([] { clump_template("empty", {}); }), "clump 'empty'", "no spheres");
  has(message_of([] { clump_template("neg", {{{0, 0, 0}, 1}, {{1, 0, 0}, -1}}); }), "clump 'neg'",
      "sphere 1: radius must be positive and finite, got -1");
  has(message_of([] { clump_template("zero", {{{0, 0, 0}, 0}}); }), "clump 'zero'", "radius must be positive");
  has(message_of([] { clump_template("nanr", {{{0, 0, 0}, std::nan("")}}); }), "clump 'nanr'", "got nan");
  has(message_of([] { clump_template("infr", {{{0, 0, 0}, INFINITY}}); }), "clump 'infr'", "got inf");
  has(message_of([] { clump_template("nanc", {{{0, std::nan(""), 0}, 1}}); }), "clump 'nanc'",
      "sphere 0: centre is not finite (0, nan, 0)");
  has(message_of([] { clump_template("tiny", {{{0, 0, 0}, 1e-120}}); }), "clump 'tiny'", "zero volume");
  has(message_of([] { (void)clumps::three_sphere(1, 1).to_shape<float, 2>(); }), "clump 'three_sphere'",
      "3 spheres, more than the bound MaxSpheres = 2");
  has(message_of([] { (void)make_clump("arrays", {{0, 0, 0}, {1, 0, 0}}, {1.0}); }), "clump 'arrays'", "2 centres but 1 radii");
  has(message_of([] { (void)make_clump("mats", {{0, 0, 0}}, {1.0}, {1, 2}); }), "clump 'mats'", "2 materials for 1 spheres");
  has(message_of([] { (void)clumps::two_sphere(-1, 1); }), "clump 'two_sphere'", "radius must be positive");
  has(message_of([] { (void)clumps::tetrahedral_four_sphere(1, std::nan("")); }), "clump 'tetrahedral_four_sphere'",
      "edge must be non-negative");
  has(message_of([] { clump_template("tol", {{{0, 0, 0}, 1}}, 0.0); }), "clump 'tol'", "rel_tol");
  // A sphere far from the others (the fuzzer's: its quadrature over 1e43 radii never ended).
  has(message_of([] { clump_template("far", {{{0, 0, 0}, 1}, {{1, 0, 0}, 1}, {{7.7e43, 0, 0}, 1}}); }), "clump 'far'",
      "along axis 0, more than twice the sum of their diameters (6 m): they do not form one body");
}

TEST_CASE("clump: arrays and CSV loaders") {
  const auto a = make_clump("arrays", {{0, 0, 0}, {1, 0, 0}}, {1.0, 0.5}, {3, 4});
  CHECK(a.size() == 2);
  CHECK(a.input_spheres()[1].material == 4);

  // The stored example: header, comment, blank line, materials.
  const auto path = (std::filesystem::path(__FILE__).parent_path() / "data" / "clump_three_l.csv").string();
  const auto c = load_clump_csv(path, "L");
  CHECK(c.name() == "L");
  REQUIRE(c.size() == 3);
  CHECK(c.input_spheres()[1].centre == vec3d{0.0015, 0, 0});
  CHECK(c.input_spheres()[2].radius == 0.0008);
  CHECK(c.input_spheres()[1].material == 1);
  CHECK(load_clump_csv(path).name() == path);

  const auto dir = std::filesystem::temp_directory_path();
  auto write = [&](const std::string& name, const std::string& text) {
    const auto p = (dir / ("dem_test_clump_" + name + ".csv")).string();
    std::ofstream(p) << text;
    return p;
  };
  // No header, spaces, CRLF line ends.
  const auto plain = write("plain", "0,0,0,1\r\n 2 , 0 , 0 , 1 \r\n");
  CHECK(load_clump_csv(plain).volume() == doctest::Approx(2 * ball_volume(1)).epsilon(1e-14));

  auto csv_error = [&](const std::string& name, const std::string& text, const std::string& expect) {
    const auto p = write(name, text);
    const std::string msg = message_of([&] { (void)load_clump_csv(p); });
    CAPTURE(msg);
    CHECK(msg.find("clump CSV '" + p + "'") != std::string::npos);
    CHECK(msg.find(expect) != std::string::npos);
  };
  csv_error("three_fields", "x,y,z,r\n0,0,0,1\n1,2,3\n", "line 3: expected 4 or 5 numbers x,y,z,r[,material], got '1,2,3'");
  csv_error("garbage", "0,0,0,1\n0,0,1.0x,1\n", "line 2: expected 4 or 5 numbers");
  csv_error("second_header", "x,y,z,r\nx,y,z,r\n", "line 2: expected");
  csv_error("bad_radius", "0,0,0,1\n\n0,0,0,-2\n", "line 3: radius must be positive and finite, got '-2'");
  csv_error("nan_centre", "nan,0,0,1\n", "line 1: centre is not finite");
  csv_error("bad_material", "0,0,0,1,1.5\n", "line 1: material must be an integer id");
  csv_error("empty", "x,y,z,r\n# nothing\n", "no spheres in the file");
  csv_error("tiny", "0,0,0,1e-120\n", "zero volume");
  const std::string missing = message_of([&] { (void)load_clump_csv((dir / "dem_no_such_clump.csv").string()); });
  CHECK(missing.find("cannot open the file") != std::string::npos);
}
