#pragma once
// The per-particle radius update of deformable spheres (shape::deformable_sphere). Particle i
// gathers its contact planes (its listed partners, in the incident list's canonical order, then
// its boundary elements that count, in element order) and solves its R' (deform/volume.hpp), in the
// precision of the radii. Every particle reads the current R' of every sphere and writes the next
// into another array (a Jacobi sweep: the result does not depend on the order in which particles
// are updated, so it is the same bits on every backend and thread count).
//
// Two ways in, the same bits: inside the particle kernel (`in_step`, velocity Verlet: the pair
// kernel, vectorised, sums each pair's two caps at the two spheres' first Newton iterates; the
// particle kernel adds up its entries and takes one Newton step; the result serves the next step),
// or as a kernel of its own (`radius_kernel`: the planes from the positions), which integrators
// that move particles after the force evaluation use before it, which repeats a solve after a
// rebuild (sim/deformation.hpp), and which `in_step` falls back to for a sphere that needs more
// than one Newton step.
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "dem/backend/atomic.hpp"
#include "dem/boundary/wall_forces.hpp"
#include "dem/config.hpp"
#include "dem/deform/volume.hpp"
#include "dem/sim/contact_helpers.hpp"
#include "dem/sim/particle_view.hpp"

namespace dem::deform {

// Most planes a sphere may have within reach (equal spheres have at most 12 real contacts).
inline constexpr int max_planes = 64;

// The iteration count stored for a particle whose solve failed: failed_iterations + solve_status.
inline constexpr std::uint32_t failed_iterations = 1000;

// Per incident entry (2 c + side of listed pair c), written by the pair kernel: the cap this pair's
// plane cuts from that side's sphere at its first Newton iterate (deform::caps: volume, slope), with
// the same operations as solve_particle's first pass, so that the particle kernel's sum of them is
// the same bits. The volume (>= 0) carries in its sign bit whether the plane cuts the original
// sphere; NaN marks a cap outside the model's range (a negative volume: a plane through the
// partner's far side), which sends the sphere to the whole solve.
template <class Real>
struct cap_entry {
  Real volume;
  Real slope;
};

// Their sum over a sphere's entries: the caps' volume and slope, and the entries' volume bits ORed
// together, whose sign bit says whether any plane cuts R (an integer OR: a float count of the sign
// bits took a conversion on the loop's carried chain).
template <class Real>
struct cap_record {
  using word = std::conditional_t<sizeof(Real) == 4, std::uint32_t, std::uint64_t>;
  Real volume = 0;
  Real slope = 0;
  word bits = 0;
  DEM_HD bool cuts() const { return (bits >> (8 * sizeof(Real) - 1)) != 0; }
};

template <class Real>
DEM_HD inline void add_entry(cap_record<Real>& sum, const cap_entry<Real>& c) {
  using std::fabs;
  sum.volume += fabs(c.volume);  // exactly the volume: the sum is solve_particle's
  sum.slope += c.slope;
  sum.bits |= std::bit_cast<typename cap_record<Real>::word>(c.volume);  // (signbit's bool became a mispredicted branch)
}

// Where they are stored: two arrays indexed by entry (an array of structs of six values per pair
// made GCC store each lane's values one by one; groups of two it interleaves).
template <class Real>
struct cap_arrays {
  Real* volume = nullptr;
  Real* slope = nullptr;
  // The two arrays in one buffer of 2 * entries values.
  static DEM_HD cap_arrays in(Real* buffer, std::size_t entries) { return {buffer, buffer ? buffer + entries : nullptr}; }
  DEM_HD void store(std::size_t e, const cap_entry<Real>& c) const {
    volume[e] = c.volume;
    slope[e] = c.slope;
  }
  DEM_HD cap_entry<Real> operator[](std::size_t e) const { return {volume[e], slope[e]}; }
};

// Side `a` of a listed pair at centre distance L: its original radius R, its current R' (`last`)
// and the partner's R' (rj). No plane (zeros) for coincident centres, as solve_particle skips them.
template <class Real>
DEM_HD inline cap_entry<Real> pair_cap(Real L, Real rj, Real R, Real last, Real limit) {
  using std::copysign;
  caps<Real> sum;
  add_pair_cap(rj - L, 2 * rj, Real(0.5) / L, first_iterate(R, last, limit), sum);
  const bool plane = L > 0;
  const bool cuts = plane && R + (rj - L) > 0;
  const Real volume = plane ? sum.volume : Real(0);
  const Real marked = copysign(volume, cuts ? Real(-1) : Real(1));
  return {volume >= 0 ? marked : std::numeric_limits<Real>::quiet_NaN(), plane ? sum.slope : Real(0)};
}

// The settings of a solve.
template <class Real>
struct settings {
  Real reach;      // how far R' may grow in a step: partners within R' + R_j + reach are planes
  Real limit;      // R' < limit R
  Real tolerance;  // the solve's accuracy, relative to R (deform::solve)
  Real accept;     // sqrt(tolerance): a first Newton step below accept R ends the solve (deform::first_step)
};

// Solve's first pass: the caps of every plane at the first iterate x, summed in the order they
// come, whether any cuts the original sphere, and how many are within reach (near + c > 0).
// finish() ends it: without a cut the root is R itself (reversible to the bit), else one Newton
// step, accepted when it is small enough (deform::first_step); false leaves it to the whole solve.
template <class Real>
struct first_pass {
  Real R, x, near;
  caps<Real> sum{};
  int within = 0;
  bool cuts = false;
  DEM_HD void add(const plane<Real>& pl) {
    within += near + pl.c > 0;
    cuts |= R + pl.c > 0;
    add_cap(pl, x, sum);
  }
  DEM_HD bool finish(Real accept, Real& out) const {
    out = R;
    return !cuts || first_step(R, x, sum, accept, out);
  }
};

// The planes of one particle and its solve. `pairs(add)` calls add(L, R_j', 0.5 / L) per partner,
// in incident order; `walls(add)` add(distance) per boundary element that counts, in element order.
//
// Most particles need one Newton step from their last R' (a slowly changing packing): the caps at
// the first iterate are summed while the planes are gathered, and only a particle that needs more
// gathers them again into an array and runs the whole solve (which repeats that first step with
// the same bits: a plane that does not cut adds zeros).
template <class Real, class Pairs, class Walls>
DEM_HD inline solution<Real> solve_particle(Real R, Real last, const settings<Real>& s, Pairs&& pairs, Walls&& walls) {
  const Real near = last + s.reach;  // a plane with near + c <= 0 cannot cut this step
  {
    first_pass<Real> pass{R, first_iterate(R, last, s.limit), near};
    pairs([&](Real L, Real rj, Real w) {
      if (L > 0) pass.add(plane<Real>{rj - L, 2 * rj, w});
    });
    walls([&](Real d) { pass.add(wall_plane(d)); });
    if (pass.within > max_planes) return {last, 0, solve_status::too_many_planes};
    Real out;
    if (pass.finish(s.accept, out)) return {out, pass.cuts ? 1u : 0u, solve_status::ok};
  }
  plane_set<Real, max_planes> planes;
  bool cuts = false, overflow = false;
  auto add = [&](const plane<Real>& pl) {
    if (!(near + pl.c > 0)) return;
    if (planes.n == max_planes) {
      overflow = true;
      return;
    }
    planes.push(pl);
    cuts |= R + pl.c > 0;  // it cuts the original sphere: R' > R
  };
  pairs([&](Real L, Real rj, Real w) {
    if (L > 0) add(plane<Real>{rj - L, 2 * rj, w});  // pair_plane's fields, with w = 0.5 / L
  });
  walls([&](Real d) { add(wall_plane(d)); });
  if (overflow) return {last, 0, solve_status::too_many_planes};
  if (!cuts) return {R, 0, solve_status::ok};  // without a cut the root is R itself: reversible to the bit
  return solve(R, planes, last, s.limit, s.tolerance);
}

// Stores a solution for particle i; returns how far R' went above the smaller of its value at the
// last build and its current one (the contact list's budget this used; 0 if it shrank).
template <class Real>
DEM_HD inline double store_solution(const solution<Real>& sol, index_t i, Real last, Real ref, Real* next, std::uint32_t* iterations,
                                    std::uint32_t* status) {
  if (sol.status != solve_status::ok) {
    atomic::min(&status[sim::deform_failure], static_cast<std::uint32_t>(i));
    next[i] = last;
    iterations[i] = failed_iterations + static_cast<std::uint32_t>(sol.status);
    return 0.0;
  }
  next[i] = sol.radius;
  iterations[i] = sol.iterations;
  const Real base = last < ref ? last : ref;
  const double grew = static_cast<double>(sol.radius) - static_cast<double>(base);
  return grew > 0 ? grew : 0.0;
}

// The boundary planes of particle i: the elements the contact rule accepted (boundary::wall_reports
// wrote them), at their closest points' distances.
template <class Real, class Histories, class Add>
DEM_HD inline void accepted_walls(const boundary::wall_view<Real, Histories>& walls, index_t i, Add&& add) {
  for (std::uint32_t e = walls.offset[i]; e < walls.offset[i + 1]; ++e)
    if (walls.reports[e].feature & boundary::accepted_bit) add(walls.reports[e].distance);
}

// The planes of particle i's listed partners, in incident order, from the positions and the
// current R' (the pair kernel's distance, in its operations: from A's centre to B's).
template <class Space>
struct listed_planes {
  using Real = typename Space::real;
  const sim::particle_view<Space>& p;
  const typename Space::params& coord;
  const std::uint32_t* incident_offset;
  const std::uint32_t* incident_entry;
  const std::uint32_t* pair_a;
  const std::uint32_t* pair_b;
  index_t i;
  template <class Add>
  DEM_HD void operator()(Add&& add) const {
    using std::sqrt;
    for (std::uint32_t k = incident_offset[i]; k < incident_offset[i + 1]; ++k) {
      const std::uint32_t e = incident_entry[k];
      const std::uint32_t a = pair_a[e >> 1], b = pair_b[e >> 1];
      const Real L = sqrt(norm2(Space::difference(coord, p.pos[a], p.pos[b])));
      add(L, p.radius[(e & 1u) ? a : b], Real(0.5) / L);
    }
  }
};

// The radius update as a kernel of its own, run through reduce_max (the growth).
template <class P>
struct radius_kernel {
  using Real = typename P::real;
  using Space = typename P::coord_space;
  sim::particle_view<Space> p;  // p.radius: the current R'; p.volume_radius: the original R
  typename Space::params coord;
  const Real* radius_ref;       // R' at the last contact-list build
  Real* next;                   // the next R'
  std::uint32_t* iterations;    // Newton iterations per particle (failed_iterations + status on failure)
  const std::uint32_t* incident_offset;
  const std::uint32_t* incident_entry;
  const std::uint32_t* pair_a;
  const std::uint32_t* pair_b;
  boundary::boundary_view<Real> boundaries;
  boundary::wall_view<Real, typename P::plane_history> walls;
  sim::rigid_view<Real, typename P::shape_data> r;  // unused by spheres; wall_reports takes it
  const typename P::law::params* table;
  std::uint32_t num_materials;
  settings<Real> set;
  std::uint32_t* status;

