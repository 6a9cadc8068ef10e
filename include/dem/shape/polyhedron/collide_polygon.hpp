#pragma once
// Narrow phase of a convex polyhedron against a flat convex polygon of 3 or 4 corners (a mesh
// triangle, a plate), host and device. The polygon is two-sided: the side that counts is the one
// the body's centroid is on.
//
// Separating axes as in collide.hpp: the polygon's normal, the body's face normals, and the cross
// products of the body's edges with the polygon's edges; the axis of least penetration wins, the
// polygon's normal first, then the body's faces, then edges, each unless the next is better by a
// relative 1e-3 (plus round-off). Edge axes are tested in both directions with the full supports
// (a polygon has no volume, so the Gauss-map shortcut of collide.hpp does not apply).
//
// An edge that continues into a coplanar neighbour (`open` bit) is not an edge of the surface. For
// the choice of axis the polygon is extended across it by twice the body's bounding diameter, so a
// body lying across many triangles of a flat mesh sees the plane, never a side axis at a seam.
// The geometry is then computed on the polygon itself:
//  - polygon-face contacts (normal = the polygon's, towards the body): the patch is the body's
//    incident face clipped to the polygon's real edges and below its plane. The axis is chosen with
//    the depth of the body over the polygon extended across its seams (the deepest of the patch's
//    corners and of its vertices there); the overlap reported is the depth over the polygon itself
//    (its own corners and the vertices above it), so that the pieces of a plane add up to the depth
//    over the plane's real extent: the extension goes past a flat patch's convex border, and a body
//    beside a box, below its top face's plane, was pushed up by it until 2026-12-06. The point is
//    the patch's corners averaged with their depths as weights,
//    each half-way up its depth (a face flat on the polygon: its centre; an edge: its midpoint), as
//    for planes (a centroid of the overlap's area rocks a body on a plane longer, and a sliding
//    cube never quite stopped). Each corner counts on the one polygon of the plane it lies on (seams
//    and corners have an owner, `owner`), so the sums of a flat mesh's polygons are the plane's.
//    The face is kept as the axis while the body's face or edge is no shallower than that depth
//    (relative 1e-3): the separating axes alone would count a corner hanging beyond a real edge and
//    turn a body resting near the edge onto its own tilted normal, which pushes it off. Pieces of coplanar
//    polygons add up to the contact with their union (boundary/body_rule.hpp): a flat mesh acts as
//    the plane does, and a body hanging over a convex edge gets only the part that is supported.
//  - body-face contacts: the polygon clipped to the body's reference face and below it (a lifter's
//    edge pressing into a face); edge-edge contacts: the midpoint of the edges' closest points.
//    These also say which corners of the polygon are deepest along the normal (`deep`): the
//    feature of the surface the contact lies on, which the rule compares with neighbours.
#include <cmath>
#include <cstdint>
#include <limits>

#include "dem/config.hpp"
#include "dem/math/minmax.hpp"
#include "dem/math/quaternion.hpp"
#include "dem/math/vec3.hpp"
#include "dem/shape/polyhedron/collide.hpp"  // clip_polygon, segment_midpoint, patch_point
#include "dem/shape/polyhedron/convex_shape.hpp"

