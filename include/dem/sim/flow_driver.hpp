#pragma once
// The Simulator's side of inlets and outlets (a friend): outlets run on the backend after every
// step and report what they took; inlets insert their batches after the step's checks, uploading
// only the new particles. docs/flow.md describes both; flow/inlet.hpp and flow/outlet.hpp hold the
// kernels and records.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "dem/flow/inlet.hpp"
#include "dem/flow/outlet.hpp"
#include "dem/inspect/region.hpp"
#include "dem/sample/random_fill.hpp"
#include "dem/sample/size_distribution.hpp"
#include "dem/sim/contact_helpers.hpp"

namespace dem::sim {

template <class Sim>
struct flow_driver {
  using Space = typename Sim::coord_space;

  // ---- outlets --------------------------------------------------------------------------------
  template <class Region>
  static std::uint32_t add_outlet(Sim& s, const Region& r, const std::string& name) {
    static_assert(inspect::region<Region>, "dem::Simulator::add_outlet: a region needs `DEM_HD bool contains(const dem::vec3d&) const`");
    refuse_ledger(s, "add_outlet");
    const auto region = inspect::checked(r);
    using R = std::decay_t<decltype(region)>;
    const auto k = static_cast<std::uint32_t>(s.outlets_.size());
    flow::outlet_record rec;
    rec.name = name.empty() ? "outlet " + std::to_string(k) : name;
    s.outlets_.push_back(rec);
    s.outlet_launch_.push_back([region, k](Sim& sim) {
      sim.backend_.for_each(sim.num_particles_, flow::outlet_kernel<Space, R>{sim.view(), sim.coord_, region, k, sim.removals_.data(),
                                                                              static_cast<std::uint32_t>(sim.removals_.size()),
                                                                              sim.flow_counter_.data(), sim.status_.data() + lost_count});
    });
    return k;
  }

  // After a step: every outlet, then one read of the count of slots taken (and, when something
  // left, of the list, summed per outlet in id order: the same bits for any thread count).
  static void run_outlets(Sim& s) {
    if (s.outlet_launch_.empty() || s.num_particles_ == 0) return;
    refuse_ledger(s, "an outlet");
    if (s.removals_.size() == 0) s.removals_.resize(std::max<std::size_t>(256, s.num_particles_ / 64));
    s.flow_counter_.resize(1);
    s.flow_counter_.fill(0u);
    for (auto& launch : s.outlet_launch_) launch(s);
    std::uint32_t taken = 0;
    s.flow_counter_.copy_to(&taken, 1);
    if (taken == 0) return;
    const auto capacity = static_cast<std::uint32_t>(s.removals_.size());
    const std::uint32_t n = std::min(taken, capacity);
    std::vector<flow::removal> rec(n);
    s.removals_.copy_to(rec.data(), n);
    std::sort(rec.begin(), rec.end(), [](const flow::removal& a, const flow::removal& b) { return a.outlet != b.outlet ? a.outlet < b.outlet : a.id < b.id; });
    if (s.removed_by_.size() < s.num_ids_) s.removed_by_.resize(s.num_ids_, 0);
    std::vector<char> touched(s.outlets_.size(), 0);
    for (const flow::removal& r : rec) {
      flow::outlet_record& o = s.outlets_[r.outlet];
      ++o.count;
      o.mass += r.mass;
      touched[r.outlet] = 1;
      s.removed_by_[r.id] = r.outlet + 1;
    }
    for (std::size_t k = 0; k < touched.size(); ++k)
      if (touched[k]) {
        s.outlets_[k].time.push_back(s.time_);
        s.outlets_[k].cumulative_mass.push_back(s.outlets_[k].mass);
      }
    s.removed_ += n;
    s.removed_pending_ += n;
    if (taken > capacity) s.removals_.resize(2 * std::size_t(taken));  // the rest are taken at the next step
  }

  // "removed by outlet 'name'", or empty if particle `id` was not removed.
  static std::string removed_note(const Sim& s, std::uint32_t id) {
    if (id >= s.removed_by_.size() || s.removed_by_[id] == 0) return {};
    return "was removed by outlet '" + s.outlets_[s.removed_by_[id] - 1].name + "'";
  }

