#pragma once
// coord::voxel<SubBits> — fixed-point positions after Chrono DEM-Engine: a 64-bit voxel index whose
// bits are split between x, y and z, plus an unsigned SubBits-bit offset inside the voxel per axis.
// A float position far from the origin is coarse (6e-5 m at 1 km); these have one resolution over
// the whole domain, and the difference of two positions is exact in integers before its single
// rounding to Real. Same interface as coord::floating (see floating.hpp), so kernels do not change.
//
// Units. Per axis a position is an integer count of units u = voxel_k * 2^SubBits + sub_k in
// [0, 2^(bits_k + SubBits)), where bits_k is the axis's share of the 64-bit voxel index. The unit
// (the resolution) is a power of two metres, 2^-m: units <-> metres is then an exact scaling, so a
// difference is rounded once (int64 -> Real) and a displacement that is a multiple of the unit lands
// exactly. A non-power-of-two unit could be up to 2x finer; exactness was preferred.
//
// Bit split. m is the largest exponent for which every axis holds its span (extent + guard band) in
// whole voxels, with bits_x + bits_y + bits_z <= 64 and bits_k + SubBits <= 63 (so unit sums and
// differences never wrap int64). The voxel size 2^(SubBits - m) m is the same on every axis, so each
// axis gets bits in proportion to log2 of its extent; an axis thinner than one voxel gets none.
//
// Guard band. The grid is wider than the domain by at least extent/1024 + 1 unit per side (in
// practice by all the slack left from rounding up to whole bits, split evenly). Positions saturate at
// the grid's edges instead of wrapping, and those edges lie outside the domain, so inside() is false
// for any saturated position. inside() and cell_of() compare integer units against the domain box.
//
// Resolution (sub-voxel step) and grid span (max_extent, the largest box the grid covers; guard
// included), computed by make_params (the table is from a program, not estimated):
//   domain (m)          SubBits  voxel bits x/y/z  resolution (m)  voxel (m)   grid span (m)
//   1 cube              16       21/21/21          1.455e-11       9.537e-07   2 cube
//   100 cube            16       21/21/21          9.313e-10       6.104e-05   128 cube
//   2000 cube           16       21/21/21          1.490e-08       9.766e-04   2048 cube
//   2000 x 2000 x 10    16       23/23/16          3.725e-09       2.441e-04   2048 x 2048 x 16
//   1 cube              32       21/21/21          2.220e-16       9.537e-07   2 cube
//   100 cube            32       21/21/21          1.421e-14       6.104e-05   128 cube
//   2000 cube           32       21/21/21          2.274e-13       9.766e-04   2048 cube
//   2000 x 2000 x 10    32       23/23/16          5.684e-14       2.441e-04   2048 x 2048 x 16
// (A 1 m cube pays one bit for its guard band: 0.96 m gets 7.3e-12 m. With SubBits = 32 the 63-bit
// axis cap binds for elongated domains: 1e6 x 1 x 1 m gets 31/12/12 voxel bits, 1.1e-13 m.)
//
// Storage: `position` is {uint64 voxel; SubT sub[3]}: 16 bytes for SubBits <= 16 (14 + padding to the
// 8-byte alignment), 24 bytes for SubBits 17..32 (20 + padding); a float vec3 is 12, a double one 24.
// The simulator also keeps the rounding carry (a float vec3, 12 bytes) per particle.
//
// Rounding rule. A displacement is rounded to whole units once per step. Without a carry a step
// below half a unit is lost and a constant 7.3 units rounds to 7 every step (a 4 % slower drift);
// the kernels therefore use displace(..., carry&), which adds the previous remainder first, so the
// position after n steps is the rounded sum of the n displacements (error <= 0.5 unit, no drift).
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "dem/config.hpp"
#include "dem/math/aabb.hpp"
#include "dem/math/vec3.hpp"