namespace dem::shape::poly {

template <class Real>
struct flat_polygon {
  int n;                 // corners: 3 or 4
  vec3<Real> corner[4];  // relative to the caller's reference point, world axes, counter-clockwise about `normal`
  vec3<Real> normal;     // unit
  std::uint32_t open;    // bit k: the edge corner[k] -> corner[k + 1] continues into a coplanar neighbour
  std::uint32_t owner;   // bit k: points on open edge k count here; bit 4 + k: points at corner k count here (one polygon of a plane owns each)
  bool one_sided;        // a half-space behind `normal` (a plane): the body is pushed out along +normal, however deep
};

template <class Real>
struct polygon_contact {
  Real overlap;         // > 0
  vec3<Real> normal;    // unit, world: from the polygon to the body (pushes the body out)
  vec3<Real> point;     // relative to the reference point, world axes
  bool face;            // the polygon's normal is the axis
  // Face contacts: the corners of the patch that lie on this polygon (world axes, relative to the
  // reference point): corner_w = the sum of their depths, corner_x = of depth times the corner at
  // mid-depth. The patches of a plane's polygons add up to the plane's.
  Real corner_w;
  vec3<Real> corner_x;
  std::uint32_t deep;   // other contacts: bit k: polygon corner k is deepest along the normal (within round-off)
};

// A plane is a triangle around the body's foot, too large for its edges to matter, and one-sided
// (polyhedron::collide_plane): the same code gives a mesh floor and the plane the same contact.
//
// Contact of shape A (centroid at d from the reference point, orientation q_a) with polygon p.
// Returns false when they do not touch, or when a polygon-face contact has no piece over p.
template <class Real, int MA>
DEM_HD bool collide_polygon(const convex_shape<Real, MA>& a, const quat<Real>& q_a, const vec3<Real>& d, const flat_polygon<Real>& p,
                            polygon_contact<Real>& g) {
  using std::fabs;
  constexpr Real big = std::numeric_limits<Real>::max();
  const int n = p.n;
  // The polygon in A's body frame (A's centroid at the origin).
  vec3<Real> t[4];
  for (int k = 0; k < n; ++k) t[k] = rotate_inverse(q_a, p.corner[k] - d);
  const vec3<Real> n0 = rotate_inverse(q_a, p.normal);
  const Real h = -dot(n0, t[0]);  // A's centroid above the polygon's plane, along p.normal
  const Real r = a.bounding_radius;
  if (p.one_sided ? h >= r : fabs(h) >= r) return false;
  const bool above = p.one_sided || h >= Real(0);
  const vec3<Real> nt = above ? n0 : -n0;  // towards A

  // Outward in-plane edge normals, and the corners of the polygon extended across its open edges.
  vec3<Real> m[4], ext[4];
  for (int k = 0; k < n; ++k) {
    const vec3<Real> e = t[k + 1 == n ? 0 : k + 1] - t[k];
    const vec3<Real> c = cross(e, n0);
    m[k] = c * (Real(1) / norm(c));
  }
  const Real reach = Real(4) * r;
  for (int k = 0; k < n; ++k) {
    const int km = k == 0 ? n - 1 : k - 1;
    const Real s0 = (p.open >> km) & 1u ? reach : Real(0), s1 = (p.open >> k) & 1u ? reach : Real(0);
    if (s0 == Real(0) && s1 == Real(0)) {
      ext[k] = t[k];
      continue;
    }
    const Real c = dot(m[km], m[k]), den = Real(1) - c * c;
    ext[k] = t[k] + m[km] * ((s0 - c * s1) / den) + m[k] * ((s1 - c * s0) / den);
  }

  // The polygon's face: the deepest vertex of A below its plane.
  const Real o_p = dot(nt, t[0]);
  Real sep_p = big;
  for (int i = 0; i < a.n_vertices; ++i) sep_p = min_of(sep_p, dot(nt, a.vertex[i]));
  sep_p -= o_p;
  if (sep_p > Real(0)) return false;
  // A's faces against the extended polygon.
  Real sep_a = -big;
  int face_a = 0;
  for (int f = 0; f < a.n_faces; ++f) {
    Real s = big;
    for (int k = 0; k < n; ++k) s = min_of(s, dot(a.face_normal[f], ext[k]));
    s -= a.face_offset[f];
    if (s > Real(0)) return false;
    if (s > sep_a) sep_a = s, face_a = f;
  }
  // A's edges with the polygon's real edges, both directions, full supports.
  Real sep_e = -big;
  vec3<Real> normal_e{0, 0, 0};  // from the polygon to A
  int edge_a = -1, edge_p = -1;
  for (int k = 0; k < n; ++k) {
    if ((p.open >> k) & 1u) continue;
    const vec3<Real> ep = t[k + 1 == n ? 0 : k + 1] - t[k];
    const Real len_p = norm(ep);
    for (int j = 0; j < a.n_edges; ++j) {
      const vec3<Real> ea = a.vertex[a.edge[j][1]] - a.vertex[a.edge[j][0]];
      vec3<Real> axis = cross(ea, ep);
      const Real len = norm(axis);
      if (len <= detail::parallel_tolerance<Real>() * norm(ea) * len_p) continue;
      axis = axis * (Real(1) / len);
      Real amin = big, amax = -big, pmin = big, pmax = -big;
      for (int i = 0; i < a.n_vertices; ++i) {
        const Real x = dot(axis, a.vertex[i]);
        amin = min_of(amin, x);
        amax = max_of(amax, x);
      }
      for (int q = 0; q < n; ++q) {
        const Real x = dot(axis, ext[q]);
        pmin = min_of(pmin, x);
        pmax = max_of(pmax, x);
      }
      // The polygon beyond A along +axis (overlap amax - pmin) or along -axis (pmax - amin).
      const bool plus = amax - pmin <= pmax - amin;
      const Real s = -(plus ? amax - pmin : pmax - amin);
      if (s > Real(0)) return false;
      if (s > sep_e) sep_e = s, normal_e = plus ? -axis : axis, edge_a = j, edge_p = k;
    }
  }

  const Real noise = Real(64) * std::numeric_limits<Real>::epsilon() * (r + norm(d));
  constexpr int cap = MA + 8;
  vec3<Real> buf0[cap], buf1[cap];
  g.corner_w = Real(0);
  g.corner_x = vec3<Real>{0, 0, 0};
  g.deep = 0;

  // The polygon's face: the patch is A's incident face clipped to the polygon's real edges (not its
  // seams) and below its plane; the depth of A over the polygon is the deepest of the patch's corners
  // and of A's vertices above the polygon extended across its seams (a corner hanging beyond a real
  // edge is not held by this polygon). Each corner of the patch counts on one polygon of the plane:
  // the one it lies on, the owner of the seam or corner it lies on (`owner`).
  Real depth_p = 0, own = 0, fw = 0, cw = 0;
  vec3<Real> fx{0, 0, 0}, cx{0, 0, 0}, own_vertex{0, 0, 0};
  {
    int inc = 0;
    Real best = big;
    for (int f = 0; f < a.n_faces; ++f) {
      const Real c = dot(a.face_normal[f], nt);
      if (c < best) best = c, inc = f;
    }
    int np = a.face_size(inc);
    for (int k = 0; k < np; ++k) buf0[k] = a.face_corner(inc, k);
    vec3<Real>*in = buf0, *out = buf1;
    for (int k = 0; k < n && np > 0; ++k) {
      if ((p.open >> k) & 1u) continue;
      np = detail::clip_polygon(in, np, out, cap, m[k], dot(m[k], t[k]));
      vec3<Real>* tmp = in;
      in = out;
      out = tmp;
    }
    // Below the plane: depth o_p - dot(nt, x) >= 0 (the solid side of the polygon, as seen from A).
    np = detail::clip_polygon(in, np, out, cap, nt, o_p);
    const Real on = Real(64) * std::numeric_limits<Real>::epsilon() * (r + norm(d));  // on a seam or corner, within round-off
    for (int q = 0; q < np; ++q) {
      const Real depth = o_p - dot(nt, out[q]);
      if (!(depth > Real(0))) continue;
      depth_p = max_of(depth_p, depth);
      const vec3<Real> mid = (out[q] + nt * (depth * Real(0.5))) * depth;
      fw += depth;
      fx += mid;
      if (p.open == 0) {
        cw += depth;
        cx += mid;
        own = max_of(own, depth);
        continue;
      }
      bool here = true, decided = false;
      for (int k = 0; k < n && !decided; ++k) {  // at a corner: its owner
        const vec3<Real> e = out[q] - t[k];
        if (norm2(e - nt * dot(nt, e)) <= on * on) here = ((p.owner >> (4 + k)) & 1u) != 0, decided = true;
      }
      for (int k = 0; k < n && !decided && here; ++k) {  // beyond a seam: the neighbour's; on it: its owner's
        if (!((p.open >> k) & 1u)) continue;
        const Real out_k = dot(m[k], out[q] - t[k]);
        if (out_k > on) here = false;
        else if (out_k >= -on) here = ((p.owner >> k) & 1u) != 0;
      }
      if (here) {
        cw += depth;
        cx += mid;
        own = max_of(own, depth);
      }
    }
    if (depth_p > Real(0)) {
      for (int i = 0; i < a.n_vertices; ++i) {
        const Real depth = o_p - dot(nt, a.vertex[i]);
        if (!(depth > own)) continue;
        bool over = true, over_own = true;
        for (int k = 0; k < n && over; ++k) {
          over = dot(m[k], a.vertex[i] - ext[k]) <= Real(0);
          over_own = over_own && dot(m[k], a.vertex[i] - t[k]) <= Real(0);
        }
        if (over && depth > depth_p) depth_p = depth;
        if (over && over_own) own = depth, own_vertex = a.vertex[i] + nt * (depth * Real(0.5));
      }
    }
  }

  // The axis: the separating axes' choice, except that the polygon's face is kept while the body's
  // face or edge is no shallower than the depth over the polygon (relative 1e-3): a body resting on
  // a polygon near its real edge, tilted a little over it, is held by the face, not pushed off
  // along its own tilted normal.
  bool ref_is_a = sep_a > sep_p + Real(1e-3) * fabs(sep_p) + noise;
  const Real sep_face = ref_is_a ? sep_a : sep_p;
  bool edge = edge_a >= 0 && sep_e > sep_face + Real(1e-3) * fabs(sep_face) + noise;
  if ((ref_is_a || edge) && depth_p > Real(0) && depth_p <= -(edge ? sep_e : sep_a) * Real(1 + 1e-3) + noise) ref_is_a = edge = false;
  if (p.one_sided) ref_is_a = edge = false;  // a half-space: its normal is the only axis

  if (!edge && !ref_is_a) {
    // The depth over this polygon itself: the pieces of a plane add up to the depth over the plane's
    // real extent (boundary/body_contacts.hpp takes the deepest), never over the extension, which
    // goes past a flat patch's convex border (a box's top face seen by a body beside the box).
    if (!(own > Real(0))) return false;  // no part of A over this polygon (a neighbour holds it, or none)
    g.overlap = own;
    g.normal = above ? p.normal : -p.normal;
    g.face = true;
    g.corner_w = cw;
    g.corner_x = rotate(q_a, cx) + d * cw;
    g.point = rotate(q_a, cw > Real(0) ? cx * (Real(1) / cw) : (fw > Real(0) ? fx * (Real(1) / fw) : own_vertex)) + d;
    return true;
  }

  vec3<Real> normal_a, point_a;  // A's frame: from the polygon to A; the point relative to A's centroid
  Real overlap;
  if (edge) {
    normal_a = normal_e;
    overlap = -sep_e;
    const vec3<Real> pa = a.vertex[a.edge[edge_a][0]], pp = t[edge_p];
    const int k1 = edge_p + 1 == n ? 0 : edge_p + 1;
    point_a = detail::segment_midpoint(pa, a.vertex[a.edge[edge_a][1]] - pa, pp, t[k1] - pp);
  } else {
    // A's face: the polygon clipped to it and below it (inside A).
    const vec3<Real> n_ref = a.face_normal[face_a];
    const Real o_ref = a.face_offset[face_a];
    int np = n;
    for (int k = 0; k < n; ++k) buf0[k] = t[k];
    vec3<Real>*in = buf0, *out = buf1;
    const int ref_size = a.face_size(face_a);
    for (int k = 0; k < ref_size && np > 0; ++k) {
      const vec3<Real> p0 = a.face_corner(face_a, k), p1 = a.face_corner(face_a, k + 1 == ref_size ? 0 : k + 1);
      const vec3<Real> side = cross(p1 - p0, n_ref);
      np = detail::clip_polygon(in, np, out, cap, side, dot(side, p0));
      vec3<Real>* tmp = in;
      in = out;
      out = tmp;
    }
    np = detail::clip_polygon(in, np, out, cap, n_ref, o_ref);
    overlap = -sep_a;
    normal_a = -n_ref;
    point_a = detail::patch_point(out, np, n_ref, o_ref, Real(1e3) * std::numeric_limits<Real>::epsilon() * overlap * r * r, t, n);
  }
  // The polygon's corners deepest into A along the normal.
  Real most = -big;
  for (int k = 0; k < n; ++k) most = max_of(most, dot(normal_a, t[k]));
  const Real tol = Real(1e-4) * overlap + noise;
  for (int k = 0; k < n; ++k)
    if (dot(normal_a, t[k]) >= most - tol) g.deep |= 1u << k;
  g.overlap = overlap;
  g.normal = rotate(q_a, normal_a);
  g.point = rotate(q_a, point_a) + d;
  g.face = false;
  return true;
}

// The plane through the reference point with unit `normal` (the solid behind it) as a one-sided
// triangle around the foot of a body of bounding radius r at `centre`: an equilateral triangle of
// circumradius 8 r, so its inradius (4 r) keeps its edges beyond anything the body touches.
template <class Real>
DEM_HD inline flat_polygon<Real> plane_triangle(const vec3<Real>& centre, const vec3<Real>& normal, Real r) {
  using std::fabs;
  const vec3<Real> foot = centre - normal * dot(normal, centre);
  const vec3<Real> t = fabs(normal.x) < Real(0.6) ? vec3<Real>{1, 0, 0} : vec3<Real>{0, 1, 0};
  vec3<Real> u = cross(normal, t);
  u = u * (Real(1) / norm(u));
  const vec3<Real> v = cross(normal, u);  // (u, v, normal) right-handed: corners counter-clockwise
  const Real L = Real(8) * r, c = Real(0.5) * L, s = Real(0.86602540378443864676) * L;
  flat_polygon<Real> p;
  p.n = 3;
  p.corner[0] = foot + v * L;
  p.corner[1] = foot - u * s - v * c;
  p.corner[2] = foot + u * s - v * c;
  p.normal = normal;
  p.open = 0;
  p.owner = 0;
  p.one_sided = true;
  return p;
}

}  // namespace dem::shape::poly
