// Each slot of a composed law against its analytic single-contact result, and the composition's
// bookkeeping (order, history layout, energies).
#include <doctest/doctest.h>

#include <cmath>

#include "dem/dem.hpp"

namespace {
using Real = double;
using dem::vec3;
using namespace dem::force;

dem::material_pair pair_of(double e = 0.5, double mu = 0.5, double mu_r = 0.1) {
  dem::material_table t;
  dem::material m{"m", 2500, 1e7, 0.3, e, mu, mu_r};
  m.work_of_adhesion = 0.05;
  m.cohesion_range = 1e-4;
  m.rolling_damping = 0.3;
  const auto id = t.add(m);
  return t.pair(id, id);
}

// A contact along z (normal +z) with overlap d, effective radius R, mass m.
contact<Real> make(double d, double R = 1e-3, double m = 1e-5, double dt = 1e-6) {
  contact<Real> c{};
  c.overlap = d;
  c.normal = {0, 0, 1};
  c.branch_a = {0, 0, -(R - d / 2)};
  c.branch_b = {0, 0, R - d / 2};
  c.radius_eff = R / 2;
  c.mass_eff = m;
  c.inertia_eff = 0.4 * m * R * R;
  c.rolling_inertia = 3.5 * c.inertia_eff;  // equal spheres: (I + m r^2) / 2 against I / 2
  c.dt = dt;
  return c;
}

template <class Slot>
using model = typename Slot::template model<Real>;

const slot_setup hertz_setup{restitution::model::hertz};
const slot_setup linear_setup{restitution::model::linear};
}  // namespace

TEST_CASE("slot normal::hertz: F = 4/3 E* sqrt(R*) d^1.5, k = 2 E* a, energy integrates the force") {
  const auto mp = pair_of();
  const auto p = model<normal::hertz>::make_params(mp, hertz_setup);
  for (double d : {1e-7, 1e-6, 1e-5}) {
    const auto c = make(d);
    contact_state<Real> s{};
    no_history h;
    model<normal::hertz>{}(c, p, h, s);
    const double a = std::sqrt(c.radius_eff * d);
    CHECK(s.elastic == doctest::Approx(4.0 / 3.0 * mp.effective_youngs * std::sqrt(c.radius_eff) * std::pow(d, 1.5)).epsilon(1e-12));
    CHECK(s.stiffness == doctest::Approx(2 * mp.effective_youngs * a).epsilon(1e-12));
    CHECK(s.contact_radius == doctest::Approx(a).epsilon(1e-12));
    // dE/dd = F (central difference)
    const double h6 = d * 1e-4;
    contact_state<Real> sp{}, sm{};
    model<normal::hertz>{}(make(d + h6), p, h, sp);
    model<normal::hertz>{}(make(d - h6), p, h, sm);
    const double dE = (model<normal::hertz>::energy(make(d + h6), p, h, sp) - model<normal::hertz>::energy(make(d - h6), p, h, sm)) / (2 * h6);
    CHECK(dE == doctest::Approx(s.elastic).epsilon(1e-6).scale(0));
  }
  contact_state<Real> s{};
  no_history h;
  model<normal::hertz>{}(make(-1e-6), p, h, s);  // in a cohesive range, not touching
  CHECK(s.elastic == 0);
  CHECK(s.stiffness == 0);
}

TEST_CASE("slot normal::linear: F = k_n d with k_n fixed or 2 E_h R*") {
  auto mp = pair_of();
  {
    const auto p = model<normal::linear>::make_params(mp, linear_setup);
    contact_state<Real> s{};
    no_history h;
    const auto c = make(2e-6);
    model<normal::linear>{}(c, p, h, s);
    CHECK(s.stiffness == doctest::Approx(2 * mp.harmonic_youngs * c.radius_eff));
    CHECK(s.elastic == doctest::Approx(2 * mp.harmonic_youngs * c.radius_eff * 2e-6));
  }
  mp.normal_stiffness = 1234.0;
  const auto p = model<normal::linear>::make_params(mp, linear_setup);
  contact_state<Real> s{};
  no_history h;
  model<normal::linear>{}(make(1e-5), p, h, s);
  CHECK(s.elastic == doctest::Approx(1234.0 * 1e-5));
  CHECK(model<normal::linear>::energy(make(1e-5), p, h, s) == doctest::Approx(0.5 * 1234.0 * 1e-10).scale(0));
}

