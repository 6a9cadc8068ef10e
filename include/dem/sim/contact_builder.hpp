#pragma once
// Contact detection (Simulator::rebuild_contacts): sort the particles by grid cell and reorder every
// per-particle array, compact the occupied cells, find each cell's neighbour rows, count and fill
// the candidate pairs, carry history over from the previous list, build the incident lists the particle kernel
// gathers through, and list each particle's boundary elements (boundary/boundary_set.hpp). The
// kernels are in broad/uniform_grid.hpp and contact/contact_list.hpp; docs/architecture.md
// describes the flow.
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "dem/broad/uniform_grid.hpp"
#include "dem/contact/contact_list.hpp"
#include "dem/deform/radius_kernel.hpp"
#include "dem/family/margin.hpp"
#include "dem/sim/step_kernels.hpp"

namespace dem::sim {

template <class Sim>
struct contact_builder {
  using P = typename Sim::policy;

  // The grid of a build for the particles stored now. Level 0's cells = the largest search
  // diameter + the detection gap (margin + the law's range); the finer levels hold radii spaced
  // evenly in log between the largest and the smallest (a factor of 2 or less; the finest is the
  // smallest radius itself, so that the most numerous grains of a bidisperse mix search cells of
  // their own size), each kept only if it shrinks the cells by 1.5x or more and its cells fit the
  // 64-bit keys, at most config.broad_phase_levels (0: 8) in all.
  static broad::grid grid_for(Sim& s, std::uint32_t n) {
    const double detect = s.margin() + s.max_range_;  // pairs are listed up to this gap
    double r_big = s.r_max_;
    if constexpr (Sim::deformable)  // deformed spheres are larger than any radius given
      if (n) r_big = std::max(r_big, s.backend_.reduce_max(n, deform::max_radius<typename Sim::real>{s.deformed_.data(), s.active_.data()}));
    const double extra = s.families_.max_margin();  // family extra margins search with larger radii (family/margin.hpp)
    r_big += extra;
    const int most = s.cfg_.broad_phase_levels == 0 ? broad::max_levels : static_cast<int>(s.cfg_.broad_phase_levels);
    double r_small = r_big;  // the smallest radius + extra of the active particles
    if (most > 1 && n) r_small = -s.backend_.reduce_max(n, broad::negative_radius<typename Sim::real>{s.contact_radius(), s.active_.data(), extra});
    // Candidate radii below r_big: r_small f^k, k = wanted - 2 .. 0.
    int wanted = 1;
    double f = 2;
    if (most > 1 && r_small > 0 && r_small < r_big) {
      const double ratio = r_big / r_small;
      wanted = std::min(most, 1 + static_cast<int>(std::ceil(std::log2(ratio) - 1e-9)));
      if (wanted > 1) f = std::pow(ratio, 1.0 / (wanted - 1));
    }
    broad::grid g;
    g.levels = 0;
    const vec3d ext = s.cfg_.domain.extent();
    double total = 0;  // cells of the levels so far
    for (int k = 0; k < wanted; ++k) {
      const double radius = k == 0 ? r_big : r_small * std::pow(f, wanted - 1 - k);
      const double cell = 2.0 * radius + detect;
      if (k > 0 && 1.5 * cell > g.level[g.levels - 1].cell) continue;  // too little finer than the last level kept
      broad::grid_level lv;
      lv.radius = radius;
      lv.cell = cell;
      lv.inv_cell = 1.0 / cell;
      double cells = 1;
      bool fits = true;
      for (int a = 0; a < 3; ++a) {
        const double d = std::max(1.0, std::ceil(ext[a] / cell));
        if (d > 4.0e9) {
          if (k == 0) throw std::invalid_argument("dem: domain extent " + Sim::num(ext[a]) + " m on axis " + std::to_string(a) + " is over 4e9 contact cells of " + Sim::num(cell) + " m");
          fits = false;
          break;
        }
        lv.dims[a] = static_cast<std::uint32_t>(d);
        cells *= d;
      }
      if (fits && total + cells > 1.8e19) {
        if (k == 0) throw std::invalid_argument("dem: the domain holds " + Sim::num(cells) + " contact cells, more than a 64-bit key can index");
        fits = false;
      }
      if (!fits) break;  // finer levels would not fit either
      lv.base = static_cast<std::uint64_t>(total);
      total += cells;
      g.level[g.levels++] = lv;
    }
    return g;
  }

