// libFuzzer target: checkpoints. The input is a checkpoint without its end record; the target adds
// the end record with the right checksum, so that the fuzzer explores what lies behind the
// checksum (the records, the policy signature, the validation of the state), then loads it into a
// Simulator and runs a few steps: a checkpoint that loads must run without reading out of bounds.
#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>

#include "dem/dem.hpp"
#include "dem/io/checkpoint.hpp"

namespace {
using sim = dem::Simulator<dem::policies<dem::shape::sphere, dem::force::hertz_mindlin>, dem::backend::host>;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string bytes(reinterpret_cast<const char*>(data), size);
  dem::io::checkpoint_format::append_end_record(bytes);
  try {
    sim s = sim::from_checkpoint(dem::io::checkpoint_reader(std::move(bytes), "fuzz.ckpt"));
    s.set_log(nullptr);
    if (s.num_particles() <= 4096) s.step(3);
  } catch (const std::exception&) {
  }
  return 0;
}
