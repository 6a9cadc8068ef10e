// The exact volume of a sphere inside a box, a ball and a cylinder (inspect/overlap_volume.hpp),
// against closed forms, additivity, and an independent two-dimensional quadrature.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <random>

#include "dem/inspect/overlap_volume.hpp"

using dem::vec3d;
using namespace dem::inspect;

namespace {
const double pi = 3.14159265358979323846;
double cap(double R, double h) { return pi * (R - h) * (R - h) * (2 * R + h) / 3; }  // ball beyond the plane at h (|h| <= R)

// Independent reference: the sphere in the box as a double integral over (x, y) of the chord length
// in z inside [lo.z, hi.z], by composite Gauss–Legendre (8 points) on n x n panels.
double box_reference(const vec3d& c, double r, const vec3d& lo, const vec3d& hi, int n) {
  const double gx[4] = {0.1834346424956498, 0.5255324099163290, 0.7966664774136267, 0.9602898564975363};
  const double gw[4] = {0.3626837833783620, 0.3137066458778873, 0.2223810344533745, 0.1012285362903763};
  const double x0 = std::max(lo.x, c.x - r), x1 = std::min(hi.x, c.x + r);
  const double y0 = std::max(lo.y, c.y - r), y1 = std::min(hi.y, c.y + r);
  if (!(x1 > x0) || !(y1 > y0)) return 0;
  double v = 0;
  const double hx = (x1 - x0) / n, hy = (y1 - y0) / n;
  for (int i = 0; i < n; ++i)
    for (int a = 0; a < 8; ++a) {
      const double x = x0 + hx * (i + 0.5 + 0.5 * (a < 4 ? -gx[a] : gx[a - 4])), wx = 0.5 * hx * gw[a % 4];
      for (int j = 0; j < n; ++j)
        for (int b = 0; b < 8; ++b) {
          const double y = y0 + hy * (j + 0.5 + 0.5 * (b < 4 ? -gx[b] : gx[b - 4])), wy = 0.5 * hy * gw[b % 4];
          const double q = r * r - (x - c.x) * (x - c.x) - (y - c.y) * (y - c.y);
          if (q <= 0) continue;
          const double h = std::sqrt(q);
          const double len = std::min(hi.z, c.z + h) - std::max(lo.z, c.z - h);
          if (len > 0) v += wx * wy * len;
        }
    }
  return v;
}
}  // namespace

TEST_CASE("sphere in a box: closed forms, additivity, and an independent quadrature") {
  const double r = 1.0, V = sphere_volume(r);
  CHECK(sphere_box_volume({0, 0, 0}, r, {-2, -2, -2}, {2, 2, 2}) == doctest::Approx(V).epsilon(1e-15));
  CHECK(sphere_box_volume({0, 0, 0}, r, {1.5, -2, -2}, {2, 2, 2}) == 0.0);
  for (double h : {-0.9, -0.3, 0.0, 0.25, 0.7, 0.999}) {
    INFO("plane at " << h);
    CHECK(std::fabs(sphere_box_volume({0, 0, 0}, r, {-2, -2, h}, {2, 2, 2}) - cap(r, h)) < 1e-9 * V);
    CHECK(std::fabs(sphere_box_volume({0, 0, 0}, r, {h, -2, -2}, {2, 2, 2}) - cap(r, h)) < 1e-9 * V);
    // an octant-aligned corner: a quarter of the cap (symmetry)
    CHECK(std::fabs(sphere_box_volume({0, 0, 0}, r, {0, 0, h}, {2, 2, 2}) - cap(r, h) / 4) < 1e-9 * V);
  }
  // Eight boxes meeting at a random point share out the sphere.
  std::mt19937_64 g(7);
  std::uniform_real_distribution<double> u(-1.1, 1.1);
  double worst = 0;
  for (int k = 0; k < 500; ++k) {
    const vec3d m{u(g), u(g), u(g)}, c{0.2 * u(g), 0.2 * u(g), 0.2 * u(g)};
    double sum = 0;
    for (int q = 0; q < 8; ++q) {
      const vec3d lo{(q & 1) ? m.x : -3, (q & 2) ? m.y : -3, (q & 4) ? m.z : -3};
      const vec3d hi{(q & 1) ? 3 : m.x, (q & 2) ? 3 : m.y, (q & 4) ? 3 : m.z};
      const double v = sphere_box_volume(c, r, lo, hi);
      CHECK(v >= 0);
      sum += v;
    }
    worst = std::max(worst, std::fabs(sum - V) / V);
  }
  CHECK(worst < 1e-12);
  // Boxes cutting the sphere on every side, against the two-dimensional quadrature.
  for (int k = 0; k < 12; ++k) {
    const vec3d c{0.3 * u(g), 0.3 * u(g), 0.3 * u(g)};
    const vec3d lo{-0.8 + 0.3 * u(g), -0.8 + 0.3 * u(g), -0.8 + 0.3 * u(g)}, hi{0.6 + 0.3 * u(g), 0.6 + 0.3 * u(g), 0.5 + 0.3 * u(g)};
    const double exact = sphere_box_volume(c, r, lo, hi), ref = box_reference(c, r, lo, hi, 200);
    INFO("box " << lo.x << " " << lo.y << " " << lo.z << " .. " << hi.x << " " << hi.y << " " << hi.z << ": " << exact << " vs " << ref);
    CHECK(std::fabs(exact - ref) < 2e-6 * V);
  }
}

