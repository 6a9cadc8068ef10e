// Two spheres collide head-on; prints their velocities after the contact.
#include <cstdio>

#include <dem/dem.hpp>

int main() {
  dem::simulation_config cfg;
  cfg.domain = {{-0.1, -0.1, -0.1}, {0.1, 0.1, 0.1}};
  cfg.gravity = {0, 0, 0};
  cfg.dt = 1e-7;
  dem::Simulator<> sim(cfg);
  const auto m = sim.add_material({"glass", 2800, 48e9, 0.2, 0.5, 0.3, 0.0});
  dem::particle_set s;
  s.positions = {{-0.0101, 0, 0}, {0.0101, 0, 0}};
  s.radii = {0.01, 0.01};
  s.velocities = {{1, 0, 0}, {-1, 0, 0}};
  sim.add_particles(s, m);
  sim.advance(2e-4);
  const auto v = sim.velocities();
  std::printf("consumer: v0 = %.4f, v1 = %.4f\n", v[0].x, v[1].x);
  return (v[0].x < -0.45 && v[0].x > -0.55) ? 0 : 1;
}
