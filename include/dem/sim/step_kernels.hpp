#pragma once
// The kernels of one time step, written once for every backend. Each is a functor over an index;
// the backend decides how the loop runs. Template parameters fix every policy, so the compiler
// inlines the force law and integrator: nothing is dispatched at run time.
#include <cmath>
#include <array>
#include <bit>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "dem/backend/atomic.hpp"
#include "dem/boundary/wall_forces.hpp"
#include "dem/config.hpp"
#include "dem/deform/radius_kernel.hpp"
#include "dem/family/rule.hpp"
#include "dem/force/concept.hpp"
#include "dem/force/contact.hpp"
#include "dem/integrate/integrators.hpp"
#include "dem/integrate/rigid_body.hpp"
#include "dem/shape/rigid_contact.hpp"
#include "dem/sim/contact_helpers.hpp"
#include "dem/sim/particle_view.hpp"

namespace dem::sim {

// The contact of listed pair (a, b) as a law sees it, and whether they touch (within `range`). Both
// particles are active: lists are built from active particles, and losing one invalidates the list
// before the next force evaluation (Simulator::check_status). The contact is filled either way (the
// pair loop is branch-free); reads go through sim::load (gathers on the host).
template <class P>
DEM_HD DEM_INLINE bool pair_contact(const particle_view<typename P::coord_space>& p, const typename P::coord_space::params& coord, std::uint32_t a,
                                std::uint32_t b, material_id ma, material_id mb, typename P::real range, typename P::real dt,
                                typename P::real time, typename P::shape::template pair_geometry<typename P::real>& g,
                                force::contact<typename P::real>& ct) {
  using Real = typename P::real;
  using Space = typename P::coord_space;
  const Real ra = load(p.radius, a), rb = load(p.radius, b);
  vec3<Real> xa, d;
  if constexpr (requires { Space::gather_difference(coord, p.pos, a, b, xa); }) {
    d = Space::gather_difference(coord, p.pos, a, b, xa);  // coord::voxel: read as words (vectorises)
  } else {
    const auto pa = load(p.pos, a);
    d = Space::difference(coord, pa, load(p.pos, b));
    xa = Space::to_real(coord, pa);
  }
  const bool touching = P::shape::collide(d, ra, rb, g, range);
  const Real ima = load(p.inv_mass, a), imb = load(p.inv_mass, b);
  Real rest_a = ra, rest_b = rb;  // the radii the inertia follows (sim::inverse_inertia)
  if constexpr (P::deformable) {
    rest_a = load(p.volume_radius, a);
    rest_b = load(p.volume_radius, b);
  }
  ct = make_contact(g, xa, load(p.vel, a), load(p.omega, a), load(p.vel, b), load(p.omega, b), ra * rb / (ra + rb),
                    inverse_inertias<Real>{ima, sphere_inverse_inertia(ima, rest_a), imb, sphere_inverse_inertia(imb, rest_b)}, ma,
                    mb, false, dt, time);
  return touching;
}

// Evaluates the law for every listed pair; pairs not in contact get zero force and lose history.
// Branch-free: the law runs for every listed pair and the results of pairs that do not touch are
// replaced by zeros (laws are pure functions of their arguments and history, so this changes
// nothing but lets the host compiler vectorise the loop and keeps GPU warps converged).
template <class P, bool OneMaterial = false>
struct pair_force_kernel {
  using Real = typename P::real;
  using Space = typename P::coord_space;
  using Law = typename P::law;
  using Shape = typename P::shape;
  using traits = force::law_traits<Law>;
  particle_view<Space> p;
  typename Space::params coord;
  const std::uint32_t* pair_a;
  const std::uint32_t* pair_b;
  typename Law::history* history;
  const typename Law::params* table;
  std::uint32_t num_materials;
  contact_results<Real> out;
  wildcard_view<typename traits::owner_wildcards, typename traits::geometry_wildcards> wc;
  Real dt, time;
  deform::cap_arrays<Real> deform_caps{};  // deformable spheres: each side's cap at its first Newton iterate
  Real deform_limit = 0;                            // (deform::pair_cap), for the particle kernel's radius update

