#pragma once
// Every test source is compiled twice: once for backend::host (plain C++) and once, as CUDA,
// for backend::cuda. DEM_TEST_BACKEND_CUDA selects the second. Tests name only test_backend.
#if defined(DEM_TEST_BACKEND_CUDA)
#include "dem/backend/cuda.hpp"
namespace dem_test {
using test_backend = dem::backend::cuda;
}
#else
#include "dem/backend/host.hpp"
namespace dem_test {
using test_backend = dem::backend::host;
}
#endif
