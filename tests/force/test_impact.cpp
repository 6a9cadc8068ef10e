// Hertz impact benchmarks (Chung & Ooi 2011, tests 1 and 2) and the linear contact time.
#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <type_traits>

#include "support/scenarios.hpp"

using namespace dem_test;

namespace {
struct hertz_prediction {
  double overlap, force, time;
};
// Hertz theory for a head-on elastic impact at relative speed v.
hertz_prediction hertz_theory(double e_star, double r_star, double m_star, double v) {
  const double overlap = std::pow(15.0 * m_star * v * v / (16.0 * e_star * std::sqrt(r_star)), 0.4);
  const double force = 4.0 / 3.0 * e_star * std::sqrt(r_star) * std::pow(overlap, 1.5);
  const double time = 2.87 * std::pow(m_star * m_star / (r_star * e_star * e_star * v), 0.2);
  return {overlap, force, time};
}
}  // namespace

TEST_CASE_TEMPLATE("Hertz impact: two glass spheres at +-10 m/s (Chung & Ooi test 1)", Precision, dem::precision::double_,
                   dem::precision::single) {
  const dem::material glass{"glass", 2800, 48e9, 0.2, 1.0, 0.0, 0.0};
  const double r = 0.01, m = 2800 * 4.0 / 3.0 * M_PI * r * r * r;
  const hertz_prediction t = hertz_theory(48e9 / (2 * (1 - 0.04)), r / 2, m / 2, 20.0);
  // The quoted values of the benchmark, to check the theory used here.
  CHECK(t.overlap == doctest::Approx(274e-6).epsilon(0.01).scale(0));
  CHECK(t.force == doctest::Approx(10.7e3).epsilon(0.02).scale(0));
  CHECK(t.time == doctest::Approx(40e-6).epsilon(0.02).scale(0));
  const impact_record rec = run_impact<sim_t<dem::force::hertz_mindlin, Precision>>(glass, r, 20.0, false, 1.0 / 500);
  CHECK(rec.peak_overlap == doctest::Approx(t.overlap).epsilon(0.02).scale(0));
  CHECK(rec.peak_force == doctest::Approx(t.force).epsilon(0.02).scale(0));
  CHECK(rec.contact_time == doctest::Approx(t.time).epsilon(0.02).scale(0));
  CHECK(rec.rebound_ratio == doctest::Approx(1.0).epsilon(0.01).scale(0));
}

TEST_CASE("Hertz impact: aluminium sphere on a rigid plane at 0.2 m/s (Chung & Ooi test 2)") {
  const dem::material al{"aluminium", 2699, 70e9, 0.3, 1.0, 0.0, 0.0};
  const double r = 0.1, m = 2699 * 4.0 / 3.0 * M_PI * r * r * r;
  const hertz_prediction t = hertz_theory(70e9 / (1 - 0.09), r, m, 0.2);
  CHECK(t.overlap == doctest::Approx(49.7e-6).epsilon(0.01).scale(0));
  CHECK(t.force == doctest::Approx(11.4e3).epsilon(0.02).scale(0));
  CHECK(t.time == doctest::Approx(732e-6).epsilon(0.02).scale(0));
  const impact_record rec = run_impact<sim_t<dem::force::hertz_mindlin>>(al, r, 0.2, true, 1.0 / 500);
  CHECK(rec.peak_overlap == doctest::Approx(t.overlap).epsilon(0.02).scale(0));
  CHECK(rec.peak_force == doctest::Approx(t.force).epsilon(0.02).scale(0));
  CHECK(rec.contact_time == doctest::Approx(t.time).epsilon(0.02).scale(0));
}

