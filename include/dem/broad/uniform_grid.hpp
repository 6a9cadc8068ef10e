#pragma once
// Broad phase on a uniform grid (Blaze-DEM): each particle is binned to a cell of edge
// 2 r_max + margin, particles are sorted by cell (and physically reordered, for locality), the
// occupied cells are compacted into a sorted key array, each occupied cell finds its 9 neighbour
// rows (27 cells) with binary searches, and each particle scans its cell's rows. The grid is never stored densely, so a 2 km domain of 1 mm
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

// key[i] = cell of particle i (inactive ones: inactive_key); value[i] = i.
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
    if (active && !active[i]) { key[i] = inactive_key; return; }  // null `active`: every particle binned
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

// First index in the sorted a[0, n) whose value is >= v. Branch-free (the comparison selects the
// half): a branching binary search mispredicts about every other step, which made the pair search
// cost more than the particles' distance checks.
DEM_HD inline std::uint32_t lower_bound(const std::uint64_t* a, std::uint32_t n, std::uint64_t v) {
  if (n == 0) return 0;
  std::uint32_t first = 0, len = n;
  while (len > 1) {
    const std::uint32_t half = len / 2;
    first = a[first + half] < v ? first + half : first;
    len -= half;
  }
  return first + (a[first] < v ? 1u : 0u);
}

// The 9 rows of 3 cells (x - 1 .. x + 1) around an occupied cell, in (dz, dy) order: row r of cell
// u starts at compacted cell row_first[9 u + r] (num_cells where the row lies outside the grid).
// Searched once per occupied cell, not once per particle and pass: particles share their cell's.
struct cell_rows_kernel {
  grid g;
  const std::uint64_t* cell_key;
  std::uint32_t num_cells;
  std::uint32_t* row_first;
  DEM_HD void operator()(index_t u) const {
    const std::uint64_t key = cell_key[u];
    const auto x = static_cast<std::uint32_t>(key % g.dims[0]);
    const auto y = static_cast<std::uint32_t>((key / g.dims[0]) % g.dims[1]);
    const auto z = static_cast<std::uint32_t>(key / (static_cast<std::uint64_t>(g.dims[0]) * g.dims[1]));
    const std::uint32_t x0 = x > 0 ? x - 1 : 0;
    int r = 0;
    for (int dz = -1; dz <= 1; ++dz)
      for (int dy = -1; dy <= 1; ++dy, ++r) {
        const std::int64_t yy = static_cast<std::int64_t>(y) + dy, zz = static_cast<std::int64_t>(z) + dz;
        const bool inside = yy >= 0 && yy < g.dims[1] && zz >= 0 && zz < g.dims[2];
        row_first[9 * static_cast<std::size_t>(u) + r] =
            inside ? lower_bound(cell_key, num_cells, g.linear(x0, static_cast<std::uint32_t>(yy), static_cast<std::uint32_t>(zz))) : num_cells;
      }
  }
};

// Calls visit(j) for every particle j > i in the 27 cells around particle i (sorted order), i in
// the occupied cell `u` (compacted index), through the rows cell_rows_kernel found for u.
template <class Visit>
DEM_HD inline void for_each_neighbour_candidate(const grid& g, index_t i, std::uint32_t u, const std::uint64_t* cell_key,
                                                const std::uint32_t* cell_start, const std::uint32_t* row_first,
                                                std::uint32_t num_cells, Visit&& visit) {
  const std::uint64_t key = cell_key[u];
  const auto x = static_cast<std::uint32_t>(key % g.dims[0]);
  const std::uint32_t dx1 = x + 1 < g.dims[0] ? 1 : 0;  // the row's last cell: x + 1, or x at the grid's edge
  for (int r = 0; r < 9; ++r) {
    const int dz = r / 3 - 1, dy = r % 3 - 1;
    // The row's last key: this cell's key moved by (dx1, dy, dz); rows outside the grid start at num_cells.
    const std::uint64_t k1 = key + dx1 + static_cast<std::int64_t>(dy) * g.dims[0] + static_cast<std::int64_t>(dz) * g.dims[0] * g.dims[1];
    for (std::uint32_t c = row_first[9 * static_cast<std::size_t>(u) + r]; c < num_cells && cell_key[c] <= k1; ++c) {
      const std::uint32_t end = cell_start[c + 1];
      std::uint32_t j = cell_start[c];
      if (j <= i) j = i + 1;
      for (; j < end; ++j) visit(j);
    }
  }
}

}  // namespace dem::broad