namespace dem::coord {

namespace detail {

template <unsigned SubBits>
struct voxel_name {
  static constexpr char value[8] = {'v', 'o', 'x', 'e', 'l',
                                    static_cast<char>('0' + (SubBits >= 10 ? SubBits / 10 : SubBits)),
                                    static_cast<char>(SubBits >= 10 ? '0' + SubBits % 10 : '\0'), '\0'};
};

// 2^e, exact over the double range; a loop so that the grid planning stays constexpr.
constexpr double pow2(int e) {
  double r = 1;
  for (; e > 0; --e) r *= 2;
  for (; e < 0; ++e) r *= 0.5;
  return r;
}

// Smallest e with 2^e >= x, for x > 0 (1024 for x = inf, so callers' bounds reject it).
constexpr int ceil_log2(double x) {
  int e = 0;
  double p = 1;
  while (p < x) { p *= 2; ++e; }
  while (p * 0.5 >= x) { p *= 0.5; --e; }
  return e;
}

// std::isfinite is not constexpr in C++20; comparisons are (and are false for NaN).
constexpr bool finite(double x) {
  return x >= -std::numeric_limits<double>::max() && x <= std::numeric_limits<double>::max();
}

#if defined(__GNUC__)
// A position's 64-bit words, read and written through a type that may alias it (host word layout).
using word64 = std::uint64_t __attribute__((may_alias));
#endif

}  // namespace detail

template <unsigned SubBits = 16>
struct voxel {
  static_assert(SubBits >= 1 && SubBits <= 32,
                "dem::coord::voxel<SubBits>: SubBits (sub-voxel offset bits per axis) must be 1..32; "
                "up to 16 stores std::uint16_t offsets, 17..32 std::uint32_t.");

  static constexpr const char* name = detail::voxel_name<SubBits>::value;
  using sub_type = std::conditional_t<(SubBits <= 16), std::uint16_t, std::uint32_t>;

  // Stored (the precision policy's position type) is ignored: positions are integers.
  template <class Real, class Stored = Real>
  struct space {
    using real = Real;
    // Per particle: the part of past displacements that rounding to whole units left over, in units
    // (|carry| <= 0.5). See displace(..., carry&).
    using carry = vec3<float>;

    struct position {
      std::uint64_t voxel;  // x, y, z voxel indices packed: x in the low bits, then y, then z
      sub_type sub[3];      // offset inside the voxel, in units
      friend DEM_HD constexpr bool operator==(const position& a, const position& b) {
        return a.voxel == b.voxel && a.sub[0] == b.sub[0] && a.sub[1] == b.sub[1] && a.sub[2] == b.sub[2];
      }
    };

    struct params {
      vec3d lo;                  // domain lower corner; units are counted from here
      double unit, inv_unit;     // resolution in metres, 2^-exponent, and its inverse
      Real unit_r, inv_unit_r;   // the same in Real (exact: powers of two)
      std::uint64_t lo_u[3];     // domain lo in grid units (= the lower guard band)
      std::uint64_t hi_u[3];     // domain hi in grid units
      std::uint64_t max_u[3];    // last unit of the grid, 2^(bits + SubBits) - 1: where positions saturate
      std::uint32_t bits[3];     // voxel bits per axis
      std::uint32_t shift[3];    // where each axis's voxel bits start in the index (0 when it has none)
      int exponent;
    };

    // The bit split for a domain (see the header comment); ok is false when none exists.
    struct layout {
      int exponent = 0;
      unsigned bits[3] = {0, 0, 0};
      bool ok = false;
    };

    static constexpr layout plan(const aabb& domain) {
      layout out;
      const vec3d ext = domain.hi - domain.lo;
      double need[3] = {0, 0, 0};  // metres the grid must cover per axis, lower guard included
      int e_max = -2000;
      for (int k = 0; k < 3; ++k) {
        if (!detail::finite(domain.lo[k]) || !detail::finite(domain.hi[k]) || !detail::finite(ext[k]) || !(ext[k] > 0))
          return out;
        need[k] = ext[k] * (1 + 1.0 / 512);
        const int e = detail::ceil_log2(need[k]);
        if (e > e_max) e_max = e;
      }
      // The unit and its inverse must be normal numbers in Real, and the widest grid (2^63 units) finite.
      const int m_max = 1 - std::numeric_limits<Real>::min_exponent;
      const int m_min = 64 - std::numeric_limits<Real>::max_exponent;
      for (int m = (64 - e_max < m_max ? 64 - e_max : m_max); m >= m_min; --m) {
        unsigned total = 0;
        bool fits = true;
        const double scale = detail::pow2(m);
        for (int k = 0; k < 3 && fits; ++k) {
          int b = detail::ceil_log2(need[k] * scale + 4) - static_cast<int>(SubBits);  // + 2 units per side
          if (b < 0) b = 0;
          out.bits[k] = static_cast<unsigned>(b);
          total += out.bits[k];
          fits = b + SubBits <= 63;
        }
        if (fits && total <= 64) {
          out.exponent = m;
          out.ok = true;
          return out;
        }
      }
      return out;
    }

