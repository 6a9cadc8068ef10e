#pragma once
// External forces and torques per particle: the hook for CFD–DEM coupling (drag, buoyancy, pressure
// gradient) and for any field force. The user hands them by particle id between steps; they are
// added to every force evaluation from then on, until replaced or cleared.
//
// Stored per particle in the simulator's order (permuted with the rest at every contact-list
// rebuild), empty when unused, so that a run without them reads nothing more. Placed by a kernel
// from an upload in id order: no copy of the state to the host and back.
//
// Velocity Verlet kicks with the force stored at the end of the previous step: a change takes
// effect in the next step's first kick as well, because the stored forces are patched by the
// difference (new - old). The energy ledger accounts the external forces' work per step
// (F · Δx + T · Δθ, exact while they stay constant within the step, which the patch guarantees) and
// re-bases velocity Verlet's shadow term at a change.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "dem/config.hpp"
#include "dem/math/vec3.hpp"

namespace dem::sim {

// out[i] = by_id[id[i]], for the particles in storage order.
template <class T>
struct place_by_id_kernel {
  const std::uint32_t* id;
  const T* by_id;
  T* out;
  DEM_HD void operator()(index_t i) const { out[i] = by_id[id[i]]; }
};

// The stored force and torque of active particles, corrected from the old external values to the
// new (inactive particles keep zero).
template <class Real>
struct patch_external_kernel {
  const std::uint32_t* active;
  vec3<Real>* force;
  vec3<Real>* torque;
  const vec3<Real>* old_force;  // null: none before
  const vec3<Real>* old_torque;
  const vec3<Real>* new_force;  // null: none now
  const vec3<Real>* new_torque;
  DEM_HD void operator()(index_t i) const {
    if (!active[i]) return;
    vec3<Real> f = force[i], t = torque[i];
    if (old_force) {
      f -= old_force[i];
      t -= old_torque[i];
    }
    if (new_force) {
      f += new_force[i];
      t += new_torque[i];
    }
    force[i] = f;
    torque[i] = t;
  }
};

// The Simulator's side (a friend): set and clear.
template <class Sim>
struct external_forces {
  using real = typename Sim::real;
  template <class T>
  using buffer = typename Sim::template buffer<T>;

  // One value per id; those of ids still stored must be finite (the others are not read: an id
  // compacted away may carry the NaN its by-id readouts gave).
  static void check(const Sim& s, const std::vector<vec3d>& v, const char* what) {
    if (v.size() != s.num_ids_)
      throw std::invalid_argument(std::string("dem: set_external_forces: got ") + std::to_string(v.size()) + " " + what + "s for " +
                                  std::to_string(s.num_ids_) + " particles (one per particle id)");
    std::vector<std::uint32_t> stored;
    if (s.num_ids_ != s.num_particles_) s.id_.copy_to(stored);
    const auto named = [&](std::size_t k) {
      if (!all_finite(v[k]))
        throw std::invalid_argument(std::string("dem: set_external_forces: the ") + what + " on particle " + std::to_string(k) +
                                    " is not finite: " + Sim::str(v[k]));
    };
    if (s.num_ids_ == s.num_particles_)
      for (std::size_t k = 0; k < v.size(); ++k) named(k);
    else
      for (std::uint32_t id : stored) named(id);
  }

  static void set(Sim& s, const std::vector<vec3d>& force_by_id, const std::vector<vec3d>& torque_by_id) {
    check(s, force_by_id, "force");
    if (!torque_by_id.empty()) check(s, torque_by_id, "torque");
    const index_t n = s.num_particles_;
    const std::size_t ids = s.num_ids_;  // the upload is by id: ids no longer stored are not read
    buffer<vec3<real>> f, t, upload;
    f.resize(n);
    t.resize(n);
    std::vector<vec3<real>> host(ids);
    for (std::size_t k = 0; k < ids; ++k) host[k] = vec3<real>(force_by_id[k]);
    upload.assign(host);
    s.backend_.for_each(n, place_by_id_kernel<vec3<real>>{s.id_.data(), upload.data(), f.data()});
    if (torque_by_id.empty()) {
      t.fill({0, 0, 0});
    } else {
      for (std::size_t k = 0; k < ids; ++k) host[k] = vec3<real>(torque_by_id[k]);
      upload.assign(host);
      s.backend_.for_each(n, place_by_id_kernel<vec3<real>>{s.id_.data(), upload.data(), t.data()});
    }
    replace(s, &f, &t);
  }

  static void clear(Sim& s) {
    if (s.ext_force_.size() == 0) return;
    replace(s, nullptr, nullptr);
  }

 private:
  // Swaps in the new values (or none), patching velocity Verlet's stored forces; a running energy
  // ledger is re-based across the change (Simulator::ledger_rebased_across).
  static void replace(Sim& s, buffer<vec3<real>>* f, buffer<vec3<real>>* t) {
    s.ledger_rebased_across([&] {
      const bool had = s.ext_force_.size() != 0;
      if (Sim::policy::integrator::needs_initial_force && s.prepared_ && s.num_particles_)
        s.backend_.for_each(s.num_particles_, patch_external_kernel<real>{s.active_.data(), s.force_.data(), s.torque_.data(),
                                                                          had ? s.ext_force_.data() : nullptr, had ? s.ext_torque_.data() : nullptr,
                                                                          f ? f->data() : nullptr, t ? t->data() : nullptr});
      if (f) {
        s.ext_force_.swap(*f);
        s.ext_torque_.swap(*t);
      } else {
        s.ext_force_.clear();
        s.ext_torque_.clear();
      }
    });
  }
};

}  // namespace dem::sim