TEST_CASE("linear spring-dashpot: contact time is pi / omega within 1 %") {
  const dem::material steel{"steel", 7800, 2e11, 0.3, 1.0, 0.0, 0.0};
  const double r = 5e-3, m = 7800 * 4.0 / 3.0 * M_PI * r * r * r;
  for (const bool wall : {false, true}) {
    CAPTURE(wall);
    // k_n = 2 E_h R*, E_h the harmonic mean of the Young's moduli (the wall is 1e12 times stiffer).
    const double e_h = wall ? 2 * 2e11 * 2e23 / (2e11 + 2e23) : 2e11;
    const double k = 2 * e_h * (wall ? r : r / 2);
    const double m_star = wall ? m : m / 2;
    const impact_record rec = run_impact<sim_t<dem::force::linear_spring_dashpot>>(steel, r, 1.0, wall, 1.0 / 500);
    CHECK(rec.contact_time == doctest::Approx(M_PI * std::sqrt(m_star / k)).epsilon(0.01).scale(0));
    // Peak overlap of an undamped spring: v / omega.
    CHECK(rec.peak_overlap == doctest::Approx(1.0 * std::sqrt(m_star / k)).epsilon(0.01).scale(0));
  }
}

TEST_CASE_TEMPLATE("adhesion: a sphere pulled off a plane leaves at JKR's 3/2 pi w R and DMT's 2 pi w R", Force, dem::force::hertz_mindlin_jkr,
                   dem::force::hertz_mindlin_dmt) {
  // A 1 mm sphere stuck to a plane (no gravity) under a pull that grows slowly (over about 45 periods
  // of the contact's oscillation): the largest pull the plane transmits is the pull-off force. Under
  // JKR the sphere runs away from the fold of the curve, and the normal damper, pulling against the
  // separation, adds to the pull then: with e = 0.5 the largest pull was 2.9 % above 3/2 pi w R, with
  // e = 0.9 (used here) 0.4 %, 0.2 % with a ramp four times slower.
  const double r = 5e-4, w = 0.05, pull_off = std::is_same_v<Force, dem::force::hertz_mindlin_jkr> ? 1.5 * M_PI * w * r : 2 * M_PI * w * r;
  dem::simulation_config cfg;
  cfg.domain = {{-0.01, -0.01, -0.01}, {0.01, 0.01, 0.01}};
  cfg.gravity = {0, 0, 0};
  cfg.dt = 1e-6;
  sim_t<Force> sim(cfg);
  sim.set_log(nullptr);
  dem::material mat{"powder", 2500, 1e7, 0.3, 0.9, 0.5, 0.1};
  mat.work_of_adhesion = w;
  const auto m = sim.add_material(mat);
  const auto plane = sim.add_plane({0, 0, 0}, {0, 0, 1}, m);
  dem::particle_set s;
  s.positions = {{0, 0, r - 1e-7}};  // touching: the contact forms at once
  s.radii = {r};
  sim.add_particles(s, m);
  sim.advance(0.005);  // settles into its adhesive equilibrium
  CHECK(sim.positions()[0].z < r);  // pulled into the plane by adhesion alone
  const int ramp = 20000;
  double most = 0;
  bool left = false;
  for (int k = 0; k < 2 * ramp && !left; ++k) {
    sim.set_external_forces({{0, 0, 2 * pull_off * k / ramp}});
    sim.step();
    most = std::max(most, sim.boundary_force(plane).z);  // the plane is pulled up (+z) by the sphere
    left = sim.positions()[0].z > 1.01 * r;
  }
  CHECK(left);
  MESSAGE(std::string(Force::name) << ": largest pull " << most << " N, pull-off force " << pull_off << " N");
  CHECK(most == doctest::Approx(pull_off).epsilon(0.01).scale(0));
}