  DEM_HD double operator()(index_t i) const {
    using std::sqrt;
    const Real last = p.radius[i];
    if (!p.active[i]) {
      next[i] = last;
      iterations[i] = 0;
      return 0.0;
    }
    const solution<Real> sol = solve_particle(
        p.volume_radius[i], last, set, listed_planes<Space>{p, coord, incident_offset, incident_entry, pair_a, pair_b, i},
        [&](auto&& add) {
          if (walls.offset[i] == walls.offset[i + 1]) return;
          boundary::wall_reports<P>(p, r, coord, i, boundaries, walls, table, num_materials);
          accepted_walls(walls, i, add);
        });
    return store_solution(sol, i, last, radius_ref[i], next, iterations, status);
  }
};

// Whether the pair kernel writes each pair's caps for the particle kernel's radius update: only
// under integrators that leave the particles where the forces were evaluated (velocity Verlet).
// The others solve in a kernel of their own (radius_kernel), from the positions after the move.
template <class P>
inline constexpr bool caps_in_pair_kernel = P::deformable && P::integrator::needs_initial_force;

// The radius update inside the particle kernel (sim::particle_update_kernel), after the particle's
// wall forces (whose reports it reads): null `next` where there is none. The particle kernel sums
// its entries' caps (the pair kernel's, in incident order) while it sums their forces; this adds
// the walls' and takes the first Newton step: the same bits as solve_particle's first pass (the
// same caps, summed in the same order). A sphere that needs more, or that may have more planes
// within reach than a solve holds, runs solve_particle from the positions.
template <class Real>
struct in_step {
  cap_arrays<Real> caps{};  // per incident entry: the pair kernel writes them every step, the particle kernel sums them
  const std::uint32_t* pair_a = nullptr;
  const std::uint32_t* pair_b = nullptr;
  const Real* radius_ref = nullptr;
  Real* next = nullptr;
  std::uint32_t* iterations = nullptr;
  settings<Real> set{};

