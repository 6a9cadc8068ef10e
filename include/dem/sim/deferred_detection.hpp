#pragma once
// Deferred contact detection (config.deferred_detection): DEM-Engine's split of detection from the
// dynamics (../shared/references/001). A build starts from a snapshot of the positions and runs on
// a thread of its own, with a backend instance and buffers of its own, while the steps go on with
// the list in service; the dynamics put its list in service at the first step boundary after it is
// ready (apply): reorder the particles as the build sorted them, gather the histories of the pairs
// it kept from the list serving at that moment, and take the snapshot as the positions the list was
// built from (pos_ref_), so that the displacement check that decides a rebuild counts each
// particle's budget from where the build saw it. That check stays the guard: a particle (or a
// moving boundary) that uses up its margin before a list is ready makes a synchronous rebuild,
// counted and logged; no contact is ever missed, and the results are the same bits as detection at
// every step (forces are summed in partner-id order; a listed pair that does not touch adds +0).
//
// When to start a build: when the displacement since the serving list's snapshot, extrapolated at
// its mean rate over 1.5x the builds' latency + 2 steps, would pass half the margin (or a moving
// boundary its budget). The latency is measured (a moving average, in steps), so the frequency
// adapts to the flow and to the machine.
//
// What the worker reads of the Simulator: nothing but its snapshot and the serving list's pairs and
// incident lists, which change only in a build (synchronous ones cancel and join the worker first).
// A build whose particles were reordered, added or invalidated meanwhile is discarded.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <exception>
#include <memory>
#include <ostream>
#include <thread>

#include "dem/sim/contact_builder.hpp"
#include "dem/sim/local_validity.hpp"

#if defined(_OPENMP)
#include <omp.h>
#endif

namespace dem::sim {

// What deferred detection did (Simulator::deferred_statistics).
struct deferred_stats {
  std::uint64_t launched = 0;        // builds started from a snapshot
  std::uint64_t applied = 0;         // lists put in service
  std::uint64_t discarded = 0;       // builds dropped: the particles were reordered, added or invalidated meanwhile, the build failed,
  std::uint64_t too_late = 0;        //   or (counted here too) a particle had moved more than half the margin since the snapshot
  std::uint64_t sync_rebuilds = 0;   // synchronous builds: the first, those setters, requests or lost and added particles ask for, and
  std::uint64_t guard_rebuilds = 0;  //   of them, those because a particle or boundary used up its margin before a list was ready
  std::uint64_t short_lists = 0;     //   of those, lists that ran out with no build started: they last shorter than a build takes
  double wait_seconds = 0;           // time the dynamics spent waiting for a build (cancelled, or joined at the end of step())
  double latency_steps = 0;          // steps from a build's start to its list being ready (moving average)
};

template <class Sim>
struct deferred_detection;

// The squared displacement of each active particle from where a deferred build's snapshot saw it
// (per new storage index; the positions are still in the old order).
template <class Space>
struct snapshot_displacement2 {
  typename Space::params coord;
  const typename Space::position* pos;   // old order
  const std::uint32_t* active;           // old order
  const std::uint32_t* perm;             // perm[new] = old
  const typename Space::position* snap;  // new order
  DEM_HD double operator()(index_t i) const {
    const std::uint32_t o = perm[i];
    return active[o] ? static_cast<double>(norm2(Space::difference(coord, pos[o], snap[i]))) : 0.0;
  }
};

// 1 per active particle (a count, as a sum).
struct active_count {
  const std::uint32_t* active;
  DEM_HD double operator()(index_t i) const { return active[i] ? 1.0 : 0.0; }
};

// One build: its snapshot, the builder's buffers (named as the Simulator's, for the steps
// contact_builder shares) and its result.
template <class Sim>
struct deferred_workspace {
  using real = typename Sim::real;
  using position = typename Sim::position_type;
  using space = typename Sim::coord_space;
  template <class T>
  using buffer = typename Sim::template buffer<T>;