  // ---- inlets ---------------------------------------------------------------------------------
  template <class Region, class Sizes>
  static std::uint32_t add_inlet(Sim& s, const flow::inlet<Region, Sizes>& in, const std::string& name) {
    static_assert(!Sim::policy::rigid, "dem::Simulator::add_inlet inserts spheres; inlets of rigid bodies are not written yet");
    static_assert(std::is_same_v<Region, aabb> || std::is_same_v<Region, inspect::cylinder>,
                  "dem::flow::inlet: the region is a dem::aabb or a dem::inspect::cylinder");
    refuse_ledger(s, "add_inlet");
    const auto k = static_cast<std::uint32_t>(s.inlets_.size());
    const std::string who = "inlet '" + (name.empty() ? "inlet " + std::to_string(k) : name) + "'";
    flow::inlet<Region, Sizes> spec = in;
    Region region = spec.region;
    try {
      sample::detail::check_region(region);
      sample::check(spec.sizes);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument("dem: " + who + ": " + e.what());
    }
    spec.region = region;
    const material& m = s.materials_[spec.material];  // names an unknown material
    if (m.rigid) throw std::invalid_argument("dem: " + who + ": material '" + m.name + "' is rigid: rigid materials are for boundaries");
    family::check_id(spec.family, ("add_inlet (" + who + ")").c_str());
    if (!(spec.rate > 0) || !std::isfinite(spec.rate))
      throw std::invalid_argument("dem: " + who + ": rate is " + Sim::num(spec.rate) + ", but it must be > 0 and finite");
    if (!all_finite(spec.velocity)) throw std::invalid_argument("dem: " + who + ": velocity is " + Sim::str(spec.velocity) + ", but it must be finite");
    if (!(spec.start >= 0) || !std::isfinite(spec.start) || !(spec.stop > spec.start))
      throw std::invalid_argument("dem: " + who + ": start = " + Sim::num(spec.start) + " and stop = " + Sim::num(spec.stop) +
                                  " must be finite, >= 0 and stop > start");
    if (!(spec.interval >= 0) || !std::isfinite(spec.interval))
      throw std::invalid_argument("dem: " + who + ": interval is " + Sim::num(spec.interval) + ", but it must be >= 0 and finite");
    if (spec.max_attempts == 0) throw std::invalid_argument("dem: " + who + ": max_attempts must be at least 1");
    const double rmax = sample::max_radius(spec.sizes);
    const aabb b = bounds_of(region), &d = s.cfg_.domain;
    for (int a = 0; a < 3; ++a)
      if (!(b.lo[a] >= d.lo[a] && b.hi[a] <= d.hi[a]))
        throw std::invalid_argument("dem: " + who + ": the region " + Sim::str(b.lo) + " .. " + Sim::str(b.hi) + " is not inside the domain " +
                                    Sim::str(d.lo) + " .. " + Sim::str(d.hi));
    s.r_max_ = std::max(s.r_max_, rmax);  // the grid and the margin are sized for the particles to come
    s.contacts_valid_ = false;
    flow::inlet_record rec;
    rec.name = name.empty() ? "inlet " + std::to_string(k) : name;
    s.inlets_.push_back(rec);
    inlet_state st;
    st.t0 = std::max(spec.start, s.time_);
    st.rmax = rmax;
    if (spec.by_mass) {  // the mean particle mass, from a sample of the distribution
      double mean = 0;
      for (double r : sample::draw(spec.sizes, 2000, spec.seed ^ 0x51ed2701ull)) mean += Sim::policy::shape::mass(r, m.density) / 2000;
      st.mean_mass = mean;
    }
    s.inlet_step_.push_back([spec, st, k](Sim& sim) mutable { step_inlet(sim, spec, st, k); });
    return k;
  }

  // After a step (and after the checks): every inlet whose batch is due.
  static void run_inlets(Sim& s) {
    if (s.inlet_step_.empty()) return;
    refuse_ledger(s, "an inlet");
    for (auto& f : s.inlet_step_) f(s);
  }

