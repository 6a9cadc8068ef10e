// A mixer: beads in a cylindrical vessel stirred by a four-bladed impeller (a mesh read from an OBJ
// file) turning about the vessel's axis. Reports the torque and power the impeller needs and how
// far the bed mixed: the beads are labelled by their starting half (lower, upper) and the mixing
// index is the fraction of upper beads in the lower half of the bed, over its value for a random
// mixture (0: unmixed, about 1: mixed).
//
//   mixer [--n 3000] [--omega 15] [--time 1] [--mesh impeller.obj] [--out DIR]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include <dem/dem.hpp>
#include <dem/io/vtk.hpp>

#include "../common/example.hpp"

#ifndef DEM_EXAMPLES_DIR
#define DEM_EXAMPLES_DIR "examples"
#endif

namespace {
constexpr double R = 0.04, H = 0.08, r = 1.5e-3;

struct options {
  std::size_t n = 3000;
  double omega = 15, time = 1;
  std::string mesh = DEM_EXAMPLES_DIR "/09_mixer/impeller.obj";
  std::string out;
};

// Fraction of the upper-half beads (ids in `upper`) that are in the lower half of the bed now,
// over the fraction a random mixture would have there.
// The median height of the particles still in the domain (by-id readouts give NaN for the others).
double median_height(const std::vector<dem::vec3d>& x) {
  std::vector<double> sorted;
  for (const auto& p : x)
    if (std::isfinite(p.z)) sorted.push_back(p.z);
  if (sorted.empty()) return 0;
  std::nth_element(sorted.begin(), sorted.begin() + sorted.size() / 2, sorted.end());
  return sorted[sorted.size() / 2];
}

double mixing_index(const std::vector<dem::vec3d>& x, const std::vector<char>& upper) {
  const double median = median_height(x);
  std::size_t upper_below = 0, below = 0, uppers = 0, present = 0;
  for (std::size_t k = 0; k < x.size(); ++k) {
    if (!std::isfinite(x[k].z)) continue;
    const double z = x[k].z;
    ++present;
    uppers += upper[k];
    if (z < median) {
      ++below;
      upper_below += upper[k];
    }
  }
  const double expected = double(uppers) / double(present);
  return below ? (double(upper_below) / double(below)) / expected : 0.0;
}

int run(const options& o) {
  using Sim = dem::Simulator<dem::policies<dem::shape::sphere, dem::force::hertz_mindlin>, dem::backend::host>;
  dem::simulation_config cfg;
  cfg.domain = {{-R - 0.002, -R - 0.002, -0.002}, {R + 0.002, R + 0.002, H}};
  cfg.boundary_margin = 0.002;  // the impeller turns: list its triangles farther out, rebuild less often
  Sim sim(cfg);
  const auto beads = sim.add_material({"beads", 2500, 5e7, 0.3, 0.5, 0.5, 0.05});
  const auto steel = sim.add_material({.name = "steel", .density = 7800, .youngs_modulus = 2e11, .poisson_ratio = 0.3, .restitution = 0.5,
                                       .friction = 0.4, .rolling_friction = 0.05, .rigid = true});
  sim.add_cylinder({.base = {0, 0, 0}, .axis = {0, 0, 1}, .length = H, .radius = R, .cap_base = true}, steel, "vessel");
  const auto impeller = sim.add_mesh(o.mesh, steel, "impeller");
  // Beads above the impeller (its blades reach z = 20 mm), inside the vessel.
  dem::sample::lattice_options lo;
  lo.radius = r;
  lo.jitter = 2e-4;
  const dem::particle_set grid = dem::sample::cubic_lattice({{-R, -R, 0.022}, {R, R, H}}, lo);
  dem::particle_set set;
  for (std::size_t k = 0; k < grid.size() && set.size() < o.n; ++k)
    if (std::hypot(grid.positions[k].x, grid.positions[k].y) < R - 1.5 * r) {
      set.positions.push_back(grid.positions[k]);
      set.radii.push_back(grid.radii[k]);
    }
  if (set.size() < o.n) throw std::runtime_error("the vessel holds at most " + std::to_string(set.size()) + " beads on this lattice");
  sim.add_particles(set, beads);
  sim.set_dt(std::min(1e-5, 0.25 * sim.stable_time_step()));
  std::printf("mixer: %zu beads (r = %.1f mm) in a vessel of radius %.0f mm, impeller of %u triangles at %.1f rad/s, dt %.1e s\n", set.size(),
              r * 1e3, R * 1e3, sim.boundary(impeller).element_count, o.omega, sim.dt());

  example::progress progress(example::steps_for(0.3 + o.time, sim.dt()));
  std::optional<dem::io::vtk_series> series;
  if (!o.out.empty()) series.emplace(o.out);
  example::advance(sim, 0.3, progress);  // the beads settle onto the impeller
  std::vector<char> upper(sim.num_particles());
  {
    const auto x = sim.positions();
    const double median = median_height(x);
    for (std::size_t k = 0; k < x.size(); ++k) upper[k] = x[k].z >= median;  // false for NaN
  }
  const double before = mixing_index(sim.positions(), upper);
  sim.set_motion(impeller, dem::boundary::constant_velocity{.omega = {0, 0, o.omega}});
  const int samples = 40;
  double torque = 0, power = 0;
  for (int k = 0; k < samples; ++k) {
    example::advance(sim, o.time / samples, progress);
    if (k >= samples / 2) {  // the second half: the stirred bed
      torque += sim.boundary_torque(impeller, {0, 0, 0}).z / (samples - samples / 2);
      power += sim.boundary_power(impeller) / (samples - samples / 2);
    }
    if (series && k % 8 == 0) example::write_frame(*series, sim);
  }
  const double after = mixing_index(sim.positions(), upper);
  std::printf("impeller: torque %.4e N m, power %.4e W; mixing index %.2f before, %.2f after %.2f s\n", torque, power, before, after, o.time);
  std::printf("summary: n=%u torque_Nm=%.4e power_W=%.4e mixing_before=%.3f mixing_after=%.3f lost=%u\n", sim.num_particles(), torque, power,
              before, after, sim.num_lost());
  return 0;
}
}  // namespace

int main(int argc, char** argv) {
  example::flags f("mixer", "[--n 3000] [--omega 15] [--time 1] [--mesh impeller.obj] [--out DIR]", argc, argv);
  options o;
  o.n = f.count("--n", 3000, 1, 100000);
  o.omega = f.number("--omega", 15, 0, 1000);
  o.time = f.number("--time", 1, 1e-4, 1e4);
  o.mesh = f.text("--mesh", o.mesh);
  o.out = f.text("--out", "");
  f.done();
  return example::guarded_main("mixer", [&] { return run(o); });
}
