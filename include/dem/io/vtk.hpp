#pragma once
// VTK XML output for ParaView/VisIt: one UnstructuredGrid (.vtu) per frame, one VTK_VERTEX cell per
// particle, and a .pvd collection that gives every frame its simulation time.
//
// ASCII format, numbers with 17 significant digits: readable and diffable, exact on reading back,
// and free of the base64/compression/header_type details of the binary variants.
// In ParaView: open the .pvd, apply Glyph (Sphere), Scale Array = radius, scale factor 2.
#include <array>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "dem/io/csv.hpp"  // detail::text_file, detail::check_snapshot
#include "dem/io/snapshot.hpp"

namespace dem::io {

namespace detail {

// Escapes the characters that may not appear raw in an XML attribute value.
inline std::string xml_attribute(std::string_view s) {
  std::string r;
  for (const char c : s) {
    switch (c) {
      case '&': r += "&amp;"; break;
      case '<': r += "&lt;"; break;
      case '>': r += "&gt;"; break;
      case '"': r += "&quot;"; break;
      default: r += c;
    }
  }
  return r;
}

inline void put_vec3_array(text_file& out, const char* name, const std::vector<vec3d>& v) {
  out.put("        <DataArray type=\"Float64\"");
  if (name) out.put(" Name=\"").put(name).put('"');
  out.put(" NumberOfComponents=\"3\" format=\"ascii\">\n");
  for (const vec3d& p : v) out.put("          ").put_real(p.x).put(' ').put_real(p.y).put(' ').put_real(p.z).put('\n');
  out.put("        </DataArray>\n");
}

}  // namespace detail

// One .vtu file holding the snapshot: Points = positions, PointData = id, radius, velocity,
// angular_velocity, active; FieldData TimeValue = s.time (ParaView shows it for a lone file).
inline void write_vtu(const std::string& path, const snapshot& s) {
  detail::check_snapshot(s, "dem::io::write_vtu");
  const std::size_t n = s.size();
  detail::text_file out(path);
  out.put("<?xml version=\"1.0\"?>\n"
          "<VTKFile type=\"UnstructuredGrid\" version=\"0.1\" byte_order=\"LittleEndian\" header_type=\"UInt64\">\n"
          "  <UnstructuredGrid>\n"
          "    <FieldData>\n"
          "      <DataArray type=\"Float64\" Name=\"TimeValue\" NumberOfTuples=\"1\" format=\"ascii\">");
  out.put_real(s.time).put("</DataArray>\n    </FieldData>\n");
  out.put("    <Piece NumberOfPoints=\"").put_uint(n).put("\" NumberOfCells=\"").put_uint(n).put("\">\n");

  // Scalars/Vectors name the default arrays, so Glyph picks radius and velocity without being told.
  out.put("      <PointData Scalars=\"radius\" Vectors=\"velocity\">\n");
  out.put("        <DataArray type=\"UInt32\" Name=\"id\" format=\"ascii\">\n");
  for (std::size_t i = 0; i < n; ++i) out.put("          ").put_uint(s.id[i]).put('\n');
  out.put("        </DataArray>\n");
  out.put("        <DataArray type=\"Float64\" Name=\"radius\" format=\"ascii\">\n");
  for (std::size_t i = 0; i < n; ++i) out.put("          ").put_real(s.radius[i]).put('\n');
  out.put("        </DataArray>\n");
  detail::put_vec3_array(out, "velocity", s.velocity);
  detail::put_vec3_array(out, "angular_velocity", s.angular_velocity);
  out.put("        <DataArray type=\"UInt8\" Name=\"active\" format=\"ascii\">\n");
  for (std::size_t i = 0; i < n; ++i) out.put("          ").put_uint(s.active[i] ? 1 : 0).put('\n');
  out.put("        </DataArray>\n");
  out.put("      </PointData>\n      <CellData>\n      </CellData>\n");

  out.put("      <Points>\n");
  detail::put_vec3_array(out, nullptr, s.position);
  out.put("      </Points>\n");

  // Cell i is the vertex made of point i: connectivity i, offset (end index) i + 1, type 1.
  out.put("      <Cells>\n        <DataArray type=\"Int64\" Name=\"connectivity\" format=\"ascii\">\n");
  for (std::size_t i = 0; i < n; ++i) out.put("          ").put_uint(i).put('\n');
  out.put("        </DataArray>\n        <DataArray type=\"Int64\" Name=\"offsets\" format=\"ascii\">\n");
  for (std::size_t i = 0; i < n; ++i) out.put("          ").put_uint(i + 1).put('\n');
  out.put("        </DataArray>\n        <DataArray type=\"UInt8\" Name=\"types\" format=\"ascii\">\n");
  for (std::size_t i = 0; i < n; ++i) out.put("          1\n");
  out.put("        </DataArray>\n      </Cells>\n");
  out.put("    </Piece>\n  </UnstructuredGrid>\n</VTKFile>\n");
  out.close();
}

// Boundary surfaces (or any triangles) at one time, for ParaView: points, triangles, and per
// triangle its boundary, its element and the force on it (a mesh's pressure map).
struct surface {
  double time = 0;
  std::vector<vec3d> points;
  std::vector<std::array<std::uint32_t, 3>> triangles;
  std::vector<std::uint32_t> boundary, element;  // per triangle
  std::vector<vec3d> force;                      // per triangle (zero where not known)
};

// One .vtu of triangles (VTK_TRIANGLE cells) with CellData boundary, element, force.
inline void write_surface_vtu(const std::string& path, const surface& s) {
  const std::size_t n = s.points.size(), t = s.triangles.size();
  if (s.boundary.size() != t || s.element.size() != t || s.force.size() != t)
    throw std::invalid_argument("dem::io::write_surface_vtu: the per-triangle arrays must have one entry per triangle (" + std::to_string(t) + ")");
  for (const auto& tri : s.triangles)
    for (std::uint32_t v : tri)
      if (v >= n) throw std::invalid_argument("dem::io::write_surface_vtu: a triangle names point " + std::to_string(v) + " of " + std::to_string(n));
  detail::text_file out(path);
  out.put("<?xml version=\"1.0\"?>\n"
          "<VTKFile type=\"UnstructuredGrid\" version=\"0.1\" byte_order=\"LittleEndian\" header_type=\"UInt64\">\n"
          "  <UnstructuredGrid>\n"
          "    <FieldData>\n"
          "      <DataArray type=\"Float64\" Name=\"TimeValue\" NumberOfTuples=\"1\" format=\"ascii\">");
  out.put_real(s.time).put("</DataArray>\n    </FieldData>\n");
  out.put("    <Piece NumberOfPoints=\"").put_uint(n).put("\" NumberOfCells=\"").put_uint(t).put("\">\n");
  out.put("      <PointData>\n      </PointData>\n      <CellData Scalars=\"boundary\" Vectors=\"force\">\n");
  out.put("        <DataArray type=\"UInt32\" Name=\"boundary\" format=\"ascii\">\n");
  for (std::size_t k = 0; k < t; ++k) out.put("          ").put_uint(s.boundary[k]).put('\n');
  out.put("        </DataArray>\n        <DataArray type=\"UInt32\" Name=\"element\" format=\"ascii\">\n");
  for (std::size_t k = 0; k < t; ++k) out.put("          ").put_uint(s.element[k]).put('\n');
  out.put("        </DataArray>\n");
  detail::put_vec3_array(out, "force", s.force);
  out.put("      </CellData>\n      <Points>\n");
  detail::put_vec3_array(out, nullptr, s.points);
  out.put("      </Points>\n      <Cells>\n        <DataArray type=\"Int64\" Name=\"connectivity\" format=\"ascii\">\n");
  for (const auto& tri : s.triangles) out.put("          ").put_uint(tri[0]).put(' ').put_uint(tri[1]).put(' ').put_uint(tri[2]).put('\n');
  out.put("        </DataArray>\n        <DataArray type=\"Int64\" Name=\"offsets\" format=\"ascii\">\n");
  for (std::size_t k = 0; k < t; ++k) out.put("          ").put_uint(3 * (k + 1)).put('\n');
  out.put("        </DataArray>\n        <DataArray type=\"UInt8\" Name=\"types\" format=\"ascii\">\n");
  for (std::size_t k = 0; k < t; ++k) out.put("          5\n");
  out.put("        </DataArray>\n      </Cells>\n    </Piece>\n  </UnstructuredGrid>\n</VTKFile>\n");
  out.close();
}

// A time series: <directory>/<base>_000000.vtu, _000001.vtu, ... and <directory>/<base>.pvd, which is
// rewritten after every frame so that a run stopped at any point leaves a complete, openable series.
// With boundaries, each frame also writes <directory>/boundaries_000000.vtu, ... as part 1 of the
// same time step (ParaView opens the .pvd as two blocks: particles and boundaries, moving together).
class vtk_series {
 public:
  explicit vtk_series(std::string directory, std::string base = "particles")
      : dir_(std::move(directory)), base_(std::move(base)) {
    std::error_code ec;
    std::filesystem::create_directories(dir_, ec);
    if (ec)
      throw std::runtime_error("dem::io::vtk_series: cannot create directory '" + dir_.string() + "': " + ec.message());
  }