 private:
  struct inlet_state {
    double t0 = 0;            // start of the inlet's clock
    std::uint64_t due = 0;    // the next batch is due at t0 + due interval
    double rmax = 0, mean_mass = 0;
    std::uint64_t batch = 0;
  };

  static void refuse_ledger(const Sim& s, const char* what) {
    if constexpr (Sim::ledger_supported)
      if (s.ledger_on_)
        throw std::logic_error(std::string("dem: ") + what + ": the energy ledger does not account particles entering or leaving; disable it first");
  }

  static aabb bounds_of(const aabb& b) { return b; }
  static aabb bounds_of(const inspect::cylinder& c) {
    const vec3d top = c.base + c.axis * c.length;
    const double r = c.radius;
    aabb b;
    for (int k = 0; k < 3; ++k) {
      // The disc of radius r across the axis reaches r sqrt(1 - a_k^2) along axis k.
      const double reach = r * std::sqrt(std::max(0.0, 1.0 - c.axis[k] * c.axis[k]));
      b.lo[k] = std::min(c.base[k], top[k]) - reach;
      b.hi[k] = std::max(c.base[k], top[k]) + reach;
    }
    return b;
  }

  template <class Region, class Sizes>
  static void step_inlet(Sim& s, const flow::inlet<Region, Sizes>& spec, inlet_state& st, std::uint32_t k) {
    const double dt = s.cfg_.dt;
    const double t = s.time_;
    // Batches are due at t0 + j interval (j = 0, 1, ...), each at the first step end within half a
    // step of it (no accumulated sum of intervals: no drift).
    const double interval = spec.interval > 0 ? spec.interval : 100 * dt;
    if (t + 0.5 * dt < st.t0 + static_cast<double>(st.due) * interval || st.t0 >= spec.stop) return;
    st.due = static_cast<std::uint64_t>(std::floor((t + 0.5 * dt - st.t0) / interval)) + 1;
    flow::inlet_record& rec = s.inlets_[k];
    const double elapsed = std::min(t, spec.stop) - st.t0;
    const material& m = s.materials_[spec.material];
    // The radii owed.
    std::vector<double> radii;
    const std::uint64_t seed = spec.seed * 0x9e3779b97f4a7c15ull + 7919 * (st.batch + 1);
    if (!spec.by_mass) {
      const auto target = static_cast<std::uint64_t>(std::floor(spec.rate * elapsed * (1 + 1e-12)));
      if (target <= rec.count) return;
      radii = sample::draw(spec.sizes, target - rec.count, seed);
    } else {
      const double owed = spec.rate * elapsed - rec.mass;
      if (!(owed > 0)) return;
      double mass = 0;
      for (std::uint64_t round = 0; mass < owed; ++round) {
        const auto chunk = static_cast<std::size_t>(std::ceil(1.2 * (owed - mass) / st.mean_mass)) + 4;
        for (double r : sample::draw(spec.sizes, chunk, seed + 104729 * round)) {
          if (mass >= owed) break;
          radii.push_back(r);
          mass += Sim::policy::shape::mass(r, m.density);
        }
      }
    }
    ++st.batch;
    if (radii.empty()) return;
    check_time_step(s, m, spec.material, *std::min_element(radii.begin(), radii.end()), "inlet '" + rec.name + "'");
    // What is already there, near the region, in id order.
    aabb reach = bounds_of(spec.region);
    const double margin = st.rmax;
    reach.lo = reach.lo - vec3d{margin, margin, margin};
    reach.hi = reach.hi + vec3d{margin, margin, margin};
    std::vector<flow::nearby> near = gather_near(s, reach);
    std::sort(near.begin(), near.end(), [](const flow::nearby& a, const flow::nearby& b) { return a.id < b.id; });
    double cell = 2 * st.rmax;
    for (const flow::nearby& q : near) cell = std::max(cell, 2 * q.radius);
    sample::detail::sphere_grid grid(cell);
    particle_set placed_all;  // the obstacles first, then the new particles
    for (const flow::nearby& q : near) {
      grid.add(q.position, placed_all.size());
      placed_all.positions.push_back(q.position);
      placed_all.radii.push_back(q.radius);
    }
    std::mt19937_64 g(seed ^ 0xa0761d6478bd642full);
    particle_set fresh;
    for (double r : radii) {
      bool ok = false;
      vec3d x;
      for (std::size_t a = 0; a < spec.max_attempts && !ok; ++a) {
        if (!sample::detail::random_point(spec.region, r, g, x)) break;
        ok = grid.fits(x, r, 0.0, placed_all);
      }
      if (!ok) {
        const double achieved = elapsed > 0 ? ((spec.by_mass ? rec.mass : static_cast<double>(rec.count)) / elapsed) : 0.0;
        std::ostringstream msg;
        msg.precision(6);
        msg << "dem: inlet '" << rec.name << "' at t = " << t << " s: placed " << fresh.size() << " of the " << radii.size()
            << " particles of this batch before " << spec.max_attempts << " random positions in a row overlapped (" << near.size()
            << " particles already near the region); the rate asked, " << spec.rate << (spec.by_mass ? " kg/s" : " particles/s")
            << ", cannot be met: achieved " << achieved << (spec.by_mass ? " kg/s" : " particles/s")
            << " so far. Use a larger region, a shorter interval, a higher inlet velocity or a lower rate";
        throw std::runtime_error(msg.str());
      }
      grid.add(x, placed_all.size());
      placed_all.positions.push_back(x);
      placed_all.radii.push_back(r);
      fresh.positions.push_back(x);
      fresh.radii.push_back(r);
      fresh.velocities.push_back(spec.velocity);
    }
    const std::uint32_t first = s.add_particles(fresh, spec.material, spec.family);
    double mass = 0;
    for (double r : fresh.radii) mass += Sim::policy::shape::mass(r, m.density);
    if (rec.count == 0) rec.first_id = first;
    rec.count += fresh.size();
    rec.mass += mass;
    rec.last_id = first + static_cast<std::uint32_t>(fresh.size()) - 1;
    ++rec.batches;
    // The new particles enter the contact list and (velocity Verlet) the stored forces now, so the
    // next step starts as after any change of the state.
    s.rebuild_contacts();
    if constexpr (Sim::policy::integrator::needs_initial_force) s.evaluate_forces(false);
    s.prepared_ = true;
  }

