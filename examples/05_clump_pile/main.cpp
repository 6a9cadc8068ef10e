// Column collapse: three-sphere clumps settle in a square column (four walls and a floor); then the
// settled column is moved into a domain with the floor only, collapses and leaves a pile whose
// angle of repose the example reports (a standard calibration test for DEM grain shapes).
//
//   clump_pile [--n 500] [--time 0.8] [--mu 0.5]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include <dem/dem.hpp>
#include <dem/shape/clump.hpp>

#include "../common/example.hpp"

int run(std::size_t n, double time, double mu);

int main(int argc, char** argv) {
  example::flags f("clump_pile", "[--n 500] [--time 0.8] [--mu 0.5]", argc, argv);
  const std::size_t n = f.count("--n", 500, 1, 100000);
  const double time = f.number("--time", 0.8, 1e-5, 1e4);
  const double mu = f.number("--mu", 0.5, 0, 10);
  f.done();
  return example::guarded_main("clump_pile", [&] { return run(n, time, mu); });
}

int run(std::size_t n, double time, double mu) {

  using Sim = dem::Simulator<dem::policies<dem::shape::clump<3>, dem::force::hertz_mindlin>, dem::backend::host>;
  const double r = 0.001;  // component radius; clumps are 3 spheres in a triangle, 1.2 r apart
  const auto grain = dem::shape::clumps::three_sphere(r, 1.2 * r, dem::shape::clumps::layout::triangle);
  const dem::material mat{"grain", 2500, 1e7, 0.3, 0.4, mu, 0.0};
  const double side = 0.02, spacing = 0.0045;
  const int per_row = static_cast<int>(side / spacing);
  const double height = 0.01 + spacing * std::ceil(double(n) / (per_row * per_row));

  // 1. Fill and settle the column.
  dem::simulation_config column{.domain = {{-side / 2, -side / 2, 0}, {side / 2, side / 2, height}}, .dt = 1e-5};
  Sim fill(column);
  const auto m = fill.add_material(mat);
  fill.add_box(column.domain, m);
  const auto shape = fill.add_shape(grain);
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> u(-1, 1);
  dem::particle_set s;
  std::vector<dem::quatd> q;
  for (std::size_t k = 0; k < n; ++k) {
    const int ix = static_cast<int>(k % per_row), iy = static_cast<int>((k / per_row) % per_row), iz = static_cast<int>(k / (per_row * per_row));
    s.positions.push_back({-side / 2 + (ix + 0.5) * spacing, -side / 2 + (iy + 0.5) * spacing, 0.0025 + iz * spacing});
    q.push_back(dem::normalized(dem::quatd{u(rng), u(rng), u(rng), u(rng)}));
  }
  fill.add_bodies(shape, s, q, m);
  const int frames = 8;
  example::progress progress(example::steps_for(0.4, column.dt) + frames * example::steps_for(time / frames, column.dt));
  example::advance(fill, 0.4, progress);
  std::printf("column settled: kinetic energy %.3e J\n", fill.kinetic_energy());

  // 2. Lift the walls: the same bodies on the floor only.
  dem::simulation_config open{.domain = {{-0.08, -0.08, -0.001}, {0.08, 0.08, height}}, .dt = 1e-5};
  Sim sim(open);
  sim.set_log(nullptr);  // grains rolling off the floor's edge leave the domain: counted, not logged
  const auto m2 = sim.add_material(mat);
  sim.add_plane({0, 0, 0}, {0, 0, 1}, m2);
  const auto shape2 = sim.add_shape(grain);
  dem::particle_set settled;
  settled.positions = fill.positions();
  sim.add_bodies(shape2, settled, fill.orientations(), m2);
  for (int f = 1; f <= frames; ++f) {
    example::advance(sim, time / frames, progress);
    std::printf("t = %.2f s  kinetic energy %.3e J  on the floor %u\n", sim.time(), sim.kinetic_energy(), sim.num_active());
  }
  // Angle of repose: the pile's surface height h(rho) is the highest centre in rings of radius rho;
  // fit a line to the flank, between 20 % and 80 % of the pile's radius (the radius that holds 95 %
  // of the grains: a few roll far away).
  const auto pos = sim.positions();
  std::vector<std::pair<double, double>> pts;
  std::vector<double> radii;
  for (const auto& p : pos) {
    if (!(p.z >= 0)) continue;  // below the floor, or gone from the domain (NaN)
    pts.push_back({std::hypot(p.x, p.y), p.z});
    radii.push_back(pts.back().first);
  }
  std::sort(radii.begin(), radii.end());
  const double rho_max = radii[static_cast<std::size_t>(0.95 * (radii.size() - 1))];
  const int rings = 12;
  std::vector<double> top(rings, -1);
  for (const auto& [rho, z] : pts) {
    if (rho > rho_max) continue;
    const int k = std::min(rings - 1, static_cast<int>(rho / rho_max * rings));
    top[k] = std::max(top[k], z);
  }
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  int cnt = 0;
  for (int k = rings / 5; k < 4 * rings / 5; ++k) {
    if (top[k] < 0) continue;
    const double x = (k + 0.5) * rho_max / rings;
    sx += x; sy += top[k]; sxx += x * x; sxy += x * top[k];
    ++cnt;
  }
  const double slope = cnt > 1 ? (cnt * sxy - sx * sy) / (cnt * sxx - sx * sx) : 0;
  const double angle = std::atan(-slope) * 180 / M_PI;
  std::printf("summary: n=%u kinetic_energy=%.4e pile_height=%.4f pile_radius=%.4f angle_of_repose_deg=%.1f\n", sim.num_active(),
              sim.kinetic_energy(), *std::max_element(top.begin(), top.end()), rho_max, angle);
  return 0;
}
