// A piston compressing a bed: spheres settle in a box, then a plate comes down under force control
// (a servo) until the bed pushes back with the target force, and goes back up. Prints the force
// against the piston's travel, the bed's solid fraction under the target load and how far the
// bed springs back.
//
//   piston_compaction [--n 1500] [--force 20] [--speed 0.02] [--out DIR]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>

#include <dem/dem.hpp>
#include <dem/io/vtk.hpp>

#include "../common/example.hpp"

namespace {
constexpr double side = 0.02, r = 8e-4;

struct options {
  std::size_t n = 1500;
  double force = 20, speed = 0.02;
  std::string out;
};

int run(const options& o) {
  using Sim = dem::Simulator<dem::policies<dem::shape::sphere, dem::force::hertz_mindlin>, dem::backend::host>;
  const double height = 0.06;
  dem::simulation_config cfg;
  cfg.domain = {{0, 0, 0}, {side, side, height}};
  Sim sim(cfg);
  const auto beads = sim.add_material({"beads", 2500, 5e7, 0.3, 0.5, 0.4, 0.05});
  sim.add_box(cfg.domain, beads);
  dem::sample::lattice_options lo;
  lo.radius = r;
  lo.radius_spread = 0.1;
  lo.jitter = 1e-4;
  lo.max_count = o.n;
  sim.add_particles(dem::sample::cubic_lattice({{0, 0, 0}, {side, side, height - 0.005}}, lo), beads);
  if (sim.num_particles() < o.n) throw std::runtime_error("the box holds at most " + std::to_string(sim.num_particles()) + " spheres on this lattice");
  sim.set_dt(std::min(1e-5, 0.25 * sim.stable_time_step()));
  example::progress progress(example::steps_for(0.5, sim.dt()), 5.0);
  example::advance(sim, 0.5, progress);  // settle
  double top = 0, volume = 0;
  {
    const auto s = sim.snapshot();
    for (std::size_t k = 0; k < s.size(); ++k) {
      top = std::max(top, s.position[k].z + s.radius[k]);
      volume += 4.0 / 3 * M_PI * std::pow(s.radius[k], 3);
    }
  }
  std::printf("piston_compaction: %u spheres settled, bed height %.2f mm, solid fraction %.3f\n", sim.num_particles(), top * 1e3,
              volume / (side * side * top));

  const double start = top + 0.002;
  const auto piston = sim.add_plate({side / 2, side / 2, start}, {0, 0, -1}, {1, 0, 0}, side / 2, side / 2, beads, "piston");
  dem::boundary::servo sv;
  sv.direction = {0, 0, -1};
  sv.speed = o.speed;
  sv.target_force = o.force;
  sv.after = dem::boundary::servo::mode::reverse;
  sv.return_speed = o.speed;
  sim.set_motion(piston, sv);
  std::optional<dem::io::vtk_series> series;
  if (!o.out.empty()) series.emplace(o.out);
  std::printf("%10s %12s\n", "travel_mm", "force_N");
  double next_print = 0, travel_at_target = 0, least_travel_back = 1e9;
  bool reported = false;
  const auto max_steps = static_cast<std::uint64_t>((2 * start / o.speed) / sim.dt());
  for (std::uint64_t k = 0; k < max_steps; ++k) {
    sim.step();
    const auto& st = sim.servo_state(piston);
    if (!st.reached && st.travel >= next_print) {
      std::printf("%10.3f %12.4f\n", st.travel * 1e3, st.load);
      next_print += 0.0002;
    }
    if (st.reached && !reported) {
      reported = true;
      travel_at_target = st.travel;
      const double h = start - st.travel;
      std::printf("%10.3f %12.4f  <- target reached: the bed is %.2f mm high, solid fraction %.3f\n", st.travel * 1e3, st.load, h * 1e3,
                  volume / (side * side * h));
      if (series) example::write_frame(*series, sim);
    }
    if (reported) {
      // Going back up: the bed follows (springs back) while it still pushes.
      if (sim.boundary_force(piston).z > 1e-6) least_travel_back = std::min(least_travel_back, st.travel);
      if (st.travel < travel_at_target - 0.002) break;
    }
  }
  if (!reported) throw std::runtime_error("the piston never reached the target force of " + example::show(o.force) + " N");
  const double spring_back = least_travel_back < 1e8 ? travel_at_target - least_travel_back : 0.0;
  std::printf("spring-back: the bed followed the piston back by %.4f mm\n", spring_back * 1e3);
  std::printf("summary: n=%u target_N=%.3g travel_mm=%.4f solid_fraction=%.4f spring_back_mm=%.4f\n", sim.num_particles(), o.force,
              travel_at_target * 1e3, volume / (side * side * (start - travel_at_target)), spring_back * 1e3);
  return 0;
}
}  // namespace

int main(int argc, char** argv) {
  example::flags f("piston_compaction", "[--n 1500] [--force 20] [--speed 0.02] [--out DIR]", argc, argv);
  options o;
  o.n = f.count("--n", 1500, 10, 100000);
  o.force = f.number("--force", 20, 1e-3, 1e6);
  o.speed = f.number("--speed", 0.02, 1e-4, 1);
  o.out = f.text("--out", "");
  f.done();
  return example::guarded_main("piston_compaction", [&] { return run(o); });
}
