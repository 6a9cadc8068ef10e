// CSV and VTK writers: exact CSV round trip, well-formed .vtu/.pvd text, and errors that name the
// path (and the line, for malformed CSV). tests/io/read_back.py checks the files with real VTK readers.
#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>

#include "dem/io/csv.hpp"
#include "dem/io/vtk.hpp"

namespace io_writers_test {

namespace fs = std::filesystem;
using dem::io::snapshot;
using dem::vec3d;

// A fresh directory under the system temp dir, removed again at the end of the test case.
struct temp_dir {
  fs::path path;
  temp_dir() {
    std::random_device rd;
    path = fs::temp_directory_path() / ("dem_io_test_" + std::to_string(rd()) + std::to_string(rd()));
    fs::create_directories(path);
  }
  ~temp_dir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  std::string operator/(const std::string& name) const { return (path / name).string(); }
};

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
  return n;
}

// Negative coordinates, an inactive particle, extreme magnitudes (incl. a subnormal and -0.0),
// and values such as 0.1 whose shortest decimal form is not exact.
snapshot sample() {
  snapshot s;
  s.time = 0.012345678901234567;
  s.step = 42;
  s.id = {0, 1, 7, 4294967295u};
  s.position = {{0.1, -0.2, 0.3}, {-1e-300, 1e300, -0.0}, {1.0 / 3.0, -2.0 / 3.0, 12345.678901234567}, {0, 0, 0}};
  s.velocity = {{1, 2, 3}, {-4.5e-7, 5e-324, -1.7976931348623157e308}, {0, 0, 0}, {-0.1, -0.2, -0.3}};
  s.angular_velocity = {{0, 0, 1e-12}, {3.14159265358979, -2.718281828459045, 0}, {1, 1, 1}, {-9e9, 0, 9e-9}};
  s.radius = {1e-3, 2.5e-6, 0.7, 1e-3 / 3};
  s.active = {1, 0, 1, 1};
  return s;
}