    // Resolution (sub-voxel step, metres) a domain gets, without building params.
    static constexpr double resolution_for(const aabb& domain) {
      const layout l = plan(domain);
      if (!l.ok) throw std::invalid_argument(describe(domain, l, "cannot be represented"));
      return detail::pow2(-l.exponent);
    }

    static params make_params(const aabb& domain) { return make_params(domain, 0.0); }

    // required_step > 0: throws if the resolution is coarser than it.
    static params make_params(const aabb& domain, double required_step) {
      const layout l = plan(domain);
      if (!l.ok) throw std::invalid_argument(describe(domain, l, "cannot be represented"));
      params c{};
      c.lo = domain.lo;
      c.exponent = l.exponent;
      c.unit = detail::pow2(-l.exponent);
      c.inv_unit = detail::pow2(l.exponent);
      c.unit_r = static_cast<Real>(c.unit);
      c.inv_unit_r = static_cast<Real>(c.inv_unit);
      if (required_step > 0 && c.unit > required_step) {
        std::ostringstream why;
        why << "has a resolution coarser than the required " << required_step
            << " m; a smaller domain or more sub-voxel bits (voxel<32>) gives a finer one";
        throw std::invalid_argument(describe(domain, l, why.str()));
      }
      const vec3d ext = domain.hi - domain.lo;
      std::uint32_t shift = 0;
      for (int k = 0; k < 3; ++k) {
        c.bits[k] = l.bits[k];
        c.shift[k] = l.bits[k] ? shift : 0;
        shift += l.bits[k];
        c.max_u[k] = (std::uint64_t{1} << (l.bits[k] + SubBits)) - 1;
        // Exact: ext * 2^m < 2^63 by the plan, and rounding matches from_world's, so from_world(hi) is inside.
        const std::uint64_t span = static_cast<std::uint64_t>(round_units(ext[k] * c.inv_unit));
        c.lo_u[k] = (c.max_u[k] - span) / 2;  // the plan leaves >= 2 units of slack on each side
        c.hi_u[k] = c.lo_u[k] + span;
      }
      return c;
    }

    // Host: encode a world point (the simulator checks it is in the domain; outside, it saturates).
    static position from_world(const params& c, const vec3d& p) {
      std::uint64_t u[3];
      for (int k = 0; k < 3; ++k) u[k] = add_saturated(c.lo_u[k], round_units((p[k] - c.lo[k]) * c.inv_unit), c.max_u[k]);
      return pack(c, u);
    }

    DEM_HD static vec3d to_world(const params& c, const position& p) {
      const std::uint64_t u[3] = {units(c, p, 0), units(c, p, 1), units(c, p, 2)};
      return world_of_units(c, u);
    }
    DEM_HD static vec3<Real> to_real(const params& c, const position& p) { return vec3<Real>(to_world(c, p)); }

    // p - point in double before the one conversion to Real: plane contacts far from the origin.
    DEM_HD static vec3<Real> relative_to(const params& c, const position& p, const vec3d& point) {
      return vec3<Real>(vec3d{(c.lo.x - point.x) + offset(c, p, 0) * c.unit, (c.lo.y - point.y) + offset(c, p, 1) * c.unit,
                              (c.lo.z - point.z) + offset(c, p, 2) * c.unit});
    }