TEST_CASE("slot normal::cohesive: pull 2 pi w R* while touching, fading linearly to zero at the range") {
  const auto mp = pair_of();
  using M = model<normal::cohesive<normal::hertz>>;
  const auto p = M::make_params(mp, hertz_setup);
  CHECK(M::range(p) == doctest::Approx(1e-4).scale(0));
  const double R = make(0).radius_eff;
  const double f0 = 2 * M_PI * 0.05 * R;
  auto pull = [&](double d) {
    contact_state<Real> s{};
    no_history h;
    M{}(make(d), p, h, s);
    return s.attraction;
  };
  CHECK(pull(1e-6) == doctest::Approx(f0).scale(0));
  CHECK(pull(0) == doctest::Approx(f0));
  CHECK(pull(-0.5e-4) == doctest::Approx(0.5 * f0).scale(0));
  CHECK(pull(-0.25e-4) == doctest::Approx(0.75 * f0).scale(0));
  CHECK(pull(-1e-4) == 0);
  CHECK(pull(-2e-4) == 0);
  // The potential: dE/dd = F_el - F_pull on both sides of touching, 0 at the end of the range.
  for (double d : {-0.7e-4, -0.2e-4, 3e-6}) {
    const double h6 = 1e-9;
    auto energy = [&](double x) {
      contact_state<Real> s{};
      no_history h;
      M{}(make(x), p, h, s);
      return M::energy(make(x), p, h, s);
    };
    contact_state<Real> s{};
    no_history h;
    M{}(make(d), p, h, s);
    CHECK((energy(d + h6) - energy(d - h6)) / (2 * h6) == doctest::Approx(s.elastic - s.attraction).epsilon(1e-5).scale(0));
  }
  contact_state<Real> s{};
  no_history h;
  M{}(make(-1e-4), p, h, s);
  CHECK(M::energy(make(-1e-4), p, h, s) == doctest::Approx(0).scale(1e-12));
}

TEST_CASE("slot damping::restitution: F = max(0, F_el - c sqrt(k m*) v_n) - pull, load = repulsive part") {
  const auto mp = pair_of(0.5);
  using D = model<damping::restitution>;
  const auto p = D::make_params(mp, hertz_setup);
  CHECK(p.coefficient == doctest::Approx(restitution::coefficient(restitution::model::hertz, 0.5)));
  auto c = make(1e-6);
  c.v_n = -0.1;  // approaching: damping adds repulsion
  contact_state<Real> s{};
  s.elastic = 2.0;
  s.stiffness = 1e4;
  s.attraction = 0.5;
  no_history h;
  D{}(c, p, h, s);
  const double fd = p.coefficient * std::sqrt(1e4 * c.mass_eff) * 0.1;
  CHECK(s.load == doctest::Approx(2.0 + fd));
  CHECK(s.normal_force == doctest::Approx(2.0 + fd - 0.5));
  c.v_n = 1e3;  // separating fast: the repulsive part is clamped at zero, the pull remains
  contact_state<Real> s2{};
  s2.elastic = 2.0;
  s2.stiffness = 1e4;
  s2.attraction = 0.5;
  D{}(c, p, h, s2);
  CHECK(s2.load == 0);
  CHECK(s2.normal_force == doctest::Approx(-0.5));
}

TEST_CASE("slot tangential::mindlin: stick grows k_t v dt per step, slip is capped at mu F_n") {
  const auto mp = pair_of(1.0, 0.5);  // e = 1: no damping, so the spring alone is visible
  using T = model<tangential::mindlin>;
  const auto p = T::make_params(mp, hertz_setup);
  auto c = make(1e-6);
  c.v_t = {1e-3, 0, 0};
  c.v_rel = c.v_t;
  const double a = std::sqrt(c.radius_eff * 1e-6);
  const double k_t = 8 * mp.effective_shear * a;
  typename T::history h{};
  contact_state<Real> s{};
  s.contact_radius = a;
  s.load = 1.0;  // cap 0.5 N
  for (int n = 1; n <= 10; ++n) {
    T{}(c, p, h, s);
    CHECK(s.tangential_force.x == doctest::Approx(-k_t * 1e-3 * c.dt * n).epsilon(1e-12));
    CHECK(s.tangential_force.y == 0);
  }
  CHECK(T::energy(c, p, h, s) == doctest::Approx(0.5 * k_t * norm2(h.shear)).scale(0));
  s.load = 1e-9;  // sliding
  T{}(c, p, h, s);
  CHECK(s.tangential_force.x == doctest::Approx(-0.5e-9).scale(0));
  CHECK(h.shear.x == doctest::Approx(0.5e-9 / k_t).scale(0));  // spring shortened to the cap
}