  static void check_time_step(const Sim& s, const material& m, material_id mat, double r, const std::string& who) {
    const double mass = Sim::policy::shape::mass(r, m.density);
    const double stable = Sim::policy::force::stable_time_step(m, s.materials_.pair(mat, mat), r, mass);
    if (s.cfg_.dt > stable && !s.cfg_.allow_unstable_dt) {
      std::ostringstream msg;
      msg.precision(6);
      msg << "dem: " << who << " inserts a particle of radius " << r << " m whose stable time step is " << stable << " s, below dt = " << s.cfg_.dt
          << " s; choose dt <= " << stable << " or set config.allow_unstable_dt = true";
      throw std::invalid_argument(msg.str());
    }
  }

  static std::vector<flow::nearby> gather_near(Sim& s, const aabb& box) {
    if (s.nearby_.size() == 0) s.nearby_.resize(1024);
    for (;;) {
      s.flow_counter_.resize(1);
      s.flow_counter_.fill(0u);
      const auto capacity = static_cast<std::uint32_t>(s.nearby_.size());
      s.backend_.for_each(s.num_particles_, flow::gather_near_kernel<Space>{s.view(), s.coord_, box, s.nearby_.data(), capacity, s.flow_counter_.data()});
      std::uint32_t count = 0;
      s.flow_counter_.copy_to(&count, 1);
      if (count <= capacity) {
        std::vector<flow::nearby> out(count);
        s.nearby_.copy_to(out.data(), count);
        return out;
      }
      s.nearby_.resize(2 * std::size_t(count));
    }
  }
};

}  // namespace dem::sim
