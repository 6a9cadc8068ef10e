// doctest main shared by all test executables. CUDA builds skip (exit 77, reported by ctest as
// SKIPPED, never as passed) when no usable GPU is present.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>
#include <string>

#include "support/test_backend.hpp"

int main(int argc, char** argv) {
#if defined(DEM_TEST_BACKEND_CUDA)
  std::string why;
  if (!dem::backend::cuda_device_available(&why)) {
    std::printf("SKIPPED: no usable CUDA device (%s); the CUDA build of these tests did not run\n", why.c_str());
    return 77;
  }
#endif
  doctest::Context context(argc, argv);
  return context.run();
}
