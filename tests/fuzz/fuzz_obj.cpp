// libFuzzer target: the OBJ reader, and a convex polyhedron made from what it read (the path a
// particle shape takes from a mesh file), and a boundary made from it. Any input must end in a result or a std::exception.
#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>

#include "dem/io/mesh.hpp"
#include "dem/shape/polyhedron/from_mesh.hpp"
#include "mesh_boundary.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const dem::io::surface_mesh m = dem::io::parse_obj(text, "fuzz.obj");
    fuzz_mesh_boundary(m);  // the mesh as a boundary (its own errors are caught inside)
    (void)dem::io::is_convex(m);
    (void)dem::shape::poly::make_polyhedron_template(m, {});
  } catch (const std::exception&) {
  }
  return 0;
}
