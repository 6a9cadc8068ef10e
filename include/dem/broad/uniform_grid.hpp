#pragma once
// Broad phase on a grid of levels (Blaze-DEM's uniform grid; the levels follow Ogarko & Luding's
// hierarchical grid): each particle is binned by its search radius into the level whose cells
// (edge 2 R_L + detection gap; R_L from the largest radius down to the smallest, chosen by
// contact_builder::grid_for) are the finest that hold it, particles are sorted
// by cell (and physically reordered, for locality), the occupied cells are compacted into a sorted
// key array, each occupied cell finds its 9 neighbour rows (27 cells) with binary searches, and
// each particle scans its cell's rows for partners of its own level and, for each pair of levels,
// the side whose searches cost less (contact_builder::locate_levels; as a rule the one with fewer
// particles) searches the other's cells within its reach (for_each_other_level_candidate). A pair of two levels is found once, from the side chosen for the two levels; a pair
// within a level once, by its lower storage index. One level (a monodisperse
// bed, or config.broad_phase_levels = 1) is the plain uniform grid. The grid is never stored
// densely, so a 2 km domain of 1 mm grains costs memory in proportion to the particles, not the cells.
//
// Keys are level-major (level L's keys start at level[L].base) and x-fastest within a level, so the
// three cells of one x-row are consecutive keys and 9 searches cover 27 cells. Inactive particles
// get key `inactive_key` and sort last.
#include <cstdint>

#include "dem/config.hpp"
#include "dem/math/vec3.hpp"

