// Checkpoints: N steps + save + load + M steps equals N + M steps bit for bit (spheres with every
// law that keeps history, user properties, clumps, polyhedra, a restart just before a rebuild);
// a checkpoint moves between the host and this build's backend; bad files and other policy
// combinations are refused with the reason; a failed load leaves the simulator as it was.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "dem/backend/host.hpp"
#include "dem/coord/voxel.hpp"
#include "dem/shape/clump.hpp"
#include "dem/shape/polyhedron.hpp"
#include "support/scenarios.hpp"

using namespace dem_test;

namespace {

std::string temp_path(const std::string& name) {
  return std::string("checkpoint_test_") + test_backend::name + "_" + name + ".ckpt";
}

// Everything a run's continuation depends on that the public API shows, by id.
template <class Sim>
struct observed {
  std::vector<dem::vec3d> x, v, w, f, t;
  std::uint64_t step, rebuilds, listed;
  double time;
  explicit observed(Sim& s)
      : x(s.positions()), v(s.velocities()), w(s.angular_velocities()), f(s.forces()), t(s.torques()), step(s.step_count()),
        rebuilds(s.num_rebuilds()), listed(s.num_listed_pairs()), time(s.time()) {}
};

template <class Sim>
void check_same_bits(Sim& a, Sim& b) {
  const observed<Sim> p(a), q(b);
  CHECK(p.step == q.step);
  CHECK(p.time == q.time);
  CHECK(p.rebuilds == q.rebuilds);
  CHECK(p.listed == q.listed);
  REQUIRE(p.x.size() == q.x.size());
  std::size_t differ = 0;
  for (std::size_t i = 0; i < p.x.size(); ++i)
    for (int k = 0; k < 3; ++k)
      differ += (p.x[i][k] != q.x[i][k]) + (p.v[i][k] != q.v[i][k]) + (p.w[i][k] != q.w[i][k]) + (p.f[i][k] != q.f[i][k]) +
                (p.t[i][k] != q.t[i][k]);
  CHECK(differ == 0);
}

// A box of spheres falling onto each other: many contacts forming and ending, sliding, rolling.
template <class Sim>
void fill_spheres(Sim& s, std::size_t n, const dem::material& mat) {
  const auto m = s.add_material(mat);
  s.add_box(s.config().domain, m);
  dem::sample::lattice_options o;
  o.radius = 1e-3;
  o.radius_spread = 0.2;
  o.jitter = 2e-4;
  o.max_count = n;
  s.add_particles(dem::sample::cubic_lattice(s.config().domain, o), m);
}

dem::simulation_config sphere_box() {
  dem::simulation_config c;
  c.domain = {{0, 0, 0}, {0.012, 0.012, 0.03}};
  c.dt = 1e-5;
  return c;
}

// Runs the reference for n1 + n2 steps, and a second simulation for n1 steps, saved, loaded into
// a third, which runs n2 steps: the third must equal the reference bit for bit.
template <class Sim, class Setup>
void restart_equals_straight_run(Setup setup, const dem::simulation_config& cfg, std::uint64_t n1, std::uint64_t n2, const std::string& name) {
  if (sanitized) n2 = std::min<std::uint64_t>(n2, 300);  // at -O0 under ASan: the restart itself is what they check
  Sim straight(cfg), first(cfg);
  setup(straight);
  setup(first);
  straight.step(n1 + n2);
  first.step(n1);
  const std::string path = temp_path(name);
  first.save_checkpoint(path);
  Sim resumed = Sim::from_checkpoint(path);
  resumed.step(n2);
  check_same_bits(straight, resumed);
  // And the one that wrote it goes on the same way.
  first.step(n2);
  check_same_bits(straight, first);
  std::remove(path.c_str());
}

// A law that writes a per-particle property: the tally must continue across a restart.
struct tally {
  double work;
  DEM_HD tally& operator+=(const tally& o) { work += o.work; return *this; }
};
struct hertz_mindlin_tally : hertz_mindlin_time_step {
  static constexpr const char* name = "hertz_mindlin_tally";
  template <class Real>
  struct law : hertz_mindlin_based<Real> {
    using typename hertz_mindlin_based<Real>::base;
    using typename hertz_mindlin_based<Real>::params;
    using typename hertz_mindlin_based<Real>::history;
    using owner_wildcards = tally;
    static constexpr bool writes_owner_wildcards = true;
    DEM_HD dem::force::contact_force<Real> operator()(const dem::force::contact<Real>& c, const params& p, history& h,
                                                      dem::force::wildcards<tally, dem::force::no_wildcards>& w) const {
      const dem::force::contact_force<Real> f = base{}(c, p, h);
      const double e = static_cast<double>(dot(f.force, c.v_rel)) * c.dt;
      w.owner_increment_a.work = e;
      w.owner_increment_b.work = e;
      return f;
    }
  };
};

}  // namespace

