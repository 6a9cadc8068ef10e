#pragma once
// Atomic helpers callable from physics code on both backends. Used for rare events (error flags,
// lost-particle counters) and integer counts whose result does not depend on the order (the
// incident lists' degrees and slots, contact/contact_list.hpp), never for force accumulation:
// forces are gathered deterministically (see docs/architecture.md, "Force gather").
#include <cstdint>

#include "dem/config.hpp"

namespace dem::atomic {

DEM_HD inline void min(std::uint32_t* target, std::uint32_t value) {
#if DEM_DEVICE_CODE
  atomicMin(reinterpret_cast<unsigned int*>(target), static_cast<unsigned int>(value));
#else
  std::uint32_t seen = __atomic_load_n(target, __ATOMIC_RELAXED);
  while (value < seen &&
         !__atomic_compare_exchange_n(target, &seen, value, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
  }
#endif
}

// A read of a word other threads may be updating with these helpers in the same kernel.
DEM_HD inline std::uint32_t load(const std::uint32_t* target) {
#if DEM_DEVICE_CODE
  return *static_cast<const volatile std::uint32_t*>(target);
#else
  return __atomic_load_n(target, __ATOMIC_RELAXED);
#endif
}

DEM_HD inline void add(std::uint32_t* target, std::uint32_t value) {
#if DEM_DEVICE_CODE
  atomicAdd(reinterpret_cast<unsigned int*>(target), static_cast<unsigned int>(value));
#else
  __atomic_fetch_add(target, value, __ATOMIC_RELAXED);
#endif
}

// Adds and returns the value before the addition (a slot in an append-only list).
DEM_HD inline std::uint32_t fetch_add(std::uint32_t* target, std::uint32_t value) {
#if DEM_DEVICE_CODE
  return static_cast<std::uint32_t>(atomicAdd(reinterpret_cast<unsigned int*>(target), static_cast<unsigned int>(value)));
#else
  return __atomic_fetch_add(target, value, __ATOMIC_RELAXED);
#endif
}

}  // namespace dem::atomic
