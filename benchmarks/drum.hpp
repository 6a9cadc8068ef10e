#pragma once
// The "drum" scenario shared by boundary_bench and the LIGGGHTS comparison (benchmarks/peers/drum.sh):
// N spheres (the settled bed's: r = 1 mm, rho = 2500, E = 1e7 Pa, nu = 0.3, e = 0.5, mu = 0.5,
// Hertz-Mindlin, dt = 1e-5 s) in a drum of radius 60 mm and length 100 mm (axis y, centred at the
// origin) whose liner with 16 lifter bars is one triangle mesh (320 x 32 quads of the cylinder,
// 20,480 triangles, and 16 boxes of 12: 20,672), closed by two planes of the same material. The
// charge is poured from a lattice and settles for 0.4 s in the resting drum (cached in the working
// directory as drum_settled_<N>.csv); then the liner turns at 4 rad/s (Fr = 0.1).
#include <cmath>
#include <filesystem>
#include <stdexcept>
#include <string>

#include "settled_cache.hpp"

namespace bench::drum {

namespace bd = dem::boundary;
using sim_type = dem::Simulator<dem::policies<>, dem::backend::host>;
inline constexpr double radius = 0.06, length = 0.1, omega = 4.0;

// The liner: a cylinder of `around` x `along` quads (two triangles each), with 16 lifter bars
// (10 mm high and wide, boxes of 12 triangles) along it.
inline bd::triangle_mesh liner(int around = 320, int along = 32) {
  bd::triangle_mesh m;
  m.name = "liner";
  for (int j = 0; j <= along; ++j)
    for (int i = 0; i < around; ++i) {
      const double a = 2 * M_PI * i / around;
      m.vertices.push_back({radius * std::cos(a), -length / 2 + length * j / along, radius * std::sin(a)});
    }
  auto v = [&](int i, int j) { return static_cast<std::uint32_t>(j * around + (i % around)); };
  for (int j = 0; j < along; ++j)
    for (int i = 0; i < around; ++i) {
      m.triangles.push_back({v(i, j), v(i + 1, j), v(i + 1, j + 1)});
      m.triangles.push_back({v(i, j), v(i + 1, j + 1), v(i, j + 1)});
    }
  for (int k = 0; k < 16; ++k) {
    const double a = 2 * M_PI * (k + 0.5) / 16;
    const dem::vec3d axes[3] = {{std::cos(a), 0, std::sin(a)}, {0, 1, 0}, {-std::sin(a), 0, std::cos(a)}};
    bd::append_box(m, axes[0] * (radius - 0.005), axes, {0.00505, length / 2, 0.005});
  }
  return m;
}

inline dem::simulation_config config() {
  dem::simulation_config cfg;
  cfg.domain = {{-radius - 0.003, -length / 2 - 0.003, -radius - 0.003}, {radius + 0.003, length / 2 + 0.003, radius + 0.003}};
  cfg.dt = 1e-5;
  cfg.boundary_margin = 0.002;  // the liner turns: its triangles are listed 2 mm out (a rebuild every ~500 steps for its motion)
  return cfg;
}

// The drum's walls in `sim` (material 0, the beads'); returns the liner's index.
inline std::uint32_t setup(sim_type& sim, const bd::triangle_mesh& mesh) {
  const auto beads = sim.add_material({"beads", 2500, 1e7, 0.3, 0.5, 0.5, 0.0});
  const std::uint32_t liner_id = sim.add_mesh(mesh, beads, "liner");
  sim.add_plane({0, -length / 2, 0}, {0, 1, 0}, beads, "end -y");
  sim.add_plane({0, length / 2, 0}, {0, -1, 0}, beads, "end +y");
  return liner_id;
}

// The charge settled in the resting drum (cached).
inline dem::particle_set charge(std::size_t n, const bd::triangle_mesh& mesh) {
  const std::string cache = "drum_settled_" + std::to_string(n) + ".csv";
  if (std::filesystem::exists(cache)) return read_bed(cache);
  sim_type sim(config());
  sim.set_log(nullptr);
  setup(sim, mesh);
  dem::sample::lattice_options o;
  o.radius = bench::radius;
  o.jitter = 1e-4;
  const dem::particle_set grid = dem::sample::cubic_lattice({{-radius, -length / 2, -radius}, {radius, length / 2, radius}}, o);
  dem::particle_set s;
  for (std::size_t k = 0; k < grid.size() && s.size() < n; ++k)
    if (std::hypot(grid.positions[k].x, grid.positions[k].z) < radius - 0.012) {
      s.positions.push_back(grid.positions[k]);
      s.radii.push_back(grid.radii[k]);
    }
  if (s.size() < n) throw std::runtime_error("the drum holds at most " + std::to_string(s.size()) + " spheres");
  sim.add_particles(s, 0);
  sim.advance(0.4);
  write_bed(cache, sim.snapshot());
  return read_bed(cache);
}

}  // namespace bench::drum