TEST_CASE("checkpoint: spheres restart bit for bit, for every law with history") {
  const dem::material glass{"glass", 2500, 1e7, 0.3, 0.5, 0.5, 0.1};
  auto setup = [&](auto& s) { fill_spheres(s, 300, glass); };
  restart_equals_straight_run<sim_t<dem::force::hertz_mindlin>>(setup, sphere_box(), 1500, 1500, "hertz_mindlin");
  restart_equals_straight_run<sim_t<dem::force::hertz_mindlin_epsd>>(setup, sphere_box(), 1500, 1500, "epsd");
  restart_equals_straight_run<sim_t<dem::force::linear_spring_dashpot>>(setup, sphere_box(), 1500, 1500, "linear");
  dem::material sticky = glass;
  sticky.work_of_adhesion = 0.05;
  sticky.cohesion_range = 1e-4;
  restart_equals_straight_run<sim_t<dem::force::hertz_mindlin_cohesive>>([&](auto& s) { fill_spheres(s, 300, sticky); }, sphere_box(), 1500,
                                                                        1500, "cohesive");
  // Single precision and the voxel coordinates (a rounding carry per particle) too.
  restart_equals_straight_run<sim_t<dem::force::hertz_mindlin, dem::precision::single>>(setup, sphere_box(), 1500, 1000, "single");
  restart_equals_straight_run<sim_t<dem::force::hertz_mindlin, dem::precision::single, dem::integrate::velocity_verlet, dem::coord::voxel<16>>>(
      setup, sphere_box(), 1500, 1000, "voxel");
}

TEST_CASE("checkpoint: user properties written by the law continue across a restart") {
  using S = sim_t<hertz_mindlin_tally>;
  const dem::material glass{"glass", 2500, 1e7, 0.3, 0.5, 0.5, 0.0};
  S straight(sphere_box()), first(sphere_box());
  fill_spheres(straight, 200, glass);
  fill_spheres(first, 200, glass);
  straight.step(2400);
  first.step(1200);
  first.save_checkpoint(temp_path("tally"));
  S resumed = S::from_checkpoint(temp_path("tally"));
  resumed.step(1200);
  const auto a = straight.owner_wildcards(), b = resumed.owner_wildcards();
  REQUIRE(a.size() == b.size());
  double total = 0;
  std::size_t differ = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    differ += a[i].work != b[i].work;
    total += std::abs(a[i].work);
  }
  CHECK(differ == 0);
  CHECK(total > 0);
  check_same_bits(straight, resumed);
  std::remove(temp_path("tally").c_str());
}

TEST_CASE("checkpoint: a restart just before a contact-list rebuild") {
  using S = sim_t<dem::force::hertz_mindlin>;
  const dem::material glass{"glass", 2500, 1e7, 0.3, 0.5, 0.5, 0.0};
  // Find a step after which the next step rebuilds the list.
  S probe(sphere_box());
  fill_spheres(probe, 300, glass);
  probe.step(1000);
  std::uint64_t before = 0;
  for (int k = 0; k < 2000; ++k) {
    const std::uint64_t r = probe.num_rebuilds();
    probe.step(1);
    if (probe.num_rebuilds() != r) {
      before = probe.step_count() - 1;
      break;
    }
  }
  REQUIRE(before > 0);
  restart_equals_straight_run<S>([&](auto& s) { fill_spheres(s, 300, glass); }, sphere_box(), before, 500, "before_rebuild");
  // And a checkpoint of a simulator whose list is invalid (particles just added): rebuilt on load's first step.
  S straight(sphere_box()), first(sphere_box());
  fill_spheres(straight, 300, glass);
  fill_spheres(first, 300, glass);
  first.save_checkpoint(temp_path("unprepared"));  // before the first step: not even prepared
  S resumed = S::from_checkpoint(temp_path("unprepared"));
  straight.step(800);
  resumed.step(800);
  check_same_bits(straight, resumed);
  std::remove(temp_path("unprepared").c_str());
}

