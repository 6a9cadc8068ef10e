#pragma once
// Small scenarios shared by the physics tests.
#include <algorithm>
#include <cmath>

#include "dem/dem.hpp"
#include "support/test_backend.hpp"

namespace dem_test {

template <class Force, class Precision = dem::precision::double_, class Integrator = dem::integrate::velocity_verlet,
          class Coord = dem::coord::floating>
using sim_t = dem::Simulator<dem::policies<dem::shape::sphere, Force, Integrator, Precision, Coord>, test_backend>;

inline dem::simulation_config zero_g_config(double half_width = 1.0) {
  dem::simulation_config c;
  c.domain = {{-half_width, -half_width, -half_width}, {half_width, half_width, half_width}};
  c.gravity = {0, 0, 0};
  return c;
}

// Head-on collision of two equal spheres (along x) or of one sphere with the plane z = 0.
struct impact_record {
  double rebound_ratio = 0;   // restitution measured from the velocities after the contact
  double peak_overlap = 0;
  double peak_force = 0;
  double contact_time = 0;
};

// Where an impact happens: by default at the origin of a box of half-width 1 m + 20 radii.
struct impact_placement {
  bool custom = false;
  dem::aabb domain;
  dem::vec3d centre{0, 0, 0};       // contact point (sphere pair) or the plane's point (wall)
  int max_steps = 2000000;
  bool allow_initial_overlap = false;
};

template <class Sim>
impact_record run_impact(const dem::material& mat, double radius, double approach_speed, bool with_wall,
                         double dt_fraction = 1.0 / 200, const impact_placement& where = {}) {
  dem::simulation_config cfg = zero_g_config(1.0 + 20 * radius);
  if (where.custom) cfg.domain = where.domain;
  cfg.allow_initial_overlap = where.allow_initial_overlap;
  const dem::vec3d o = where.centre;
  Sim probe(cfg);
  const auto m = probe.add_material(mat);
  dem::particle_set s;
  const double gap = 1e-3 * radius;
  if (with_wall) {
    s.positions = {{o.x, o.y, o.z + radius + gap}};
    s.radii = {radius};
    s.velocities = {{0, 0, -approach_speed}};
  } else {
    s.positions = {{o.x - radius - gap / 2, o.y, o.z}, {o.x + radius + gap / 2, o.y, o.z}};
    s.radii = {radius, radius};
    s.velocities = {{approach_speed / 2, 0, 0}, {-approach_speed / 2, 0, 0}};
  }
  probe.add_particles(s, m);
  cfg.dt = probe.stable_time_step() * dt_fraction;
  Sim sim(cfg);
  const auto mm = sim.add_material(mat);
  if (with_wall) {
    dem::material wall = mat;
    wall.name = "rigid wall";
    wall.youngs_modulus = mat.youngs_modulus * 1e12;  // rigid: E* -> E / (1 - v^2) of the sphere
    const auto w = sim.add_material(wall);
    sim.materials().set_pair(mm, w, {.restitution = mat.restitution, .friction = mat.friction});
    sim.add_plane(o, {0, 0, 1}, w);
  }
  sim.add_particles(s, mm);
  impact_record r;
  bool touched = false;
  for (int step = 0; step < where.max_steps; ++step) {
    sim.step();
    const auto p = sim.positions();
    const double overlap = with_wall ? radius - (p[0].z - o.z) : 2 * radius - (p[1].x - p[0].x);
    const double f = std::abs(with_wall ? sim.forces()[0].z : sim.forces()[0].x);
    if (overlap > 0) {
      touched = true;
      r.contact_time += cfg.dt;
      r.peak_overlap = std::max(r.peak_overlap, overlap);
      r.peak_force = std::max(r.peak_force, f);
    } else if (touched) {
      break;
    }
  }
  const auto v = sim.velocities();
  r.rebound_ratio = with_wall ? v[0].z / approach_speed : (v[1].x - v[0].x) / approach_speed;
  return r;
}

}  // namespace dem_test
