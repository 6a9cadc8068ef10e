// The tilting-box angle of repose at dt and dt/2 (scripts/validate-repose.sh; docs/force-laws.md,
// "Rolling resistance and the time step"). A box 60 x 16 mm holds 300 grains (r = 2 mm +-10 %,
// mu = 0.5, mu_r = 0.1, E = 1e7 Pa) settled for 0.4 s at dt. The settled bed is saved once and
// continued twice, at dt and at dt/2, from the same bits: gravity tilts to 20 deg at 100 deg/s, then
// on at 20 deg/s until the mean downhill displacement of the grains that started within 3 r of the
// top reaches one radius. That tilt is the bed's failure angle (the tilting-box method); the paired
// difference between dt and dt/2 is printed per seed, with the mean and its standard error.
//
//   validate_repose [hertz_mindlin|hertz_mindlin_epsd] [seeds] [dt] [first seed]
//
// Seeds first .. first + seeds - 1: split a long run over processes and pool their lines.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "dem/dem.hpp"

namespace {

template <class Force>
using Sim = dem::Simulator<dem::policies<dem::shape::sphere, Force>, dem::backend::host>;

template <class Force>
double failure_angle(const dem::simulation_config& cfg, const std::string& checkpoint, double dt) {
  const double r = 2e-3, step = 0.002, fast = 100, rate = 20, start = 20;
  Sim<Force> run(cfg);
  run.set_log(nullptr);
  run.load_checkpoint(checkpoint);
  run.set_dt(dt);
  const auto x0 = run.positions();
  double top_z = 0;
  for (const auto& p : x0) top_z = std::max(top_z, p.z);
  std::vector<std::size_t> top;
  for (std::size_t i = 0; i < x0.size(); ++i)
    if (x0[i].z > top_z - 3 * r) top.push_back(i);
  for (double theta = 0; theta < 70;) {
    theta += (theta < start ? fast : rate) * step;
    const double th = theta * M_PI / 180;
    run.set_gravity({9.81 * std::sin(th), 0, -9.81 * std::cos(th)});
    run.advance(step);
    const auto x = run.positions();
    double moved = 0;
    for (auto i : top)  // one that left the box (NaN once compacted away) went out at its +x end, downhill
      moved += (std::isfinite(x[i].x) ? x[i].x : cfg.domain.hi.x) - x0[i].x;
    if (moved / double(top.size()) > r) return theta;
  }
  return NAN;
}

template <class Force>
int run_all(int seeds, double dt, int first) {
  const double L = 0.06, W = 0.016;
  dem::simulation_config cfg;
  cfg.domain = {{0, 0, 0}, {L, W, 0.08}};
  cfg.dt = dt;
  std::printf("%s, dt = %g s and %g s; failure angle (deg) per seed\n", Force::name, dt, dt / 2);
  std::printf("%6s %10s %10s %10s\n", "seed", "dt", "dt/2", "relative");
  double sum = 0, sum2 = 0;
  int n = 0;
  for (int seed = first; seed < first + seeds; ++seed) {
    Sim<Force> sim(cfg);
    sim.set_log(nullptr);
    const auto m = sim.add_material({"grain", 2500, 1e7, 0.3, 0.5, 0.5, 0.1});
    sim.add_box(cfg.domain, m);
    dem::sample::lattice_options o;
    o.radius = 2e-3;
    o.radius_spread = 0.1;
    o.spacing = 4.6e-3;
    o.jitter = 2e-4;
    o.max_count = 300;
    o.seed = std::uint64_t(seed);
    sim.add_particles(dem::sample::cubic_lattice({{0, 0, 0.0025}, {L, W, 0.08}}, o), m);
    sim.advance(0.4);
    const std::string checkpoint = "validate_repose_" + std::to_string(seed) + ".ckpt";
    sim.save_checkpoint(checkpoint);
    const double a1 = failure_angle<Force>(cfg, checkpoint, dt), a2 = failure_angle<Force>(cfg, checkpoint, dt / 2);
    std::remove(checkpoint.c_str());
    const double rel = (a1 - a2) / a2;
    std::printf("%6d %10.3f %10.3f %+9.2f%%\n", seed, a1, a2, 100 * rel);
    std::fflush(stdout);
    sum += rel;
    sum2 += rel * rel;
    ++n;
  }
  const double mean = sum / n, sd = n > 1 ? std::sqrt((sum2 - n * mean * mean) / (n - 1)) : 0;
  std::printf("paired difference: mean %+.2f%%, standard deviation %.2f%%, standard error %.2f%% (%d seeds)\n", 100 * mean, 100 * sd,
              100 * sd / std::sqrt(double(n)), n);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string law = argc > 1 ? argv[1] : "hertz_mindlin_epsd";
  const int seeds = argc > 2 ? std::atoi(argv[2]) : 5;
  const double dt = argc > 3 ? std::atof(argv[3]) : 2e-5;
  const int first = argc > 4 ? std::atoi(argv[4]) : 1;
  if (seeds < 1 || !(dt > 0) || first < 0) {
    std::fprintf(stderr, "validate_repose: seeds must be >= 1, dt > 0 and the first seed >= 0 (got %d, %g, %d)\n", seeds, dt, first);
    return 2;
  }
  if (law == "hertz_mindlin") return run_all<dem::force::hertz_mindlin>(seeds, dt, first);
  if (law == "hertz_mindlin_epsd") return run_all<dem::force::hertz_mindlin_epsd>(seeds, dt, first);
  std::fprintf(stderr, "validate_repose: law must be hertz_mindlin or hertz_mindlin_epsd, not '%s'\n", law.c_str());
  return 2;
}