  typename Sim::backend_type backend_{};
  buffer<position> snap_pos_, pos_;
  buffer<real> snap_radius_, snap_search_, radius_;
  buffer<std::uint32_t> snap_id_, snap_active_, snap_family_, id_, family_;
  buffer<std::uint64_t> cell_key_, cell_keys_;
  buffer<std::uint32_t> perm_, head_, slot_, cell_start_, row_first_, pair_count_, level_first_, pair_a_, pair_b_, incident_offset_,
      incident_entry_, from_;
  // Inputs.
  typename space::params coord{};
  broad::grid g;
  double detect = 0, extra = 0;
  family::mask_view masks;
  bool search_margins = false;
  std::uint32_t n = 0, old_particles = 0;
  const std::uint32_t *old_offset = nullptr, *old_entry = nullptr, *old_pair_a = nullptr, *old_pair_b = nullptr;
  // Result.
  std::uint32_t n_active = 0, num_cells = 0, nc = 0;
  std::uint64_t generation = 0, launch_step = 0;
  std::exception_ptr error;
  std::atomic<bool> cancel{false}, done{false};
};

// The Simulator's part: copying a Simulator gives a copy without a build in flight; destroying
// one joins its worker.
template <class Sim>
class deferred_state {
 public:
  deferred_state() = default;
  deferred_state(const deferred_state& o) { *this = o; }
  deferred_state& operator=(const deferred_state& o) {  // what was learnt and counted; no build
    if (this != &o) {
      reset();
      stats = o.stats;
      generation = o.generation;
      list_step = o.list_step;
      wall_step = o.wall_step;
      moved = o.moved;
      wall_moved = o.wall_moved;
      life = o.life;
    }
    return *this;
  }
  deferred_state(deferred_state&& o) noexcept { *this = std::move(o); }
  deferred_state& operator=(deferred_state&& o) noexcept {
    if (this != &o) {
      *this = static_cast<const deferred_state&>(o);  // what was learnt and counted (after reset())
      w_ = std::move(o.w_);
      worker_ = std::move(o.worker_);
      in_flight_ = o.in_flight_;
      pending_ = o.pending_;
      dynamics_threads_ = o.dynamics_threads_;
      o.in_flight_ = o.pending_ = false;
      o.dynamics_threads_ = 0;
    }
    return *this;
  }
  ~deferred_state() { reset(); }

  deferred_stats stats;
  std::uint64_t generation = 0;  // bumped by every synchronous build and every apply
  std::uint64_t list_step = 0;   // the step of the serving list's positions (its snapshot, or its synchronous build)
  std::uint64_t wall_step = 0;   // the step of the wall list's build
  double moved = 0;              // after the last step: the largest displacement since list_step
  double wall_moved = 0;         //   and the boundaries' since wall_step
  double life = 0;               // under local validity: the age at which lists are replaced (learnt; 0: not yet)
  // A build started and not yet applied or discarded: it reads the list in service.
  bool in_flight() const { return in_flight_; }

 private:
  friend struct deferred_detection<Sim>;
  void reset() noexcept {
    if (worker_ && worker_->joinable()) {
      if (w_) w_->cancel.store(true);
      worker_->join();
    }
    worker_.reset();
#if defined(_OPENMP)
    if (dynamics_threads_) omp_set_num_threads(dynamics_threads_);
#endif
    dynamics_threads_ = 0;
    in_flight_ = pending_ = false;
  }
  std::unique_ptr<deferred_workspace<Sim>> w_;
  std::unique_ptr<std::thread> worker_;
  bool in_flight_ = false;  // a build started and not yet applied or discarded
  bool pending_ = false;    // ... and finished (joined)
  int dynamics_threads_ = 0;  // the OpenMP threads the dynamics had before the split (0: not split)
};

template <class Sim>
struct deferred_detection {
  using real = typename Sim::real;
  using position = typename Sim::position_type;
  using space = typename Sim::coord_space;
  using builder = contact_builder<Sim>;
  using workspace = deferred_workspace<Sim>;
  using state = deferred_state<Sim>;

  static bool active(const Sim& s) {
    if constexpr (Sim::deformable) return false;
    else {
      if constexpr (Sim::ledger_supported)
        if (s.ledger_on_) return false;  // the ledger carries its records in synchronous builds
      return s.cfg_.deferred_detection;
    }
  }

