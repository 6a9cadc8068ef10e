#pragma once
// The surface elements boundaries are made of, and the closest point of each to a point (a
// sphere's centre), written once for host and device.
//
// Every element lives in its boundary's local frame (boundary/pose.hpp moves the boundary, not
// its elements). Kinds:
//   plane     one-sided: the half-space behind it is solid (a particle that crossed is pushed back)
//   plate     a rectangle, two-sided (thin)
//   disc      a disc or annulus (inner radius > 0: an orifice), two-sided
//   cone      the lateral surface of a frustum between axial positions s0 < s1 with radii r0, r1
//             (a cylinder has r0 = r1). One-sided where the centre is beside the surface
//             (particles inside or outside, `flags`), two-sided around its rims
//   triangle  one face of a mesh, two-sided
// The closest point comes with the feature it lies on (face, edge k, vertex k): the contact rule
// of boundary/contact_rule.hpp keeps one contact where a sphere touches an edge or vertex several
// elements share, and compares features through the ids elements carry (`edge`, `vertex`).
#include <cmath>
#include <cstdint>

#include "dem/config.hpp"
#include "dem/math/minmax.hpp"
#include "dem/math/vec3.hpp"

namespace dem::boundary {

enum element_kind : std::uint32_t { plane_kind = 0, plate_kind = 1, disc_kind = 2, cone_kind = 3, triangle_kind = 4 };
inline constexpr std::uint32_t no_feature_id = 0xFFFFFFFFu;
inline constexpr std::uint32_t particles_inside = 1u;  // cone flag: particles live inside the surface
// Disc flags, set on the caps of a cylinder or cone the particles are inside: on which side of the
// cap (along +n or -n) the container's inside lies. Spheres ignore them (a disc is two-sided for
// them); bodies without probes (polyhedra) meet only one-sided walls (behind_wall below).
inline constexpr std::uint32_t particles_above = 2u;
inline constexpr std::uint32_t particles_below = 4u;
// Triangle flags: bit (flat_edge0 << k): edge k (a-b, b-c, c-a) is a seam with one coplanar
// triangle (bodies without probes see the plane across it, shape/polyhedron/collide_polygon.hpp).
inline constexpr std::uint32_t flat_edge0 = 8u;
// And which triangle of a flat patch owns the points on a seam (seam_owner0 << k: edge k, the
// lower-indexed of its two triangles) and at a corner (corner_owner0 << k: the lowest-indexed of
// the coplanar triangles around corner k).
inline constexpr std::uint32_t seam_owner0 = 64u;
inline constexpr std::uint32_t corner_owner0 = 512u;

// Feature codes of a closest point.
enum feature_code : std::uint32_t { on_face = 0, on_edge0 = 1, on_edge1 = 2, on_edge2 = 3, on_vertex0 = 4, on_vertex1 = 5, on_vertex2 = 6 };
DEM_HD constexpr bool is_face(std::uint32_t f) { return f == on_face; }
DEM_HD constexpr bool is_edge(std::uint32_t f) { return f >= on_edge0 && f <= on_edge2; }
DEM_HD constexpr bool is_vertex(std::uint32_t f) { return f >= on_vertex0; }
// Faces before edges before vertices: where two elements report the same point, the face's
// report is kept (its normal is exact).
DEM_HD constexpr std::uint32_t feature_rank(std::uint32_t f) { return is_face(f) ? 0u : (is_edge(f) ? 1u : 2u); }

template <class Real>
struct element {
  std::uint32_t kind;
  std::uint32_t boundary;  // index of the boundary it belongs to
  std::uint32_t flags;     // cone: particles_inside; disc: particles_above or particles_below (a container's cap); triangle: flat_edge0 << k
  std::uint32_t index;     // index within its boundary (triangles: the mesh's triangle index)
  // plane: point a, unit normal n. plate: centre a, unit normal n, unit in-plane axis b.
  // disc: centre a, unit normal n. cone: a point on the axis a, unit axis n.
  // triangle: corners a, b, c, unit normal n (right-handed a -> b -> c).
  vec3<Real> a, b, c, n;
  // plate: half extents (s0 along b, s1 along n x b). disc: outer radius r0, inner r1.
  // cone: axial range s0 < s1 (along n from a), radii r0 at s0 and r1 at s1.
  Real s0, s1, r0, r1;
  std::uint32_t vertex[3];  // triangles: the mesh's vertex ids of a, b, c
  std::uint32_t edge[3];    // ids of the edges the element shares (triangles: a-b, b-c, c-a; cone: rims at s0, s1; disc: outer, inner rim)
};

template <class Real>
struct surface_point {
  Real distance;          // from the surface to the point along `normal`; negative behind a one-sided surface
  vec3<Real> normal;      // unit, from the surface towards the point
  std::uint32_t feature;  // feature_code
};

namespace detail {
// A unit vector perpendicular to unit u (for points on an axis).
template <class Real>
DEM_HD inline vec3<Real> any_perpendicular(const vec3<Real>& u) {
  using std::fabs;
  const vec3<Real> t = fabs(u.x) < Real(0.6) ? vec3<Real>{1, 0, 0} : vec3<Real>{0, 1, 0};
  const vec3<Real> p = cross(u, t);
  return p * (Real(1) / norm(p));
}

// Two-sided: from a surface point q to x; on the surface itself the normal is `fallback`.
template <class Real>
DEM_HD inline surface_point<Real> towards(const vec3<Real>& x, const vec3<Real>& q, const vec3<Real>& fallback, std::uint32_t feature) {
  const vec3<Real> d = x - q;
  const Real l = norm(d);
  surface_point<Real> s;
  s.distance = l;
  s.normal = l > Real(0) ? d * (Real(1) / l) : fallback;
  s.feature = feature;
  return s;
}

template <class Real>
DEM_HD inline surface_point<Real> closest_on_triangle(const element<Real>& e, const vec3<Real>& x) {
  // Ericson, Real-Time Collision Detection, 5.1.5: the Voronoi regions of the corners, then of the
  // edges, then the face. Points exactly on a region's border go to the edge or corner, so that
  // two triangles sharing an edge classify such a point alike.
  const vec3<Real> ab = e.b - e.a, ac = e.c - e.a, ap = x - e.a;
  const Real d1 = dot(ab, ap), d2 = dot(ac, ap);
  if (d1 <= Real(0) && d2 <= Real(0)) return towards(x, e.a, e.n, on_vertex0);
  const vec3<Real> bp = x - e.b;
  const Real d3 = dot(ab, bp), d4 = dot(ac, bp);
  if (d3 >= Real(0) && d4 <= d3) return towards(x, e.b, e.n, on_vertex1);
  const Real vc = d1 * d4 - d3 * d2;
  if (vc <= Real(0) && d1 >= Real(0) && d3 <= Real(0)) return towards(x, e.a + ab * (d1 / (d1 - d3)), e.n, on_edge0);
  const vec3<Real> cp = x - e.c;
  const Real d5 = dot(ab, cp), d6 = dot(ac, cp);
  if (d6 >= Real(0) && d5 <= d6) return towards(x, e.c, e.n, on_vertex2);
  const Real vb = d5 * d2 - d1 * d6;
  if (vb <= Real(0) && d2 >= Real(0) && d6 <= Real(0)) return towards(x, e.a + ac * (d2 / (d2 - d6)), e.n, on_edge2);
  const Real va = d3 * d6 - d5 * d4;
  if (va <= Real(0) && (d4 - d3) >= Real(0) && (d5 - d6) >= Real(0))
    return towards(x, e.b + (e.c - e.b) * ((d4 - d3) / ((d4 - d3) + (d5 - d6))), e.n, on_edge1);
  // Face: the distance to the plane, and the exact normal (so a flat mesh acts as a plane does).
  const Real h = dot(ap, e.n);
  surface_point<Real> s;
  s.distance = h < Real(0) ? -h : h;
  s.normal = h < Real(0) ? -e.n : e.n;
  s.feature = on_face;
  return s;
}

template <class Real>
DEM_HD inline surface_point<Real> closest_on_plate(const element<Real>& e, const vec3<Real>& x) {
  const vec3<Real> v = cross(e.n, e.b);
  const vec3<Real> d = x - e.a;
  const Real u = dot(d, e.b), w = dot(d, v);
  const Real uc = min_of(max_of(u, -e.s0), e.s0), wc = min_of(max_of(w, -e.s1), e.s1);
  if (uc == u && wc == w) {
    const Real h = dot(d, e.n);
    return {h < Real(0) ? -h : h, h < Real(0) ? -e.n : e.n, on_face};
  }
  return towards(x, e.a + e.b * uc + v * wc, e.n, on_edge0);
}

template <class Real>
DEM_HD inline surface_point<Real> closest_on_disc(const element<Real>& e, const vec3<Real>& x) {
  const vec3<Real> d = x - e.a;
  const Real h = dot(d, e.n);
  const vec3<Real> w = d - e.n * h;
  const Real rho = norm(w);
  if (rho <= e.r0 && rho >= e.r1) return {h < Real(0) ? -h : h, h < Real(0) ? -e.n : e.n, on_face};
  const vec3<Real> u = rho > Real(0) ? w * (Real(1) / rho) : any_perpendicular(e.n);
  const bool outer = rho > e.r0;
  return towards(x, e.a + u * (outer ? e.r0 : e.r1), e.n, outer ? on_edge0 : on_edge1);
}

template <class Real>
DEM_HD inline surface_point<Real> closest_on_cone(const element<Real>& e, const vec3<Real>& x) {
  // In the half-plane through the axis and x: axial s, radial rho; the surface is the segment
  // (s0, r0) - (s1, r1).
  const vec3<Real> d = x - e.a;
  const Real s = dot(d, e.n);
  const vec3<Real> w = d - e.n * s;
  const Real rho = norm(w);
  const vec3<Real> u = rho > Real(0) ? w * (Real(1) / rho) : any_perpendicular(e.n);
  const Real ds = e.s1 - e.s0, dr = e.r1 - e.r0;
  const Real len2 = ds * ds + dr * dr;
  const Real t = ((s - e.s0) * ds + (rho - e.r0) * dr) / len2;
  if (t > Real(0) && t < Real(1)) {
    const Real inv = Real(1) / std::sqrt(len2);
    // Outward normal of the segment in (s, rho): (-dr, ds) / length (ds > 0: away from the axis).
    const Real ms = -dr * inv, mr = ds * inv;
    const Real out = (s - e.s0) * ms + (rho - e.r0) * mr;
    const bool inside = (e.flags & particles_inside) != 0;
    const vec3<Real> m = e.n * ms + u * mr;
    return {inside ? -out : out, inside ? -m : m, on_face};
  }
  const bool low = t <= Real(0);
  const vec3<Real> q = e.a + e.n * (low ? e.s0 : e.s1) + u * (low ? e.r0 : e.r1);
  const vec3<Real> fallback = (e.flags & particles_inside) ? -u : u;
  return towards(x, q, fallback, low ? on_edge0 : on_edge1);
}
}  // namespace detail

// The closest point of element e to x (both in the boundary's local frame).
template <class Real>
DEM_HD inline surface_point<Real> closest(const element<Real>& e, const vec3<Real>& x) {
  switch (e.kind) {
    case plane_kind: return {dot(x - e.a, e.n), e.n, on_face};
    case plate_kind: return detail::closest_on_plate(e, x);
    case disc_kind: return detail::closest_on_disc(e, x);
    case cone_kind: return detail::closest_on_cone(e, x);
    default: return detail::closest_on_triangle(e, x);
  }
}

// For bodies that meet walls vertex by vertex (polyhedra, shape/polyhedron/collide.hpp): whether x
// (local frame) lies behind a one-sided wall whose free side is convex, how deep, and the wall's
// unit normal there (local frame, towards the free side). Such walls: planes, the lateral surface
// of a cylinder or cone the particles are inside, and that container's caps. Elsewhere (beyond a
// rim, outside a cap's radius) nothing: the neighbouring wall of the container answers there.
// Returns false for the other kinds (the simulator does not let such bodies meet them).
template <class Real>
DEM_HD inline bool behind_wall(const element<Real>& e, const vec3<Real>& x, Real& depth, vec3<Real>& normal) {
  if (e.kind == plane_kind) {
    depth = -dot(x - e.a, e.n);
    normal = e.n;
    return depth > Real(0);
  }
  if (e.kind == cone_kind && (e.flags & particles_inside)) {
    const surface_point<Real> sp = detail::closest_on_cone(e, x);
    if (!is_face(sp.feature) || !(sp.distance < Real(0))) return false;
    depth = -sp.distance;
    normal = sp.normal;
    return true;
  }
  if (e.kind == disc_kind && (e.flags & (particles_above | particles_below))) {
    const vec3<Real> n = (e.flags & particles_above) ? e.n : -e.n;
    const vec3<Real> d = x - e.a;
    const Real h = dot(d, n);
    if (!(h < Real(0))) return false;
    const vec3<Real> radial = d - n * h;
    const Real rho2 = norm2(radial);
    if (rho2 > e.r0 * e.r0 || rho2 < e.r1 * e.r1) return false;
    depth = -h;
    normal = n;
    return true;
  }
  return false;
}

// Whether bodies that meet walls vertex by vertex can meet element e (behind_wall answers for it).
template <class Real>
DEM_HD inline bool one_sided_wall(const element<Real>& e) {
  return e.kind == plane_kind || (e.kind == cone_kind && (e.flags & particles_inside)) ||
         (e.kind == disc_kind && (e.flags & (particles_above | particles_below)));
}

// The id of the edge or vertex a feature code names (no_feature_id for faces and unshared features).
template <class Real>
DEM_HD inline std::uint32_t feature_id(const element<Real>& e, std::uint32_t feature) {
  if (is_edge(feature)) return e.edge[feature - on_edge0];
  if (is_vertex(feature)) return e.vertex[feature - on_vertex0];
  return no_feature_id;
}

// Whether element e has the edge (is_edge) or vertex with id `id`.
template <class Real>
DEM_HD inline bool has_feature(const element<Real>& e, bool edge, std::uint32_t id) {
  const std::uint32_t* ids = edge ? e.edge : e.vertex;
  return id != no_feature_id && (ids[0] == id || ids[1] == id || ids[2] == id);
}

// Whether two elements share an edge.
template <class Real>
DEM_HD inline bool shares_edge(const element<Real>& e, const element<Real>& f) {
  for (int k = 0; k < 3; ++k)
    if (has_feature(f, true, e.edge[k])) return true;
  return false;
}

// Whether two elements share an edge or a vertex (history moves between such neighbours).
template <class Real>
DEM_HD inline bool adjacent(const element<Real>& e, const element<Real>& f) {
  for (int k = 0; k < 3; ++k)
    if (has_feature(f, false, e.vertex[k])) return true;
  return shares_edge(e, f);
}

}  // namespace dem::boundary
