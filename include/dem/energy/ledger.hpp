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
// Gravity's work is accumulated per step (m g · Δx) and equals -ΔPE (Simulator::set_gravity re-bases
// the potential energy and the shadow term when gravity changes between steps).
// Moving boundaries' work is F · v_b + C · ω_b over each wall contact, by the same trapezoid rule.
// External forces' work (Simulator::set_external_forces) is F · Δx + T · Δθ per step. Spheres with
// velocity Verlet only.
#include <cmath>
#include <cstdint>

#include "dem/config.hpp"
#include "dem/force/compose.hpp"
#include "dem/force/concept.hpp"
#include "dem/sim/particle_view.hpp"
#include "dem/boundary/wall_forces.hpp"
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
  double external_work = 0;  // user forces (Simulator::set_external_forces)
  double boundary_work = 0;  // moving boundaries: the work they did on the particles
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

// Per contact (pair or particle-boundary), what the ledger keeps from one evaluation to the next:
// the slots' forces and couples, and the energies of their springs; [4] and [5] the whole force and
// couple (what a moving boundary works with). For laws that are not compositions: [0] force,
// [1] couple, [2] torque-only force, e[0] elastic energy.
template <class Real>
struct contact_record {
  vec3<Real> part[6];
  Real e[3];
};

// How the other side of a contact moves, for the work it does (zero for pairs and fixed boundaries):
// the velocity of its point at the contact, its angular velocity, and omega_b x branch_b.
template <class Real>
struct wall_motion {
  vec3<Real> velocity, omega, turn;
};

