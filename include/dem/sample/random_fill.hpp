#pragma once
// Random non-overlapping fills of a box or a cylinder with radii from any size distribution
// (sample/size_distribution.hpp), and particles from a particle CSV.
//
//   dem::sample::fill_options o;  o.count = 5000;  o.seed = 7;
//   dem::particle_set p = dem::sample::random_fill(dem::aabb{{0, 0, 0}, {0.05, 0.05, 0.1}},
//                                                  dem::sample::lognormal_radii{1e-3, 0.2}, o);
//
// Random sequential addition, largest particles first: each particle is tried at uniform random
// positions inside the region (its whole sphere inside) until one overlaps nobody, with a hash grid
// for the overlap test. Such fills jam near a solid fraction of 0.3–0.38 (the RSA limit); denser
// beds are made by letting a fill settle. When a requested count cannot be placed (`max_attempts`
// failures in a row), the fill stops with an error that says how many fitted and at what solid
// fraction. Deterministic for a seed.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "dem/inspect/region.hpp"  // inspect::cylinder (base, axis, radius, length)
#include "dem/io/snapshot.hpp"
#include "dem/math/aabb.hpp"
#include "dem/sample/particle_set.hpp"
#include "dem/sample/size_distribution.hpp"

namespace dem::sample {

struct fill_options {
  std::size_t count = 0;         // particles wanted; 0: as many as fit (until max_attempts fail in a row)
  double min_gap = 0;            // extra clearance between particles and from the walls (m)
  std::size_t max_attempts = 2000;  // random positions tried for one particle before giving up
  std::uint64_t seed = 42;
};

namespace detail {

// A uniform point for a sphere of radius r (plus gap) wholly inside the region; false if none fits.
inline bool random_point(const aabb& b, double r, std::mt19937_64& g, vec3d& out) {
  for (int k = 0; k < 3; ++k) {
    const double lo = b.lo[k] + r, hi = b.hi[k] - r;
    if (!(hi >= lo)) return false;
    out[k] = lo + (hi - lo) * uniform(g);
  }
  return true;
}
inline bool random_point(const inspect::cylinder& c, double r, std::mt19937_64& g, vec3d& out) {
  const double R = c.radius - r, L = c.length - 2 * r;
  if (!(R >= 0) || !(L >= 0)) return false;
  // Two unit vectors across the axis.
  const vec3d a = c.axis;
  const vec3d t = std::fabs(a.x) < 0.9 ? vec3d{1, 0, 0} : vec3d{0, 1, 0};
  const vec3d e1 = cross(a, t) / norm(cross(a, t)), e2 = cross(a, e1);
  const double rho = R * std::sqrt(uniform(g)), phi = 6.283185307179586 * uniform(g), s = r + L * uniform(g);
  out = c.base + a * s + e1 * (rho * std::cos(phi)) + e2 * (rho * std::sin(phi));
  return true;
}
inline double volume_of(const aabb& b) { return b.volume(); }
inline double volume_of(const inspect::cylinder& c) { return c.volume(); }

// Spheres placed so far, hashed by cell.
class sphere_grid {
 public:
  explicit sphere_grid(double cell) : cell_(cell) {}
  bool fits(const vec3d& x, double r, double gap, const particle_set& s) const {
    const auto c = cell_of(x);
    for (int dz = -1; dz <= 1; ++dz)
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
          const auto it = cells_.find(key(c[0] + dx, c[1] + dy, c[2] + dz));
          if (it == cells_.end()) continue;
          for (std::size_t j : it->second) {
            const double d = r + s.radii[j] + gap;
            if (norm2(s.positions[j] - x) < d * d) return false;
          }
        }
    return true;
  }
  void add(const vec3d& x, std::size_t index) {
    const auto c = cell_of(x);
    cells_[key(c[0], c[1], c[2])].push_back(index);
  }

