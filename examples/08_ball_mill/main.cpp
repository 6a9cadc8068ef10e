// A ball mill: steel balls in a turning shell (an analytic cylinder with end caps) fitted with
// lifter bars read from an OBJ file. Reports the torque the charge puts on the mill and its power
// draw, against the torque of the charge's weight about the axis (M g x_com), which it must equal
// on average once the flow is steady.
//
//   ball_mill [--n 400] [--speed 0.75] [--revs 3] [--mesh lifters.obj] [--out DIR]
//
// --speed is the fraction of the critical speed sqrt(g / (R - r)) at which balls would centrifuge.
// The balls are steel made softer (E = 2 GPa) so that dt can be 1e-5 s: common practice in mill
// DEM, which changes contact durations, not the charge's motion.
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
constexpr double R = 0.1, L = 0.06, r = 0.006, g = 9.81;

struct options {
  std::size_t n = 400;
  double speed = 0.75, revs = 3;
  std::string mesh = DEM_EXAMPLES_DIR "/08_ball_mill/lifters.obj";
  std::string out;
};

int run(const options& o) {
  using Sim = dem::Simulator<dem::policies<dem::shape::sphere, dem::force::hertz_mindlin>, dem::backend::host>;
  dem::simulation_config cfg;
  cfg.domain = {{-R - 0.005, -L / 2 - 0.005, -R - 0.005}, {R + 0.005, L / 2 + 0.005, R + 0.005}};
  cfg.boundary_margin = 0.004;  // the lifters turn: list them farther out, rebuild less often
  Sim sim(cfg);
  const auto balls = sim.add_material({"steel balls", 7800, 2e9, 0.3, 0.6, 0.3, 0.02});
  const auto liner = sim.add_material({.name = "liner", .density = 7800, .youngs_modulus = 2e11, .poisson_ratio = 0.3, .restitution = 0.6,
                                       .friction = 0.3, .rolling_friction = 0.02, .rigid = true});
  const auto shell = sim.add_cylinder({.base = {0, -L / 2, 0}, .axis = {0, 1, 0}, .length = L, .radius = R, .cap_base = true, .cap_top = true},
                                      liner, "shell");
  const auto lifters = sim.add_mesh(o.mesh, liner, "lifters");
  dem::sample::lattice_options lo;
  lo.radius = r;
  lo.jitter = 5e-4;
  const dem::particle_set grid = dem::sample::cubic_lattice({{-R, -L / 2, -R}, {R, L / 2, R}}, lo);
  dem::particle_set set;
  for (std::size_t k = 0; k < grid.size() && set.size() < o.n; ++k)
    if (std::hypot(grid.positions[k].x, grid.positions[k].z) < R - 0.013 - r) {  // clear of the lifters
      set.positions.push_back(grid.positions[k]);
      set.radii.push_back(grid.radii[k]);
    }
  if (set.size() < o.n) throw std::runtime_error("the mill holds at most " + std::to_string(set.size()) + " balls on this lattice");
  sim.add_particles(set, balls);
  sim.set_dt(std::min(1e-5, 0.25 * sim.stable_time_step()));
  const double omega = o.speed * std::sqrt(g / (R - r)), rev_time = 2 * M_PI / omega;
  std::printf("ball_mill: %zu balls (r = %.0f mm) in a mill of radius %.0f mm with %u lifter triangles, %.0f %% of critical speed (%.2f rad/s), dt %.1e s\n",
              set.size(), r * 1e3, R * 1e3, sim.boundary(lifters).element_count, o.speed * 100, omega, sim.dt());

  example::progress progress(example::steps_for(0.3 + o.revs * rev_time, sim.dt()));
  std::optional<dem::io::vtk_series> series;
  if (!o.out.empty()) series.emplace(o.out);
  example::advance(sim, 0.3, progress);  // the charge settles
  for (auto b : {shell, lifters}) sim.set_motion(b, dem::boundary::constant_velocity{.omega = {0, omega, 0}});
  example::advance(sim, 0.5 * o.revs * rev_time, progress);  // the flow becomes steady
  const int samples = 60;
  double torque = 0, power = 0, gravity_torque = 0;
  const double mass = 7800 * 4.0 / 3 * M_PI * r * r * r;
  for (int k = 0; k < samples; ++k) {
    example::advance(sim, 0.5 * o.revs * rev_time / samples, progress);
    for (auto b : {shell, lifters}) {
      torque += sim.boundary_torque(b, {0, 0, 0}).y / samples;
      power += sim.boundary_power(b) / samples;
    }
    double mx = 0;
    for (const auto& x : sim.positions())
      if (std::isfinite(x.x)) mx += mass * x.x;  // NaN: left the domain
    gravity_torque += g * mx / samples;
    if (series && k % 10 == 0) example::write_frame(*series, sim);
  }
  std::printf("torque of the charge on the mill %.4f N m (the charge's weight about the axis: %.4f N m), power draw %.3f W\n", torque,
              gravity_torque, power);
  std::printf("summary: n=%u torque_Nm=%.4f weight_torque_Nm=%.4f power_W=%.4f lost=%u rebuilds=%llu\n", sim.num_particles(), torque, gravity_torque,
              power, sim.num_lost(), static_cast<unsigned long long>(sim.num_rebuilds()));
  return 0;
}
}  // namespace

int main(int argc, char** argv) {
  example::flags f("ball_mill", "[--n 400] [--speed 0.75] [--revs 3] [--mesh lifters.obj] [--out DIR]", argc, argv);
  options o;
  o.n = f.count("--n", 400, 1, 5000);
  o.speed = f.number("--speed", 0.75, 0.05, 1.5);
  o.revs = f.number("--revs", 3, 0.01, 100);
  o.mesh = f.text("--mesh", o.mesh);
  o.out = f.text("--out", "");
  f.done();
  return example::guarded_main("ball_mill", [&] { return run(o); });
}
