#pragma once
// Surface meshes from files (host): Wavefront OBJ (`v` and `f` lines, polygon faces, negative
// indices, `v/vt/vn` index forms; other records ignored) and STL (ASCII and binary; triangles are
// welded at identical coordinates, since STL stores every triangle's corners separately). Errors
// name the file, and for text formats the line, and the problem.
//
// `is_convex` tells whether a mesh bounds a convex body: every face plane has all the mesh's
// vertices on one side. Particle shapes are made from meshes in shape/polyhedron/from_mesh.hpp.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "dem/math/vec3.hpp"

namespace dem::io {

struct surface_mesh {
  std::vector<vec3d> vertices;
  std::vector<std::vector<int>> faces;  // 0-based vertex indices
  std::string source;                   // the file it came from, for messages
};

namespace detail {

[[noreturn]] inline void mesh_error(const std::string& path, std::size_t line, const std::string& problem) {
  throw std::invalid_argument("mesh file '" + path + "'" + (line ? ", line " + std::to_string(line) : std::string()) +
                              ": " + problem);
}

inline std::string read_file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) mesh_error(path, 0, "cannot be opened for reading");
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

inline double parse_number(const std::string& tok, const std::string& path, std::size_t line) {
  try {
    std::size_t used = 0;
    const double x = std::stod(tok, &used);
    if (used == tok.size() && std::isfinite(x)) return x;
  } catch (const std::exception&) {
  }
  mesh_error(path, line, "'" + tok + "' is not a finite number");
}

// Welds identical corners of an STL triangle soup into shared vertices.
struct welder {
  std::map<std::tuple<double, double, double>, int> index;
  surface_mesh* mesh;
  int operator()(const vec3d& p) {
    auto [it, fresh] = index.insert({{p.x, p.y, p.z}, static_cast<int>(mesh->vertices.size())});
    if (fresh) mesh->vertices.push_back(p);
    return it->second;
  }
};

}  // namespace detail

