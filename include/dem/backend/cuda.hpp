#pragma once
// backend::cuda — runs the toolkit's kernels on one NVIDIA GPU. Same interface and
// semantics as backend::host (see host.hpp); primitives are CUB device-wide algorithms on
// the default stream. Sorts are stable and reductions are run-to-run deterministic on a
// given GPU (CUB fixes the reduction tree per architecture; no atomics are used).
#if !defined(__CUDACC__)
#error "dem/backend/cuda.hpp must be compiled by nvcc (a .cu file or LANGUAGE CUDA)"
#endif

#include <cuda_runtime.h>

#include <cstddef>
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <cub/device/device_scan.cuh>
#include <cuda/functional>
#include <cuda/std/functional>

#include "dem/backend/allocation_error.hpp"
#include "dem/backend/memory_meter.hpp"
#include "dem/config.hpp"

namespace dem::backend {

namespace detail {

[[noreturn]] inline void cuda_fail(cudaError_t err, const char* what) {
  throw std::runtime_error(std::string("dem::backend::cuda: ") + what + " failed: " + cudaGetErrorString(err));
}

inline void cuda_check(cudaError_t err, const char* what) {
  if (err != cudaSuccess) cuda_fail(err, what);
}

}  // namespace detail

// Checks a CUDA runtime call; the message names the call as written.
#define DEM_CUDA_CHECK(call) ::dem::backend::detail::cuda_check((call), #call)

// True when the runtime sees at least one device; otherwise false with the reason in *why.
inline bool cuda_device_available(std::string* why = nullptr) {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) {
    (void)cudaGetLastError();  // clear it so the next checked call does not report it
    if (why) *why = cudaGetErrorString(err);
    return false;
  }
  if (count == 0) {
    if (why) *why = "no CUDA device found";
    return false;
  }
  return true;
}

namespace detail {

inline constexpr unsigned block_size = 256;
// Cap on the grid: grid-stride loops cover the rest, and the launch stays small for huge n.
inline constexpr std::uint64_t max_blocks = 1u << 20;

inline unsigned grid_for(std::uint64_t n) {
  const std::uint64_t blocks = (n + block_size - 1) / block_size;
  return static_cast<unsigned>(blocks < max_blocks ? blocks : max_blocks);
}

// 64-bit loop index: i + stride must not wrap when n is close to 2^32.
template <class F>
__global__ void __launch_bounds__(block_size) for_each_kernel(index_t n, F f) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    f(static_cast<index_t>(i));
}

// f(begin + i) as a double into out[i], i in [0, n).
template <class F>
__global__ void __launch_bounds__(block_size) evaluate_kernel(index_t begin, index_t n, F f, double* out) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    out[i] = static_cast<double>(f(static_cast<index_t>(begin + i)));
}

template <class T>
__global__ void __launch_bounds__(block_size) fill_kernel(T* p, std::uint64_t n, T value) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    p[i] = value;
}

inline void check_launch(const char* what) {
  const cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) cuda_fail(err, what);
}

}  // namespace detail

struct cuda {
  static constexpr const char* name = "cuda";
  static constexpr bool is_device = true;

  // A contiguous array in device memory. Move-only: a copy would be a hidden cudaMalloc.
  // Elements added by resize() are zeroed, matching host's value-initialisation.
  template <class T>
  class buffer {
    static_assert(std::is_trivially_copyable_v<T>,
                  "dem::backend::cuda::buffer<T>: T must be trivially copyable (it is moved with cudaMemcpy)");

   public:
    buffer() = default;
    explicit buffer(std::size_t n) { resize(n); }
    ~buffer() { release(); }
    buffer(const buffer&) = delete;
    buffer& operator=(const buffer&) = delete;
    buffer(buffer&& o) noexcept { swap(o); }
    buffer& operator=(buffer&& o) noexcept {
      if (this != &o) {
        release();
        swap(o);
      }
      return *this;
    }

    // Keeps the first min(old, n) elements; grows the allocation only when needed.
    void resize(std::size_t n) {
      const std::size_t kept = size_;  // release() below zeroes size_
      if (n > capacity_) {
        T* p = allocate(n);
        if (kept > 0) {
          const cudaError_t err = cudaMemcpy(p, ptr_, kept * sizeof(T), cudaMemcpyDeviceToDevice);
          if (err != cudaSuccess) {
            cudaFree(p);
            detail::cuda_fail(err, "cudaMemcpy (buffer::resize)");
          }
        }
        release();
        ptr_ = p;
        capacity_ = n;
      }
      if (n > kept) DEM_CUDA_CHECK(cudaMemset(ptr_ + kept, 0, (n - kept) * sizeof(T)));
      size_ = n;
    }
    void clear() { release(); }
    std::size_t size() const { return size_; }
    T* data() { return ptr_; }
    const T* data() const { return ptr_; }