// One step's dissipation of a contact, by mechanism (what the ledger reduces), and gravity's work
// for a particle's record.
struct step_energy {
  double normal_damping, tangential, rolling, twisting, other, gravity_work, boundary_work, external_work;
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
                           contact_record<Real>& rec, step_energy& out, const wall_motion<Real>& wall = {}) {
  contact_record<Real> now{};
  if constexpr (composed_law<Law>) {
    force::slot_parts<Real> parts;
    (void)law;
    (void)w;
    const auto s = Law::run_parts(c, prm, h, parts);
    now.part[0] = parts.damping_force;
    now.part[1] = parts.tangential_force;
    now.part[2] = parts.rolling_couple;
    now.part[3] = parts.twisting_couple;
    now.part[4] = c.normal * s.normal_force + s.tangential_force;
    now.part[5] = s.couple;
    now.e[0] = parts.tangential_energy;
    now.e[1] = parts.rolling_energy;
    now.e[2] = parts.twisting_energy;
  } else {
    const force::contact_force<Real> f = force::evaluate(law, c, prm, h, w);
    now.part[0] = now.part[4] = f.force;
    now.part[1] = now.part[5] = f.torque;
    now.part[2] = f.torque_only_force;
    if constexpr (force::has_elastic_energy<Law, Real>) now.e[0] = Law::elastic_energy(c, prm, h);
  }
  if (!touching) now = contact_record<Real>{};
  const double dt = static_cast<double>(c.dt);
  auto work = [&](int k, const vec3<Real>& velocity) { return 0.5 * dot(vec3d(rec.part[k]) + vec3d(now.part[k]), vec3d(velocity)) * dt; };
  out = step_energy{};
  // What the other side (a moving boundary) puts in: F . v_b + C . omega_b (+ the torque-only force
  // against omega_b x branch_b).
  out.boundary_work = work(4, wall.velocity) + work(5, wall.omega) + (composed_law<Law> ? 0.0 : work(2, wall.turn));
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

// Before a force evaluation, per particle: gravity's work over the step, and the dissipation and
// boundary work of its wall contacts (records per wall entry, carried across builds as wall
// histories are; the contact rule and the history takeover run on a copy of the histories).
template <class P>
struct ledger_particle_kernel {
  using Real = typename P::real;
  using Law = typename P::law;
  using traits = force::law_traits<Law>;
  static_assert(!P::rigid, "the energy ledger is for spheres");
  sim::particle_view<typename P::coord_space> p;
  typename P::coord_space::params coord;
  boundary::boundary_view<Real> boundaries;
  boundary::wall_view<Real, typename P::plane_history> walls;  // the run's: histories only read
  typename P::plane_history* history_copy;                     // per wall entry: scratch
  const typename Law::params* table;
  std::uint32_t num_materials;
  sim::wildcard_view<typename traits::owner_wildcards, typename traits::geometry_wildcards> wc;
  vec3<Real> gravity;
  const vec3<Real>* external_force;  // per particle; null without external forces
  const vec3<Real>* external_torque;
  contact_record<Real>* records;  // per wall entry
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
    if (external_force)  // F . Δx + T . Δθ with the half-step velocities (the values stay constant within a step)
      sum.external_work = (static_cast<double>(dot(external_force[i], p.vel[i])) + static_cast<double>(dot(external_torque[i], p.omega[i]))) *
                          static_cast<double>(dt);
    const std::uint32_t first = walls.offset[i], last = walls.offset[i + 1];
    if (first != last) {
      for (std::uint32_t e = first; e < last; ++e) history_copy[e] = walls.history[e];
      const sim::rigid_view<Real, typename P::shape_data> no_rigid{};
      boundary::wall_reports<P>(p, no_rigid, coord, i, boundaries, walls, table, num_materials);
      boundary::wall_takeover<P>(first, last, 1, boundaries, walls.element, walls.reports, history_copy);
      const typename traits::owner_wildcards no_owner{};
      const typename traits::geometry_wildcards no_geometry{};
      const material_id mi = static_cast<material_id>(p.material[i]);
      const shape::probe<Real> self{vec3<Real>{0, 0, 0}, p.radius[i], mi, p.radius[i]};
      for (std::uint32_t e = first; e < last; ++e) {
        const bool touching = (walls.reports[e].feature & boundary::accepted_bit) != 0;
        contact_record<Real>& rec = records[e];
        if (!touching && !(history_copy[e].touching & 1u)) {  // neither now nor at the last evaluation
          rec = contact_record<Real>{};
          continue;
        }
        const boundary::element<Real>& el = boundaries.elements[walls.element[e]];
        const boundary::frame<Real>& fr = boundaries.frames[el.boundary];
        shape::sphere::pair_geometry<Real> g;
        const force::contact<Real> ct = boundary::wall_contact<P>(p, coord, i, self, mi, el, fr, dt, time, g);
        typename traits::wildcards_type w = sim::wildcards_of<traits>(wc, i, i, true, no_owner, no_geometry);
        const wall_motion<Real> wm{fr.velocity_at(g.branch_b), fr.omega, cross(fr.omega, g.branch_b)};
        step_energy en;
        detail::account(Law{}, ct, vec3<Real>(cross(p.omega[i], ct.branch_a) - cross(fr.omega, g.branch_b)),
                        table[mi * num_materials + fr.material], history_copy[e].slot[0], w, touching, rec, en, wm);
        sum.normal_damping += en.normal_damping;
        sum.tangential += en.tangential;
        sum.rolling += en.rolling;
        sum.twisting += en.twisting;
        sum.other += en.other;
        sum.boundary_work += en.boundary_work;
      }
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
            static_cast<double>(norm2(p.torque[i])) * static_cast<double>(sim::inverse_inertia<P>(p, i)));
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
    else if constexpr (Field == 5) return e[i].gravity_work;
    else if constexpr (Field == 6) return e[i].boundary_work;
    else return e[i].external_work;
  }
};

// The ledger's memory in the backend: per contact its records (carried across contact-list
// rebuilds by the pair's id key, as history is), per wall entry its wall records (carried as wall
// histories are) and a scratch copy of the wall histories, and the step's per-contact and
// per-particle results.
template <class Backend, class Real, class WallHistory>
struct ledger_buffers {
  template <class T>
  using buffer = typename Backend::template buffer<T>;
  buffer<contact_record<Real>> records, old_records, wall_records, old_wall_records;
  buffer<WallHistory> wall_history_copy;
  buffer<std::uint64_t> key, old_key;
  buffer<std::uint32_t> index, old_index;
  buffer<step_energy> pair_out, particle_out;
  std::uint32_t listed = 0;  // contacts the records are for
  void clear() {
    records.clear();
    old_records.clear();
    wall_records.clear();
    old_wall_records.clear();
    wall_history_copy.clear();
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