  // ---- in a step, once the boundaries moved (servos and free bodies read the last evaluation's
  // loads, which a new wall list clears) and before the particles move -----------------------------
  // Puts a ready list in service, then starts a build if the serving list would run out within the
  // builds' latency.
  static void before_step(Sim& s) {
    state& st = s.deferred_;
    if (st.in_flight_ && !st.pending_) {
      const std::uint32_t k = s.cfg_.deferred_fixed_latency;
      if (k ? s.steps_ >= st.w_->launch_step + k : st.w_->done.load(std::memory_order_acquire)) join(s, false);
    }
    if (st.pending_) apply(s);
    if (!st.in_flight_ && s.contacts_valid_ && due(s)) launch(s);
  }

  // Before a synchronous rebuild: a build in flight is cancelled (its result would be stale).
  static void before_sync_rebuild(Sim& s) {
    state& st = s.deferred_;
    drop(s);
    ++st.generation;
    st.list_step = st.wall_step = s.steps_;
    st.moved = st.wall_moved = 0;
    if (active(s)) ++st.stats.sync_rebuilds;
  }

  // A build in flight cancelled and joined, or a finished one dropped.
  static void drop(Sim& s) {
    state& st = s.deferred_;
    if (!st.in_flight_) return;
    if (!st.pending_) {
      st.w_->cancel.store(true, std::memory_order_relaxed);
      join(s, true);
    }
    ++st.stats.discarded;
    st.in_flight_ = st.pending_ = false;
  }

  // A synchronous rebuild a step decided: `guard` when the list was valid (a particle or boundary
  // used up its margin before a deferred list was ready), counted and logged.
  static void note_sync_rebuild(Sim& s, bool guard) {
    state& st = s.deferred_;
    if (!guard) return;
    ++st.stats.guard_rebuilds;
    if (!st.in_flight_) ++st.stats.short_lists;
    if (s.steps_ > st.list_step) {
      // A build in flight came too late: the life learnt is cut. None started: the list's whole life.
      const double age = static_cast<double>(s.steps_ - st.list_step);
      st.life = st.in_flight_ && st.life > 0 ? std::max(1.0, 0.85 * std::min(st.life, age)) : age;
    }
    if (s.log_)
      *s.log_ << "dem: step " << s.steps_ << ": a particle or boundary used up its contact margin before the deferred list was ready; rebuilt now ("
              << st.stats.guard_rebuilds << " such rebuilds, builds take " << st.stats.latency_steps
              << " steps; a larger config.contact_margin avoids them)\n";
  }

  // After a step: the displacements since the list's positions and the wall list's build, which the
  // next launch decision reads (a synchronous rebuild in the step reset them: before_sync_rebuild).
  static void after_step(Sim& s, double moved, double wall_moved) {
    state& st = s.deferred_;
    st.moved = moved;
    st.wall_moved = wall_moved;
  }

  // At the end of Simulator::step: the worker never outlives the call (the Simulator may be
  // changed, copied or destroyed between calls); its finished result stays pending.
  static void end_of_call(Sim& s) {
    state& st = s.deferred_;
    if (st.in_flight_ && !st.pending_ && !s.cfg_.deferred_fixed_latency) join(s, true);
  }

 private:
  static double latency_estimate(const Sim& s) {
    const state& st = s.deferred_;
    if (s.cfg_.deferred_fixed_latency) return s.cfg_.deferred_fixed_latency;
    return 1.5 * std::max(1.0, st.stats.latency_steps) + 2.0;
  }

