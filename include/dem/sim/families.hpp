#pragma once
// The Simulator's side of families (a friend): the per-particle family ids (stored with the other
// particle arrays, permuted with them at every rebuild, absent until a family is first used), the
// rule table handed to the particle kernel each evaluation, the contact matrix handed to
// detection, and the change-of-family predicates run on the backend after every step.
// docs/families.md describes the feature; family/rule.hpp the kernel side.
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "dem/family/family_set.hpp"
#include "dem/family/rule.hpp"
#include "dem/sim/contact_helpers.hpp"
#include "dem/sim/external_forces.hpp"  // place_by_id_kernel

namespace dem::sim {

template <class Sim>
struct families {
  using real = typename Sim::real;
  using family_id = family::family_id;

  // The id array, created (every particle in family 0) on first use.
  static void ensure(Sim& s) {
    if (s.family_.size() == 0 && s.num_particles_) {
      s.family_.resize(s.num_particles_);
      s.family_.fill(0u);
    }
  }

  // By id; an id no longer stored reads family::not_stored.
  static std::vector<family_id> by_id(const Sim& s) {
    std::vector<family_id> out(s.num_ids_, 0);
    if (s.num_ids_ != s.num_particles_) {
      std::vector<std::uint32_t> ids;
      s.id_.copy_to(ids);
      std::fill(out.begin(), out.end(), family::not_stored);
      for (std::uint32_t id : ids) out[id] = 0;
    }
    if (s.family_.size() == 0) return out;
    std::vector<std::uint32_t> f, ids;
    s.family_.copy_to(f);
    s.id_.copy_to(ids);
    for (std::size_t i = 0; i < f.size(); ++i) out[ids[i]] = f[i];
    return out;
  }

  static void set_by_id(Sim& s, const std::vector<family_id>& by_id) {
    if (by_id.size() != s.num_ids_)
      throw std::invalid_argument("dem: set_families: got " + std::to_string(by_id.size()) + " family ids for " + std::to_string(s.num_ids_) +
                                  " particles (one per particle id)");
    family_id highest = 0;
    for (std::size_t k = 0; k < by_id.size(); ++k) {
      if (by_id[k] == family::not_stored && s.num_ids_ != s.num_particles_) continue;  // as families() gives an id no longer stored; checked below
      family::check_id(by_id[k], ("set_families (particle " + std::to_string(k) + ")").c_str());
      highest = std::max(highest, by_id[k]);
    }
    if (s.num_ids_ != s.num_particles_) {  // family::not_stored only for ids no longer stored
      std::vector<std::uint32_t> ids;
      s.id_.copy_to(ids);
      for (std::uint32_t id : ids)
        if (by_id[id] == family::not_stored) family::check_id(by_id[id], ("set_families (particle " + std::to_string(id) + ")").c_str());
    }
    if (s.num_particles_ == 0) return;
    ensure(s);
    typename Sim::template buffer<std::uint32_t> upload;
    upload.assign(by_id);
    s.backend_.for_each(s.num_particles_, place_by_id_kernel<std::uint32_t>{s.id_.data(), upload.data(), s.family_.data()});
    s.highest_family_ = std::max(s.highest_family_, highest);
    ids_changed(s);
  }

  // Particles changed family between steps: new rules apply from the re-evaluated forces, new
  // contact settings from a rebuilt list.
  static void ids_changed(Sim& s) {
    s.prepared_ = false;
    if (list_depends_on_families(s)) s.contacts_valid_ = false;
  }

  // Moves the active particles of `from` that satisfy `pred` to `to`; returns how many moved.
  template <class Pred>
  static std::uint32_t change(Sim& s, family_id from, family_id to, const Pred& pred) {
    family::check_id(from, "change_family (from)");
    family::check_id(to, "change_family (to)");
    if (s.num_particles_ == 0 || from == to) return 0;
    ensure(s);
    s.highest_family_ = std::max(s.highest_family_, to);
    launch(s, from, to, pred);
    const std::uint32_t now = s.read_status()[family_changes];
    const std::uint32_t moved = now - s.family_changes_seen_;
    s.family_changes_seen_ = now;
    if (moved) ids_changed(s);
    return moved;
  }

