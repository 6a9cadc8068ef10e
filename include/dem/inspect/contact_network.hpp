#pragma once
// inspect::contact_network: the contacts of a selection as they stood at the last evaluation —
// the two particles, the contact point, the normal, and the normal and tangential force on A —
// and its output as CSV and as VTU lines between the centres for ParaView (force chains: colour
// by normal_force_magnitude, Tube filter with the radius scaled by it).
//
// A contact is in the network when the law gave it a non-zero force, its contact point lies in the
// region and both particles pass the filter. Spheres: the normal is (x_A - x_B)/|x_A - x_B| and the
// point lies on it, r_B - overlap/2 from B's centre. Rigid bodies (clumps, polyhedra), whose pair
// force sums several contact points: the normal is the same centre-to-centre direction and the
// point the middle between the centres (an approximation; the force is exact).
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "dem/config.hpp"
#include "dem/inspect/contact_summary.hpp"
#include "dem/inspect/region.hpp"
#include "dem/io/vtk.hpp"  // io::detail::text_file (atomic text output), put_vec3_array
#include "dem/sim/particle_view.hpp"

namespace dem::inspect {

struct contact_network {
  double time = 0;
  // One entry per contact, ordered by (id_a, id_b); id_a < id_b.
  std::vector<std::uint32_t> id_a, id_b;
  std::vector<vec3d> centre_a, centre_b, point, normal;  // normal: unit, from B to A
  std::vector<vec3d> normal_force, tangential_force;     // on A (B gets the negatives)
  std::size_t size() const { return id_a.size(); }
};

namespace detail {

struct contact_record {
  std::uint32_t id_a, id_b;
  std::uint32_t keep;
  std::uint32_t pad;
  vec3d centre_a, centre_b, point, normal, force;
};

template <class P, class Region, class Filter>
struct contact_record_kernel {
  using Space = typename P::coord_space;
  using Real = typename P::real;
  sim::particle_view<Space> p;
  typename Space::params coord;
  const std::uint32_t* pair_a;
  const std::uint32_t* pair_b;
  sim::contact_results<Real> results;
  Region where;
  Filter filter;
  contact_record* out;
  DEM_HD void operator()(index_t c) const {
    const std::uint32_t a = pair_a[c], b = pair_b[c];
    const vec3d zero{0, 0, 0};
    contact_record r{p.id[a], p.id[b], 0, 0, zero, zero, zero, zero, zero};
    if (touching(results, c) && p.active[a] && p.active[b]) {
      r.centre_a = Space::to_world(coord, p.pos[a]);
      r.centre_b = Space::to_world(coord, p.pos[b]);
      const vec3d l(Space::difference(coord, p.pos[a], p.pos[b]));
      const double d = norm(l);
      r.normal = d > 0 ? l / d : zero;
      if constexpr (P::rigid) {
        r.point = r.centre_b + 0.5 * l;
      } else {
        const double ra = p.radius[a], rb = p.radius[b];
        r.point = r.centre_b + r.normal * (rb - 0.5 * (ra + rb - d));
      }
      r.force = vec3d(results.force[c]);
      r.keep = where.contains(r.point) && filter(state_of<P>(p, a, r.centre_a)) && filter(state_of<P>(p, b, r.centre_b));
    }
    out[c] = r;
  }
};

}  // namespace detail

// contact_network as CSV: id_a,id_b,x,y,z,nx,ny,nz,fn_x,fn_y,fn_z,ft_x,ft_y,ft_z,fn,ft (written atomically).
inline void write_contact_csv(const std::string& path, const contact_network& n) {
  io::detail::text_file out(path);
  out.put("id_a,id_b,x,y,z,nx,ny,nz,fn_x,fn_y,fn_z,ft_x,ft_y,ft_z,fn,ft\n");
  for (std::size_t k = 0; k < n.size(); ++k) {
    out.put_uint(n.id_a[k]).put(',').put_uint(n.id_b[k]);
    for (const vec3d* v : {&n.point[k], &n.normal[k], &n.normal_force[k], &n.tangential_force[k]})
      for (int j = 0; j < 3; ++j) out.put(',').put_real((*v)[j]);
    out.put(',').put_real(norm(n.normal_force[k])).put(',').put_real(norm(n.tangential_force[k])).put('\n');
  }
  out.close();
}

// contact_network as a .vtu of lines (VTK_LINE) from centre A to centre B, with CellData id_a, id_b,
// normal_force, tangential_force (vectors, on A) and their magnitudes; FieldData TimeValue.
inline void write_contact_vtu(const std::string& path, const contact_network& n) {
  const std::size_t m = n.size();
  io::detail::text_file out(path);
  out.put("<?xml version=\"1.0\"?>\n"
          "<VTKFile type=\"UnstructuredGrid\" version=\"0.1\" byte_order=\"LittleEndian\" header_type=\"UInt64\">\n"
          "  <UnstructuredGrid>\n"
          "    <FieldData>\n"
          "      <DataArray type=\"Float64\" Name=\"TimeValue\" NumberOfTuples=\"1\" format=\"ascii\">");
  out.put_real(n.time).put("</DataArray>\n    </FieldData>\n");
  out.put("    <Piece NumberOfPoints=\"").put_uint(2 * m).put("\" NumberOfCells=\"").put_uint(m).put("\">\n");
  out.put("      <CellData Scalars=\"normal_force_magnitude\" Vectors=\"normal_force\">\n");
  for (const auto* ids : {&n.id_a, &n.id_b}) {
    out.put(ids == &n.id_a ? "        <DataArray type=\"UInt32\" Name=\"id_a\" format=\"ascii\">\n"
                           : "        <DataArray type=\"UInt32\" Name=\"id_b\" format=\"ascii\">\n");
    for (std::size_t k = 0; k < m; ++k) out.put("          ").put_uint((*ids)[k]).put('\n');
    out.put("        </DataArray>\n");
  }
  io::detail::put_vec3_array(out, "normal_force", n.normal_force);
  io::detail::put_vec3_array(out, "tangential_force", n.tangential_force);
  for (const auto* f : {&n.normal_force, &n.tangential_force}) {
    out.put(f == &n.normal_force ? "        <DataArray type=\"Float64\" Name=\"normal_force_magnitude\" format=\"ascii\">\n"
                                 : "        <DataArray type=\"Float64\" Name=\"tangential_force_magnitude\" format=\"ascii\">\n");
    for (std::size_t k = 0; k < m; ++k) out.put("          ").put_real(norm((*f)[k])).put('\n');
    out.put("        </DataArray>\n");
  }
  out.put("      </CellData>\n      <Points>\n");
  std::vector<vec3d> points;
  points.reserve(2 * m);
  for (std::size_t k = 0; k < m; ++k) {
    points.push_back(n.centre_a[k]);
    points.push_back(n.centre_b[k]);
  }
  io::detail::put_vec3_array(out, nullptr, points);
  out.put("      </Points>\n      <Cells>\n        <DataArray type=\"Int64\" Name=\"connectivity\" format=\"ascii\">\n");
  for (std::size_t k = 0; k < m; ++k) out.put("          ").put_uint(2 * k).put(' ').put_uint(2 * k + 1).put('\n');
  out.put("        </DataArray>\n        <DataArray type=\"Int64\" Name=\"offsets\" format=\"ascii\">\n");
  for (std::size_t k = 0; k < m; ++k) out.put("          ").put_uint(2 * (k + 1)).put('\n');
  out.put("        </DataArray>\n        <DataArray type=\"UInt8\" Name=\"types\" format=\"ascii\">\n");
  for (std::size_t k = 0; k < m; ++k) out.put("          3\n");
  out.put("        </DataArray>\n      </Cells>\n    </Piece>\n  </UnstructuredGrid>\n</VTKFile>\n");
  out.close();
}

}  // namespace dem::inspect
