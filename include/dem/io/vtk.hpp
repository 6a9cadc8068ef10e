#pragma once
// VTK XML output for ParaView/VisIt: one UnstructuredGrid (.vtu) per frame, one VTK_VERTEX cell per
// particle, and a .pvd collection that gives every frame its simulation time.
//
// ASCII format, numbers with 17 significant digits: readable and diffable, exact on reading back,
// and free of the base64/compression/header_type details of the binary variants.
// In ParaView: open the .pvd, apply Glyph (Sphere), Scale Array = radius, scale factor 2.
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

// A time series: <directory>/<base>_000000.vtu, _000001.vtu, ... and <directory>/<base>.pvd, which is
// rewritten after every frame so that a run stopped at any point leaves a complete, openable series.
class vtk_series {
 public:
  explicit vtk_series(std::string directory, std::string base = "particles")
      : dir_(std::move(directory)), base_(std::move(base)) {
    std::error_code ec;
    std::filesystem::create_directories(dir_, ec);
    if (ec)
      throw std::runtime_error("dem::io::vtk_series: cannot create directory '" + dir_.string() + "': " + ec.message());
  }

  // Writes the next frame and the updated .pvd; returns the .vtu path.
  std::string write(const snapshot& s) {
    char name[32];
    std::snprintf(name, sizeof name, "_%06zu.vtu", times_.size());
    const std::string file = base_ + name;
    const std::string path = (dir_ / file).string();
    write_vtu(path, s);
    times_.push_back(s.time);
    files_.push_back(file);
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
    }
    out.put("  </Collection>\n</VTKFile>\n");
    out.close();
  }

  std::filesystem::path dir_;
  std::string base_;
  std::vector<double> times_;
  std::vector<std::string> files_;  // relative to dir_, as the .pvd lists them
};

}  // namespace dem::io