  template <class Space, class Histories>
  DEM_HD void operator()(const sim::particle_view<Space>& p, const typename Space::params& coord, index_t i,
                         const std::uint32_t* incident_offset, const std::uint32_t* incident_entry,
                         const boundary::wall_view<Real, Histories>& walls, const cap_record<Real>& pair_caps, std::uint32_t* status) const {
    const Real last = p.radius[i], R = p.volume_radius[i];
    // Every listed pair counts as within reach: at least as many planes as the solve would hold.
    first_pass<Real> pass{R, first_iterate(R, last, set.limit), last + set.reach, {pair_caps.volume, pair_caps.slope},
                          static_cast<int>(incident_offset[i + 1] - incident_offset[i]), pair_caps.cuts()};
    accepted_walls(walls, i, [&](Real d) { pass.add(wall_plane(d)); });
    Real out;
    const bool in_range = pair_caps.volume == pair_caps.volume;  // no NaN entry (deform::pair_cap)
    if (in_range && pass.within <= max_planes && pass.finish(set.accept, out))
      store_solution(solution<Real>{out, pass.cuts ? 1u : 0u, solve_status::ok}, i, last, radius_ref[i], next, iterations, status);
    else
      solve_fully(p, coord, i, incident_offset, incident_entry, walls, status);
  }

