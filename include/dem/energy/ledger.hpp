#pragma once
// The energy ledger: where the energy of a run went, step by step.
//
//   input (external forces, moving boundaries)  =  ΔKE + ΔPE + Δ(elastic energy) + dissipated
//
// with the dissipation measured per mechanism, contact by contact (pairs and planes):
//   normal damping        the work of the damping slot's part of the normal force
//   tangential            the work of the tangential force minus the change of the energy its
//                         spring stores: sliding and tangential damping
//   rolling, twisting     the same for the rolling and twisting couples
//   other                 laws that are not compositions of slots: the work of the whole contact
//                         minus the change of its elastic energy (the law's elastic_energy, if it
//                         has one)
// Each work is the trapezoid rule over the step, ½ (f(t_n) + f(t_n+1)) · v_rel(t_n+½) dt, which is
// how velocity Verlet applies the force (KE(n+1) - KE(n) = ½ (F_n + F_n+1)·Δx + dt²/8m (|F_n+1|² - |F_n|²)
// exactly, for each particle; the last term telescopes and is kept as `shadow`). Nothing here feeds
// back into the run: the ledger's kernels evaluate the law on copies of the history before each
// force evaluation, with the same inputs (laws are pure functions), so a run gives the same bits
// with the ledger on or off. What does not close is the integration error of the elastic normal
// force (its trapezoid work against the exact change of its potential), rounding and the branch
// vectors' small turn within a step: the closure is a measure of how well dt resolves the contacts.
//
// Gravity's work is accumulated per step (m g · Δx) and also equals -ΔPE while gravity is fixed.
// Work by external forces and moving boundaries is zero until those exist (families and
// boundaries issues); the ledger has their entries already. Spheres with velocity Verlet only.
#include <cmath>
#include <cstdint>

#include "dem/config.hpp"
#include "dem/force/compose.hpp"
#include "dem/force/concept.hpp"
#include "dem/sim/particle_view.hpp"
#include "dem/sim/step_kernels.hpp"

namespace dem::energy {

// The balance since the ledger was started (Simulator::enable_energy_ledger), in joules.
struct ledger {
  std::uint64_t steps = 0;
  // State functions at the start and now.
  double kinetic_start = 0, kinetic = 0;      // translation + rotation
  double potential_start = 0, potential = 0;  // gravity
  double elastic_start = 0, elastic = 0;      // stored in the contacts (laws with elastic_energy)
  double shadow_start = 0, shadow = 0;        // Σ dt²/8 (|F|²/m + |T|²/I): velocity Verlet's shadow term
  // Accumulated over the steps.
  double gravity_work = 0;
  double external_work = 0;  // user forces (none yet)
  double boundary_work = 0;  // moving boundaries (none yet)
  double normal_damping = 0, tangential = 0, rolling = 0, twisting = 0, other = 0;

