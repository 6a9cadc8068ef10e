#pragma once
// The host side of local validity (contact/local_validity.hpp has the argument and the kernels): a
// friend of the Simulator, asked by its step (and by sim::device_steps after the device stopped a
// batch for a particle past half the margin) whether the contact list still serves when the plain
// Verlet criterion says rebuild.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "dem/contact/local_validity.hpp"
#include "dem/sim/contact_builder.hpp"

namespace dem::sim {

template <class Sim>
struct local_validity {
  // Whether the check can stand in for the rebuild: it is on, and the list has the build's grid
  // with it (not a list restored from a checkpoint). Deformable spheres grow into their margin,
  // which the check does not follow: they keep the global criterion.
  static bool applies(const Sim& s) { return !Sim::deformable && s.cfg_.max_overrun > 0 && s.local_ready_; }

  // Whether the list holds for the positions now: no particle past its budget comes near a
  // partner or boundary element it is not listed with. `half`: half the contact margin.
  static bool holds(Sim& s, double half) {
    using Space = typename Sim::coord_space;
    using real = typename Sim::real;
    // At most max_overrun, and at most 2 sqrt(N): the pairwise check between the particles past
    // their budgets costs their count squared, kept within 4 N distance tests (a pass's worth);
    // a small flowing system would otherwise spend more on checks than on the rebuilds they spare.
    const auto root = static_cast<std::uint32_t>(2.0 * std::sqrt(static_cast<double>(s.num_particles_)));
    const std::uint32_t capacity = std::max<std::uint32_t>(1, std::min(s.cfg_.max_overrun, root));
    if (s.overrun_.size() < capacity) s.overrun_.resize(capacity);
    s.overrun_result_.resize(contact::overrun_words);
    s.overrun_result_.fill(0);
    const real* extra = s.families_.any_margin() ? s.family_margins() : nullptr;
    s.backend_.for_each(s.num_particles_, contact::overrun_kernel<Space>{s.view(), s.coord_, extra, half, s.overrun_.data(), capacity,
                                                                          s.overrun_result_.data()});
    std::uint32_t result[contact::overrun_words];
    s.overrun_result_.copy_to(result, contact::overrun_words);
    const std::uint32_t count = result[contact::overrun_count];
    if (count == 0) return true;  // past the plain half margin, within the family extra margins
    if (count > capacity) return false;
    const auto reach = static_cast<real>(s.max_range_ + half);
    const family::mask_view masks = s.family_masks();
    // Room for a few missing pairs per particle checked; more than that rebuilds.
    const std::uint32_t record = 4 * capacity;
    if (s.missing_pairs_.size() < 2 * std::size_t(record)) s.missing_pairs_.resize(2 * std::size_t(record));
    s.backend_.for_each(count, contact::overrun_pair_check_kernel<Space>{
                                   s.coord_, s.grid_, s.pos_.data(), s.contact_radius(), s.active_.data(), s.id_.data(), s.cell_keys_.data(),
                                   s.cell_start_.data(), s.incident_offset_.data(), s.incident_entry_.data(), s.pair_a_.data(),
                                   s.pair_b_.data(), s.overrun_.data(), count, reach, s.margin() + s.max_range_, masks,
                                   s.overrun_result_.data(), s.missing_pairs_.data(), record});
    s.walls_.template check_overrun<Space>(s.backend_, s.coord_, s.pos_.data(), s.contact_radius(), s.overrun_.data(), count, s.max_range_ + half,
                                           masks, s.overrun_result_.data() + contact::overrun_missing);
    s.overrun_result_.copy_to(result, contact::overrun_words);
    if (result[contact::overrun_missing] != 0) return false;  // a boundary element: its list is rebuilt with the pairs
    if (const std::uint32_t missing = result[contact::overrun_missing_pairs]) {
      if (missing > record || !patchable(s)) return false;
      patch(s, missing);
    }
    ++s.local_checks_;
    s.kept_with_overrun_ = true;
    return true;
  }

  // Whether missing pairs can be added to the list in place: not while a deferred build reads the
  // list in service (it carries history by it), nor while the energy ledger keeps per-pair records.
  static bool patchable(const Sim& s) {
    if constexpr (Sim::ledger_supported)
      if (s.ledger_primed_) return false;
    if constexpr (Sim::deferred_supported)
      if (s.deferred_.in_flight()) return false;
    return s.contacts_valid_;
  }