    // a - b: exact integer difference, one rounding (int64 -> Real; the unit scaling is exact).
    // Written out per axis: a loop over k here kept the host's pair loop from vectorising.
    DEM_HD static vec3<Real> difference(const params& c, const position& a, const position& b) {
      return {axis_difference(c, a, b, 0), axis_difference(c, a, b, 1), axis_difference(c, a, b, 2)};
    }
    DEM_HD static Real axis_difference(const params& c, const position& a, const position& b, int k) {
      return difference_of_units(c, units(c, a, k), units(c, b, k));
    }

    // p + d, d rounded to the nearest unit per axis (ties away from zero, so +d then -d returns to p).
    DEM_HD static position displace(const params& c, const position& p, const vec3<Real>& d) {
      std::uint64_t u[3];
      for (int k = 0; k < 3; ++k) u[k] = add_saturated(units(c, p, k), round_units(d[k] * c.inv_unit_r), c.max_u[k]);
      return pack(c, u);
    }

    // p + d + carry, rounded to whole units per axis (ties to even); what rounding left over goes
    // back into carry. The kernels use this form: a particle moving 0.3 units per step advances 3
    // units in 10 steps (without the carry it would never move), and a constant 7.3 units per step
    // averages 7.3, not 7. Deterministic: the carry is per-particle state like the position. Ties to
    // even keep a zero displacement from moving a particle whose carry is exactly +-0.5.
    DEM_HD static position displace(const params& c, const position& p, const vec3<Real>& d, carry& r) {
      std::uint64_t u[3];
      for (int k = 0; k < 3; ++k) {
        const Real t = d[k] * c.inv_unit_r + static_cast<Real>(r[k]);
        const std::int64_t step = round_even(t);
        // t - step is exact (|t| < 2^62 and step is t's nearest integer); saturated or NaN: nothing to carry.
        const float rest = static_cast<float>(t - static_cast<Real>(step));
        r[k] = ((step == max_step) | (step == -max_step)) ? 0.0f : rest;
        u[k] = add_saturated(units(c, p, k), step, c.max_u[k]);
      }
      return pack(c, u);
    }

    DEM_HD static bool inside(const params& c, const position& p) {
      bool in = true;  // no early return: the host's end-of-step loop stays branch-free
      for (int k = 0; k < 3; ++k) {
        const std::uint64_t u = units(c, p, k);
        in &= (u >= c.lo_u[k]) & (u <= c.hi_u[k]);
      }
      return in;
    }

    // Grid cell of p: floor((x - lo) * inv_cell) with x - lo exact, clamped into the grid (positions
    // outside the domain are deactivated elsewhere).
    DEM_HD static void cell_of(const params& c, const position& p, double inv_cell, const std::uint32_t dims[3],
                               std::uint32_t out[3]) {
      for (int k = 0; k < 3; ++k) {
        const double f = std::floor(offset(c, p, k) * c.unit * inv_cell);
        const double hi = static_cast<double>(dims[k] - 1);
        out[k] = static_cast<std::uint32_t>(f >= 0.0 ? (f > hi ? hi : f) : 0.0);  // NaN (a state about to be refused) maps to 0
      }
    }
    // The cells (clamped into the grid) that meet the box p -/+ half (widened by 1e-6 of the offset
    // and half against the rounding of the scaling).
    DEM_HD static void cell_span(const params& c, const position& p, double half, double inv_cell, const std::uint32_t dims[3],
                                 std::uint32_t lo[3], std::uint32_t hi[3]) {
      for (int k = 0; k < 3; ++k) {
        const double x = offset(c, p, k) * c.unit, h = half + 1e-6 * (std::fabs(x) + half), top = static_cast<double>(dims[k] - 1);
        const double a = std::floor((x - h) * inv_cell), b = std::floor((x + h) * inv_cell);
        lo[k] = static_cast<std::uint32_t>(a >= 0.0 ? (a > top ? top : a) : 0.0);
        hi[k] = static_cast<std::uint32_t>(b >= 0.0 ? (b > top ? top : b) : 0.0);
      }
    }