  // Each level's range of the compacted cells (cell_keys_[0, num_cells), sorted) and of the
  // particles, and for each pair of levels the side that searches the other: the one whose
  // searches cost less, counted as (rows searched x (log2 of the other level's cells + 1) + cells
  // scanned) per particle, its box reaching R_own + R_other + gap around it.
  // W: the Simulator, or a deferred build's workspace (sim/deferred_detection.hpp): what holds the
  // buffers named here and a backend_.
  template <class W>
  static void locate_levels(W& s, broad::grid& g, std::uint32_t num_cells, double detect) {
    const int L = g.levels;
    std::uint32_t first[2 * (broad::max_levels + 1)];
    s.level_first_.resize(2 * (L + 1));
    s.backend_.for_each(static_cast<std::uint32_t>(L + 1), broad::level_first_kernel{g, s.cell_keys_.data(), s.cell_start_.data(), num_cells, s.level_first_.data()});
    s.level_first_.copy_to(first, static_cast<std::size_t>(2 * (L + 1)));
    for (int l = 0; l < L; ++l) {
      g.level[l].cell_begin = first[l];
      g.level[l].cell_end = first[l + 1];
      g.level[l].search_finer = 0;
    }
    for (int m = 0; m < L; ++m)
      for (int l = m + 1; l < L; ++l) {
        const double reach = g.level[m].radius + g.level[l].radius + detect;
        auto cost = [&](int into) {  // per particle searching level `into`
          const double span = 1.0 + 2.0 * reach * g.level[into].inv_cell;  // cells a side
          const double cells = static_cast<double>(g.level[into].cell_end - g.level[into].cell_begin);
          return span * span * (std::log2(cells + 1.0) + 1.0) + span * span * span;
        };
        const double n_m = first[L + 1 + m + 1] - first[L + 1 + m], n_l = first[L + 1 + l + 1] - first[L + 1 + l];
        if (n_m * cost(l) < n_l * cost(m)) g.level[m].search_finer |= 1u << l;
      }
  }

  // The level of a particle is chosen by its contact radius + the largest family extra margin.
  static broad::cell_key_kernel<typename Sim::coord_space> key_kernel(Sim& s, const broad::grid& g, const typename Sim::position_type* pos,
                                                                     const std::uint32_t* active) {
    return {s.coord_, g, pos, s.contact_radius(), s.families_.max_margin(), active, s.cell_key_.data(), s.perm_.data()};
  }

  // Frees buffers a rebuild no longer needs on backends that do not keep rebuild scratch (device
  // memory limits the particle count; docs/performance.md, "Memory", has the phases and their peaks).
  template <class... Buffers>
  static void release(Buffers&... b) {
    if constexpr (!Sim::backend_type::keeps_rebuild_scratch) (b.clear(), ...);
  }

  // Every per-particle array reordered by perm_ (perm_[new] = old storage index).
  static void permute_particles(Sim& s) {
    s.permute(s.pos_);
    if constexpr (Sim::has_carry) s.permute(s.carry_);
    s.permute(s.vel_);
    s.permute(s.omega_);
    s.permute(s.force_);
    s.permute(s.torque_);
    s.permute(s.radius_);
    if constexpr (Sim::deformable) {
      s.permute(s.deformed_);
      s.permute(s.deform_iterations_);
    }
    s.permute(s.inv_mass_);
    if constexpr (P::rigid) s.permute(s.inv_inertia_);
    s.permute(s.material_);
    s.permute(s.id_);
    s.permute(s.active_);
    if constexpr (P::rigid) {
      s.permute(s.orientation_);
      s.permute(s.inertia_);
      s.permute(s.shape_);
    }
    if (s.ext_force_.size()) {
      s.permute(s.ext_force_);
      s.permute(s.ext_torque_);
    }
    if (s.family_.size()) s.permute(s.family_);
    if (s.family_contact_force_.size()) {
      s.permute(s.family_contact_force_);
      s.permute(s.family_contact_torque_);
    }
    if constexpr (Sim::law_traits::has_owner_wildcards) s.permute(s.owner_wc_);
    if constexpr (Sim::law_traits::has_geometry_wildcards) s.permute(s.geometry_wc_);
  }

