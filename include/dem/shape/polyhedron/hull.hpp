#pragma once
// Convex hull of a point set on the host (double precision), with polygonal faces: coplanar hull
// triangles are merged, so a cube has 6 quadrilateral faces, not 12 triangles, and points inside a
// face or on an edge are dropped. The narrow phase needs true faces (face normals are its separating
// axes, face polygons are clipped for contact points) and true corners (every vertex costs a
// projection per axis on the GPU).
//
// Method: incremental hull of triangles (start from the largest tetrahedron of the set, add each
// point outside the current hull, replace the faces it sees by a cone over their horizon), then
// faces = the distinct triangle planes, corners = hull vertices lying on three or more of those planes
// (a point on an edge lies on two, a point inside a face on one). Deciding corners globally keeps
// every face polygon consistent with its neighbours.
//
// Bad input is refused with std::invalid_argument naming the shape and the problem: fewer than 4
// points, duplicate points (closer than 1e-9 of the set's size), all points collinear or coplanar,
// non-finite coordinates, more corners than the caller's bound.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <set>
#include <stdexcept>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "dem/math/vec3.hpp"

namespace dem::shape::poly {

// A closed convex polyhedron: faces are corner-index lists, counter-clockwise seen from outside,
// with unit outward normals and offsets (dot(normal, x) = offset on the face).
struct hull {
  std::vector<vec3d> vertices;
  std::vector<std::vector<int>> faces;
  std::vector<vec3d> normals;
  std::vector<double> offsets;
};

namespace detail {

[[noreturn]] inline void hull_error(std::string_view name, const std::string& problem) {
  throw std::invalid_argument("polyhedron '" + std::string(name) + "': " + problem);
}

inline std::string fmt_point(const vec3d& p) {
  std::ostringstream s;  // not "(" + ...: GCC 12 warns falsely (-Wrestrict) on that pattern
  s.precision(9);
  s << '(' << p.x << ", " << p.y << ", " << p.z << ')';
  return s.str();
}

struct hull_triangle {
  int v[3];
  vec3d n;  // unit outward normal
  double offset;
  bool alive;
};

inline hull_triangle make_triangle(const std::vector<vec3d>& p, int a, int b, int c) {
  vec3d n = cross(p[b] - p[a], p[c] - p[a]);
  const double len = norm(n);
  n = len > 0 ? n / len : vec3d{0, 0, 0};
  return {{a, b, c}, n, dot(n, p[a]), true};
}

}  // namespace detail

// Relative tolerance of the hull: points closer than this fraction of the set's size are duplicates,
// points within it of a plane lie on the plane.
inline constexpr double hull_relative_tolerance = 1e-9;

// The convex hull of `points`; `name` names the shape in error messages. Throws when the hull has more
// than `max_vertices` corners (the compile-time bound of the shape that will hold it).
inline hull convex_hull(const std::vector<vec3d>& points, std::string_view name, int max_vertices = 1 << 30) {
  using detail::hull_error;
  const int n = static_cast<int>(points.size());
  if (n < 4)
    hull_error(name, "a convex polyhedron needs at least 4 points, got " + std::to_string(n));
  for (int i = 0; i < n; ++i)
    if (!all_finite(points[i])) hull_error(name, "point " + std::to_string(i) + " is not finite");

  vec3d lo = points[0], hi = points[0];
  for (const auto& p : points)
    for (int k = 0; k < 3; ++k) lo[k] = std::min(lo[k], p[k]), hi[k] = std::max(hi[k], p[k]);
  const double size = norm(hi - lo);
  const double tol = hull_relative_tolerance * size;
  // Work relative to the box centre: plane offsets then stay of the order of the size.
  const vec3d centre = (lo + hi) * 0.5;
  std::vector<vec3d> p(points.size());
  for (int i = 0; i < n; ++i) p[i] = points[i] - centre;

  // Duplicates: O(n^2), fine for the tens to thousands of points a particle shape has.
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j)
      if (norm(p[i] - p[j]) <= tol)
        hull_error(name, "points " + std::to_string(i) + " and " + std::to_string(j) + " coincide " +
                             detail::fmt_point(points[i]) + " (duplicate points within a relative tolerance of 1e-9)");

