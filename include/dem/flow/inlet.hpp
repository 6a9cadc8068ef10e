#pragma once
// Inlets: a region that inserts new particles at a rate (particles per second, or kg/s) while the
// simulation runs, without overlapping anything. docs/flow.md describes inlets and outlets.
//
//   dem::flow::inlet<dem::aabb, dem::sample::lognormal_radii> feed;
//   feed.region = {{-0.02, -0.02, 0.20}, {0.02, 0.02, 0.24}};
//   feed.sizes = {1e-3, 0.1};
//   feed.material = glass;  feed.rate = 0.05;  feed.by_mass = true;   // 50 g/s
//   feed.velocity = {0, 0, -0.5};
//   sim.add_inlet(feed, "feed");
//
// Every `interval` seconds the inlet owes rate x (time since start) minus what it inserted; it
// draws that many radii (or radii until the mass is reached) and places each at uniform random
// positions inside the region (the whole sphere inside) until one overlaps nothing: neither a
// particle already there (gathered from the backend, near the region only) nor one just placed.
// Only the new particles are uploaded. A batch that cannot be placed is an error that names the
// rate achieved.
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "dem/backend/atomic.hpp"
#include "dem/config.hpp"
#include "dem/family/rule.hpp"
#include "dem/inspect/region.hpp"
#include "dem/material/material.hpp"
#include "dem/math/aabb.hpp"
#include "dem/sim/particle_view.hpp"

namespace dem::flow {

// Region: dem::aabb or dem::inspect::cylinder (finite length); Sizes: a size distribution of
// sample/size_distribution.hpp.
template <class Region, class Sizes>
struct inlet {
  Region region{};
  Sizes sizes{};
  material_id material = 0;
  family::family_id family = 0;
  double rate = 0;         // particles per second (by_mass = false) or kg/s (by_mass = true)
  bool by_mass = false;
  vec3d velocity{0, 0, 0};  // of every new particle
  double start = 0;         // s; the inlet works from max(start, the time it is added)
  double stop = std::numeric_limits<double>::infinity();
  double interval = 0;      // s between batches; 0: 100 time steps
  std::size_t max_attempts = 500;  // random positions tried for one particle before the batch fails
  std::uint64_t seed = 1;
};

// What an inlet inserted (host side).
struct inlet_record {
  std::string name;
  std::uint64_t count = 0;  // particles inserted
  double mass = 0;          // kg inserted
  std::uint64_t batches = 0;
  std::uint32_t first_id = 0, last_id = 0;  // ids of the first and the last particle inserted (count > 0)
};

// A particle near an inlet region, for the overlap test.
struct nearby {
  std::uint32_t id;
  vec3d position;
  double radius;
};

// Gathers the active particles whose bounding sphere reaches into `box` (the inlet region's
// bounding box): a slot each in `out`; those beyond `capacity` are only counted (the host grows the
// list and gathers again).
template <class Space>
struct gather_near_kernel {
  sim::particle_view<Space> p;
  typename Space::params coord;
  aabb box;
  nearby* out;
  std::uint32_t capacity;
  std::uint32_t* count;
  DEM_HD void operator()(index_t i) const {
    if (!p.active[i]) return;
    const vec3d x = Space::to_world(coord, p.pos[i]);
    const double r = static_cast<double>(p.radius[i]);
    for (int k = 0; k < 3; ++k)
      if (x[k] + r < box.lo[k] || x[k] - r > box.hi[k]) return;
    const std::uint32_t slot = atomic::fetch_add(count, 1u);
    if (slot < capacity) out[slot] = nearby{p.id[i], x, r};
  }
};

}  // namespace dem::flow