  // The occupied cells' neighbour rows, then the candidate pairs within `detect` of each other:
  // counted, scanned and filled (pair_a_, pair_b_ of W, indexed by W's storage order). Returns
  // their number.
  template <class W>
  static std::uint32_t search_pairs(W& s, const typename Sim::coord_space::params& coord, const broad::grid& g, std::uint32_t n,
                                    std::uint32_t n_active, std::uint32_t num_cells, double detect, const typename Sim::real* search_radius,
                                    family::mask_view masks) {
    s.row_first_.discard_resize(9 * std::size_t(num_cells));
    s.backend_.for_each(num_cells, broad::cell_rows_kernel{g, s.cell_keys_.data(), num_cells, s.row_first_.data()});
    s.pair_count_.discard_resize(n + 1);
    const auto m = static_cast<typename Sim::real>(detect);
    const auto search = [&](auto fill, std::uint32_t* a, std::uint32_t* b) {
      s.backend_.for_each(n_active, contact::pair_search_kernel<typename Sim::coord_space, decltype(fill)::value>{
                                        coord, g, s.pos_.data(), search_radius, s.id_.data(), s.cell_keys_.data(), s.cell_start_.data(),
                                        s.row_first_.data(), s.head_.data(), s.slot_.data(), num_cells, m, s.pair_count_.data(), a, b, masks});
    };
    search(std::false_type{}, nullptr, nullptr);
    if (n_active < n + 1) s.backend_.for_each(n + 1 - n_active, sim::zero_kernel{s.pair_count_.data() + n_active});
    const std::uint64_t total = s.backend_.exclusive_scan(s.pair_count_, n + 1);
    if (total >= std::numeric_limits<std::uint32_t>::max() / 2)
      throw std::runtime_error("dem: the contact list would hold " + std::to_string(total) + " pairs, more than 2^31; reduce config.contact_margin or the particle count");
    const auto nc = static_cast<std::uint32_t>(total);
    s.pair_a_.discard_resize(nc);
    s.pair_b_.discard_resize(nc);
    if (nc) search(std::true_type{}, s.pair_a_.data(), s.pair_b_.data());
    release(s.head_, s.slot_, s.row_first_);  // (pair_count_ serves again in incident_lists)
    return nc;
  }

  // Incident lists for the per-particle gather, each particle's entries in partner-id order (a
  // canonical summation order), built by counting: degrees, scan, scatter, then each particle's
  // entries ordered in place (contact::incident_*_kernel; no keys, no sort).
  template <class W>
  static void incident_lists(W& s, std::uint32_t n, std::uint32_t nc) {
    s.incident_entry_.discard_resize(2 * std::size_t(nc));
    s.incident_offset_.discard_resize(n + 1);
    s.backend_.for_each(n + 1, sim::zero_kernel{s.incident_offset_.data()});
    if (nc) s.backend_.for_each(nc, contact::incident_degree_kernel{s.pair_a_.data(), s.pair_b_.data(), s.incident_offset_.data()});
    s.backend_.exclusive_scan(s.incident_offset_, n + 1);
    if (nc) {
      s.backend_.for_each(n, sim::zero_kernel{s.pair_count_.data()});  // each particle's entries placed so far
      s.backend_.for_each(nc, contact::incident_scatter_kernel{s.pair_a_.data(), s.pair_b_.data(), s.incident_offset_.data(), s.pair_count_.data(),
                                                               s.incident_entry_.data()});
      s.backend_.for_each(n, contact::incident_order_kernel{s.pair_a_.data(), s.pair_b_.data(), s.id_.data(), s.incident_offset_.data(),
                                                            s.incident_entry_.data()});
    }
    release(s.pair_count_);
  }

