// Gravity packing of 2000 monodisperse spheres: the bed comes to rest (kinetic energy six orders
// below its peak) at a random-packing solid fraction (0.54–0.64) in its interior.
#include <doctest/doctest.h>

#include <algorithm>

#include "support/scenarios.hpp"

using namespace dem_test;

TEST_CASE("gravity packing of 2000 spheres settles to a random packing") {
  const double r = 1e-3, w = 0.024;
  dem::simulation_config cfg;
  cfg.domain = {{0, 0, 0}, {w, w, 0.08}};
  cfg.dt = 1e-5;
  sim_t<dem::force::hertz_mindlin, dem::precision::single> sim(cfg);
  // No rolling resistance: the constant-torque model keeps a residual jitter of ~1e-6 of the peak
  // kinetic energy in dense packings (see force/slots.hpp); the settling criterion is about the
  // contact laws and the integrator.
  const auto m = sim.add_material({"glass beads", 2500, 1e7, 0.3, 0.5, 0.5, 0.0});
  sim.add_box(cfg.domain, m);
  dem::sample::lattice_options o;
  o.radius = r;
  o.spacing = 2.3e-3;
  o.jitter = 1.5e-4;
  o.max_count = 2000;
  const dem::particle_set s = dem::sample::cubic_lattice({{0, 0, 0.002}, {w, w, 0.08}}, o);
  REQUIRE(s.size() == 2000);
  sim.add_particles(s, m);

  double peak = 0, last = 0;
  for (int block = 0; block < 150 && (peak == 0 || last > 1e-6 * peak); ++block) {
    sim.advance(0.01);
    last = sim.kinetic_energy();
    peak = std::max(peak, last);
  }
  MESSAGE("settled at t = " << sim.time() << " s, kinetic energy " << last << " J (peak " << peak << " J)");
  CHECK(sim.num_lost() == 0);
  CHECK(last < 1e-6 * peak);
  const dem::io::snapshot snap = sim.snapshot();
  const double h = dem::analysis::bed_height(snap);
  const double margin = 4 * r;
  REQUIRE(h > 3 * margin);
  const double phi = dem::analysis::packing_fraction(snap, {{margin, margin, margin}, {w - margin, w - margin, h - margin}});
  MESSAGE("bed height " << h << " m, interior packing fraction " << phi);
  CHECK(phi > 0.54);
  CHECK(phi < 0.64);
}
