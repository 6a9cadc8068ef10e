// Deferred contact detection (config.deferred_detection, sim/deferred_detection.hpp): lists built
// from a snapshot and put in service later give the same bits as a rebuild before every step — on a
// dense, moving packing (with a free-body lid that the particles' load drives), in a turning drum
// with a lifter, with lists applied a fixed number of steps after their snapshot (1, 3, 17: the last
// longer than a list lasts, so none is started and the lists run out) and with the build thread (all
// steps in one call, or a few per call). The guard: a list that runs out before the next is ready
// makes a synchronous rebuild, counted and logged. Builds in flight or finished when a rebuild is
// requested are dropped, never applied. (tests/contact/test_local_validity.cpp: flyers through walls,
// a mesh and a disabled family pair, and a list that comes after its particles moved too far.)
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "dem/coord/voxel.hpp"
#include "support/scenarios.hpp"

using namespace dem_test;
using dem::vec3d;

#if defined(DEM_TEST_BACKEND_CUDA)
// Not built for backend::cuda yet (its build thread needs per-thread default streams): refused.
TEST_CASE("deferred detection: refused on backend::cuda, naming it") {
  using Sim = sim_t<dem::force::hertz_mindlin, dem::precision::single>;
  dem::simulation_config cfg = zero_g_config(0.05);
  cfg.deferred_detection = true;
  CHECK_THROWS_WITH_AS(Sim{cfg}, doctest::Contains("config.deferred_detection is not available on backend::cuda"), std::invalid_argument);
}
#else
namespace {

struct outcome {
  std::vector<vec3d> x, v, w;
  std::uint64_t rebuilds = 0;
  dem::sim::deferred_stats deferred;
};

bool same_bits(const std::vector<vec3d>& a, const std::vector<vec3d>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(vec3d)) == 0;
}

void check_same(const outcome& a, const outcome& b) {
  CHECK(same_bits(a.x, b.x));
  CHECK(same_bits(a.v, b.v));
  CHECK(same_bits(a.w, b.w));
}

// How a run detects contacts.
struct schedule {
  bool eager = false;           // a rebuild requested before every step
  bool deferred = false;        // config.deferred_detection
  std::uint32_t latency = 0;    // config.deferred_fixed_latency
  std::uint32_t per_call = 0;   // steps per Simulator::step call (0: all in one)
  std::uint32_t max_overrun = 256;
  int request_every = 0;        // > 0: request_rebuild() every so many steps (per_call must divide it)
  bool lid = false;             // a free-body lid falls onto the packing (its motion integrates the particles' load)
};

template <class Sim>
outcome observe(Sim& s) {
  outcome o;
  o.x = s.positions();
  o.v = s.velocities();
  o.w = s.angular_velocities();
  o.rebuilds = s.num_rebuilds();
  o.deferred = s.deferred_statistics();
  return o;
}

template <class Sim>
void run_steps(Sim& s, const schedule& how, int steps) {
  if (!how.eager && how.per_call == 0 && how.request_every == 0) return s.step(static_cast<std::uint64_t>(steps));
  const int chunk = how.eager ? 1 : static_cast<int>(how.per_call ? how.per_call : std::uint32_t(steps));
  for (int k = 0; k < steps; k += chunk) {
    if (how.eager || (how.request_every && k > 0 && k % how.request_every == 0)) s.request_rebuild();
    s.step(static_cast<std::uint64_t>(std::min(chunk, steps - k)));
  }
}

dem::simulation_config with(dem::simulation_config cfg, const schedule& how) {
  cfg.deferred_detection = how.deferred;
  cfg.deferred_fixed_latency = how.latency;
  cfg.deferred_threads = 1;
  cfg.max_overrun = how.max_overrun;
  return cfg;
}

