#pragma once
// Narrow phase for convex polyhedra (host and device): shape–shape and shape–plane contact geometry
// (overlap, unit normal, contact point, and the kind of contact for tests and diagnostics).
//
// Shape–shape: separating-axis test (SAT) over the face normals of both shapes and the edge–edge
// axes, the axis of least penetration wins.
//  - Edge pairs are tested only where their arcs cross on the Gauss map (the pair spans a face of the
//    Minkowski difference; Gregorius, GDC 2013). Only those axes can be the answer, and for them the
//    separation is one dot product, so edge pairs cost O(E_A E_B) dot products instead of
//    O(E_A E_B (V_A + V_B)). Pairs closer to parallel than `parallel_tolerance` are skipped: their axis
//    is ill-defined, and the adjacent face axes already give (continuously) the same answer.
//  - Faces are preferred to edges, and B's face to A's, unless the other is better by a relative
//    1e-3 (plus round-off): the contact does not flicker between equivalent axes.
//  - Contact point of a face contact: the incident face (the other shape's face most opposed to the
//    reference normal) is clipped against the side planes of the reference face and against the
//    reference plane (Sutherland–Hodgman); the point is the centroid of the overlap volume over that
//    patch (depth-weighted area integrals), which is continuous as the patch changes shape — an
//    average of the clipped corners jumps whenever clipping adds a corner. Face on face gives the
//    centre of the overlap patch at mid-depth; an edge exactly side-on to the face (a patch without
//    area) gives the depth-weighted middle of the penetrating segment, a corner the corner.
//  - Edge–edge: the midpoint of the closest points of the two edges.
//  Compared with Blaze-DEM's separating-plane method (PHYSICS.md), SAT gives the least-penetration
//  normal rather than the first face found with a vertex inside; both agree on simple cases.
//
// Frames: the caller gives d = x_A - x_B (a coordinate-policy difference), q_A and q_B (body -> world,
// body = the shape's principal frame). Work is done in A's body frame; results are returned in world
// axes with the contact point relative to B's centre. No heap, no recursion, fixed-size loops.
#include <cmath>
#include <cstdint>
#include <limits>

#include "dem/config.hpp"
#include "dem/math/minmax.hpp"
#include "dem/math/quaternion.hpp"
#include "dem/math/vec3.hpp"
#include "dem/shape/polyhedron/convex_shape.hpp"