 private:
  std::array<std::int64_t, 3> cell_of(const vec3d& x) const {
    return {static_cast<std::int64_t>(std::floor(x.x / cell_)), static_cast<std::int64_t>(std::floor(x.y / cell_)),
            static_cast<std::int64_t>(std::floor(x.z / cell_))};
  }
  static std::uint64_t key(std::int64_t x, std::int64_t y, std::int64_t z) {
    return (static_cast<std::uint64_t>(x & 0x1fffff) << 42) | (static_cast<std::uint64_t>(y & 0x1fffff) << 21) | static_cast<std::uint64_t>(z & 0x1fffff);
  }
  double cell_;
  std::unordered_map<std::uint64_t, std::vector<std::size_t>> cells_;
};

inline void check_region(const aabb& b) {
  const vec3d e = b.extent();
  if (!(e.x > 0 && e.y > 0 && e.z > 0) || !all_finite(b.lo) || !all_finite(b.hi)) bad("random_fill: the box must be finite with hi > lo on every axis");
}
inline void check_region(inspect::cylinder& c) { c = inspect::checked(c); if (!std::isfinite(c.length)) bad("random_fill: the cylinder must have a finite length"); }

}  // namespace detail

// A random non-overlapping fill of `region` (a box, or an inspect::cylinder with a finite length).
template <class Region, class Distribution>
particle_set random_fill(Region region, const Distribution& sizes, const fill_options& o = {}) {
  detail::check_region(region);
  check(sizes);
  if (!(o.min_gap >= 0) || !std::isfinite(o.min_gap)) detail::bad("random_fill: min_gap is " + detail::num(o.min_gap) + ", but it must be >= 0 and finite");
  if (o.max_attempts == 0) detail::bad("random_fill: max_attempts must be at least 1");
  const double rmax = max_radius(sizes);
  // As many radii as wanted, or (count = 0) enough to fill the region at 0.6 if they all fitted.
  std::size_t n = o.count;
  if (n == 0) {  // the mean particle volume from a sample of the distribution
    double mean = 0;
    for (double r : draw(sizes, 1000, o.seed + 1)) mean += 4.0 / 3.0 * 3.14159265358979323846 * r * r * r / 1000;
    const double wanted = 0.6 * detail::volume_of(region) / mean + 1;
    if (!(wanted < 5e7)) detail::bad("random_fill: the region would hold about " + detail::num(wanted) + " particles; more than 5e7 are not filled at random here");
    n = static_cast<std::size_t>(wanted);
  }
  std::vector<double> radii = draw(sizes, n, o.seed);
  std::sort(radii.begin(), radii.end(), std::greater<double>());
  std::mt19937_64 g(o.seed ^ 0x9e3779b97f4a7c15ull);
  detail::sphere_grid grid(2 * rmax + o.min_gap);
  particle_set s;
  double solid = 0;
  for (double r : radii) {
    bool placed = false;
    vec3d x;
    for (std::size_t a = 0; a < o.max_attempts && !placed; ++a) {
      if (!detail::random_point(region, r + o.min_gap, g, x)) break;
      placed = grid.fits(x, r, o.min_gap, s);
    }
    if (!placed) {
      if (o.count == 0) break;
      detail::bad("random_fill: placed " + std::to_string(s.size()) + " of " + std::to_string(o.count) + " particles (solid fraction " +
                  detail::num(solid / detail::volume_of(region)) + ") before " + std::to_string(o.max_attempts) +
                  " random positions in a row overlapped; ask for fewer, or fill and let the particles settle");
    }
    grid.add(x, s.size());
    s.positions.push_back(x);
    s.radii.push_back(r);
    solid += 4.0 / 3.0 * 3.14159265358979323846 * r * r * r;
  }
  return s;
}

// The active particles of a snapshot (e.g. dem::io::read_csv of a particle CSV) as a particle set,
// with their velocities, in id order: how positions read from a file enter a simulation.
inline particle_set from_snapshot(const io::snapshot& snap) {
  std::vector<std::size_t> order(snap.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return snap.id[a] < snap.id[b]; });
  particle_set s;
  for (std::size_t i : order)
    if (snap.active.empty() || snap.active[i]) {
      s.positions.push_back(snap.position[i]);
      s.radii.push_back(snap.radius[i]);
      s.velocities.push_back(snap.velocity.empty() ? vec3d{0, 0, 0} : snap.velocity[i]);
    }
  return s;
}

}  // namespace dem::sample
