#pragma once
// backend::emulated_device — runs on the host but takes every code path the Simulator takes for a
// GPU, so that those paths are tested on machines without one (CI, and every session so far):
//   - is_device = true: the fused particle kernel (integration and checks inside the gather), the
//     general pair kernel (parameters from the material table), unsigned 32-bit index limits;
//   - buffers are a memory space of their own, reached only through assign / copy_to (as
//     cudaMemcpy), move-only, zero-filled where they grow, and filled with a poison pattern (all
//     bits set: NaN for floats, the largest value for integers) where backend::cuda leaves memory
//     undefined (discard_resize), so that a read of memory the GPU would not have initialised shows;
//   - the primitives as backend::cuda runs them: a stable LSD radix sort (a stable sort's result
//     is unique, so it is CUB's), an exclusive scan with its total reduced separately in 64 bits,
//     reductions that evaluate f into a scratch array and reduce it as a tree (another association
//     than the host's chunks, as CUB's), kernels launched on copies of their functors.
// Built with DEM_EMULATE_DEVICE_PATHS defined (the test build does it), the headers' device-pass
// variants are compiled for the host too (config.hpp, DEM_DEVICE_PATHS): plain indexing in
// sim::load, the predicated history reset. Only intrinsics (atomics, __ffsll) and the CUDA layer
// itself (launches, CUB, cudaMemcpy) stay untested without a GPU; docs/reliability.md lists them.
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
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

struct emulated_device;

namespace detail {
// Frees an emulated_device buffer's memory and reports it to the meter (at namespace scope: a
// deleter nested in the buffer would be incomplete where emulated_device holds buffers itself).
struct emulated_delete {
  std::size_t bytes = 0;
  std::align_val_t alignment{64};
  void operator()(unsigned char* p) const {
    memory_meter<emulated_device>::released(bytes);
    ::operator delete[](p, alignment);
  }
};
}  // namespace detail

struct emulated_device {
  static constexpr const char* name = "emulated_device";
  static constexpr bool is_device = true;

  // What a GPU would be asked to do, counted over all instances (tests read it to check how often a
  // step waits for the device): kernel launches, and reads back to the host, each of which on a GPU
  // waits for every kernel before it (buffer::copy_to, and the results of exclusive_scan and the
  // reductions, which backend::cuda copies back).
  struct traffic {
    std::uint64_t launches = 0, host_reads = 0;
  };
  static traffic counted() { return {launches_.load(std::memory_order_relaxed), host_reads_.load(std::memory_order_relaxed)}; }

  // Device memory, emulated: see the header comment for what it promises (what cuda::buffer does).
  template <class T>
  class buffer {
    static_assert(std::is_trivially_copyable_v<T>,
                  "dem::backend::emulated_device::buffer<T>: T must be trivially copyable (device buffers are moved with memcpy)");

   public:
    buffer() = default;
    explicit buffer(std::size_t n) { resize(n); }
    buffer(const buffer&) = delete;
    buffer& operator=(const buffer&) = delete;
    buffer(buffer&& o) noexcept { swap(o); }
    buffer& operator=(buffer&& o) noexcept {
      if (this != &o) {
        clear();
        swap(o);
      }
      return *this;
    }

    // Keeps the first min(old, n) elements; new elements are zero (cuda::buffer memsets them).
    void resize(std::size_t n) {
      if (n > capacity_) {
        storage p = allocate(n);
        if (size_) std::memcpy(p.get(), ptr_.get(), size_ * sizeof(T));
        ptr_ = std::move(p);
        capacity_ = n;
      }
      if (n > size_) std::memset(bytes_at(size_), 0, (n - size_) * sizeof(T));
      size_ = n;
    }
    // Sets the size without keeping contents: the memory is poisoned (undefined on a GPU).
    void discard_resize(std::size_t n) {
      if (n > capacity_) {
        clear();  // (nothing held if the allocation below throws)
        ptr_ = allocate(n);
        capacity_ = n;
      }
      size_ = n;
      if (n) std::memset(bytes_at(0), 0xFF, n * sizeof(T));
    }
    void clear() {
      ptr_.reset();
      size_ = capacity_ = 0;
    }
    std::size_t size() const { return size_; }
    T* data() { return reinterpret_cast<T*>(ptr_.get()); }
    const T* data() const { return reinterpret_cast<const T*>(ptr_.get()); }