bool same_bits(double a, double b) { return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b); }
bool same_bits(const vec3d& a, const vec3d& b) {
  return same_bits(a.x, b.x) && same_bits(a.y, b.y) && same_bits(a.z, b.z);
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

// Message of the std::runtime_error thrown by f, or "" when nothing is thrown.
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

TEST_CASE("write_csv / read_csv round trip is exact") {
  temp_dir dir;
  const snapshot s = sample();
  const std::string path = dir / "state.csv";
  dem::io::write_csv(path, s);

  const std::string text = slurp(path);
  CHECK(text.rfind("id,x,y,z,vx,vy,vz,wx,wy,wz,radius,active\n", 0) == 0);
  CHECK(count(text, "\n") == s.size() + 1);

  const snapshot r = dem::io::read_csv(path);
  REQUIRE(r.size() == s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    CAPTURE(i);
    CHECK(r.id[i] == s.id[i]);
    CHECK(same_bits(r.position[i], s.position[i]));
    CHECK(same_bits(r.velocity[i], s.velocity[i]));
    CHECK(same_bits(r.angular_velocity[i], s.angular_velocity[i]));
    CHECK(same_bits(r.radius[i], s.radius[i]));
    CHECK(r.active[i] == s.active[i]);
  }
  CHECK(std::signbit(r.position[1].z));  // -0.0 survives
}

TEST_CASE("write_csv of an empty snapshot is just the header and reads back empty") {
  temp_dir dir;
  dem::io::write_csv(dir / "empty.csv", snapshot{});
  CHECK(slurp(dir / "empty.csv") == "id,x,y,z,vx,vy,vz,wx,wy,wz,radius,active\n");
  CHECK(dem::io::read_csv(dir / "empty.csv").size() == 0);
}

TEST_CASE("write_vtu writes a VTK XML UnstructuredGrid with one vertex per particle") {
  temp_dir dir;
  const snapshot s = sample();
  const std::string path = dir / "frame.vtu";
  dem::io::write_vtu(path, s);
  const std::string t = slurp(path);

  CHECK(t.rfind("<?xml version=\"1.0\"?>\n<VTKFile type=\"UnstructuredGrid\" version=\"0.1\"", 0) == 0);
  CHECK(t.find("byte_order=\"LittleEndian\"") != std::string::npos);
  CHECK(t.find("<Piece NumberOfPoints=\"4\" NumberOfCells=\"4\">") != std::string::npos);
  CHECK(t.find("<DataArray type=\"UInt32\" Name=\"id\"") != std::string::npos);
  CHECK(t.find("<DataArray type=\"Float64\" Name=\"radius\"") != std::string::npos);
  CHECK(t.find("<DataArray type=\"Float64\" Name=\"velocity\" NumberOfComponents=\"3\"") != std::string::npos);
  CHECK(t.find("<DataArray type=\"Float64\" Name=\"angular_velocity\" NumberOfComponents=\"3\"") != std::string::npos);
  CHECK(t.find("<DataArray type=\"UInt8\" Name=\"active\"") != std::string::npos);
  CHECK(t.find("Name=\"connectivity\"") != std::string::npos);
  CHECK(t.find("Name=\"offsets\"") != std::string::npos);
  CHECK(t.find("Name=\"types\"") != std::string::npos);
  CHECK(t.find("Name=\"TimeValue\"") != std::string::npos);
  CHECK(t.find("4294967295") != std::string::npos);
  CHECK(t.find("12345.678901234567") != std::string::npos);  // 17 significant digits
  // Every opened element is closed.
  CHECK(count(t, "<DataArray ") == count(t, "</DataArray>"));
  CHECK(t.size() >= 11);
  CHECK(t.substr(t.size() - 11) == "</VTKFile>\n");
}

TEST_CASE("vtk_series writes numbered frames and a .pvd listing all of them") {
  temp_dir dir;
  const std::string out = dir / "nested/series";  // created by vtk_series
  dem::io::vtk_series series(out, "grains");
  CHECK(series.frames() == 0);
  snapshot s = sample();
  std::string last;
  for (int f = 0; f < 3; ++f) {
    s.time = 0.5 * f;
    last = series.write(s);
    CHECK(series.frames() == static_cast<std::size_t>(f + 1));
    // The .pvd is complete after every frame, not only at the end.
    CHECK(count(slurp(out + "/grains.pvd"), "<DataSet ") == static_cast<std::size_t>(f + 1));
  }
  CHECK(last == (fs::path(out) / "grains_000002.vtu").string());
  for (const char* f : {"grains_000000.vtu", "grains_000001.vtu", "grains_000002.vtu"})
    CHECK(fs::exists(fs::path(out) / f));
  CHECK_FALSE(fs::exists(fs::path(out) / "grains.pvd.tmp"));

  const std::string pvd = slurp(out + "/grains.pvd");
  CHECK(pvd.find("<VTKFile type=\"Collection\" version=\"0.1\"") != std::string::npos);
  CHECK(pvd.find("<DataSet timestep=\"0\" group=\"\" part=\"0\" file=\"grains_000000.vtu\"/>") != std::string::npos);
  CHECK(pvd.find("<DataSet timestep=\"0.5\" group=\"\" part=\"0\" file=\"grains_000001.vtu\"/>") != std::string::npos);
  CHECK(pvd.find("<DataSet timestep=\"1\" group=\"\" part=\"0\" file=\"grains_000002.vtu\"/>") != std::string::npos);
  CHECK(pvd.find("</Collection>\n</VTKFile>\n") != std::string::npos);
}

TEST_CASE("unwritable paths throw std::runtime_error naming the path") {
  const snapshot s = sample();
  const std::string csv = "/proc/nonexistent/x.csv";
  const std::string csv_err = error_of([&] { dem::io::write_csv(csv, s); });
  CHECK(csv_err.find(csv) != std::string::npos);
  CHECK(csv_err.find("No such file or directory") != std::string::npos);  // errno text

  const std::string vtu = "/proc/nonexistent/x.vtu";
  CHECK(error_of([&] { dem::io::write_vtu(vtu, s); }).find(vtu) != std::string::npos);

  const std::string dir = "/proc/nonexistent/series";
  CHECK(error_of([&] { dem::io::vtk_series series(dir); }).find(dir) != std::string::npos);

  const std::string missing = "/proc/nonexistent/in.csv";
  CHECK(error_of([&] { (void)dem::io::read_csv(missing); }).find(missing) != std::string::npos);
}

TEST_CASE("a snapshot with arrays of different lengths is refused, naming the field") {
  temp_dir dir;
  snapshot s = sample();
  s.radius.pop_back();
  try {
    dem::io::write_csv(dir / "ragged.csv", s);
    FAIL("expected std::invalid_argument");
  } catch (const std::invalid_argument& e) {
    CHECK(std::string(e.what()).find("snapshot.radius") != std::string::npos);
  }
  CHECK_THROWS_AS(dem::io::write_vtu(dir / "ragged.vtu", s), std::invalid_argument);
}

TEST_CASE("read_csv reports malformed input with path and line number") {
  temp_dir dir;
  const std::string header = "id,x,y,z,vx,vy,vz,wx,wy,wz,radius,active\n";
  const std::string good = "3,1,2,3,0,0,0,0,0,0,0.5,1\n";
  const std::string path = dir / "bad.csv";

  const auto error_for = [&](const std::string& text) {
    write_text(path, text);
    return error_of([&] { (void)dem::io::read_csv(path); });
  };

  std::string e = error_for(header + good + "4,1,2,3,0,0,0,0,0,0,0.5\n");  // 11 fields on line 3
  CHECK(e.find(path + ":3:") != std::string::npos);
  CHECK(e.find("12") != std::string::npos);

  e = error_for(header + good + good + "5,1,2,abc,0,0,0,0,0,0,0.5,1\n");  // bad number on line 4
  CHECK(e.find(path + ":4:") != std::string::npos);
  CHECK(e.find("abc") != std::string::npos);

  e = error_for(header + "6,1,2,3,0,0,0,0,0,0,0.5,2\n");  // active must be 0/1
  CHECK(e.find(path + ":2:") != std::string::npos);

  e = error_for(header + "-1,1,2,3,0,0,0,0,0,0,0.5,1\n");  // id is unsigned
  CHECK(e.find(path + ":2:") != std::string::npos);

  e = error_for(header + "7,1.5x,2,3,0,0,0,0,0,0,0.5,1\n");  // trailing junk in a number
  CHECK(e.find(path + ":2:") != std::string::npos);

  e = error_for("x,y,z\n" + good);  // wrong header
  CHECK(e.find(path + ":1:") != std::string::npos);

  e = error_for("");
  CHECK(e.find(path) != std::string::npos);

  // CRLF line ends and a missing final newline are accepted.
  write_text(path, "id,x,y,z,vx,vy,vz,wx,wy,wz,radius,active\r\n3,1,2,3,0,0,0,0,0,0,0.5,1");
  const snapshot r = dem::io::read_csv(path);
  REQUIRE(r.size() == 1);
  CHECK(r.id[0] == 3);
  CHECK(r.radius[0] == 0.5);
}

}  // namespace io_writers_test
