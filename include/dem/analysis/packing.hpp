#pragma once
// Host-side measurements of a particle bed: packing fraction in a region and bed height.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "dem/io/snapshot.hpp"
#include "dem/math/aabb.hpp"

namespace dem::analysis {

// Solid fraction of `region`: the share of a regular grid of sample points (`per_axis` per axis,
// cell-centred) that lies inside some active sphere. Exact in the limit; with 64 per axis and
// grains a few sample spacings wide, the sampling error is well below 1 %.
inline double packing_fraction(const io::snapshot& s, const aabb& region, int per_axis = 64) {
  const vec3d e = region.extent();
  if (!(e.x > 0 && e.y > 0 && e.z > 0)) throw std::invalid_argument("dem::analysis::packing_fraction: empty region");
  if (per_axis < 1) throw std::invalid_argument("dem::analysis::packing_fraction: per_axis must be >= 1");
  const std::size_t n = static_cast<std::size_t>(per_axis);
  std::vector<std::uint8_t> inside(n * n * n, 0);
  const vec3d h{e.x / per_axis, e.y / per_axis, e.z / per_axis};
  for (std::size_t p = 0; p < s.size(); ++p) {
    if (!s.active.empty() && !s.active[p]) continue;
    const vec3d c = s.position[p];
    const double r = s.radius[p];
    int lo[3], hi[3];
    for (int k = 0; k < 3; ++k) {
      lo[k] = std::max(0, static_cast<int>(std::floor((c[k] - r - region.lo[k]) / h[k] - 0.5)));
      hi[k] = std::min(per_axis - 1, static_cast<int>(std::ceil((c[k] + r - region.lo[k]) / h[k] - 0.5)));
    }
    for (int z = lo[2]; z <= hi[2]; ++z)
      for (int y = lo[1]; y <= hi[1]; ++y)
        for (int x = lo[0]; x <= hi[0]; ++x) {
          const vec3d q{region.lo.x + (x + 0.5) * h.x, region.lo.y + (y + 0.5) * h.y, region.lo.z + (z + 0.5) * h.z};
          if (norm2(q - c) <= r * r) inside[(std::size_t(z) * n + y) * n + x] = 1;
        }
  }
  std::size_t count = 0;
  for (std::uint8_t v : inside) count += v;
  return static_cast<double>(count) / static_cast<double>(inside.size());
}

// Height of a bed resting on z = floor: mean top (z + r) of the highest active particles
// (100, or 5 % of them if fewer than 2000), which averages out a rough surface.
inline double bed_height(const io::snapshot& s, double floor = 0.0) {
  std::vector<double> tops;
  for (std::size_t p = 0; p < s.size(); ++p)
    if (s.active.empty() || s.active[p]) tops.push_back(s.position[p].z + s.radius[p] - floor);
  if (tops.empty()) return 0.0;
  const std::size_t k = std::max<std::size_t>(1, std::min<std::size_t>(100, tops.size() / 20));
  std::partial_sort(tops.begin(), tops.begin() + k, tops.end(), std::greater<double>());
  double sum = 0;
  for (std::size_t i = 0; i < k; ++i) sum += tops[i];
  return sum / static_cast<double>(k);
}

}  // namespace dem::analysis
