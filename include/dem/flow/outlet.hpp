#pragma once
// Outlets: regions that take particles out of the simulation when their centre enters, with a
// record of what left and when (the flow rate). docs/flow.md describes inlets and outlets.
//
//   const auto out = sim.add_outlet(dem::inspect::half_space{{0, 0, -0.05}, {0, 0, -1}}, "below the orifice");
//   ...
//   sim.outlet(out).mass;                        // kg removed so far
//   sim.outlet(out).flow_rate(0.5, 1.5);         // kg/s over (0.5 s, 1.5 s]
//
// A region is any inspector region (box, ball, cylinder, half_space, or a struct with
// `DEM_HD bool contains(const dem::vec3d&) const`). The check runs on the backend after every step;
// a removed particle becomes inactive, as a particle that left the domain does, and its id, outlet
// and mass are appended to a small list that the host reads only when something left.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "dem/backend/atomic.hpp"
#include "dem/config.hpp"
#include "dem/sim/particle_view.hpp"

namespace dem::flow {

// One particle taken out: by which outlet, with its mass.
struct removal {
  std::uint32_t id;
  std::uint32_t outlet;
  double mass;
};

// Takes the active particles whose centre is in `region` out of the simulation. Each takes a slot
// in `records`; a particle that finds the list full stays (and is taken at the next step, after the
// host grew the list).
template <class Space, class Region>
struct outlet_kernel {
  using Real = typename Space::real;
  sim::particle_view<Space> p;
  typename Space::params coord;
  Region region;
  std::uint32_t outlet;
  removal* records;
  std::uint32_t capacity;
  std::uint32_t* taken;     // slots asked for this step
  std::uint32_t* inactive;  // the simulator's count of inactive particles (status word)
  DEM_HD void operator()(index_t i) const {
    if (!p.active[i] || !region.contains(Space::to_world(coord, p.pos[i]))) return;
    const std::uint32_t slot = atomic::fetch_add(taken, 1u);
    if (slot >= capacity) return;
    records[slot] = removal{p.id[i], outlet, 1.0 / static_cast<double>(p.inv_mass[i])};
    p.active[i] = 0;
    p.vel[i] = p.omega[i] = p.force[i] = p.torque[i] = vec3<Real>{0, 0, 0};
    atomic::add(inactive, 1u);
  }
};

// What an outlet removed (host side).
struct outlet_record {
  std::string name;
  std::uint64_t count = 0;  // particles removed
  double mass = 0;          // kg removed
  // After each step that removed something: the time and the mass removed up to then.
  std::vector<double> time, cumulative_mass;

  // Mass removed up to time t (a step function of the steps' end times).
  double mass_until(double t) const {
    const auto it = std::upper_bound(time.begin(), time.end(), t);
    return it == time.begin() ? 0.0 : cumulative_mass[static_cast<std::size_t>(it - time.begin()) - 1];
  }
  // Mean mass flow rate (kg/s) over (t0, t1].
  double flow_rate(double t0, double t1) const { return t1 > t0 ? (mass_until(t1) - mass_until(t0)) / (t1 - t0) : 0.0; }
};

}  // namespace dem::flow