  // The whole solve from the positions (rare: kept out of the particle kernel).
  template <class Space, class Histories>
  DEM_HD DEM_NOINLINE void solve_fully(const sim::particle_view<Space>& p, const typename Space::params& coord, index_t i,
                                       const std::uint32_t* incident_offset, const std::uint32_t* incident_entry,
                                       const boundary::wall_view<Real, Histories>& walls, std::uint32_t* status) const {
    const Real last = p.radius[i];
    const solution<Real> sol = solve_particle(p.volume_radius[i], last, set,
                                              listed_planes<Space>{p, coord, incident_offset, incident_entry, pair_a, pair_b, i},
                                              [&](auto&& add) { accepted_walls(walls, i, add); });
    store_solution(sol, i, last, radius_ref[i], next, iterations, status);
  }
};

// How far each R' goes above the smaller of its value at the last build and its current one.
template <class Real>
struct growth_kernel {
  const Real* next;
  const Real* current;
  const Real* ref;
  const std::uint32_t* active;
  DEM_HD double operator()(index_t i) const {
    const Real base = current[i] < ref[i] ? current[i] : ref[i];
    const double grew = static_cast<double>(next[i]) - static_cast<double>(base);
    return active[i] && grew > 0 ? grew : 0.0;
  }
};

// Largest radius of the active particles (the broad phase's cell is sized for it).
template <class Real>
struct max_radius {
  const Real* radius;
  const std::uint32_t* active;
  DEM_HD double operator()(index_t i) const { return active[i] ? static_cast<double>(radius[i]) : 0.0; }
};

}  // namespace dem::deform