  DEM_HD DEM_KERNEL void operator()(index_t c) const {
    const std::uint32_t a = pair_a[c], b = pair_b[c];
    // With one material the parameters are the same for every pair: read once, not gathered.
    const material_id ma = OneMaterial ? 0 : load(p.material, a), mb = OneMaterial ? 0 : load(p.material, b);
    const typename Law::params prm = OneMaterial ? table[0] : load(table, ma * num_materials + mb);
    typename Shape::template pair_geometry<Real> g;
    force::contact<Real> ct;
    const bool touching = pair_contact<P>(p, coord, a, b, ma, mb, range_of<Law, Real>(prm), dt, time, g, ct);
    if constexpr (deform::caps_in_pair_kernel<P>) {  // every step (a store under a condition kept the loop scalar)
      // Before the history's stores: the radii pair_contact gathered are reused, not gathered again.
      const Real ra = load(p.radius, a), rb = load(p.radius, b);
      const std::size_t e = 2 * static_cast<std::size_t>(c);
      deform_caps.store(e, deform::pair_cap(g.dist, rb, load(p.volume_radius, a), ra, deform_limit));
      deform_caps.store(e + 1, deform::pair_cap(g.dist, ra, load(p.volume_radius, b), rb, deform_limit));
    }
    // A law without history reads a local; the slot is chosen by pointer (a lambda returning either
    // reference made nvcc warn of a reference to a local).
    typename Law::history none{};
    typename Law::history* slot = &none;
    if constexpr (traits::has_history) slot = &history[c];
    typename Law::history& h = *slot;
    const typename traits::owner_wildcards no_owner{};
    const typename traits::geometry_wildcards no_geometry{};
    typename traits::wildcards_type w = wildcards_of<traits>(wc, a, b, false, no_owner, no_geometry);
    const force::contact_force<Real> r = force::evaluate(Law{}, ct, prm, h, w);
    if constexpr (traits::has_history)
      keep_or_reset(touching, h);  // a contact that ended (or never began) restarts its history
    const vec3<Real> zero{0, 0, 0};
    const vec3<Real> lever = r.force + r.torque_only_force;
    const std::size_t c2 = 2 * static_cast<std::size_t>(c);  // widened first: GCC then sees consecutive stores, not a scatter
    store(out.force[c], select(touching, r.force, zero));
    store(out.torque[static_cast<std::size_t>(c)], select(touching, cross(g.branch_a, lever) + r.torque, zero));
    if constexpr (!P::one_torque_per_pair) store(out.torque[out.pairs + c], select(touching, cross(g.branch_b, -lever) - r.torque, zero));
    if constexpr (traits::writes_owner_wildcards) {
      wc.owner_increment[c2] = touching ? w.owner_increment_a : no_owner;
      wc.owner_increment[c2 + 1] = touching ? w.owner_increment_b : no_owner;
    }
    if constexpr (traits::writes_geometry_wildcards) {
      wc.geometry_increment[c2] = touching ? w.geometry_increment_a : no_geometry;
      wc.geometry_increment[c2 + 1] = touching ? w.geometry_increment_b : no_geometry;
    }
  }
};

// The integrator's two halves for one particle: translation through `motion`, rotation of spheres
// through the scalar inertia, rotation of rigid bodies through integrate/rigid_body.hpp (principal
// inertia, orientation, gyroscopic term). Each returns the displacement to apply.
template <class P>
DEM_HD inline vec3<typename P::real> start_step(const particle_view<typename P::coord_space>& p,
                                                const rigid_view<typename P::real, typename P::shape_data>& r, index_t i,
                                                typename P::real dt) {
  using Real = typename P::real;
  if constexpr (P::rigid) {
    integrate::motion<Real> m{p.vel[i], vec3<Real>{0, 0, 0}, p.force[i], vec3<Real>{0, 0, 0}, p.inv_mass[i], p.inv_inertia[i]};
    const vec3<Real> dx = P::integrator::pre_force(m, dt);
    p.vel[i] = m.velocity;
    integrate::rotation_state<Real> s{r.orientation[i], p.omega[i], p.torque[i], r.inertia[i]};
    integrate::rotation_scheme_t<typename P::integrator>::pre_force(s, dt);
    r.orientation[i] = s.orientation;
    p.omega[i] = s.omega;
    return dx;
  } else {
    integrate::motion<Real> m{p.vel[i], p.omega[i], p.force[i], p.torque[i], p.inv_mass[i], inverse_inertia<P>(p, i)};
    const vec3<Real> dx = P::integrator::pre_force(m, dt);
    p.vel[i] = m.velocity;
    p.omega[i] = m.omega;
    return dx;
  }
}

template <class P>
DEM_HD inline vec3<typename P::real> finish_step(const particle_view<typename P::coord_space>& p,
                                                 const rigid_view<typename P::real, typename P::shape_data>& r, index_t i,
                                                 const vec3<typename P::real>& force, const vec3<typename P::real>& torque,
                                                 typename P::real dt) {
  using Real = typename P::real;
  if constexpr (P::rigid) {
    integrate::motion<Real> m{p.vel[i], vec3<Real>{0, 0, 0}, force, vec3<Real>{0, 0, 0}, p.inv_mass[i], p.inv_inertia[i]};
    const vec3<Real> dx = P::integrator::post_force(m, dt);
    p.vel[i] = m.velocity;
    integrate::rotation_state<Real> s{r.orientation[i], p.omega[i], torque, r.inertia[i]};
    integrate::rotation_scheme_t<typename P::integrator>::post_force(s, dt);
    r.orientation[i] = s.orientation;
    p.omega[i] = s.omega;
    return dx;
  } else {
    integrate::motion<Real> m{p.vel[i], p.omega[i], force, torque, p.inv_mass[i], inverse_inertia<P>(p, i)};
    const vec3<Real> dx = P::integrator::post_force(m, dt);
    p.vel[i] = m.velocity;
    p.omega[i] = m.omega;
    return dx;
  }
}

// What the end-of-step check found for a particle: nothing, a diverged state (non-finite, or faster
// than config.max_speed) or a position outside the domain.
enum particle_status : std::uint32_t { particle_ok = 0, particle_bad = 1, particle_lost = 2 };

// From the state after the step, without branches (the host's integration loop vectorises). NaN
// fails every comparison; a non-finite displacement comes from a non-finite velocity, which this
// sees (velocity Verlet's drift uses the half-step velocity, whose NaN the kick keeps).
template <class Space>
DEM_HD inline std::uint32_t status_of(const particle_view<Space>& p, const typename Space::params& coord, index_t i,
                                      typename Space::real max_speed2) {
  const bool bad = (int(!(norm2(p.vel[i]) <= max_speed2)) | int(!all_finite(p.omega[i]))) != 0;
  const bool lost = (int(!bad) & int(!Space::inside(coord, p.pos[i]))) != 0;
  return (bad ? std::uint32_t{particle_bad} : 0u) | (lost ? std::uint32_t{particle_lost} : 0u);
}

// Records a status: the smallest diverged particle, or a lost particle taken out of the simulation.
template <class Space>
DEM_HD inline void record_status(const particle_view<Space>& p, index_t i, std::uint32_t s, std::uint32_t* status) {
  using Real = typename Space::real;
  if (s & particle_bad) {
    atomic::min(&status[bad_particle], i);
  } else if (s & particle_lost) {
    p.active[i] = 0;
    p.vel[i] = p.omega[i] = vec3<Real>{0, 0, 0};
    atomic::add(&status[lost_count], 1u);
  }
}

template <class T>
DEM_HD inline void assign(T& dst, const T& v) {
#if !DEM_DEVICE_PATHS && defined(__GNUC__)
  // Two-word structs (coord::voxel positions) copied as words: an aggregate copy kept the host's
  // integration loops scalar.
  if constexpr (sizeof(T) == 16 && alignof(T) == 8 && std::is_trivially_copyable_v<T>) {
    detail::word64_alias* d = reinterpret_cast<detail::word64_alias*>(&dst);
    const detail::word64_alias* s = reinterpret_cast<const detail::word64_alias*>(&v);
    d[0] = s[0];
    d[1] = s[1];
    return;
  }
#endif
  dst = v;
}
template <class T>
DEM_HD inline void assign(vec3<T>& dst, const vec3<T>& v) { store(dst, v); }  // component-wise (see store)

// Gathers contact forces, adds the boundaries', gravity and the external forces, then (when `integrate` and `finish`) finishes
// the step. The host passes finish = false for spheres and runs sphere_finish_kernel instead.
// The sum runs in the incident list's order, which is canonical (by partner id): the result does
// not depend on thread count, storage order or when the contact list was built.
template <class P>
struct particle_update_kernel {
  using Real = typename P::real;
  using G = typename P::gather;
  using Space = typename P::coord_space;
  using Law = typename P::law;
  using Integrator = typename P::integrator;
  using traits = force::law_traits<Law>;
  particle_view<Space> p;
  typename Space::params coord;
  const std::uint32_t* incident_offset;
  const std::uint32_t* incident_entry;
  contact_results<Real> in;
  boundary::boundary_view<Real> boundaries;
  boundary::wall_view<Real, typename P::plane_history> walls;
  const typename Law::params* table;
  std::uint32_t num_materials;
  wildcard_view<typename traits::owner_wildcards, typename traits::geometry_wildcards> wc;
  rigid_view<Real, typename P::shape_data> r;  // rigid bodies only
  vec3<Real> gravity;
  const vec3<Real>* external_force;  // per particle; null without external forces (sim/external_forces.hpp)
  const vec3<Real>* external_torque;
  family::rule_view<Real> families;  // null ids: no family rule anywhere (family/rule.hpp)
  Real dt, time;
  Real max_speed2;
  bool integrate;
  bool finish;
  std::uint32_t* status;
  deform::in_step<Real> deform{};  // deformable spheres under velocity Verlet: the next R' (null `next` otherwise)
  // Per particle: its listed pairs that touched (a non-zero force), up to 255, for the contact
  // inspectors' coordination histogram (inspect/contact_summary.hpp). Counted here because this
  // loop already reads every incident force; an inspector gathering them again cost most of a step.
  std::uint8_t* touching_count = nullptr;