  // Whether the list in service can hand its history on: whole, with its incident lists (not after
  // a failed build, nor for laws without history).
  static bool history_to_carry(const Sim& s) {
    const std::uint32_t old_pairs = s.old_contacts_;
    return Sim::stores_history && old_pairs && s.pair_a_.size() == old_pairs && s.pair_b_.size() == old_pairs && s.history_.size() == old_pairs &&
           s.incident_entry_.size() == 2 * std::size_t(old_pairs) && s.incident_offset_.size() > 0;
  }

  // The radii detection searches with for the n particles stored: their contact radii, enlarged by
  // their families' extra margins if any (then held in search_radius_).
  static const typename Sim::real* search_radii(Sim& s, std::uint32_t n) {
    if (s.families_.any_margin() && n) {
      s.search_radius_.resize(n);
      s.backend_.for_each(n, family::search_radius_kernel<typename Sim::real>{s.contact_radius(), s.family_.size() ? s.family_.data() : nullptr,
                                                                            s.family_margins(), s.search_radius_.data()});
      return s.search_radius_.data();
    }
    s.search_radius_.clear();
    return s.contact_radius();
  }

  // Arrays a step of the rebuild overwrites whole are sized with discard_resize: freed before they
  // grow, never copied.
  static void rebuild(Sim& s) {
    std::uint32_t n = s.num_particles_;
    const double detect = s.margin() + s.max_range_;  // pairs are listed up to this gap
    broad::grid g = grid_for(s, n);  // (may refuse the domain: before anything is changed)
    // The listed forces are not read again before the next pair kernel writes them (forces_current_).
    release(s.cforce_, s.ctorque_);
    // The previous list, for the history carry (step 4): its pairs as ids, set aside before the
    // sort moves the particles; its incident lists stay in place until step 5. (Whole, or not used.)
    const std::uint32_t old_pairs = s.old_contacts_;
    const bool carry = history_to_carry(s);
    if constexpr (Sim::stores_history) {
      s.old_pair_a_.swap(s.pair_a_);
      s.old_pair_b_.swap(s.pair_b_);
      if (carry) s.backend_.for_each(old_pairs, contact::pair_ids_kernel{s.old_pair_a_.data(), s.old_pair_b_.data(), s.id_.data()});
    }

    // 1. Sort particles by cell and reorder every per-particle array.
    s.cell_key_.discard_resize(n);
    s.perm_.discard_resize(n);
    s.backend_.for_each(n, key_kernel(s, g, s.pos_.data(), s.active_.data()));
    // Radix sorts cost a pass per digit: sort over the bits the keys use. Cell keys are below
    // `cells` (inactive_key's low bits, all ones, still sort last).
    const int cell_bits = std::bit_width(g.key_count());  // < 2^64 (checked in grid_for)
    s.backend_.sort_pairs(s.cell_key_, s.perm_, n, cell_bits);
    if constexpr (!Sim::backend_type::keeps_rebuild_scratch) s.backend_.release_scratch();  // the sort's alternate arrays
    // A diverged particle or a failed radius solve recorded this step names a storage index: it
    // moves with the sort (an error path: the run stops at the step's end, so a host search is fine).
    std::array<std::uint32_t, sim::status_words> status = s.read_status();
    const bool pending = status[sim::bad_particle] != sim::no_particle || status[sim::deform_failure] != sim::no_particle;
    if (pending) follow_the_sort(s, status, n);
    permute_particles(s);
    // The inactive particles now stand last: compact them away (ids are never reused), so that a
    // run that feeds and drains holds only what is in the domain.
    // (Not while an error is pending: the particle it names may be one of them.)
    const std::uint32_t compacted = s.num_ids_ - s.num_particles_;  // inactive before, counted in lost_count too
    const std::uint32_t n_active = s.num_particles_ - (status[sim::lost_count] - compacted);
    if (!pending) {
      s.compact_storage(n_active);
      n = n_active;
    }

    const typename Sim::real* search_radius = search_radii(s, n);

    // 2. Compact occupied cells. 3. Count, scan and fill the candidate pairs.
    const std::uint32_t num_cells = compact_cells(s, g, n, n_active, detect);
    const std::uint32_t nc = search_pairs(s, s.coord_, g, n, n_active, num_cells, detect, search_radius, s.family_masks());

    // 4. Carry history over from the previous list: each new pair looked up among the old incident
    //    entries of its A particle (by its storage index before the sort, perm_).
    if constexpr (Sim::stores_history) {
      s.history_.swap(s.old_history_);
      s.history_.discard_resize(nc);
      const std::uint32_t old_particles = carry ? static_cast<std::uint32_t>(s.incident_offset_.size() - 1) : 0;
      if (nc)
        s.backend_.for_each(nc, contact::carry_history_by_partner_kernel<typename Sim::pair_history>{
                                    s.pair_a_.data(), s.pair_b_.data(), s.id_.data(), s.perm_.data(), old_particles, s.incident_offset_.data(),
                                    s.incident_entry_.data(), s.old_pair_a_.data(), s.old_pair_b_.data(), s.old_history_.data(), s.history_.data()});
      release(s.old_history_, s.old_pair_a_, s.old_pair_b_);
      s.old_contacts_ = nc;
    }
    release(s.perm_);

    // 5. Incident lists for the per-particle gather.
    incident_lists(s, n, nc);

    s.backend_.for_each(n, sim::copy_kernel<typename Sim::position_type>{s.pos_.data(), s.pos_ref_.data()});
    if constexpr (Sim::deformable) {  // the radii the list was built for: their growth uses up the margin
      s.deformed_ref_.resize(n);
      s.backend_.for_each(n, sim::copy_kernel<typename Sim::real>{s.deformed_.data(), s.deformed_ref_.data()});
      s.deform_growth_ = 0;
    }
    finish(s, g, num_cells, nc, n, n_active, search_radius);
  }

