#pragma once
// Convex polyhedral particle types on the host: `polyhedron_template` (double precision, geometry in
// the principal frame, mass properties per unit density, the map from the user's input frame to the
// principal frame) and `make_convex_shape`, which turns it into the device-side `convex_shape`
// (convex_shape.hpp).
//
// A shape is built once per particle type on the host and shared by every particle of that type;
// particles carry only position and orientation. MaxVertices bounds every array at compile time (32 by
// default, Blaze-DEM's limit): the narrow phase then needs no heap and runs fixed-size loops.
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "dem/config.hpp"
#include "dem/math/quaternion.hpp"
#include "dem/math/vec3.hpp"
#include "dem/shape/polyhedron/convex_shape.hpp"
#include "dem/shape/polyhedron/hull.hpp"
#include "dem/shape/polyhedron/mass_properties.hpp"

namespace dem::shape::poly {

// Host-side description of a polyhedral particle type, per unit density.
struct polyhedron_template {
  std::string name;
  hull geometry;                 // in the principal frame (centroid at the origin)
  double volume;                 // mass = density * volume
  vec3d principal_moments;       // per unit density: I = density * principal_moments
  vec3d centroid_in_input;       // the centroid in the frame the points were given in
  quatd principal_to_input;      // rotates principal-frame vectors into the input frame
  double bounding_radius;        // about the centroid

  // A body placed with orientation q_input (of its input frame) has principal orientation
  // q_input * principal_to_input, and its centroid at x_input + rotate(q_input, centroid_in_input).
};

// The convex hull of `points` (input frame) as a particle type. Throws std::invalid_argument naming
// `name` and the problem (see convex_hull), including more than `max_vertices` corners.
inline polyhedron_template make_polyhedron_template(const std::vector<vec3d>& points, std::string_view name,
                                                    int max_vertices = 32) {
  hull h = convex_hull(points, name, max_vertices);
  const mass_properties mp = compute_mass_properties(h.vertices, h.faces, name);
  polyhedron_template t;
  t.name = std::string(name);
  t.volume = mp.volume;
  t.principal_moments = mp.principal_moments;
  t.centroid_in_input = mp.centroid;
  t.principal_to_input = mp.principal_to_input;
  t.bounding_radius = 0;
  for (auto& v : h.vertices) {
    v = to_principal_frame(mp, v);
    t.bounding_radius = std::max(t.bounding_radius, norm(v));
  }
  for (std::size_t f = 0; f < h.faces.size(); ++f) {
    // Re-derive planes in the new frame from the moved corners (a rotation keeps them planar).
    const auto& fv = h.faces[f];
    vec3d nn{0, 0, 0};
    for (std::size_t k = 0; k < fv.size(); ++k) {
      const vec3d a = h.vertices[fv[k]], b = h.vertices[fv[(k + 1) % fv.size()]];
      nn += vec3d{(a.y - b.y) * (a.z + b.z), (a.z - b.z) * (a.x + b.x), (a.x - b.x) * (a.y + b.y)};
    }
    nn = nn / norm(nn);
    double off = 0;
    for (const int c : fv) off += dot(nn, h.vertices[c]);
    h.normals[f] = nn;
    h.offsets[f] = off / static_cast<double>(fv.size());
  }
  t.geometry = std::move(h);
  return t;
}

// The device-side geometry of a template, in precision Real. Throws std::invalid_argument naming the
// shape when it has more vertices than MaxVertices.
template <class Real, int MaxVertices = 32>
convex_shape<Real, MaxVertices> make_convex_shape(const polyhedron_template& t) {
  using shape_t = convex_shape<Real, MaxVertices>;
  static_assert(std::is_trivially_copyable_v<shape_t>, "convex_shape must be trivially copyable for device buffers");
  const hull& h = t.geometry;
  if (static_cast<int>(h.vertices.size()) > MaxVertices)
    throw std::invalid_argument("polyhedron '" + t.name + "': " + std::to_string(h.vertices.size()) +
                                " vertices, more than the shape's MaxVertices = " + std::to_string(MaxVertices));
  shape_t s{};
  s.n_vertices = static_cast<int>(h.vertices.size());
  s.n_faces = static_cast<int>(h.faces.size());
  s.bounding_radius = static_cast<Real>(t.bounding_radius);
  for (int i = 0; i < s.n_vertices; ++i) s.vertex[i] = vec3<Real>(h.vertices[i]);
  int k = 0;
  std::map<std::pair<int, int>, int> edge_index;  // (min, max) -> edge
  std::vector<std::pair<int, int>> edge_faces;
  for (int f = 0; f < s.n_faces; ++f) {
    s.face_normal[f] = vec3<Real>(h.normals[f]);
    s.face_offset[f] = static_cast<Real>(h.offsets[f]);
    s.face_begin[f] = static_cast<std::uint16_t>(k);
    const auto& fv = h.faces[f];
    for (std::size_t j = 0; j < fv.size(); ++j) {
      s.face_vertex[k++] = static_cast<std::uint8_t>(fv[j]);
      const int a = fv[j], b = fv[(j + 1) % fv.size()];
      const auto key = std::minmax(a, b);
      auto [it, fresh] = edge_index.insert({{key.first, key.second}, static_cast<int>(edge_faces.size())});
      if (fresh) edge_faces.push_back({f, -1});
      else edge_faces[it->second].second = f;
    }
  }
  s.face_begin[s.n_faces] = static_cast<std::uint16_t>(k);
  s.n_edges = static_cast<int>(edge_faces.size());
  for (const auto& [key, e] : edge_index) {
    s.edge[e][0] = static_cast<std::uint8_t>(key.first);
    s.edge[e][1] = static_cast<std::uint8_t>(key.second);
    s.edge_face[e][0] = static_cast<std::uint8_t>(edge_faces[e].first);
    s.edge_face[e][1] = static_cast<std::uint8_t>(edge_faces[e].second);
  }
  return s;
}

}  // namespace dem::shape::poly