// 3,000 spheres on a jittered lattice thrown about in a box (the reproducibility test's packing):
// over 2048 particles and pairs, so the host's loops run in parallel.
// (Under the sanitizers at -O0, 300 spheres and 120 steps: the full runs take minutes there.)
template <class Sim>
outcome packing(const schedule& how, int steps = dem_test::sanitized ? 120 : 300) {
  const double w = 0.03;
  dem::simulation_config cfg;
  cfg.domain = {{0, 0, 0}, {w, w, 0.06}};
  cfg.dt = 1e-5;
  cfg.contact_margin = 1e-4;
  Sim sim(with(cfg, how));
  sim.set_log(nullptr);
  const auto m = sim.add_material({"beads", 2500, 1e7, 0.3, 0.5, 0.5, 0.05});
  sim.add_box(cfg.domain, m);
  dem::sample::lattice_options o;
  o.radius = 1e-3;
  o.radius_spread = 0.05;
  o.spacing = 2.2e-3;
  o.jitter = 5e-5;
  o.max_count = dem_test::sanitized ? 300 : 3000;
  dem::particle_set s = dem::sample::cubic_lattice(cfg.domain, o);
  s.velocities.resize(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) s.velocities[i] = {0.3 * std::sin(3.0 * i), 0.3 * std::cos(5.0 * i), -0.3};
  sim.add_particles(s, m);
  if (how.lid) {  // 10 g, thrown down at 0.5 m/s from 0.2 mm above the lattice
    double top = 0;
    for (std::size_t i = 0; i < s.size(); ++i) top = std::max(top, s.positions[i].z + s.radii[i]);
    const auto lid = sim.add_plate({0.5 * w, 0.5 * w, top + 2e-4}, {0, 0, -1}, {1, 0, 0}, 0.5 * w - 1e-4, 0.5 * w - 1e-4, m, "lid");
    dem::boundary::free_body fb;
    fb.mass = 0.01;
    fb.velocity = {0, 0, -0.5};
    sim.set_motion(lid, fb);
  }
  run_steps(sim, how, steps);
  outcome out = observe(sim);
  if (how.lid) out.x.push_back(vec3d{0, 0, sim.free_body_state(sim.num_boundaries() - 1).displacement.z});
  return out;
}

// A drum turning at 4 rad/s with a plate-like lifter mesh inside, charged with falling spheres.
template <class Sim>
outcome drum(const schedule& how, int steps) {
  namespace bd = dem::boundary;
  dem::simulation_config cfg;
  cfg.domain = {{-0.03, -0.03, -0.03}, {0.03, 0.03, 0.03}};
  cfg.dt = 5e-6;
  cfg.boundary_margin = 4e-4;
  Sim s(with(cfg, how));
  s.set_log(nullptr);
  const auto mat = s.add_material({"glass", 2500, 1e8, 0.3, 0.5, 0.4, 0.0});
  bd::axisymmetric shell;
  shell.base = {0, -0.01, 0};
  shell.axis = {0, 1, 0};
  shell.length = 0.02;
  shell.radius = 0.02;
  shell.cap_base = shell.cap_top = true;
  const auto b = s.add_cylinder(shell, mat, "drum");
  s.set_motion(b, bd::constant_velocity{{0, 0, 0}, {0, 4, 0}, {0, 0, 0}});
  bd::triangle_mesh lifter;  // a plate across the lower part of the drum, turning with it
  lifter.vertices = {{-0.015, -0.009, -0.012}, {0.015, -0.009, -0.012}, {0.015, 0.009, -0.012}, {-0.015, 0.009, -0.012}};
  lifter.triangles = {{0, 1, 2}, {0, 2, 3}};
  const auto plate = s.add_mesh(lifter, mat, "lifter");
  s.set_motion(plate, bd::constant_velocity{{0, 0, 0}, {0, 4, 0}, {0, 0, 0}});
  dem::sample::lattice_options o;
  o.radius = 1e-3;
  o.max_count = 400;
  dem::particle_set set = dem::sample::cubic_lattice({{-0.012, -0.009, -0.010}, {0.012, 0.009, 0.004}}, o);
  set.velocities.assign(set.size(), vec3d{0, 0, -0.5});
  s.add_particles(set, mat);
  run_steps(s, how, steps);
  return observe(s);
}

