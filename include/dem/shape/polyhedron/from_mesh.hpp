#pragma once
// A polyhedral particle type from an OBJ or STL file (host). A non-convex mesh is an error naming the
// file, unless the caller asks for its convex hull: silently replacing a concave body by its hull
// would change its volume, inertia and contacts without telling anyone.
#include <stdexcept>
#include <string>
#include <string_view>

#include "dem/io/mesh.hpp"
#include "dem/shape/polyhedron/polyhedron.hpp"

namespace dem::shape::poly {

struct mesh_options {
  std::string name;                // the shape's name in messages; the file name when empty
  bool allow_convex_hull = false;  // a non-convex mesh: use its convex hull instead of refusing it
  int max_vertices = 32;           // the MaxVertices of the convex_shape it will become
};

inline polyhedron_template make_polyhedron_template(const io::surface_mesh& mesh, const mesh_options& opt = {}) {
  const std::string name = opt.name.empty() ? mesh.source : opt.name;
  if (!opt.allow_convex_hull && !io::is_convex(mesh))
    throw std::invalid_argument("polyhedron '" + name + "': the mesh in '" + mesh.source +
                                "' is not convex (pass allow_convex_hull = true to use its convex hull)");
  // Only vertices that faces use: stray points of a file are not part of the body.
  std::vector<char> used(mesh.vertices.size(), 0);
  for (const auto& f : mesh.faces)
    for (const int i : f) used[i] = 1;
  std::vector<vec3d> points;
  for (std::size_t i = 0; i < mesh.vertices.size(); ++i)
    if (used[i]) points.push_back(mesh.vertices[i]);
  return make_polyhedron_template(points, name, opt.max_vertices);
}

inline polyhedron_template load_polyhedron_template(const std::string& path, const mesh_options& opt = {}) {
  return make_polyhedron_template(io::read_mesh(path), opt);
}

}  // namespace dem::shape::poly
