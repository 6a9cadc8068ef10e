#pragma once
// Plain-text particle state: one CSV row per particle, every double written with 17 significant
// digits so that write_csv followed by read_csv gives back the same bits (usable as a checkpoint).
//
//   id,x,y,z,vx,vy,vz,wx,wy,wz,radius,active
//
// The snapshot's time and step are not stored: the header stays the plain column list that
// spreadsheets, pandas and numpy read without options.
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>

#include "dem/io/atomic_file.hpp"
#include "dem/io/snapshot.hpp"

namespace dem::io {

namespace detail {

inline constexpr std::string_view csv_header = "id,x,y,z,vx,vy,vz,wx,wy,wz,radius,active";

// Every per-particle array must have one entry per id; a writer refuses a ragged snapshot
// instead of reading past the end of the shorter vector.
inline void check_snapshot(const snapshot& s, const char* who) {
  const auto check = [&](std::size_t n, const char* field) {
    if (n != s.size())
      throw std::invalid_argument(std::string(who) + ": snapshot." + field + " has " + std::to_string(n) +
                                  " entries, but snapshot.id has " + std::to_string(s.size()));
  };
  check(s.position.size(), "position");
  check(s.velocity.size(), "velocity");
  check(s.angular_velocity.size(), "angular_velocity");
  check(s.radius.size(), "radius");
  check(s.active.size(), "active");
}

// Buffered text output through an atomic_file (written under a temporary name, renamed over the
// target when close() succeeds): a crash or a full disk leaves the previous file, never half of
// the new one. Errors name the path and the reason (errno), e.g. "No space left on device".
// std::to_chars formats numbers independently of the C/C++ locale.
class text_file {
 public:
  explicit text_file(std::string path) : file_(std::move(path)) { buf_.reserve(buffer_size + 64); }

  const std::string& path() const { return file_.path(); }

  text_file& put(std::string_view s) {
    buf_.append(s);
    if (buf_.size() >= buffer_size) flush();
    return *this;
  }
  text_file& put(char c) {
    buf_.push_back(c);
    return *this;
  }
  // 17 significant digits (max_digits10): enough to give back the same double when read.
  text_file& put_real(double v) {
    char b[40];
    constexpr int digits = std::numeric_limits<double>::max_digits10;
    const auto r = std::to_chars(b, b + sizeof b, v, std::chars_format::general, digits);
    return put(std::string_view(b, static_cast<std::size_t>(r.ptr - b)));
  }
  text_file& put_uint(std::uint64_t v) {
    char b[24];
    const auto r = std::to_chars(b, b + sizeof b, v);
    return put(std::string_view(b, static_cast<std::size_t>(r.ptr - b)));
  }

  // Must be called: the file appears under its name only then (a text_file destroyed without it
  // leaves the previous file and removes the temporary).
  void close() {
    flush();
    file_.commit();
  }

 private:
  static constexpr std::size_t buffer_size = std::size_t{1} << 20;
  void flush() {
    file_.write(buf_.data(), buf_.size());
    buf_.clear();
  }

  atomic_file file_;
  std::string buf_;
};

inline std::string read_whole_file(const std::string& path) { return read_file(path); }

}  // namespace detail

inline void write_csv(const std::string& path, const snapshot& s) {
  detail::check_snapshot(s, "dem::io::write_csv");
  detail::text_file out(path);
  out.put(detail::csv_header).put('\n');
  for (std::size_t i = 0; i < s.size(); ++i) {
    out.put_uint(s.id[i]);
    for (const vec3d* v : {&s.position[i], &s.velocity[i], &s.angular_velocity[i]})
      for (int k = 0; k < 3; ++k) out.put(',').put_real((*v)[k]);
    out.put(',').put_real(s.radius[i]).put(',').put_uint(s.active[i] ? 1 : 0).put('\n');
  }
  out.close();
}

// Parses the text of a file written by write_csv (`path` names it in messages). Rows keep their
// order; time and step are left at 0. Malformed input throws std::runtime_error naming the path,
// the line and the column.
inline snapshot parse_csv(const std::string& text, const std::string& path) {
  static constexpr const char* names[12] = {"id", "x",  "y",  "z",  "vx",     "vy",
                                            "vz", "wx", "wy", "wz", "radius", "active"};
  snapshot s;
  std::size_t line_no = 0, pos = 0;
  bool seen_header = false;
  const auto fail = [&](const std::string& why) -> void {
    throw std::runtime_error("dem::io::read_csv: " + path + ":" + std::to_string(line_no) + ": " + why);
  };
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string_view line(text.data() + pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);  // tolerate CRLF from other tools
    if (line.empty()) continue;
    if (!seen_header) {
      if (line != detail::csv_header)
        fail("expected the header '" + std::string(detail::csv_header) + "', found '" + std::string(line) + "'");
      seen_header = true;
      continue;
    }
    // Split into exactly 12 fields.
    std::string_view f[12];
    std::size_t nf = 0, start = 0;
    for (std::size_t i = 0; i <= line.size(); ++i) {
      if (i == line.size() || line[i] == ',') {
        if (nf < 12) f[nf] = line.substr(start, i - start);
        ++nf;
        start = i + 1;
      }
    }
    if (nf != 12) fail("expected 12 comma-separated fields, found " + std::to_string(nf));
    const auto parse = [&](std::size_t col, auto& value) {
      const auto r = std::from_chars(f[col].data(), f[col].data() + f[col].size(), value);
      if (f[col].empty() || r.ec != std::errc() || r.ptr != f[col].data() + f[col].size())
        fail("column " + std::to_string(col + 1) + " (" + names[col] + "): '" + std::string(f[col]) +
             "' is not a valid number");
    };
    std::uint32_t id = 0;
    double d[10];
    unsigned active = 0;
    parse(0, id);
    for (std::size_t k = 0; k < 10; ++k) parse(k + 1, d[k]);
    parse(11, active);
    if (active > 1) fail("column 12 (active): must be 0 or 1, found '" + std::string(f[11]) + "'");
    s.id.push_back(id);
    s.position.push_back({d[0], d[1], d[2]});
    s.velocity.push_back({d[3], d[4], d[5]});
    s.angular_velocity.push_back({d[6], d[7], d[8]});
    s.radius.push_back(d[9]);
    s.active.push_back(static_cast<std::uint8_t>(active));
  }
  if (!seen_header) {
    line_no = 1;
    fail("empty file, expected the header '" + std::string(detail::csv_header) + "'");
  }
  return s;
}

// Reads a file written by write_csv (see parse_csv).
inline snapshot read_csv(const std::string& path) { return parse_csv(detail::read_whole_file(path), path); }

}  // namespace dem::io