// Saved while the list is invalid, the history goes into the file by the pairs' ids and comes back
// as the list the next build carries it from (sim/checkpoint.hpp, load_history_keys): after a
// rebuild request, and after particles were added (stored after those the list was built for).
TEST_CASE("checkpoint: saved with the contact list invalid, the history is carried on as in a run without the restart") {
  using S = sim_t<dem::force::hertz_mindlin>;
  const dem::material glass{"glass", 2500, 1e7, 0.3, 0.5, 0.5, 0.0};
  const std::uint64_t n1 = 5000, n2 = sanitized ? 200 : 600;
  auto add_two = [](S& s) {
    dem::particle_set p;
    p.positions = {{0.004, 0.004, 0.027}, {0.008, 0.007, 0.027}};
    p.radii = {1e-3, 1e-3};
    s.add_particles(p, dem::material_id{0});
  };
  S straight(sphere_box()), first(sphere_box());
  fill_spheres(straight, 300, glass);
  fill_spheres(first, 300, glass);
  straight.step(n1);
  first.step(n1);
  REQUIRE(first.num_touching_pairs() > 20);  // history to carry (the first grains have landed)
  for (const bool add : {false, true}) {  // one after the other, on the same pair of runs
    CAPTURE(add);
    for (S* s : {&straight, &first}) {
      if (add) add_two(*s);
      else s->request_rebuild();
    }
    const std::string path = temp_path("invalid_list");
    first.save_checkpoint(path);
    S resumed = S::from_checkpoint(path);
    straight.step(n2);
    resumed.step(n2);
    first.step(n2);
    check_same_bits(straight, resumed);
    check_same_bits(straight, first);
    std::remove(path.c_str());
  }
}

TEST_CASE("checkpoint: clumps and polyhedra restart bit for bit") {
  using clump_sim = dem::Simulator<dem::policies<dem::shape::clump<3>, dem::force::hertz_mindlin, dem::integrate::velocity_verlet,
                                                 dem::precision::double_>,
                                   test_backend>;
  using poly_sim = dem::Simulator<dem::policies<dem::shape::polyhedron<8>, dem::force::hertz_mindlin, dem::integrate::velocity_verlet,
                                                dem::precision::double_>,
                                  test_backend>;
  dem::simulation_config cfg;
  cfg.domain = {{-0.02, -0.02, 0}, {0.02, 0.02, 0.06}};
  cfg.dt = 1e-5;
  auto bodies = [](std::size_t n, double spacing) {
    dem::particle_set s;
    std::vector<dem::quatd> q;
    std::mt19937_64 rng(5);
    std::uniform_real_distribution<double> u(-1, 1);
    for (std::size_t k = 0; k < n; ++k) {
      s.positions.push_back({-0.0135 + spacing * (k % 4), -0.0135 + spacing * ((k / 4) % 4), 0.006 + spacing * (k / 16)});
      q.push_back(dem::normalized(dem::quatd{u(rng), u(rng), u(rng), u(rng)}));
    }
    return std::pair{s, q};
  };
  const dem::material m{"m", 2500, 1e7, 0.3, 0.5, 0.5, 0.0};
  auto clumps = [&](clump_sim& s) {
    const auto id = s.add_material(m);
    s.add_box(s.config().domain, id);
    const auto shape = s.add_shape(dem::shape::clumps::three_sphere(1e-3, 1.2e-3, dem::shape::clumps::layout::triangle));
    const auto [set, q] = bodies(40, 0.009);
    s.add_bodies(shape, set, q, id);
  };
  restart_equals_straight_run<clump_sim>(clumps, cfg, 2000, 1500, "clumps");
  auto cubes = [&](poly_sim& s) {
    const auto id = s.add_material(m);
    s.add_box(s.config().domain, id);
    std::vector<dem::vec3d> pts;
    for (int i = 0; i < 8; ++i) pts.push_back({(i & 1 ? 2e-3 : -2e-3), (i & 2 ? 2e-3 : -2e-3), (i & 4 ? 2e-3 : -2e-3)});
    const auto shape = s.add_shape(dem::shape::poly::make_polyhedron_template(pts, "cube"));
    const auto [set, q] = bodies(32, 0.009);
    s.add_bodies(shape, set, q, id);
  };
  restart_equals_straight_run<poly_sim>(cubes, cfg, 2000, 1500, "cubes");
}