  DEM_HD DEM_FLATTEN void operator()(index_t i) const {
    if (!p.active[i]) {  // no force on a particle out of the simulation (sphere_finish_kernel relies on it)
      p.force[i] = p.torque[i] = vec3<Real>{0, 0, 0};
      if constexpr (P::deformable)
        if (integrate && deform.next) deform.next[i] = p.radius[i];
      if (families.family) families.contact_force[i] = families.contact_torque[i] = vec3<Real>{0, 0, 0};
      if (touching_count) touching_count[i] = 0;
      return;
    }
    vec3<G> f{0, 0, 0}, t{0, 0, 0};
    std::uint32_t touching = 0;
    typename traits::owner_wildcards owner_sum{};
    typename traits::geometry_wildcards geometry_sum{};
    const Real signs[2] = {Real(1), Real(-1)};
    deform::cap_record<Real> caps{};  // deformable spheres: the caps of the listed pairs' planes
    for (std::uint32_t k = incident_offset[i]; k < incident_offset[i + 1]; ++k) {
      const std::uint32_t e = incident_entry[k];
      const Real sign = signs[e & 1u];  // B gets -force (a table: GCC made the conditional a branch, mispredicted half the time)
      const vec3<Real> fc = in.force[e >> 1];
      f += vec3<G>(fc * sign);
      touching += is_touching(fc);
      if constexpr (P::one_torque_per_pair) {
        // B's torque from A's (sim::contact_results). A pair out of reach stored +0 force and torque:
        // B's is then a zero too, and a zero of either sign leaves the sum, which starts at +0, as it is.
        const vec3<Real> ta = in.torque[e >> 1];
        const vec3<Real> d = Space::difference(coord, p.pos[in.pair_a[e >> 1]], p.pos[i]);
        t += vec3<G>((e & 1u) ? -cross(d, fc) - ta : ta);
      } else {
        t += vec3<G>(in.torque[in.on_side(e)]);
      }
      if constexpr (deform::caps_in_pair_kernel<P>) deform::add_entry(caps, deform.caps[e]);
      if constexpr (traits::writes_owner_wildcards) owner_sum += wc.owner_increment[e];
      if constexpr (traits::writes_geometry_wildcards) geometry_sum += wc.geometry_increment[e];
    }
    if (touching_count) touching_count[i] = touching_byte(touching);
    boundary::wall_forces<P, G>(p, r, coord, i, boundaries, walls, table, num_materials, wc, owner_sum, geometry_sum, dt, time, f, t);
    if constexpr (deform::caps_in_pair_kernel<P>)  // from the wall reports just made and the pair kernel's distances
      if (integrate && deform.next) deform(p, coord, i, incident_offset, incident_entry, walls, caps, status);
    if (families.family) {  // the contact load, before a rule holds components (trackers read it)
      families.contact_force[i] = vec3<Real>(f);
      families.contact_torque[i] = vec3<Real>(t);
    }
    f += vec3<G>(gravity * (Real(1) / p.inv_mass[i]));
    if (external_force) {
      f += vec3<G>(external_force[i]);
      t += vec3<G>(external_torque[i]);
    }
    if (families.family) family::apply(families.rules[families.family[i]], Real(1) / p.inv_mass[i], f, t, p.vel[i], p.omega[i]);
    const vec3<Real> fr(f), tr(t);
    store(p.force[i], fr);
    store(p.torque[i], tr);
    if (!integrate) return;
    // Once per step, after every contact has read the old values.
    if constexpr (traits::writes_owner_wildcards) wc.owner[i] += owner_sum;
    if constexpr (traits::writes_geometry_wildcards) wc.geometry[i] += geometry_sum;
    if (!finish) return;
    const vec3<Real> dx = finish_step<P>(p, r, i, fr, tr, dt);
    if constexpr (P::rigid)  // the gyroscopic term turns omega without a torque
      if (families.family) family::hold(families.rules[families.family[i]], p.vel[i], p.omega[i]);
    if constexpr (P::rigid || integrate::drifts_after_force<typename P::integrator>) assign(p.pos[i], moved(coord, p, i, dx));
    if (const std::uint32_t s = status_of(p, coord, i, max_speed2)) record_status(p, i, s, status);
  }
};

// The first (before the force evaluation) or second half of a step for sphere i, without branches,
// for the host's vectorised loops below. Indexed as structs, not through sim::load: consecutive
// particles' vec3s are then grouped loads (a few permutes), not gathers. No select on the
// velocities: the particle kernel gives inactive particles zero force and torque, so the kicks leave
// them as they are, and their drift is selected to zero (a select on the loaded force made GCC load
// it only for active particles, a masked load of a 3-float group that it cannot vectorise).
template <class P, bool First>
DEM_HD inline void sphere_half_step(const particle_view<typename P::coord_space>& p, const typename P::coord_space::params& coord,
                                    index_t i, typename P::real dt, bool active) {
  using Real = typename P::real;
  integrate::motion<Real> m{p.vel[i], p.omega[i], p.force[i], p.torque[i], p.inv_mass[i], inverse_inertia<P>(p, i)};
  vec3<Real> dx;
  if constexpr (First) dx = P::integrator::pre_force(m, dt);
  else dx = P::integrator::post_force(m, dt);
  store(p.vel[i], m.velocity);
  store(p.omega[i], m.omega);
  // A zero drift leaves a position (and a carry) as it is: skipped where the integrator says so.
  if constexpr (First || integrate::drifts_after_force<typename P::integrator>)
    assign(p.pos[i], moved(coord, p, i, select(active, dx, vec3<Real>{0, 0, 0})));
}

// The end of a step for spheres on the host, as a loop of its own: branch-free, so GCC vectorises
// it (inside the particle kernel, after the variable-length gather, it ran scalar). Reads the force
// and torque the particle kernel stored (zero for inactive particles, which with a zero
// displacement leaves their state as it is). Returns the particle's status; the backend ors them,
// and the rare step with one runs status_kernel to record them.
template <class P>
struct sphere_finish_kernel {
  static_assert(!P::rigid, "sphere_finish_kernel integrates spheres; rigid bodies finish in particle_update_kernel");
  using Real = typename P::real;
  using Space = typename P::coord_space;
  particle_view<Space> p;
  typename Space::params coord;
  Real dt, max_speed2;

