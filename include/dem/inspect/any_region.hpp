#pragma once
// inspect::any_region: one of the built-in regions (everywhere, box, ball, cylinder, half_space),
// chosen at run time: a region read from input, or given from Python. One instantiation of each
// inspector serves all five, where each region type would instantiate its own kernels (the Python
// module's build: python/src/bind_simulator.hpp). The price is a switch per particle on a kind that
// is the same for every particle, which the branch predictor takes for free.
//
//   dem::inspect::any_region r = dem::inspect::box{lo, hi};
//   dem::inspect::particles(sim, r);   // the same numbers as with the box itself
//
// It is a measured region: its volume is the held region's, NaN for everywhere and half spaces
// (which have none), so a packing fraction comes out exactly where the held region gives one.
#include <cstdint>
#include <limits>

#include "dem/config.hpp"
#include "dem/inspect/region.hpp"

namespace dem::inspect {

struct any_region {
  enum class kind : std::uint8_t { everywhere, box, ball, cylinder, half_space };
  kind held = kind::everywhere;
  box b{};
  ball s{};
  cylinder c{};
  half_space h{};

  any_region() = default;
  any_region(const everywhere&) {}
  any_region(const box& r) : held(kind::box), b(r) {}
  any_region(const ball& r) : held(kind::ball), s(r) {}
  any_region(const cylinder& r) : held(kind::cylinder), c(r) {}
  any_region(const half_space& r) : held(kind::half_space), h(r) {}

  DEM_HD bool contains(const vec3d& p) const {
    switch (held) {
      case kind::box: return b.contains(p);
      case kind::ball: return s.contains(p);
      case kind::cylinder: return c.contains(p);
      case kind::half_space: return h.contains(p);
      default: return true;
    }
  }
  DEM_HD double volume() const {
    switch (held) {
      case kind::box: return b.volume();
      case kind::ball: return s.volume();
      case kind::cylinder: return c.volume();
      default: return std::numeric_limits<double>::quiet_NaN();
    }
  }
  // 0 where the region has no volume (the summary then reports NaN: particle_summary.hpp).
  DEM_HD double solid_volume(const vec3d& x, double r) const {
    switch (held) {
      case kind::box: return b.solid_volume(x, r);
      case kind::ball: return s.solid_volume(x, r);
      case kind::cylinder: return c.solid_volume(x, r);
      default: return 0.0;
    }
  }
};

// The held region's checks and normal form.
inline any_region checked(const any_region& r) {
  switch (r.held) {
    case any_region::kind::box: return checked(r.b);
    case any_region::kind::ball: return checked(r.s);
    case any_region::kind::cylinder: return checked(r.c);
    case any_region::kind::half_space: return checked(r.h);
    default: return r;
  }
}

// A family filter chosen at run time: every particle, or those of one family.
struct any_family {
  static constexpr std::uint32_t all = 0xffffffffu;
  std::uint32_t family = all;
  DEM_HD bool operator()(const particle& p) const { return family == all || p.family == family; }
};

}  // namespace dem::inspect
