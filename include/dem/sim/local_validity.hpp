#pragma once
// The host side of local validity (contact/local_validity.hpp has the argument and the kernels): a
// friend of the Simulator, asked by its step (and by sim::device_steps after the device stopped a
// batch for a particle past half the margin) whether the contact list still serves when the plain
// Verlet criterion says rebuild.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "dem/contact/local_validity.hpp"

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
    s.backend_.for_each(count, contact::overrun_pair_check_kernel<Space>{
                                   s.coord_, s.grid_, s.pos_.data(), s.contact_radius(), s.active_.data(), s.id_.data(), s.cell_keys_.data(),
                                   s.cell_start_.data(), s.incident_offset_.data(), s.incident_entry_.data(), s.pair_a_.data(),
                                   s.pair_b_.data(), s.overrun_.data(), count, reach, s.margin() + s.max_range_, masks,
                                   s.overrun_result_.data()});
    s.walls_.template check_overrun<Space>(s.backend_, s.coord_, s.pos_.data(), s.contact_radius(), s.overrun_.data(), count, s.max_range_ + half,
                                           masks, s.overrun_result_.data() + contact::overrun_missing);
    s.overrun_result_.copy_to(result, contact::overrun_words);
    if (result[contact::overrun_missing] != 0) return false;
    ++s.local_checks_;
    s.kept_with_overrun_ = true;
    return true;
  }
};

}  // namespace dem::sim