  // Whether a build should start now. Under the plain criterion the largest displacement decides a
  // rebuild, and its rate predicts when. Under local validity (config.max_overrun) a list outlives
  // that by as long as the particles past their budgets stay clear of what they lack, which no rate
  // predicts: the lists' expected life is learnt instead, grown 25 % with each list that served to
  // its replacement until the first guard rebuild, 2 % after, and cut to 0.85x the age at which one
  // did not serve (a guard rebuild). Rates are extrapolated at 1.5x (a bound for acceleration).
  static bool due(Sim& s) {
    state& st = s.deferred_;
    if (s.steps_ <= st.list_step) return false;
    const double lead = latency_estimate(s) + 1.0;
    const double age = static_cast<double>(s.steps_ - st.list_step);
    const double half = 0.5 * s.margin();
    // A list that lasts no longer than a build takes is left to run out (a synchronous rebuild): a
    // build started for it would be dropped.
    if (local_validity<Sim>::applies(s)) {
      if (st.life <= 0 && st.moved > 0) st.life = std::max(lead + 1.0, half / (st.moved / age));  // not learnt yet: the plain criterion's
      if (st.life > lead && age + lead >= st.life) return true;
    } else if (st.moved > 0 && half / (1.5 * st.moved / age) > lead && st.moved + 1.5 * (st.moved / age) * lead >= half) {
      return true;
    }
    if (st.wall_moved > 0 && s.steps_ > st.wall_step) {
      const double wall_age = static_cast<double>(s.steps_ - st.wall_step);
      if (st.wall_moved + 1.5 * (st.wall_moved / wall_age) * lead >= s.boundary_budget()) return true;
    }
    return false;
  }

  static void launch(Sim& s) {
    state& st = s.deferred_;
    if (!st.w_) st.w_ = std::make_unique<workspace>();
    workspace& w = *st.w_;
    const std::uint32_t n = s.num_particles_;
    w.n = n;
    w.coord = s.coord_;
    w.g = builder::grid_for(s, n);
    w.detect = s.margin() + s.max_range_;
    w.extra = s.families_.max_margin();
    // The snapshot (the dynamics' backend copies: the worker has not started).
    w.snap_pos_.discard_resize(n);
    w.snap_radius_.discard_resize(n);
    w.snap_id_.discard_resize(n);
    w.snap_active_.discard_resize(n);
    s.backend_.for_each(n, copy_kernel<position>{s.pos_.data(), w.snap_pos_.data()});
    s.backend_.for_each(n, copy_kernel<real>{s.contact_radius(), w.snap_radius_.data()});
    s.backend_.for_each(n, copy_kernel<std::uint32_t>{s.id_.data(), w.snap_id_.data()});
    s.backend_.for_each(n, copy_kernel<std::uint32_t>{s.active_.data(), w.snap_active_.data()});
    w.search_margins = s.families_.any_margin() && n;
    if (w.search_margins) {
      w.snap_search_.discard_resize(n);
      s.backend_.for_each(n, family::search_radius_kernel<real>{s.contact_radius(), s.family_.size() ? s.family_.data() : nullptr,
                                                               s.family_margins(), w.snap_search_.data()});
    }
    w.masks = n ? s.family_masks() : family::mask_view{};
    if (w.masks.active()) {
      w.snap_family_.discard_resize(n);
      s.backend_.for_each(n, copy_kernel<std::uint32_t>{s.family_.data(), w.snap_family_.data()});
    }
    // The serving list, for the carry (read only while the build runs).
    const bool carry = builder::history_to_carry(s) && s.incident_offset_.size() == std::size_t(n) + 1;
    w.old_particles = carry ? n : 0;
    w.old_offset = s.incident_offset_.data();
    w.old_entry = s.incident_entry_.data();
    w.old_pair_a = s.pair_a_.data();
    w.old_pair_b = s.pair_b_.data();
    // On a device the copies are enqueued: done before the worker's stream (per-thread default
    // streams) reads them.
    if constexpr (Sim::backend_type::is_device) s.backend_.synchronize();
    w.generation = st.generation;
    w.launch_step = s.steps_;
    w.error = nullptr;
    w.cancel.store(false);
    w.done.store(false);
    st.in_flight_ = true;
    st.pending_ = false;
    ++st.stats.launched;
    if (s.cfg_.deferred_fixed_latency) {  // built now, applied k steps later
      build(w);
      return;
    }
    const int device = Sim::backend_type::current_device();
#if defined(_OPENMP)
    const int all = omp_get_max_threads();
    const int for_worker = s.cfg_.deferred_threads ? static_cast<int>(s.cfg_.deferred_threads) : std::max(1, all / 8);
    st.dynamics_threads_ = all;
    omp_set_num_threads(std::max(1, all - for_worker));  // the results do not depend on the thread count
#else
    const int for_worker = 1;
#endif
    try {
      st.worker_ = std::make_unique<std::thread>([&w, for_worker, device] {
#if defined(_OPENMP)
        omp_set_num_threads(for_worker);
#else
        (void)for_worker;
#endif
        try {
          Sim::backend_type::use_device(device);
        } catch (...) {
          w.error = std::current_exception();
          return finished(w);
        }
        build(w);
      });
    } catch (...) {  // no thread to be had: built here
      restore_threads(s);
      build(w);
    }
  }