  double input() const { return external_work + boundary_work; }
  double dissipated() const { return normal_damping + tangential + rolling + twisting + other; }
  double kinetic_change() const { return kinetic - kinetic_start; }
  double potential_change() const { return potential - potential_start; }
  double elastic_change() const { return elastic - elastic_start; }
  // input - (ΔKE + ΔPE + ΔE_elastic + dissipated), with the shadow term of velocity Verlet's KE.
  double imbalance() const {
    return input() - ((kinetic_change() - (shadow - shadow_start)) + potential_change() + elastic_change() + dissipated());
  }
  // The imbalance relative to the energy that went through the system: the input plus what
  // gravity released (-ΔPE when positive) plus the kinetic energy at the start.
  double relative_imbalance() const {
    const double turnover = std::fabs(input()) + std::fmax(0.0, -potential_change()) + std::fmax(0.0, potential_change()) + kinetic_start;
    return turnover > 0 ? std::fabs(imbalance()) / turnover : 0.0;
  }
};

// Per contact (pair or particle-plane), what the ledger keeps from one evaluation to the next: the
// slots' forces and couples, and the energies of their springs. For laws that are not compositions:
// [0] force, [1] couple, [2] torque-only force, e[0] elastic energy.
template <class Real>
struct contact_record {
  vec3<Real> part[4];
  Real e[3];
};

// One step's dissipation of a contact, by mechanism (what the ledger reduces), and gravity's work
// for a particle's record.
struct step_energy {
  double normal_damping, tangential, rolling, twisting, other, gravity_work;
};

namespace detail {
template <class Law>
concept composed_law = requires { &Law::run_parts; };

// This evaluation's record of one contact, and its dissipation over the step given the last one.
// v_rot: the rotational part of the contact-point velocity (omega_A x branch_a - omega_B x branch_b),
// which a torque-only force works against. `h` is a copy: the run's history is not touched.
template <class Law, class Real>
DEM_HD inline void account(const Law& law, const force::contact<Real>& c, const vec3<Real>& v_rot, const typename Law::params& prm,
                           typename Law::history h, typename force::law_traits<Law>::wildcards_type& w, bool touching,
                           contact_record<Real>& rec, step_energy& out) {
  contact_record<Real> now{};
  if constexpr (composed_law<Law>) {
    force::slot_parts<Real> parts;
    (void)law;
    (void)w;
    Law::run_parts(c, prm, h, parts);
    now.part[0] = parts.damping_force;
    now.part[1] = parts.tangential_force;
    now.part[2] = parts.rolling_couple;
    now.part[3] = parts.twisting_couple;
    now.e[0] = parts.tangential_energy;
    now.e[1] = parts.rolling_energy;
    now.e[2] = parts.twisting_energy;
  } else {
    const force::contact_force<Real> f = force::evaluate(law, c, prm, h, w);
    now.part[0] = f.force;
    now.part[1] = f.torque;
    now.part[2] = f.torque_only_force;
    if constexpr (force::has_elastic_energy<Law, Real>) now.e[0] = Law::elastic_energy(c, prm, h);
  }
  if (!touching) now = contact_record<Real>{};
  const double dt = static_cast<double>(c.dt);
  auto work = [&](int k, const vec3<Real>& velocity) { return 0.5 * dot(vec3d(rec.part[k]) + vec3d(now.part[k]), vec3d(velocity)) * dt; };
  out = step_energy{};
  if constexpr (composed_law<Law>) {
    out.normal_damping = -work(0, c.v_rel);
    out.tangential = -work(1, c.v_rel) - (double(now.e[0]) - double(rec.e[0]));
    out.rolling = -work(2, c.omega_rel) - (double(now.e[1]) - double(rec.e[1]));
    out.twisting = -work(3, c.omega_rel) - (double(now.e[2]) - double(rec.e[2]));
  } else {
    out.other = -work(0, c.v_rel) - work(1, c.omega_rel) - work(2, v_rot) - (double(now.e[0]) - double(rec.e[0]));
  }
  rec = now;
}
}  // namespace detail

// Before a force evaluation, per listed pair: the record and the step's dissipation (on a copy of
// the pair's history: the pair kernel that follows sees it unchanged).
template <class P>
struct ledger_pair_kernel {
  using Real = typename P::real;
  using Law = typename P::law;
  using traits = force::law_traits<Law>;
  sim::particle_view<typename P::coord_space> p;
  typename P::coord_space::params coord;
  const std::uint32_t* pair_a;
  const std::uint32_t* pair_b;
  const typename Law::history* history;  // null for laws without history
  const typename Law::params* table;
  std::uint32_t num_materials;
  sim::wildcard_view<typename traits::owner_wildcards, typename traits::geometry_wildcards> wc;
  contact_record<Real>* records;
  step_energy* out;
  Real dt, time;
  DEM_HD void operator()(index_t c) const {
    const std::uint32_t a = pair_a[c], b = pair_b[c];
    const material_id ma = static_cast<material_id>(p.material[a]), mb = static_cast<material_id>(p.material[b]);
    const typename Law::params prm = table[ma * num_materials + mb];
    typename P::shape::template pair_geometry<Real> g;
    force::contact<Real> ct;
    const bool touching = sim::pair_contact<P>(p, coord, a, b, ma, mb, sim::range_of<Law, Real>(prm), dt, time, g, ct);
    const typename traits::owner_wildcards no_owner{};
    const typename traits::geometry_wildcards no_geometry{};
    typename traits::wildcards_type w = sim::wildcards_of<traits>(wc, a, b, false, no_owner, no_geometry);
    const vec3<Real> v_rot = cross(p.omega[a], ct.branch_a) - cross(p.omega[b], ct.branch_b);
    detail::account(Law{}, ct, v_rot, prm, sim::history_of<Law>(history, c), w, touching, records[c], out[c]);
  }
};

// Before a force evaluation, per particle: gravity's work over the step and the dissipation of
// its plane contacts (records per particle and plane, on copies of the wall history).
template <class P>
struct ledger_particle_kernel {
  using Real = typename P::real;
  using Law = typename P::law;
  using traits = force::law_traits<Law>;
  sim::particle_view<typename P::coord_space> p;
  typename P::coord_space::params coord;
  const sim::plane<Real>* planes;
  std::uint32_t num_planes;
  const typename Law::history* wall_history;  // null for laws without history
  const typename Law::params* table;
  std::uint32_t num_materials;
  sim::wildcard_view<typename traits::owner_wildcards, typename traits::geometry_wildcards> wc;
  vec3<Real> gravity;
  contact_record<Real>* records;  // num_planes per particle
  step_energy* out;
  Real dt, time;
  DEM_HD void operator()(index_t i) const {
    step_energy sum{};
    if (!p.active[i]) {
      out[i] = sum;
      return;
    }
    // Velocities are the half-step ones the drift used: this is m g . Δx.
    sum.gravity_work = static_cast<double>(dot(gravity, p.vel[i])) / static_cast<double>(p.inv_mass[i]) * static_cast<double>(dt);
    const typename traits::owner_wildcards no_owner{};
    const typename traits::geometry_wildcards no_geometry{};
    for (std::uint32_t candidates = p.plane_near[i] | p.plane_touch[i]; candidates; candidates &= candidates - 1) {
      const auto k = static_cast<std::uint32_t>(sim::lowest_bit(candidates));
      const typename Law::params& prm = table[p.material[i] * num_materials + planes[k].material];
      typename P::shape::template pair_geometry<Real> g;
      force::contact<Real> ct;
      contact_record<Real>& rec = records[i * num_planes + k];
      const bool touching = sim::plane_contact<P>(p, coord, i, planes[k], sim::range_of<Law, Real>(prm), dt, time, g, ct);
      if (!touching) {
        // A contact that ended: its last forces worked over this step at the sphere's point nearest the plane.
        const vec3<Real> zero{0, 0, 0};
        g = {};
        g.normal = planes[k].normal;
        g.branch_a = planes[k].normal * -p.radius[i];
        ct = sim::make_contact(g, zero, p.vel[i], p.omega[i], zero, zero, p.radius[i], Real(1), Real(1), p.material[i], planes[k].material, true,
                               dt, time);
      }
      typename traits::wildcards_type w = sim::wildcards_of<traits>(wc, i, i, true, no_owner, no_geometry);
      step_energy e;
      detail::account(Law{}, ct, vec3<Real>(cross(p.omega[i], ct.branch_a)), prm, sim::history_of<Law>(wall_history, i * num_planes + k), w,
                      touching, rec, e);
      sum.normal_damping += e.normal_damping;
      sum.tangential += e.tangential;
      sum.rolling += e.rolling;
      sum.twisting += e.twisting;
      sum.other += e.other;
    }
    out[i] = sum;
  }
};

// Velocity Verlet's shadow term of the kinetic energy: dt²/8 (|F|²/m + |T|²/I) per particle.
template <class P>
struct shadow_energy_of {
  sim::particle_view<typename P::coord_space> p;
  double dt;
  DEM_HD double operator()(index_t i) const {
    if (!p.active[i]) return 0.0;
    return dt * dt / 8.0 *
           (static_cast<double>(norm2(p.force[i])) * static_cast<double>(p.inv_mass[i]) +
            static_cast<double>(norm2(p.torque[i])) * static_cast<double>(p.inv_inertia[i]));
  }
};

template <int Field>
struct field_of {
  const step_energy* e;
  DEM_HD double operator()(index_t i) const {
    if constexpr (Field == 0) return e[i].normal_damping;
    else if constexpr (Field == 1) return e[i].tangential;
    else if constexpr (Field == 2) return e[i].rolling;
    else if constexpr (Field == 3) return e[i].twisting;
    else if constexpr (Field == 4) return e[i].other;
    else return e[i].gravity_work;
  }
};

// The ledger's memory in the backend: per contact its records (carried across contact-list
// rebuilds by the pair's id key, as history is), per particle and plane its plane records, and
// the step's per-contact and per-particle results.
template <class Backend, class Real>
struct ledger_buffers {
  template <class T>
  using buffer = typename Backend::template buffer<T>;
  buffer<contact_record<Real>> records, old_records, plane_records;
  buffer<std::uint64_t> key, old_key;
  buffer<std::uint32_t> index, old_index;
  buffer<step_energy> pair_out, particle_out;
  std::uint32_t listed = 0;  // contacts the records are for
  void clear() {
    records.clear();
    old_records.clear();
    plane_records.clear();
    key.clear();
    old_key.clear();
    index.clear();
    old_index.clear();
    pair_out.clear();
    particle_out.clear();
    listed = 0;
  }
};

}  // namespace dem::energy