  // The end of a build, once the particles are in the new order with the new pairs, incident lists,
  // history and pos_ref_ (the positions the list was built from; a deferred build's snapshot): the
  // wall list from those positions, the listed forces' arrays, and the grid kept for the local check.
  static void finish(Sim& s, const broad::grid& g, std::uint32_t num_cells, std::uint32_t nc, std::uint32_t n, std::uint32_t n_active,
                     const typename Sim::real* search_radius) {
    s.num_contacts_ = nc;
    if constexpr (Sim::law_traits::writes_owner_wildcards) s.owner_increment_.resize(2 * std::size_t(nc));
    if constexpr (Sim::law_traits::writes_geometry_wildcards) s.geometry_increment_.resize(2 * std::size_t(nc));
    // 6. The wall list: each particle's boundary elements within the boundary margin.
    s.walls_.template build<typename Sim::coord_space>(s.backend_, s.coord_, s.pos_ref_.data(), search_radius, s.id_.data(), n, n_active,
                                                       s.boundary_margin() + s.max_range_, s.family_masks());
    // The listed forces and torques last: the wall list's build, with its carry and sort, then peaks
    // without them (device memory).
    if constexpr (!Sim::backend_type::keeps_rebuild_scratch) {
      s.backend_.release_scratch();  // the wall sort's alternate arrays
      if (!ledger_carries(s)) s.walls_.release_carried_from();  // where each wall entry came from: for the ledger's carry alone
    }
    s.cforce_.discard_resize(nc);
    s.ctorque_.discard_resize(Sim::torques_per_pair * nc);
    s.contacts_valid_ = true;
    // Kept for the local check between builds (sim/local_validity.hpp): the grid and its cells.
    s.grid_ = g;
    s.num_cells_ = num_cells;
    s.local_ready_ = true;
    s.kept_with_overrun_ = false;
    ++s.rebuilds_;
    if (ledger_carries(s)) s.carry_ledger_records();
    // The ledger's sort's alternate arrays, and where each wall entry came from (the carries are done).
    if constexpr (!Sim::backend_type::keeps_rebuild_scratch) {
      s.backend_.release_scratch();
      s.walls_.release_carried_from();
    }
  }

  // Whether the energy ledger carries its records at the end of a build (it reads the wall list's
  // carry map).
  static bool ledger_carries(const Sim& s) {
    if constexpr (Sim::ledger_supported) return s.ledger_primed_;
    else return false;
  }