  // Initial tetrahedron: the farthest pair, the point farthest from their line, the point farthest
  // from their plane. Its size decides collinear / coplanar sets.
  int i0 = 0, i1 = 0;
  {
    int imin = 0, imax = 0;
    double best = -1;
    for (int k = 0; k < 3; ++k) {
      imin = imax = 0;
      for (int i = 1; i < n; ++i) {
        if (p[i][k] < p[imin][k]) imin = i;
        if (p[i][k] > p[imax][k]) imax = i;
      }
      if (p[imax][k] - p[imin][k] > best) best = p[imax][k] - p[imin][k], i0 = imin, i1 = imax;
    }
  }
  int i2 = -1;
  {
    double best = -1;
    const vec3d e = p[i1] - p[i0];
    for (int i = 0; i < n; ++i) {
      const double dist = norm(cross(p[i] - p[i0], e)) / norm(e);
      if (dist > best) best = dist, i2 = i;
    }
    if (best <= tol) hull_error(name, "all " + std::to_string(n) + " points are collinear; a polyhedron needs volume");
  }
  int i3 = -1;
  {
    double best = -1;
    vec3d nrm = cross(p[i1] - p[i0], p[i2] - p[i0]);
    nrm = nrm / norm(nrm);
    for (int i = 0; i < n; ++i) {
      const double dist = std::abs(dot(p[i] - p[i0], nrm));
      if (dist > best) best = dist, i3 = i;
    }
    if (best <= tol) hull_error(name, "all " + std::to_string(n) + " points are coplanar; a polyhedron needs volume");
  }

  std::vector<detail::hull_triangle> tris;
  {
    // Orient so that the fourth point is behind every face.
    const bool flip = dot(cross(p[i1] - p[i0], p[i2] - p[i0]), p[i3] - p[i0]) > 0;
    const int a = i0, b = flip ? i2 : i1, c = flip ? i1 : i2;
    tris.push_back(detail::make_triangle(p, a, b, c));
    tris.push_back(detail::make_triangle(p, a, i3, b));
    tris.push_back(detail::make_triangle(p, b, i3, c));
    tris.push_back(detail::make_triangle(p, c, i3, a));
  }