    // Host queries.
    static double resolution(const params& c) { return c.unit; }
    static double voxel_size(const params& c) { return c.unit * detail::pow2(static_cast<int>(SubBits)); }
    static vec3d max_extent(const params& c) {
      vec3d e;
      for (int k = 0; k < 3; ++k) e[k] = detail::pow2(static_cast<int>(c.bits[k] + SubBits) - c.exponent);
      return e;
    }
    static std::array<unsigned, 3> voxel_bits(const params& c) { return {c.bits[0], c.bits[1], c.bits[2]}; }

    // Units along axis k, from the packed index and the offset.
    DEM_HD static std::uint64_t units(const params& c, const position& p, int k) {
#if !DEM_DEVICE_PATHS && defined(__GNUC__)
      if constexpr (word_layout) {  // as words: the host's per-particle loops vectorise (see gather_difference)
        const detail::word64* w = reinterpret_cast<const detail::word64*>(&p);
        return units_of_words(c, w[0], w[1], k);
      }
#endif
      const std::uint64_t v = (p.voxel >> c.shift[k]) & ((std::uint64_t{1} << c.bits[k]) - 1);
      return (v << SubBits) | p.sub[k];
    }

    // The pair loop's read of positions a and b of `pos`: a - b (difference) and a in Real (to_real).
    // On the host, with SubBits <= 16, each position is read as its two 64-bit words (the offsets
    // are the second word's 16-bit fields, x first) by signed 32-bit indices: the form GCC gathers.
    // Reading the struct's 16-bit fields kept the whole pair loop scalar (4x the floating cost).
    DEM_HD static vec3<Real> gather_difference(const params& c, const position* pos, std::uint32_t a, std::uint32_t b, vec3<Real>& xa) {
#if !DEM_DEVICE_PATHS && defined(__GNUC__)
      if constexpr (word_layout) {
        const detail::word64* w = reinterpret_cast<const detail::word64*>(pos);
        const auto ka = 2 * static_cast<std::int32_t>(a), kb = 2 * static_cast<std::int32_t>(b);
        const std::uint64_t va = w[ka], sa = w[ka + 1], vb = w[kb], sb = w[kb + 1];
        std::uint64_t ua[3], ub[3];
        for (int k = 0; k < 3; ++k) {
          ua[k] = units_of_words(c, va, sa, k);
          ub[k] = units_of_words(c, vb, sb, k);
        }
        xa = vec3<Real>(world_of_units(c, ua));
        return {difference_of_units(c, ua[0], ub[0]), difference_of_units(c, ua[1], ub[1]), difference_of_units(c, ua[2], ub[2])};
      }
#endif
      const position pa = pos[a];
      xa = to_real(c, pa);
      return difference(c, pa, pos[b]);
    }

    // SubBits <= 16 on a little-endian machine: a position is two 64-bit words, the offsets the
    // second word's 16-bit fields (x first, the last 16 bits zero).
    static constexpr bool word_layout = SubBits <= 16 && sizeof(position) == 16 && std::endian::native == std::endian::little;

   private:
    static constexpr std::uint64_t sub_mask = (std::uint64_t{1} << SubBits) - 1;
    static constexpr std::int64_t max_step = std::int64_t{1} << 62;  // beyond any grid (<= 2^63 units)

    DEM_HD static double offset(const params& c, const position& p, int k) { return offset_of_units(c, units(c, p, k), k); }
    DEM_HD static double offset_of_units(const params& c, std::uint64_t u, int k) {  // units from domain lo
      return static_cast<double>(static_cast<std::int64_t>(u) - static_cast<std::int64_t>(c.lo_u[k]));
    }
    DEM_HD static vec3d world_of_units(const params& c, const std::uint64_t u[3]) {
      return {c.lo.x + offset_of_units(c, u[0], 0) * c.unit, c.lo.y + offset_of_units(c, u[1], 1) * c.unit,
              c.lo.z + offset_of_units(c, u[2], 2) * c.unit};
    }
    // a - b in metres: the exact integer difference, rounded once (the unit scaling is exact).
    DEM_HD static Real difference_of_units(const params& c, std::uint64_t a, std::uint64_t b) {
      return static_cast<Real>(static_cast<std::int64_t>(a) - static_cast<std::int64_t>(b)) * c.unit_r;
    }
    // Units along axis k from a position's two words (word layout).
    DEM_HD static std::uint64_t units_of_words(const params& c, std::uint64_t voxel_word, std::uint64_t sub_word, int k) {
      return (((voxel_word >> c.shift[k]) & ((std::uint64_t{1} << c.bits[k]) - 1)) << SubBits) | ((sub_word >> (16 * k)) & 0xffffu);
    }

