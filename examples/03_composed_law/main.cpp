// Composing a law from slots and swapping one: Hertz–Mindlin with constant-torque rolling
// resistance (the built-in hertz_mindlin) against the same law with the elastic-plastic
// spring-dashpot (EPSD) rolling slot and Marshall twisting. Both settle a box of spheres with
// strong rolling resistance; the constant torque cannot hold a sphere still exactly (it flips sign
// with the rolling direction), the EPSD spring can: compare the kinetic energy left.
//
//   composed_law [--n 1000] [--time 0.6]
#include <cstdio>
#include <string>

#include <dem/dem.hpp>

#include "../common/example.hpp"

namespace slot = dem::force;

// One line: the slots in order normal, damping, tangential, rolling, twisting.
struct hertz_mindlin_epsd_twist
    : slot::composed<slot::normal::hertz, slot::damping::restitution, slot::tangential::mindlin, slot::rolling::epsd,
                     slot::twisting::marshall> {
  static constexpr const char* name = "hertz_mindlin_epsd_twist";
};

template <class Force>
void settle(std::size_t n, double time, example::progress& progress) {
  const dem::simulation_config cfg{.domain = {{0, 0, 0}, {0.02, 0.02, 0.08}}, .dt = 1e-5};
  dem::Simulator<dem::policies<dem::shape::sphere, Force>, dem::backend::host> sim(cfg);
  dem::material m{"sand-like", 2500, 1e7, 0.3, 0.5, 0.5, 0.3};  // rolling friction 0.3
  const auto id = sim.add_material(m);
  sim.add_box(cfg.domain, id);
  sim.add_particles(dem::sample::cubic_lattice({{0, 0, 0.005}, cfg.domain.hi},
                                               {.radius = 1e-3, .radius_spread = 0.1, .jitter = 3e-5, .max_count = n}),
                    id);
  double peak = 0;
  const int frames = 12;
  std::printf("%s\n", Force::name);
  for (int f = 1; f <= frames; ++f) {
    example::advance(sim, time / frames, progress);
    const double ke = sim.kinetic_energy();
    if (ke > peak) peak = ke;
    std::printf("  t = %.2f s  kinetic energy %.3e J (%.1e of peak)\n", sim.time(), ke, ke / peak);
  }
  std::printf("summary: law=%s n=%u kinetic_energy=%.4e relative=%.3e\n", Force::name, sim.num_particles(), sim.kinetic_energy(),
              sim.kinetic_energy() / peak);
}

int main(int argc, char** argv) {
  example::flags f("composed_law", "[--n 1000] [--time 0.6]", argc, argv);
  const std::size_t n = f.count("--n", 1000, 1, 1000000);
  const double time = f.number("--time", 0.6, 1e-5, 1e4);
  f.done();
  return example::guarded_main("composed_law", [&] {
    example::progress progress(2 * 12 * example::steps_for(time / 12, 1e-5));
    settle<dem::force::hertz_mindlin>(n, time, progress);
    settle<hertz_mindlin_epsd_twist>(n, time, progress);
    return 0;
  });
}