TEST_CASE("slot tangential::mindlin_incremental: Mindlin-Deresiewicz loading, Thornton's unloading, a force that turns with the pair") {
  const auto mp = pair_of(1.0, 0.5);  // e = 1: no damping
  using T = model<tangential::mindlin_incremental>;
  using S = model<tangential::mindlin>;
  const auto p = T::make_params(mp, hertz_setup);
  const auto ps = S::make_params(mp, hertz_setup);
  const double d1 = 1e-6, d2 = 4e-6;
  auto c = make(d1);
  const auto k_t = [&](double d) { return 8 * mp.effective_shear * std::sqrt(c.radius_eff * d); };
  typename T::history h{};
  typename S::history hs{};
  contact_state<Real> s{}, ss{};
  s.load = ss.load = 1.0;  // cap 0.5 N: no sliding below
  s.contact_radius = ss.contact_radius = std::sqrt(c.radius_eff * d1);
  // Loading at fixed overlap: both forms give k_t xi.
  c.v_t = {1e-3, 0, 0};
  for (int n = 1; n <= 10; ++n) {
    T{}(c, p, h, s);
    S{}(c, ps, hs, ss);
  }
  const double f1 = -k_t(d1) * 1e-3 * c.dt * 10;
  CHECK(s.tangential_force.x == doctest::Approx(f1).epsilon(1e-12));
  CHECK(ss.tangential_force.x == doctest::Approx(f1).epsilon(1e-12));
  CHECK(T::energy(c, p, h, s) == doctest::Approx(0.5 * f1 * f1 / k_t(d1)).epsilon(1e-12).scale(0));
  // The normal load rises (overlap x4, k_t x2) with no tangential motion: Mindlin-Deresiewicz adds
  // no tangential force; the total form doubles it.
  c.v_t = {0, 0, 0};
  c.overlap = d2;
  s.contact_radius = ss.contact_radius = std::sqrt(c.radius_eff * d2);
  T{}(c, p, h, s);
  S{}(c, ps, hs, ss);
  CHECK(s.tangential_force.x == doctest::Approx(f1).epsilon(1e-12));
  CHECK(ss.tangential_force.x == doctest::Approx(2 * f1).epsilon(1e-12));
  // Further tangential motion now loads at the new stiffness.
  c.v_t = {1e-3, 0, 0};
  T{}(c, p, h, s);
  CHECK(s.tangential_force.x == doctest::Approx(f1 - k_t(d2) * 1e-3 * c.dt).epsilon(1e-12));
  // Unloading back to d1 (k_t halves): Thornton's rule halves the force, which thus vanishes with
  // the contact.
  c.v_t = {0, 0, 0};
  const double before = s.tangential_force.x;
  c.overlap = d1;
  s.contact_radius = std::sqrt(c.radius_eff * d1);
  T{}(c, p, h, s);
  CHECK(s.tangential_force.x == doctest::Approx(0.5 * before).epsilon(1e-12));
  // Sliding: capped at mu F_n.
  s.load = 1e-9;
  c.v_t = {1e-3, 0, 0};
  T{}(c, p, h, s);
  CHECK(std::abs(s.tangential_force.x) == doctest::Approx(0.5e-9).epsilon(1e-12));
  CHECK(h.force.x == doctest::Approx(-0.5e-9).epsilon(1e-12));
  // Apart: no force, nothing kept.
  s.contact_radius = 0;
  T{}(c, p, h, s);
  CHECK(norm2(s.tangential_force) == 0);
  CHECK(norm2(h.force) == 0);
  CHECK(h.stiffness == 0);
}

