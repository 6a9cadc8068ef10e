#pragma once
// A stable LSD radix sort of (key, value) pairs on the host, used by backend::host and
// backend::emulated_device (as CUB's radix sort is by backend::cuda). 8-bit digits; passes whose
// digit is the same for every key are skipped, so keys that use few bits (cell keys, incident
// keys of small systems) cost few passes. A stable sort's result is unique, so it is the same for
// any thread count: each thread histograms and scatters one contiguous range, and the ranges'
// offsets are laid out in thread order.
#include <algorithm>
#include <array>
#include <cstdint>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

#include "dem/backend/allocation_error.hpp"
#include "dem/config.hpp"

#if defined(_OPENMP)
#include <omp.h>
#endif

namespace dem::backend::detail {

template <class Key>
class radix_sorter {
  static_assert(std::is_unsigned_v<Key>, "radix_sorter: keys must be unsigned integers");
  static constexpr int digits = sizeof(Key);
  static constexpr index_t parallel_threshold = 1 << 14;

 public:
  // Sorts the first n pairs by the key's bits [0, end_bit), stably (the bits above are carried, not
  // compared: backend::cuda's radix sort takes the same bound).
  // The scratch (n keys and n values) is the sorter's own, kept between calls, unless the caller
  // passes its own (backend::emulated_device: its buffers, as backend::cuda's sort takes).
  void sort(Key* keys, std::uint32_t* values, index_t n, int end_bit = 8 * sizeof(Key), Key* key_tmp = nullptr,
            std::uint32_t* value_tmp = nullptr) {
    if (n <= 1) return;
    mask_ = end_bit >= int(8 * sizeof(Key)) ? ~Key{0} : (Key{1} << end_bit) - 1;
    Key varying = 0;
    for (index_t i = 1; i < n; ++i) varying |= keys[i] ^ keys[0];
    varying &= mask_;
    if (!varying) return;
    if (!key_tmp || !value_tmp) {
      grow(key_tmp_, n);
      grow(value_tmp_, n);
      key_tmp = key_tmp_.data();
      value_tmp = value_tmp_.data();
    }
    Key* k_in = keys;
    Key* k_out = key_tmp;
    std::uint32_t* v_in = values;
    std::uint32_t* v_out = value_tmp;
    for (int d = 0; d < digits; ++d) {
      const int shift = 8 * d;
      if (!((varying >> shift) & 0xFF)) continue;
      pass(k_in, v_in, k_out, v_out, n, shift);
      std::swap(k_in, k_out);
      std::swap(v_in, v_out);
    }
    if (k_in != keys) {
      std::copy_n(k_in, n, keys);
      std::copy_n(v_in, n, values);
    }
  }

 private:
  template <class V>
  static void grow(V& v, std::size_t n) {
    try {
      v.resize(n);
    } catch (const std::bad_alloc&) {
      throw allocation_error("host (radix-sort scratch)", n, sizeof(typename V::value_type), "out of memory");
    }
  }

  // One stable counting pass on the digit at `shift`, by `threads` contiguous ranges.
  void histogram(const Key* k_in, index_t n, int shift, int t, int threads) {
    std::uint64_t* h = offsets_.data() + 256 * static_cast<std::size_t>(t);
    std::fill(h, h + 256, 0);
    const auto [b, e] = range(n, t, threads);
    for (index_t i = b; i < e; ++i) ++h[((k_in[i] & mask_) >> shift) & 0xFF];
  }
  void layout(int threads) {  // digit-major, thread-minor: stable across the threads' ranges
    std::uint64_t sum = 0;
    for (int digit = 0; digit < 256; ++digit)
      for (int t = 0; t < threads; ++t) {
        std::uint64_t& h = offsets_[256 * static_cast<std::size_t>(t) + digit];
        const std::uint64_t c = h;
        h = sum;
        sum += c;
      }
  }
  void scatter(const Key* k_in, const std::uint32_t* v_in, Key* k_out, std::uint32_t* v_out, index_t n, int shift, int t, int threads) {
    std::uint64_t* h = offsets_.data() + 256 * static_cast<std::size_t>(t);
    const auto [b, e] = range(n, t, threads);
    for (index_t i = b; i < e; ++i) {
      const std::uint64_t at = h[((k_in[i] & mask_) >> shift) & 0xFF]++;
      k_out[at] = k_in[i];
      v_out[at] = v_in[i];
    }
  }
  static std::pair<index_t, index_t> range(index_t n, int t, int threads) {
    return {static_cast<index_t>(std::uint64_t(n) * t / threads), static_cast<index_t>(std::uint64_t(n) * (t + 1) / threads)};
  }

  void pass(const Key* k_in, const std::uint32_t* v_in, Key* k_out, std::uint32_t* v_out, index_t n, int shift) {
#if defined(_OPENMP)
    if (n >= parallel_threshold && omp_get_max_threads() > 1) {
      int threads = 1;
#pragma omp parallel
      {
#pragma omp single
        {
          threads = omp_get_num_threads();
          offsets_.assign(static_cast<std::size_t>(threads) * 256, 0);
        }  // implicit barrier
        const int t = omp_get_thread_num();
        histogram(k_in, n, shift, t, threads);
#pragma omp barrier
#pragma omp single
        layout(threads);
        scatter(k_in, v_in, k_out, v_out, n, shift, t, threads);
      }
      return;
    }
#endif
    offsets_.assign(256, 0);
    histogram(k_in, n, shift, 0, 1);
    layout(1);
    scatter(k_in, v_in, k_out, v_out, n, shift, 0, 1);
  }

  Key mask_ = ~Key{0};  // the bits that are compared
  std::vector<Key> key_tmp_;
  std::vector<std::uint32_t> value_tmp_;
  std::vector<std::uint64_t> offsets_;
};

// One sorter per key type, kept by a backend (its scratch is reused across calls).
struct radix_sorters {
  radix_sorter<std::uint32_t> u32;
  radix_sorter<std::uint64_t> u64;
  template <class Key>
  radix_sorter<Key>& get() {
    if constexpr (std::is_same_v<Key, std::uint32_t>) return u32;
    else return u64;
  }
};

}  // namespace dem::backend::detail
