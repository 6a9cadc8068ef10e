#pragma once
// The "settled bed" scenario shared by the Google Benchmark targets and the peer comparison
// (benchmarks/peers): N spheres, r = 1 mm, density 2500, E = 1e7 Pa, v = 0.3, e = 0.5, mu = 0.5,
// Hertz–Mindlin, dt = 1e-5 s, start on a jittered cubic lattice (spacing 2.2 mm, +-0.1 mm) in a
// box of side nx * 2.2 mm (nx = ceil(cbrt N)), settle for 0.3 s, then time steps.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>

#include "dem/dem.hpp"

namespace bench {

inline constexpr double radius = 1e-3, spacing = 2.2e-3, jitter = 1e-4, settle_time = 0.3;

inline std::size_t lattice_side(std::size_t n) {
  std::size_t nx = 1;
  while (nx * nx * nx < n) ++nx;
  return nx;
}

// Initial bed: the same lattice as benchmarks/peers/make_bed.py (its jitter comes from numpy;
// ours from mt19937_64 — statistically the same bed).
inline dem::particle_set initial_bed(std::size_t n) {
  const std::size_t nx = lattice_side(n);
  std::mt19937_64 g(42);
  auto u = [&] { return static_cast<double>(g() >> 11) * 0x1.0p-53; };
  dem::particle_set s;
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t i = k % nx, j = (k / nx) % nx, l = k / (nx * nx);
    dem::vec3d p{(i + 0.5) * spacing, (j + 0.5) * spacing, (l + 0.5) * spacing};
    for (int a = 0; a < 3; ++a) p[a] += jitter * (2 * u() - 1);
    s.positions.push_back(p);
    s.radii.push_back(radius);
  }
  return s;
}

// Reads a bed as CSV with a header and columns x,y,z,r (the peers' format).
inline dem::particle_set read_bed(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read bed file '" + path + "'");
  std::string line;
  std::getline(in, line);
  dem::particle_set s;
  std::size_t row = 1;
  while (std::getline(in, line)) {
    ++row;
    if (line.empty()) continue;
    std::replace(line.begin(), line.end(), ',', ' ');
    std::istringstream ls(line);
    dem::vec3d p;
    double r;
    if (!(ls >> p.x >> p.y >> p.z >> r)) throw std::runtime_error(path + ":" + std::to_string(row) + ": expected x,y,z,r");
    s.positions.push_back(p);
    s.radii.push_back(r);
  }
  return s;
}

// The box of make_bed.py's lattice: spacing 2 r_max + 2 jitter (2.2 mm for the monodisperse bed;
// wider for a bed with a radius ratio, `make_bed.py --ratio`).
inline dem::aabb bed_domain(const dem::particle_set& s) {
  double r_max = 0, top = 0;
  for (const double r : s.radii) r_max = std::max(r_max, r);
  for (const auto& p : s.positions) top = std::max(top, p.z);
  // (spacing itself for the monodisperse bed: 2 r + 2 jitter need not round to the same double)
  const double side = lattice_side(s.size()) * (r_max <= radius ? spacing : 2 * r_max + 2 * jitter);
  return {{0, 0, 0}, {side, side, top + 6 * std::max(radius, r_max)}};
}

template <class Sim>
void setup(Sim& sim, const dem::particle_set& s) {
  const auto m = sim.add_material({"beads", 2500, 1e7, 0.3, 0.5, 0.5, 0.0});
  const dem::aabb d = sim.config().domain;
  // Floor and side walls; no lid (the domain's top only deactivates escapees).
  sim.add_plane(d.lo, {1, 0, 0}, m);
  sim.add_plane(d.lo, {0, 1, 0}, m);
  sim.add_plane(d.lo, {0, 0, 1}, m);
  sim.add_plane(d.hi, {-1, 0, 0}, m);
  sim.add_plane(d.hi, {0, -1, 0}, m);
  sim.add_particles(s, m);
}

inline dem::simulation_config bed_config(const dem::particle_set& s) {
  dem::simulation_config cfg;
  cfg.domain = bed_domain(s);
  cfg.dt = 1e-5;
  return cfg;
}

}  // namespace bench