namespace dem::broad {

inline constexpr std::uint64_t inactive_key = ~std::uint64_t{0};
inline constexpr int max_levels = 8;

struct grid_level {
  double inv_cell = 1;
  double cell = 1;    // edge (m): 2 radius + the detection gap
  double radius = 0;  // the largest search radius binned here
  std::uint32_t dims[3] = {1, 1, 1};
  std::uint64_t base = 0;  // first key of the level
  std::uint32_t cell_begin = 0, cell_end = 0;  // its occupied cells: [cell_begin, cell_end) of the compacted cells
  std::uint32_t search_finer = 0;  // bit l: this level's particles find their pairs with level l (> this one)
};

struct grid {
  grid_level level[max_levels];
  int levels = 1;
  DEM_HD std::uint64_t linear(int l, std::uint32_t x, std::uint32_t y, std::uint32_t z) const {
    const grid_level& g = level[l];
    return g.base + x + static_cast<std::uint64_t>(g.dims[0]) * (y + static_cast<std::uint64_t>(g.dims[1]) * z);
  }
  // The finest level whose radius holds r (level 0 holds every radius).
  DEM_HD int level_of_radius(double r) const {
    int l = 0;
    while (l + 1 < levels && r <= level[l + 1].radius) ++l;
    return l;
  }
  DEM_HD int level_of_key(std::uint64_t key) const {
    int l = 0;
    while (l + 1 < levels && key >= level[l + 1].base) ++l;
    return l;
  }
  // Keys in use: every level's cells (the last level's keys end there).
  std::uint64_t key_count() const {
    const grid_level& g = level[levels - 1];
    return g.base + std::uint64_t{g.dims[0]} * g.dims[1] * g.dims[2];
  }
  // Cell coordinates of a key of level l.
  DEM_HD void cell_of_key(int l, std::uint64_t key, std::uint32_t c[3]) const {
    const grid_level& g = level[l];
    const std::uint64_t local = key - g.base;
    c[0] = static_cast<std::uint32_t>(local % g.dims[0]);
    c[1] = static_cast<std::uint32_t>((local / g.dims[0]) % g.dims[1]);
    c[2] = static_cast<std::uint32_t>(local / (static_cast<std::uint64_t>(g.dims[0]) * g.dims[1]));
  }
};

// key[i] = cell of particle i in its level (inactive ones: inactive_key); value[i] = i. The level
// is chosen by radius[i] + extra, a bound on the radius the particle searches with.
template <class Space>
struct cell_key_kernel {
  typename Space::params coord;
  grid g;
  const typename Space::position* pos;
  const typename Space::real* radius;  // read only with more than one level
  double extra;
  const std::uint32_t* active;
  std::uint64_t* key;
  std::uint32_t* value;
  DEM_HD void operator()(index_t i) const {
    value[i] = i;
    if (active && !active[i]) { key[i] = inactive_key; return; }  // null `active`: every particle binned
    const int l = g.levels > 1 ? g.level_of_radius(static_cast<double>(radius[i]) + extra) : 0;
    std::uint32_t c[3];
    Space::cell_of(coord, pos[i], g.level[l].inv_cell, g.level[l].dims, c);
    key[i] = g.linear(l, c[0], c[1], c[2]);
  }
};

// The smallest radius + extra of the active particles, as a maximum (the backends reduce maxima).
template <class Real>
struct negative_radius {
  const Real* radius;
  const std::uint32_t* active;
  double extra;
  DEM_HD double operator()(index_t i) const { return active[i] ? -(static_cast<double>(radius[i]) + extra) : -1.0e308; }
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

// The 9 rows of 3 cells (x - 1 .. x + 1) around an occupied cell, in (dz, dy) order, in the cell's
// own level: row r of cell u starts at compacted cell row_first[9 u + r] (num_cells where the row
// lies outside the grid). Searched once per occupied cell, not once per particle and pass:
// particles share their cell's.
struct cell_rows_kernel {
  grid g;
  const std::uint64_t* cell_key;
  std::uint32_t num_cells;
  std::uint32_t* row_first;
  DEM_HD void operator()(index_t u) const {
    const std::uint64_t key = cell_key[u];
    const int l = g.level_of_key(key);
    const grid_level& lv = g.level[l];
    std::uint32_t c[3];
    g.cell_of_key(l, key, c);
    const std::uint32_t x0 = c[0] > 0 ? c[0] - 1 : 0;
    int r = 0;
    for (int dz = -1; dz <= 1; ++dz)
      for (int dy = -1; dy <= 1; ++dy, ++r) {
        const std::int64_t yy = static_cast<std::int64_t>(c[1]) + dy, zz = static_cast<std::int64_t>(c[2]) + dz;
        const bool inside = yy >= 0 && yy < lv.dims[1] && zz >= 0 && zz < lv.dims[2];
        row_first[9 * static_cast<std::size_t>(u) + r] =
            inside ? lower_bound(cell_key, num_cells, g.linear(l, x0, static_cast<std::uint32_t>(yy), static_cast<std::uint32_t>(zz))) : num_cells;
      }
  }
};

// Calls visit(j) for every particle j > i in the 27 cells around particle i (sorted order), i in
// the occupied cell `u` (compacted index) of level l, through the rows cell_rows_kernel found for
// u: the partners of i's own level.
template <class Visit>
DEM_HD inline void for_each_neighbour_candidate(const grid& g, int l, index_t i, std::uint32_t u, const std::uint64_t* cell_key,
                                                const std::uint32_t* cell_start, const std::uint32_t* row_first,
                                                std::uint32_t num_cells, Visit&& visit) {
  const std::uint64_t key = cell_key[u];
  const grid_level& lv = g.level[l];
  const std::uint64_t x = (key - lv.base) % lv.dims[0];
  const std::uint32_t dx1 = x + 1 < lv.dims[0] ? 1 : 0;  // the row's last cell: x + 1, or x at the grid's edge
  for (int r = 0; r < 9; ++r) {
    const int dz = r / 3 - 1, dy = r % 3 - 1;
    // The row's last key: this cell's key moved by (dx1, dy, dz); rows outside the grid start at num_cells.
    const std::uint64_t k1 = key + dx1 + static_cast<std::int64_t>(dy) * lv.dims[0] + static_cast<std::int64_t>(dz) * lv.dims[0] * lv.dims[1];
    for (std::uint32_t c = row_first[9 * static_cast<std::size_t>(u) + r]; c < num_cells && cell_key[c] <= k1; ++c) {
      const std::uint32_t end = cell_start[c + 1];
      std::uint32_t j = cell_start[c];
      if (j <= i) j = i + 1;
      for (; j < end; ++j) visit(j);
    }
  }
}

// Calls visit(j) for every particle j in the cells of level l that meet the box p -/+ half:
// a row search per (y, z) in the level's own range of occupied cells (none for an empty level).
template <class Space, class Visit>
DEM_HD inline void for_each_in_box(const grid& g, int l, const typename Space::params& coord, const typename Space::position& p, double half,
                                   const std::uint64_t* cell_key, const std::uint32_t* cell_start, Visit&& visit) {
  const grid_level& lv = g.level[l];
  if (lv.cell_begin == lv.cell_end) return;
  std::uint32_t lo[3], hi[3];
  Space::cell_span(coord, p, half, lv.inv_cell, lv.dims, lo, hi);
  const std::uint64_t* keys = cell_key + lv.cell_begin;
  const std::uint32_t count = lv.cell_end - lv.cell_begin;
  for (std::uint32_t z = lo[2]; z <= hi[2]; ++z)
    for (std::uint32_t y = lo[1]; y <= hi[1]; ++y) {
      const std::uint64_t k0 = g.linear(l, lo[0], y, z), k1 = g.linear(l, hi[0], y, z);
      for (std::uint32_t u = lower_bound(keys, count, k0); u < count && keys[u] <= k1; ++u)
        for (std::uint32_t j = cell_start[lv.cell_begin + u]; j < cell_start[lv.cell_begin + u + 1]; ++j) visit(j);
    }
}

// The partners of a particle of level l in the other levels, the particle searching with radius
// `reach` (its radius + the detection gap): those of level m lie within reach + R_m of p. A pair of
// levels m < l is searched from one side only: by the particles of l in the cells of m (coarser:
// at most two cells a side), or, where level m's `search_finer` bit l is set, by the particles of
// m in the cells of l (contact_builder chooses the side whose searches cost less: the fewer
// particles, as a rule).
template <class Space, class Visit>
DEM_HD inline void for_each_other_level_candidate(const grid& g, int l, const typename Space::params& coord, const typename Space::position& p,
                                                  double reach, const std::uint64_t* cell_key, const std::uint32_t* cell_start, Visit&& visit) {
  for (int m = 0; m < l; ++m)
    if (!((g.level[m].search_finer >> l) & 1u)) for_each_in_box<Space>(g, m, coord, p, reach + g.level[m].radius, cell_key, cell_start, visit);
  for (int m = l + 1; m < g.levels; ++m)
    if ((g.level[l].search_finer >> m) & 1u) for_each_in_box<Space>(g, m, coord, p, reach + g.level[m].radius, cell_key, cell_start, visit);
}

// first[l] = the first compacted cell of level l and first[levels + 1 + l] its first particle
// (first[levels] = num_cells, first[2 levels + 1] = the particles binned): the levels' ranges.
struct level_first_kernel {
  grid g;
  const std::uint64_t* cell_key;
  const std::uint32_t* cell_start;  // num_cells + 1 entries
  std::uint32_t num_cells;
  std::uint32_t* first;
  DEM_HD void operator()(index_t l) const {
    const std::uint32_t c = static_cast<int>(l) < g.levels ? lower_bound(cell_key, num_cells, g.level[l].base) : num_cells;
    first[l] = c;
    first[g.levels + 1 + l] = cell_start[c];
  }
};

}  // namespace dem::broad
