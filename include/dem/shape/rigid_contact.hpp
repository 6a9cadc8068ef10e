#pragma once
// What the narrow phase of a rigid (non-spherical) shape policy reports for each point of contact
// between two bodies, or between a body and a plane. A pair of bodies can touch at several points
// (two clumps: one per touching pair of component spheres); each has a fixed `slot` number so that
// its per-contact history is found again at the next step.
#include "dem/config.hpp"
#include "dem/material/material.hpp"
#include "dem/math/vec3.hpp"

namespace dem::shape {

inline constexpr material_id no_geometry_material = 0xFFFF;  // = body_material of clump templates

template <class Real>
struct rigid_contact {
  Real overlap;          // > 0 when touching (in (-range, 0] for laws with a range)
  vec3<Real> normal;     // unit, from B to A
  vec3<Real> branch_a;   // from A's centre of mass to the contact point (world axes)
  vec3<Real> branch_b;   // from B's centre of mass (plane: zero)
  Real radius_eff;       // R* of the touching geometries
  material_id material_a = no_geometry_material;  // the geometries' own materials; no_geometry_material:
  material_id material_b = no_geometry_material;  // the body's (B: the plane's for plane contacts)
};

// A sphere of a body that meets boundaries (the body itself for spheres, each component of a
// clump): at `offset` (world axes) from the body's centre, with its material (no_geometry_material:
// the body's) and the R* its contacts see.
template <class Real>
struct probe {
  vec3<Real> offset;
  Real radius;
  material_id material;
  Real radius_eff;
};

}  // namespace dem::shape
