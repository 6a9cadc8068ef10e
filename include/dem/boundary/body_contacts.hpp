#pragma once
// Bodies without probes (polyhedra) against the flat elements of boundaries, mesh triangles and
// plates: one contact per touching surface, however many triangles it is made of.
//
// Each listed triangle or plate gives the raw geometry of shape/polyhedron/collide_polygon.hpp (pass
// 1, into the entry's scratch report). The rule (pass 2) then keeps, per body:
//   - for contacts on a polygon's face: one contact per surface. Face contacts of one boundary
//     are pieces of one surface when their normals are within 10 degrees and their triangles share
//     an edge or lie on one plane (the same normal and offset, both ways); the pieces linked so,
//     directly or through others, are one contact, within 10 degrees of each other (a union-find
//     in entry order; two groups join only while every piece of one is within 10 degrees of every
//     piece of the other, so that no group bends round a funnel or a ring, whatever order the mesh
//     numbers its triangles in). It is kept by the group's lowest-indexed entry, with the deepest
//     piece's depth and the depth-weighted corners of all the pieces' patches, and their normals
//     so weighted where they differ beyond the plane test.
//     A body on a flat mesh of any number of triangles gets the plane's contact; one on a finely
//     faceted convex surface (a rod, a shallow cone) gets one contact however many facets it
//     touches; one hanging over a convex edge gets only the part of its face that is supported.
//   - for other contacts (a body's face or edge on the surface's edge or corner): the one reported on
//     the deepest feature of the surface (deep corners: a vertex, an edge, or the whole triangle).
//     It is dropped when an element sharing that feature has a face contact with a normal within 10
//     degrees (the face's contact already covers it), or when an element of lower index sharing it
//     reports such a contact (a convex edge found through both of its triangles).
//   Contacts with normals more than 10 degrees apart are different contacts: a body in a concave
//   crease gets one per face, as spheres do (boundary/contact_rule.hpp). So are pieces that no
//   chain of touching neighbours links: a body in a finely faceted concave trough touching it
//   along two separate strips gets two.
// Pass 3 carries the tangential history over when the entry that keeps a contact changes (the body
// moved onto another triangle of the surface, or across an edge). The kept contacts are evaluated in
// entry order with the other walls' (boundary/wall_forces.hpp).
#include <cstdint>

#include "dem/boundary/element.hpp"
#include "dem/boundary/frame.hpp"
#include "dem/config.hpp"
#include "dem/math/vec3.hpp"
#include "dem/shape/polyhedron/collide_polygon.hpp"

