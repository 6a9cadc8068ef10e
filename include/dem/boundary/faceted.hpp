#pragma once
// Discs, annuli, and the surfaces of cylinders and cones (lateral surface and caps) as meshes of
// flat facets, for bodies that meet boundaries through the polygon narrow phase (polyhedra; spheres
// and clumps keep the analytic elements of element.hpp).
//
// Why facets: a polyhedron against a curved convex surface (the outside of a cylinder or cone, the
// rim of a disc or of an orifice) has no finite set of separating axes, so the polygon narrow phase
// and the rule of body_contacts.hpp, which make one contact per touching surface, with history
// carried across seams, would need a second, iterative narrow phase (GJK/EPA or MPR) to serve
// them. Facets reuse both as they are, and their error is known and bounded: the corners lie on the
// true surface and each facet is within the sagitta r (1 - cos(pi / N)) of it. A flat disc or cap
// is exact (a fan of coplanar triangles acts as the plane); only the rims and the curved sides are
// approximated. N is 384 (0.94 degrees per facet: a sagitta of 3.3e-5 r), or, with
// config.facet_tolerance set, the fewest that keep the sagitta within it.
//
// Corners are placed at angles 2 pi k / N from detail::any_perpendicular(axis), so every call with
// the same geometry gives the same mesh.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "dem/boundary/element.hpp"
#include "dem/boundary/mesh.hpp"
#include "dem/math/vec3.hpp"

