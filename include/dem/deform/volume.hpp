#pragma once
// The volume-conserving radius of a deformable sphere (YADE's deformation engine; PHYSICS.md,
// "Deformation engine"): a sphere of radius R cut by contact planes grows to R' so that the
// enlarged sphere minus its caps keeps the volume 4/3 pi R^3:
//   f(R') = R'^3 - 1/4 sum_i (R' - d_i)^2 (2 R' + d_i) - R^3 = 0,   over the planes with d_i < R'.
// Written with the caps' heights h = R' - d: a cap is 1/4 h^2 (3R' - h) (over 4 pi / 3). A wall's
// plane is at the centre's distance from the surface, h = R' - dist. Two enlarged spheres at centre
// distance L meet on the plane d = (L^2 + R'^2 - R_j'^2) / (2L), which moves with R'; with their
// overlap delta = R' + R_j' - L, h = delta (2 R_j' - delta) / (2L), free of the cancellation of
// R' - d. The cap and its slope vanish where a plane starts to cut (h = 0), so f is continuous with
// a continuous slope; f(R) <= 0, and f grows with R' while the caps do not overlap one another (f'
// is then 4 pi R'^2 less the caps' areas, over 4 pi / 3). Newton's method, kept inside a bracket
// that bisects when a step leaves it, finds the root. In the precision of the radii (Real): the
// result is stored in it.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "dem/config.hpp"

