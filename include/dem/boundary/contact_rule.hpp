#pragma once
// Which of a sphere's element contacts count: one contact where the sphere touches an edge or a
// vertex that several elements share on a flat or convex patch, two (or more) where it sits in a
// concave crease.
//
// Each element reports its closest point to the sphere's centre and the feature it lies on (face,
// edge, vertex; boundary/element.hpp). A report on a shared feature is compared with the reports
// of the elements that have the same feature (the edge's or vertex's id; for a face report, the
// coplanar triangles that share a vertex with it):
//   - it is dropped if one of them is closer by more than `tol` (the feature is not where the
//     distance to the surface is least: in a concave crease the neighbour's face is nearer, on a
//     flat patch the face the centre projects onto is nearer);
//   - of reports within `tol` of each other (the same point, found through several elements: the
//     ridge of a convex edge, a corner, a seam between coplanar triangles), one is kept: faces
//     before edges before vertices, then the lowest element index.
// Reports on different faces of a crease are not compared (they are different points), so a
// concave crease gives one contact per face. Every element that has a feature the sphere touches
// is within the detection distance whenever the sphere touches it, so the comparison is complete.
// LIGGGHTS instead marks edges and corners active on one triangle when it reads the mesh, which
// fails where the sphere's closest point is on a feature of a triangle that does not own it;
// DEM-Engine keeps every report (double forces on edges).
#include <cmath>
#include <cstdint>

#include "dem/boundary/element.hpp"
#include "dem/config.hpp"

namespace dem::boundary {

// What the rule reads of one listed (sphere, element) pair.
template <class Real>
struct report {
  Real distance;
  std::uint32_t feature;
};

namespace detail {
// Triangles in one plane (either orientation) that share a corner: a report on one face may be
// the same point as a report on the other (the centre projects onto their seam).
template <class Real>
DEM_HD inline bool coplanar_neighbours(const element<Real>& e, const element<Real>& f) {
  if (e.kind != triangle_kind || f.kind != triangle_kind) return false;
  const Real c = dot(e.n, f.n);
  if (!((c < Real(0) ? -c : c) > Real(1) - Real(1e-6))) return false;
  for (int k = 0; k < 3; ++k)
    if (has_feature(f, false, e.vertex[k])) return true;
  return false;
}

// Whether element f has the feature element e's report lies on.
template <class Real>
DEM_HD inline bool shares_reported_feature(const element<Real>& e, std::uint32_t feature, const element<Real>& f) {
  if (is_face(feature)) return coplanar_neighbours(e, f);
  return has_feature(f, is_edge(feature), feature_id(e, feature));
}
}  // namespace detail

// Whether report k of one sphere counts. `element_of(j)` is the element of the sphere's listed pair
// j, `report_of(j)` its report, for j in [first, last). Only elements of one boundary are compared.
template <class Real, class ElementOf, class ReportOf>
DEM_HD inline bool counts(std::uint32_t k, std::uint32_t first, std::uint32_t last, const ElementOf& element_of, const ReportOf& report_of,
                          Real tol) {
  const element<Real>& e = element_of(k);
  const report<Real> r = report_of(k);
  // Unshared features (planes, plates, a mesh's open edge) and faces of non-triangles: nothing to compare.
  if (!is_face(r.feature) && feature_id(e, r.feature) == no_feature_id) return true;
  if (is_face(r.feature) && e.kind != triangle_kind) return true;
  const std::uint32_t rank = feature_rank(r.feature);
  for (std::uint32_t j = first; j < last; ++j) {
    if (j == k) continue;
    const element<Real>& f = element_of(j);
    if (f.boundary != e.boundary || !detail::shares_reported_feature(e, r.feature, f)) continue;
    const report<Real> o = report_of(j);
    if (o.distance < r.distance - tol) return false;  // a nearer point of the surface beside this feature
    if (o.distance <= r.distance + tol) {             // the same point: keep one report
      const std::uint32_t other_rank = feature_rank(o.feature);
      if (other_rank < rank || (other_rank == rank && j < k)) return false;
    }
  }
  return true;
}

// The tolerance of the comparison: rounding of distances computed in Real at coordinates of size
// `scale` (the sphere's centre in the boundary's frame) for a sphere of radius r.
template <class Real>
DEM_HD inline Real rule_tolerance(Real scale, Real r) {
  constexpr Real eps = sizeof(Real) == 4 ? Real(1.2e-7) : Real(2.3e-16);
  return Real(64) * eps * (scale + r);
}

}  // namespace dem::boundary
