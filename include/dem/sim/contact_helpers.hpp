#pragma once
// Helpers the contact kernels share (pairs, walls, the energy ledger): the contact a law sees, the
// law's range, user properties, history access without branches, and a particle's displacement
// through the coordinate policy.
#include <array>
#include <bit>
#include <cstdint>

#include "dem/config.hpp"
#include "dem/force/concept.hpp"
#include "dem/force/contact.hpp"
#include "dem/sim/particle_view.hpp"

namespace dem::sim {

// Status words shared between kernels and the host.
// deform_failure: the smallest particle whose deformed radius could not be solved (dem/deform/).
enum status_word : std::uint32_t { bad_particle = 0, lost_count = 1, family_changes = 2, deform_failure = 3, status_words = 4 };
inline constexpr std::uint32_t no_particle = ~std::uint32_t{0};

// The inverse masses and (scalar) inverse inertias of a contact's two bodies; B's are 0 for a wall
// or a body that nothing moves (infinite mass).
template <class Real>
struct inverse_inertias {
  Real mass_a, inertia_a, mass_b, inertia_b;
};

// 1 / (I + m r^2), the inverse inertia about a contact point at distance sqrt(r2); 0 for an
// immovable body (selects, not branches: the pair loop vectorises).
template <class Real>
DEM_HD inline Real inverse_inertia_about_point(Real inv_mass, Real inv_inertia, Real r2) {
  const Real den = inv_mass + inv_inertia * r2;
  return den > Real(0) ? inv_mass * inv_inertia / den : Real(0);
}

template <class Real, class Geometry>
DEM_HD inline force::contact<Real> make_contact(const Geometry& g, const vec3<Real>& centre_a, const vec3<Real>& va,
                                                const vec3<Real>& wa, const vec3<Real>& vb, const vec3<Real>& wb, Real r_eff,
                                                const inverse_inertias<Real>& inv, material_id mat_a, material_id mat_b, bool wall,
                                                Real dt, Real time) {
  const Real m_eff = Real(1) / (inv.mass_a + inv.mass_b);
  const Real i_eff = Real(1) / (inv.inertia_a + inv.inertia_b);
  // Laws that do not read it (all but EPSD rolling) let the compiler drop this.
  const Real roll_a = inverse_inertia_about_point(inv.mass_a, inv.inertia_a, norm2(g.branch_a));
  const Real roll_b = wall ? Real(0) : inverse_inertia_about_point(inv.mass_b, inv.inertia_b, norm2(g.branch_b));
  force::contact<Real> c;
  c.overlap = g.overlap;
  c.normal = g.normal;
  c.point = centre_a + g.branch_a;
  c.branch_a = g.branch_a;
  c.branch_b = g.branch_b;
  c.radius_eff = r_eff;
  c.mass_eff = m_eff;
  c.inertia_eff = i_eff;
  c.rolling_inertia = Real(1) / (roll_a + roll_b);
  c.v_rel = (va + cross(wa, g.branch_a)) - (vb + cross(wb, g.branch_b));
  c.v_n = dot(c.v_rel, g.normal);
  c.v_t = c.v_rel - g.normal * c.v_n;
  c.omega_rel = wa - wb;
  c.spin = Real(0.5) * dot(wa + wb, g.normal);  // dropped by laws that do not read it
  c.material_a = mat_a;
  c.material_b = mat_b;
  c.wall = wall;
  c.dt = dt;
  c.time = time;
  return c;
}

// The gap beyond touching at which a law with a range (cohesion) still acts; 0 for the others.
template <class Law, class Real>
DEM_HD inline Real range_of(const typename Law::params& p) {
  if constexpr (force::law_traits<Law>::has_range) return static_cast<Real>(Law::range(p));
  else return Real(0);
}

// p.pos[i] moved by d, through the coordinate policy's rounding carry where it has one.
template <class Space>
DEM_HD inline typename Space::position moved(const typename Space::params& coord, const particle_view<Space>& p, index_t i,
                                             const vec3<typename Space::real>& d) {
  if constexpr (has_carry<Space>) return Space::displace(coord, p.pos[i], d, p.carry[i]);
  else return Space::displace(coord, p.pos[i], d);
}

// What a law that declares user properties sees of bodies a and b: the stored values, or neutral
// ones where the law declares none or B is a wall.
template <class Traits>
DEM_HD inline typename Traits::wildcards_type wildcards_of(const wildcard_view<typename Traits::owner_wildcards, typename Traits::geometry_wildcards>& wc,
                                                          index_t a, index_t b, bool b_is_wall,
                                                          const typename Traits::owner_wildcards& no_owner,
                                                          const typename Traits::geometry_wildcards& no_geometry) {
  return {Traits::has_owner_wildcards ? wc.owner[a] : no_owner, Traits::has_owner_wildcards && !b_is_wall ? wc.owner[b] : no_owner,
          Traits::has_geometry_wildcards ? wc.geometry[a] : no_geometry,
          Traits::has_geometry_wildcards && !b_is_wall ? wc.geometry[b] : no_geometry};
}

// Stored history of contact k, or an empty one for laws that keep none (nothing is stored then).
template <class Law>
DEM_HD inline typename Law::history history_of(const typename Law::history* h, std::size_t k) {
  if constexpr (force::law_traits<Law>::has_history) return h[k];
  else return typename Law::history{};
}

// h = keep ? h : H{} without a branch: word by word through selects, so that the loop over pairs
// still vectorises (a conditional store of a whole struct stops GCC's if-conversion).
template <class H>
DEM_HD inline void keep_or_reset(bool keep, H& h) {
#if !DEM_DEVICE_PATHS
  if constexpr (word_wise<H>) {
    using words = std::array<struct_word<H>, sizeof(H) / sizeof(struct_word<H>)>;
    words now = std::bit_cast<words>(h);
    const words initial = std::bit_cast<words>(H{});
    for (std::size_t k = 0; k < now.size(); ++k) now[k] = keep ? now[k] : initial[k];
    h = std::bit_cast<H>(now);
    return;
  }
#endif
  if (!keep) h = H{};  // GPUs predicate this
}

}  // namespace dem::sim