  // Writes the next frame (and the boundaries' surface, when given) and the updated .pvd; returns
  // the particles' .vtu path.
  std::string write(const snapshot& s, const surface* boundaries = nullptr) {
    char name[32];
    std::snprintf(name, sizeof name, "_%06zu.vtu", times_.size());
    const std::string file = base_ + name;
    const std::string path = (dir_ / file).string();
    write_vtu(path, s);
    std::string surface_file;
    if (boundaries) {
      surface_file = std::string("boundaries") + name;
      write_surface_vtu((dir_ / surface_file).string(), *boundaries);
    }
    times_.push_back(s.time);
    files_.push_back(file);
    surface_files_.push_back(surface_file);
    write_pvd();
    return path;
  }

  std::size_t frames() const { return files_.size(); }
  std::string pvd_path() const { return (dir_ / (base_ + ".pvd")).string(); }

 private:
  // Written beside the target and renamed over it (text_file): a viewer reloading the .pvd mid-run
  // never sees a half-written file.
  void write_pvd() const {
    detail::text_file out(pvd_path());
    out.put("<?xml version=\"1.0\"?>\n"
            "<VTKFile type=\"Collection\" version=\"0.1\" byte_order=\"LittleEndian\">\n"
            "  <Collection>\n");
    for (std::size_t i = 0; i < files_.size(); ++i) {
      out.put("    <DataSet timestep=\"").put_real(times_[i]).put("\" group=\"\" part=\"0\" file=\"");
      out.put(detail::xml_attribute(files_[i])).put("\"/>\n");
      if (!surface_files_[i].empty()) {
        out.put("    <DataSet timestep=\"").put_real(times_[i]).put("\" group=\"\" part=\"1\" file=\"");
        out.put(detail::xml_attribute(surface_files_[i])).put("\"/>\n");
      }
    }
    out.put("  </Collection>\n</VTKFile>\n");
    out.close();
  }

  std::filesystem::path dir_;
  std::string base_;
  std::vector<double> times_;
  std::vector<std::string> files_;          // relative to dir_, as the .pvd lists them
  std::vector<std::string> surface_files_;  // "" where the frame has none
};

}  // namespace dem::io