    void assign(const std::vector<T>& src) { assign(src.data(), src.size()); }
    void assign(const T* src, std::size_t n) {
      discard_resize(n);
      if (n) std::memcpy(bytes_at(0), src, n * sizeof(T));
    }
    void copy_to(std::vector<T>& dst) const {
      dst.resize(size_);
      copy_to(dst.data(), size_);
    }
    // Grows by n, keeping the contents (capacity at least doubles), and uploads src at the end.
    void append(const T* src, std::size_t n) {
      const std::size_t old = size_;
      if (old + n > capacity_) {
        const std::size_t keep = size_;
        resize(std::max(old + n, 2 * capacity_));
        size_ = keep;
      }
      size_ = old + n;
      if (n) std::memcpy(bytes_at(old), src, n * sizeof(T));
    }
    void copy_to(T* dst, std::size_t n) const {
      count_read();
      if (n > size_)
        throw std::out_of_range("dem::backend::emulated_device::buffer::copy_to: " + std::to_string(n) + " elements asked for, " +
                                std::to_string(size_) + " held");
      if (n) std::memcpy(dst, ptr_.get(), n * sizeof(T));
    }
    std::vector<T> to_vector() const {
      std::vector<T> v;
      copy_to(v);
      return v;
    }
    void fill(const T& value) { std::fill(data(), data() + size_, value); }
    void swap(buffer& o) noexcept {
      std::swap(ptr_, o.ptr_);
      std::swap(size_, o.size_);
      std::swap(capacity_, o.capacity_);
    }
    std::size_t bytes() const { return capacity_ * sizeof(T); }

   private:
    // Aligned as cudaMalloc's memory is (256 bytes; 64 suffices for every T used here).
    static constexpr std::align_val_t alignment{alignof(T) < 64 ? 64 : alignof(T)};
    using storage = std::unique_ptr<unsigned char[], detail::emulated_delete>;

    static storage allocate(std::size_t n) {
      if (n > std::size_t(-1) / sizeof(T)) throw allocation_error(name, n, sizeof(T), "the size overflows");
      try {
        storage p(new (alignment) unsigned char[n * sizeof(T)], detail::emulated_delete{n * sizeof(T), alignment});
        memory_meter<emulated_device>::allocated(n * sizeof(T));
        return p;
      } catch (const std::bad_alloc&) {
        throw allocation_error(name, n, sizeof(T), "out of memory");
      }
    }
    unsigned char* bytes_at(std::size_t i) { return ptr_.get() + i * sizeof(T); }

    storage ptr_;
    std::size_t size_ = 0;
    std::size_t capacity_ = 0;
  };

  // Bytes this backend's buffers hold, now and at most since reset_memory_peak(), as backend::cuda
  // counts its device memory (backend/memory_meter.hpp): the sort's scratch is two of its buffers, as
  // there; the reductions' scratch is host memory here (backend::cuda holds at most 8 MiB for it).
  static memory_use memory() noexcept { return memory_meter<emulated_device>::read(); }
  static void reset_memory_peak() noexcept { memory_meter<emulated_device>::reset_peak(); }
  // As backend::cuda: scratch used only by a rebuild is freed when it is done with.
  static constexpr bool keeps_rebuild_scratch = false;
  static constexpr bool runs_deferred_builds = true;  // (sim/deferred_detection.hpp)
  void release_scratch() {
    key_alt_.clear();
    value_alt_.clear();
  }

  static int concurrency() {
#if defined(_OPENMP)
    return omp_get_max_threads();
#else
    return 1;
#endif
  }

  // f(i) for i in [0, n), on a copy of f (a kernel receives its functor by value), in blocks of
  // 256 iterations handed out dynamically, so that no kernel can rely on the host's order.
  template <class F>
  void for_each(index_t n, const F& f) const {
    if (n == 0) return;
    launches_.fetch_add(1, std::memory_order_relaxed);
    const F kernel = f;
#if defined(_OPENMP)
#pragma omp parallel for schedule(dynamic, 256) if (n >= 2048)
#endif
    for (std::int64_t i = 0; i < static_cast<std::int64_t>(n); ++i) kernel(static_cast<index_t>(i));
  }

