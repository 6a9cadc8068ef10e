#pragma once
// Samplers that fill a box with spheres: a cubic lattice and hexagonal close packing, with an
// optional radius distribution and positional jitter. Deterministic for a given seed on every
// platform (no std:: distributions, whose output is implementation-defined).
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>

#include "dem/math/aabb.hpp"
#include "dem/sample/particle_set.hpp"

namespace dem::sample {

struct lattice_options {
  double radius = 1e-3;          // mean radius
  double radius_spread = 0;      // radii uniform in radius * [1 - spread, 1 + spread]
  double spacing = 0;            // centre distance; 0: the smallest that cannot overlap (default_spacing)
  double jitter = 0;             // each coordinate moved by uniform [-jitter, jitter] (m)
  std::size_t max_count = std::numeric_limits<std::size_t>::max();
  std::uint64_t seed = 42;
};

namespace detail {
// Uniform double in [0, 1) from 53 random bits.
inline double unit(std::mt19937_64& g) { return static_cast<double>(g() >> 11) * 0x1.0p-53; }

inline void check(const aabb& box, const lattice_options& o) {
  const vec3d e = box.extent();
  if (!(e.x > 0 && e.y > 0 && e.z > 0))
    throw std::invalid_argument("dem::sample: the box must have hi > lo on every axis");
  if (!(o.radius > 0) || !std::isfinite(o.radius))
    throw std::invalid_argument("dem::sample: radius is " + std::to_string(o.radius) + ", but it must be > 0");
  if (!(o.radius_spread >= 0 && o.radius_spread < 1))
    throw std::invalid_argument("dem::sample: radius_spread is " + std::to_string(o.radius_spread) + ", but it must be in [0, 1)");
  if (!(o.jitter >= 0)) throw std::invalid_argument("dem::sample: jitter is " + std::to_string(o.jitter) + ", but it must be >= 0");
  if (!(o.spacing >= 0)) throw std::invalid_argument("dem::sample: spacing is " + std::to_string(o.spacing) + ", but it must be >= 0");
}

// Smallest centre distance at which no two spheres can overlap: twice the largest radius (plus 1 %),
// plus what the jitter can take away. Each coordinate moves by at most `jitter`, so two neighbours
// come closer by at most 2 jitter along a lattice axis (cubic: some coordinate of every lattice
// vector is at least the spacing) and by at most 2 sqrt(3) jitter in any direction (hcp).
inline double min_spacing(const lattice_options& o, bool axis_aligned) {
  return 2 * o.radius * (1 + o.radius_spread) * 1.01 + (axis_aligned ? 2.0 : 2.0 * std::sqrt(3.0)) * o.jitter;
}

// Adds a particle at p if it fits inside the box with its largest possible radius and jitter.
inline bool place(particle_set& s, const aabb& box, const lattice_options& o, vec3d p, std::mt19937_64& g) {
  if (s.size() >= o.max_count) return false;
  const double rmax = o.radius * (1 + o.radius_spread);
  const double m = rmax + o.jitter;
  if (p.x - m < box.lo.x || p.y - m < box.lo.y || p.z - m < box.lo.z || p.x + m > box.hi.x || p.y + m > box.hi.y ||
      p.z + m > box.hi.z)
    return true;
  for (int k = 0; k < 3; ++k) p[k] += o.jitter * (2 * unit(g) - 1);
  s.positions.push_back(p);
  s.radii.push_back(o.radius * (1 + o.radius_spread * (2 * unit(g) - 1)));
  return true;
}
}  // namespace detail

// The spacing a sampler uses when lattice_options::spacing is 0 (no overlap for any seed).
inline double default_spacing(const lattice_options& o, bool hexagonal = false) { return detail::min_spacing(o, !hexagonal); }

// Simple cubic lattice filling `box`, x fastest, then y, then z (bottom layers first).
inline particle_set cubic_lattice(const aabb& box, const lattice_options& o) {
  detail::check(box, o);
  const double a = o.spacing > 0 ? o.spacing : detail::min_spacing(o, true);
  const double m = o.radius * (1 + o.radius_spread) + o.jitter;
  std::mt19937_64 g(o.seed);
  particle_set s;
  for (double z = box.lo.z + m; z + m <= box.hi.z; z += a)
    for (double y = box.lo.y + m; y + m <= box.hi.y; y += a)
      for (double x = box.lo.x + m; x + m <= box.hi.x; x += a)
        if (!detail::place(s, box, o, {x, y, z}, g)) return s;
  return s;
}

// Hexagonal close packing (ABAB layers) filling `box`; packing fraction 0.74 at spacing 2r.
inline particle_set hexagonal_close_packing(const aabb& box, const lattice_options& o) {
  detail::check(box, o);
  const double a = o.spacing > 0 ? o.spacing : detail::min_spacing(o, false);
  const double m = o.radius * (1 + o.radius_spread) + o.jitter;
  const double row = a * std::sqrt(3.0) / 2;        // distance between rows in a layer
  const double layer = a * std::sqrt(6.0) / 3;      // distance between layers
  std::mt19937_64 g(o.seed);
  particle_set s;
  int k = 0;
  for (double z = box.lo.z + m; z + m <= box.hi.z; z += layer, ++k) {
    const double ox = (k % 2) ? a / 2 : 0, oy = (k % 2) ? row / 3 : 0;
    int j = 0;
    for (double y = box.lo.y + m + oy; y + m <= box.hi.y; y += row, ++j)
      for (double x = box.lo.x + m + ox + ((j % 2) ? a / 2 : 0); x + m <= box.hi.x; x += a)
        if (!detail::place(s, box, o, {x, y, z}, g)) return s;
  }
  return s;
}

}  // namespace dem::sample
