// A rotating drum: glass beads in a horizontal cylinder with end caps, turned at several Froude
// numbers Fr = omega^2 R / g (rolling, cascading, towards cataracting); at each the example reports
// the dynamic angle of repose of the bed's free surface, the torque the drum needs and its power.
//
//   rotating_drum [--n 2000] [--froude 0.03,0.1,0.3] [--revs 0.25] [--out DIR]
//
// The drum (radius 30 mm, 20 mm long) is an analytic cylinder turning about its own axis (y): its
// surface does not move, so its rotation never triggers a contact-list rebuild; the drum's velocity
// at each contact point drives the bed.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <dem/dem.hpp>
#include <dem/io/vtk.hpp>

#include "../common/example.hpp"

namespace {
constexpr double R = 0.03, L = 0.02, r = 1e-3, g = 9.81;

struct options {
  std::size_t n = 2000;
  std::vector<double> froude{0.03, 0.1, 0.3};
  double revs = 0.25;
  std::string out;  // ParaView frames: the settled bed, and the flow at the end of each Froude number
};

// The slope of the bed's free surface in the drum's cross-section (x, z): the highest particle in
// each of 16 bins across the bed, a line through the middle 60 % of them.
double surface_angle(const std::vector<dem::vec3d>& x) {
  double lo = 1e9, hi = -1e9;
  for (const auto& p : x) {
    if (!std::isfinite(p.x)) continue;  // a particle that left the domain (by-id readouts give NaN)
    lo = std::min(lo, p.x);
    hi = std::max(hi, p.x);
  }
  const int bins = 16;
  std::vector<double> top(bins, -1e9);
  for (const auto& p : x) {
    if (!std::isfinite(p.x)) continue;
    const int k = std::clamp(static_cast<int>((p.x - lo) / (hi - lo) * bins), 0, bins - 1);
    top[k] = std::max(top[k], p.z);
  }
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  int n = 0;
  for (int k = bins / 5; k < bins - bins / 5; ++k) {
    const double xc = lo + (k + 0.5) * (hi - lo) / bins;
    sx += xc;
    sy += top[k];
    sxx += xc * xc;
    sxy += xc * top[k];
    ++n;
  }
  const double slope = (n * sxy - sx * sy) / (n * sxx - sx * sx);
  return std::atan(std::fabs(slope)) * 180 / M_PI;
}

int run(const options& o) {
  using Sim = dem::Simulator<dem::policies<dem::shape::sphere, dem::force::hertz_mindlin_epsd>, dem::backend::host>;
  dem::simulation_config cfg;
  cfg.domain = {{-R - 0.002, -L / 2 - 0.002, -R - 0.002}, {R + 0.002, L / 2 + 0.002, R + 0.002}};
  Sim sim(cfg);
  const auto beads = sim.add_material({"glass beads", 2500, 5e7, 0.25, 0.5, 0.5, 0.1});
  const auto steel = sim.add_material({.name = "steel", .density = 7800, .youngs_modulus = 2e11, .poisson_ratio = 0.3,
                                       .restitution = 0.5, .friction = 0.5, .rolling_friction = 0.1, .rigid = true});
  const auto drum = sim.add_cylinder({.base = {0, -L / 2, 0}, .axis = {0, 1, 0}, .length = L, .radius = R, .cap_base = true, .cap_top = true},
                                     steel, "drum");
  // Beads on a lattice in the lower part of the drum, inside the circle.
  dem::sample::lattice_options lo;
  lo.radius = r;
  lo.jitter = 1e-4;
  const dem::particle_set grid = dem::sample::cubic_lattice({{-R, -L / 2, -R}, {R, L / 2, R}}, lo);
  dem::particle_set set;
  for (std::size_t k = 0; k < grid.size() && set.size() < o.n; ++k)
    if (std::hypot(grid.positions[k].x, grid.positions[k].z) < R - 1.5 * r) {
      set.positions.push_back(grid.positions[k]);
      set.radii.push_back(grid.radii[k]);
    }
  if (set.size() < o.n) throw std::runtime_error("the drum holds at most " + std::to_string(set.size()) + " beads on this lattice");
  sim.add_particles(set, beads);
  sim.set_dt(std::min(1e-5, 0.25 * sim.stable_time_step()));
  std::printf("rotating_drum: %zu beads (r = %.1f mm) in a drum of radius %.0f mm, length %.0f mm, dt %.2e s\n", set.size(), r * 1e3,
              R * 1e3, L * 1e3, sim.dt());

  double total_time = 0.3;
  for (double fr : o.froude) total_time += o.revs * 2 * M_PI / std::sqrt(fr * g / R);
  example::progress progress(example::steps_for(total_time, sim.dt()));
  std::optional<dem::io::vtk_series> series;
  if (!o.out.empty()) series.emplace(o.out);
  auto frame = [&] {
    if (!series) return;
    example::write_frame(*series, sim);
  };
  frame();
  example::advance(sim, 0.3, progress);  // the bed settles in the resting drum
  std::ostringstream summary;
  summary << "summary: n=" << sim.num_particles();
  for (double fr : o.froude) {
    const double omega = std::sqrt(fr * g / R), rev_time = 2 * M_PI / omega;
    sim.set_motion(drum, dem::boundary::constant_velocity{.omega = {0, omega, 0}});
    // Three fifths of the time to reach the steady flow, then 20 samples.
    example::advance(sim, 0.6 * o.revs * rev_time, progress);
    double angle = 0, torque = 0, power = 0;
    const int samples = 20;
    for (int k = 0; k < samples; ++k) {
      example::advance(sim, 0.4 * o.revs * rev_time / samples, progress);
      angle += surface_angle(sim.positions()) / samples;
      torque += sim.boundary_torque(drum, {0, 0, 0}).y / samples;
      power += sim.boundary_power(drum) / samples;
      if (series && k == samples - 1) frame();
    }
    std::printf("Fr = %.3g (omega %.2f rad/s): dynamic angle of repose %.1f deg, torque on the drum %.3e N m, power %.3e W\n", fr, omega,
                angle, torque, power);
    summary << " angle_deg_fr" << fr << "=" << std::fixed;
    summary.precision(1);
    summary << angle;
    summary.unsetf(std::ios::fixed);
    summary.precision(6);
  }
  summary << " lost=" << sim.num_lost();
  std::printf("%s\n", summary.str().c_str());
  return 0;
}
}  // namespace

int main(int argc, char** argv) {
  example::flags f("rotating_drum", "[--n 2000] [--froude 0.03,0.1,0.3] [--revs 0.25] [--out DIR]", argc, argv);
  options o;
  o.n = f.count("--n", 2000, 1, 20000);
  o.froude = f.numbers("--froude", "0.03,0.1,0.3", 1e-6, 1);
  o.revs = f.number("--revs", 0.25, 0.01, 100);
  o.out = f.text("--out", "");
  f.done();
  return example::guarded_main("rotating_drum", [&] { return run(o); });
}
