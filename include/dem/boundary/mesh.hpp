#pragma once
// Triangle meshes as boundaries (host side): from a file (OBJ, STL ASCII or binary, through the
// same readers convex polyhedra use, io/mesh.hpp) or from vertices and triangles, checked and
// prepared for contact:
//   - polygon faces are split into triangles (fans);
//   - a non-finite vertex, a triangle with a vertex index out of range, or a degenerate triangle
//     (zero area: repeated or collinear corners) is refused with its index;
//   - duplicate triangles (the same three corners, either orientation) are removed and reported;
//   - edges shared by more than two triangles (non-manifold) are accepted and reported: the contact
//     rule does not need a manifold, it compares what the triangles that share an edge report;
//   - each triangle gets the ids of its corners and edges (an edge id per corner pair), which the
//     contact rule compares.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "dem/io/mesh.hpp"
#include "dem/math/aabb.hpp"
#include "dem/math/vec3.hpp"

namespace dem::boundary {

struct triangle_mesh {
  std::vector<vec3d> vertices;
  std::vector<std::array<std::uint32_t, 3>> triangles;
  std::string name = "mesh";  // for messages (the file it came from)
  // Optional, one per triangle: the face of the designed surface it lies on. Triangles of
  // different faces never join one flat patch however close their normals (faceted.hpp gives each
  // facet of a curved side its own, so a shallow cone's side stays curved). Empty: the normals
  // alone decide. Code that appends triangles to a mesh with faces must name theirs (append_box
  // does); prepare refuses a list of the wrong length.
  std::vector<std::uint32_t> face;
};

struct prepared_mesh {
  std::vector<vec3d> vertices;
  std::vector<std::array<std::uint32_t, 3>> triangles;
  std::vector<std::array<std::uint32_t, 3>> edges;  // per triangle: ids of its edges a-b, b-c, c-a
  std::vector<std::uint32_t> edge_valence;          // triangles per edge
  std::vector<std::uint8_t> flat_edges;             // per triangle: bit k: edge k is shared with one coplanar triangle
  std::vector<std::uint8_t> flat_owner;             // per triangle: bit k: it owns seam k (the lower index of the two);
                                                    // bit 3 + k: it owns corner k (the lowest index among the coplanar triangles there)
  std::uint32_t duplicates_removed = 0;
  std::uint32_t non_manifold_edges = 0;
  std::uint32_t open_edges = 0;  // edges of one triangle only
  std::string name;
  std::string report() const {
    std::string s = "mesh '" + name + "': " + std::to_string(triangles.size()) + " triangles, " + std::to_string(vertices.size()) +
                    " vertices, " + std::to_string(edge_valence.size()) + " edges";
    if (duplicates_removed) s += "; " + std::to_string(duplicates_removed) + " duplicate triangle(s) removed";
    if (non_manifold_edges) s += "; " + std::to_string(non_manifold_edges) + " edge(s) shared by more than two triangles";
    if (open_edges) s += "; " + std::to_string(open_edges) + " open edge(s)";
    return s;
  }
};

// A mesh from a surface mesh read from a file (polygons split into fans).
inline triangle_mesh from_surface(const io::surface_mesh& m) {
  triangle_mesh t;
  t.vertices = m.vertices;
  t.name = m.source;
  for (const auto& f : m.faces)
    for (std::size_t k = 1; k + 1 < f.size(); ++k)
      t.triangles.push_back({static_cast<std::uint32_t>(f[0]), static_cast<std::uint32_t>(f[k]), static_cast<std::uint32_t>(f[k + 1])});
  return t;
}

// The surface of a box with centre c, unit axes u[0..2] and half extents h[0..2], as 12 triangles
// appended to m (its corners become 8 more vertices). Walls, lifter bars, blades.
inline void append_box(triangle_mesh& m, const vec3d& c, const vec3d (&u)[3], const vec3d& h) {
  const auto base = static_cast<std::uint32_t>(m.vertices.size());
  for (int k = 0; k < 8; ++k)
    m.vertices.push_back(c + u[0] * ((k & 1) ? h.x : -h.x) + u[1] * ((k & 2) ? h.y : -h.y) + u[2] * ((k & 4) ? h.z : -h.z));
  const std::uint32_t q[6][4] = {{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}};
  // Where m names faces (triangle_mesh::face), each side of the box is a new one.
  std::uint32_t next_face = m.face.empty() ? 0 : *std::max_element(m.face.begin(), m.face.end()) + 1;
  const bool named = !m.face.empty();
  for (const auto& f : q) {  // the first two triangles: the face at -h.z along u[2] (an axis-aligned box's floor)
    m.triangles.push_back({base + f[0], base + f[1], base + f[2]});
    m.triangles.push_back({base + f[0], base + f[2], base + f[3]});
    if (named) m.face.insert(m.face.end(), 2, next_face++);
  }
}

// An axis-aligned box's surface as a mesh of 12 triangles (triangles 0 and 1: its floor, z = lo.z).
inline triangle_mesh box_mesh(const aabb& b, const std::string& name = "box") {
  triangle_mesh m;
  m.name = name;
  const vec3d axes[3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  append_box(m, (b.lo + b.hi) * 0.5, axes, (b.hi - b.lo) * 0.5);
  return m;
}

// Reads OBJ or STL (by extension); errors name the file, the line and the problem.
inline triangle_mesh read_triangle_mesh(const std::string& path) { return from_surface(io::read_mesh(path)); }

inline prepared_mesh prepare(const triangle_mesh& m) {
  const std::string who = "dem: mesh '" + m.name + "'";
  if (m.triangles.empty()) throw std::invalid_argument(who + " has no triangles");
  for (std::size_t v = 0; v < m.vertices.size(); ++v)
    if (!all_finite(m.vertices[v])) throw std::invalid_argument(who + ": vertex " + std::to_string(v) + " is not finite");
  vec3d lo = m.vertices.empty() ? vec3d{0, 0, 0} : m.vertices[0], hi = lo;
  for (const vec3d& v : m.vertices)
    for (int a = 0; a < 3; ++a) {
      lo[a] = std::min(lo[a], v[a]);
      hi[a] = std::max(hi[a], v[a]);
    }
  const double size = norm(hi - lo);
  prepared_mesh p;
  p.name = m.name;
  p.vertices = m.vertices;
  if (!m.face.empty() && m.face.size() != m.triangles.size())
    throw std::invalid_argument(who + ": face has " + std::to_string(m.face.size()) + " entries for " + std::to_string(m.triangles.size()) +
                                " triangles (one per triangle, or none)");
  std::vector<std::uint32_t> face;  // of the kept triangles
  std::map<std::array<std::uint32_t, 3>, std::size_t> seen;
  for (std::size_t t = 0; t < m.triangles.size(); ++t) {
    const auto& tri = m.triangles[t];
    for (std::uint32_t v : tri)
      if (v >= m.vertices.size())
        throw std::invalid_argument(who + ": triangle " + std::to_string(t) + " names vertex " + std::to_string(v) + " of " +
                                    std::to_string(m.vertices.size()));
    const vec3d a = m.vertices[tri[0]], b = m.vertices[tri[1]], c = m.vertices[tri[2]];
    const double area2 = norm(cross(b - a, c - a));  // twice the area
    if (!(area2 > 1e-12 * size * size))
      throw std::invalid_argument(who + ": triangle " + std::to_string(t) + " is degenerate (area " + std::to_string(0.5 * area2) +
                                  " m^2: repeated or collinear corners " + std::to_string(tri[0]) + ", " + std::to_string(tri[1]) + ", " +
                                  std::to_string(tri[2]) + ")");
    std::array<std::uint32_t, 3> key = tri;
    std::sort(key.begin(), key.end());
    if (!seen.emplace(key, t).second) {
      ++p.duplicates_removed;
      continue;
    }
    p.triangles.push_back(tri);
    if (!m.face.empty()) face.push_back(m.face[t]);
  }
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint32_t> edge_id;
  p.edges.resize(p.triangles.size());
  for (std::size_t t = 0; t < p.triangles.size(); ++t)
    for (int k = 0; k < 3; ++k) {
      const std::uint32_t u = p.triangles[t][k], v = p.triangles[t][(k + 1) % 3];
      const auto key = std::minmax(u, v);
      auto [it, fresh] = edge_id.emplace(key, static_cast<std::uint32_t>(p.edge_valence.size()));
      if (fresh) p.edge_valence.push_back(0);
      ++p.edge_valence[it->second];
      p.edges[t][k] = it->second;
    }
  for (std::uint32_t n : p.edge_valence) {
    p.non_manifold_edges += n > 2;
    p.open_edges += n == 1;
  }
  // Seams of flat patches (bodies without probes see the plane across them, shape/polyhedron/
  // collide_polygon.hpp): an edge of exactly two triangles whose planes coincide (either orientation)
  // and, where the mesh names faces, of one face.
  std::vector<std::array<std::int64_t, 2>> sharing(p.edge_valence.size(), {-1, -1});
  for (std::size_t t = 0; t < p.triangles.size(); ++t)
    for (int k = 0; k < 3; ++k) {
      auto& s2 = sharing[p.edges[t][k]];
      (s2[0] < 0 ? s2[0] : s2[1]) = static_cast<std::int64_t>(t);
    }
  std::vector<vec3d> normal(p.triangles.size());  // unit, once per triangle
  for (std::size_t t = 0; t < p.triangles.size(); ++t) {
    const auto& tri = p.triangles[t];
    const vec3d n = cross(p.vertices[tri[1]] - p.vertices[tri[0]], p.vertices[tri[2]] - p.vertices[tri[0]]);
    normal[t] = n / norm(n);
  }
  // The face test first: around a cone's apex every side triangle meets every other.
  auto coplanar = [&](std::size_t t, std::size_t o) {
    return (face.empty() || face[t] == face[o]) && std::fabs(dot(normal[t], normal[o])) > 1 - 1e-9;
  };
  p.flat_edges.assign(p.triangles.size(), 0);
  p.flat_owner.assign(p.triangles.size(), 0);
  for (std::size_t t = 0; t < p.triangles.size(); ++t)
    for (int k = 0; k < 3; ++k) {
      const std::uint32_t e = p.edges[t][k];
      if (p.edge_valence[e] != 2) continue;
      const std::int64_t other = sharing[e][0] == static_cast<std::int64_t>(t) ? sharing[e][1] : sharing[e][0];
      if (other < 0) continue;
      if (coplanar(t, static_cast<std::size_t>(other))) {
        p.flat_edges[t] |= std::uint8_t(1u << k);
        if (static_cast<std::int64_t>(t) < other) p.flat_owner[t] |= std::uint8_t(1u << k);
      }
    }
  std::vector<std::vector<std::uint32_t>> around(p.vertices.size());
  for (std::size_t t = 0; t < p.triangles.size(); ++t)
    for (std::uint32_t v : p.triangles[t]) around[v].push_back(static_cast<std::uint32_t>(t));
  for (std::size_t t = 0; t < p.triangles.size(); ++t)
    for (int k = 0; k < 3; ++k) {
      bool lowest = true;
      for (std::uint32_t o : around[p.triangles[t][k]])
        if (o < t && coplanar(t, o)) lowest = false;
      if (lowest) p.flat_owner[t] |= std::uint8_t(8u << k);
    }
  return p;
}

}  // namespace dem::boundary