TEST_CASE("slot tangential::mindlin_incremental: the stored force turns with the pair's spin about the normal; the total form's does not") {
  const auto mp = pair_of(1.0, 0.5);
  using T = model<tangential::mindlin_incremental>;
  using S = model<tangential::mindlin>;
  const auto p = T::make_params(mp, hertz_setup);
  const auto ps = S::make_params(mp, hertz_setup);
  auto c = make(1e-6);
  typename T::history h{};
  typename S::history hs{};
  contact_state<Real> s{}, ss{};
  s.load = ss.load = 1.0;
  s.contact_radius = ss.contact_radius = std::sqrt(c.radius_eff * 1e-6);
  c.v_t = {1e-3, 0, 0};
  for (int n = 0; n < 10; ++n) {
    T{}(c, p, h, s);
    S{}(c, ps, hs, ss);
  }
  const double f = std::abs(s.tangential_force.x);
  // Both bodies spin together about the normal (a rigid rotation of the pair: no relative motion at
  // the contact), a quarter turn in 1000 steps.
  c.v_t = {0, 0, 0};
  c.spin = (std::acos(-1.0) / 2) / (1000 * c.dt);
  for (int n = 0; n < 1000; ++n) {
    T{}(c, p, h, s);
    S{}(c, ps, hs, ss);
  }
  // -x turned by +90 degrees about +z is -y.
  CHECK(s.tangential_force.x == doctest::Approx(0).scale(f).epsilon(1e-9));
  CHECK(s.tangential_force.y == doctest::Approx(-f).epsilon(1e-9));
  CHECK(ss.tangential_force.x == doctest::Approx(-f).epsilon(1e-12));  // stays fixed in space
  CHECK(ss.tangential_force.y == 0);
}

TEST_CASE("slot tangential::linear: k_t = ratio k_n, damping from the damping slot") {
  const auto mp = pair_of(0.5, 0.5);
  using T = model<tangential::linear>;
  const auto p = T::make_params(mp, linear_setup);
  auto c = make(1e-6);
  c.v_t = {0, 2e-3, 0};
  typename T::history h{};
  contact_state<Real> s{};
  s.stiffness = 1000;
  s.damping = 0.3;
  s.load = 10;
  T{}(c, p, h, s);
  const double k_t = 2.0 / 7.0 * 1000, c_t = 0.3 * std::sqrt(k_t * c.mass_eff);
  CHECK(s.tangential_stiffness == doctest::Approx(k_t));
  CHECK(s.tangential_force.y == doctest::Approx(-k_t * 2e-3 * c.dt - c_t * 2e-3).scale(0));
}

TEST_CASE("slot rolling::constant_torque: |M| = mu_r R* F_n against the rolling rate, viscous near rest at the contact's own rate") {
  const auto mp = pair_of(0.5, 0.5, 0.2);
  using R = model<rolling::constant_torque>;
  const auto p = R::make_params(mp, hertz_setup);
  auto c = make(1e-6);
  c.omega_rel = {0, 5000.0, 7.0};  // the normal (twisting) part is ignored
  contact_state<Real> s{};
  s.load = 2.0;
  s.stiffness = 1e4;
  no_history h;
  R{}(c, p, h, s);
  CHECK(s.couple.y == doctest::Approx(-0.2 * c.radius_eff * 2.0));
  CHECK(s.couple.x == 0);
  CHECK(s.couple.z == 0);
  // Near rest: viscous, C_r = I* sqrt(k_n / m*), the same for any dt.
  c.omega_rel = {0, 1e-6, 0};
  for (const double dt : {1e-6, 1e-7, 0.0}) {
    c.dt = dt;
    contact_state<Real> s2{};
    s2.load = 2.0;
    s2.stiffness = 1e4;
    R{}(c, p, h, s2);
    CHECK(s2.couple.y == doctest::Approx(-1e-6 * c.inertia_eff * std::sqrt(1e4 / c.mass_eff)).scale(0));
  }
  // Where the two meet: w_0 = mu_r R* F_n / C_r.
  const double w0 = 0.2 * c.radius_eff * 2.0 / (c.inertia_eff * std::sqrt(1e4 / c.mass_eff));
  for (const double f : {0.5, 2.0}) {
    c.omega_rel = {0, f * w0, 0};
    contact_state<Real> s3{};
    s3.load = 2.0;
    s3.stiffness = 1e4;
    R{}(c, p, h, s3);
    CHECK(s3.couple.y == doctest::Approx(-0.2 * c.radius_eff * 2.0 * std::min(f, 1.0)).scale(0));
  }
}