namespace dem::deform {

// One contact plane, in terms of the sphere's own trial radius x: the overlap delta = x + c, the
// cap's height h = delta (k - delta) w for a pair (k = 2 R_j', w = 1 / (2L)) and h = delta for a
// wall (k = w = 0).
template <class Real>
struct plane {
  Real c;
  Real k;
  Real w;
};

// A pair's plane, for centre distance L and the partner's radius rj.
template <class Real>
DEM_HD inline plane<Real> pair_plane(Real L, Real rj) { return {rj - L, 2 * rj, Real(0.5) / L}; }
// A boundary's plane at distance d from the centre.
template <class Real>
DEM_HD inline plane<Real> wall_plane(Real d) { return {-d, Real(0), Real(0)}; }

// The cap's height at trial radius x, and its derivative in x.
template <class Real>
DEM_HD inline Real cap_height(const plane<Real>& p, Real x, Real& slope) {
  const Real delta = x + p.c;
  const bool wall = p.w == Real(0);
  slope = wall ? Real(1) : p.w * (p.k - 2 * delta);
  return wall ? delta : delta * (p.k - delta) * p.w;
}

// A particle's planes as separate arrays of their fields: the host vectorises the sum over them
// with plain loads (an array of plane structs took three gathers per vector).
template <class Real, int Capacity>
struct plane_set {
  Real c[Capacity];
  Real k[Capacity];
  Real w[Capacity];
  int n = 0;
  DEM_HD void push(const plane<Real>& p) {
    c[n] = p.c;
    k[n] = p.k;
    w[n] = p.w;
    ++n;
  }
};

// f(x) + R^3 - x^3 = minus the caps, and f'(x).
template <class Real>
struct caps {
  Real volume = 0;  // the caps' 1/4 h^2 (3x - h), in units of 4 pi / 3 like x^3
  Real slope = 0;   // its derivative in x
};
// Adds a cap of height `height` (below zero where its plane does not cut) and slope dh = d height / dx
// at trial radius x to the sums: zero where the plane does not cut (a select, not a branch, so that
// a plane that does not cut changes no bit of them).
template <class Real>
DEM_HD inline void add_cap_height(Real height, Real dh, Real x, caps<Real>& sum) {
  // A max (maxss), not `h > 0 ? h : 0`, which GCC made a branch (mispredicted: about half the
  // listed pairs touch), nor fmax (a libm call without -ffast-math).
  const Real h = std::max(height, Real(0));
  sum.volume += Real(0.25) * h * h * (3 * x - h);
  sum.slope += Real(0.25) * h * (2 * dh * (3 * x - h) + h * (3 - dh));
}
// Adds plane p's cap at trial radius x to the sums.
template <class Real>
DEM_HD inline void add_cap(const plane<Real>& p, Real x, caps<Real>& sum) {
  Real dh;
  const Real height = cap_height(p, x, dh);
  add_cap_height(height, dh, x, sum);
}
// A pair's plane (k = 2 R_j', w = 1 / (2L)) only: cap_height's operations without its select for walls.
template <class Real>
DEM_HD inline void add_pair_cap(Real c, Real k, Real w, Real x, caps<Real>& sum) {
  const Real delta = x + c;
  add_cap_height(delta * (k - delta) * w, w * (k - 2 * delta), x, sum);
}
template <class Real, int Capacity>
DEM_HD inline caps<Real> caps_of(const plane_set<Real, Capacity>& s, Real x) {
  caps<Real> sum;
  for (int i = 0; i < s.n; ++i) add_cap(plane<Real>{s.c[i], s.k[i], s.w[i]}, x, sum);
  return sum;
}

// The volume (over 4 pi / 3) the sphere of radius x keeps once the planes cut their caps off.
template <class Real, int Capacity>
DEM_HD inline Real kept_volume(const plane_set<Real, Capacity>& s, Real x) { return x * x * x - caps_of(s, x).volume; }

enum class solve_status : std::uint32_t { ok = 0, beyond_limit = 1, no_convergence = 2, too_many_planes = 3 };

template <class Real>
struct solution {
  Real radius;
  std::uint32_t iterations;
  solve_status status;
};

inline constexpr int max_iterations = 60;

// The first iterate of solve() from `guess`, inside the bracket [R, limit R].
template <class Real>
DEM_HD inline Real first_iterate(Real R, Real guess, Real limit) { return guess > R && guess < limit * R ? guess : R; }

// Whether a Newton step f / df (df > 0) is at most `step`: tested as |f| <= step df, so that the
// test waits on a product, not on the division (whose latency the particle kernel's branch on it
// exposed). first_step and solve test it alike: the first pass ends where the solve would.
template <class Real>
DEM_HD inline bool converged(Real f, Real df, Real step) {
  using std::fabs;
  return fabs(f) <= step * df;
}

// Newton's first step at x from the caps there: converged when the step is below accept R, with
// accept = sqrt(tolerance) (see solve; taken precomputed, a square root per sphere is dear). Sets
// `out` and returns true then.
template <class Real>
DEM_HD inline bool first_step(Real R, Real x, const caps<Real>& c, Real accept, Real& out) {
  const Real f = (x - R) * (x * x + x * R + R * R) - c.volume;
  const Real df = 3 * x * x - c.slope;
  out = x - f / df;  // x itself where f = 0, as solve returns it (f = 0 with df <= 0 is left to solve)
  return (int(df > 0) & converged(f, df, accept * R)) != 0;
}

// R' for original radius R from the planes, starting from `guess` (last step's R'); R' may not
// reach limit * R. The result is within about tolerance * R of the root: a Newton step below
// sqrt(tolerance) * R ends the iteration, since the error after it is of order step^2 / R (last
// step's R' is usually that close, so a slowly changing packing needs one iteration per step).
template <class Real, int Capacity>
DEM_HD inline solution<Real> solve(Real R, const plane_set<Real, Capacity>& planes, Real guess, Real limit, Real tolerance) {
  using std::fabs;
  using std::sqrt;
  const Real accept = sqrt(tolerance) * R;
  const Real closed = (tolerance > 4 * std::numeric_limits<Real>::epsilon() ? 2 * tolerance : 8 * std::numeric_limits<Real>::epsilon()) * R;
  const Real top = limit * R;
  Real lo = R, hi = top;
  Real x = first_iterate(R, guess, limit);
  for (std::uint32_t it = 1; it <= max_iterations; ++it) {
    const caps<Real> c = caps_of(planes, x);
    const Real f = (x - R) * (x * x + x * R + R * R) - c.volume;  // x^3 - R^3 without cancellation
    if (f == 0) return {x, it, solve_status::ok};
    if (f < 0) lo = x;
    else hi = x;
    const Real df = 3 * x * x - c.slope;
    const Real newton = f / df;
    // Converged: checked before the bracket, where a step below the spacing of the numbers lands
    // on the bracket's end it just set.
    if (df > 0 && converged(f, df, accept)) return {x - newton, it, solve_status::ok};
    Real next = x - newton;
    if (!(next > lo && next < hi)) next = Real(0.5) * (lo + hi);  // outside the bracket, or f' <= 0 or NaN
    x = next;
    if (hi - lo <= closed) {
      // Bisected down to nothing at the limit: f never turned positive below limit * R.
      if (lo >= top - closed) return {x, it, solve_status::beyond_limit};
      return {x, it, solve_status::ok};  // the bracket closed on the root
    }
  }
  return {x, max_iterations, solve_status::no_convergence};
}

}  // namespace dem::deform
