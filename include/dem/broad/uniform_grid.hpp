#pragma once
// Broad phase on a uniform grid (Blaze-DEM): each particle is binned to a cell of edge
// 2 r_max + margin, particles are sorted by cell (and physically reordered, for locality), the
// occupied cells are compacted into a sorted key array, and each particle searches the 27 cells
// around it with binary searches. The grid is never stored densely, so a 2 km domain of 1 mm
// grains costs memory in proportion to the particles, not the cells.
//
// Keys are x-fastest linear cell indices, so the three cells of one x-row are consecutive keys
// and 9 searches cover the 27 cells. Inactive particles get key `inactive_key` and sort last.
#include <cstdint>

#include "dem/config.hpp"
#include "dem/math/vec3.hpp"

namespace dem::broad {

inline constexpr std::uint64_t inactive_key = ~std::uint64_t{0};

struct grid {
  double inv_cell = 1;
  std::uint32_t dims[3] = {1, 1, 1};
  DEM_HD std::uint64_t linear(std::uint32_t x, std::uint32_t y, std::uint32_t z) const {
    return x + static_cast<std::uint64_t>(dims[0]) * (y + static_cast<std::uint64_t>(dims[1]) * z);
  }
};

// key[i] = cell of particle i; value[i] = i.
template <class Space>
struct cell_key_kernel {
  typename Space::params coord;
  grid g;
  const typename Space::position* pos;
  const std::uint32_t* active;
  std::uint64_t* key;
  std::uint32_t* value;
  DEM_HD void operator()(index_t i) const {
    value[i] = i;
    if (!active[i]) { key[i] = inactive_key; return; }
    std::uint32_t c[3];
    Space::cell_of(coord, pos[i], g.inv_cell, g.dims, c);
    key[i] = g.linear(c[0], c[1], c[2]);
  }
};

// out[i*stride + k] = in[perm[i]*stride + k]: reorders one particle array after the sort.
template <class T>
struct permute_kernel {
  const std::uint32_t* perm;
  const T* in;
  T* out;
  std::uint32_t stride;
  DEM_HD void operator()(index_t i) const {
    for (std::uint32_t k = 0; k < stride; ++k) out[i * stride + k] = in[perm[i] * stride + k];
  }
};

// head[i] = 1 where a new occupied cell starts in the sorted keys.
struct cell_head_kernel {
  const std::uint64_t* key;
  std::uint32_t* head;
  DEM_HD void operator()(index_t i) const {
    head[i] = (key[i] != inactive_key && (i == 0 || key[i] != key[i - 1])) ? 1u : 0u;
  }
};

// After an exclusive scan of `head` into `slot`: compact the occupied cells.
struct cell_compact_kernel {
  const std::uint64_t* key;
  const std::uint32_t* head;  // original flags
  const std::uint32_t* slot;  // exclusive scan of the flags
  std::uint64_t* cell_key;
  std::uint32_t* cell_start;
  DEM_HD void operator()(index_t i) const {
    if (head[i]) {
      cell_key[slot[i]] = key[i];
      cell_start[slot[i]] = i;
    }
  }
};

DEM_HD inline std::uint32_t lower_bound(const std::uint64_t* a, std::uint32_t n, std::uint64_t v) {
  std::uint32_t lo = 0, hi = n;
  while (lo < hi) {
    const std::uint32_t mid = lo + (hi - lo) / 2;
    if (a[mid] < v) lo = mid + 1; else hi = mid;
  }
  return lo;
}

// Calls visit(j) for every particle j > i in the 27 cells around particle i (sorted order).
template <class Space, class Visit>
DEM_HD inline void for_each_neighbour_candidate(const typename Space::params& coord, const grid& g,
                                                const typename Space::position& p, index_t i,
                                                const std::uint64_t* cell_key, const std::uint32_t* cell_start,
                                                std::uint32_t num_cells, Visit&& visit) {
  std::uint32_t c[3];
  Space::cell_of(coord, p, g.inv_cell, g.dims, c);
  const std::uint32_t x0 = c[0] > 0 ? c[0] - 1 : 0;
  const std::uint32_t x1 = c[0] + 1 < g.dims[0] ? c[0] + 1 : c[0];
  for (int dz = -1; dz <= 1; ++dz) {
    const std::int64_t z = static_cast<std::int64_t>(c[2]) + dz;
    if (z < 0 || z >= g.dims[2]) continue;
    for (int dy = -1; dy <= 1; ++dy) {
      const std::int64_t y = static_cast<std::int64_t>(c[1]) + dy;
      if (y < 0 || y >= g.dims[1]) continue;
      const std::uint64_t k0 = g.linear(x0, static_cast<std::uint32_t>(y), static_cast<std::uint32_t>(z));
      const std::uint64_t k1 = g.linear(x1, static_cast<std::uint32_t>(y), static_cast<std::uint32_t>(z));
      for (std::uint32_t u = lower_bound(cell_key, num_cells, k0); u < num_cells && cell_key[u] <= k1; ++u) {
        const std::uint32_t end = cell_start[u + 1];
        std::uint32_t j = cell_start[u];
        if (j <= i) j = i + 1;
        for (; j < end; ++j) visit(j);
      }
    }
  }
}

}  // namespace dem::broad