// OBJ text; `path` names it in messages (and in surface_mesh::source).
inline surface_mesh parse_obj(const std::string& text, const std::string& path) {
  surface_mesh m;
  m.source = path;
  std::istringstream lines(text);
  std::string line;
  std::size_t number = 0;
  struct pending { std::vector<long> idx; std::size_t line; };
  std::vector<pending> faces;
  while (std::getline(lines, line)) {
    ++number;
    if (const auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    std::istringstream in(line);
    std::string key;
    if (!(in >> key)) continue;
    if (key == "v") {
      std::string t[3];
      if (!(in >> t[0] >> t[1] >> t[2])) detail::mesh_error(path, number, "a 'v' line needs three coordinates");
      m.vertices.push_back({detail::parse_number(t[0], path, number), detail::parse_number(t[1], path, number),
                            detail::parse_number(t[2], path, number)});
    } else if (key == "f") {
      pending f{{}, number};
      std::string tok;
      while (in >> tok) {
        const std::string first = tok.substr(0, tok.find('/'));  // v, v/vt, v//vn, v/vt/vn
        long i = 0;
        try {
          std::size_t used = 0;
          i = std::stol(first, &used);
          if (used != first.size()) throw std::invalid_argument("trailing");
        } catch (const std::exception&) {
          detail::mesh_error(path, number, "'" + tok + "' is not a vertex index");
        }
        if (i == 0) detail::mesh_error(path, number, "vertex index 0 (OBJ indices start at 1, or count back from -1)");
        // Negative indices count back from the last vertex defined so far.
        if (i < 0) i += static_cast<long>(m.vertices.size()) + 1;
        f.idx.push_back(i - 1);
      }
      if (f.idx.size() < 3) detail::mesh_error(path, number, "a face needs at least 3 vertices, got " + std::to_string(f.idx.size()));
      faces.push_back(std::move(f));
    }  // vt, vn, o, g, s, usemtl, mtllib...: not geometry of a rigid shape
  }
  for (const auto& f : faces) {
    std::vector<int> face;
    for (const long i : f.idx) {
      if (i < 0 || i >= static_cast<long>(m.vertices.size()))
        detail::mesh_error(path, f.line, "vertex index " + std::to_string(i + 1) + " is out of range (the file has " +
                                             std::to_string(m.vertices.size()) + " vertices)");
      face.push_back(static_cast<int>(i));
    }
    m.faces.push_back(std::move(face));
  }
  if (m.faces.empty()) detail::mesh_error(path, 0, "no faces ('f' lines) found");
  return m;
}

inline surface_mesh read_obj(const std::string& path) { return parse_obj(detail::read_file_bytes(path), path); }

// STL bytes (binary or ASCII); `path` names them in messages.
inline surface_mesh parse_stl(const std::string& bytes, const std::string& path) {
  surface_mesh m;
  m.source = path;
  detail::welder weld{{}, &m};
  // Binary STL: 80-byte header, uint32 count, 50 bytes per triangle. The size decides: binary files
  // may also begin with "solid".
  if (bytes.size() >= 84) {
    std::uint32_t count = 0;
    std::memcpy(&count, bytes.data() + 80, 4);
    if (bytes.size() == 84 + 50ull * count) {
      for (std::uint32_t t = 0; t < count; ++t) {
        const char* rec = bytes.data() + 84 + 50ull * t;
        std::vector<int> face;
        for (int c = 0; c < 3; ++c) {
          float xyz[3];
          std::memcpy(xyz, rec + 12 + 12 * c, 12);  // after the 12-byte normal
          const vec3d p{xyz[0], xyz[1], xyz[2]};
          if (!all_finite(p)) detail::mesh_error(path, 0, "triangle " + std::to_string(t) + " has a non-finite coordinate");
          face.push_back(weld(p));
        }
        m.faces.push_back(std::move(face));
      }
      if (m.faces.empty()) detail::mesh_error(path, 0, "binary STL with no triangles");
      return m;
    }
  }
  std::istringstream lines(bytes);
  std::string line;
  std::size_t number = 0;
  std::vector<int> face;
  bool solid = false;
  while (std::getline(lines, line)) {
    ++number;
    std::istringstream in(line);
    std::string key;
    if (!(in >> key)) continue;
    if (key == "solid") solid = true;
    else if (!solid) detail::mesh_error(path, number, "neither a binary STL (size does not match its triangle count) nor an ASCII STL (no 'solid' line)");
    else if (key == "vertex") {
      std::string t[3];
      if (!(in >> t[0] >> t[1] >> t[2])) detail::mesh_error(path, number, "a 'vertex' line needs three coordinates");
      face.push_back(weld({detail::parse_number(t[0], path, number), detail::parse_number(t[1], path, number),
                           detail::parse_number(t[2], path, number)}));
    } else if (key == "endloop") {
      if (face.size() < 3) detail::mesh_error(path, number, "a facet needs at least 3 vertices, got " + std::to_string(face.size()));
      m.faces.push_back(face);
      face.clear();
    }
  }
  if (m.faces.empty()) detail::mesh_error(path, 0, solid ? "no facets found" : "empty file");
  return m;
}

inline surface_mesh read_stl(const std::string& path) { return parse_stl(detail::read_file_bytes(path), path); }

// By extension (.obj, .stl; case-insensitive).
inline surface_mesh read_mesh(const std::string& path) {
  std::string ext = path.substr(path.find_last_of('.') == std::string::npos ? path.size() : path.find_last_of('.'));
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (ext == ".obj") return read_obj(path);
  if (ext == ".stl") return read_stl(path);
  detail::mesh_error(path, 0, "unknown mesh format '" + ext + "' (expected .obj or .stl)");
}

// True when every face plane has all vertices used by faces on one side (within 1e-9 of the mesh's
// size): the mesh bounds a convex body. Orientation of the faces does not matter.
inline bool is_convex(const surface_mesh& m) {
  std::vector<char> used(m.vertices.size(), 0);
  for (const auto& f : m.faces)
    for (const int i : f) used[i] = 1;
  vec3d lo{1e300, 1e300, 1e300}, hi{-1e300, -1e300, -1e300};
  for (std::size_t i = 0; i < m.vertices.size(); ++i)
    if (used[i])
      for (int k = 0; k < 3; ++k) lo[k] = std::min(lo[k], m.vertices[i][k]), hi[k] = std::max(hi[k], m.vertices[i][k]);
  const double tol = 1e-9 * norm(hi - lo);
  for (const auto& f : m.faces) {
    vec3d n{0, 0, 0};  // Newell's normal: robust for any planar polygon
    for (std::size_t k = 0; k < f.size(); ++k) {
      const vec3d a = m.vertices[f[k]], b = m.vertices[f[(k + 1) % f.size()]];
      n += vec3d{(a.y - b.y) * (a.z + b.z), (a.z - b.z) * (a.x + b.x), (a.x - b.x) * (a.y + b.y)};
    }
    const double len = norm(n);
    if (len == 0) continue;  // a degenerate face constrains nothing
    n = n / len;
    const double off = dot(n, m.vertices[f[0]]);
    bool above = false, below = false;
    for (std::size_t i = 0; i < m.vertices.size(); ++i) {
      if (!used[i]) continue;
      const double s = dot(n, m.vertices[i]) - off;
      above |= s > tol;
      below |= s < -tol;
    }
    if (above && below) return false;
  }
  return true;
}

}  // namespace dem::io
