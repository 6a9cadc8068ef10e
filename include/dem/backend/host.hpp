#pragma once
// backend::host — runs the toolkit's kernels on the CPU: OpenMP over all cores when the
// compiler has it, serial otherwise. Every primitive gives the same bits whatever the
// thread count (sorts are stable, sums go through fixed-size chunks combined in order).
#include <algorithm>
#include <cstdint>
#include <new>
#include <numeric>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <vector>

#include "dem/backend/allocation_error.hpp"
#include "dem/backend/memory_meter.hpp"
#include "dem/backend/radix_sort.hpp"
#include "dem/config.hpp"

#if defined(_OPENMP)
#include <omp.h>
#endif

namespace dem::backend {

struct host {
  static constexpr const char* name = "host";
  static constexpr bool is_device = false;

  // A contiguous array in the backend's memory space (here: host memory).
  template <class T>
  class buffer {
   public:
    buffer() = default;
    explicit buffer(std::size_t n) { resize(n); }
    // Growth that cannot be allocated throws dem::allocation_error with the size asked for.
    void resize(std::size_t n) {
      try {
        v_.resize(n);
      } catch (const std::bad_alloc&) {
        throw allocation_error(name, n, sizeof(T), "out of memory");
      } catch (const std::length_error&) {
        throw allocation_error(name, n, sizeof(T), "more than a std::vector can hold");
      }
    }
    // Sets the size without keeping contents (the buffer is about to be overwritten): freed before
    // it grows, so old and new are not held at once; new elements are zero.
    void discard_resize(std::size_t n) {
      if (n > v_.capacity()) storage().swap(v_);
      resize(n);
    }
    void clear() { storage().swap(v_); }
    std::size_t size() const { return v_.size(); }
    T* data() { return v_.data(); }
    const T* data() const { return v_.data(); }
    void assign(const std::vector<T>& src) { assign(src.data(), src.size()); }
    void assign(const T* src, std::size_t n) {
      resize(n);
      std::copy_n(src, n, v_.data());
    }
    void copy_to(std::vector<T>& dst) const { dst.assign(v_.begin(), v_.end()); }
    void copy_to(T* dst, std::size_t n) const { std::copy_n(v_.data(), n, dst); }
    // Grows by n, keeping the contents, and writes src at the end (the vector grows geometrically).
    void append(const T* src, std::size_t n) {
      const std::size_t old = v_.size();
      resize(old + n);
      std::copy_n(src, n, v_.data() + old);
    }
    std::vector<T> to_vector() const { return std::vector<T>(v_.begin(), v_.end()); }
    void fill(const T& value) { std::fill(v_.begin(), v_.end(), value); }
    void swap(buffer& o) noexcept { v_.swap(o.v_); }
    std::size_t bytes() const { return v_.capacity() * sizeof(T); }

   private:
    using storage = std::vector<T, metered_allocator<T, host>>;  // counted by memory()
    storage v_;
  };

  // Bytes the host's buffers hold, now and at most since reset_memory_peak() (backend/memory_meter.hpp).
  static memory_use memory() noexcept { return memory_meter<host>::read(); }
  static void reset_memory_peak() noexcept { memory_meter<host>::reset_peak(); }
  // Scratch used only while the contact list is rebuilt stays allocated between rebuilds here:
  // host memory rarely limits a run, and allocating it afresh would fault its pages in every
  // rebuild. Device backends free it (sim/contact_builder.hpp).
  static constexpr bool keeps_rebuild_scratch = true;
  static constexpr bool runs_deferred_builds = true;  // config.deferred_detection (sim/deferred_detection.hpp)
  void release_scratch() {}

  static int concurrency() {
#if defined(_OPENMP)
    return omp_get_max_threads();
#else
    return 1;
#endif
  }

  // Loops shorter than this run on the calling thread: waking the team costs more than it saves.
  static constexpr index_t parallel_threshold = 2048;

