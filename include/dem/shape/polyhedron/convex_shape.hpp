#pragma once
// convex_shape<Real, MaxVertices>: the device-side geometry of a convex polyhedron in its body's
// principal frame (centroid at the origin, principal axes along x, y, z). Fixed-size arrays, trivially
// copyable: one shape per particle type lives in a device buffer and the narrow phase runs fixed-size
// loops over it, with no heap. Built on the host by make_convex_shape (polyhedron.hpp); kept apart
// from it so that device code needs neither Eigen nor the host builders.
#include <cstdint>

#include "dem/config.hpp"
#include "dem/math/vec3.hpp"

namespace dem::shape::poly {

template <class Real, int MaxVertices = 32>
struct convex_shape {
  static_assert(MaxVertices >= 4 && MaxVertices <= 128, "convex_shape: MaxVertices must be in [4, 128] (vertex and face indices are 8-bit)");
  // Euler's formula bounds faces and edges of a polyhedron with V vertices (equality for triangles).
  static constexpr int max_vertices = MaxVertices;
  static constexpr int max_faces = 2 * MaxVertices - 4;
  static constexpr int max_edges = 3 * MaxVertices - 6;
  static constexpr int max_face_indices = 2 * max_edges;  // every edge bounds two faces

  int n_vertices;
  int n_faces;
  int n_edges;
  Real bounding_radius;                      // about the centroid (the origin)
  vec3<Real> vertex[MaxVertices];
  vec3<Real> face_normal[max_faces];         // unit, outward
  Real face_offset[max_faces];               // dot(face_normal, x) = face_offset on the face
  std::uint16_t face_begin[max_faces + 1];   // face f: face_vertex[face_begin[f] .. face_begin[f + 1])
  std::uint8_t face_vertex[max_face_indices];  // counter-clockwise seen from outside
  std::uint8_t edge[max_edges][2];           // unique edges, vertex indices
  std::uint8_t edge_face[max_edges][2];      // the two faces meeting at each edge (for the Gauss map)

  DEM_HD int face_size(int f) const { return face_begin[f + 1] - face_begin[f]; }
  DEM_HD const vec3<Real>& face_corner(int f, int k) const { return vertex[face_vertex[face_begin[f] + k]]; }
};

}  // namespace dem::shape::poly