namespace dem::shape::poly {

enum class contact_feature : std::uint8_t { none, vertex_face, edge_face, face_face, edge_edge };

template <class Real>
struct contact_geometry {
  Real overlap;            // penetration depth, > 0 when in contact
  vec3<Real> normal;       // unit, from B to A: the direction that pushes A out
  vec3<Real> point;        // contact point relative to B's centre (plane: to the plane's point), world axes
  contact_feature feature;
};

namespace detail {

template <class Real>
DEM_HD constexpr Real parallel_tolerance() { return Real(1000) * std::numeric_limits<Real>::epsilon(); }

// Do the Gauss-map arcs a->b (normals of A's edge) and c->d (negated normals of B's edge) cross?
template <class Real>
DEM_HD inline bool is_minkowski_face(const vec3<Real>& a, const vec3<Real>& b, const vec3<Real>& c, const vec3<Real>& d) {
  const vec3<Real> bxa = cross(b, a), dxc = cross(d, c);
  const Real cba = dot(c, bxa), dba = dot(d, bxa), adc = dot(a, dxc), bdc = dot(b, dxc);
  return cba * dba < Real(0) && adc * bdc < Real(0) && cba * bdc > Real(0);
}

// Sutherland–Hodgman step: the part of polygon in[0, n) with dot(pn, x) <= pd, at most `cap` points.
template <class Real>
DEM_HD inline int clip_polygon(const vec3<Real>* in, int n, vec3<Real>* out, int cap, const vec3<Real>& pn, Real pd) {
  int m = 0;
  for (int i = 0; i < n; ++i) {
    const vec3<Real> p = in[i], q = in[i + 1 == n ? 0 : i + 1];
    const Real dp = dot(pn, p) - pd, dq = dot(pn, q) - pd;
    if (dp <= Real(0) && m < cap) out[m++] = p;
    if (((dp < Real(0) && dq > Real(0)) || (dp > Real(0) && dq < Real(0))) && m < cap) out[m++] = p + (q - p) * (dp / (dp - dq));
  }
  return m;
}

// Closest points of segments p0 + s ea and q0 + t eb (not parallel); returns their midpoint.
template <class Real>
DEM_HD inline vec3<Real> segment_midpoint(const vec3<Real>& p0, const vec3<Real>& ea, const vec3<Real>& q0, const vec3<Real>& eb) {
  const vec3<Real> r = p0 - q0;
  const Real aa = dot(ea, ea), ee = dot(eb, eb), bb = dot(ea, eb), c = dot(ea, r), f = dot(eb, r);
  const Real den = aa * ee - bb * bb;
  auto clamp01 = [](Real x) { return x < Real(0) ? Real(0) : (x > Real(1) ? Real(1) : x); };
  Real s = den > Real(0) ? clamp01((bb * f - c * ee) / den) : Real(0);
  Real t = (bb * s + f) / ee;
  if (t < Real(0)) t = Real(0), s = clamp01(-c / aa);
  else if (t > Real(1)) t = Real(1), s = clamp01((bb - c) / aa);
  return (p0 + ea * s + q0 + eb * t) * Real(0.5);
}

// Centroid of the overlap volume over a patch (polygon pts[0, n) below the plane dot(n_ref, x) =
// o_ref): depth-weighted area integrals over a fan of triangles (depth is linear on each): w = the
// integral of depth, xw of depth times x, q2 of depth squared. The centroid, xw / w + n_ref q2 /
// (2 w), is continuous as the patch changes shape, unlike an average of its corners, which jumps
// when clipping adds a corner.
template <class Real>
DEM_HD inline void overlap_moments(const vec3<Real>* pts, int n, const vec3<Real>& n_ref, Real o_ref, Real& w, vec3<Real>& xw, Real& q2) {
  for (int k = 1; k + 1 < n; ++k) {
    const vec3<Real> p0 = pts[0], p1 = pts[k], p2 = pts[k + 1];
    const Real area = Real(0.5) * norm(cross(p1 - p0, p2 - p0));
    const Real d0 = max_of(o_ref - dot(n_ref, p0), Real(0)), d1 = max_of(o_ref - dot(n_ref, p1), Real(0)),
               d2 = max_of(o_ref - dot(n_ref, p2), Real(0));
    const Real ds = d0 + d1 + d2;
    w += area * ds / Real(3);
    xw += (p0 * d0 + p1 * d1 + p2 * d2 + (p0 + p1 + p2) * ds) * (area / Real(12));
    q2 += area / Real(6) * (d0 * d0 + d1 * d1 + d2 * d2 + d0 * d1 + d1 * d2 + d0 * d2);
  }
}

// The contact point over a clipped patch pts[0, n) below the reference plane (n_ref, o_ref): the
// centroid of the overlap when the patch has area (overlap_moments' weight above `floor`); else
// (an edge or corner meets the face side-on, or round-off) its penetrating corners, depth-weighted;
// else the deepest of the incident shape's vertices inc[0, m), half-way up its depth.
template <class Real>
DEM_HD inline vec3<Real> patch_point(const vec3<Real>* pts, int n, const vec3<Real>& n_ref, Real o_ref, Real floor, const vec3<Real>* inc, int m) {
  Real w = 0, q2 = 0;
  vec3<Real> xw{0, 0, 0};
  overlap_moments(pts, n, n_ref, o_ref, w, xw, q2);
  if (w > floor) return xw * (Real(1) / w) + n_ref * (q2 / (Real(2) * w));
  vec3<Real> sum{0, 0, 0};
  Real weight = 0;
  for (int k = 0; k < n; ++k) {
    const Real depth = o_ref - dot(n_ref, pts[k]);
    if (depth <= Real(0)) continue;
    sum += (pts[k] + n_ref * (depth * Real(0.5))) * depth;
    weight += depth;
  }
  if (weight > Real(0)) return sum * (Real(1) / weight);
  vec3<Real> deepest{0, 0, 0};
  Real best = -std::numeric_limits<Real>::max();
  for (int i = 0; i < m; ++i) {
    const Real depth = o_ref - dot(n_ref, inc[i]);
    if (depth > best) best = depth, deepest = inc[i];
  }
  return deepest + n_ref * (best * Real(0.5));
}

}  // namespace detail

// Contact between shapes A and B. Returns false when they do not overlap (g untouched then).
template <class Real, int MA, int MB>
DEM_HD bool collide(const convex_shape<Real, MA>& a, const quat<Real>& q_a, const convex_shape<Real, MB>& b,
                    const quat<Real>& q_b, const vec3<Real>& d, contact_geometry<Real>& g) {
  using std::fabs;
  // Bounding spheres: most candidate pairs stop here.
  const Real reach = a.bounding_radius + b.bounding_radius;
  if (norm2(d) >= reach * reach) return false;

  // B in A's body frame: x_A = rotate(q_rel, x_B) + t.
  const quat<Real> q_rel = conjugate(q_a) * q_b;
  const vec3<Real> t = rotate_inverse(q_a, -d);
  vec3<Real> vb[MB];
  for (int i = 0; i < b.n_vertices; ++i) vb[i] = rotate(q_rel, b.vertex[i]) + t;

  // Face axes of A: separation = least signed distance of B's vertices above the face.
  Real sep_a = -std::numeric_limits<Real>::max();
  int face_a = 0;
  for (int f = 0; f < a.n_faces; ++f) {
    const vec3<Real> n = a.face_normal[f];
    Real s = std::numeric_limits<Real>::max();
    for (int i = 0; i < b.n_vertices; ++i) s = min_of(s, dot(n, vb[i]));
    s -= a.face_offset[f];
    if (s > Real(0)) return false;
    if (s > sep_a) sep_a = s, face_a = f;
  }
  // Face axes of B (normals rotated on the fly, tested against A's vertices).
  Real sep_b = -std::numeric_limits<Real>::max();
  int face_b = 0;
  for (int f = 0; f < b.n_faces; ++f) {
    const vec3<Real> n = rotate(q_rel, b.face_normal[f]);
    Real s = std::numeric_limits<Real>::max();
    for (int i = 0; i < a.n_vertices; ++i) s = min_of(s, dot(n, a.vertex[i]));
    s -= b.face_offset[f] + dot(n, t);
    if (s > Real(0)) return false;
    if (s > sep_b) sep_b = s, face_b = f;
  }
  // Edge–edge axes, only for pairs that span a face of the Minkowski difference.
  Real sep_e = -std::numeric_limits<Real>::max();
  vec3<Real> axis_e{0, 0, 0};
  int edge_a = -1, edge_b = -1;
  for (int eb = 0; eb < b.n_edges; ++eb) {
    const vec3<Real> c = -rotate(q_rel, b.face_normal[b.edge_face[eb][0]]);
    const vec3<Real> dn = -rotate(q_rel, b.face_normal[b.edge_face[eb][1]]);
    const vec3<Real> pb = vb[b.edge[eb][0]];
    const vec3<Real> eb_dir = vb[b.edge[eb][1]] - pb;
    const Real len_b = norm(eb_dir);
    for (int ea = 0; ea < a.n_edges; ++ea) {
      const vec3<Real> na = a.face_normal[a.edge_face[ea][0]], nb = a.face_normal[a.edge_face[ea][1]];
      if (!detail::is_minkowski_face(na, nb, c, dn)) continue;
      const vec3<Real> pa = a.vertex[a.edge[ea][0]];
      const vec3<Real> ea_dir = a.vertex[a.edge[ea][1]] - pa;
      vec3<Real> axis = cross(ea_dir, eb_dir);
      const Real len = norm(axis);
      if (len <= detail::parallel_tolerance<Real>() * norm(ea_dir) * len_b) continue;
      axis = axis * (Real(1) / len);
      if (dot(axis, pa) < Real(0)) axis = -axis;  // outward from A (A's centroid is the origin)
      const Real s = dot(axis, pb - pa);
      if (s > Real(0)) return false;
      if (s > sep_e) sep_e = s, axis_e = axis, edge_a = ea, edge_b = eb;
    }
  }

  // Round-off scale of the separations, and the bias that keeps the chosen axis stable.
  const Real noise = Real(64) * std::numeric_limits<Real>::epsilon() * reach;
  const Real sep_face = max_of(sep_a, sep_b);
  vec3<Real> normal_a;  // in A's frame, from B to A
  vec3<Real> point_a;   // relative to A's centre, A's frame
  Real overlap;
  if (edge_a >= 0 && sep_e > sep_face + Real(1e-3) * fabs(sep_face) + noise) {
    normal_a = -axis_e;
    overlap = -sep_e;
    const vec3<Real> pa = a.vertex[a.edge[edge_a][0]], pb = vb[b.edge[edge_b][0]];
    point_a = detail::segment_midpoint(pa, a.vertex[a.edge[edge_a][1]] - pa, pb, vb[b.edge[edge_b][1]] - pb);
    g.feature = contact_feature::edge_edge;
  } else {
    const bool ref_is_a = sep_a > sep_b + Real(1e-3) * fabs(sep_b) + noise;
    // Reference face: outward normal n_ref, offset o_ref, corners (A's frame); incident polygon.
    vec3<Real> n_ref;
    Real o_ref;
    constexpr int cap = MA + MB;
    vec3<Real> buf0[cap], buf1[cap];
    int n_poly = 0;
    if (ref_is_a) {
      n_ref = a.face_normal[face_a];
      o_ref = a.face_offset[face_a];
      int inc = 0;
      Real best = std::numeric_limits<Real>::max();
      for (int f = 0; f < b.n_faces; ++f) {
        const Real c = dot(rotate(q_rel, b.face_normal[f]), n_ref);
        if (c < best) best = c, inc = f;
      }
      n_poly = b.face_size(inc);
      for (int k = 0; k < n_poly; ++k) buf0[k] = vb[b.face_vertex[b.face_begin[inc] + k]];
    } else {
      n_ref = rotate(q_rel, b.face_normal[face_b]);
      o_ref = b.face_offset[face_b] + dot(n_ref, t);
      int inc = 0;
      Real best = std::numeric_limits<Real>::max();
      for (int f = 0; f < a.n_faces; ++f) {
        const Real c = dot(a.face_normal[f], n_ref);
        if (c < best) best = c, inc = f;
      }
      n_poly = a.face_size(inc);
      for (int k = 0; k < n_poly; ++k) buf0[k] = a.face_corner(inc, k);
    }
    // Clip against the reference face's side planes (edge x n points out of a counter-clockwise face).
    const int ref_face = ref_is_a ? face_a : face_b;
    const int ref_size = ref_is_a ? a.face_size(face_a) : b.face_size(face_b);
    vec3<Real>* in = buf0;
    vec3<Real>* out = buf1;
    for (int k = 0; k < ref_size && n_poly > 0; ++k) {
      const int k1 = k + 1 == ref_size ? 0 : k + 1;
      const vec3<Real> p0 = ref_is_a ? a.face_corner(ref_face, k) : vb[b.face_vertex[b.face_begin[ref_face] + k]];
      const vec3<Real> p1 = ref_is_a ? a.face_corner(ref_face, k1) : vb[b.face_vertex[b.face_begin[ref_face] + k1]];
      const vec3<Real> side = cross(p1 - p0, n_ref);
      n_poly = detail::clip_polygon(in, n_poly, out, cap, side, dot(side, p0));
      vec3<Real>* tmp = in;
      in = out;
      out = tmp;
    }
    // Classify by the clipped corners below the reference plane, then cut the polygon at that plane.
    int below = 0;
    for (int k = 0; k < n_poly; ++k) {
      const Real depth = o_ref - dot(n_ref, in[k]);
      if (depth > Real(0)) ++below;
    }
    n_poly = detail::clip_polygon(in, n_poly, out, cap, n_ref, o_ref);
    overlap = -(ref_is_a ? sep_a : sep_b);
    const Real patch = a.bounding_radius < b.bounding_radius ? a.bounding_radius : b.bounding_radius;
    point_a = ref_is_a ? detail::patch_point(out, n_poly, n_ref, o_ref, Real(1e3) * std::numeric_limits<Real>::epsilon() * overlap * patch * patch,
                                             vb, b.n_vertices)
                       : detail::patch_point(out, n_poly, n_ref, o_ref, Real(1e3) * std::numeric_limits<Real>::epsilon() * overlap * patch * patch,
                                             a.vertex, a.n_vertices);
    g.feature = below <= 1 ? contact_feature::vertex_face : (below == 2 ? contact_feature::edge_face : contact_feature::face_face);
    normal_a = ref_is_a ? -n_ref : n_ref;
  }
  g.overlap = overlap;
  g.normal = rotate(q_a, normal_a);
  g.point = rotate(q_a, point_a) + d;
  return true;
}

// Contact of a shape with a one-sided wall whose free side is convex: a plane, or the wall of a
// container the shape is inside (the inside of a cylinder or cone, its caps). The depth of a
// convex shape behind such a wall is a convex function's maximum over the shape, so it is reached
// at a vertex: `behind(w, depth, n)` says whether a vertex at w (relative to the wall's reference
// point, world axes) lies behind the wall, how deep, and the wall's unit normal there (towards the
// free side). Overlap = the deepest vertex's depth; point (relative to the reference) = the
// vertices behind averaged with their depths as weights, each half-way up its depth (a face on a
// plane gives its centre, an edge its midpoint); normal = the wall's where all vertices behind see
// the same normal (a plane), else their normals averaged with the depths as weights (a face
// across a cylinder's curved wall pushes along the bisector of its two edges' normals).
template <class Real, int MV, class Behind>
DEM_HD bool collide_wall(const convex_shape<Real, MV>& s, const quat<Real>& q, const vec3<Real>& centre, Behind&& behind,
                         contact_geometry<Real>& g) {
  vec3<Real> sum{0, 0, 0}, plain{0, 0, 0}, normal_sum{0, 0, 0}, first_normal{0, 0, 0};
  Real weight = 0, deepest = 0;
  int below = 0;
  bool one_normal = true;
  for (int i = 0; i < s.n_vertices; ++i) {
    const vec3<Real> w = rotate(q, s.vertex[i]) + centre;
    Real depth = 0;
    vec3<Real> n{0, 0, 0};
    if (!behind(w, depth, n) || !(depth > Real(0))) continue;
    const vec3<Real> mid = w + n * (depth * Real(0.5));
    sum += mid * depth;
    plain += mid;
    weight += depth;
    normal_sum += n * depth;
    if (below == 0) first_normal = n;
    one_normal = one_normal && n == first_normal;
    deepest = max_of(deepest, depth);
    ++below;
  }
  if (below == 0) return false;
  g.overlap = deepest;
  if (one_normal) {
    g.normal = first_normal;
  } else {
    const Real l = norm(normal_sum);
    g.normal = l > Real(0) ? normal_sum * (Real(1) / l) : first_normal;
  }
  g.point = weight > Real(0) ? sum * (Real(1) / weight) : plain * (Real(1) / Real(below));
  g.feature = below == 1 ? contact_feature::vertex_face : (below == 2 ? contact_feature::edge_face : contact_feature::face_face);
  return true;
}

// Contact of a shape with the plane through the origin with unit `normal` (pointing to the side the
// particles live on). `centre` is the shape's centroid relative to a point of the plane, `q` its
// orientation (body -> world).
template <class Real, int MV>
DEM_HD bool collide_plane(const convex_shape<Real, MV>& s, const quat<Real>& q, const vec3<Real>& centre,
                          const vec3<Real>& normal, contact_geometry<Real>& g) {
  if (dot(centre, normal) >= s.bounding_radius) return false;
  return collide_wall(s, q, centre,
                      [&](const vec3<Real>& w, Real& depth, vec3<Real>& n) {
                        depth = -dot(w, normal);
                        n = normal;
                        return true;
                      },
                      g);
}

}  // namespace dem::shape::poly
