#pragma once
// The energy ledger's driver (energy/ledger.hpp has the physics): what the Simulator does with it
// each step: prime the records at the current state, run the ledger's kernels before a force
// evaluation and add their sums to the totals, carry the records across contact-list builds, and
// evaluate the state functions.
#include <cstdint>

#include "dem/boundary/wall_kernels.hpp"
#include "dem/contact/contact_list.hpp"
#include "dem/energy/ledger.hpp"

namespace dem::energy {

template <class Sim>
struct ledger_driver {
  using P = typename Sim::policy;
  using real = typename Sim::real;

  static void state_now(Sim& s, double& kinetic, double& potential, double& elastic, double& shadow) {
    kinetic = s.kinetic_energy();
    potential = s.potential_energy();
    elastic = s.elastic_energy();
    shadow = s.num_particles_ ? s.backend_.reduce_sum(s.num_particles_, energy::shadow_energy_of<P>{s.view(), s.cfg_.dt}) : 0.0;
  }
  // The ledger's records for the current state (forces without advancing history: dt = 0), and
  // its start values.
  static void prime(Sim& s) {
    s.ledger_.listed = s.num_contacts_;
    s.ledger_.records.resize(s.num_contacts_);
    s.ledger_.key.resize(s.num_contacts_);
    s.ledger_.index.resize(s.num_contacts_);
    if (s.num_contacts_) {
      s.backend_.for_each(s.num_contacts_, contact::carry_history_kernel<energy::contact_record<real>>{
                                           s.pair_a_.data(), s.pair_b_.data(), s.id_.data(), nullptr, nullptr, nullptr, 0, s.ledger_.key.data(),
                                           s.ledger_.index.data(), s.ledger_.records.data()});
      s.backend_.sort_pairs(s.ledger_.key, s.ledger_.index, s.num_contacts_);
    }
    s.ledger_.wall_records.resize(s.walls_.num_entries());
    s.ledger_.wall_records.fill(energy::contact_record<real>{});
    run_kernels(s, real(0));
    s.ledger_totals_ = {};
    state_now(s, s.ledger_totals_.kinetic_start, s.ledger_totals_.potential_start, s.ledger_totals_.elastic_start, s.ledger_totals_.shadow_start);
    s.ledger_primed_ = true;
  }
  static void run_kernels(Sim& s, real dt) {
    const real t = static_cast<real>(s.time_);
    s.ledger_.pair_out.resize(s.num_contacts_);
    s.ledger_.particle_out.resize(s.num_particles_);
    if (s.num_contacts_)
      s.backend_.for_each(s.num_contacts_, energy::ledger_pair_kernel<P>{s.view(), s.coord_, s.pair_a_.data(), s.pair_b_.data(), s.history_ptr(s.history_),
                                                                            s.params_.data(), s.num_materials(), s.wildcards_view(),
                                                                            s.ledger_.records.data(), s.ledger_.pair_out.data(), dt, t});
    s.ledger_.wall_history_copy.resize(s.walls_.num_entries());
    if (s.num_particles_)
      s.backend_.for_each(s.num_particles_, energy::ledger_particle_kernel<P>{
                                            s.view(), s.coord_, s.walls_.view(), s.walls_.walls(), s.ledger_.wall_history_copy.data(), s.params_.data(),
                                            s.num_materials(), s.wildcards_view(), vec3<real>(s.cfg_.gravity), s.ext_force_ptr(), s.ext_torque_ptr(),
                                            s.ledger_.wall_records.data(),
                                            s.ledger_.particle_out.data(), dt, t});
  }
  // One step's dissipation, before its force evaluation (same inputs).
  static void step(Sim& s, real dt) {
    run_kernels(s, dt);
    energy::ledger& l = s.ledger_totals_;
    const energy::step_energy* pe = s.ledger_.pair_out.data();
    const energy::step_energy* qe = s.ledger_.particle_out.data();
    const index_t nc = s.num_contacts_, n = s.num_particles_;
    auto both = [&](auto field) { return (nc ? s.backend_.reduce_sum(nc, decltype(field){pe}) : 0.0) + (n ? s.backend_.reduce_sum(n, decltype(field){qe}) : 0.0); };
    l.normal_damping += both(energy::field_of<0>{});
    l.tangential += both(energy::field_of<1>{});
    l.rolling += both(energy::field_of<2>{});
    l.twisting += both(energy::field_of<3>{});
    l.other += both(energy::field_of<4>{});
    if (n) l.gravity_work += s.backend_.reduce_sum(n, energy::field_of<5>{qe});
    if (n && s.walls_.num_entries()) l.boundary_work += s.backend_.reduce_sum(n, energy::field_of<6>{qe});
    if (n && s.ext_force_.size()) l.external_work += s.backend_.reduce_sum(n, energy::field_of<7>{qe});
    ++l.steps;
  }
  // After a rebuild: each listed pair's record from the previous list, by its id key; each wall
  // entry's as its history was carried.
  static void carry(Sim& s) {
    s.ledger_.wall_records.swap(s.ledger_.old_wall_records);
    s.ledger_.wall_records.resize(s.walls_.num_entries());
    if (s.walls_.num_entries())
      s.backend_.for_each(s.walls_.num_entries(), boundary::carry_kernel<energy::contact_record<real>>{s.walls_.carried_from().data(),
                                                                                                  s.ledger_.old_wall_records.data(),
                                                                                                  s.ledger_.wall_records.data()});
    s.ledger_.records.swap(s.ledger_.old_records);
    s.ledger_.key.swap(s.ledger_.old_key);
    s.ledger_.index.swap(s.ledger_.old_index);
    s.ledger_.records.resize(s.num_contacts_);
    s.ledger_.key.resize(s.num_contacts_);
    s.ledger_.index.resize(s.num_contacts_);
    if (s.num_contacts_) {
      s.backend_.for_each(s.num_contacts_, contact::carry_history_kernel<energy::contact_record<real>>{
                                           s.pair_a_.data(), s.pair_b_.data(), s.id_.data(), s.ledger_.old_key.data(), s.ledger_.old_index.data(),
                                           s.ledger_.old_records.data(), s.ledger_.listed, s.ledger_.key.data(), s.ledger_.index.data(),
                                           s.ledger_.records.data()});
      s.backend_.sort_pairs(s.ledger_.key, s.ledger_.index, s.num_contacts_);
    }
    s.ledger_.listed = s.num_contacts_;
  }

};

}  // namespace dem::energy
