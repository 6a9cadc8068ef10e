#include <dem/dem.hpp>
#include <dem/io/csv.hpp>
#include <chrono>
#include <cstdio>
#include <exception>

int main() try {
  using Sim = dem::Simulator<dem::policies<dem::shape::sphere, dem::force::hertz_mindlin,
                                           dem::integrate::velocity_verlet, dem::precision::single>,
                             dem::backend::host>;  // or dem::backend::cuda from a .cu file
  dem::simulation_config cfg{.domain = {{0, 0, 0}, {0.03, 0.03, 0.06}}, .dt = 1e-5};
  Sim sim(cfg);
  const auto glass = sim.add_material({"glass", 2500, 1e7, 0.3, 0.5, 0.5, 0.05});
  sim.add_box(cfg.domain, glass);
  sim.add_particles(dem::sample::cubic_lattice({{0, 0, 0.01}, {0.03, 0.03, 0.06}}, {.radius = 1e-3, .jitter = 1e-4}), glass);
  const auto start = std::chrono::steady_clock::now();
  for (int i = 1; i <= 5; ++i) {
    sim.advance(0.05);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("t = %.2f s  KE = %.3e J  (%.1f s, %.1f s left)\n", sim.time(), sim.kinetic_energy(), s, s / i * (5 - i));
  }
  dem::io::write_csv("hello_drop.csv", sim.snapshot());
  std::printf("summary: n=%u kinetic_energy=%.4e\n", sim.num_particles(), sim.kinetic_energy());
} catch (const std::exception& e) {
  std::fprintf(stderr, "hello_drop: error: %s\n", e.what());
  return 1;
}
