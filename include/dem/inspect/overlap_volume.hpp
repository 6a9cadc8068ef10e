#pragma once
// Volume of a sphere inside a box, a ball or a finite cylinder: the solid volume a region holds
// (packing fraction), computed per sphere, not sampled.
//  - ball: the lens formula (closed form);
//  - box: inclusion–exclusion over the eight corners of "the ball beyond three planes", each a
//    one-dimensional integral of a closed-form disc-corner area;
//  - cylinder: slices across the axis, each a closed-form circle–circle lens area.
// The integrals' integrands are smooth inside each interval; a cosine map removes the
// (u^{3/2}-type) behaviour at their ends, and 24-point Gauss–Legendre then gives about 1e-12 of the
// sphere's volume (tests/inspect/test_overlap_volume.cpp checks additivity and closed forms).
#include <cmath>
#include <limits>

#include "dem/config.hpp"
#include "dem/math/vec3.hpp"

namespace dem::inspect {

namespace detail {

inline constexpr double pi = 3.14159265358979323846;

DEM_HD inline double clamp(double v, double lo, double hi) { return v < lo ? lo : (v > hi ? hi : v); }

// Integral of f over [a, b] with x = a + (b - a)(1 - cos(pi t))/2 and 24-point Gauss–Legendre in t.
template <class F>
DEM_HD double integrate_smooth_ends(const F& f, double a, double b) {
  if (!(b > a)) return 0.0;
  // The 12 nodes in (0, 1/2) of the 24-point rule on [0, 1] (the others are 1 - node) and weights.
  constexpr double node[12] = {0.0024063900014893447, 0.012635722014345263, 0.030862723998633601, 0.056792236497799464,
                               0.089999007013048526,  0.12993790421072282,  0.17595317403151223,  0.22728926430558022,
                               0.28310324618697746,   0.3424786601519183,   0.40444056626319186,  0.46797155356869719};
  constexpr double weight[12] = {0.0061706148999936669, 0.014265694314466906, 0.022138719408709838, 0.029649292457718329,
                                 0.036673240705540136,  0.043095080765976609, 0.048809326052056949, 0.05372213505798281,
                                 0.057752834026862807,  0.060835236463901675, 0.062918728173414193, 0.063969097673376121};
  double s = 0.0;
  const double h = 0.5 * (b - a);
  for (int k = 0; k < 12; ++k)
    for (int side = 0; side < 2; ++side) {
      const double t = side ? 1.0 - node[k] : node[k];
      s += weight[k] * f(a + h * (1.0 - std::cos(pi * t))) * std::sin(pi * t);
    }
  return s * h * pi;
}

// Area of the disc of radius rho (centre 0) with y >= b and z >= c, for b, c >= 0.
DEM_HD inline double disc_corner(double rho, double b, double c) {
  const double r2 = rho * rho;
  if (b * b + c * c >= r2) return 0.0;
  const double y1 = std::sqrt(r2 - c * c);  // where the circle meets z = c
  const auto F = [&](double y) { return 0.5 * (y * std::sqrt(r2 - y * y > 0 ? r2 - y * y : 0.0) + r2 * std::asin(clamp(y / rho, -1.0, 1.0))); };
  const double a = F(y1) - F(b) - c * (y1 - b);
  return a > 0 ? a : 0.0;
}

// Volume of the ball of radius R (centre 0) with x >= a, y >= b, z >= c, for a, b, c >= 0. The ball
// is symmetric under permutations of the axes, so the largest bound is taken as the integration
// variable (the shortest interval), and two zero bounds give a quarter of a cap in closed form.
DEM_HD inline double ball_corner_positive(double R, double a, double b, double c) {
  if (b > a) { const double t = a; a = b; b = t; }
  if (c > a) { const double t = a; a = c; c = t; }
  const double q = R * R - b * b - c * c;
  if (q <= 0) return 0.0;
  const double X = std::sqrt(q);
  if (a >= X) return 0.0;
  if (b == 0 && c == 0) return 0.25 * pi * (R - a) * (R - a) * (2 * R + a) / 3.0;  // a quarter of the cap
  return integrate_smooth_ends([&](double x) { return disc_corner(std::sqrt(R * R - x * x > 0 ? R * R - x * x : 0.0), b, c); }, a, X);
}

// Volume of the ball of radius R (centre 0) with x >= a, y >= b, z >= c, for any a, b, c: a
// negative bound is the whole line minus the mirror image of x >= |a|, and the whole line is twice
// x >= 0 (the ball is symmetric); so every term has non-negative bounds.
DEM_HD inline double ball_corner(double R, double a, double b, double c) {
  const double v[3] = {clamp(a, -R, R), clamp(b, -R, R), clamp(c, -R, R)};
  double total = 0.0;
  for (int m = 0; m < 8; ++m) {  // bit k set: bound k replaced by the whole line (negative bounds only)
    double arg[3], sign = 1.0, factor = 1.0;
    bool used = true;
    for (int k = 0; k < 3; ++k) {
      const bool whole = (m >> k) & 1;
      if (v[k] >= 0) {
        if (whole) used = false;
        arg[k] = v[k];
      } else if (whole) {
        arg[k] = 0.0;
        factor *= 2.0;
      } else {
        arg[k] = -v[k];
        sign = -sign;
      }
    }
    if (used) total += sign * factor * ball_corner_positive(R, arg[0], arg[1], arg[2]);
  }
  return total;
}

// Area of the circle of radius rho beyond a chord at signed distance h from its centre (h < 0:
// more than half), given rho - h computed without cancellation. Stable for thin segments: x - sin x
// by its series for small x.
DEM_HD inline double circle_segment(double rho, double h, double rho_minus_h) {
  if (rho_minus_h <= 0) return 0.0;
  if (h <= -rho) return pi * rho * rho;
  const double half_chord = std::sqrt(rho_minus_h * (rho + h));
  const double x = 2.0 * std::atan2(half_chord, h);  // the angle the chord subtends
  double x_minus_sin;
  if (x < 0.5) {
    const double x2 = x * x;
    x_minus_sin = x * x2 / 6.0 * (1.0 - x2 / 20.0 * (1.0 - x2 / 42.0 * (1.0 - x2 / 72.0 * (1.0 - x2 / 110.0))));
  } else {
    x_minus_sin = x - std::sin(x);
  }
  return 0.5 * rho * rho * x_minus_sin;
}

// Area of the intersection of two circles with radii r1, r2 whose centres are d apart; written
// without the cancellations of the textbook formula, so a small circle on the wall of a large one
// (a particle at a region's wall) keeps its digits.
DEM_HD inline double circle_lens(double r1, double r2, double d) {
  if (r1 <= 0 || r2 <= 0) return 0.0;
  if (d >= r1 + r2) return 0.0;
  const double small = r1 < r2 ? r1 : r2;
  if (d <= (r1 > r2 ? r1 - r2 : r2 - r1)) return pi * small * small;
  // The common chord lies h1 from centre 1 (towards centre 2) and h2 = d - h1 from centre 2.
  const double h1 = ((d - r2) * (d + r2) + r1 * r1) / (2.0 * d);
  const double h2 = ((d - r1) * (d + r1) + r2 * r2) / (2.0 * d);
  // r - h of each, factored: r1 - h1 = (r1 + r2 - d)(r2 + d - r1) / 2d, and the same for circle 2.
  const double r1_minus_h1 = (r1 + r2 - d) * (r2 + d - r1) / (2.0 * d), r2_minus_h2 = (r1 + r2 - d) * (r1 + d - r2) / (2.0 * d);
  return circle_segment(r1, h1, r1_minus_h1) + circle_segment(r2, h2, r2_minus_h2);
}

}  // namespace detail

DEM_HD inline double sphere_volume(double r) { return 4.0 / 3.0 * detail::pi * r * r * r; }

// Volume of the sphere (centre c, radius r) inside the box [lo, hi].
DEM_HD inline double sphere_box_volume(const vec3d& c, double r, const vec3d& lo, const vec3d& hi) {
  const vec3d a = lo - c, b = hi - c;
  if (a.x >= r || a.y >= r || a.z >= r || b.x <= -r || b.y <= -r || b.z <= -r) return 0.0;  // apart
  if (a.x <= -r && a.y <= -r && a.z <= -r && b.x >= r && b.y >= r && b.z >= r) return sphere_volume(r);  // inside
  // 1[lo <= x < hi] = 1[x >= lo] - 1[x >= hi] on each axis.
  double v = 0.0;
  for (int m = 0; m < 8; ++m) {
    const double x = (m & 1) ? b.x : a.x, y = (m & 2) ? b.y : a.y, z = (m & 4) ? b.z : a.z;
    if (x >= r || y >= r || z >= r) continue;
    const double sign = ((m & 1) ^ ((m >> 1) & 1) ^ ((m >> 2) & 1)) ? -1.0 : 1.0;
    v += sign * detail::ball_corner(r, x, y, z);
  }
  return v > 0 ? v : 0.0;
}

// Volume of the sphere (centre c, radius r) inside the ball (centre q, radius R).
DEM_HD inline double sphere_ball_volume(const vec3d& c, double r, const vec3d& q, double R) {
  const double d = norm(c - q);
  if (d >= r + R) return 0.0;
  if (d <= (r > R ? r - R : R - r)) return sphere_volume(r < R ? r : R);
  const double s = r + R - d;
  return detail::pi * s * s * (d * d + 2 * d * (r + R) - 3 * (r - R) * (r - R)) / (12 * d);
}

// Volume of the sphere (centre c, radius r) inside the cylinder of radius R around the axis from
// `base` along the unit vector `u` for `length`; an infinite length is unbounded both ways.
DEM_HD inline double sphere_cylinder_volume(const vec3d& c, double r, const vec3d& base, const vec3d& u, double length, double R) {
  const vec3d rel = c - base;
  const double s0 = dot(rel, u);
  const double d = norm(rel - u * s0);  // distance of the centre from the axis
  if (d >= R + r) return 0.0;
  const bool unbounded = length == std::numeric_limits<double>::infinity();
  const double lo = unbounded || s0 - r > 0 ? s0 - r : 0.0, hi = unbounded || s0 + r < length ? s0 + r : length;
  if (!(hi > lo)) return 0.0;
  if (d + r <= R && lo == s0 - r && hi == s0 + r) return sphere_volume(r);
  // The slice at axial offset t from the centre is a disc of radius sqrt(r^2 - t^2), d from the
  // axis; its area inside the cylinder changes form where that radius equals |R - d| or R + d.
  // The equator (t = 0, where the slice radius peaks) is a cut too: a change of form just beyond
  // the peak would otherwise sit inside an interval.
  double cut[7] = {lo - s0, hi - s0, 0, 0, 0, 0, 0};
  int n = 3;
  const double change[2] = {R > d ? R - d : d - R, R + d};
  for (int k = 0; k < 2; ++k) {
    const double rho = change[k];
    if (rho < r) {
      const double t = std::sqrt(r * r - rho * rho);
      cut[n++] = -t;
      cut[n++] = t;
    }
  }
  for (int i = 1; i < n; ++i)  // insertion sort of at most 7 values
    for (int j = i; j > 0 && cut[j] < cut[j - 1]; --j) {
      const double tmp = cut[j];
      cut[j] = cut[j - 1];
      cut[j - 1] = tmp;
    }
  const auto slice = [&](double t) {
    const double q = r * r - t * t;
    return detail::circle_lens(std::sqrt(q > 0 ? q : 0.0), R, d);
  };
  double v = 0.0;
  for (int i = 0; i + 1 < n; ++i) {
    const double a = cut[i] > lo - s0 ? cut[i] : lo - s0, b = cut[i + 1] < hi - s0 ? cut[i + 1] : hi - s0;
    v += detail::integrate_smooth_ends(slice, a, b);
  }
  return v;
}

}  // namespace dem::inspect