  DEM_HD DEM_KERNEL std::uint32_t operator()(index_t i) const {
    const bool active = p.active[i] != 0;
    sphere_half_step<P, false>(p, coord, i, dt, active);
    return status_of(p, coord, i, max_speed2) & (0u - std::uint32_t{active});  // a mask, not a ?: (which became a branch)
  }
};

// Records the status of every active particle (after sphere_finish_kernel reported one).
template <class Space>
struct status_kernel {
  particle_view<Space> p;
  typename Space::params coord;
  typename Space::real max_speed2;
  std::uint32_t* status;
  DEM_HD void operator()(index_t i) const {
    if (!p.active[i]) return;
    if (const std::uint32_t s = status_of(p, coord, i, max_speed2)) record_status(p, i, s, status);
  }
};

// First half of a step for integrators that act before the force evaluation. Run through
// reduce_max: it returns the squared displacement since the last contact-list build, so the
// Verlet-skin check costs no extra pass over the particles.
template <class P>
struct pre_force_kernel {
  using Real = typename P::real;
  using Space = typename P::coord_space;
  particle_view<Space> p;
  rigid_view<Real, typename P::shape_data> r;  // rigid bodies only
  typename Space::params coord;
  Real dt;
  DEM_HD double operator()(index_t i) const {
    if (!p.active[i]) return 0.0;
    const vec3<Real> dx = start_step<P>(p, r, i, dt);
    p.pos[i] = moved(coord, p, i, dx);
    return static_cast<double>(norm2(Space::difference(coord, p.pos[i], p.pos_ref[i])));
  }
};

// pre_force_kernel for spheres on the host, branch-free so that GCC vectorises it: the squared
// displacement is returned as the bits of a non-negative float (ordered as unsigned integers, so
// the backend's integer max reduction, which vectorises, finds the largest; see value()).
// Inactive particles have zero force (particle_update_kernel) and get a zero drift, so their state
// does not change.
template <class P>
struct sphere_start_kernel {
  static_assert(!P::rigid, "sphere_start_kernel integrates spheres; rigid bodies use pre_force_kernel");
  using Real = typename P::real;
  using Space = typename P::coord_space;
  using bits = std::conditional_t<sizeof(Real) == 8, std::uint64_t, std::uint32_t>;
  particle_view<Space> p;
  typename Space::params coord;
  Real dt;
  DEM_HD DEM_KERNEL bits operator()(index_t i) const {
    const bool active = p.active[i] != 0;
    sphere_half_step<P, true>(p, coord, i, dt, active);
    // Masks, not ?: (which GCC turned into branches around the reduction).
    return std::bit_cast<bits>(norm2(Space::difference(coord, p.pos[i], p.pos_ref[i]))) & (bits{0} - bits{active});
  }
  // The reduction's result back as the squared displacement; NaN bits order above +inf's and come
  // back as +inf, so that a NaN forces a rebuild (a NaN compared with the skin would not).
  static double value(bits b) {
    constexpr bits inf = std::bit_cast<bits>(std::numeric_limits<Real>::infinity());
    return b >= inf ? std::numeric_limits<double>::infinity() : static_cast<double>(std::bit_cast<Real>(b));
  }
};

// Squared displacement since the last contact-list build (for the Verlet-skin criterion).
template <class Space>
struct displacement2 {
  particle_view<Space> p;
  typename Space::params coord;
  DEM_HD double operator()(index_t i) const {
    return p.active[i] ? static_cast<double>(norm2(Space::difference(coord, p.pos[i], p.pos_ref[i]))) : 0.0;
  }
};

template <class P>
struct kinetic_energy_of {
  particle_view<typename P::coord_space> p;
  rigid_view<typename P::real, typename P::shape_data> r;  // rigid bodies only
  DEM_HD double operator()(index_t i) const { return p.active[i] ? translational(i) + rotational(i) : 0.0; }
  DEM_HD double translational(index_t i) const { return 0.5 * static_cast<double>(norm2(p.vel[i])) / p.inv_mass[i]; }
  // With the body's inertia tensor for rigid bodies (principal moments and orientation).
  DEM_HD double rotational(index_t i) const {
    if constexpr (P::rigid) {
      const vec3d w(p.omega[i]), inertia(r.inertia[i]);
      return static_cast<double>(integrate::rotational_energy(quatd(r.orientation[i]), inertia, w));
    } else {
      return 0.5 * static_cast<double>(norm2(p.omega[i])) / inverse_inertia<P>(p, i);
    }
  }
};

template <class Space>
struct potential_energy_of {
  particle_view<Space> p;
  typename Space::params coord;
  vec3d gravity;
  DEM_HD double operator()(index_t i) const {
    if (!p.active[i]) return 0.0;
    return -dot(gravity, Space::to_world(coord, p.pos[i])) / p.inv_mass[i];
  }
};

// Elastic energy of the pair contacts (laws that define elastic_energy).
template <class P>
struct pair_elastic_energy_of {
  using Real = typename P::real;
  using Space = typename P::coord_space;
  using Law = typename P::law;
  particle_view<Space> p;
  typename Space::params coord;
  const std::uint32_t* pair_a;
  const std::uint32_t* pair_b;
  const typename Law::history* history;
  const typename Law::params* table;
  std::uint32_t num_materials;
  DEM_HD double operator()(index_t c) const {
    const std::uint32_t a = pair_a[c], b = pair_b[c];
    typename P::shape::template pair_geometry<Real> g;
    const typename Law::params& prm = table[p.material[a] * num_materials + p.material[b]];
    if (!p.active[a] || !p.active[b] ||
        !P::shape::collide(Space::difference(coord, p.pos[a], p.pos[b]), p.radius[a], p.radius[b], g, range_of<Law, Real>(prm)))
      return 0.0;
    const Real ra = p.radius[a], rb = p.radius[b];
    const vec3<Real> zero{0, 0, 0};
    const force::contact<Real> ct = make_contact(g, zero, zero, zero, zero, zero, ra * rb / (ra + rb), inverse_inertias<Real>{Real(1), Real(1), Real(1), Real(1)},
                                                 p.material[a], p.material[b], false, Real(0), Real(0));
    return static_cast<double>(Law::elastic_energy(ct, prm, history_of<Law>(history, c)));
  }
};

// Elastic energy of the boundary contacts (laws that define elastic_energy): the contacts that
// counted at the last evaluation (their touching bits), per particle.
template <class P>
struct wall_elastic_energy_of {
  using Real = typename P::real;
  using Space = typename P::coord_space;
  using Law = typename P::law;
  particle_view<Space> p;
  typename Space::params coord;
  boundary::boundary_view<Real> boundaries;
  boundary::wall_view<Real, typename P::plane_history> walls;
  const typename Law::params* table;
  std::uint32_t num_materials;
  DEM_HD double operator()(index_t i) const {
    if (!p.active[i]) return 0.0;
    double e = 0;
    const vec3<Real> zero{0, 0, 0};
    for (std::uint32_t k = walls.offset[i]; k < walls.offset[i + 1]; ++k) {
      if (!(walls.history[k].touching & 1u)) continue;
      const boundary::element<Real>& el = boundaries.elements[walls.element[k]];
      const boundary::frame<Real>& fr = boundaries.frames[el.boundary];
      const boundary::surface_point<Real> sp = boundary::closest(el, fr.to_local(Space::relative_to(coord, p.pos[i], fr.origin)));
      typename P::shape::template pair_geometry<Real> g;
      g.overlap = p.radius[i] - sp.distance;
      g.normal = fr.to_world(sp.normal);
      g.branch_a = g.branch_b = zero;
      const force::contact<Real> ct = make_contact(g, zero, zero, zero, zero, zero, p.radius[i], inverse_inertias<Real>{Real(1), Real(1), Real(1), Real(1)},
                                                   static_cast<material_id>(p.material[i]), static_cast<material_id>(fr.material), true, Real(0), Real(0));
      e += static_cast<double>(Law::elastic_energy(ct, table[p.material[i] * num_materials + fr.material], walls.history[k].slot[0]));
    }
    return e;
  }
};

// A particle's touching listed pairs, counted as particle_update_kernel counts them (for
// Simulator::count_touching).
template <class Real>
struct touching_count_kernel {
  const std::uint32_t* active;
  const std::uint32_t* incident_offset;
  const std::uint32_t* incident_entry;
  const vec3<Real>* force;
  std::uint8_t* out;
  DEM_HD void operator()(index_t i) const {
    std::uint32_t touching = 0;
    if (active[i])
      for (std::uint32_t k = incident_offset[i]; k < incident_offset[i + 1]; ++k) touching += is_touching(force[incident_entry[k] >> 1]);
    out[i] = touching_byte(touching);
  }
};

// Small utility kernels (namespace scope: CUDA kernels cannot take private nested types).
template <class T>
struct copy_kernel {
  const T* in;
  T* out;
  DEM_HD void operator()(index_t i) const { out[i] = in[i]; }
};

struct zero_kernel {
  std::uint32_t* out;
  DEM_HD void operator()(index_t i) const { out[i] = 0; }
};

template <class P>
struct count_overlapping {
  using Space = typename P::coord_space;
  particle_view<Space> p;
  typename Space::params coord;
  const std::uint32_t* pair_a;
  const std::uint32_t* pair_b;
  DEM_HD double operator()(index_t c) const {
    const std::uint32_t a = pair_a[c], b = pair_b[c];
    typename P::shape::template pair_geometry<typename P::real> g;
    return (p.active[a] && p.active[b] &&
            P::shape::collide(Space::difference(coord, p.pos[a], p.pos[b]), p.radius[a], p.radius[b], g))
               ? 1.0
               : 0.0;
  }
};

}  // namespace dem::sim
