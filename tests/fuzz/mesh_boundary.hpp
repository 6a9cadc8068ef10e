#pragma once
// The path a mesh file takes to become a boundary (docs/boundaries.md): checked, prepared, its
// hierarchy built, and queried around its box. Shared by the OBJ and STL fuzz targets.
#include <exception>

#include "dem/backend/host.hpp"
#include "dem/boundary/boundary_set.hpp"
#include "dem/io/mesh.hpp"
#include "dem/sim/particle_view.hpp"

inline void fuzz_mesh_boundary(const dem::io::surface_mesh& m) {
  try {
    using set = dem::boundary::boundary_set<float, dem::backend::host, dem::sim::slot_histories<dem::force::no_history, 1>>;
    set s;
    const std::uint32_t b = s.add_mesh(dem::boundary::from_surface(m), 0, "fuzz");
    const dem::boundary::description& d = s[b];
    const dem::boundary::boundary_view<float> v = s.view();
    // Points at the box's corners and centre: every query walks the hierarchy.
    for (int c = 0; c < 9; ++c) {
      const dem::vec3d p = c == 8 ? (d.box_lo + d.box_hi) * 0.5
                                  : dem::vec3d{(c & 1) ? d.box_hi.x : d.box_lo.x, (c & 2) ? d.box_hi.y : d.box_lo.y, (c & 4) ? d.box_hi.z : d.box_lo.z};
      const dem::vec3f x(p);
      const float reach = static_cast<float>(0.1 * dem::norm(d.box_hi - d.box_lo)) + 1e-6f;
      dem::boundary::query_bvh(v.nodes, v.meshes[0].root, v.items, x, reach, [&](std::uint32_t t) {
        (void)dem::boundary::closest(v.elements[t], x);
      });
    }
  } catch (const std::exception&) {
  }
}