TEST_CASE("slot rolling::epsd: spring k_r = 2.25 k_n mu_r^2 R*^2 up to mu_r R* F_n, viscous part while elastic") {
  const auto mp = pair_of(0.5, 0.5, 0.2);
  using R = model<rolling::epsd>;
  const auto p = R::make_params(mp, hertz_setup);
  auto c = make(1e-6, 1e-3, 1e-5, 1e-4);
  const double w = 2.0;
  c.omega_rel = {w, 0, 0};
  typename R::history h{};
  contact_state<Real> s{};
  s.stiffness = 1e4;
  s.load = 1.0;
  const double k_r = 2.25 * 1e4 * 0.2 * 0.2 * c.radius_eff * c.radius_eff;
  const double cap = 0.2 * c.radius_eff * 1.0;
  const double c_r = 0.3 * 2 * std::sqrt(c.rolling_inertia * k_r);  // Ai et al.'s I_r, not I*
  int n = 0;
  for (; n < 100000; ++n) {
    s.couple = {0, 0, 0};
    R{}(c, p, h, s);
    const double spring = k_r * w * c.dt * (n + 1);
    if (spring < cap * 0.999) {
      CHECK(h.torque.x == doctest::Approx(-spring).epsilon(1e-9).scale(0));
      CHECK(s.couple.x == doctest::Approx(-spring - c_r * w).epsilon(1e-9));
    } else if (spring > cap * 1.001) {
      CHECK(h.torque.x == doctest::Approx(-cap).scale(0));
      CHECK(s.couple.x == doctest::Approx(-cap).scale(0));  // fully mobilised: no viscous part
      break;
    }
  }
  CHECK(n > 10);  // the elastic stage lasted several steps
  CHECK(n < 100000);  // and ended
  CHECK(R::energy(c, p, h, s) == doctest::Approx(0.5 * cap * cap / k_r));
  // Reversing the rotation unloads the spring elastically.
  c.omega_rel = {-w, 0, 0};
  s.couple = {0, 0, 0};
  R{}(c, p, h, s);
  CHECK(h.torque.x == doctest::Approx(-cap + k_r * w * c.dt).scale(0));
}

TEST_CASE("slot twisting::marshall: k_tw = k_t a^2 / 2 on the twist angle, capped at 2/3 a mu F_n") {
  using W = model<twisting::marshall>;
  const auto p = W::make_params(pair_of(), hertz_setup);
  auto c = make(1e-6);
  const double spin = 3.0;
  c.omega_rel = {0, 0, spin};
  typename W::history h{};
  contact_state<Real> s{};
  s.contact_radius = 2e-5;
  s.tangential_stiffness = 500;
  s.tangential_damping = 0;
  s.friction = 0.5;
  s.load = 1.0;
  const double k = 0.5 * 500 * 4e-10, cap = 2.0 / 3.0 * 2e-5 * 0.5;
  for (int n = 1; n <= 5; ++n) {
    s.couple = {0, 0, 0};
    W{}(c, p, h, s);
    CHECK(s.couple.z == doctest::Approx(-k * spin * c.dt * n).scale(0));
  }
  c.dt = 1e3;  // a huge twist: slipping at the cap
  s.couple = {0, 0, 0};
  W{}(c, p, h, s);
  CHECK(s.couple.z == doctest::Approx(-cap).scale(0));
}

