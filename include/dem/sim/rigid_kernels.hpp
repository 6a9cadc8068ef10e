#pragma once
// Kernels of the step for rigid, non-spherical bodies (shape::clump, shape::polyhedron): the same
// flow as the sphere kernels (step_kernels.hpp) with orientations, principal inertia and several
// contact points per pair of bodies, each with its own history slot.
#include <cstdint>

#include "dem/config.hpp"
#include "dem/force/concept.hpp"
#include "dem/integrate/rigid_body.hpp"
#include "dem/math/quaternion.hpp"
#include "dem/shape/rigid_contact.hpp"
#include "dem/sim/particle_view.hpp"
#include "dem/sim/step_kernels.hpp"

namespace dem::sim {

template <class P>
struct rigid_pair_kernel {
  using Real = typename P::real;
  using Space = typename P::coord_space;
  using Law = typename P::law;
  using Shape = typename P::shape;
  using traits = force::law_traits<Law>;
  using histories = typename P::pair_history;
  particle_view<Space> p;
  rigid_view<Real, typename P::shape_data> r;
  typename Space::params coord;
  const std::uint32_t* pair_a;
  const std::uint32_t* pair_b;
  histories* history;
  const typename Law::params* table;
  std::uint32_t num_materials;
  contact_results<Real> out;
  wildcard_view<typename traits::owner_wildcards, typename traits::geometry_wildcards> wc;
  Real dt, time;

  DEM_HD DEM_FLATTEN void operator()(index_t c) const {
    const std::uint32_t a = pair_a[c], b = pair_b[c];
    histories& hs = history[c];
    vec3<Real> f{0, 0, 0}, ta{0, 0, 0}, tb{0, 0, 0};
    typename traits::owner_wildcards inc_oa{}, inc_ob{};
    typename traits::geometry_wildcards inc_ga{}, inc_gb{};
    std::uint64_t touching = 0;
    if (p.active[a] && p.active[b]) {
      const material_id ma = p.material[a], mb = p.material[b];
      const typename Law::params& prm = table[ma * num_materials + mb];  // the bodies' pair: the search range
      const inverse_inertias<Real> inv{p.inv_mass[a], p.inv_inertia[a], p.inv_mass[b], p.inv_inertia[b]};
      const vec3<Real> xa = Space::to_real(coord, p.pos[a]);
      const typename traits::owner_wildcards no_owner{};
      const typename traits::geometry_wildcards no_geometry{};
      Shape::collide(r.shapes[r.shape[a]], r.orientation[a], r.shapes[r.shape[b]], r.orientation[b],
                     Space::difference(coord, p.pos[a], p.pos[b]), range_of<Law, Real>(prm),
                     [&](int slot, const shape::rigid_contact<Real>& g) {
                       touching |= std::uint64_t{1} << slot;
                       const material_id ga = g.material_a == shape::no_geometry_material ? ma : g.material_a;
                       const material_id gb = g.material_b == shape::no_geometry_material ? mb : g.material_b;
                       const force::contact<Real> ct = make_contact(g, xa, p.vel[a], p.omega[a], p.vel[b], p.omega[b], g.radius_eff,
                                                                    inv, ga, gb, false, dt, time);
                       typename traits::wildcards_type w = wildcards_of<traits>(wc, a, b, false, no_owner, no_geometry);
                       const force::contact_force<Real> res = force::evaluate(Law{}, ct, table[ga * num_materials + gb], hs.slot[slot], w);
                       const vec3<Real> lever = res.force + res.torque_only_force;
                       f += res.force;
                       ta += cross(g.branch_a, lever) + res.torque;
                       tb += cross(g.branch_b, -lever) - res.torque;
                       if constexpr (traits::writes_owner_wildcards) { inc_oa += w.owner_increment_a; inc_ob += w.owner_increment_b; }
                       if constexpr (traits::writes_geometry_wildcards) { inc_ga += w.geometry_increment_a; inc_gb += w.geometry_increment_b; }
                     });
    }
    // Contact points that ended lose their history.
    for (std::uint64_t ended = hs.touching & ~touching; ended; ended &= ended - 1) hs.slot[lowest_bit(ended)] = typename Law::history{};
    hs.touching = touching;
    out.force[c] = f;
    out.torque[c] = ta;
    out.torque[out.pairs + c] = tb;
    if constexpr (traits::writes_owner_wildcards) { wc.owner_increment[2 * c] = inc_oa; wc.owner_increment[2 * c + 1] = inc_ob; }
    if constexpr (traits::writes_geometry_wildcards) { wc.geometry_increment[2 * c] = inc_ga; wc.geometry_increment[2 * c + 1] = inc_gb; }
  }
};

// 1 for a pair of bodies with a contact point at the last evaluation.
template <class Histories>
struct count_touching_slots {
  const Histories* history;
  DEM_HD double operator()(index_t c) const { return history[c].touching ? 1.0 : 0.0; }
};

}  // namespace dem::sim
