#pragma once
// Steps on a device backend without a blocking device-to-host read per step (issue 17, "GPU
// readiness"). The host's step reads two things back: the largest displacement since the contact
// list was built (to decide a rebuild) and the status word (a diverged or lost particle). Both
// reads wait for the GPU, and below a million particles they were most of a step's time.
//
// Here the device decides instead. Each step's first kernel checks, per particle, the Verlet
// criterion the host would have checked on the maximum (displacement > margin / 2) and whether the
// previous step's particle kernel recorded a status; either sets the `halt` word. Every kernel of
// the later steps reads the word first and does nothing once it is set, so the state stays where
// the host's own step would have stopped to rebuild or to report. The host enqueues
// config.status_read_interval steps, then reads `halt` once: unset, all steps ran exactly as the
// host's steps would have; set, it rewinds its step counter and clock to the halted step,
// rebuilds (or reads the status, as after a host step) and goes on. No contact is ever missed and
// the result is bit-identical to deciding on the host (tests/sim/test_reproducibility.cpp).
// A halt for a particle past half the margin goes through the local check first
// (sim/local_validity.hpp); a list it keeps stands while particles are past their budgets, and the
// host then takes each step itself (one read per step) until the next rebuild.
//
// The path is taken when nothing between two steps needs the host: no moving boundaries, no family
// predicates, no inlets or outlets, no energy ledger, no deformable spheres, no family extra
// margins. Otherwise each step reads back as before.
#include <algorithm>
#include <cstdint>

#include "dem/backend/atomic.hpp"
#include "dem/config.hpp"
#include "dem/sim/contact_helpers.hpp"
#include "dem/sim/local_validity.hpp"
#include "dem/sim/step_kernels.hpp"

namespace dem::sim {

// The halt word: `no_halt`, or where the steps of a batch stopped. 2k: step k - 1's particle
// kernel recorded a diverged or lost particle (nothing of step k ran); 2k + 1: a particle moved
// past half the margin in step k's first kernel (which ran; nothing after it did).
inline constexpr std::uint32_t no_halt = ~std::uint32_t{0};

// What a step's force kernels check first (null halt: no check, the host's own steps).
struct step_guard {
  const std::uint32_t* halt = nullptr;
  std::uint32_t code = 0;  // 2k + 1 for step k of the batch
  DEM_HD bool halted() const { return halt && atomic::load(halt) <= code; }
};

// A step's pair or particle kernel behind the guard.
template <class Kernel>
struct guarded_kernel {
  Kernel kernel;
  step_guard guard;
  DEM_HD DEM_INLINE void operator()(index_t i) const {
    if (guard.halted()) return;
    kernel(i);
  }
};

// A step's first kernel (sim::pre_force_kernel or sim::displacement2: both return the squared
// displacement since the list's build) behind the guard, deciding on the rebuild. Every thread of
// the kernel takes the same branch at the top: the status words and any halt of an earlier step do
// not change while it runs (it writes only code or code + 1).
template <class Start>
struct guarded_start_kernel {
  Start start;
  std::uint32_t* halt;
  const std::uint32_t* status;
  std::uint32_t lost_seen;  // status[lost_count] as the host last read it
  std::uint32_t code;       // 2k
  double half2;             // (margin / 2)^2, compared as the host compares the maximum
  DEM_HD void operator()(index_t i) const {
    if (status[bad_particle] != no_particle || status[lost_count] != lost_seen) {
      if (i == 0) atomic::min(halt, code);
      return;
    }
    if (atomic::load(halt) < code) return;
    const double moved2 = start(i);
    if (!(moved2 <= half2)) atomic::min(halt, code + 1);  // NaN too: the host's maximum would rebuild or report it
  }
};

// The host side (a friend of the Simulator).
template <class Sim>
struct device_steps {
  // Whether steps can run without a read each: nothing between two steps needs the host.
  static bool applies(const Sim& s) {
    if (s.cfg_.status_read_interval == 0 || s.cfg_.deferred_detection) return false;  // (deferred lists are applied between steps)
    if constexpr (Sim::ledger_supported)
      if (s.ledger_on_) return false;
    // Family extra margins: the host decides the rebuild from each particle's budget (Simulator::one_step).
    return s.family_predicates_.empty() && s.outlet_launch_.empty() && s.inlet_step_.empty() && !s.walls_.any_moving() &&
           !s.families_.any_margin();
  }

  // n steps, in batches of config.status_read_interval with one read of the halt word each.
  static void run(Sim& s, std::uint64_t n) {
    if (s.halt_.size() == 0) {
      s.halt_.resize(1);
      s.halt_.fill(no_halt);
    }
    const std::uint64_t target = s.steps_ + n;
    while (s.steps_ < target) {
      // A rebuild is due before the next forces, or the list stands while particles are past their
      // budgets (local validity checks them each step): the host's step.
      if (!s.contacts_valid_ || s.kept_with_overrun_) {
        s.one_step();
        continue;
      }
      const std::uint64_t first = s.steps_;
      const double t_first = s.time_;
      const auto batch = static_cast<std::uint32_t>(std::min<std::uint64_t>(s.cfg_.status_read_interval, target - first));
      for (std::uint32_t k = 0; k < batch; ++k) {
        enqueue(s, k);
        advance_clock(s);
      }
      std::uint32_t halt = no_halt;
      s.halt_.copy_to(&halt, 1);
      if (halt == no_halt) {  // every step ran; the last one's status is read as after a host step
        s.check_status();
        continue;
      }
      // Back to where the device stopped (the clock re-added step by step, as the host adds it).
      s.steps_ = first;
      s.time_ = t_first;
      for (std::uint32_t k = 0; k < halt / 2; ++k) advance_clock(s);
      s.halt_.fill(no_halt);
      ++s.halted_batches_;
      if (halt % 2 == 0) {  // the previous step recorded a status: handle it as the host's step would have
        s.check_status();
        continue;
      }
      // The step's first half ran: rebuild (unless the particles past half the margin are found
      // clear of every partner and element they lack: sim/local_validity.hpp), then its forces and the rest.
      if (!(local_validity<Sim>::applies(s) && local_validity<Sim>::holds(s, 0.5 * s.margin()))) s.rebuild_contacts();
      s.finish_step(0.0);
    }
  }

 private:
  static void advance_clock(Sim& s) {
    ++s.steps_;
    s.time_ += s.cfg_.dt;
  }

  // Step k of a batch: its first kernel (with the rebuild decision), then forces and integration.
  static void enqueue(Sim& s, std::uint32_t k) {
    using P = typename Sim::policy;
    using real = typename Sim::real;
    const real dt = static_cast<real>(s.cfg_.dt);
    const double half = 0.5 * s.margin();
    const std::uint32_t code = 2 * k;
    if constexpr (P::integrator::needs_initial_force)
      s.backend_.for_each(s.num_particles_, guarded_start_kernel<pre_force_kernel<P>>{{s.view(), s.rigid(), s.coord_, dt}, s.halt_.data(),
                                                                                       s.status_.data(), s.lost_, code, half * half});
    else
      s.backend_.for_each(s.num_particles_, guarded_start_kernel<displacement2<typename Sim::coord_space>>{
                                                {s.view(), s.coord_}, s.halt_.data(), s.status_.data(), s.lost_, code, half * half});
    s.evaluate_forces(true, step_guard{s.halt_.data(), code + 1});
  }
};

}  // namespace dem::sim