  // After a build that threw (a buffer that could not grow, a list past 2^31 pairs): the particles
  // may be half reordered, so no list of the old build is kept either; queries see an empty, invalid
  // list, and the next build starts without history to carry.
  static void abandon(Sim& s) noexcept {
    s.contacts_valid_ = false;
    s.forces_current_ = false;
    s.local_ready_ = false;
    s.num_contacts_ = 0;
    s.old_contacts_ = 0;
    s.pair_a_.clear();
    s.pair_b_.clear();
    s.old_pair_a_.clear();
    s.old_pair_b_.clear();
    s.history_.clear();
    s.old_history_.clear();
    s.incident_entry_.clear();
    s.incident_offset_.clear();
  }

  // The occupied cells of the sorted keys cell_key_[0, n) (active particles first, n_active of
  // them): cell_keys_, cell_start_ (num_cells + 1 each) and per particle head_ and slot_; and the
  // levels of g located in them (locate_levels).
  template <class W>
  static std::uint32_t compact_cells(W& s, broad::grid& g, std::uint32_t n, std::uint32_t n_active, double detect) {
    s.head_.discard_resize(n);
    s.slot_.discard_resize(n);
    s.backend_.for_each(n, broad::cell_head_kernel{s.cell_key_.data(), s.head_.data()});
    s.backend_.for_each(n, sim::copy_kernel<std::uint32_t>{s.head_.data(), s.slot_.data()});
    const auto num_cells = static_cast<std::uint32_t>(s.backend_.exclusive_scan(s.slot_, n));
    s.cell_keys_.resize(num_cells + 1);
    s.cell_start_.resize(num_cells + 1);
    s.backend_.for_each(n, broad::cell_compact_kernel{s.cell_key_.data(), s.head_.data(), s.slot_.data(), s.cell_keys_.data(), s.cell_start_.data()});
    s.backend_.for_each(1, contact::store_kernel<std::uint32_t>{s.cell_start_.data() + num_cells, n_active});
    release(s.cell_key_);  // the particles are in cell order now (perm_ serves until the history carry)
    locate_levels(s, g, num_cells, detect);
    return num_cells;
  }

  // After a checkpoint restored a valid list (sim/checkpoint.hpp): the build's cells again, from the
  // positions at the build (pos_ref, in the build's storage order), for the local check between
  // builds (sim/local_validity.hpp). Left without them (the next build makes them) when the stored
  // particles are not in cell order, as when an error stopped the run before compaction.
  static void index_cells(Sim& s) {
    if constexpr (!Sim::deformable) {
      const std::uint32_t n = s.num_particles_;
      if (!s.contacts_valid_ || n == 0) return;
      broad::grid g = grid_for(s, n);
      s.cell_key_.discard_resize(n);
      s.perm_.discard_resize(n);
      s.backend_.for_each(n, key_kernel(s, g, s.pos_ref_.data(), nullptr));
      const std::vector<std::uint64_t> keys = s.cell_key_.to_vector();
      if (!std::is_sorted(keys.begin(), keys.end())) {
        release(s.cell_key_, s.perm_);
        return;
      }
      s.num_cells_ = compact_cells(s, g, n, n, s.margin() + s.max_range_);
      release(s.head_, s.slot_, s.perm_);
      s.grid_ = g;
      s.local_ready_ = true;
    }
  }

  // The storage indices in the status words, moved to where the cell sort puts their particles.
  static void follow_the_sort(Sim& s, std::array<std::uint32_t, sim::status_words>& status, std::uint32_t n) {
    std::vector<std::uint32_t> perm(n);  // perm[new] = old
    s.perm_.copy_to(perm.data(), n);
    for (const auto word : {sim::bad_particle, sim::deform_failure}) {
      if (status[word] == sim::no_particle) continue;
      const auto at = std::find(perm.begin(), perm.end(), status[word]);
      if (at != perm.end()) status[word] = static_cast<std::uint32_t>(at - perm.begin());
    }
    std::vector<std::uint32_t> all = s.status_.to_vector();
    std::copy(status.begin(), status.end(), all.begin());
    s.status_.assign(all);
  }

};

}  // namespace dem::sim