  // Stable sort of the first n (key, value) pairs by the key's bits [0, end_bit) (a stable sort: the
  // same result as CUB's over the same bits).
  template <class Key>
  void sort_pairs(buffer<Key>& keys, buffer<std::uint32_t>& values, index_t n, int end_bit = 8 * sizeof(Key)) {
    static_assert(std::is_same_v<Key, std::uint64_t> || std::is_same_v<Key, std::uint32_t>,
                  "dem::backend::emulated_device::sort_pairs: Key must be std::uint64_t or std::uint32_t (as for backend::cuda)");
    if (n <= 1) return;
    // The alternate arrays backend::cuda's sort takes, of the same sizes, as buffers of this backend.
    key_alt_.discard_resize(static_cast<std::size_t>(n) * sizeof(Key));
    value_alt_.discard_resize(n);
    sorters_.get<Key>().sort(keys.data(), values.data(), n, end_bit, reinterpret_cast<Key*>(key_alt_.data()), value_alt_.data());
  }

  // In-place exclusive prefix sum of the first n entries; the total is reduced separately with a
  // 64-bit accumulator (the scanned 32-bit values wrap), as backend::cuda does.
  std::uint64_t exclusive_scan(buffer<std::uint32_t>& v, index_t n) {
    if (n == 0) return 0;
    count_read();  // the total
    std::uint32_t* p = v.data();
    std::uint64_t total = 0;
    for (index_t i = 0; i < n; ++i) total += p[i];
    std::uint32_t sum = 0;
    for (index_t i = 0; i < n; ++i) {
      const std::uint32_t x = p[i];
      p[i] = sum;
      sum += x;
    }
    return total;
  }

  template <class F>
  double reduce_sum(index_t n, const F& f) {
    if (n == 0) return 0.0;
    return reduce(n, f, [](double a, double b) { return a + b; });
  }

  // Maximum of f(i) over [0, n) (-1e308 when n == 0), as backend::cuda.
  template <class F>
  double reduce_max(index_t n, const F& f) {
    if (n == 0) return -1.0e308;
    return reduce(n, f, [](double a, double b) { return a > b ? a : b; });
  }

  // f(i) folded with op over [0, n) from `identity`, as backend::cuda: evaluated into scratch, then
  // folded as a tree (another association than the host's).
  template <class T, class F, class Op>
  T transform_reduce(index_t n, const F& f, const Op& op, const T& identity) const {
    if (n == 0) return identity;
    count_read();
    std::vector<T> v(n);
    for_each(n, evaluate_into<T, F>{f, v.data()});
    for (std::size_t width = 1; width < n; width *= 2)
      for (std::size_t i = 0; i + width < n; i += 2 * width) v[i] = op(v[i], v[i + width]);
    return op(identity, v[0]);
  }

  void synchronize() const {}
  // One device: nothing to select (backend::cuda selects the calling thread's device).
  static int current_device() { return 0; }
  static void use_device(int) {}

 private:
  // f evaluated into scratch, then reduced pairwise (a tree: another association than the host's).
  template <class F, class Op>
  double reduce(index_t n, const F& f, Op op) {
    count_read();
    values_.resize(n);
    double* v = values_.data();
    for_each(n, evaluate<F>{f, v});
    for (std::size_t width = 1; width < n; width *= 2)
      for (std::size_t i = 0; i + width < n; i += 2 * width) v[i] = op(v[i], v[i + width]);
    return v[0];
  }
  template <class F>
  struct evaluate {
    F f;
    double* out;
    void operator()(index_t i) const { out[i] = static_cast<double>(f(i)); }
  };

  template <class T, class F>
  struct evaluate_into {
    F f;
    T* out;
    void operator()(index_t i) const { out[i] = f(i); }
  };

  static void count_read() { host_reads_.fetch_add(1, std::memory_order_relaxed); }
  static inline std::atomic<std::uint64_t> launches_{0}, host_reads_{0};

  detail::radix_sorters sorters_;
  buffer<unsigned char> key_alt_;  // the sort's scratch (aligned for any key)
  buffer<std::uint32_t> value_alt_;
  std::vector<double> values_;
};

}  // namespace dem::backend