TEST_CASE("sphere in a ball: the lens formula's limits") {
  const double V = sphere_volume(1.0);
  CHECK(sphere_ball_volume({0, 0, 0}, 1.0, {0.5, 0, 0}, 3.0) == doctest::Approx(V));
  CHECK(sphere_ball_volume({0, 0, 0}, 1.0, {0.5, 0, 0}, 0.2) == doctest::Approx(sphere_volume(0.2)));
  CHECK(sphere_ball_volume({0, 0, 0}, 1.0, {2.5, 0, 0}, 1.0) == 0.0);
  // A huge ball whose surface passes at distance h from the centre approaches the cap.
  const double R = 1e4, h = 0.3;
  CHECK(sphere_ball_volume({0, 0, 0}, 1.0, {h + R, 0, 0}, R) == doctest::Approx(cap(1.0, h)).epsilon(1e-3));
  // Two equal spheres with centres one radius apart: 5 pi r^3 / 12.
  CHECK(sphere_ball_volume({0, 0, 0}, 1.0, {1, 0, 0}, 1.0) == doctest::Approx(5 * pi / 12).epsilon(1e-13));
}

TEST_CASE("sphere in a cylinder: slabs, a wide cylinder, additivity along the axis") {
  const double V = sphere_volume(1.0), inf = std::numeric_limits<double>::infinity();
  const vec3d z{0, 0, 1};
  CHECK(sphere_cylinder_volume({0, 0, 0}, 1.0, {0, 0, -5}, z, inf, 2.0) == doctest::Approx(V).epsilon(1e-14));
  CHECK(sphere_cylinder_volume({0, 0, 0}, 1.0, {0, 0, -5}, z, 5.3, 2.0) == doctest::Approx(V - cap(1.0, 0.3)).epsilon(1e-10));
  // A cylinder so wide that its wall near the sphere is a plane at distance h from the centre.
  const double R = 1e5, h = -0.4;
  CHECK(sphere_cylinder_volume({R + h, 0, 0}, 1.0, {0, 0, -5}, z, inf, R) == doctest::Approx(V - cap(1.0, -h)).epsilon(1e-5));
  std::mt19937_64 g(11);
  std::uniform_real_distribution<double> u(-1.2, 1.2);
  for (int k = 0; k < 300; ++k) {
    const vec3d c{0.4 * u(g), 0.4 * u(g), 0.4 * u(g)};
    const double t = u(g), Rc = 0.3 + 0.5 * std::fabs(u(g));
    const double below = sphere_cylinder_volume(c, 1.0, {0, 0, -5}, z, 5 + t, Rc), above = sphere_cylinder_volume(c, 1.0, {0, 0, t}, z, 10, Rc);
    const double whole = sphere_cylinder_volume(c, 1.0, {0, 0, -5}, z, inf, Rc);
    CHECK(std::fabs(below + above - whole) < 1e-10 * V);
  }
  // The sphere in the intersection of a cylinder and a box equals... (not needed): a tilted axis
  // gives the same as the z axis after rotating the sphere's centre with it.
  const vec3d a = vec3d{1, 1, 0} / std::sqrt(2.0);
  const double tilted = sphere_cylinder_volume({0.3 / std::sqrt(2.0), -0.3 / std::sqrt(2.0), 0.1}, 1.0, {0, 0, 0.1}, a, inf, 0.5);
  const double straight = sphere_cylinder_volume({0.3, 0, 0.1}, 1.0, {0, 0, -3}, z, inf, 0.5);
  CHECK(tilted == doctest::Approx(straight).epsilon(1e-12));
}
