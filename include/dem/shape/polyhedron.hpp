#pragma once
// shape::polyhedron<MaxVertices> — convex polyhedral bodies (Blaze-DEM's particles) of up to
// MaxVertices corners: one geometry per owner. Narrow phase: separating axes with clipped contact
// patches (shape/polyhedron/collide.hpp), one contact point per pair. The force laws see R* of the
// bodies' volume-equivalent spheres (Hertz on polyhedra is an approximation: the contact area of a
// face-face contact is not Hertzian; a linear law is the usual choice, as Blaze-DEM's).
#include <cmath>

#include <string>
#include <type_traits>

#include "dem/config.hpp"
#include "dem/math/quaternion.hpp"
#include "dem/shape/polyhedron/collide.hpp"
#include "dem/shape/polyhedron/collide_polygon.hpp"
#include "dem/shape/polyhedron/polyhedron.hpp"
#include "dem/shape/rigid_contact.hpp"

namespace dem::shape {

template <int MaxVertices = 32>
struct polyhedron {
  static constexpr const char* name = "polyhedron";
  static constexpr bool rigid_body = true;
  static constexpr int pair_slots = 1;
  static constexpr int plane_slots = MaxVertices;  // planes and caps use slot 0; a curved wall one per vertex
  static_assert(MaxVertices <= 64, "dem::shape::polyhedron: at most 64 vertices (a wall entry's touching contacts are a 64-bit mask)");
  static constexpr bool supports_range = false;  // the narrow phase reports overlaps only
  using host_template = poly::polyhedron_template;

  template <class Real>
  struct data {
    poly::convex_shape<Real, MaxVertices> geometry;
    Real equivalent_radius;  // of the sphere of the same volume (for R* in the laws)
    Real bounding_radius;
  };

  template <class Real>
  static data<Real> make(const poly::polyhedron_template& t) {
    return {poly::make_convex_shape<Real, MaxVertices>(t), static_cast<Real>(std::cbrt(3.0 * t.volume / (4.0 * M_PI))),
            static_cast<Real>(t.bounding_radius)};
  }
  static double volume(const poly::polyhedron_template& t) { return t.volume; }
  static vec3d inertia_per_density(const poly::polyhedron_template& t) { return t.principal_moments; }
  static double bounding_radius(const poly::polyhedron_template& t) { return t.bounding_radius; }
  // Radius of the sphere of equal volume (R* of the laws, and the stable time step).
  static double contact_radius(const poly::polyhedron_template& t) { return std::cbrt(3.0 * t.volume / (4.0 * M_PI)); }
  static const std::string& template_name(const poly::polyhedron_template& t) { return t.name; }
  // Why shape data read from a file cannot be used (empty: it can): every count and index the
  // narrow phase follows.
  template <class Real>
  static std::string check_data(const data<Real>& d) {
    const auto& g = d.geometry;
    using G = std::decay_t<decltype(g)>;
    if (g.n_vertices < 4 || g.n_vertices > G::max_vertices || g.n_faces < 4 || g.n_faces > G::max_faces || g.n_edges < 6 ||
        g.n_edges > G::max_edges)
      return "its vertex, face or edge count is out of range";
    if (g.face_begin[0] != 0) return "its face list does not start at 0";
    for (int f = 0; f < g.n_faces; ++f) {
      if (g.face_begin[f + 1] < g.face_begin[f] + 3 || g.face_begin[f + 1] > G::max_face_indices) return "face " + std::to_string(f) + " is malformed";
      for (int k = g.face_begin[f]; k < g.face_begin[f + 1]; ++k)
        if (g.face_vertex[k] >= g.n_vertices) return "face " + std::to_string(f) + " names a vertex that does not exist";
    }
    for (int e = 0; e < g.n_edges; ++e)
      if (g.edge[e][0] >= g.n_vertices || g.edge[e][1] >= g.n_vertices || g.edge_face[e][0] >= g.n_faces || g.edge_face[e][1] >= g.n_faces)
        return "edge " + std::to_string(e) + " names a vertex or face that does not exist";
    for (int v = 0; v < g.n_vertices; ++v)
      if (!all_finite(vec3d(g.vertex[v]))) return "vertex " + std::to_string(v) + " is not finite";
    if (!(d.bounding_radius > 0) || !(d.equivalent_radius > 0)) return "its radii are not positive";
    return "";
  }

