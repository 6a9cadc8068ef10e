#pragma once
// Local validity of the contact list (issue 17, item 2; docs/architecture.md, "Local validity").
//
// The list holds every pair within R_a + R_b + margin (+ the law's range, + family extra margins)
// at its build. The global Verlet criterion rebuilds it for everyone as soon as any one particle
// has moved half the margin: on a large bed one rattler or one grain thrown clear rebuilds the
// whole list every few steps. Here a particle that has used up its budget (half the margin plus
// its family's extra margin) is only checked, each step it stays past it, by a search around where
// it is now:
//   - every particle j within R_i + R_j + range + margin / 2 of it must be listed with it (or
//     have the pair disabled by families). A particle still inside its own budget has moved at
//     most margin / 2 + its extra since the build, so at the build it stood within R_i + R_L +
//     margin + range of particle i's position now, R_L the largest radius (+ extra) of its level
//     of the build's grid: in each level, the cells within that distance of i's cell hold every
//     such j (the 27 around it in a level of particles no smaller than i, cell >= 2 R_L + margin +
//     range; more in the finer levels). Two particles both past their budgets are checked pairwise.
//   - every boundary element within R_i + range + margin / 2 must be in its wall list.
// A pair found missing is added to the list in place (sim/local_validity.hpp: appended with a
// fresh history, its entries inserted into the incident lists; "only as much work as needed"), before this
// step's forces: no contact is ever missed, and the margin / 2 of slack keeps the decision clear of
// rounding. A missing boundary element, more missing pairs than the record holds, or a list that
// cannot be patched (a deferred build in flight, the energy ledger on) asks for the rebuild
// instead. The rest of the list stays valid by the usual argument (a pair not listed stays apart
// while d_a + d_b <= margin + e_a + e_b), and a listed pair that does not touch adds nothing.
// Forces are summed in partner-id order over touching pairs, so results are the same bits
// whatever the schedule of rebuilds and patches.
//
// More than config.max_overrun particles past their budgets at once (a bed that flows, a drum)
// rebuild as before: the pairwise check between them costs their count squared.
#include <cstdint>

#include "dem/backend/atomic.hpp"
#include "dem/broad/uniform_grid.hpp"
#include "dem/contact/contact_list.hpp"
#include "dem/config.hpp"
#include "dem/family/rule.hpp"
#include "dem/math/vec3.hpp"
#include "dem/sim/particle_view.hpp"

namespace dem::contact {

// The words of the check's result buffer.
inline constexpr std::uint32_t overrun_count = 0;          // particles past their budgets (may exceed the capacity)
inline constexpr std::uint32_t overrun_missing = 1;        // non-zero: a boundary element that must be listed is not
inline constexpr std::uint32_t overrun_missing_pairs = 2;  // pairs that must be listed and are not (may exceed the record)
inline constexpr std::uint32_t overrun_words = 3;

// Collects the active particles past their budgets (half the margin plus their family's extra
// margin; `extra` null: none) into `out` (capacity `capacity`; the count goes on beyond it). A
// position that is not finite counts as over any capacity: the rebuild and the status check
// report it as they do today.
template <class Space>
struct overrun_kernel {
  sim::particle_view<Space> p;
  typename Space::params coord;
  const typename Space::real* extra;  // per family id, or null
  double half;
  std::uint32_t* out;
  std::uint32_t capacity;
  std::uint32_t* result;
  DEM_HD void operator()(index_t i) const {
    using Real = typename Space::real;
    if (!p.active[i]) return;
    // Squares in the coordinate policy's precision, as the step's own displacement check: one
    // pass without a root, the rare particle past its budget aside.
    const Real d2 = norm2(Space::difference(coord, p.pos[i], p.pos_ref[i]));
    const Real budget = static_cast<Real>(half) + (extra ? extra[p.family ? p.family[i] : 0u] : Real(0));
    if (d2 <= budget * budget) return;
    if (d2 != d2) {  // NaN
      atomic::add(&result[overrun_count], capacity + 1);
      return;
    }
    const std::uint32_t slot = atomic::fetch_add(&result[overrun_count], 1u);
    if (slot < capacity) out[slot] = i;
  }
};

// Whether particle i's listed partners include the particle with id `partner_id`: its incident
// entries are sorted by partner id (contact::incident_order_kernel), so a binary search.
DEM_HD inline bool listed_with(index_t i, std::uint32_t partner_id, const std::uint32_t* incident_offset, const std::uint32_t* incident_entry,
                               const std::uint32_t* pair_a, const std::uint32_t* pair_b, const std::uint32_t* id) {
  std::uint32_t lo = incident_offset[i], hi = incident_offset[i + 1];
  while (lo < hi) {
    const std::uint32_t mid = lo + (hi - lo) / 2;
    const std::uint32_t e = incident_entry[mid];
    const std::uint32_t other = partner_of_entry(e, pair_a, pair_b);
    const std::uint32_t k = id[other];
    if (k == partner_id) return true;
    if (k < partner_id) lo = mid + 1;
    else hi = mid;
  }
  return false;
}

// Per particle past its budget (overrun[k], k < count): every particle near it now must be listed
// with it. A pair that is not is counted in result[overrun_missing_pairs] and, while the record has
// room, written to missing[2 slot], missing[2 slot + 1] as the list orders pairs (A the smaller id).
// A pair of two particles past their budgets may be recorded more than once.
template <class Space>
struct overrun_pair_check_kernel {
  using Real = typename Space::real;
  typename Space::params coord;
  broad::grid g;  // the build's grid
  const typename Space::position* pos;
  const Real* radius;  // contact radius (bounding radius of a body)
  const std::uint32_t* active;
  const std::uint32_t* id;
  const std::uint64_t* cell_key;  // the build's occupied cells, sorted
  const std::uint32_t* cell_start;
  const std::uint32_t* incident_offset;
  const std::uint32_t* incident_entry;
  const std::uint32_t* pair_a;
  const std::uint32_t* pair_b;
  const std::uint32_t* overrun;
  std::uint32_t count;
  Real reach;  // the law's range + margin / 2
  double gap;  // the law's range + margin: the build's detection gap
  family::mask_view families;
  std::uint32_t* result;
  std::uint32_t* missing;  // 2 words per record
  std::uint32_t missing_capacity;