    void assign(const std::vector<T>& src) { assign(src.data(), src.size()); }
    void assign(const T* src, std::size_t n) {
      discard_resize(n);
      if (n > 0) DEM_CUDA_CHECK(cudaMemcpy(ptr_, src, n * sizeof(T), cudaMemcpyHostToDevice));
    }
    void copy_to(std::vector<T>& dst) const {
      dst.resize(size_);
      copy_to(dst.data(), size_);
    }
    // Grows by n, keeping the contents (capacity at least doubles), and uploads src at the end.
    void append(const T* src, std::size_t n) {
      const std::size_t old = size_;
      if (old + n > capacity_) {
        resize(std::max(old + n, 2 * capacity_));
        size_ = old;
      }
      size_ = old + n;
      if (n > 0) DEM_CUDA_CHECK(cudaMemcpy(ptr_ + old, src, n * sizeof(T), cudaMemcpyHostToDevice));
    }
    void copy_to(T* dst, std::size_t n) const {
      if (n > 0) DEM_CUDA_CHECK(cudaMemcpy(dst, ptr_, n * sizeof(T), cudaMemcpyDeviceToHost));
    }
    std::vector<T> to_vector() const {
      std::vector<T> v;
      copy_to(v);
      return v;
    }
    void fill(const T& value) {
      if (size_ == 0) return;
      detail::fill_kernel<T><<<detail::grid_for(size_), detail::block_size>>>(ptr_, size_, value);
      detail::check_launch("buffer::fill kernel launch");
    }
    void swap(buffer& o) noexcept {
      std::swap(ptr_, o.ptr_);
      std::swap(size_, o.size_);
      std::swap(capacity_, o.capacity_);
    }
    std::size_t bytes() const { return capacity_ * sizeof(T); }

    // Sets the size to n without preserving contents (scratch space, or before an overwrite).
    void discard_resize(std::size_t n) {
      if (n > capacity_) {
        release();
        ptr_ = allocate(n);
        capacity_ = n;
      }
      size_ = n;
    }

   private:
    static T* allocate(std::size_t n) {
      if (n > std::size_t(-1) / sizeof(T)) throw allocation_error(name, n, sizeof(T), "the size overflows");
      void* p = nullptr;
      const cudaError_t err = cudaMalloc(&p, n * sizeof(T));
      if (err != cudaSuccess) {
        (void)cudaGetLastError();  // an allocation failure is not sticky: clear it for the next call
        throw allocation_error(name, n, sizeof(T), std::string("cudaMalloc: ") + cudaGetErrorString(err));
      }
      memory_meter<cuda>::allocated(n * sizeof(T));
      return static_cast<T*>(p);
    }
    void release() noexcept {
      if (ptr_) {
        cudaFree(ptr_);  // a destructor cannot throw; a failed free leaks at worst
        memory_meter<cuda>::released(capacity_ * sizeof(T));
      }
      ptr_ = nullptr;
      size_ = capacity_ = 0;
    }

    T* ptr_ = nullptr;
    std::size_t size_ = 0;
    std::size_t capacity_ = 0;
  };

  cuda() = default;
  // The members are scratch only: a copy starts with empty scratch, so backends copy freely.
  cuda(const cuda&) {}
  cuda& operator=(const cuda&) { return *this; }
  cuda(cuda&&) noexcept = default;
  cuda& operator=(cuda&&) noexcept = default;

  // Device memory this backend's buffers hold, now and at most since reset_memory_peak()
  // (backend/memory_meter.hpp; CUB's scratch included, the CUDA context not).
  static memory_use memory() noexcept { return memory_meter<cuda>::read(); }
  static void reset_memory_peak() noexcept { memory_meter<cuda>::reset_peak(); }
  // Scratch used only by a rebuild is freed when the rebuild is done with it (sim/contact_builder.hpp):
  // device memory is what limits the particle count. cudaFree waits for the device, but a rebuild
  // already waits to read its counts back.
  static constexpr bool keeps_rebuild_scratch = false;
  // Deferred detection (sim/deferred_detection.hpp) is not built for this backend yet: its build
  // thread needs per-thread default streams to overlap with the steps, untested without a GPU, and
  // its code would lengthen every CUDA compile (config.deferred_detection is refused).
  static constexpr bool runs_deferred_builds = false;
  void release_scratch() {
    key_alt_.clear();
    value_alt_.clear();
  }