// ---- Oblique impacts: Chung & Ooi (2011), tests 4 to 8 ------------------------------------------
// A sphere on a rigid plane (tests 4-6) or two spheres (tests 7, 8) meeting along z with a
// tangential slip at the contact point along x, from an incidence (test 4), a tangential velocity
// (test 5) or spin (tests 6-8). Two references:
//   - gross sliding (the slip never stops): rigid-body impulse theory is exact whatever the
//     tangential compliance. J_n = m*(1 + e) v_n, J_t = mu J_n against the slip, and the slip falls
//     by mu J_n (1/m_A + 1/m_B + R_A^2/I_A + R_B^2/I_B) = 3.5 mu J_n (1/m_A + 1/m_B) for solid spheres;
//     sliding throughout when the initial slip exceeds that. Checked within 1 % on every body's
//     velocity and spin change;
//   - sticking and micro-slip (smaller slips): the outcome depends on the tangential model. The
//     reduced two-degree-of-freedom contact (normal: m* d'' = -F_n; slip: s' = F_t / m_t with
//     m_t = [3.5 (1/m_A + 1/m_B)]^-1) is integrated here, independently of the toolkit, by RK4 at
//     1/20000 of the contact time, for each tangential form, elastic (e = 1). The simulated
//     tangential impulse must match it within 0.5 % of the gross-sliding impulse mu J_n (the two
//     forms differ by 1.2 % of it at 10 degrees in test 4, by 4 % at 5 degrees).
namespace {
struct body {
  double r;
  dem::vec3d v, w;
};
struct oblique_outcome {
  dem::vec3d dv_a, dw_a, dv_b, dw_b;  // changes over the impact (B: zero for the plane)
};

template <class Sim>
oblique_outcome oblique_impact(const dem::material& mat_a, const dem::material& mat_b, const body& a, const body* b, double dt_fraction = 1.0 / 40) {
  const double size = 4 * (a.r + (b ? b->r : 0.0));
  dem::simulation_config cfg = zero_g_config(size);
  const double gap = 1e-4 * a.r;
  dem::particle_set s;
  s.positions = {{0, 0, b ? -a.r - gap / 2 : a.r + gap}};
  s.radii = {a.r};
  s.velocities = {a.v};
  if (b) {
    s.positions.push_back({0, 0, b->r + gap / 2});
    s.radii.push_back(b->r);
    s.velocities.push_back(b->v);
  }
  Sim probe(cfg);
  const auto pa = probe.add_material(mat_a), pb = probe.add_material(mat_b);
  dem::particle_set sa = s;
  probe.add_particles(s, pa);
  (void)pb;
  cfg.dt = probe.stable_time_step() * dt_fraction;
  Sim sim(cfg);
  sim.set_log(nullptr);
  const auto ma = sim.add_material(mat_a);
  const auto mb = sim.add_material(mat_b);
  if (b) {
    dem::particle_set one{{s.positions[0]}, {a.r}, {a.v}}, two{{s.positions[1]}, {b->r}, {b->v}};
    sim.add_particles(one, ma);
    sim.add_particles(two, mb);
  } else {
    sim.add_plane({0, 0, 0}, {0, 0, 1}, mb);
    sim.add_particles(s, ma);
  }
  std::vector<dem::vec3d> w0 = {a.w};
  if (b) w0.push_back(b->w);
  sim.set_angular_velocities(w0);
  const auto v_start = sim.velocities();
  bool touched = false;
  for (int step = 0; step < 200000; ++step) {
    sim.step();
    const auto p = sim.positions();
    const double overlap = b ? a.r + b->r - (p[1].z - p[0].z) : a.r - p[0].z;
    if (overlap > 0) touched = true;
    else if (touched) break;
  }
  REQUIRE(touched);
  const auto v = sim.velocities();
  const auto w = sim.angular_velocities();
  oblique_outcome o;
  o.dv_a = v[0] - v_start[0];
  o.dw_a = w[0] - a.w;
  if (b) {
    o.dv_b = v[1] - v_start[1];
    o.dw_b = w[1] - b->w;
  }
  return o;
}

double sphere_mass(const dem::material& m, double r) { return m.density * 4.0 / 3.0 * M_PI * r * r * r; }

// The reduced contact, integrated by RK4: the tangential impulse on A along +x (the slip's axis)
// for an elastic impact at normal approach speed v_n with initial slip s0 (A relative to B, +x).
double reference_tangential_impulse(double m_eff, double r_eff, double e_star, double g_star, double mu, double v_n, double s0,
                                    bool incremental) {
  const double m_t = m_eff / 3.5;
  const double t_c = 2.87 * std::pow(m_eff * m_eff / (r_eff * e_star * e_star * v_n), 0.2);
  const double h = t_c / 20000;
  // y = {overlap, overlap rate, slip, history}: history is xi (total form) or F_t (incremental).
  struct state {
    double d, dd, s, q;
  };
  // The spring force ft (unclamped) and what acts: at most mu F_n (between the state's clamps below).
  const auto forces = [&](const state& y, double& fn, double& ft, double& kt) {
    const double d = std::max(y.d, 0.0);
    fn = 4.0 / 3.0 * e_star * std::sqrt(r_eff) * std::pow(d, 1.5);
    kt = 8 * g_star * std::sqrt(r_eff * d);
    ft = incremental ? y.q : -kt * y.q;
  };
  const auto acting = [&](double fn, double ft) { return std::abs(ft) > mu * fn ? std::copysign(mu * fn, ft) : ft; };
  const auto rate = [&](const state& y) {
    double fn, ft, kt;
    forces(y, fn, ft, kt);
    state r;
    r.d = y.dd;
    r.dd = -fn / m_eff;
    r.s = acting(fn, ft) / m_t;
    if (incremental) {
      const double dkt = y.d > 0 ? 8 * g_star * std::sqrt(r_eff) * y.dd / (2 * std::sqrt(y.d)) : 0.0;
      r.q = -kt * y.s + (dkt < 0 && kt > 0 ? y.q * dkt / kt : 0.0);
    } else {
      r.q = y.s;
    }
    return r;
  };
  const auto add = [](const state& y, const state& k, double f) { return state{y.d + f * k.d, y.dd + f * k.dd, y.s + f * k.s, y.q + f * k.q}; };
  state y{0, v_n, s0, 0};
  double impulse = 0;
  for (long n = 0; n < 4000000 && (n == 0 || y.d > 0); ++n) {
    const state k1 = rate(y), k2 = rate(add(y, k1, h / 2)), k3 = rate(add(y, k2, h / 2)), k4 = rate(add(y, k3, h));
    state next{y.d + h / 6 * (k1.d + 2 * k2.d + 2 * k3.d + k4.d), y.dd + h / 6 * (k1.dd + 2 * k2.dd + 2 * k3.dd + k4.dd),
               y.s + h / 6 * (k1.s + 2 * k2.s + 2 * k3.s + k4.s), y.q + h / 6 * (k1.q + 2 * k2.q + 2 * k3.q + k4.q)};
    // Coulomb: the spring holds at most mu F_n (then slides).
    double fn, ft, kt;
    forces(next, fn, ft, kt);
    if (std::abs(ft) > mu * fn) next.q = incremental ? std::copysign(mu * fn, ft) : -std::copysign(mu * fn, ft) / kt;
    if (next.d <= 0) next.q = 0;
    impulse += m_t * (next.s - y.s);
    y = next;
  }
  return impulse;
}

// With DEM_CHUNG_OOI_CSV set, each oblique impact appends a row there (scripts/plot_chung_ooi.py
// plots them for docs/validation.md); the checks do not depend on it.
void record(const std::string& test, const char* law, double x, double e, double psi, double jt, double ref, double dw_a) {
  const char* path = std::getenv("DEM_CHUNG_OOI_CSV");
  if (!path) return;
  std::FILE* f = std::fopen(path, "a");
  if (!f) return;
  std::fprintf(f, "%s,%s,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g\n", test.c_str(), law, x, e, psi, jt, ref, dw_a);
  std::fclose(f);
}

template <class Force>
struct tangential_form {
  static constexpr bool incremental = std::is_same_v<Force, dem::force::hertz_mindlin_incremental>;
};

// Checks a sphere-plane or sphere-sphere impact against both references; `slip` is the initial slip
// at the contact (A relative to B, along +x), `e` the restitution.
// `test` and `x` (the swept value) label the recorded row.
template <class Force>
void check_oblique(const dem::material& ma, const dem::material& mb, const body& a, const body* b, double v_n, double slip,
                   const std::string& test = "", double x = 0) {
  using Sim = sim_t<Force>;
  const double m_a = sphere_mass(ma, a.r), m_b = b ? sphere_mass(mb, b->r) : 0.0;
  const double inv_m = 1 / m_a + (b ? 1 / m_b : 0.0);
  const double m_eff = 1 / inv_m, r_eff = b ? a.r * b->r / (a.r + b->r) : a.r;
  const double mu = ma.friction, e = ma.restitution;
  const double j_n = m_eff * (1 + e) * v_n, j_slide = mu * j_n;
  const bool sliding = std::abs(slip) > 3.5 * j_slide * inv_m * 1.02;  // gross sliding, with a 2 % margin
  const oblique_outcome o = oblique_impact<Sim>(ma, mb, a, b);
  // A's tangential impulse (+x) from its velocity change, and the spins it implies.
  const double j_t = m_a * o.dv_a.x;
  const double i_a = 0.4 * m_a * a.r * a.r;
  CAPTURE(slip);
  CAPTURE(j_t / j_slide);
  // Angular momentum about A's centre: the force -j_t... acts at A's contact point, below A's centre
  // for a plane (branch (0, 0, -R)), above it for B on top (branch (0, 0, +R)).
  const double arm = b ? a.r : -a.r;
  // The lever is R - overlap (R - overlap/2 between spheres), not R: 0.5 % of the sliding case's spin.
  CHECK(o.dw_a.y == doctest::Approx(arm * j_t / i_a).epsilon(0.005).scale(std::abs(arm * j_slide / i_a)));
  CHECK(m_a * o.dv_a.z == doctest::Approx(b ? -j_n : j_n).epsilon(0.01).scale(0));
  if (b) {
    CHECK(m_b * o.dv_b.x == doctest::Approx(-j_t).epsilon(1e-6).scale(0));  // momentum is conserved
    const double i_b = 0.4 * m_b * b->r * b->r;
    CHECK(o.dw_b.y == doctest::Approx(b->r * j_t / i_b).epsilon(0.005).scale(b->r * j_slide / i_b));
  }
  if (sliding) {
    CHECK(j_t == doctest::Approx(-std::copysign(j_slide, slip)).epsilon(0.01).scale(0));
  }
  double ref = std::nan("");
  if (e == 1.0) {
    const auto pr = [&] {
      dem::material_table t;
      const auto ia = t.add(ma), ib = t.add(mb);
      return t.pair(ia, ib);
    }();
    ref = reference_tangential_impulse(m_eff, r_eff, pr.effective_youngs, pr.effective_shear, mu, v_n, slip,
                                                    tangential_form<Force>::incremental);
    CAPTURE(ref / j_slide);
    CHECK(std::abs(j_t - ref) < 0.005 * j_slide);
    MESSAGE(std::string(Force::name) << ": slip/(3.5 mu J_n/m*) " << slip / (3.5 * j_slide * inv_m) << ", J_t/(mu J_n) " << j_t / j_slide << ", reference "
                        << ref / j_slide);
  }
  record(test, Force::name, x, e, slip / (3.5 * j_slide * inv_m), j_t / j_slide, ref / j_slide, o.dw_a.y);
}
}  // namespace