  static void restore_threads(Sim& s) {
#if defined(_OPENMP)
    state& st = s.deferred_;
    if (st.dynamics_threads_) omp_set_num_threads(st.dynamics_threads_);
    st.dynamics_threads_ = 0;
#else
    (void)s;
#endif
  }

  // Waits for the worker (`waited`: time counted as the dynamics waiting); its result is pending.
  static void join(Sim& s, bool waited) {
    state& st = s.deferred_;
    if (st.worker_) {
      const auto t0 = std::chrono::steady_clock::now();
      st.worker_->join();
      st.worker_.reset();
      if (waited) st.stats.wait_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      restore_threads(s);
    }
    st.pending_ = true;
  }

  // The build, on the worker (or inline): contact_builder's steps on the snapshot, sorted into a
  // new order; history is not read (the carry records indices into the serving list).
  static void build(workspace& w) {
    try {
      auto& b = w.backend_;
      const std::uint32_t n = w.n;
      w.cell_key_.discard_resize(n);
      w.perm_.discard_resize(n);
      b.for_each(n, broad::cell_key_kernel<space>{w.coord, w.g, w.snap_pos_.data(), w.snap_radius_.data(), w.extra, w.snap_active_.data(),
                                                  w.cell_key_.data(), w.perm_.data()});
      b.sort_pairs(w.cell_key_, w.perm_, n, std::bit_width(w.g.key_count()));
      if constexpr (!Sim::backend_type::keeps_rebuild_scratch) b.release_scratch();  // the sort's alternate arrays
      if (w.cancel.load(std::memory_order_relaxed)) return finished(w);
      const auto n_active = static_cast<std::uint32_t>(n ? b.reduce_sum(n, active_count{w.snap_active_.data()}) : 0.0);
      w.n_active = n_active;
      // The snapshot in the new order (the inactive particles, last, are compacted away at apply).
      w.pos_.discard_resize(n);
      w.id_.discard_resize(n);
      w.radius_.discard_resize(n);
      b.for_each(n, broad::permute_kernel<position>{w.perm_.data(), w.snap_pos_.data(), w.pos_.data(), 1});
      b.for_each(n, broad::permute_kernel<std::uint32_t>{w.perm_.data(), w.snap_id_.data(), w.id_.data(), 1});
      b.for_each(n, broad::permute_kernel<real>{w.perm_.data(), w.search_margins ? w.snap_search_.data() : w.snap_radius_.data(), w.radius_.data(), 1});
      family::mask_view masks = w.masks;
      if (masks.active()) {
        w.family_.discard_resize(n);
        b.for_each(n, broad::permute_kernel<std::uint32_t>{w.perm_.data(), w.snap_family_.data(), w.family_.data(), 1});
        masks.family = w.family_.data();
      }
      builder::release(w.snap_pos_, w.snap_radius_, w.snap_search_, w.snap_active_, w.snap_family_);
      w.num_cells = builder::compact_cells(w, w.g, n_active, n_active, w.detect);
      if (w.cancel.load(std::memory_order_relaxed)) return finished(w);
      w.nc = builder::search_pairs(w, w.coord, w.g, n_active, n_active, w.num_cells, w.detect, w.radius_.data(), masks);
      if (w.cancel.load(std::memory_order_relaxed)) return finished(w);
      if constexpr (Sim::stores_history) {
        w.from_.discard_resize(w.nc);
        if (w.nc)
          b.for_each(w.nc, contact::carry_index_kernel{w.pair_a_.data(), w.pair_b_.data(), w.id_.data(), w.perm_.data(), w.old_particles,
                                                       w.old_offset, w.old_entry, w.old_pair_a, w.old_pair_b, w.snap_id_.data(), w.from_.data()});
      }
      builder::release(w.snap_id_);
      builder::incident_lists(w, n_active, w.nc);
    } catch (...) {
      w.error = std::current_exception();
    }
    finished(w);
  }
  // On every path out of a build: a device's kernels done before the dynamics read, reuse or free the
  // workspace (the worker's stream, with per-thread default streams).
  static void finished(workspace& w) {
    try {
      w.backend_.synchronize();
    } catch (...) {
      if (!w.error) w.error = std::current_exception();
    }
    w.done.store(true, std::memory_order_release);
  }