  DEM_HD void operator()(index_t k) const {
    const std::uint32_t i = overrun[k];
    auto check = [&](std::uint32_t j) {
      if (j == i || !active[j]) return;
      const Real limit = radius[i] + radius[j] + reach;
      if (!(norm2(Space::difference(coord, pos[i], pos[j])) < limit * limit)) return;
      if (families.active() && families.pair_disabled(i, j)) return;
      if (listed_with(i, id[j], incident_offset, incident_entry, pair_a, pair_b, id)) return;
      const std::uint32_t slot = atomic::fetch_add(&result[overrun_missing_pairs], 1u);
      if (slot < missing_capacity) {
        const bool i_first = id[i] < id[j];  // as contact::pair_search_kernel lists pairs
        missing[2 * std::size_t(slot)] = i_first ? i : j;
        missing[2 * std::size_t(slot) + 1] = i_first ? j : i;
      }
    };
    // Partners of level l at their build positions lie within r_i + R_l + gap (the margin and the
    // law's range) of i now.
    for (int l = 0; l < g.levels; ++l)
      broad::for_each_in_box<Space>(g, l, coord, pos[i], static_cast<double>(radius[i]) + g.level[l].radius + gap, cell_key, cell_start, check);
    for (std::uint32_t m = 0; m < count; ++m) check(overrun[m]);  // past their budgets too: anywhere
  }
};

// The incident lists with pairs added in place (sim/local_validity.hpp), per particle i in [0, n]:
// its new offset (the old one plus the entries added to particles before it), and its entries,
// the old ones (in partner-id order) merged with its added ones in partner-id order. `touched`
// (sorted, `count` of them) are the particles given entries, touched_first[t] .. touched_first[t+1]
// their range in `added` (in no particular order; a handful each).
struct incident_insert_kernel {
  const std::uint32_t* old_offset;
  const std::uint32_t* old_entry;
  std::uint32_t* offset;
  std::uint32_t* entry;
  const std::uint32_t* touched;
  const std::uint32_t* touched_first;
  const std::uint32_t* added;
  std::uint32_t count;
  std::uint32_t n;
  const std::uint32_t* pair_a;
  const std::uint32_t* pair_b;
  const std::uint32_t* id;
  DEM_HD void operator()(index_t i) const {
    std::uint32_t lo = 0, hi = count;  // the first touched particle >= i
    while (lo < hi) {
      const std::uint32_t mid = lo + (hi - lo) / 2;
      if (touched[mid] < i) lo = mid + 1;
      else hi = mid;
    }
    const std::uint32_t at = old_offset[i] + touched_first[lo];
    offset[i] = at;
    if (i == n) return;
    const std::uint32_t* first = old_entry + old_offset[i];
    const std::uint32_t k = old_offset[i + 1] - old_offset[i];
    std::uint32_t* out = entry + at;
    if (lo == count || touched[lo] != i) {
      for (std::uint32_t j = 0; j < k; ++j) out[j] = first[j];
      return;
    }
    // Merge: the smallest of the added entries not yet placed, against the old ones in order.
    const std::uint32_t a0 = touched_first[lo], a1 = touched_first[lo + 1];
    std::uint32_t last = 0;  // the partner id placed last (distinct: a pair is added once, and never one listed)
    bool any = false;
    std::uint32_t j = 0, w = 0;
    for (std::uint32_t r = a0; r < a1; ++r) {  // the next added entry: the smallest partner id above the last placed
      std::uint32_t best = 0, best_id = 0;
      bool found = false;
      for (std::uint32_t q = a0; q < a1; ++q) {
        const std::uint32_t pid = id[partner_of_entry(added[q], pair_a, pair_b)];
        if (any && pid <= last) continue;
        if (!found || pid < best_id) {
          best = added[q];
          best_id = pid;
          found = true;
        }
      }
      while (j < k && id[partner_of_entry(first[j], pair_a, pair_b)] < best_id) out[w++] = first[j++];
      out[w++] = best;
      last = best_id;
      any = true;
    }
    while (j < k) out[w++] = first[j++];
  }
};

}  // namespace dem::contact
