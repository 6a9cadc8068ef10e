#pragma once
// Inspectors: reductions over the particles of a selection, run where the state lives (the
// simulator's backend), one pass each, no state copy.
//
//   auto bed = dem::inspect::particles(sim, dem::inspect::box{{0, 0, 0}, {0.1, 0.1, 0.05}});
//   bed.packing_fraction; bed.kinetic_energy(); bed.highest.z; bed.count; ...
//   auto c = dem::inspect::contacts(sim, dem::inspect::ball{{0, 0, 0.02}, 0.01});
//   c.coordination; c.histogram; c.stress (Love–Weber, Pa); c.fabric
//   auto net = dem::inspect::network(sim);   // dem::inspect::write_contact_vtu("net.vtu", net)
//
// A selection is a region, or dem::inspect::where(region, filter) with a filter on the particle's
// state (docs/inspectors.md). Contact inspectors read the forces of the last evaluation: they need
// a step (or, with velocity Verlet, the initial evaluation that the first step or query runs) after
// the last change of the state.
#include <algorithm>
#include <iterator>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "dem/inspect/contact_network.hpp"
#include "dem/inspect/contact_summary.hpp"
#include "dem/inspect/particle_summary.hpp"
#include "dem/inspect/region.hpp"

namespace dem::inspect {

// The simulator's side (a friend of dem::Simulator).
template <class Sim>
struct access {
  using P = typename Sim::policy;

  template <class Region>
  static double volume_of(const Region& r) {
    if constexpr (measured_region<Region>) return r.volume();
    else return std::numeric_limits<double>::quiet_NaN();
  }

  template <class Region, class Filter>
  static particle_summary particles(Sim& s, const selection<Region, Filter>& sel) {
    const auto region = checked(sel.where);
    using R = std::decay_t<decltype(region)>;
    detail::particle_accumulator a = detail::particle_accumulator::identity();
    if (s.num_particles_) {
      typename Sim::template buffer<double> volumes;  // rigid bodies: volume per shape
      if constexpr (P::rigid) volumes.assign(s.shape_volume_);
      a = s.backend_.transform_reduce(
          s.num_particles_, detail::particle_summary_kernel<P, R, Filter>{s.view(), s.rigid(), s.coord_, volumes.data(), region, sel.filter},
          detail::fold_particles{}, a);
    }
    return detail::finish(a, volume_of(region));
  }

  // The contact list and its forces, as of the last evaluation.
  static void require_forces(Sim& s) {
    if (!s.num_particles_) return;
    s.prepare();
    if (!s.forces_current_)
      throw std::logic_error("dem::inspect: the contact list was rebuilt (or the state loaded) after the last force evaluation; "
                             "step the simulation before inspecting contacts");
  }

  template <class Region, class Filter>
  static contact_summary contacts(Sim& s, const selection<Region, Filter>& sel) {
    const auto region = checked(sel.where);
    using R = std::decay_t<decltype(region)>;
    require_forces(s);
    detail::contact_accumulator a = detail::contact_accumulator::identity();
    if (s.num_particles_) {
      // Counted by the particle kernel once asked for (Simulator::count_touching).
      if (s.num_contacts_ > 0 && (!s.count_touching_ || s.touching_count_.size() != std::size_t(s.num_particles_))) s.count_touching();
      const bool counted = s.num_contacts_ > 0;
      typename Sim::template buffer<std::uint32_t> selected(s.num_particles_);
      a = s.backend_.transform_reduce(s.num_particles_,
                                      detail::contact_selection_kernel<P, R, Filter>{s.view(), s.coord_, counted ? s.touching_count_.data() : nullptr,
                                                                                     selected.data(), region, sel.filter},
                                      detail::fold_contacts{}, a);
      // Pass 2: over every listed pair, or, for a selection of under a quarter of the particles,
      // over the selected particles' incident entries (measured: docs/performance.md, "Inspectors").
      // The last argument of transform_reduce is the fold's identity, not a start value.
      const auto identity = detail::contact_accumulator::identity();
      // Every particle selected (all of them active): the pair pass weighs each contact 2 and reads no flags.
      const bool everyone = a.sum[detail::c_particles] == double(s.num_particles_);
      const bool listed = s.num_contacts_ > 0 && s.incident_offset_.size() == std::size_t(s.num_particles_) + 1;
      if (listed && 4 * a.sum[detail::c_particles] < double(s.num_particles_))
        a = detail::fold_contacts{}(
            a, s.backend_.transform_reduce(s.num_particles_,
                                           detail::contact_incident_summary_kernel<P>{s.view(), s.coord_, s.pair_a_.data(), s.pair_b_.data(), s.results(),
                                                                                      s.incident_offset_.data(), s.incident_entry_.data(), selected.data()},
                                           detail::fold_contacts{}, identity));
      else if (s.num_contacts_)
        a = detail::fold_contacts{}(
            a, s.backend_.transform_reduce(s.num_contacts_,
                                           detail::contact_pair_summary_kernel<P>{s.view(), s.coord_, s.pair_a_.data(), s.pair_b_.data(), s.results(),
                                                                                  everyone ? nullptr : selected.data()},
                                           detail::fold_contacts{}, identity));
    }
    return detail::finish(a, volume_of(region));
  }