  template <class Real, class Visit>
  DEM_HD static void collide(const data<Real>& a, const quat<Real>& qa, const data<Real>& b, const quat<Real>& qb,
                             const vec3<Real>& d, Real /*range*/, Visit&& visit) {
    poly::contact_geometry<Real> g;
    if (!poly::collide(a.geometry, qa, b.geometry, qb, d, g)) return;
    // g.point is relative to B's centre; A's centre is at d from B's.
    visit(0, rigid_contact<Real>{g.overlap, g.normal, g.point - d, g.point,
                                 a.equivalent_radius * b.equivalent_radius / (a.equivalent_radius + b.equivalent_radius)});
  }

  // Against a plane (one-sided): the polygon narrow phase with a triangle around the body's foot,
  // so that a plane and a flat mesh give the same contact (poly::collide_polygon). `centre` is
  // relative to a point of the plane.
  template <class Real, class Visit>
  DEM_HD static void collide_plane(const data<Real>& s, const quat<Real>& q, const vec3<Real>& centre, const vec3<Real>& normal,
                                   Real /*range*/, Visit&& visit) {
    if (dot(centre, normal) >= s.bounding_radius) return;
    poly::polygon_contact<Real> g;
    if (!poly::collide_polygon(s.geometry, q, centre, poly::plane_triangle(centre, normal, s.bounding_radius), g)) return;
    visit(0, rigid_contact<Real>{g.overlap, g.normal, g.point - centre, vec3<Real>{0, 0, 0}, s.equivalent_radius});
  }

  // Against a flat convex polygon (a mesh triangle, a plate): the raw geometry of
  // poly::collide_polygon, which boundary/body_contacts.hpp combines over a mesh's triangles.
  template <class Real>
  DEM_HD static bool collide_polygon(const data<Real>& s, const quat<Real>& q, const vec3<Real>& centre, const poly::flat_polygon<Real>& p,
                                     poly::polygon_contact<Real>& g) {
    return poly::collide_polygon(s.geometry, q, centre, p, g);
  }
  template <class Real>
  DEM_HD static Real radius_eff(const data<Real>& s) { return s.equivalent_radius; }

  // Against a one-sided wall with a convex free side (the wall of a container the body is inside):
  // `behind(w, depth, n)` as in poly::collide_wall, `centre` relative to the wall's reference point.
  // A flat wall (a container's cap) gives one contact, as a plane does. A curved one (the side of a
  // cylinder or cone) gives one per vertex behind it, in history slot = the vertex's index: a body
  // touches it on several sides at once (wedged in a hopper), each side with its own normal, and a
  // single contact would jump from side to side as the deepest vertex changes (a cube wedged in a
  // cone never came to rest that way). Each is a contact of the body's equivalent radius at the
  // vertex, half-way up its depth.
  template <class Real, class Behind, class Visit>
  DEM_HD static void collide_wall(const data<Real>& s, const quat<Real>& q, const vec3<Real>& centre, Behind&& behind, bool flat,
                                  Real /*range*/, Visit&& visit) {
    if (flat) {
      poly::contact_geometry<Real> g;
      if (!poly::collide_wall(s.geometry, q, centre, behind, g)) return;
      visit(0, rigid_contact<Real>{g.overlap, g.normal, g.point - centre, vec3<Real>{0, 0, 0}, s.equivalent_radius});
      return;
    }
    for (int i = 0; i < s.geometry.n_vertices; ++i) {
      const vec3<Real> w = rotate(q, s.geometry.vertex[i]) + centre;
      Real depth = 0;
      vec3<Real> n{0, 0, 0};
      if (!behind(w, depth, n) || !(depth > Real(0))) continue;
      visit(i, rigid_contact<Real>{depth, n, w + n * (depth * Real(0.5)) - centre, vec3<Real>{0, 0, 0}, s.equivalent_radius});
    }
  }
};

}  // namespace dem::shape