  // Threads the current device keeps resident; 1 when there is no usable device.
  static int concurrency() {
    int dev = 0, sms = 0, per_sm = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, dev) != cudaSuccess ||
        sms * per_sm <= 0) {
      (void)cudaGetLastError();
      return 1;
    }
    return sms * per_sm;
  }

  // f(i) for i in [0, n). Iterations must be independent. F is copied into the kernel, so
  // it must be trivially copyable and its operator() callable on the device (DEM_HD).
  template <class F>
  void for_each(index_t n, const F& f) const {
    if (n == 0) return;
    detail::for_each_kernel<F><<<detail::grid_for(n), detail::block_size>>>(n, f);
    detail::check_launch("for_each kernel launch");
  }

  // Stable sort of the first n (key, value) pairs by the key's bits [0, end_bit) (CUB's LSD radix
  // sort: a pass per 7-8 bits, so callers pass the bits their keys use).
  template <class Key>
  void sort_pairs(buffer<Key>& keys, buffer<std::uint32_t>& values, index_t n, int end_bit = 8 * sizeof(Key)) {
    static_assert(std::is_same_v<Key, std::uint64_t> || std::is_same_v<Key, std::uint32_t>,
                  "dem::backend::cuda::sort_pairs: Key must be std::uint64_t or std::uint32_t");
    if (n <= 1) return;
    key_alt_.discard_resize(static_cast<std::size_t>(n) * sizeof(Key));
    value_alt_.discard_resize(n);
    // DoubleBuffer halves the scratch: CUB ping-pongs between our arrays and the alternates.
    cub::DoubleBuffer<Key> k(keys.data(), reinterpret_cast<Key*>(key_alt_.data()));
    cub::DoubleBuffer<std::uint32_t> v(values.data(), value_alt_.data());
    std::size_t temp = 0;
    if (end_bit <= 0) return;
    if (end_bit > int(8 * sizeof(Key))) end_bit = 8 * sizeof(Key);
    DEM_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, temp, k, v, n, 0, end_bit));
    DEM_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(workspace(temp), temp, k, v, n, 0, end_bit));
    if (k.Current() != keys.data())
      DEM_CUDA_CHECK(cudaMemcpy(keys.data(), k.Current(), n * sizeof(Key), cudaMemcpyDeviceToDevice));
    if (v.Current() != values.data())
      DEM_CUDA_CHECK(cudaMemcpy(values.data(), v.Current(), n * sizeof(std::uint32_t), cudaMemcpyDeviceToDevice));
  }

  // In-place exclusive prefix sum of the first n entries; returns the total. The total is
  // reduced separately with a 64-bit accumulator: the scanned values wrap at 2^32 (as on
  // host), so "last input + last output" would be wrong once the total passes 2^32.
  std::uint64_t exclusive_scan(buffer<std::uint32_t>& v, index_t n) {
    if (n == 0) return 0;
    std::uint32_t* p = v.data();
    std::uint64_t* total = reinterpret_cast<std::uint64_t*>(scalar());
    const ::cuda::std::plus<> plus{};
    std::size_t temp_reduce = 0, temp_scan = 0;
    DEM_CUDA_CHECK(cub::DeviceReduce::Reduce(nullptr, temp_reduce, p, total, n, plus, std::uint64_t{0}));
    DEM_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, temp_scan, p, n));
    void* ws = workspace(temp_reduce > temp_scan ? temp_reduce : temp_scan);
    DEM_CUDA_CHECK(cub::DeviceReduce::Reduce(ws, temp_reduce, p, total, n, plus, std::uint64_t{0}));
    DEM_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(ws, temp_scan, p, n));
    std::uint64_t result = 0;
    DEM_CUDA_CHECK(cudaMemcpy(&result, total, sizeof(result), cudaMemcpyDeviceToHost));
    return result;
  }

  // Sum of f(i) over [0, n) in double: evaluated into scratch in chunks, reduced by CUB.
  template <class F>
  double reduce_sum(index_t n, const F& f) {
    if (n == 0) return 0.0;
    return reduce(n, f, ::cuda::std::plus<>{}, 0.0, "reduce_sum evaluate kernel launch");
  }

  // Maximum of f(i) over [0, n) (-1e308 when n == 0), same floor as host.
  template <class F>
  double reduce_max(index_t n, const F& f) {
    if (n == 0) return -1.0e308;
    return reduce(n, f, ::cuda::maximum<>{}, -1.0e308, "reduce_max evaluate kernel launch");
  }

  // f(i) folded with op over [0, n) from `identity` (CUB's TransformReduce over the indices: no
  // scratch array of T). f and op must be callable on the device (DEM_HD); T trivially copyable.
  template <class T, class F, class Op>
  T transform_reduce(index_t n, const F& f, const Op& op, const T& identity) {
    static_assert(std::is_trivially_copyable_v<T>, "dem::backend::cuda::transform_reduce: T must be trivially copyable");
    if (n == 0) return identity;
    if (result_.size() < sizeof(T)) result_.discard_resize(sizeof(T));
    T* out = reinterpret_cast<T*>(result_.data());
    const thrust::counting_iterator<index_t> first(0);
    std::size_t temp = 0;
    DEM_CUDA_CHECK(cub::DeviceReduce::TransformReduce(nullptr, temp, first, out, n, op, f, identity));
    DEM_CUDA_CHECK(cub::DeviceReduce::TransformReduce(workspace(temp), temp, first, out, n, op, f, identity));
    T result;
    DEM_CUDA_CHECK(cudaMemcpy(&result, out, sizeof(T), cudaMemcpyDeviceToHost));
    return result;
  }

  // Waits for outstanding work; reports errors of earlier asynchronous kernels.
  void synchronize() const { DEM_CUDA_CHECK(cudaDeviceSynchronize()); }

  // The calling thread's device, and setting it on another thread (sim/deferred_detection.hpp: a
  // build thread works on its simulator's device).
  static int current_device() {
    int device = 0;
    DEM_CUDA_CHECK(cudaGetDevice(&device));
    return device;
  }
  static void use_device(int device) { DEM_CUDA_CHECK(cudaSetDevice(device)); }

 private:
  // f(i) evaluated as doubles into scratch, reduce_chunk at a time, each chunk reduced by CUB into
  // a partial, then the partials (for n <= reduce_chunk: one reduction, as a plain Reduce). The
  // scratch stays at most 8 MiB whatever n is. One CUB reduction is instantiated per operator, not
  // one per f as TransformReduce over the indices would: with the reductions of every simulator in a
  // unit, that quadrupled the CUB kernels nvcc compiles (CI, 2026-12-07).
  static constexpr index_t reduce_chunk = index_t(1) << 20;
  template <class F, class Op>
  double reduce(index_t n, const F& f, Op op, double init, const char* what) {
    const index_t chunks = (n - 1) / reduce_chunk + 1, width = n < reduce_chunk ? n : reduce_chunk;
    values_.discard_resize(std::size_t(width) + chunks);
    double* v = values_.data();
    double* partial = v + width;
    double* out = reinterpret_cast<double*>(scalar());
    std::size_t temp = 0, temp_partials = 0;
    DEM_CUDA_CHECK(cub::DeviceReduce::Reduce(nullptr, temp, v, partial, width, op, init));
    DEM_CUDA_CHECK(cub::DeviceReduce::Reduce(nullptr, temp_partials, partial, out, chunks, op, init));
    if (temp_partials > temp) temp = temp_partials;
    void* ws = workspace(temp);
    for (index_t k = 0; k < chunks; ++k) {
      const index_t begin = k * reduce_chunk, count = n - begin < reduce_chunk ? n - begin : reduce_chunk;
      detail::evaluate_kernel<F><<<detail::grid_for(count), detail::block_size>>>(begin, count, f, v);
      detail::check_launch(what);
      std::size_t bytes = temp;
      DEM_CUDA_CHECK(cub::DeviceReduce::Reduce(ws, bytes, v, partial + k, count, op, init));
    }
    std::size_t bytes = temp;
    DEM_CUDA_CHECK(cub::DeviceReduce::Reduce(ws, bytes, partial, out, chunks, op, init));
    double result = 0.0;
    DEM_CUDA_CHECK(cudaMemcpy(&result, out, sizeof(result), cudaMemcpyDeviceToHost));
    return result;
  }

  // CUB scratch; grows only, so steady-state calls do not allocate. Never null: CUB reads
  // a null scratch pointer as "query the size" and would silently do nothing.
  void* workspace(std::size_t bytes) {
    if (bytes == 0) bytes = 1;
    if (bytes > workspace_.size()) workspace_.discard_resize(bytes);
    return workspace_.data();
  }
  // One 8-byte device cell for a reduction result (uint64 or double).
  void* scalar() {
    if (scalar_.size() == 0) scalar_.discard_resize(1);
    return scalar_.data();
  }

  buffer<unsigned char> workspace_;
  buffer<unsigned char> key_alt_;
  buffer<std::uint32_t> value_alt_;
  buffer<double> values_;  // reduce's chunk of values and its partials (at most 8 MiB)
  buffer<std::uint64_t> scalar_;
  buffer<unsigned char> result_;  // transform_reduce's result (any trivially copyable T)
};

}  // namespace dem::backend