  // f(i) for i in [0, n). Iterations must be independent (as CUDA threads are): each thread runs
  // one contiguous range as a plain loop, which GCC vectorises where f inlines into branch-free
  // code (the sphere pair kernel; see DEM_KERNEL and DEM_IVDEP in config.hpp).
  template <class F>
  void for_each(index_t n, const F& f) const {
#if defined(_OPENMP)
    if (n >= parallel_threshold) {
#pragma omp parallel
      {
        const auto [begin, end] = my_range(n);
        run(begin, end, f);
      }
      return;
    }
#endif
    run(0, n, f);
  }

  // Bitwise or of f(i) over [0, n), each thread over the contiguous range for_each gives it: a
  // plain loop that GCC vectorises where f is branch-free (flags raised rarely, such as the status
  // of sphere_finish_kernel). Host only: device backends keep the fused particle kernel.
  template <class F>
  std::uint32_t reduce_or(index_t n, const F& f) const {
    std::uint32_t s = 0;
#if defined(_OPENMP)
    if (n >= parallel_threshold) {
#pragma omp parallel reduction(| : s)
      {
        const auto [begin, end] = my_range(n);
        s |= run_or(begin, end, f);
      }
      return s;
    }
#endif
    return run_or(0, n, f);
  }

  // Largest f(i) over [0, n) for an unsigned integer f (0 when n == 0); vectorises as reduce_or
  // does. Host only, like reduce_or.
  template <class F>
  auto reduce_max_unsigned(index_t n, const F& f) const {
    using U = decltype(f(index_t{0}));
    static_assert(std::is_unsigned_v<U>, "reduce_max_unsigned: f must return an unsigned integer");
    U s = 0;
#if defined(_OPENMP)
    if (n >= parallel_threshold) {
#pragma omp parallel reduction(max : s)
      {
        const auto [begin, end] = my_range(n);
        const U mine = run_max(begin, end, f);
        s = s > mine ? s : mine;
      }
      return s;
    }
#endif
    return run_max(0, n, f);
  }

  // Stable sort of the first n (key, value) pairs by key: an LSD radix sort (backend/radix_sort.hpp)
  // over the key bytes that vary, parallel above 2^14 pairs; a stable sort's result is unique, so
  // the thread count cannot change it. Only the key's bits [0, end_bit) are compared.
  template <class Key>
  void sort_pairs(buffer<Key>& keys, buffer<std::uint32_t>& values, index_t n, int end_bit = 8 * sizeof(Key)) {
    sorters_.get<Key>().sort(keys.data(), values.data(), n, end_bit);
  }

  // In-place exclusive prefix sum of the first n entries; returns the total.
  std::uint64_t exclusive_scan(buffer<std::uint32_t>& v, index_t n) {
    std::uint64_t sum = 0;
    std::uint32_t* p = v.data();
    for (index_t i = 0; i < n; ++i) {
      const std::uint32_t x = p[i];
      p[i] = static_cast<std::uint32_t>(sum);
      sum += x;
    }
    return sum;
  }

  // Sum of f(i) over [0, n) in double. Chunks of fixed size are summed serially and the
  // chunk sums combined in order, so the result does not depend on the thread count.
  template <class F>
  double reduce_sum(index_t n, const F& f) {
    const index_t chunks = (n + chunk - 1) / chunk;
    partial_.assign(chunks, 0.0);
    double* out = partial_.data();
#if defined(_OPENMP)
#pragma omp parallel for schedule(static) if (n >= parallel_threshold)
#endif
    for (std::int64_t c = 0; c < static_cast<std::int64_t>(chunks); ++c) {
      double s = 0.0;
      const index_t end = std::min<index_t>(n, static_cast<index_t>((c + 1) * chunk));
      for (index_t i = static_cast<index_t>(c * chunk); i < end; ++i) s += static_cast<double>(f(i));
      out[c] = s;
    }
    double s = 0.0;
    for (double x : partial_) s += x;
    return s;
  }

