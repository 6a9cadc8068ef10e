#pragma once
// The force of every boundary on one particle (or rigid body), from its wall entries: run inside
// the particle kernel, so that a particle's wall contacts are evaluated by one thread, in element
// order (the same bits for any thread count), next to its pair forces.
//
// A sphere is one probe; a clump's component spheres are one probe each (slot k = component k).
// Per probe: each listed element reports its closest point (pass 1), the contact rule keeps the
// reports that count (pass 2, boundary/contact_rule.hpp), a contact that begins next to one that
// just ended on a neighbouring element of the same boundary takes over its history (pass 3: the
// tangential spring of a sphere rolling across a mesh edge goes on), then the law runs (pass 4).
// Each entry also stores the reaction on the boundary (force, and torque about the boundary's
// origin) for the boundary readouts.
#include <cstdint>

#include "dem/boundary/body_contacts.hpp"
#include "dem/boundary/contact_rule.hpp"
#include "dem/boundary/element.hpp"
#include "dem/boundary/frame.hpp"
#include "dem/boundary/wall_kernels.hpp"
#include "dem/config.hpp"
#include "dem/force/concept.hpp"
#include "dem/shape/rigid_contact.hpp"
#include "dem/shape/sphere.hpp"
#include "dem/sim/contact_helpers.hpp"
#include "dem/sim/particle_view.hpp"

