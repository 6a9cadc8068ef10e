// The long boundary validation (scripts/validate-boundaries.sh; tests/boundary/test_boundaries.cpp
// runs a small version): the settled bed of settled_bed.hpp (N = 10,000 by default) poured into its
// box made of planes (floor and four sides, as the benchmarks) and into the same box as a
// 12-triangle mesh. Checks: bed heights within 1 %; at rest, the box carries the bed's weight
// within 0.5 % (the planes' vertical forces summed, the mesh's whole force); the floor's share is
// printed (the side walls carry the rest by friction).
//
//   validate_boundaries [N]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "settled_bed.hpp"

namespace {
using Sim = dem::Simulator<dem::policies<>, dem::backend::host>;

struct result {
  double height, support, floor, weight, kinetic;
};

result run(std::size_t n, bool mesh) {
  const dem::particle_set start = bench::initial_bed(n);
  Sim sim(bench::bed_config(start));
  sim.set_log(nullptr);
  std::uint32_t floor = 0;
  if (mesh) {
    const auto m = sim.add_material({"beads", 2500, 1e7, 0.3, 0.5, 0.5, 0.0});
    sim.add_mesh(dem::boundary::box_mesh(sim.config().domain), m);
    sim.add_particles(start, m);
  } else {
    bench::setup(sim, start);
    floor = 2;  // bench::setup: -x, -y, floor, +x, +y
  }
  sim.advance(bench::settle_time + 0.3);  // settled and at rest
  result r{};
  const auto s = sim.snapshot();
  std::vector<double> tops;
  for (std::size_t k = 0; k < s.size(); ++k)
    if (s.active[k]) {
      tops.push_back(s.position[k].z + s.radius[k]);
      r.weight += 2500 * 4.0 / 3 * M_PI * std::pow(s.radius[k], 3) * 9.81;
    }
  std::sort(tops.begin(), tops.end());
  r.height = tops[static_cast<std::size_t>(0.99 * (tops.size() - 1))];  // the surface, not a grain perched on it
  for (std::uint32_t b = 0; b < sim.num_boundaries(); ++b) r.support -= sim.boundary_force(b).z;
  if (mesh) {
    const auto per = sim.boundary_element_forces(0);
    r.floor = -(per[0].z + per[1].z);  // the box's triangles 0 and 1: its floor
  } else {
    r.floor = -sim.boundary_force(floor).z;
  }
  r.kinetic = sim.kinetic_energy();
  std::printf("%-7s N = %zu: bed height %.4f mm, the box carries %.6f N of %.6f N weight (floor %.6f N), kinetic energy %.3e J\n",
              mesh ? "mesh" : "planes", n, r.height * 1e3, r.support, r.weight, r.floor, r.kinetic);
  return r;
}
}  // namespace

int main(int argc, char** argv) {
  const std::size_t n = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 10000;
  const result planes = run(n, false), mesh = run(n, true);
  const double dh = std::fabs(mesh.height / planes.height - 1), sp = std::fabs(planes.support / planes.weight - 1),
               sm = std::fabs(mesh.support / mesh.weight - 1);
  const bool ok = dh < 0.01 && sp < 0.005 && sm < 0.005;
  std::printf("bed heights differ by %.3f %% (< 1 %%); the boxes carry the weight to %.4f %% (planes) and %.4f %% (mesh) (< 0.5 %%): %s\n",
              100 * dh, 100 * sp, 100 * sm, ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