  // Maximum of f(i) over [0, n) (lowest() when n == 0).
  template <class F>
  double reduce_max(index_t n, const F& f) {
    const index_t chunks = (n + chunk - 1) / chunk;
    partial_.assign(chunks, -1.0e308);
    double* out = partial_.data();
#if defined(_OPENMP)
#pragma omp parallel for schedule(static) if (n >= parallel_threshold)
#endif
    for (std::int64_t c = 0; c < static_cast<std::int64_t>(chunks); ++c) {
      double s = -1.0e308;
      const index_t end = std::min<index_t>(n, static_cast<index_t>((c + 1) * chunk));
      for (index_t i = static_cast<index_t>(c * chunk); i < end; ++i) s = std::max(s, static_cast<double>(f(i)));
      out[c] = s;
    }
    double s = -1.0e308;
    for (double x : partial_) s = std::max(s, x);
    return s;
  }

  // f(i) folded with op over [0, n), starting from `identity` (returned when n == 0): fixed chunks
  // folded serially, their results folded in order, so the bits do not depend on the thread count.
  // For reductions of several values in one pass (inspect/): T is a small trivially copyable struct
  // and op an associative DEM_HD combination (sums, minima, maxima). Where f also has
  // accumulate(T&, i), equal to acc = op(acc, f(i)), the host folds through it: a struct of some 30
  // doubles built and folded per element would cost more than the element's own work.
  template <class T, class F, class Op>
  T transform_reduce(index_t n, const F& f, const Op& op, const T& identity) const {
    const index_t chunks = (n + chunk - 1) / chunk;
    std::vector<T> part(chunks, identity);
#if defined(_OPENMP)
#pragma omp parallel for schedule(static) if (n >= parallel_threshold)
#endif
    for (std::int64_t c = 0; c < static_cast<std::int64_t>(chunks); ++c) {
      T s = identity;
      const index_t begin = static_cast<index_t>(c * chunk), end = std::min<index_t>(n, static_cast<index_t>((c + 1) * chunk));
      if constexpr (requires(T& acc) { f.accumulate_range(acc, begin, end); }) {
        f.accumulate_range(s, begin, end);  // the functor's own (vectorised) loop over the chunk
      } else {
        for (index_t i = begin; i < end; ++i) {
          if constexpr (requires(T& acc) { f.accumulate(acc, i); }) f.accumulate(s, i);  // into s: no T per element
          else s = op(s, f(i));
        }
      }
      part[c] = s;
    }
    T s = identity;
    for (const T& x : part) s = op(s, x);
    return s;
  }

  // Waits for outstanding work (nothing is asynchronous on the host).
  void synchronize() const {}
  // One device: nothing to select (backend::cuda selects the calling thread's device).
  static int current_device() { return 0; }
  static void use_device(int) {}

 private:
#if defined(_OPENMP)
  // The calling thread's contiguous share of [0, n) inside a parallel region.
  static std::pair<index_t, index_t> my_range(index_t n) {
    const auto t = static_cast<std::uint64_t>(omp_get_thread_num()), nt = static_cast<std::uint64_t>(omp_get_num_threads());
    return {static_cast<index_t>(n * t / nt), static_cast<index_t>(n * (t + 1) / nt)};
  }
#endif

  template <class F>
  static void run(index_t begin, index_t end, const F& f) {
    DEM_IVDEP
    for (index_t i = begin; i < end; ++i) f(i);
  }

  template <class F>
  static std::uint32_t run_or(index_t begin, index_t end, const F& f) {
    std::uint32_t s = 0;
    DEM_IVDEP
    for (index_t i = begin; i < end; ++i) s |= f(i);
    return s;
  }

  template <class F>
  static auto run_max(index_t begin, index_t end, const F& f) {
    decltype(f(index_t{0})) s = 0;
    DEM_IVDEP
    for (index_t i = begin; i < end; ++i) {
      const auto v = f(i);
      s = s > v ? s : v;
    }
    return s;
  }

  static constexpr index_t chunk = 1024;
  detail::radix_sorters sorters_;
  std::vector<double> partial_;
};

}  // namespace dem::backend