template <class Precision, class Coord>
struct combo {
  using sim = sim_t<dem::force::hertz_mindlin, Precision, dem::integrate::velocity_verlet, Coord>;
};

}  // namespace

TEST_CASE_TEMPLATE("deferred detection: a moving packing gives the bits of a rebuild before every step", C,
                   combo<dem::precision::single, dem::coord::floating>, combo<dem::precision::single, dem::coord::voxel<16>>) {
  using Sim = typename C::sim;
  const outcome eager = packing<Sim>({.eager = true});
  const outcome plain = packing<Sim>({});
  const outcome one = packing<Sim>({.deferred = true, .latency = 1, .max_overrun = 0});
  const outcome three = packing<Sim>({.deferred = true, .latency = 3, .max_overrun = 0});
  const outcome learnt = packing<Sim>({.deferred = true, .latency = 3});  // under local validity: the lists' life learnt
  const outcome late = packing<Sim>({.deferred = true, .latency = 17, .max_overrun = 0});
  const outcome threaded = packing<Sim>({.deferred = true});
  const outcome stepwise = packing<Sim>({.deferred = true, .per_call = 7});

  if (!dem_test::sanitized) REQUIRE(eager.x.size() >= 2048);
  CHECK(plain.rebuilds > 2);  // the packing moves: lists are needed again and again
  for (const outcome* o : {&plain, &one, &three, &learnt, &late, &threaded, &stepwise}) check_same(eager, *o);

  // Lists 1 and 3 steps late serve: built from snapshots and put in service, none dropped, and
  // under the plain criterion (whose rate predicts when a list runs out) every build after the
  // first is a deferred one.
  CHECK(one.deferred.applied > 2);
  CHECK(three.deferred.applied > 2);
  CHECK(one.deferred.discarded == 0);
  CHECK(three.deferred.discarded == 0);
  CHECK(one.deferred.guard_rebuilds == 0);
  CHECK(three.deferred.guard_rebuilds == 0);
  CHECK(one.rebuilds == one.deferred.applied + one.deferred.sync_rebuilds);
  CHECK(one.deferred.sync_rebuilds == 1);  // the first
  CHECK(three.deferred.latency_steps == doctest::Approx(3.0));
  CHECK(learnt.deferred.applied > 2);
  // 17 steps late a list would have used up its margin (0.05 mm at about 3 um a step): none is
  // started, and the lists run out into synchronous rebuilds.
  CHECK(late.deferred.guard_rebuilds > 0);
  CHECK(late.deferred.short_lists == late.deferred.guard_rebuilds);
  CHECK(late.deferred.applied == 0);
  // The build thread: lists applied, and without the stepping waiting at each step.
  CHECK(threaded.deferred.applied > 0);
  CHECK(threaded.deferred.launched - threaded.deferred.applied - threaded.deferred.discarded <= 1);  // (one may be left pending)
  CHECK(stepwise.deferred.applied > 0);
  CHECK(plain.deferred.launched == 0);
  MESSAGE("packing: " << plain.rebuilds << " rebuilds when due; deferred threaded: " << threaded.deferred.applied << " applied, "
                      << threaded.deferred.guard_rebuilds << " guard rebuilds, latency " << threaded.deferred.latency_steps << " steps, waited "
                      << threaded.deferred.wait_seconds << " s");
}

TEST_CASE("deferred detection: a free-body lid driven by the particles' load" * doctest::skip(dem_test::sanitized)) {  // (the release pass runs it: CI's time under the sanitizers is short)
  using Sim = sim_t<dem::force::hertz_mindlin, dem::precision::single>;
  // The lid's motion integrates the load of the last evaluation: a list put in service must not
  // lose it (the apply comes after the boundaries moved).
  const outcome eager = packing<Sim>({.eager = true, .lid = true});
  const outcome fixed = packing<Sim>({.deferred = true, .latency = 3, .max_overrun = 0, .lid = true});
  const outcome threaded = packing<Sim>({.deferred = true, .lid = true});
  check_same(eager, fixed);
  check_same(eager, threaded);
  CHECK(fixed.deferred.applied > 2);
  CHECK(eager.x.back().z < -1e-4);  // the lid came down, onto the packing:
  CHECK(eager.x.back().z > -0.5 * 300 * 1e-5 - 0.5 * 9.81 * 9e-6 + 1e-5);  // and was slowed by it (its free flight: 1.54 mm)
}