TEST_CASE("checkpoint: written on the host, loaded on this backend and back, the state is the same") {
  using host_sim = dem::Simulator<dem::policies<dem::shape::sphere, dem::force::hertz_mindlin, dem::integrate::velocity_verlet,
                                                dem::precision::double_>,
                                  dem::backend::host>;
  using here_sim = sim_t<dem::force::hertz_mindlin>;
  const dem::material glass{"glass", 2500, 1e7, 0.3, 0.5, 0.5, 0.1};
  host_sim h(sphere_box());
  fill_spheres(h, 300, glass);
  h.step(1500);
  h.save_checkpoint(temp_path("from_host"));
  here_sim d = here_sim::from_checkpoint(temp_path("from_host"));
  d.save_checkpoint(temp_path("back"));
  host_sim back = host_sim::from_checkpoint(temp_path("back"));
  check_same_bits(h, back);
  CHECK(d.positions() == h.positions());
  CHECK(d.forces() == h.forces());
  CHECK(d.listed_pairs() == h.listed_pairs());
  d.step(500);  // and it runs on
  CHECK(d.step_count() == 2000);
  std::remove(temp_path("from_host").c_str());
  std::remove(temp_path("back").c_str());
}

TEST_CASE("checkpoint: other policies and bad files are refused with the reason; a failed load changes nothing") {
  const dem::material glass{"glass", 2500, 1e7, 0.3, 0.5, 0.5, 0.1};
  sim_t<dem::force::hertz_mindlin> s(sphere_box());
  fill_spheres(s, 100, glass);
  s.step(200);
  const std::string path = temp_path("refusals");
  s.save_checkpoint(path);

  using other_law = sim_t<dem::force::linear_spring_dashpot>;
  CHECK_THROWS_WITH_AS(other_law::from_checkpoint(path),
                       doctest::Contains("written with force law 'hertz_mindlin', but this simulator's is 'linear_spring_dashpot'"),
                       std::runtime_error);
  using other_precision = sim_t<dem::force::hertz_mindlin, dem::precision::single>;
  CHECK_THROWS_WITH_AS(other_precision::from_checkpoint(path), doctest::Contains("written with precision 'double', but this simulator's is 'single'"),
                       std::runtime_error);
  using other_integrator = sim_t<dem::force::hertz_mindlin, dem::precision::double_, dem::integrate::symplectic_euler>;
  CHECK_THROWS_WITH_AS(other_integrator::from_checkpoint(path), doctest::Contains("integrator 'velocity_verlet'"), std::runtime_error);

  CHECK_THROWS_WITH_AS(decltype(s)::from_checkpoint("no/such/file.ckpt"), doctest::Contains("cannot open for reading 'no/such/file.ckpt'"),
                       std::runtime_error);
  std::string bytes;
  {
    std::ifstream in(path, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  auto write = [](const std::string& p, const std::string& b) { std::ofstream(p, std::ios::binary) << b; };
  const std::string bad = temp_path("bad");
  write(bad, bytes.substr(0, bytes.size() / 2));
  CHECK_THROWS_WITH_AS(decltype(s)::from_checkpoint(bad), doctest::Contains("truncated"), std::runtime_error);
  std::string flipped = bytes;
  flipped[bytes.size() / 2] ^= 0x10;
  write(bad, flipped);
  CHECK_THROWS_WITH_AS(decltype(s)::from_checkpoint(bad), doctest::Contains("checksum mismatch"), std::runtime_error);
  write(bad, "id,x,y,z\n1,2,3,4\n");
  CHECK_THROWS_WITH_AS(decltype(s)::from_checkpoint(bad), doctest::Contains("not a dem checkpoint"), std::runtime_error);

  // A failed load leaves the simulator as it was.
  const auto before = s.positions();
  CHECK_THROWS(s.load_checkpoint(bad));
  CHECK(s.positions() == before);
  CHECK(s.step_count() == 200);
  // A good one replaces everything, configuration included.
  sim_t<dem::force::hertz_mindlin> other(zero_g_config());
  other.load_checkpoint(path);
  CHECK(other.positions() == before);
  CHECK(other.config().gravity.z == doctest::Approx(-9.81));
  std::remove(path.c_str());
  std::remove(bad.c_str());
}

TEST_CASE("checkpoint: moving boundaries (a turning mesh, a vibrating plate, a servo, a drum) restart bit for bit") {
  namespace bd = dem::boundary;
  using S = sim_t<dem::force::hertz_mindlin>;
  dem::simulation_config cfg;
  cfg.domain = {{-0.02, -0.02, -0.02}, {0.02, 0.02, 0.02}};
  cfg.dt = 1e-5;
  cfg.boundary_margin = 6e-4;
  auto setup = [](S& s) {
    const auto m = s.add_material({"glass", 2500, 1e7, 0.3, 0.5, 0.5, 0.05});
    const auto drum = s.add_cylinder({.base = {0, -0.008, 0}, .axis = {0, 1, 0}, .length = 0.016, .radius = 0.018, .cap_base = true, .cap_top = true}, m,
                                     "drum");
    s.set_motion(drum, bd::constant_velocity{.omega = {0, 3, 0}});
    bd::triangle_mesh blade;
    blade.vertices = {{-0.004, -0.006, -0.012}, {0.004, -0.006, -0.012}, {0.004, 0.006, -0.008}, {-0.004, 0.006, -0.008}};
    blade.triangles = {{0, 1, 2}, {0, 2, 3}};
    const auto mesh = s.add_mesh(blade, m, "blade");
    s.set_motion(mesh, bd::constant_velocity{.omega = {0, 3, 0}});
    const auto shaker = s.add_plate({0, 0, -0.016}, {0, 0, 1}, {1, 0, 0}, 0.008, 0.006, m, "shaker");
    s.set_motion(shaker, bd::vibration{.amplitude = {0, 0, 3e-4}, .frequency = 80});
    const auto piston = s.add_disc({0, 0, 0.012}, {0, 0, -1}, 0.009, m, 0, "piston");
    s.set_motion(piston, bd::servo{.direction = {0, 0, -1}, .speed = 0.05, .target_force = 0.05, .after = bd::servo::mode::regulate});
    dem::sample::lattice_options o;
    o.radius = 9e-4;
    o.jitter = 1e-4;
    o.max_count = 120;
    dem::particle_set set = dem::sample::cubic_lattice({{-0.008, -0.006, -0.006}, {0.008, 0.006, 0.008}}, o);
    s.add_particles(set, m);
  };
  restart_equals_straight_run<S>(setup, cfg, 2500, 2500, "boundaries");
  // The boundaries themselves: the same loads and poses after the restart.
  S straight(cfg), first(cfg);
  setup(straight);
  setup(first);
  straight.step(3000);
  first.step(1700);
  const std::string path = temp_path("boundaries_load");
  first.save_checkpoint(path);
  S resumed = S::from_checkpoint(path);
  resumed.step(1300);
  for (std::uint32_t b = 0; b < straight.num_boundaries(); ++b) {
    const bd::load p = straight.boundary_load(b, {0, 0, 0}), q = resumed.boundary_load(b, {0, 0, 0});
    CHECK(p.force == q.force);
    CHECK(p.torque == q.torque);
  }
  CHECK(straight.servo_state(3).travel == resumed.servo_state(3).travel);
  const bd::surface_triangles a = straight.boundary_surface(), c = resumed.boundary_surface();
  CHECK(a.points == c.points);
  std::remove(path.c_str());
}

TEST_CASE("checkpoint: a user motion is not saved; the restored boundary asks for it") {
  using S = sim_t<dem::force::hertz_mindlin>;
  dem::simulation_config cfg = sphere_box();
  S s(cfg);
  const auto m = s.add_material({"glass", 2500, 1e7, 0.3, 0.5, 0.5, 0.05});
  const auto floor = s.add_plane({0, 0, 0}, {0, 0, 1}, m, "floor");
  s.set_motion(floor, [](double t) {
    dem::boundary::rigid_motion r;
    r.translation = {0, 0, 1e-4 * std::sin(100 * t)};
    r.velocity = {0, 0, 1e-2 * std::cos(100 * t)};
    return r;
  });
  dem::particle_set p;
  p.positions = {{0.006, 0.006, 0.002}};
  p.radii = {1e-3};
  s.add_particles(p, m);
  s.step(10);
  const std::string path = temp_path("user_motion");
  s.save_checkpoint(path);
  S r = S::from_checkpoint(path);
  CHECK_THROWS_WITH(r.step(1), doctest::Contains("boundary 'floor' had a user motion that a checkpoint cannot hold; set it again with set_motion"));
  std::remove(path.c_str());
}