  template <class Region, class Filter>
  static contact_network network(Sim& s, const selection<Region, Filter>& sel) {
    const auto region = checked(sel.where);
    using R = std::decay_t<decltype(region)>;
    require_forces(s);
    contact_network net;
    net.time = s.time_;
    const std::uint32_t nc = s.num_contacts_;
    if (!s.num_particles_ || !nc) return net;
    typename Sim::template buffer<detail::contact_record> records;
    records.resize(nc);
    s.backend_.for_each(nc, detail::contact_record_kernel<P, R, Filter>{s.view(), s.coord_, s.pair_a_.data(), s.pair_b_.data(), s.results(), region,
                                                                       sel.filter, records.data()});
    std::vector<detail::contact_record> host;
    records.copy_to(host);
    std::vector<detail::contact_record> kept;  // A is the lower id already (the pair list's rule)
    std::copy_if(host.begin(), host.end(), std::back_inserter(kept), [](const detail::contact_record& r) { return r.keep != 0; });
    std::sort(kept.begin(), kept.end(), [](const detail::contact_record& x, const detail::contact_record& y) {
      return x.id_a != y.id_a ? x.id_a < y.id_a : x.id_b < y.id_b;
    });
    for (const detail::contact_record& r : kept) {
      net.id_a.push_back(r.id_a);
      net.id_b.push_back(r.id_b);
      net.centre_a.push_back(r.centre_a);
      net.centre_b.push_back(r.centre_b);
      net.point.push_back(r.point);
      net.normal.push_back(r.normal);
      const vec3d fn = r.normal * dot(r.force, r.normal);
      net.normal_force.push_back(fn);
      net.tangential_force.push_back(r.force - fn);
    }
    return net;
  }
};

// Particles of a selection: count, mass, volume, centre of mass, momentum, kinetic energy, highest
// speed, extremes, packing fraction.
template <class Sim, class Region, class Filter>
particle_summary particles(Sim& s, const selection<Region, Filter>& sel) {
  return access<Sim>::particles(s, sel);
}
template <class Sim, region Region = everywhere>
particle_summary particles(Sim& s, const Region& r = {}) {
  return access<Sim>::particles(s, where(r));
}

// Contacts of a selection: coordination number and histogram, Love–Weber stress, fabric.
template <class Sim, class Region, class Filter>
contact_summary contacts(Sim& s, const selection<Region, Filter>& sel) {
  return access<Sim>::contacts(s, sel);
}
template <class Sim, region Region = everywhere>
contact_summary contacts(Sim& s, const Region& r = {}) {
  return access<Sim>::contacts(s, where(r));
}

// The contact network of a selection (host vectors: this one copies the contacts it returns).
template <class Sim, class Region, class Filter>
contact_network network(Sim& s, const selection<Region, Filter>& sel) {
  return access<Sim>::network(s, sel);
}
template <class Sim, region Region = everywhere>
contact_network network(Sim& s, const Region& r = {}) {
  return access<Sim>::network(s, where(r));
}

}  // namespace dem::inspect