namespace dem::boundary {

inline constexpr std::uint32_t default_facets = 384;  // 0.94 degrees each
// A bound on the mesh's size (a body meets more facets the finer they are). Neighbouring facets of
// a side differ by only about sin(slope) pi / N in their normals (3e-5 rad for a 5 degree cone at
// 16384 facets), so each facet of a side is a face of its own (triangle_mesh::face): the mesh
// check never takes them for a flat patch, and the rule of body_contacts.hpp makes one contact of
// the facets a body touches.
inline constexpr std::uint32_t max_facets = 16384;

inline void check_facet_tolerance(double tolerance) {
  if (!(tolerance >= 0) || !std::isfinite(tolerance))
    throw std::invalid_argument("dem: config.facet_tolerance must be >= 0 and finite (0: " + std::to_string(default_facets) + " facets), got " +
                                std::to_string(tolerance));
}

// Facets around a circle of radius r: default_facets for a tolerance of 0; else the fewest that
// keep the sagitta r (1 - cos(pi / N)) within `tolerance` (m), at least 32. A multiple of 32, so
// that a flat disc can be filled with rings of half as many corners each (detail::append_fill).
// Throws naming the tolerance and the radius when that takes more than max_facets.
inline std::uint32_t facets_around(double r, double tolerance, const std::string& what) {
  check_facet_tolerance(tolerance);
  double n = default_facets;
  if (tolerance > 0) {
    // 1 - cos(x) = 2 sin^2(x / 2): the angle whose sagitta is the tolerance, without cancellation.
    const double half_angle = tolerance >= 2 * r ? M_PI : 2 * std::asin(std::sqrt(0.5 * tolerance / r));
    n = std::max(32.0, std::ceil(M_PI / half_angle));
  }
  n = std::ceil(n / 32) * 32;
  if (n > max_facets)
    throw std::invalid_argument("dem: " + what + " of radius " + std::to_string(r) + " m would need " + std::to_string(n) +
                                " facets to stay within config.facet_tolerance = " + std::to_string(tolerance) + " m of the surface (at most " +
                                std::to_string(max_facets) + "; the sagitta of " + std::to_string(max_facets) + " facets is " +
                                std::to_string(r * (1 - std::cos(M_PI / max_facets))) + " m)");
  return static_cast<std::uint32_t>(n);
}

namespace detail {
// A ring of `n` corners (one, the centre, when r = 0) at axial position s, the first at angle
// `phase` (in facets) from any_perpendicular(u); returns its first index.
inline std::uint32_t append_ring(triangle_mesh& m, const vec3d& base, const vec3d& u, double s, double r, std::uint32_t n, double phase = 0) {
  const auto first = static_cast<std::uint32_t>(m.vertices.size());
  const vec3d e1 = any_perpendicular(u), e2 = cross(u, e1);
  const vec3d c = base + u * s;
  if (!(r > 0)) {
    m.vertices.push_back(c);
    return first;
  }
  for (std::uint32_t k = 0; k < n; ++k) {
    const double phi = 2 * M_PI * (k + phase) / n;
    m.vertices.push_back(c + e1 * (r * std::cos(phi)) + e2 * (r * std::sin(phi)));
  }
  return first;
}

inline void append_triangle(triangle_mesh& m, std::uint32_t a, std::uint32_t b, std::uint32_t c, std::uint32_t face) {
  m.triangles.push_back({a, b, c});
  m.face.push_back(face);
}

// The band between rings a and b (either may be a single corner). Flat (b in a's plane): two
// triangles per facet, a_k a_k+1 b_k+1 and a_k b_k+1 b_k, all on `face`. Staggered (b's corners
// half a facet on from a's): a_k a_k+1 b_k and b_k a_k+1 b_k+1, no two of them coplanar, each a
// face of its own (face, face + 1, ...).
inline void append_band(triangle_mesh& m, std::uint32_t a, bool a_point, std::uint32_t b, bool b_point, std::uint32_t n, bool staggered,
                        std::uint32_t face) {
  std::uint32_t next = face;
  for (std::uint32_t k = 0; k < n; ++k) {
    const std::uint32_t k1 = (k + 1) % n;
    const std::uint32_t a0 = a_point ? a : a + k, a1 = a_point ? a : a + k1;
    const std::uint32_t b0 = b_point ? b : b + k, b1 = b_point ? b : b + k1;
    if (staggered) {
      if (!a_point) append_triangle(m, a0, a1, b0, next++);
      if (!b_point) append_triangle(m, b0, a1, b1, next++);
    } else {
      if (!a_point) append_triangle(m, a0, a1, b1, face);
      if (!b_point) append_triangle(m, a0, b1, b0, face);
    }
  }
}

// Fills ring `rim` (n corners at radius r, axial position s, the first at `phase`) with a flat
// disc: rings of half as many corners each towards the centre, each closer by one of the outer
// ring's facets (so its triangles stay near equilateral), while the count is even and at least
// 16, then a fan. A body near the centre meets that fan (8 to 15 triangles; 12 at 384 facets), not
// all of them.
inline void append_fill(triangle_mesh& m, const vec3d& base, const vec3d& u, double s, std::uint32_t rim, double r, std::uint32_t n,
                        double phase, std::uint32_t face) {
  std::uint32_t outer = rim;
  while (n % 2 == 0 && n >= 16) {
    const double next = r * (1 - 2 * M_PI / n);
    const std::uint32_t half = n / 2;
    const std::uint32_t inner = append_ring(m, base, u, s, next, half, phase / 2);  // corner k beside the outer ring's corner 2k
    for (std::uint32_t k = 0; k < half; ++k) {
      const std::uint32_t i0 = inner + k, i1 = inner + (k + 1) % half;
      const std::uint32_t o0 = outer + 2 * k, o1 = outer + 2 * k + 1, o2 = outer + (2 * k + 2) % n;
      append_triangle(m, i0, o0, o1, face);
      append_triangle(m, i0, o1, i1, face);
      append_triangle(m, i1, o1, o2, face);
    }
    outer = inner;
    n = half;
    r = next;
    phase /= 2;
  }
  const std::uint32_t centre = append_ring(m, base, u, s, 0, n);
  append_band(m, centre, true, outer, false, n, false, face);
}
}  // namespace detail

// A disc of radius r0 (or an annulus with inner radius r1 > 0) about `centre`, normal n (unit).
inline triangle_mesh faceted_disc(const vec3d& centre, const vec3d& n, double r0, double r1, std::uint32_t facets) {
  triangle_mesh m;
  m.name = r1 > 0 ? "annulus" : "disc";
  const std::uint32_t outer = detail::append_ring(m, centre, n, 0, r0, facets);
  if (r1 > 0) detail::append_band(m, detail::append_ring(m, centre, n, 0, r1, facets), false, outer, false, facets, false, 0);
  else detail::append_fill(m, centre, n, 0, outer, r0, facets, 0, 0);
  return m;
}

// The lateral surface of a frustum along unit u from `base`, between axial positions s0 < s1 with
// radii r0 and r1 (either may be 0: an apex), with a flat cap at either end if asked for; the caps
// share the rims' corners, so the rims are edges of the mesh. The ring at s1 is turned by half a
// facet against the ring at s0, so the side is the convex hull of the two rings and no two of its
// triangles are coplanar: every edge of it is a (slightly) convex edge of the surface, and none is
// a seam (a seam is a flat patch's, and the polygon narrow phase looks across it as if the patch
// went on flat, which a curved surface does not): each side triangle is a face of its own, however
// shallow the cone (triangle_mesh::face).
inline triangle_mesh faceted_frustum(const vec3d& base, const vec3d& u, double s0, double s1, double r0, double r1, bool cap0, bool cap1,
                                     std::uint32_t facets) {
  triangle_mesh m;
  m.name = r0 == r1 ? "cylinder" : "cone";
  const std::uint32_t ring0 = detail::append_ring(m, base, u, s0, r0, facets);
  const std::uint32_t ring1 = detail::append_ring(m, base, u, s1, r1, facets, 0.5);
  detail::append_band(m, ring0, !(r0 > 0), ring1, !(r1 > 0), facets, true, 2);  // faces 2, 3, ...
  if (cap0 && r0 > 0) detail::append_fill(m, base, u, s0, ring0, r0, facets, 0, 0);  // on the rim's own corners
  if (cap1 && r1 > 0) detail::append_fill(m, base, u, s1, ring1, r1, facets, 0.5, 1);
  return m;
}

}  // namespace dem::boundary
