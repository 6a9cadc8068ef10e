// The energy ledger's long validation (scripts/validate-energy.sh): the settled-bed scenario of the
// benchmarks (settled_bed.hpp: N spheres on a jittered lattice in a box, Hertz–Mindlin) run from its
// lattice for STEPS steps with the ledger on, printing the balance every tenth of the run; or
// (fall) the same lattice released 10 cm above the floor, a packing from free fall (impacts at 1.4 m/s).
//
//   ledger_bed [N = 10000] [STEPS = 100000] [single|mixed|double = mixed] [bed|fall = bed] [DT = 1e-5]
//
// mixed is the default: with single-precision positions a settled bed's tiny velocities move the
// positions by less than their rounding, so the springs' work (from velocities) and their energy
// (from positions) part, and the balance drifts by about 1e-3 per 1e5 steps (docs/reliability.md).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "settled_bed.hpp"

template <class Precision>
int run(std::size_t n, std::uint64_t steps, double lift, double dt);

int main(int argc, char** argv) {
  const std::size_t n = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 10000;
  const std::uint64_t steps = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 100000;
  const std::string precision = argc > 3 ? argv[3] : "mixed";
  const std::string scenario = argc > 4 ? argv[4] : "bed";
  if (scenario != "bed" && scenario != "fall") {
    std::fprintf(stderr, "ledger_bed: the scenario must be bed or fall, got '%s'\n", scenario.c_str());
    return 2;
  }
  const double lift = scenario == "fall" ? 0.1 : 0.0;
  const double dt = argc > 5 ? std::strtod(argv[5], nullptr) : 1e-5;
  if (!(dt > 0)) {
    std::fprintf(stderr, "ledger_bed: DT must be a positive time step in seconds, got '%s'\n", argv[5]);
    return 2;
  }
  if (precision == "single") return run<dem::precision::single>(n, steps, lift, dt);
  if (precision == "double") return run<dem::precision::double_>(n, steps, lift, dt);
  if (precision == "mixed") return run<dem::precision::mixed>(n, steps, lift, dt);
  std::fprintf(stderr, "ledger_bed: precision must be single, mixed or double, got '%s'\n", precision.c_str());
  return 2;
}

template <class Precision>
int run(std::size_t n, std::uint64_t steps, double lift, double dt) {
  dem::particle_set start = bench::initial_bed(n);
  for (auto& p : start.positions) p.z += lift;
  using Sim = dem::Simulator<dem::policies<dem::shape::sphere, dem::force::hertz_mindlin, dem::integrate::velocity_verlet, Precision>,
                             dem::backend::host>;
  dem::simulation_config cfg = bench::bed_config(start);
  cfg.dt = dt;
  Sim sim(cfg);
  sim.set_log(nullptr);
  bench::setup(sim, start);
  sim.enable_energy_ledger();
  const auto t0 = std::chrono::steady_clock::now();
  for (int k = 1; k <= 10; ++k) {
    sim.step(steps / 10);
    const dem::energy::ledger l = sim.energy_ledger();
    std::printf("step %llu: released by gravity %.6e J, kinetic %.4e J, elastic %.4e J, dissipated %.6e J (normal damping %.4e, "
                "tangential %.4e, rolling %.4e, twisting %.4e), imbalance %.3e J (%.2e)\n",
                static_cast<unsigned long long>(sim.step_count()), -l.potential_change(), l.kinetic, l.elastic, l.dissipated(), l.normal_damping,
                l.tangential, l.rolling, l.twisting, l.imbalance(), l.relative_imbalance());
    std::fflush(stdout);
  }
  const dem::energy::ledger l = sim.energy_ledger();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("summary_energy: n=%u precision=%s lift=%g dt=%g steps=%llu seconds=%.1f dissipated=%.6e relative_imbalance=%.3e\n",
              sim.num_particles(), Precision::name, lift, dt, static_cast<unsigned long long>(l.steps), seconds, l.dissipated(), l.relative_imbalance());
  return 0;
}