TEST_CASE("composition: slots in order, empty histories take no space, built-ins are compositions") {
  static_assert(sizeof(hertz_mindlin::law<float>::history) == sizeof(vec3<float>));
  static_assert(sizeof(hertz_mindlin_epsd::law<float>::history) == 2 * sizeof(vec3<float>));
  static_assert(sizeof(hertz_mindlin_cohesive::law<float>::history) == 2 * sizeof(vec3<float>) + sizeof(float));
  static_assert(std::is_empty_v<composed<normal::linear, damping::none, tangential::none>::law<float>::history>);
  static_assert(law_traits<hertz_mindlin_cohesive::law<float>>::has_range);
  static_assert(!law_traits<hertz_mindlin::law<float>>::has_range);
  // The composed Hertz–Mindlin equals the closed form term by term.
  const auto mp = pair_of(0.5, 0.4, 0.0);
  using L = hertz_mindlin::law<Real>;
  const auto p = L::make_params(mp);
  auto c = make(2e-6);
  c.v_n = -0.05;
  c.v_t = {1e-4, 0, 0};
  L::history h{};
  const auto f = L{}(c, p, h);
  const double a = std::sqrt(c.radius_eff * 2e-6), s_n = 2 * mp.effective_youngs * a, s_t = 8 * mp.effective_shear * a;
  const double beta = restitution::coefficient(restitution::model::hertz, 0.5);
  const double fn = 2.0 / 3.0 * s_n * 2e-6 + beta * std::sqrt(s_n * c.mass_eff) * 0.05;
  CHECK(f.force.z == doctest::Approx(fn).epsilon(1e-12));
  CHECK(f.force.x == doctest::Approx(-s_t * 1e-4 * c.dt - beta * std::sqrt(s_t * c.mass_eff) * 1e-4).epsilon(1e-12));
  CHECK(L::elastic_energy(c, p, h) ==
        doctest::Approx(8.0 / 15.0 * mp.effective_youngs * a * 4e-12 + 0.5 * s_t * norm2(h.shear)).epsilon(1e-12));
}

TEST_CASE("contact: rolling_inertia is each body's inertia about the contact point, combined in series (Ai et al. 2011)") {
  struct geometry {
    double overlap;
    vec3<Real> normal, branch_a, branch_b;
  };
  const double ra = 2e-3, rb = 1e-3, ma = 8e-5, mb = 1e-5, ia = 0.4 * ma * ra * ra, ib = 0.4 * mb * rb * rb;
  const geometry g{0, {0, 0, 1}, {0, 0, -ra}, {0, 0, rb}};
  const vec3<Real> zero{0, 0, 0};
  const auto c = dem::sim::make_contact(g, zero, zero, zero, zero, zero, ra * rb / (ra + rb),
                                        dem::sim::inverse_inertias<Real>{1 / ma, 1 / ia, 1 / mb, 1 / ib}, 0, 0, false, 1e-6, 0.0);
  CHECK(c.rolling_inertia == doctest::Approx(1 / (1 / (1.4 * ma * ra * ra) + 1 / (1.4 * mb * rb * rb))).epsilon(1e-12).scale(0));
  CHECK(c.inertia_eff == doctest::Approx(ia * ib / (ia + ib)).epsilon(1e-12).scale(0));
  CHECK(c.mass_eff == doctest::Approx(ma * mb / (ma + mb)).epsilon(1e-12).scale(0));
  // A wall (nothing for B) and an immovable body B (inverse mass and inertia 0) leave A's alone.
  const auto w = dem::sim::make_contact(g, zero, zero, zero, zero, zero, ra, dem::sim::inverse_inertias<Real>{1 / ma, 1 / ia, 0, 0}, 0, 0,
                                        true, 1e-6, 0.0);
  CHECK(w.rolling_inertia == doctest::Approx(1.4 * ma * ra * ra).epsilon(1e-12).scale(0));
  const auto f = dem::sim::make_contact(g, zero, zero, zero, zero, zero, ra, dem::sim::inverse_inertias<Real>{1 / ma, 1 / ia, 0, 0}, 0, 0,
                                        false, 1e-6, 0.0);
  CHECK(f.rolling_inertia == doctest::Approx(1.4 * ma * ra * ra).epsilon(1e-12).scale(0));
}

