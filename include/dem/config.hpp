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

// True where the device-pass variant of code that has one is compiled: in the device pass, and in
// host builds that emulate it (DEM_EMULATE_DEVICE_PATHS, defined by the tests of
// backend::emulated_device). Intrinsics that exist only on a GPU stay behind DEM_DEVICE_CODE.
#if defined(__CUDA_ARCH__) || defined(DEM_EMULATE_DEVICE_PATHS)
#define DEM_DEVICE_PATHS 1
#else
#define DEM_DEVICE_PATHS 0
#endif

// On a kernel functor's operator(): inline everything it calls (force law, slots, narrow phase).
// GCC's inliner otherwise gives up on a composed law's call chain and the pair loop pays for calls
// and spilled contact structs (measured: +13 % instructions). nvcc inlines device code by itself.
// DEM_KERNEL also inlines the functor into the backend's loop, so that the host compiler can
// vectorise the loop over contacts (see backend/host.hpp).
// DEM_INLINE: a helper that kernels share and whose inlining the vectorised loop depends on. Once a
// second kernel (the energy ledger's) called pair_contact, GCC kept one out-of-line copy and the
// flattened pair loop called it (gravity_packing's dense phase ran at a third of the benchmark's rate).
// DEM_NOINLINE: kept out of a flattened kernel (a rare or large part whose inlining only adds to
// the kernel's register pressure).
#if defined(__GNUC__) && !defined(__CUDA_ARCH__)
#define DEM_NOINLINE __attribute__((noinline))
#define DEM_FLATTEN __attribute__((flatten))
#define DEM_KERNEL __attribute__((flatten, always_inline)) inline
#define DEM_INLINE __attribute__((always_inline)) inline
#else
#define DEM_NOINLINE
#define DEM_FLATTEN
#define DEM_KERNEL
#define DEM_INLINE inline
#endif

// On a loop whose iterations are independent: lets GCC vectorise without runtime alias checks
// (the kernels read and write through many pointers). Not `omp simd`: that turns the kernels'
// local structs into per-lane arrays, which GCC 12 then cannot vectorise.
#if defined(__GNUC__) && !defined(__clang__) && !defined(__CUDA_ARCH__)
#define DEM_IVDEP _Pragma("GCC ivdep")
#else
#define DEM_IVDEP
#endif

#include <cstdint>

namespace dem {
using index_t = std::uint32_t;  // particle / contact index; 4e9 elements is past any single-GPU memory
}  // namespace dem
