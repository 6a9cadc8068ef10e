// libFuzzer target: the clump-template CSV reader and the mass properties of what it read.
#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>

#include "dem/shape/clump/csv.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const dem::shape::clump_template t = dem::shape::parse_clump_csv(text, "fuzz.csv", "", 1e-6);
    (void)t.template to_shape<float, 8>();
  } catch (const std::exception&) {
  }
  return 0;
}