TEST_CASE_TEMPLATE("oblique impact: alumina sphere on a rigid plane at 3.9 m/s and 5-85 degrees (Chung & Ooi test 4)", Force,
                   dem::force::hertz_mindlin, dem::force::hertz_mindlin_incremental) {
  dem::material alumina{"alumina", 4000, 3.8e11, 0.23, 0.98, 0.092, 0.0};
  dem::material plane = alumina;
  plane.rigid = true;
  const double r = 2.5e-3, v = 3.9;
  for (double deg : {5.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 85.0}) {
    CAPTURE(deg);
    const double th = deg * M_PI / 180;
    const body a{r, {v * std::sin(th), 0, -v * std::cos(th)}, {0, 0, 0}};
    check_oblique<Force>(alumina, plane, a, nullptr, v * std::cos(th), v * std::sin(th), "4", deg);
  }
  // The same sticking angles elastic, against the integrated reference.
  alumina.restitution = plane.restitution = 1.0;
  for (double deg : {2.0, 5.0, 10.0, 20.0}) {
    CAPTURE(deg);
    const double th = deg * M_PI / 180;
    const body a{r, {v * std::sin(th), 0, -v * std::cos(th)}, {0, 0, 0}};
    check_oblique<Force>(alumina, plane, a, nullptr, v * std::cos(th), v * std::sin(th), "4", deg);
  }
}

