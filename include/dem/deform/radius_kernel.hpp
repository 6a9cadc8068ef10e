#pragma once
// The per-particle radius update of deformable spheres (shape::deformable_sphere). Particle i
// gathers its contact planes (its listed partners, in the incident list's canonical order, then
// its boundary elements that count, in element order) and solves its R' (deform/volume.hpp), in the
// precision of the radii. Every particle reads the current R' of every sphere and writes the next
// into another array (a Jacobi sweep: the result does not depend on the order in which particles
// are updated, so it is the same bits on every backend and thread count).
//
// Two ways in, the same bits: inside the particle kernel (`in_step`, velocity Verlet: the planes
// from the pair kernel's distances, which it stores per pair as a by-product; the result serves the
// next step), or as a kernel of its own (`radius_kernel`: the distances recomputed from the
// positions, in the same operations), which integrators that move particles after the force
// evaluation use before it, and which repeats a solve after a rebuild (sim/deformation.hpp).
#include <cmath>
#include <cstdint>

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

// Per listed pair, written by the pair kernel: the centre distance and the two radii it used, and
// apart 0.5 / distance (its vectorised loop divides at a fraction of the particle kernel's cost).
template <class Real>
using pair_record = vec3<Real>;  // (distance, R'_a, R'_b)

// The settings of a solve.
template <class Real>
struct settings {
  Real reach;      // how far R' may grow in a step: partners within R' + R_j + reach are planes
  Real limit;      // R' < limit R
  Real tolerance;  // the solve's accuracy, relative to R (deform::solve)
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
    const Real x = first_iterate(R, last, s.limit);
    caps<Real> sum;
    int within = 0;
    bool cuts = false;
    auto visit = [&](const plane<Real>& pl) {
      within += near + pl.c > 0;
      cuts |= R + pl.c > 0;
      add_cap(pl, x, sum);
    };
    pairs([&](Real L, Real rj, Real w) {
      if (L > 0) visit(plane<Real>{rj - L, 2 * rj, w});
    });
    walls([&](Real d) { visit(wall_plane(d)); });
    if (within > max_planes) return {last, 0, solve_status::too_many_planes};
    if (!cuts) return {R, 0, solve_status::ok};  // without a cut the root is R itself: reversible to the bit
    Real out;
    if (first_step(R, x, sum, s.tolerance, out)) return {out, 1, solve_status::ok};
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
        p.volume_radius[i], last, set,
        [&](auto&& add) {
          for (std::uint32_t k = incident_offset[i]; k < incident_offset[i + 1]; ++k) {
            const std::uint32_t e = incident_entry[k];
            const std::uint32_t a = pair_a[e >> 1], b = pair_b[e >> 1];
            // The pair kernel's distance, in its operations: from A's centre to B's.
            const Real L = sqrt(norm2(Space::difference(coord, p.pos[a], p.pos[b])));
            add(L, p.radius[(e & 1u) ? a : b], Real(0.5) / L);
          }
        },
        [&](auto&& add) {
          if (walls.offset[i] == walls.offset[i + 1]) return;
          boundary::wall_reports<P>(p, r, coord, i, boundaries, walls, table, num_materials);
          accepted_walls(walls, i, add);
        });
    return store_solution(sol, i, last, radius_ref[i], next, iterations, status);
  }
};

// The radius update inside the particle kernel (sim::particle_update_kernel), after the particle's
// wall forces (whose reports it reads): null `next` where there is none.
template <class Real>
struct in_step {
  const pair_record<Real>* pairs = nullptr;  // per listed pair (the pair kernel's)
  const Real* half_inverse = nullptr;        // per listed pair: 0.5 / distance
  const Real* radius_ref = nullptr;
  Real* next = nullptr;
  std::uint32_t* iterations = nullptr;
  settings<Real> set{};

  template <class Space, class Histories>
  DEM_HD DEM_NOINLINE void operator()(const sim::particle_view<Space>& p, index_t i, const std::uint32_t* incident_offset, const std::uint32_t* incident_entry,
                         const boundary::wall_view<Real, Histories>& walls, std::uint32_t* status) const {
    const Real last = p.radius[i];
    const solution<Real> sol = solve_particle(
        p.volume_radius[i], last, set,
        [&](auto&& add) {
          for (std::uint32_t k = incident_offset[i]; k < incident_offset[i + 1]; ++k) {
            const std::uint32_t e = incident_entry[k];
            const pair_record<Real> rec = pairs[e >> 1];
            add(rec.x, (e & 1u) ? rec.y : rec.z, half_inverse[e >> 1]);  // the partner's radius: A's for entry B
          }
        },
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