namespace dem::boundary {

// The wall entries' state, as kernels see it.
template <class Real, class Histories>
struct wall_view {
  const std::uint32_t* offset;   // per particle: first entry (n + 1 values)
  const std::uint32_t* element;  // per entry
  Histories* history;            // per entry: one history per probe and the probes touching
  report<Real>* reports;         // per entry and probe: scratch of the evaluation
  vec3<Real>* force;             // per entry: force on the boundary
  vec3<Real>* torque;            // per entry: torque on the boundary about its origin
  body_report<Real>* bodies;     // per entry: scratch of bodies without probes against triangles and plates (else null)
};

template <class Real>
using probe = shape::probe<Real>;

inline constexpr std::uint32_t accepted_bit = 0x80000000u;

// The probes of particle i: a sphere's own, or a rigid shape's (Shape::wall_probe).
template <class P>
constexpr int wall_slots() {
  if constexpr (P::rigid) return P::shape::plane_slots;
  else return 1;
}
template <class P>
struct probes_of {
  using Real = typename P::real;
  static constexpr int slots = wall_slots<P>();
  const sim::particle_view<typename P::coord_space>& p;
  const sim::rigid_view<Real, typename P::shape_data>& r;
  index_t i;
  DEM_HD int count() const {
    if constexpr (P::rigid) return P::shape::wall_probe_count(r.shapes[r.shape[i]]);
    else return 1;
  }
  DEM_HD probe<Real> operator()(int k) const {
    if constexpr (P::rigid) {
      return P::shape::wall_probe(r.shapes[r.shape[i]], r.orientation[i], k, static_cast<material_id>(p.material[i]));
    } else {
      (void)k;
      return {vec3<Real>{0, 0, 0}, p.radius[i], static_cast<material_id>(p.material[i]), p.radius[i]};
    }
  }
};

// Shapes whose bodies meet boundaries through probe spheres (spheres, clumps). Polyhedra meet
// one-sided walls (planes; cylinders and cones they are inside, with their caps) vertex by vertex,
// and mesh triangles and plates through their polygon narrow phase and the rule of
// body_contacts.hpp; discs and the outside of cylinders and cones reach them as meshes of flat
// facets (Simulator::add_disc, add_cylinder, add_cone; boundary/faceted.hpp).
template <class P>
inline constexpr bool has_wall_probes = !P::rigid || requires(const typename P::shape_data& d) { P::shape::wall_probe_count(d); };

// A body without probes (a polyhedron) against element el: planes through the shape's
// collide_plane, the other one-sided walls (element.hpp, behind_wall) through its collide_wall (one
// contact for a flat cap, one per vertex for a curved side). `rel`: the body's centre relative to
// the boundary's origin, world axes.
// Triangles and plates give their raw contact here, one per element (initial overlaps); the step
// combines them with the rule of body_contacts.hpp instead.
template <class P, class Real, class Visit>
DEM_HD inline void collide_body(const typename P::shape_data& shape, const quat<Real>& q, const vec3<Real>& rel, const element<Real>& el,
                                const frame<Real>& fr, Real range, Visit&& visit) {
  if (is_flat_polygon(el)) {
    shape::poly::polygon_contact<Real> c;
    if (P::shape::collide_polygon(shape, q, rel, polygon_of(el, fr), c))
      visit(0, shape::rigid_contact<Real>{c.overlap, c.normal, c.point - rel, vec3<Real>{0, 0, 0}, P::shape::radius_eff(shape)});
  } else if (el.kind == plane_kind) {
    P::shape::collide_plane(shape, q, rel - fr.to_world(el.a), fr.to_world(el.n), range, visit);
  } else if (one_sided_wall(el)) {
    P::shape::collide_wall(shape, q, rel,
                           [&](const vec3<Real>& w, Real& depth, vec3<Real>& n) {
                             vec3<Real> local{0, 0, 0};
                             if (!behind_wall(el, fr.to_local(w), depth, local)) return false;
                             n = fr.to_world(local);
                             return true;
                           },
                           el.kind != cone_kind, range, visit);
  }
}

// The law on one wall contact of particle i: adds the force and torque on the particle (f, t;
// branch_a from its centre) and the reaction on the boundary (on_boundary, and torque_boundary
// about the boundary's origin; branch_b from there).
template <class P, class G>
DEM_HD inline void apply_wall_law(const force::contact<typename P::real>& ct, const typename P::law::params& prm, typename P::law::history& h,
                                  const sim::wildcard_view<typename force::law_traits<typename P::law>::owner_wildcards,
                                                           typename force::law_traits<typename P::law>::geometry_wildcards>& wc,
                                  index_t i, const vec3<typename P::real>& branch_a, const vec3<typename P::real>& branch_b,
                                  typename force::law_traits<typename P::law>::owner_wildcards& owner_sum,
                                  typename force::law_traits<typename P::law>::geometry_wildcards& geometry_sum, vec3<G>& f, vec3<G>& t,
                                  vec3<typename P::real>& on_boundary, vec3<typename P::real>& torque_boundary) {
  using Real = typename P::real;
  using traits = force::law_traits<typename P::law>;
  const typename traits::owner_wildcards no_owner{};
  const typename traits::geometry_wildcards no_geometry{};
  typename traits::wildcards_type wcs = sim::wildcards_of<traits>(wc, i, i, true, no_owner, no_geometry);
  const force::contact_force<Real> res = force::evaluate(typename P::law{}, ct, prm, h, wcs);
  const vec3<Real> lever = res.force + res.torque_only_force;
  f += vec3<G>(res.force);
  t += vec3<G>(cross(branch_a, lever) + res.torque);
  on_boundary -= res.force;
  torque_boundary -= cross(branch_b, lever) + res.torque;
  if constexpr (traits::writes_owner_wildcards) owner_sum += wcs.owner_increment_a;
  if constexpr (traits::writes_geometry_wildcards) geometry_sum += wcs.geometry_increment_a;
}

// Rigid shapes without probes (polyhedra) against their walls (collide_body): the history slot of
// each contact is the one collide_body names.
template <class P, class G>
DEM_HD inline void vertex_wall_forces(const sim::particle_view<typename P::coord_space>& p,
                                          const sim::rigid_view<typename P::real, typename P::shape_data>& rv,
                                          const typename P::coord_space::params& coord, index_t i, const boundary_view<typename P::real>& bv,
                                          const wall_view<typename P::real, typename P::plane_history>& w, const typename P::law::params* table,
                                          std::uint32_t num_materials,
                                          const sim::wildcard_view<typename force::law_traits<typename P::law>::owner_wildcards,
                                                                   typename force::law_traits<typename P::law>::geometry_wildcards>& wc,
                                          typename force::law_traits<typename P::law>::owner_wildcards& owner_sum,
                                          typename force::law_traits<typename P::law>::geometry_wildcards& geometry_sum,
                                          typename P::real dt, typename P::real time, vec3<G>& f, vec3<G>& t) {
  using Real = typename P::real;
  using Space = typename P::coord_space;
  using Law = typename P::law;
  using traits = force::law_traits<Law>;
  const vec3<Real> xa = Space::to_real(coord, p.pos[i]);
  const material_id body_material = static_cast<material_id>(p.material[i]);
  const std::uint32_t first = w.offset[i], last = w.offset[i + 1];
  const typename P::shape_data& shape = rv.shapes[rv.shape[i]];
  auto element_of = [&](std::uint32_t j) -> const element<Real>& { return bv.elements[w.element[j]]; };
  // Triangles and plates: raw contacts, the rule, history carried over (body_contacts.hpp).
  bool polygons = false;
  for (std::uint32_t e = first; e < last; ++e) {
    const element<Real>& el = element_of(e);
    w.bodies[e].state = 0;
    if (!is_flat_polygon(el)) continue;
    const frame<Real>& fr = bv.frames[el.boundary];
    const vec3<Real> rel = Space::relative_to(coord, p.pos[i], fr.origin);
    if (P::shape::collide_polygon(shape, rv.orientation[i], rel, polygon_of(el, fr), w.bodies[e].c)) w.bodies[e].state = 1, polygons = true;
  }
  if (polygons) {
    body_polygon_rule(first, last, element_of, w.bodies);
    if constexpr (traits::has_history) body_polygon_takeover(first, last, element_of, w.bodies, w.history);
  }
  for (std::uint32_t e = first; e < last; ++e) {
    const element<Real>& el = element_of(e);
    const frame<Real>& fr = bv.frames[el.boundary];
    typename P::plane_history& hs = w.history[e];
    const vec3<Real> rel = Space::relative_to(coord, p.pos[i], fr.origin);
    const typename Law::params& prm = table[body_material * num_materials + fr.material];
    std::uint64_t touching = 0;
    vec3<Real> on_boundary{0, 0, 0}, torque_boundary{0, 0, 0};
    auto apply = [&](int slot, const shape::rigid_contact<Real>& g) {
      touching |= std::uint64_t{1} << slot;
      const material_id ga = g.material_a == shape::no_geometry_material ? body_material : g.material_a;
      shape::rigid_contact<Real> gw = g;
      gw.branch_b = rel + g.branch_a;  // from the boundary's origin
      const force::contact<Real> ct = sim::make_contact(gw, xa, p.vel[i], p.omega[i], fr.velocity, fr.omega, g.radius_eff,
                                                        sim::inverse_inertias<Real>{p.inv_mass[i], sim::inverse_inertia<P>(p, i), Real(0), Real(0)}, ga,
                                                        static_cast<material_id>(fr.material), true, dt, time);
      apply_wall_law<P, G>(ct, table[ga * num_materials + fr.material], hs.slot[slot], wc, i, g.branch_a, gw.branch_b, owner_sum, geometry_sum, f, t,
                           on_boundary, torque_boundary);
    };
    if (is_flat_polygon(el)) {
      if (w.bodies[e].state == 2) {
        const shape::poly::polygon_contact<Real>& c = w.bodies[e].c;
        apply(0, shape::rigid_contact<Real>{c.overlap, c.normal, c.point - rel, vec3<Real>{0, 0, 0}, P::shape::radius_eff(shape)});
      }
    } else {
      collide_body<P>(shape, rv.orientation[i], rel, el, fr, sim::range_of<Law, Real>(prm), apply);
    }
    for (std::uint64_t ended = hs.touching & ~touching; ended; ended &= ended - 1) hs.slot[sim::lowest_bit(ended)] = typename Law::history{};
    hs.touching = touching;
    w.force[e] = on_boundary;
    w.torque[e] = torque_boundary;
  }
}

// Passes 1 and 2 for particle i: every listed element's report for every probe, and which count
// (accepted_bit). Returns the number of probes.
template <class P>
DEM_HD inline int wall_reports(const sim::particle_view<typename P::coord_space>& p, const sim::rigid_view<typename P::real, typename P::shape_data>& rv,
                               const typename P::coord_space::params& coord, index_t i, const boundary_view<typename P::real>& bv,
                               const wall_view<typename P::real, typename P::plane_history>& w, const typename P::law::params* table,
                               std::uint32_t num_materials) {
  using Real = typename P::real;
  using Space = typename P::coord_space;
  using Law = typename P::law;
  constexpr int S = probes_of<P>::slots;
  const std::uint32_t first = w.offset[i], last = w.offset[i + 1];
  const probes_of<P> probes{p, rv, i};
  const int np = probes.count();
  const material_id body_material = static_cast<material_id>(p.material[i]);
  Real scale = 0, largest = 0;
  for (std::uint32_t e = first; e < last; ++e) {
    const element<Real>& el = bv.elements[w.element[e]];
    const frame<Real>& fr = bv.frames[el.boundary];
    const vec3<Real> rel = Space::relative_to(coord, p.pos[i], fr.origin);
    for (int k = 0; k < np; ++k) {
      const probe<Real> pr = probes(k);
      const vec3<Real> x = fr.to_local(rel + pr.offset);
      const surface_point<Real> sp = closest(el, x);
      w.reports[e * S + k] = {sp.distance, sp.feature};
      using std::fabs;
      const Real m = fabs(x.x) > fabs(x.y) ? fabs(x.x) : fabs(x.y);
      scale = m > scale ? m : scale;
      scale = fabs(x.z) > scale ? fabs(x.z) : scale;
      largest = pr.radius > largest ? pr.radius : largest;
    }
  }
  const Real tol = rule_tolerance(scale, largest);
  for (int k = 0; k < np; ++k) {
    const probe<Real> pr = probes(k);
    const material_id mk = pr.material == shape::no_geometry_material ? body_material : pr.material;
    auto element_of = [&](std::uint32_t j) -> const element<Real>& { return bv.elements[w.element[j]]; };
    auto report_of = [&](std::uint32_t j) {
      report<Real> o = w.reports[j * S + k];
      o.feature &= ~accepted_bit;
      return o;
    };
    for (std::uint32_t e = first; e < last; ++e) {
      const element<Real>& el = element_of(e);
      const typename Law::params& prm = table[mk * num_materials + bv.frames[el.boundary].material];
      const Real reach = pr.radius + sim::range_of<Law, Real>(prm);
      if (w.reports[e * S + k].distance < reach && counts<Real>(e, first, last, element_of, report_of, tol))
        w.reports[e * S + k].feature |= accepted_bit;
    }
  }
  return np;
}

// Pass 3 on `history` (the run's, or a copy): a contact that begins takes over the history of one
// that ended this step on a neighbouring element of the same boundary.
template <class P, class Histories>
DEM_HD inline void wall_takeover(std::uint32_t first, std::uint32_t last, int np, const boundary_view<typename P::real>& bv,
                                 const std::uint32_t* element_of, const report<typename P::real>* reports, Histories* history) {
  if constexpr (force::law_traits<typename P::law>::has_history) {  // (a `return` before the loop made nvcc warn it unreachable)
    using Real = typename P::real;
    constexpr int S = probes_of<P>::slots;
    for (std::uint32_t e = first; e < last; ++e)
      for (int k = 0; k < np; ++k) {
        const std::uint64_t bit = std::uint64_t{1} << k;
        if (!(reports[e * S + k].feature & accepted_bit) || (history[e].touching & bit)) continue;
        const element<Real>& el = bv.elements[element_of[e]];
        for (std::uint32_t j = first; j < last; ++j) {
          if (j == e || !(history[j].touching & bit) || (reports[j * S + k].feature & accepted_bit)) continue;
          const element<Real>& other = bv.elements[element_of[j]];
          if (other.boundary != el.boundary || !adjacent(el, other)) continue;
          history[e].slot[k] = history[j].slot[k];
          break;
        }
      }
  }
}

// The contact of probe `pr` of particle i with element el (its closest point, recomputed), as the
// law sees it; g gets the geometry (branch_b: the contact point from the boundary's origin).
template <class P>
DEM_HD inline force::contact<typename P::real> wall_contact(const sim::particle_view<typename P::coord_space>& p,
                                                            const typename P::coord_space::params& coord, index_t i, const probe<typename P::real>& pr,
                                                            material_id mk, const element<typename P::real>& el, const frame<typename P::real>& fr,
                                                            typename P::real dt, typename P::real time,
                                                            shape::sphere::pair_geometry<typename P::real>& g) {
  using Real = typename P::real;
  using Space = typename P::coord_space;
  const vec3<Real> rk = Space::relative_to(coord, p.pos[i], fr.origin) + pr.offset;
  const surface_point<Real> sp = closest(el, fr.to_local(rk));
  g.overlap = pr.radius - sp.distance;
  g.normal = fr.to_world(sp.normal);
  const vec3<Real> to_point = g.normal * (-(pr.radius - Real(0.5) * g.overlap));
  g.branch_a = pr.offset + to_point;
  g.branch_b = rk + to_point;
  return sim::make_contact(g, Space::to_real(coord, p.pos[i]), p.vel[i], p.omega[i], fr.velocity, fr.omega, pr.radius_eff,
                           sim::inverse_inertias<Real>{p.inv_mass[i], sim::inverse_inertia<P>(p, i), Real(0), Real(0)}, mk, static_cast<material_id>(fr.material), true, dt, time);
}

template <class P, class G>
DEM_HD inline void wall_forces(const sim::particle_view<typename P::coord_space>& p,
                               const sim::rigid_view<typename P::real, typename P::shape_data>& rv,
                               const typename P::coord_space::params& coord, index_t i, const boundary_view<typename P::real>& bv,
                               const wall_view<typename P::real, typename P::plane_history>& w, const typename P::law::params* table,
                               std::uint32_t num_materials,
                               const sim::wildcard_view<typename force::law_traits<typename P::law>::owner_wildcards,
                                                        typename force::law_traits<typename P::law>::geometry_wildcards>& wc,
                               typename force::law_traits<typename P::law>::owner_wildcards& owner_sum,
                               typename force::law_traits<typename P::law>::geometry_wildcards& geometry_sum, typename P::real dt,
                               typename P::real time, vec3<G>& f, vec3<G>& t) {
  using Real = typename P::real;
  using Law = typename P::law;
  using traits = force::law_traits<Law>;
  const std::uint32_t first = w.offset[i], last = w.offset[i + 1];
  if (first == last) return;
  if constexpr (!has_wall_probes<P>) {
    vertex_wall_forces<P, G>(p, rv, coord, i, bv, w, table, num_materials, wc, owner_sum, geometry_sum, dt, time, f, t);
  } else {
    constexpr int S = probes_of<P>::slots;
    const int np = wall_reports<P>(p, rv, coord, i, bv, w, table, num_materials);
    wall_takeover<P>(first, last, np, bv, w.element, w.reports, w.history);
    const probes_of<P> probes{p, rv, i};
    const material_id body_material = static_cast<material_id>(p.material[i]);
    for (std::uint32_t e = first; e < last; ++e) {
      const element<Real>& el = bv.elements[w.element[e]];
      const frame<Real>& fr = bv.frames[el.boundary];
      vec3<Real> on_boundary{0, 0, 0}, torque_boundary{0, 0, 0};
      std::uint64_t touching = 0;
      for (int k = 0; k < np; ++k) {
        if (!(w.reports[e * S + k].feature & accepted_bit)) continue;
        touching |= std::uint64_t{1} << k;
        const probe<Real> pr = probes(k);
        const material_id mk = pr.material == shape::no_geometry_material ? body_material : pr.material;
        shape::sphere::pair_geometry<Real> g;
        const force::contact<Real> ct = wall_contact<P>(p, coord, i, pr, mk, el, fr, dt, time, g);
        typename Law::history none{};  // read by a law without history (chosen by pointer, as in sim/step_kernels.hpp)
        typename Law::history* slot = &none;
        if constexpr (traits::has_history) slot = &w.history[e].slot[k];
        typename Law::history& h = *slot;
        apply_wall_law<P, G>(ct, table[mk * num_materials + fr.material], h, wc, i, g.branch_a, g.branch_b, owner_sum, geometry_sum, f, t, on_boundary,
                             torque_boundary);
      }
      if constexpr (traits::has_history)
        for (std::uint64_t ended = w.history[e].touching & ~touching; ended; ended &= ended - 1)
          w.history[e].slot[sim::lowest_bit(ended)] = typename Law::history{};
      w.history[e].touching = touching;
      w.force[e] = on_boundary;
      w.torque[e] = torque_boundary;
    }
  }
}

}  // namespace dem::boundary