namespace {
// Tests 5-8: aluminium alloy spheres of 0.1 m (and, for test 8, a magnesium alloy one of 0.05 m) at
// 0.2 m/s normal approach speed, mu = 0.4, e = 0.5 (and e = 1 for the integrated reference).
dem::material al_alloy(double e) { return {"Al alloy", 2700, 7.0e10, 0.33, e, 0.4, 0.0}; }
dem::material mg_alloy(double e) { return {"Mg alloy", 1800, 4.0e10, 0.35, e, 0.4, 0.0}; }
dem::material rigid(dem::material m) {
  m.rigid = true;
  return m;
}
}  // namespace

TEST_CASE_TEMPLATE("oblique impact: constant normal velocity, tangential velocity from 0.01 to 2 m/s (Chung & Ooi test 5)", Force,
                   dem::force::hertz_mindlin, dem::force::hertz_mindlin_incremental) {
  for (double e : {0.5, 1.0})
    for (double vt : {0.01, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0}) {
      CAPTURE(e);
      CAPTURE(vt);
      const body a{0.1, {vt, 0, -0.2}, {0, 0, 0}};
      check_oblique<Force>(al_alloy(e), rigid(al_alloy(e)), a, nullptr, 0.2, vt, "5", vt);
    }
}

TEST_CASE_TEMPLATE("oblique impact: constant normal velocity, spin from 0.175 to 21 rad/s (Chung & Ooi test 6)", Force,
                   dem::force::hertz_mindlin, dem::force::hertz_mindlin_incremental) {
  for (double e : {0.5, 1.0})
    for (double w : {0.175, 0.5, 1.0, 2.0, 5.0, 10.0, 21.0}) {
      CAPTURE(e);
      CAPTURE(w);
      // Spin +y: the bottom of the sphere moves by w x (0, 0, -R) = -w R along x.
      const body a{0.1, {0, 0, -0.2}, {0, w, 0}};
      check_oblique<Force>(al_alloy(e), rigid(al_alloy(e)), a, nullptr, 0.2, -w * 0.1, "6", w);
    }
}

TEST_CASE_TEMPLATE("oblique impact: two equal spinning spheres (Chung & Ooi test 7) and two of different size (test 8)", Force,
                   dem::force::hertz_mindlin, dem::force::hertz_mindlin_incremental) {
  for (double e : {0.5, 1.0})
    for (double w : {0.175, 0.5, 1.0, 2.0, 5.0, 10.0, 21.0}) {
      CAPTURE(e);
      CAPTURE(w);
      // A below, B above, both spinning +y: A's top moves +w R_A, B's bottom -w R_B along x.
      const body a{0.1, {0, 0, 0.1}, {0, w, 0}}, b{0.1, {0, 0, -0.1}, {0, w, 0}};
      check_oblique<Force>(al_alloy(e), al_alloy(e), a, &b, 0.2, w * (a.r + b.r), "7", w);
      const body small{0.05, {0, 0, -0.1}, {0, w, 0}};
      check_oblique<Force>(al_alloy(e), mg_alloy(e), a, &small, 0.2, w * (a.r + small.r), "8", w);
    }
}