  // Puts the finished build's list in service, or drops it.
  static void apply(Sim& s) {
    state& st = s.deferred_;
    workspace& w = *st.w_;
    st.in_flight_ = st.pending_ = false;
    const std::uint64_t latency = s.steps_ - w.launch_step;
    st.stats.latency_steps = st.stats.applied + st.stats.discarded == 0 ? double(latency) : 0.75 * st.stats.latency_steps + 0.25 * double(latency);
    if (w.error) {  // a synchronous rebuild reports it, with its context, if it happens again
      ++st.stats.discarded;
      s.contacts_valid_ = false;
      return;
    }
    const auto status = s.read_status();
    if (w.cancel.load() || !s.contacts_valid_ || w.generation != st.generation || w.n != s.num_particles_ ||
        status[bad_particle] != no_particle || status[deform_failure] != no_particle) {
      ++st.stats.discarded;
      return;
    }
    // The list holds every pair within reach at the snapshot: it serves now only if no particle has
    // moved more than half the margin since (else a pair that closed meanwhile, touching now under the
    // list in service, would lose its history).
    const double half = 0.5 * s.margin();
    if (w.n && s.backend_.reduce_max(w.n, snapshot_displacement2<space>{s.coord_, s.pos_.data(), s.active_.data(), w.perm_.data(), w.pos_.data()}) >
                   half * half) {
      ++st.stats.discarded;
      ++st.stats.too_late;
      return;
    }
    try {
      put_in_service(s, w);
    } catch (...) {  // an allocation that failed: the particles may be half reordered
      builder::abandon(s);
      throw;
    }
    ++st.generation;
    ++st.stats.applied;
    if (st.life > 0) st.life *= st.stats.guard_rebuilds ? 1.02 : 1.25;  // fast until the first guard rebuild
    st.list_step = w.launch_step;
    st.wall_step = s.steps_;
  }

  static void put_in_service(Sim& s, workspace& w) {
    s.forces_current_ = false;
    s.index_of_ids_valid_ = false;
    builder::release(s.cforce_, s.ctorque_);
    s.perm_.swap(w.perm_);
    builder::permute_particles(s);
    builder::release(s.perm_);
    s.pos_ref_.swap(w.pos_);  // the positions the list was built from
    s.compact_storage(w.n_active);
    const std::uint32_t n = w.n_active, nc = w.nc;
    const real* search_radius = builder::search_radii(s, n);
    if constexpr (Sim::stores_history) {
      s.history_.swap(s.old_history_);
      s.history_.discard_resize(nc);
      if (nc) s.backend_.for_each(nc, contact::gather_history_kernel<typename Sim::pair_history>{w.from_.data(), s.old_history_.data(), s.history_.data()});
      builder::release(s.old_history_);
      s.old_contacts_ = nc;
    }
    s.pair_a_.swap(w.pair_a_);
    s.pair_b_.swap(w.pair_b_);
    s.incident_offset_.swap(w.incident_offset_);
    s.incident_entry_.swap(w.incident_entry_);
    s.cell_keys_.swap(w.cell_keys_);
    s.cell_start_.swap(w.cell_start_);
    builder::finish(s, w.g, w.num_cells, nc, n, n, search_radius);
    // What the workspace holds now is the replaced list's, or the build's own: device memory
    // holds one list between builds.
    builder::release(w.pos_, w.id_, w.radius_, w.family_, w.pair_a_, w.pair_b_, w.incident_offset_, w.incident_entry_, w.from_, w.cell_keys_,
                     w.cell_start_, w.level_first_);
  }
};

}  // namespace dem::sim