    DEM_HD static position pack(const params& c, const std::uint64_t u[3]) {
#if !DEM_DEVICE_PATHS && defined(__GNUC__)
      if constexpr (word_layout) {
        position p;
        detail::word64* w = reinterpret_cast<detail::word64*>(&p);
        w[0] = ((u[0] >> SubBits) << c.shift[0]) | ((u[1] >> SubBits) << c.shift[1]) | ((u[2] >> SubBits) << c.shift[2]);
        w[1] = (u[0] & sub_mask) | ((u[1] & sub_mask) << 16) | ((u[2] & sub_mask) << 32);
        return p;
      }
#endif
      position p;
      p.voxel = 0;
      for (int k = 0; k < 3; ++k) {
        p.voxel |= (u[k] >> SubBits) << c.shift[k];
        p.sub[k] = static_cast<sub_type>(u[k] & sub_mask);
      }
      return p;
    }

    // Nearest integer, ties away from zero, saturated to +-2^62; NaN saturates high (then outside).
    // Plain arithmetic: std::llround is not device code. t - trunc(t) is exact in T.
    template <class T>
    DEM_HD static std::int64_t round_units(T t) {
      const T lim = static_cast<T>(max_step);
      if (!(t < lim)) return max_step;
      if (!(t > -lim)) return -max_step;
      std::int64_t i = static_cast<std::int64_t>(t);
      const T frac = t - static_cast<T>(i);
      if (frac >= T(0.5)) ++i;
      else if (frac <= T(-0.5)) --i;
      return i;
    }

    // Nearest integer, ties to even, saturated like round_units. rint rounds to nearest even in the
    // default rounding mode (the one every backend runs in); selects, not branches: it is in every
    // particle's step.
    template <class T>
    DEM_HD static std::int64_t round_even(T t) {
      using std::rint;
      const T lim = static_cast<T>(max_step);  // 2^62, exact in float and double
      const T r = rint(t);
      const T below = r < lim ? r : lim;        // NaN: lim (high)
      return static_cast<std::int64_t>(below > -lim ? below : -lim);  // clamped, then always converted
    }

    // u + step clamped to [0, max]: a position leaving the grid stops at its edge, never wraps.
    // The step is clamped to [-u, max - u] first (both fit int64: u, max < 2^63), so the sum cannot wrap.
    DEM_HD static std::uint64_t add_saturated(std::uint64_t u, std::int64_t step, std::uint64_t max) {
      const std::int64_t down = -static_cast<std::int64_t>(u), up = static_cast<std::int64_t>(max - u);
      const std::int64_t s = step < down ? down : step > up ? up : step;
      return u + static_cast<std::uint64_t>(s);
    }

    static std::string describe(const aabb& domain, const layout& l, const std::string& what) {
      const vec3d ext = domain.hi - domain.lo;
      std::ostringstream m;
      m << "dem::coord::" << name << " (" << (sizeof(Real) == 4 ? "float" : "double") << "): domain extent " << ext.x
        << " x " << ext.y << " x " << ext.z << " m";
      if (l.ok) {
        m << ", bits per axis (voxel + sub-voxel) " << l.bits[0] << "+" << SubBits << " / " << l.bits[1] << "+" << SubBits
          << " / " << l.bits[2] << "+" << SubBits << ", resolution " << detail::pow2(-l.exponent) << " m, " << what;
      } else {
        m << " " << what << ": no split of 64 voxel bits (+ " << SubBits
          << " sub-voxel bits per axis) gives a finite resolution; every extent must be finite and positive"
          << " and the resolution a normal " << (sizeof(Real) == 4 ? "float" : "double");
      }
      return m.str();
    }
  };
};

}  // namespace dem::coord
