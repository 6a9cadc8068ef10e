#pragma once
// Boundaries as triangles in the world, where they are now, for output (ParaView): meshes as they
// are, analytic kinds tessellated (planes clipped to the domain, discs, plates, cylinders and cones
// with 64 segments). Each triangle knows its boundary and element, so that per-element forces
// (a mesh's pressure map) can go with it.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <vector>

#include "dem/boundary/element.hpp"
#include "dem/boundary/motion.hpp"
#include "dem/math/aabb.hpp"
#include "dem/math/quaternion.hpp"

namespace dem::boundary {

struct surface_triangles {
  std::vector<vec3d> points;
  std::vector<std::array<std::uint32_t, 3>> triangles;
  std::vector<std::uint32_t> boundary;  // per triangle
  std::vector<std::uint32_t> element;   // per triangle: the element's index within its boundary
};

namespace detail {
inline constexpr int segments = 64;

inline void basis(const vec3d& n, vec3d& u, vec3d& v) {
  const vec3d t = std::fabs(n.x) < 0.6 ? vec3d{1, 0, 0} : vec3d{0, 1, 0};
  u = cross(n, t);
  u = u / norm(u);
  v = cross(n, u);
}

struct emitter {
  surface_triangles& out;
  std::uint32_t boundary, element;
  std::uint32_t point(const vec3d& p) {
    out.points.push_back(p);
    return static_cast<std::uint32_t>(out.points.size() - 1);
  }
  void triangle(std::uint32_t a, std::uint32_t b, std::uint32_t c) {
    out.triangles.push_back({a, b, c});
    out.boundary.push_back(boundary);
    out.element.push_back(element);
  }
};

// The polygon where the plane (p, n) cuts the box, fanned into triangles.
inline void plane_in_box(emitter& em, const vec3d& p, const vec3d& n, const aabb& box) {
  std::vector<vec3d> cut;
  const vec3d c[8] = {{box.lo.x, box.lo.y, box.lo.z}, {box.hi.x, box.lo.y, box.lo.z}, {box.lo.x, box.hi.y, box.lo.z}, {box.hi.x, box.hi.y, box.lo.z},
                      {box.lo.x, box.lo.y, box.hi.z}, {box.hi.x, box.lo.y, box.hi.z}, {box.lo.x, box.hi.y, box.hi.z}, {box.hi.x, box.hi.y, box.hi.z}};
  const int edges[12][2] = {{0, 1}, {2, 3}, {4, 5}, {6, 7}, {0, 2}, {1, 3}, {4, 6}, {5, 7}, {0, 4}, {1, 5}, {2, 6}, {3, 7}};
  for (const auto& e : edges) {
    const double da = dot(c[e[0]] - p, n), db = dot(c[e[1]] - p, n);
    if ((da < 0) == (db < 0) && da != 0 && db != 0) continue;
    if (da == db) continue;
    cut.push_back(c[e[0]] + (c[e[1]] - c[e[0]]) * (da / (da - db)));
  }
  if (cut.size() < 3) return;
  vec3d centre{0, 0, 0};
  for (const vec3d& q : cut) centre += q;
  centre = centre * (1.0 / static_cast<double>(cut.size()));
  vec3d u, v;
  basis(n, u, v);
  std::sort(cut.begin(), cut.end(), [&](const vec3d& a, const vec3d& b) {
    return std::atan2(dot(a - centre, v), dot(a - centre, u)) < std::atan2(dot(b - centre, v), dot(b - centre, u));
  });
  const std::uint32_t mid = em.point(centre);
  std::uint32_t first = em.point(cut[0]), prev = first;
  for (std::size_t k = 1; k < cut.size(); ++k) {
    const std::uint32_t q = em.point(cut[k]);
    em.triangle(mid, prev, q);
    prev = q;
  }
  em.triangle(mid, prev, first);
}

// A ring band between radii (s0, r0) and (s1, r1) along axis u from `base` (u, v span the plane
// perpendicular to the axis).
inline void band(emitter& em, const vec3d& base, const vec3d& axis, double s0, double r0, double s1, double r1) {
  vec3d u, v;
  basis(axis, u, v);
  std::uint32_t first0 = 0, first1 = 0, prev0 = 0, prev1 = 0;
  for (int k = 0; k <= segments; ++k) {
    const double phi = 2 * M_PI * (k % segments) / segments;
    const vec3d radial = u * std::cos(phi) + v * std::sin(phi);
    if (k == segments) {
      em.triangle(prev0, first0, prev1);
      em.triangle(first0, first1, prev1);
      break;
    }
    const std::uint32_t p0 = em.point(base + axis * s0 + radial * r0), p1 = em.point(base + axis * s1 + radial * r1);
    if (k == 0) {
      first0 = p0;
      first1 = p1;
    } else {
      em.triangle(prev0, p0, prev1);
      em.triangle(p0, p1, prev1);
    }
    prev0 = p0;
    prev1 = p1;
  }
}
}  // namespace detail

// Appends element e (of a boundary whose frame puts local x at place(x)) to `out`.
template <class Real, class Place, class Direction>
void tessellate(const element<Real>& e, std::uint32_t boundary, std::uint32_t index, const Place& place, const Direction& direction,
                const aabb& domain, surface_triangles& out) {
  detail::emitter em{out, boundary, index};
  const vec3d a = place(vec3d(e.a)), n = direction(vec3d(e.n));
  switch (e.kind) {
    case plane_kind: detail::plane_in_box(em, a, n, domain); break;
    case plate_kind: {
      const vec3d u = direction(vec3d(e.b)), v = cross(n, u);
      const double hu = static_cast<double>(e.s0), hv = static_cast<double>(e.s1);
      const std::uint32_t p0 = em.point(a - u * hu - v * hv), p1 = em.point(a + u * hu - v * hv), p2 = em.point(a + u * hu + v * hv),
                          p3 = em.point(a - u * hu + v * hv);
      em.triangle(p0, p1, p2);
      em.triangle(p0, p2, p3);
      break;
    }
    case disc_kind: detail::band(em, a, n, 0, static_cast<double>(e.r1), 0, static_cast<double>(e.r0)); break;
    case cone_kind: {
      // Infinite cylinders are stored long; draw the part whose axial range meets the domain.
      double lo = static_cast<double>(e.s0), hi = static_cast<double>(e.s1), dlo = 1e300, dhi = -1e300;
      for (int c = 0; c < 8; ++c) {
        const vec3d x{(c & 1) ? domain.hi.x : domain.lo.x, (c & 2) ? domain.hi.y : domain.lo.y, (c & 4) ? domain.hi.z : domain.lo.z};
        const double s = dot(x - a, n);
        dlo = std::min(dlo, s);
        dhi = std::max(dhi, s);
      }
      const double s0 = std::max(lo, dlo), s1 = std::min(hi, dhi);
      if (!(s1 > s0)) break;
      auto radius_at = [&](double s) { return static_cast<double>(e.r0) + (s - lo) / (hi - lo) * static_cast<double>(e.r1 - e.r0); };
      detail::band(em, a, n, s0, radius_at(s0), s1, radius_at(s1));
      break;
    }
    default: {
      const std::uint32_t p0 = em.point(place(vec3d(e.a))), p1 = em.point(place(vec3d(e.b))), p2 = em.point(place(vec3d(e.c)));
      em.triangle(p0, p1, p2);
    }
  }
}

}  // namespace dem::boundary