  // Insert the remaining points, farthest from the centre first: extreme points early leave fewer
  // faces to replace later.
  std::vector<int> order;
  for (int i = 0; i < n; ++i)
    if (i != i0 && i != i1 && i != i2 && i != i3) order.push_back(i);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return norm2(p[a]) > norm2(p[b]); });

  std::vector<int> visible;
  std::set<std::pair<int, int>> visible_edges;
  for (const int ip : order) {
    visible.clear();
    for (int t = 0; t < static_cast<int>(tris.size()); ++t)
      if (tris[t].alive && dot(tris[t].n, p[ip]) - tris[t].offset > tol) visible.push_back(t);
    if (visible.empty()) continue;  // inside or on the hull
    visible_edges.clear();
    for (const int t : visible)
      for (int k = 0; k < 3; ++k) visible_edges.insert({tris[t].v[k], tris[t].v[(k + 1) % 3]});
    for (const int t : visible) tris[t].alive = false;
    // Horizon: edges of visible faces whose twin belongs to a face that stays.
    for (const auto& [a, b] : visible_edges)
      if (!visible_edges.count({b, a})) tris.push_back(detail::make_triangle(p, a, b, ip));
  }

  // Distinct planes of the hull triangles; two faces of a convex polyhedron never share a normal.
  std::vector<vec3d> plane_n;
  std::vector<double> plane_d;
  std::vector<double> plane_area;
  std::vector<int> hull_points;
  {
    std::set<int> used;
    for (const auto& t : tris) {
      if (!t.alive) continue;
      for (int k = 0; k < 3; ++k) used.insert(t.v[k]);
      const double area = 0.5 * norm(cross(p[t.v[1]] - p[t.v[0]], p[t.v[2]] - p[t.v[0]]));
      bool merged = false;
      for (std::size_t g = 0; g < plane_n.size(); ++g) {
        const vec3d ng = plane_n[g] / norm(plane_n[g]);
        if (dot(ng, t.n) > 1 - 1e-10 && std::abs(dot(ng, p[t.v[0]]) - plane_d[g] / plane_area[g]) <= tol) {
          plane_n[g] += t.n * area;  // area-weighted: slivers barely move the plane
          plane_d[g] += t.offset * area;
          plane_area[g] += area;
          merged = true;
          break;
        }
      }
      if (!merged) plane_n.push_back(t.n * area), plane_d.push_back(t.offset * area), plane_area.push_back(area);
    }
    hull_points.assign(used.begin(), used.end());
  }
  for (std::size_t g = 0; g < plane_n.size(); ++g) {
    plane_n[g] = plane_n[g] / norm(plane_n[g]);
    plane_d[g] /= plane_area[g];
  }

  // Corners: on three or more planes.
  const double on_plane = 4 * tol;
  std::vector<int> corner_of(n, -1);
  hull h;
  for (const int i : hull_points) {
    int planes = 0;
    for (std::size_t g = 0; g < plane_n.size(); ++g)
      if (std::abs(dot(plane_n[g], p[i]) - plane_d[g]) <= on_plane) ++planes;
    if (planes >= 3) {
      corner_of[i] = static_cast<int>(h.vertices.size());
      h.vertices.push_back(p[i]);
    }
  }
  if (static_cast<int>(h.vertices.size()) > max_vertices)
    hull_error(name, "its convex hull has " + std::to_string(h.vertices.size()) + " vertices, more than the bound of " +
                         std::to_string(max_vertices) + " (the shape's MaxVertices); simplify the shape or raise the bound");

  // Face polygons: corners on each plane, sorted by angle about their mean (they are in convex position).
  for (std::size_t g = 0; g < plane_n.size(); ++g) {
    const vec3d nrm = plane_n[g];
    std::vector<int> f;
    vec3d mean{0, 0, 0};
    for (int c = 0; c < static_cast<int>(h.vertices.size()); ++c)
      if (std::abs(dot(nrm, h.vertices[c]) - plane_d[g]) <= on_plane) f.push_back(c), mean += h.vertices[c];
    if (f.size() < 3) hull_error(name, "internal error: a hull face has fewer than 3 corners (nearly degenerate input?)");
    mean = mean / static_cast<double>(f.size());
    const vec3d u0 = h.vertices[f[0]] - mean;
    const vec3d u = u0 / norm(u0);
    const vec3d w = cross(nrm, u);
    std::vector<std::pair<double, int>> by_angle;
    for (const int c : f) {
      const vec3d r = h.vertices[c] - mean;
      by_angle.push_back({std::atan2(dot(r, w), dot(r, u)), c});
    }
    std::sort(by_angle.begin(), by_angle.end());
    for (std::size_t k = 0; k < f.size(); ++k) f[k] = by_angle[k].second;
    // Newell's normal of the polygon, offset as the mean over its corners: exact for planar faces.
    vec3d nn{0, 0, 0};
    for (std::size_t k = 0; k < f.size(); ++k) {
      const vec3d a = h.vertices[f[k]], b = h.vertices[f[(k + 1) % f.size()]];
      nn += vec3d{(a.y - b.y) * (a.z + b.z), (a.z - b.z) * (a.x + b.x), (a.x - b.x) * (a.y + b.y)};
    }
    nn = nn / norm(nn);
    double off = 0;
    for (const int c : f) off += dot(nn, h.vertices[c]);
    h.faces.push_back(std::move(f));
    h.normals.push_back(nn);
    h.offsets.push_back(off / static_cast<double>(h.faces.back().size()));
  }

  // Back to the caller's frame.
  for (auto& v : h.vertices) v += centre;
  for (std::size_t g = 0; g < h.faces.size(); ++g) h.offsets[g] += dot(h.normals[g], centre);

  // A closed surface: every edge in exactly two faces, once in each direction.
  std::set<std::pair<int, int>> directed;
  for (const auto& f : h.faces)
    for (std::size_t k = 0; k < f.size(); ++k)
      if (!directed.insert({f[k], f[(k + 1) % f.size()]}).second)
        hull_error(name, "internal error: hull faces are inconsistent (nearly degenerate input?)");
  for (const auto& [a, b] : directed)
    if (!directed.count({b, a})) hull_error(name, "internal error: hull is not closed (nearly degenerate input?)");
  return h;
}

}  // namespace dem::shape::poly