namespace dem::boundary {

// The scratch of one (body, element) entry.
template <class Real>
struct body_report {
  shape::poly::polygon_contact<Real> c;
  std::uint32_t state;  // 0: no polygon contact; 1: a contact; 2: a contact that counts
  std::uint32_t group;  // face contacts, after pass 2: the entry that holds their surface's contact
  std::uint32_t next;   // pass 2: the next piece of its group (a list from the root), or no_piece
};
inline constexpr std::uint32_t no_piece = 0xFFFFFFFFu;

template <class Real>
DEM_HD inline bool is_flat_polygon(const element<Real>& e) {
  return e.kind == triangle_kind || e.kind == plate_kind;
}

// A triangle or plate as a polygon in world axes, relative to its boundary's origin.
template <class Real>
DEM_HD inline shape::poly::flat_polygon<Real> polygon_of(const element<Real>& e, const frame<Real>& fr) {
  shape::poly::flat_polygon<Real> p;
  p.normal = fr.to_world(e.n);
  if (e.kind == triangle_kind) {
    p.n = 3;
    p.corner[0] = fr.to_world(e.a);
    p.corner[1] = fr.to_world(e.b);
    p.corner[2] = fr.to_world(e.c);
    p.open = (e.flags / flat_edge0) & 7u;
    p.owner = ((e.flags / seam_owner0) & 7u) | (((e.flags / corner_owner0) & 7u) << 4);
    p.one_sided = false;
  } else {  // plate: centre a, unit axes b and n x b, half extents s0, s1 (counter-clockwise about n)
    const vec3<Real> u = e.b * e.s0, v = cross(e.n, e.b) * e.s1;
    p.n = 4;
    p.corner[0] = fr.to_world(e.a - u - v);
    p.corner[1] = fr.to_world(e.a + u - v);
    p.corner[2] = fr.to_world(e.a + u + v);
    p.corner[3] = fr.to_world(e.a - u + v);
    p.open = 0;
    p.owner = 0;
    p.one_sided = false;
  }
  return p;
}

namespace detail {
template <class Real>
DEM_HD inline bool same_direction(const vec3<Real>& a, const vec3<Real>& b) {
  return dot(a, b) > Real(1) - Real(1e-6);
}
// Reports on one feature of the surface within 10 degrees of each other are one contact: a body
// tilting over a convex edge is still held by its face's contact while the edge's neighbour
// reports the edge pressing into the body's face.
template <class Real>
DEM_HD inline bool one_contact(const vec3<Real>& a, const vec3<Real>& b) {
  return dot(a, b) > Real(0.98480775301220805936);  // cos 10 degrees
}

// Face contacts of e and f (one boundary) on one plane with one normal. Symmetric: each
// element's corner lies on the other's plane, within round-off and 1e-3 of the depth.
template <class Real>
DEM_HD inline bool same_plane(const element<Real>& e, const body_report<Real>& re, const element<Real>& f, const body_report<Real>& rf) {
  using std::fabs;
  if (!same_direction(re.c.normal, rf.c.normal)) return false;
  constexpr Real eps = sizeof(Real) == 4 ? Real(1.2e-7) : Real(2.3e-16);
  const Real tol = Real(1e-3) * (re.c.overlap > rf.c.overlap ? re.c.overlap : rf.c.overlap) + Real(64) * eps * (norm(e.a) + norm(f.a));
  return fabs(dot(e.n, f.a - e.a)) <= tol && fabs(dot(f.n, e.a - f.a)) <= tol;
}

// Face contacts of e and f are pieces of one surface's contact (see above). Neighbours share an
// edge, not only a corner: the facets of a cone's side all meet at its apex.
template <class Real>
DEM_HD inline bool one_surface(const element<Real>& e, const body_report<Real>& re, const element<Real>& f, const body_report<Real>& rf) {
  return f.boundary == e.boundary && one_contact(re.c.normal, rf.c.normal) && (shares_edge(e, f) || same_plane(e, re, f, rf));
}

// The root of e's group (path halving).
template <class Real>
DEM_HD inline std::uint32_t group_root(body_report<Real>* reports, std::uint32_t e) {
  while (reports[e].group != e) {
    reports[e].group = reports[reports[e].group].group;
    e = reports[e].group;
  }
  return e;
}

// The feature of e that a non-face contact lies on, from its deepest corners: is_edge_feature and
// the id (no_feature_id: not shared, or a plate); flush: the whole triangle is deepest.
template <class Real>
DEM_HD inline void deep_feature(const element<Real>& e, std::uint32_t deep, bool& flush, bool& is_edge_feature, std::uint32_t& id) {
  flush = false;
  is_edge_feature = false;
  id = no_feature_id;
  if (e.kind != triangle_kind) return;
  const int count = int(deep & 1u) + int((deep >> 1) & 1u) + int((deep >> 2) & 1u);
  if (count == 3) {
    flush = true;
  } else if (count == 2) {
    is_edge_feature = true;
    id = e.edge[deep == 3u ? 0 : (deep == 6u ? 1 : 2)];  // corners 0-1: edge 0, 1-2: edge 1, 2-0: edge 2
  } else if (count == 1) {
    id = e.vertex[deep == 1u ? 0 : (deep == 2u ? 1 : 2)];
  }
}
}  // namespace detail

// Pass 2 over one body's entries [first, last): sets state 2 on the reports that count, and gives
// the lowest-indexed piece of each surface the combined contact.
template <class Real, class ElementOf>
DEM_HD inline void body_polygon_rule(std::uint32_t first, std::uint32_t last, const ElementOf& element_of, body_report<Real>* reports) {
  auto is_face = [&](std::uint32_t e) { return reports[e].state != 0 && reports[e].c.face; };
  // Other contacts (on the raw reports): the deepest feature's, unless a face contact or a lower
  // entry covers it.
  for (std::uint32_t e = first; e < last; ++e) {
    body_report<Real>& r = reports[e];
    if (r.state == 0 || r.c.face) continue;
    const element<Real>& el = element_of(e);
    bool keep = true, flush = false, on_edge = false;
    std::uint32_t id = no_feature_id;
    detail::deep_feature(el, r.c.deep, flush, on_edge, id);
    for (std::uint32_t j = first; j < last && keep && (flush || id != no_feature_id); ++j) {
      if (j == e || reports[j].state == 0) continue;
      const element<Real>& f = element_of(j);
      if (f.boundary != el.boundary || !detail::one_contact(r.c.normal, reports[j].c.normal)) continue;
      const bool shares = flush ? adjacent(el, f) : has_feature(f, on_edge, id);
      if (!shares) continue;
      if (reports[j].c.face || j < e) keep = false;  // the face's contact covers it, or a lower entry reports it
    }
    if (keep) r.state = 2;
  }
  // Face contacts: link the pieces of each surface (on the raw reports), the lowest index the root.
  // Two groups join only while every piece of one is within 10 degrees of every piece of the other
  // (their lists of pieces compared), so that a chain of neighbours (a body seated in a finely
  // faceted funnel or ring) cannot bend a group round, in whatever order the mesh numbers its
  // triangles; groups only grow, so two that stay apart could not be one.
  for (std::uint32_t e = first; e < last; ++e) {
    reports[e].group = e;
    reports[e].next = no_piece;
  }
  for (std::uint32_t e = first; e < last; ++e) {
    if (!is_face(e)) continue;
    const element<Real>& el = element_of(e);
    // The group that last failed to join e's: it fails again for as long as this loop runs (only
    // e's group grows here, and a pair of pieces too far apart stays in the two).
    std::uint32_t refused = no_piece;
    for (std::uint32_t j = first; j < e; ++j) {
      if (!is_face(j)) continue;
      const std::uint32_t a = detail::group_root(reports, e), b = detail::group_root(reports, j);
      if (a == b || b == refused || !detail::one_surface(el, reports[e], element_of(j), reports[j])) continue;
      bool close = true;
      for (std::uint32_t p = a; p != no_piece && close; p = reports[p].next)
        for (std::uint32_t q = b; q != no_piece && close; q = reports[q].next) close = detail::one_contact(reports[p].c.normal, reports[q].c.normal);
      if (!close) {
        refused = b;
        continue;
      }
      const std::uint32_t root = a < b ? a : b, other = a < b ? b : a;
      reports[other].group = root;
      std::uint32_t tail = root;
      while (reports[tail].next != no_piece) tail = reports[tail].next;
      reports[tail].next = other;
    }
  }
  // The roots count, and take in their pieces in entry order: the deepest depth, the corners of
  // every patch, and, where the pieces' normals differ (a faceted curved surface), the normals
  // weighted by each patch's corner depths (a body on the ridge of two facets is pushed along
  // their mean, not along one of them).
  for (std::uint32_t e = first; e < last; ++e)
    if (is_face(e)) reports[e].group = detail::group_root(reports, e);
  for (std::uint32_t e = first; e < last; ++e) {
    if (!is_face(e) || reports[e].group != e) continue;
    reports[e].state = 2;
    shape::poly::polygon_contact<Real>& c = reports[e].c;
    vec3<Real> normals = c.normal * c.corner_w;
    bool bent = false;
    for (std::uint32_t j = e + 1; j < last; ++j) {
      if (!is_face(j) || reports[j].group != e) continue;
      const shape::poly::polygon_contact<Real>& o = reports[j].c;
      c.overlap = c.overlap > o.overlap ? c.overlap : o.overlap;
      c.corner_w += o.corner_w;
      c.corner_x += o.corner_x;
      normals += o.normal * o.corner_w;
      bent = bent || !detail::same_direction(o.normal, c.normal);  // not pieces of one plane
    }
    if (c.corner_w > Real(0)) c.point = c.corner_x * (Real(1) / c.corner_w);
    const Real length = norm(normals);
    if (bent && length > Real(0)) c.normal = normals * (Real(1) / length);
  }
}

// Pass 3: a kept contact that was not touching takes over the history of an entry of the same
// boundary that touched last step and does not count now, next to it (sharing a corner) or a
// piece of its surface.
template <class Real, class ElementOf, class Histories>
DEM_HD inline void body_polygon_takeover(std::uint32_t first, std::uint32_t last, const ElementOf& element_of, const body_report<Real>* reports,
                                         Histories* history) {
  for (std::uint32_t e = first; e < last; ++e) {
    if (reports[e].state != 2 || (history[e].touching & 1u)) continue;
    const element<Real>& el = element_of(e);
    for (std::uint32_t j = first; j < last; ++j) {
      if (j == e || reports[j].state == 2 || !(history[j].touching & 1u) || !is_flat_polygon(element_of(j))) continue;
      const element<Real>& f = element_of(j);
      if (f.boundary != el.boundary) continue;
      const bool piece = reports[j].state == 1 && reports[j].c.face && reports[j].group == e;
      if (!piece && !adjacent(el, f)) continue;
      history[e].slot[0] = history[j].slot[0];
      break;
    }
  }
}

}  // namespace dem::boundary
