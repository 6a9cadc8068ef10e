#pragma once
// The contact list: candidate pairs within the detection margin, built from the broad phase in
// two passes (count, scan, fill), oriented so that A has the lower particle id. Orientation by
// id (not by storage index) means a pair never swaps sides across rebuilds, so history needs
// no transformation. Each rebuild carries history over by looking the pair up in the previous
// list: among the old incident entries of A's storage index before the cell sort, sorted by partner
// id (carry_history_by_partner_kernel); pairs that are new start from zero-initialised history.
// Forces are gathered per particle through an incident list (CSR by particle, each particle's entries
// in partner-id order: incident_*_kernel), which makes the summation order fixed: same bits for any thread count, no float atomics.
#include <cstdint>

#include "dem/backend/atomic.hpp"
#include "dem/broad/uniform_grid.hpp"
#include "dem/config.hpp"
#include "dem/family/rule.hpp"

namespace dem::contact {

// Count (Fill = false) or write (Fill = true) the candidate pairs of each particle.
template <class Space, bool Fill>
struct pair_search_kernel {
  typename Space::params coord;
  broad::grid g;
  const typename Space::position* pos;
  const typename Space::real* radius;
  const std::uint32_t* id;
  const std::uint64_t* cell_key;
  const std::uint32_t* cell_start;
  const std::uint32_t* row_first;  // broad::cell_rows_kernel
  const std::uint32_t* head;       // 1 where particle i starts an occupied cell (broad::cell_head_kernel)
  const std::uint32_t* slot;       // exclusive scan of head: particle i is in occupied cell slot[i] + head[i] - 1
  std::uint32_t num_cells;
  typename Space::real margin;
  std::uint32_t* count;         // Fill = false: per particle; Fill = true: offsets (exclusive scan)
  std::uint32_t* pair_a;        // Fill = true only
  std::uint32_t* pair_b;
  family::mask_view families;  // pairs of families whose contacts are disabled are not listed
  DEM_HD void operator()(index_t i) const {
    using Real = typename Space::real;
    const typename Space::position pi = pos[i];
    const Real ri = radius[i] + margin;
    std::uint32_t n = 0;
    const std::uint32_t base = Fill ? count[i] : 0;
    const bool masked = families.active();
    auto visit = [&](std::uint32_t j) {
      const vec3<Real> d = Space::difference(coord, pi, pos[j]);
      const Real reach = ri + radius[j];
      if (norm2(d) < reach * reach && !(masked && families.pair_disabled(i, j))) {
        if constexpr (Fill) {
          const bool i_first = id[i] < id[j];
          pair_a[base + n] = i_first ? i : j;
          pair_b[base + n] = i_first ? j : i;
        }
        ++n;
      }
    };
    const std::uint32_t u = slot[i] + head[i] - 1;
    const int l = g.levels > 1 ? g.level_of_key(cell_key[u]) : 0;
    broad::for_each_neighbour_candidate(g, l, i, u, cell_key, cell_start, row_first, num_cells, visit);
    if (g.levels > 1)  // partners in the other levels, where this level searches them
      broad::for_each_other_level_candidate<Space>(g, l, coord, pi, static_cast<double>(ri), cell_key, cell_start, visit);
    if constexpr (!Fill) count[i] = n;
  }
};

DEM_HD inline std::uint64_t pair_key(std::uint32_t id_a, std::uint32_t id_b) {
  return (static_cast<std::uint64_t>(id_a) << 32) | id_b;
}

// The previous list's pairs, storage indices replaced by ids in place (before the cell sort moves
// the particles), for carry_history_by_partner_kernel.
struct pair_ids_kernel {
  std::uint32_t* pair_a;
  std::uint32_t* pair_b;
  const std::uint32_t* id;
  DEM_HD void operator()(index_t c) const {
    pair_a[c] = id[pair_a[c]];
    pair_b[c] = id[pair_b[c]];
  }
};

// History of each new pair (a, b), carried from the previous list or zeroed. The previous list is
// still indexed by the storage order before this build's cell sort: a's old index is perm[a]
// (particles stored since that build have none below old_particles), and its old incident entries,
// sorted by partner id, are searched for b's id. The same values as a search by id key; no keys
// held between builds, no sort of them.
// The other particle of incident entry e (entry 2c is pair c seen from A, 2c + 1 from B).
DEM_HD inline std::uint32_t partner_of_entry(std::uint32_t e, const std::uint32_t* pair_a, const std::uint32_t* pair_b) {
  return (e & 1u) ? pair_a[e >> 1] : pair_b[e >> 1];
}

// The old incident entry of particle `oa` (an index into the old incident lists, sorted by partner
// id) whose partner has id `target`, or ~0u; partner(e) gives an entry's partner id.
template <class Partner>
DEM_HD inline std::uint32_t find_incident_entry(const std::uint32_t* old_offset, const std::uint32_t* old_entry, std::uint32_t oa,
                                                std::uint32_t target, const Partner& partner) {
  const std::uint32_t end = old_offset[oa + 1];
  std::uint32_t lo = old_offset[oa], hi = end;
  while (lo < hi) {
    const std::uint32_t mid = lo + (hi - lo) / 2;
    if (partner(old_entry[mid]) < target) lo = mid + 1; else hi = mid;
  }
  return lo < end && partner(old_entry[lo]) == target ? old_entry[lo] : ~0u;
}

template <class History>
struct carry_history_by_partner_kernel {
  const std::uint32_t* pair_a;
  const std::uint32_t* pair_b;
  const std::uint32_t* id;
  const std::uint32_t* perm;  // perm[new storage index] = old storage index
  std::uint32_t old_particles;  // particles the old incident offsets cover
  const std::uint32_t* old_offset;
  const std::uint32_t* old_entry;
  const std::uint32_t* old_id_a;  // the old pairs' ids (pair_ids_kernel)
  const std::uint32_t* old_id_b;
  const History* old_history;
  History* history;
  DEM_HD void operator()(index_t c) const {
    const std::uint32_t oa = perm[pair_a[c]];
    History h{};
    if (oa < old_particles) {
      auto partner = [&](std::uint32_t e) { return partner_of_entry(e, old_id_a, old_id_b); };
      const std::uint32_t e = find_incident_entry(old_offset, old_entry, oa, id[pair_b[c]], partner);
      if (e != ~0u) h = old_history[e >> 1];
    }
    history[c] = h;
  }
};

// A deferred build's carry (sim/deferred_detection.hpp): for each new pair, the index of the same
// pair in the list serving while the build ran (its pairs still storage indices of the order the
// build started from, old_id giving their ids), or ~0u for a new pair. The history itself is
// gathered when the list is applied (gather_history_kernel), from the history of that moment.
struct carry_index_kernel {
  const std::uint32_t* pair_a;
  const std::uint32_t* pair_b;
  const std::uint32_t* id;      // per new storage index
  const std::uint32_t* perm;    // perm[new storage index] = old storage index
  std::uint32_t old_particles;  // particles the old incident offsets cover (0: nothing to carry)
  const std::uint32_t* old_offset;
  const std::uint32_t* old_entry;
  const std::uint32_t* old_pair_a;  // storage indices of the old order
  const std::uint32_t* old_pair_b;
  const std::uint32_t* old_id;      // per old storage index
  std::uint32_t* from;
  DEM_HD void operator()(index_t c) const {
    const std::uint32_t oa = perm[pair_a[c]];
    std::uint32_t e = ~0u;
    if (oa < old_particles) {
      auto partner = [&](std::uint32_t k) { return old_id[partner_of_entry(k, old_pair_a, old_pair_b)]; };
      e = find_incident_entry(old_offset, old_entry, oa, id[pair_b[c]], partner);
    }
    from[c] = e == ~0u ? ~0u : e >> 1;
  }
};

// history[c] = old_history[from[c]], or zero for a pair new to the list.
template <class History>
struct gather_history_kernel {
  const std::uint32_t* from;
  const History* old_history;
  History* history;
  DEM_HD void operator()(index_t c) const { history[c] = from[c] == ~0u ? History{} : old_history[from[c]]; }
};

// Key of each contact, and a record carried over from the previous list by key (or zeroed): the
// energy ledger's records (energy/ledger_driver.hpp), carried after the build.
template <class History>
struct carry_history_kernel {
  const std::uint32_t* pair_a;
  const std::uint32_t* pair_b;
  const std::uint32_t* id;
  const std::uint64_t* old_key;     // sorted
  const std::uint32_t* old_index;   // contact index in the old list for each sorted key
  const History* old_history;
  std::uint32_t old_count;
  std::uint64_t* key;
  std::uint32_t* index;
  History* history;
  DEM_HD void operator()(index_t c) const {
    const std::uint64_t k = pair_key(id[pair_a[c]], id[pair_b[c]]);
    key[c] = k;
    index[c] = c;
    const std::uint32_t p = broad::lower_bound(old_key, old_count, k);
    if (p < old_count && old_key[p] == k) history[c] = old_history[old_index[p]];
    else history[c] = History{};
  }
};

// The incident lists (CSR: offset[p] .. offset[p + 1] are particle p's entries; entry 2c is pair
// c's A side, 2c + 1 its B side), built by counting instead of sorting: no keys and no sort scratch
// (device memory), three passes.
// 1. Each particle's degree, counted into offset[0, n) (zeroed first; integer atomics, so the
//    counts do not depend on the order), then scanned.
struct incident_degree_kernel {
  const std::uint32_t* pair_a;
  const std::uint32_t* pair_b;
  std::uint32_t* degree;
  DEM_HD void operator()(index_t c) const {
    atomic::add(&degree[pair_a[c]], 1u);
    atomic::add(&degree[pair_b[c]], 1u);
  }
};

// 2. Each entry written into a free slot of its particle's range (fill: zeroed, one per particle;
//    the order within a range is whatever the threads make it, until pass 3).
struct incident_scatter_kernel {
  const std::uint32_t* pair_a;
  const std::uint32_t* pair_b;
  const std::uint32_t* offset;
  std::uint32_t* fill;
  std::uint32_t* entry;
  DEM_HD void operator()(index_t c) const {
    const std::uint32_t a = pair_a[c], b = pair_b[c];
    entry[offset[a] + atomic::fetch_add(&fill[a], 1u)] = 2 * c;
    entry[offset[b] + atomic::fetch_add(&fill[b], 1u)] = 2 * c + 1;
  }
};

// 3. Each particle's entries sorted by partner id. A particle's partners are distinct, so the order
//    is unique: the gather (sim::particle_update_kernel) then sums in a canonical order, the same
//    bits for any thread count, rebuild schedule or storage order. Short ranges (nearly all) by
//    insertion on (partner id, entry) words held by the thread; longer ones (a large grain in a wide
//    size distribution) by heapsort in place.
struct incident_order_kernel {
  static constexpr std::uint32_t held = 32;
  const std::uint32_t* pair_a;
  const std::uint32_t* pair_b;
  const std::uint32_t* id;
  const std::uint32_t* offset;
  std::uint32_t* entry;
  DEM_HD std::uint32_t partner(std::uint32_t e) const { return id[partner_of_entry(e, pair_a, pair_b)]; }
  DEM_HD void operator()(index_t p) const {
    std::uint32_t* first = entry + offset[p];
    const std::uint32_t k = offset[p + 1] - offset[p];
    if (k <= held) {
      std::uint64_t w[held];
      for (std::uint32_t i = 0; i < k; ++i) {
        const std::uint64_t v = (static_cast<std::uint64_t>(partner(first[i])) << 32) | first[i];
        std::uint32_t j = i;
        for (; j > 0 && w[j - 1] > v; --j) w[j] = w[j - 1];
        w[j] = v;
      }
      for (std::uint32_t i = 0; i < k; ++i) first[i] = static_cast<std::uint32_t>(w[i]);
      return;
    }
    // Heapsort (no scratch), the keys gathered at each comparison.
    auto sift = [&](std::uint32_t root, std::uint32_t end) {
      const std::uint32_t e = first[root], key = partner(e);
      for (;;) {
        std::uint32_t child = 2 * root + 1;
        if (child >= end) break;
        std::uint32_t ck = partner(first[child]);
        if (child + 1 < end) {
          const std::uint32_t rk = partner(first[child + 1]);
          if (rk > ck) {
            ++child;
            ck = rk;
          }
        }
        if (ck <= key) break;
        first[root] = first[child];
        root = child;
      }
      first[root] = e;
    };
    for (std::uint32_t r = k / 2; r-- > 0;) sift(r, k);
    for (std::uint32_t end = k - 1; end > 0; --end) {
      const std::uint32_t top = first[0];
      first[0] = first[end];
      first[end] = top;
      sift(0, end);
    }
  }
};

// A pair added to a list in place (sim/local_validity.hpp) starts with the history a new pair of a
// build gets.
template <class History>
struct fresh_history_kernel {
  History* out;
  DEM_HD void operator()(index_t c) const { out[c] = History{}; }
};

// Writes one value into a buffer element (host and device alike).
template <class T>
struct store_kernel {
  T* target;
  T value;
  DEM_HD void operator()(index_t) const { *target = value; }
};

}  // namespace dem::contact
