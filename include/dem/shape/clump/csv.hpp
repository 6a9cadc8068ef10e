#pragma once
// Clump templates from a CSV file of component spheres, one per line: x,y,z,r[,material].
// A first line that is not numeric is a header; blank lines and lines starting with '#' are
// skipped; fields may be padded with spaces. Errors name the file and the line.
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "dem/shape/clump/clump_template.hpp"

namespace dem::shape {

namespace detail {
inline std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> out;
  std::string cur;
  for (char ch : line) {
    if (ch == ',') { out.push_back(cur); cur.clear(); }
    else cur += ch;
  }
  out.push_back(cur);
  for (auto& f : out) {
    const auto b = f.find_first_not_of(" \t\r"), e = f.find_last_not_of(" \t\r");
    f = b == std::string::npos ? std::string() : f.substr(b, e - b + 1);
  }
  return out;
}
// Whole field is a number (no trailing characters).
inline bool parse_double(const std::string& s, double& v) {
  if (s.empty()) return false;
  char* end = nullptr;
  errno = 0;
  v = std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size() && errno != ERANGE;
}
}  // namespace detail

// The CSV text of a clump; `path` names it in messages; name: the clump's name in messages and
// later use (empty: `path`).
inline clump_template parse_clump_csv(const std::string& text, const std::string& path, std::string name = "", double rel_tol = 1e-10) {
  if (name.empty()) name = path;
  std::istringstream in(text);
  std::vector<clump_sphere> spheres;
  std::string line;
  int line_no = 0;
  bool first_content = true;
  while (std::getline(in, line)) {
    ++line_no;
    const auto fields = detail::split_csv(line);
    if (fields.size() == 1 && fields[0].empty()) continue;
    if (!fields[0].empty() && fields[0][0] == '#') continue;
    auto where = [&] { return "clump CSV '" + path + "', line " + std::to_string(line_no) + ": "; };
    double v[5];
    bool numeric = fields.size() == 4 || fields.size() == 5;
    for (std::size_t i = 0; numeric && i < fields.size(); ++i) numeric = detail::parse_double(fields[i], v[i]);
    if (!numeric) {
      double dummy;
      const bool any_number = detail::parse_double(fields[0], dummy);
      if (first_content && !any_number) { first_content = false; continue; }  // header
      throw std::invalid_argument(where() + "expected 4 or 5 numbers x,y,z,r[,material], got '" + line + "'");
    }
    first_content = false;
    if (!std::isfinite(v[0]) || !std::isfinite(v[1]) || !std::isfinite(v[2]))
      throw std::invalid_argument(where() + "centre is not finite, got '" + line + "'");
    if (!(v[3] > 0) || !std::isfinite(v[3]))
      throw std::invalid_argument(where() + "radius must be positive and finite, got '" + fields[3] + "'");
    material_id mat = body_material;  // no fifth column: the body's material
    if (fields.size() == 5) {
      if (!(v[4] >= 0) || v[4] != std::floor(v[4]) || v[4] > 65535)
        throw std::invalid_argument(where() + "material must be an integer id in [0, 65535], got '" + fields[4] + "'");
      mat = static_cast<material_id>(v[4]);
    }
    spheres.push_back({{v[0], v[1], v[2]}, v[3], mat});
  }
  if (spheres.empty()) throw std::invalid_argument("clump CSV '" + path + "': no spheres in the file");
  try {
    return clump_template(std::move(name), std::move(spheres), rel_tol);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument("clump CSV '" + path + "': " + e.what());
  }
}

inline clump_template load_clump_csv(const std::string& path, std::string name = "", double rel_tol = 1e-10) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::invalid_argument("clump CSV '" + path + "': cannot open the file");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return parse_clump_csv(text, path, std::move(name), rel_tol);
}

}  // namespace dem::shape