  // Adds the `missing` recorded pairs (duplicates among them once) at the end of the list with a
  // fresh history, and inserts their entries into the incident lists: each particle's entries in
  // partner-id order, as a build leaves them. A build would list these pairs with a fresh history too (they were
  // farther apart than the detection gap at the last build, so not in contact since), and the
  // forces do not depend on where a pair stands in the list: the same bits as a rebuild.
  static void patch(Sim& s, std::uint32_t missing) {
    std::vector<std::uint32_t> rec(2 * std::size_t(missing));
    s.missing_pairs_.copy_to(rec.data(), rec.size());
    std::vector<std::uint64_t> keys(missing);
    for (std::size_t k = 0; k < missing; ++k) keys[k] = (static_cast<std::uint64_t>(rec[2 * k]) << 32) | rec[2 * k + 1];
    std::sort(keys.begin(), keys.end());  // an order independent of the threads that found them
    keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
    const auto added = static_cast<std::uint32_t>(keys.size());
    std::vector<std::uint32_t> a(added), b(added);
    for (std::size_t k = 0; k < added; ++k) {
      a[k] = static_cast<std::uint32_t>(keys[k] >> 32);
      b[k] = static_cast<std::uint32_t>(keys[k]);
    }
    const std::uint32_t n = s.num_particles_, nc = s.num_contacts_;
    if (std::uint64_t(nc) + added >= std::numeric_limits<std::uint32_t>::max() / 2)
      throw std::runtime_error("dem: the contact list would hold " + std::to_string(std::uint64_t(nc) + added) +
                               " pairs, more than 2^31; reduce config.contact_margin or the particle count");
    const std::uint32_t total = nc + added;
    s.forces_current_ = false;  // the listed forces no longer match the list until the next evaluation
    s.pair_a_.resize(nc);
    s.pair_b_.resize(nc);
    s.pair_a_.append(a.data(), added);
    s.pair_b_.append(b.data(), added);
    if constexpr (Sim::stores_history) {
      s.history_.resize(total);
      s.backend_.for_each(added, contact::fresh_history_kernel<typename Sim::pair_history>{s.history_.data() + nc});
      s.old_contacts_ = total;
    }
    // The incident lists: the particles given entries, their entries grouped, then every
    // particle's range moved up by the entries added before it and merged with its own.
    std::vector<std::uint64_t> by_particle(2 * std::size_t(added));  // (particle, entry)
    for (std::uint32_t k = 0; k < added; ++k) {
      by_particle[2 * k] = (static_cast<std::uint64_t>(a[k]) << 32) | (2u * (nc + k));           // A's entry
      by_particle[2 * k + 1] = (static_cast<std::uint64_t>(b[k]) << 32) | (2u * (nc + k) + 1u);  // B's entry
    }
    std::sort(by_particle.begin(), by_particle.end());
    std::vector<std::uint32_t> touched, first, entries;  // sent as one buffer: touched, first (touched + 1), entries
    for (std::size_t k = 0; k < by_particle.size(); ++k) {
      const auto particle = static_cast<std::uint32_t>(by_particle[k] >> 32);
      if (touched.empty() || touched.back() != particle) {
        touched.push_back(particle);
        first.push_back(static_cast<std::uint32_t>(k));
      }
      entries.push_back(static_cast<std::uint32_t>(by_particle[k]));
    }
    first.push_back(static_cast<std::uint32_t>(entries.size()));
    const auto t = static_cast<std::uint32_t>(touched.size());
    std::vector<std::uint32_t> packed(touched);
    packed.insert(packed.end(), first.begin(), first.end());
    packed.insert(packed.end(), entries.begin(), entries.end());
    s.missing_pairs_.assign(packed.data(), packed.size());
    auto& new_entry = s.template scratch_for<std::uint32_t>();
    new_entry.discard_resize(2 * std::size_t(total));
    s.pair_count_.discard_resize(n + 1);  // the new offsets
    const std::uint32_t* dev = s.missing_pairs_.data();
    s.backend_.for_each(n + 1, contact::incident_insert_kernel{s.incident_offset_.data(), s.incident_entry_.data(), s.pair_count_.data(),
                                                               new_entry.data(), dev, dev + t, dev + 2 * t + 1, t, n, s.pair_a_.data(),
                                                               s.pair_b_.data(), s.id_.data()});
    s.incident_offset_.swap(s.pair_count_);
    s.incident_entry_.swap(new_entry);
    contact_builder<Sim>::release(s.pair_count_, new_entry);
    s.num_contacts_ = total;
    if constexpr (Sim::law_traits::writes_owner_wildcards) s.owner_increment_.resize(2 * std::size_t(total));
    if constexpr (Sim::law_traits::writes_geometry_wildcards) s.geometry_increment_.resize(2 * std::size_t(total));
    s.cforce_.discard_resize(total);
    s.ctorque_.discard_resize(Sim::torques_per_pair * std::size_t(total));
    ++s.list_patches_;
    s.patched_pairs_ += added;
  }
};

}  // namespace dem::sim
