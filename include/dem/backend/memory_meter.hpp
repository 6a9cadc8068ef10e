#pragma once
// The bytes a backend's buffers hold: now, and the most at any moment since the last reset (a
// high-water mark). Every backend's buffer reports its allocations and frees here, one meter per
// backend type, over all its instances; a buffer that grows counts its new allocation before its
// old one is freed, as the memory really is held. What the meter cannot see: allocations outside
// the buffers (CUB's scratch is a buffer and counted; the CUDA context is not, nor are the host's
// std::vector scratch arrays: the reductions' partials and backend::host's radix-sort scratch, n
// keys and values of the largest sort, kept between calls). Benchmarks report the peak per particle (benchmarks/suite.hpp),
// tests bound it (tests/sim/test_memory.cpp); docs/performance.md, "Memory", has the figures.
#include <atomic>
#include <cstddef>
#include <memory>

namespace dem::backend {

struct memory_use {
  std::size_t live = 0;  // bytes held now
  std::size_t peak = 0;  // the most held at once since the last reset_peak()
};

template <class Backend>
class memory_meter {
 public:
  static void allocated(std::size_t bytes) noexcept {
    const std::size_t now = live_.fetch_add(bytes, std::memory_order_relaxed) + bytes;
    std::size_t seen = peak_.load(std::memory_order_relaxed);
    while (now > seen && !peak_.compare_exchange_weak(seen, now, std::memory_order_relaxed)) {
    }
  }
  static void released(std::size_t bytes) noexcept { live_.fetch_sub(bytes, std::memory_order_relaxed); }
  static memory_use read() noexcept { return {live_.load(std::memory_order_relaxed), peak_.load(std::memory_order_relaxed)}; }
  // Starts a new high-water mark from what is held now.
  static void reset_peak() noexcept { peak_.store(live_.load(std::memory_order_relaxed), std::memory_order_relaxed); }

 private:
  static inline std::atomic<std::size_t> live_{0}, peak_{0};
};

// A std::allocator that reports to Backend's meter (backend::host's buffers are std::vectors).
template <class T, class Backend>
struct metered_allocator {
  using value_type = T;
  metered_allocator() = default;
  template <class U>
  metered_allocator(const metered_allocator<U, Backend>&) noexcept {}
  T* allocate(std::size_t n) {
    T* p = std::allocator<T>{}.allocate(n);
    memory_meter<Backend>::allocated(n * sizeof(T));
    return p;
  }
  void deallocate(T* p, std::size_t n) noexcept {
    memory_meter<Backend>::released(n * sizeof(T));
    std::allocator<T>{}.deallocate(p, n);
  }
  template <class U>
  struct rebind {
    using other = metered_allocator<U, Backend>;
  };
  friend bool operator==(const metered_allocator&, const metered_allocator&) noexcept { return true; }
};

}  // namespace dem::backend
