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

// For test laws that change one part of Hertz–Mindlin: the law derives from
// hertz_mindlin_based<Real> (base, params, history, make_params) and the policy from
// hertz_mindlin_time_step.
template <class Real>
struct hertz_mindlin_based {
  using base = typename dem::force::hertz_mindlin::template law<Real>;
  using params = typename base::params;
  using history = typename base::history;
  static params make_params(const dem::material_pair& p) { return base::make_params(p); }
};
struct hertz_mindlin_time_step {
  static double stable_time_step(const dem::material& m, const dem::material_pair& mp, double r, double mass) {
    return dem::force::hertz_mindlin::stable_time_step(m, mp, r, mass);
  }
};

// An n x n x n simple cubic lattice of spheres of radius r from the origin, neighbours `overlap` apart
// closer than touching: every particle presses on its 3 (corner) to 6 (interior) neighbours.
inline dem::particle_set pressed_cubic_lattice(int n, double r, double overlap) {
  const double a = 2 * r - overlap;
  dem::particle_set p;
  for (int k = 0; k < n; ++k)
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) {
        p.positions.push_back({i * a, j * a, k * a});
        p.radii.push_back(r);
      }
  return p;
}

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

// 60 polydisperse spheres with scattered velocities in an elastic (e = 1), frictionless box
// (0.02 x 0.02 x 0.03 m): the energy-conservation scenario. The config's domain must be `box`.
template <class Sim>
void fill_elastic_box(Sim& sim, const dem::aabb& box) {
  const auto m = sim.add_material({"elastic", 2500, 1e7, 0.3, 1.0, 0.0, 0.0});
  sim.add_box(box, m);
  dem::sample::lattice_options o;
  o.radius = 1e-3;
  o.radius_spread = 0.2;
  o.spacing = 3e-3;
  o.jitter = 2e-4;
  o.max_count = 60;
  dem::particle_set s = dem::sample::cubic_lattice({{box.lo.x, box.lo.y, box.lo.z + 0.005}, box.hi}, o);
  s.velocities.resize(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) s.velocities[i] = {0.3 * std::sin(1.0 * i), 0.3 * std::cos(2.0 * i), -0.2};
  sim.add_particles(s, m);
}

// A sphere (r = 5 mm) launched sliding at v0 on a plane with friction mu: velocities at 0.2 and 0.7
// of the analytic sliding time 2 v0 / (7 mu g), and v, omega r after twice that time.
struct sliding_record {
  double t1, t2, v1, v2, v_end, w_end_r, settled_vz;
};

template <class Sim>
sliding_record run_sliding(double v0, double mu) {
  const double r = 5e-3, g = 9.81;
  dem::simulation_config cfg;
  cfg.domain = {{-1, -1, -0.1}, {2, 1, 1}};
  cfg.gravity = {0, 0, -g};
  cfg.dt = 2e-6;
  Sim sim(cfg);
  const auto m = sim.add_material({"m", 2500, 1e8, 0.3, 0.5, mu, 0.0});
  sim.add_plane({0, 0, 0}, {0, 0, 1}, m);
  dem::particle_set s;
  s.positions = {{0, 0, r * 0.9999}};
  s.radii = {r};
  sim.add_particles(s, m);
  sim.advance(0.01);  // settle onto the plane
  sliding_record rec{};
  rec.settled_vz = sim.velocities()[0].z;
  sim.set_velocities({{v0, 0, 0}});
  const double t_roll = 2.0 * v0 / (7.0 * mu * g);  // end of sliding
  rec.t1 = 0.2 * t_roll;
  rec.t2 = 0.7 * t_roll;
  sim.advance(rec.t1);
  rec.v1 = sim.velocities()[0].x;
  sim.advance(rec.t2 - rec.t1);
  rec.v2 = sim.velocities()[0].x;
  sim.advance(t_roll);
  rec.v_end = sim.velocities()[0].x;
  rec.w_end_r = sim.angular_velocities()[0].y * r;
  return rec;
}

}  // namespace dem_test