TEST_CASE("deferred detection: a turning drum with a lifter gives the bits of a rebuild before every step" * doctest::skip(dem_test::sanitized)) {  // (the release pass runs it: CI's time under the sanitizers is short)
  using Sim = sim_t<dem::force::hertz_mindlin, dem::precision::single>;
  const int steps = 3000;  // (skipped under the sanitizers)
  const outcome eager = drum<Sim>({.eager = true}, steps);
  const outcome fixed = drum<Sim>({.deferred = true, .latency = 4, .max_overrun = 0}, steps);
  const outcome learnt = drum<Sim>({.deferred = true, .latency = 4}, steps);
  const outcome threaded = drum<Sim>({.deferred = true}, steps);
  check_same(eager, fixed);
  check_same(eager, learnt);
  check_same(eager, threaded);
  CHECK(learnt.deferred.applied > 2);
  CHECK(fixed.deferred.applied > 2);
  CHECK(fixed.deferred.discarded == 0);
  CHECK(threaded.deferred.applied > 0);
}

TEST_CASE("deferred detection: builds in flight when a rebuild is requested are dropped; the guard's log line") {
  using Sim = sim_t<dem::force::hertz_mindlin, dem::precision::single>;
  const outcome eager = packing<Sim>({.eager = true});
  // A rebuild requested every 10 steps, a step call at a time: builds started in between are dropped.
  const outcome requested = packing<Sim>({.deferred = true, .latency = 6, .per_call = 1, .request_every = 10});
  const outcome threaded = packing<Sim>({.deferred = true, .per_call = 5, .request_every = 10});
  check_same(eager, requested);
  check_same(eager, threaded);
  CHECK(requested.deferred.discarded > 0);
  CHECK(requested.deferred.sync_rebuilds >= (dem_test::sanitized ? 12u : 30u));

  // The guard names itself in the log.
  dem::simulation_config cfg = zero_g_config(0.05);
  cfg.dt = 1e-6;
  cfg.contact_margin = 1e-4;
  cfg.max_overrun = 0;
  cfg.deferred_detection = true;
  cfg.deferred_fixed_latency = 40;
  Sim s(cfg);
  std::ostringstream log;
  s.set_log(&log);
  const auto m = s.add_material({"glass", 2500, 1e8, 0.3, 0.5, 0.4, 0.0});
  dem::particle_set p;
  p.positions = {{0, 0, 0}, {0.01, 0, 0}};
  p.velocities = {{5, 0, 0}, {0, 0, 0}};  // 5 um a step: 10 steps use up half the margin
  p.radii = {1e-3, 1e-3};
  s.add_particles(p, m);
  s.step(100);
  const dem::sim::deferred_stats d = s.deferred_statistics();
  CHECK(d.guard_rebuilds > 0);
  CHECK(d.short_lists > 0);  // lists of 10 steps, builds 40 steps late: none started
  CHECK(log.str().find("used up its contact margin before the deferred list was ready") != std::string::npos);
}

TEST_CASE("deferred detection: refused for deformable spheres") {
  using Sim = dem::Simulator<dem::policies<dem::shape::deformable_sphere, dem::force::hertz_mindlin>, test_backend>;
  dem::simulation_config cfg = zero_g_config(0.05);
  cfg.deferred_detection = true;
  CHECK_THROWS_WITH_AS(Sim{cfg}, doctest::Contains("config.deferred_detection is not available for deformable spheres"), std::invalid_argument);
}
#endif
