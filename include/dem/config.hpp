#pragma once
// Compilation-environment macros shared by every header. Only macros carry the DEM_ prefix.

#if defined(__CUDACC__)
#define DEM_HD __host__ __device__
#define DEM_DEVICE_COMPILER 1
#else
#define DEM_HD
#define DEM_DEVICE_COMPILER 0
#endif

// True while compiling the device pass of a CUDA translation unit.
#if defined(__CUDA_ARCH__)
#define DEM_DEVICE_CODE 1
#else
#define DEM_DEVICE_CODE 0
#endif

// On a kernel functor's operator(): inline everything it calls (force law, slots, narrow phase).
// GCC's inliner otherwise gives up on a composed law's call chain and the pair loop pays for calls
// and spilled contact structs (measured: +13 % instructions). nvcc inlines device code by itself.
#if defined(__GNUC__) && !defined(__CUDA_ARCH__)
#define DEM_FLATTEN __attribute__((flatten))
#else
#define DEM_FLATTEN
#endif

#include <cstdint>

namespace dem {
using index_t = std::uint32_t;  // particle / contact index; 4e9 elements is past any single-GPU memory
}  // namespace dem