  template <class Pred>
  static void change_when(Sim& s, family_id from, family_id to, const Pred& pred) {
    family::check_id(from, "change_family_when (from)");
    family::check_id(to, "change_family_when (to)");
    s.highest_family_ = std::max(s.highest_family_, to);
    s.family_predicates_.push_back([from, to, pred](Sim& sim) { launch(sim, from, to, pred); });
  }

  // After each step: every predicate, in the order given (a particle can move on in a chain).
  static void run_predicates(Sim& s) {
    if (s.family_predicates_.empty() || s.num_particles_ == 0) return;
    ensure(s);
    for (auto& p : s.family_predicates_) p(s);
  }

  // After a step's status was read: moves by predicates invalidate the list if contacts are masked.
  static void note_changes(Sim& s, std::uint32_t count) {
    if (count == s.family_changes_seen_) return;
    s.family_changes_seen_ = count;
    if (list_depends_on_families(s)) s.contacts_valid_ = false;
  }

  // Whether the contact list depends on the particles' families: disabled family pairs are not
  // listed, and extra margins enlarge a family's search (a particle moved into a family with a
  // larger margin has fewer partners listed than its budget assumes).
  static bool list_depends_on_families(const Sim& s) { return s.families_.any_disabled() || s.families_.any_margin(); }

  // The rule table for this evaluation: the mean prescribed velocity over the interval the
  // integrator drifts through next (velocity Verlet: the next step's, from a step's evaluation;
  // the current one from an evaluation before a step; the Euler schemes: the current step's).
  static family::rule_view<real> rules(Sim& s, bool integrate) {
    if (s.num_particles_ == 0 || !s.families_.has_rules()) {
      s.family_contact_force_.clear();
      s.family_contact_torque_.clear();
      return {};
    }
    ensure(s);  // a rule for family 0 applies to particles never given a family
    if constexpr (Sim::ledger_supported)
      if (s.ledger_on_)
        throw std::logic_error("dem: the energy ledger does not account the work of prescribed family motion or added family loads; "
                               "disable the ledger or the family rules");
    const double dt = s.cfg_.dt;
    const double t0 = (Sim::policy::integrator::needs_initial_force && integrate) ? s.time_ + dt : s.time_;
    const family_id highest = std::max(s.highest_family_, s.families_.highest_named());
    const family::rule<real>* table = s.families_.rules(t0, t0 + dt, highest);
    if (s.family_contact_force_.size() != s.num_particles_) {
      s.family_contact_force_.resize(s.num_particles_);
      s.family_contact_torque_.resize(s.num_particles_);
    }
    return {s.family_.data(), table, s.family_contact_force_.data(), s.family_contact_torque_.data()};
  }

  static family::mask_view masks(Sim& s) {
    if (s.num_particles_ == 0 || !s.families_.any_disabled()) return {};
    ensure(s);  // family 0 may be disabled against another
    return {s.family_.data(), s.families_.boundary_families(s.walls_.size()), s.families_.mask()};
  }

 private:
  template <class Pred>
  static void launch(Sim& s, family_id from, family_id to, const Pred& pred) {
    s.backend_.for_each(s.num_particles_,
                        family::change_kernel<typename Sim::coord_space, Pred>{s.pos_.data(), s.vel_.data(), s.omega_.data(), s.radius_.data(),
                                                                              s.inv_mass_.data(), s.id_.data(), s.active_.data(), s.coord_,
                                                                              s.family_.data(), from, to, pred, s.time_,
                                                                              s.status_.data() + family_changes});
  }
};

}  // namespace dem::sim
