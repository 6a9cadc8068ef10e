#pragma once
// Every backend test source is compiled three times: for backend::host (plain C++), for
// backend::emulated_device (plain C++ that takes the GPU's code paths: DEM_TEST_BACKEND_EMULATED,
// with DEM_EMULATE_DEVICE_PATHS) and, as CUDA, for backend::cuda (DEM_TEST_BACKEND_CUDA). Tests
// name only test_backend.
#if defined(DEM_TEST_BACKEND_CUDA)
#include "dem/backend/cuda.hpp"
namespace dem_test {
using test_backend = dem::backend::cuda;
}
#elif defined(DEM_TEST_BACKEND_EMULATED)
#include "dem/backend/emulated_device.hpp"
namespace dem_test {
using test_backend = dem::backend::emulated_device;
}
#else
#include "dem/backend/host.hpp"
namespace dem_test {
using test_backend = dem::backend::host;
}
#endif

namespace dem_test {
// Built with ASan + UBSan (scripts/test.sh's sanitizer pass): heavy physics cases skip themselves.
#if defined(DEM_TEST_SANITIZED)
inline constexpr bool sanitized = true;
#else
inline constexpr bool sanitized = false;
#endif
}  // namespace dem_test