TEST_CASE("slot normal::jkr: JKR's contact radius, loading and unloading curves, pull-off 3/2 pi w R*, break at delta_c") {
  const auto mp = pair_of();  // w = 0.05 J/m^2
  using N = model<normal::jkr>;
  const auto p = N::make_params(mp, hertz_setup);
  const double R = 5e-4, E = mp.effective_youngs, w = mp.work_of_adhesion;
  const double brk = 0.75 * std::cbrt(M_PI * M_PI * w * w * R / (E * E));
  CHECK(N::break_gap(R, p.beta2) == doctest::Approx(brk).epsilon(1e-12).scale(0));
  CHECK(N::range(p) >= N::break_gap(1.0, p.beta2));  // listed up to the break of any R* <= 1 m
  // Closed forms, parametric in the contact radius a.
  auto delta_of = [&](double a) { return a * a / R - std::sqrt(2 * M_PI * w * a / E); };
  auto force_of = [&](double a) { return 4 * E * a * a * a / (3 * R) - std::sqrt(8 * M_PI * w * E * a * a * a); };
  const double a_fold = std::cbrt(M_PI * w * R * R / (8 * E));
  CHECK(delta_of(a_fold) == doctest::Approx(-brk).epsilon(1e-12).scale(0));
  // The solver inverts delta(a) on the stable branch, from the fold to a hundred times it.
  double worst = 0;
  for (double a = a_fold * 1.0001; a < 100 * a_fold; a *= 1.05) {
    const double solved = N::contact_radius(delta_of(a), R, p.beta2);
    worst = std::max(worst, std::abs(solved / a - 1));
  }
  CHECK(worst < 1e-9);
  // Loading from a gap, then unloading past the break.
  auto c = make(-brk, 2 * R);  // make() takes the radius of each sphere: R* = R
  REQUIRE(c.radius_eff == doctest::Approx(R).scale(0));
  typename N::history h{};
  auto force_at = [&](double d) {
    c.overlap = d;
    contact_state<Real> s{};
    N{}(c, p, h, s);
    return s.elastic - s.attraction;
  };
  CHECK(force_at(-0.5 * brk) == 0.0);  // approaching: nothing until touch
  CHECK(h.formed == 0.0);
  const double jump = force_at(0.0);  // touch: the force jumps to -4/3 pi w R
  CHECK(jump == doctest::Approx(-4.0 / 3 * M_PI * w * R).epsilon(1e-9).scale(0));
  double min_force = 0, worst_curve = 0;
  for (int k = 0; k <= 400; ++k) {  // loading deeper, then unloading to just above the break
    const double d = k <= 200 ? 4 * brk * k / 200 : 4 * brk - (4 * brk + 0.99999 * brk) * (k - 200) / 200;
    const double f = force_at(d);
    const double a = N::contact_radius(d, R, p.beta2);
    worst_curve = std::max(worst_curve, std::abs(f - force_of(a)) / (M_PI * w * R));
    min_force = std::min(min_force, f);
  }
  CHECK(worst_curve < 1e-9);
  CHECK(h.formed == 1.0);
  CHECK(min_force == doctest::Approx(-1.5 * M_PI * w * R).epsilon(0.01).scale(0));  // the pull-off force
  CHECK(force_at(-0.99999 * brk) == doctest::Approx(-5.0 / 6 * M_PI * w * R).epsilon(0.01).scale(0));  // still formed near the break
  CHECK(force_at(-1.00001 * brk) == 0.0);  // broken
  CHECK(h.formed == 0.0);
  CHECK(force_at(-0.5 * brk) == 0.0);  // and it stays broken until the next touch
}

TEST_CASE("slot normal::dmt: Hertz minus 2 pi w R* while touching, nothing apart, energy integrates the force") {
  const auto mp = pair_of();  // w = 0.05 J/m^2
  using N = model<normal::dmt>;
  const auto p = N::make_params(mp, hertz_setup);
  const double R = 5e-4, E = mp.effective_youngs, w = mp.work_of_adhesion;
  auto c = make(0, 2 * R);
  typename N::history h{};
  for (const double d : {0.0, 1e-7, 1e-6, 1e-5}) {
    c.overlap = d;
    contact_state<Real> s{};
    N{}(c, p, h, s);
    CHECK(s.elastic - s.attraction == doctest::Approx(4.0 / 3 * E * std::sqrt(R) * std::pow(d, 1.5) - 2 * M_PI * w * R).epsilon(1e-12).scale(0));
    // dE/dd = F, by central differences
    const double e = 1e-3 * std::max(d, 1e-8);
    auto energy = [&](double x) {
      auto cx = c;
      cx.overlap = x;
      contact_state<Real> sx{};
      N{}(cx, p, h, sx);
      return N::energy(cx, p, h, sx);
    };
    if (d > 0) CHECK((energy(d + e) - energy(d - e)) / (2 * e) == doctest::Approx(s.elastic - s.attraction).epsilon(1e-5).scale(0));
  }
  c.overlap = -1e-9;
  contact_state<Real> s{};
  N{}(c, p, h, s);
  CHECK(s.elastic == 0.0);
  CHECK(s.attraction == 0.0);
}
