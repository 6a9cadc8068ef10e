// coord::voxel: round trips within half a unit, exact differences across voxel boundaries,
// drift-free and saturating displacements, cell binning, the bit split and its error messages.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "dem/coord/voxel.hpp"

namespace {

template <unsigned S, class R>
struct cfg {
  static constexpr unsigned sub_bits = S;
  using real = R;
  using space = typename dem::coord::voxel<S>::template space<R>;
};

#define VOXEL_CONFIGS cfg<16, float>, cfg<16, double>, cfg<32, float>, cfg<32, double>

// Domains near and far from the origin, with extents that are not powers of two.
const dem::aabb near_box{{-3.25, -1.0, 0.5}, {5.0, 7.0, 2.5}};
const dem::aabb far_box{{1.0e6, -2.0e6, 1000.0}, {1.0e6 + 2000.0, -2.0e6 + 2000.0, 1010.0}};

// Builds a position from per-axis units with the documented layout (x in the low voxel bits, then y,
// then z), independently of the policy's own packing.
template <class C>
typename C::space::position make_position(const typename C::space::params& c, const std::uint64_t u[3]) {
  const auto bits = C::space::voxel_bits(c);
  typename C::space::position p{};
  unsigned shift = 0;
  for (int k = 0; k < 3; ++k) {
    p.voxel |= (u[k] >> C::sub_bits) << shift;
    shift += bits[k];
    p.sub[k] = static_cast<typename dem::coord::voxel<C::sub_bits>::sub_type>(u[k] & ((std::uint64_t{1} << C::sub_bits) - 1));
  }
  return p;
}

// Smallest e with 2^e >= x, written independently of the header's loop.
int ceil_log2(double x) {
  int e = 0;
  const double f = std::frexp(x, &e);  // x = f 2^e, f in [0.5, 1)
  return f == 0.5 ? e - 1 : e;
}

template <class Space>
std::string bits_text(const typename Space::params& c, unsigned sub_bits) {
  const auto b = Space::voxel_bits(c);
  std::ostringstream s;
  s << b[0] << "+" << sub_bits << " / " << b[1] << "+" << sub_bits << " / " << b[2] << "+" << sub_bits;
  return s.str();
}

}  // namespace

TEST_CASE_TEMPLATE("voxel: world -> position -> world within half a unit, near lo/hi and voxel boundaries", C, VOXEL_CONFIGS) {
  using V = typename C::space;
  for (const dem::aabb& box : {near_box, far_box}) {
    const auto c = V::make_params(box);
    const double unit = V::resolution(c);
    std::mt19937_64 rng(7);
    auto check = [&](const dem::vec3d& x) {
      const auto p = V::from_world(c, x);
      CHECK(V::inside(c, p));
      const dem::vec3d y = V::to_world(c, p);
      for (int k = 0; k < 3; ++k) {
        // Half a unit, plus the double roundings of x - lo and lo + offset.
        const double slack = 4 * std::numeric_limits<double>::epsilon() * std::max(std::abs(x[k]), std::abs(box.lo[k]));
        CHECK(std::abs(y[k] - x[k]) <= 0.5 * unit + slack);
      }
    };
    std::uniform_real_distribution<double> t(0.0, 1.0);
    const dem::vec3d e = box.extent();
    for (int i = 0; i < 2000; ++i) check({box.lo.x + t(rng) * e.x, box.lo.y + t(rng) * e.y, box.lo.z + t(rng) * e.z});
    check(box.lo);
    check(box.hi);
    check({box.lo.x + unit / 3, box.lo.y + unit / 3, box.lo.z + unit / 3});
    check({box.hi.x - unit / 3, box.hi.y - unit / 3, box.hi.z - unit / 3});
    // Around voxel boundaries: the unit counts v 2^S - 1, v 2^S, v 2^S + 1, give or take a fraction.
    for (int i = 0; i < 200; ++i) {
      dem::vec3d x;
      for (int k = 0; k < 3; ++k) {
        // World position of a voxel boundary: lo + (v 2^S - lo_u) unit.
        const double first = std::ceil(static_cast<double>(c.lo_u[k]) / std::ldexp(1.0, C::sub_bits) + 1);
        const double last = std::floor(static_cast<double>(c.hi_u[k]) / std::ldexp(1.0, C::sub_bits) - 1);
        if (last < first) { x[k] = box.lo[k] + t(rng) * e[k]; continue; }  // an axis inside a single voxel
        const double v = std::floor(first + t(rng) * (last - first));
        x[k] = box.lo[k] + (v * std::ldexp(1.0, C::sub_bits) - static_cast<double>(c.lo_u[k])) * unit +
               (static_cast<int>(i % 5) - 2) * 0.4 * unit;
      }
      check(x);
    }
  }
}

TEST_CASE_TEMPLATE("voxel: differences are the exact unit difference, across voxel boundaries and far from the origin", C,
                   VOXEL_CONFIGS) {
  using V = typename C::space;
  using Real = typename C::real;
  for (const dem::aabb& box : {near_box, far_box}) {
    const auto c = V::make_params(box);
    const double unit = V::resolution(c);
    std::mt19937_64 rng(11);
    std::uniform_int_distribution<std::uint64_t> small(0, 3 * (std::uint64_t{1} << C::sub_bits));
    for (int i = 0; i < 2000; ++i) {
      std::uint64_t ua[3], ub[3];
      for (int k = 0; k < 3; ++k) {
        // A voxel boundary B inside the domain, a above it and b below it (a, b up to 3 voxels).
        const std::uint64_t b_ = (c.lo_u[k] + c.hi_u[k]) / 2 >> C::sub_bits << C::sub_bits;
        ua[k] = b_ + small(rng);
        ub[k] = b_ - 1 - small(rng);
      }
      const auto pa = make_position<C>(c, ua), pb = make_position<C>(c, ub);
      for (int k = 0; k < 3; ++k) {
        REQUIRE(V::units(c, pa, k) == ua[k]);
        REQUIRE(V::units(c, pb, k) == ub[k]);
      }
      const dem::vec3<Real> d = V::difference(c, pa, pb);
      const dem::vec3<Real> back = V::difference(c, pb, pa);
      for (int k = 0; k < 3; ++k) {
        // The unit grid in double: an integer below 2^53 times a power of two, then one rounding.
        const double exact = static_cast<double>(ua[k] - ub[k]) * unit;
        CHECK(d[k] == static_cast<Real>(exact));
        CHECK(back[k] == -d[k]);
      }
    }
  }
  // Far from the origin float world coordinates step by 0.125 m; these do not. Two points 1 um
  // apart (on the unit grid) straddling a voxel boundary differ by exactly that.
  const auto c = V::make_params(far_box);
  const double unit = V::resolution(c);
  const std::uint64_t boundary = (c.lo_u[0] + c.hi_u[0]) / 2 >> C::sub_bits << C::sub_bits;
  const auto n = static_cast<std::uint64_t>(std::llround(1e-6 / unit));
  const std::uint64_t ua[3] = {boundary + n / 2, c.lo_u[1], c.lo_u[2]}, ub[3] = {boundary - (n - n / 2), c.lo_u[1], c.lo_u[2]};
  CHECK(V::difference(c, make_position<C>(c, ua), make_position<C>(c, ub)).x == static_cast<Real>(static_cast<double>(n) * unit));
  CHECK(std::abs(static_cast<double>(n) * unit - 1e-6) <= 0.5 * unit);
}

TEST_CASE_TEMPLATE("voxel: the pair loop's gathered read gives difference and to_real to the bit", C, VOXEL_CONFIGS) {
  // gather_difference reads positions as 64-bit words on the host (SubBits <= 16) and as structs
  // elsewhere; both must give what difference() and to_real() give, for any pair in an array,
  // including the grid's saturated edges and the guard band.
  using V = typename C::space;
  using Real = typename C::real;
  for (const dem::aabb& box : {near_box, far_box}) {
    const auto c = V::make_params(box);
    std::mt19937_64 rng(5);
    std::vector<typename V::position> pos;
    for (int i = 0; i < 512; ++i) {
      std::uint64_t u[3];
      for (int k = 0; k < 3; ++k) {
        std::uniform_int_distribution<std::uint64_t> any(0, c.max_u[k]);
        const int kind = i % 4;  // anywhere on the grid, at its two edges, or near the domain's middle
        u[k] = kind == 0 ? any(rng) : kind == 1 ? 0 : kind == 2 ? c.max_u[k] : (c.lo_u[k] + c.hi_u[k]) / 2 + any(rng) % 4096;
      }
      pos.push_back(make_position<C>(c, u));
    }
    std::uniform_int_distribution<std::uint32_t> pick(0, static_cast<std::uint32_t>(pos.size() - 1));
    for (int t = 0; t < 4000; ++t) {
      const std::uint32_t a = pick(rng), b = pick(rng);
      dem::vec3<Real> xa{};
      const dem::vec3<Real> d = V::gather_difference(c, pos.data(), a, b, xa);
      const dem::vec3<Real> want = V::difference(c, pos[a], pos[b]), want_x = V::to_real(c, pos[a]);
      for (int k = 0; k < 3; ++k) {
        REQUIRE(d[k] == want[k]);
        REQUIRE(xa[k] == want_x[k]);
      }
    }
  }
}

TEST_CASE_TEMPLATE("voxel: relative_to and to_real", C, VOXEL_CONFIGS) {
  using V = typename C::space;
  using Real = typename C::real;
  const auto c = V::make_params(far_box);
  const dem::vec3d plane_point{far_box.lo.x + 1.5, far_box.lo.y + 3.0, 1005.0};
  const dem::vec3d x{plane_point.x + 0.37e-3, plane_point.y - 2.5e-3, plane_point.z + 1e-4};
  const auto p = V::from_world(c, x);
  const dem::vec3d w = V::to_world(c, p);
  const dem::vec3<Real> r = V::relative_to(c, p, plane_point);
  for (int k = 0; k < 3; ++k) {
    CHECK(static_cast<double>(r[k]) == doctest::Approx(w[k] - plane_point[k]).epsilon(1e-6));
    CHECK(V::to_real(c, p)[k] == static_cast<Real>(w[k]));
  }
}

TEST_CASE_TEMPLATE("voxel: displacements accumulate without drift and saturate outside the domain", C, VOXEL_CONFIGS) {
  using V = typename C::space;
  using Real = typename C::real;
  for (const dem::aabb& box : {near_box, far_box}) {
    const auto c = V::make_params(box);
    const double unit = V::resolution(c);
    const dem::vec3d mid{(box.lo.x + box.hi.x) / 2, (box.lo.y + box.hi.y) / 2, (box.lo.z + box.hi.z) / 2};
    const auto start = V::from_world(c, mid);

    // 1e5 steps of (3, -5, 1) units land exactly on 1e5 (3, -5, 1) units.
    const dem::vec3<Real> step{static_cast<Real>(3 * unit), static_cast<Real>(-5 * unit), static_cast<Real>(unit)};
    auto p = start;
    for (int i = 0; i < 100000; ++i) p = V::displace(c, p, step);
    CHECK(V::units(c, p, 0) == V::units(c, start, 0) + 300000);
    CHECK(V::units(c, p, 1) == V::units(c, start, 1) - 500000);
    CHECK(V::units(c, p, 2) == V::units(c, start, 2) + 100000);
    CHECK(V::inside(c, p));

    // +d then -d returns to the same position (rounding is symmetric), for any d.
    std::mt19937_64 rng(3);
    std::uniform_real_distribution<double> t(-1.0, 1.0);
    const dem::vec3d e = box.extent();
    for (int i = 0; i < 1000; ++i) {
      const double scale = std::min(e.x, std::min(e.y, e.z)) / 4 * std::ldexp(1.0, -static_cast<int>(i % 40));
      const dem::vec3<Real> d{static_cast<Real>(t(rng) * scale), static_cast<Real>(t(rng) * scale), static_cast<Real>(t(rng) * scale)};
      const auto q = V::displace(c, start, d);
      CHECK(V::displace(c, q, -d) == start);
      const dem::vec3<Real> moved = V::difference(c, q, start);
      for (int k = 0; k < 3; ++k) {  // half a unit, plus the rounding of the result to Real
        const double tol = 0.5 * unit + 2 * std::numeric_limits<Real>::epsilon() * std::abs(static_cast<double>(d[k]));
        CHECK(std::abs(static_cast<double>(moved[k]) - static_cast<double>(d[k])) <= tol);
      }
    }

    // Stepping out of the domain: inside() turns false exactly one unit past hi.
    std::uint64_t u_hi[3] = {c.hi_u[0], c.lo_u[1], c.lo_u[2]};
    auto edge = make_position<C>(c, u_hi);
    CHECK(V::inside(c, edge));
    CHECK(V::to_world(c, edge).x == doctest::Approx(box.hi.x).epsilon(1e-12));
    CHECK_FALSE(V::inside(c, V::displace(c, edge, dem::vec3<Real>{static_cast<Real>(unit), 0, 0})));
    CHECK(V::inside(c, V::displace(c, edge, dem::vec3<Real>{0, static_cast<Real>(unit), 0})));
    CHECK_FALSE(V::inside(c, V::displace(c, edge, dem::vec3<Real>{0, static_cast<Real>(-unit), 0})));

    // Far out (10 extents, 1e30 m, inf, NaN): saturated at the grid's edge, never wrapped.
    const auto span = V::max_extent(c);
    const double grid_lo = box.lo.x - static_cast<double>(c.lo_u[0]) * unit;
    const Real far_steps[] = {static_cast<Real>(10 * box.extent().x), static_cast<Real>(1e30), std::numeric_limits<Real>::infinity()};
    for (const Real s : far_steps) {
      const auto up = V::displace(c, start, dem::vec3<Real>{s, 0, 0});
      CHECK_FALSE(V::inside(c, up));
      CHECK(V::units(c, up, 0) == c.max_u[0]);
      CHECK(V::to_world(c, up).x > box.hi.x);
      CHECK(V::to_world(c, up).x <= grid_lo + span.x);
      CHECK(V::units(c, up, 1) == V::units(c, start, 1));  // the other axes are untouched
      const auto down = V::displace(c, start, dem::vec3<Real>{0, 0, -s});
      CHECK_FALSE(V::inside(c, down));
      CHECK(V::units(c, down, 2) == 0);
      CHECK(V::to_world(c, down).z < box.lo.z);
      CHECK(V::to_world(c, down).z >= box.lo.z - static_cast<double>(c.lo_u[2]) * unit * (1 + 1e-12));
    }
    CHECK_FALSE(V::inside(c, V::displace(c, start, dem::vec3<Real>{std::numeric_limits<Real>::quiet_NaN(), 0, 0})));
    // Saturated positions stay saturated (no wrap on a further push either way).
    auto top = V::displace(c, start, dem::vec3<Real>{far_steps[0], 0, 0});
    top = V::displace(c, top, dem::vec3<Real>{far_steps[0], 0, 0});
    CHECK(V::units(c, top, 0) == c.max_u[0]);
    // from_world of points outside the domain saturates too.
    CHECK(V::units(c, V::from_world(c, {box.lo.x - 1e12, mid.y, mid.z}), 0) == 0);
    CHECK(V::units(c, V::from_world(c, {mid.x, box.hi.y + 1e12, mid.z}), 1) == c.max_u[1]);
    CHECK_FALSE(V::inside(c, V::from_world(c, {mid.x, mid.y, box.hi.z + 1e-3 * box.extent().z})));
  }
}

TEST_CASE_TEMPLATE("voxel: the rounding carry keeps sub-unit and fractional displacements (no loss, no bias)", C, VOXEL_CONFIGS) {
  using V = typename C::space;
  using Real = typename C::real;
  for (const dem::aabb& box : {near_box, far_box}) {
    const auto c = V::make_params(box);
    const double unit = V::resolution(c);
    const dem::vec3d mid{(box.lo.x + box.hi.x) / 2, (box.lo.y + box.hi.y) / 2, (box.lo.z + box.hi.z) / 2};
    const auto start = V::from_world(c, mid);
    // 7.3, -0.3 and 0.25 units per step: without the carry 7, 0 and 0 units per step.
    const dem::vec3<Real> d{static_cast<Real>(7.3 * unit), static_cast<Real>(-0.3 * unit), static_cast<Real>(0.25 * unit)};
    const dem::vec3<Real> exact{static_cast<Real>(7.3), static_cast<Real>(-0.3), static_cast<Real>(0.25)};  // d in units, as Real
    auto p = start, plain = start;
    typename V::carry r{0, 0, 0};
    const int n = 10000;
    for (int i = 0; i < n; ++i) {
      p = V::displace(c, p, d, r);
      plain = V::displace(c, plain, d);
      for (int k = 0; k < 3; ++k) CHECK(std::abs(r[k]) <= 0.5f);
    }
    for (int k = 0; k < 3; ++k) {
      CAPTURE(k);
      const double moved = static_cast<double>(static_cast<std::int64_t>(V::units(c, p, k)) - static_cast<std::int64_t>(V::units(c, start, k)));
      // n d within one unit, plus the float rounding of d itself (|d| eps per step).
      const double tol = 1.0 + n * std::abs(static_cast<double>(exact[k])) * std::numeric_limits<Real>::epsilon() * 2;
      CHECK(std::abs(moved - n * static_cast<double>(exact[k])) <= tol);
    }
    CHECK(V::units(c, plain, 0) == V::units(c, start, 0) + 7 * n);  // the documented bias without the carry
    CHECK(V::units(c, plain, 1) == V::units(c, start, 1));          // and the lost sub-unit steps
    // A zero displacement never moves a particle, whatever its carry (ties to even).
    for (const float rest : {0.5f, -0.5f, 0.49f, -0.25f}) {
      typename V::carry q{rest, rest, rest};
      CHECK(V::displace(c, start, dem::vec3<Real>{0, 0, 0}, q) == start);
      CHECK(q[0] == rest);
    }
    // +d then -d with the carry returns to the same position; the carry to zero within its float
    // storage (2^-24 of a unit).
    typename V::carry z{0, 0, 0};
    const auto q = V::displace(c, start, d, z);
    CHECK(V::displace(c, q, -d, z) == start);
    for (int k = 0; k < 3; ++k) CHECK(std::abs(z[k]) < 1e-6f);
  }
}

TEST_CASE_TEMPLATE("voxel: cell_of agrees with floor((x - lo) * inv_cell) of the double position", C, VOXEL_CONFIGS) {
  using V = typename C::space;
  for (const dem::aabb& box : {near_box, far_box}) {
    const auto c = V::make_params(box);
    const dem::vec3d e = box.extent();
    for (const double cell : {0.3, 0.25, 1.0 / 3}) {
      const double inv_cell = 1.0 / cell;
      std::uint32_t dims[3];
      for (int k = 0; k < 3; ++k) dims[k] = static_cast<std::uint32_t>(std::max(1.0, std::ceil(e[k] / cell)));
      auto expect = [&](const dem::vec3d& x, int k) {
        const double f = std::floor((x[k] - box.lo[k]) * inv_cell);
        return static_cast<std::uint32_t>(std::clamp(f, 0.0, static_cast<double>(dims[k] - 1)));
      };
      std::mt19937_64 rng(5);
      std::uniform_real_distribution<double> t(-0.01, 1.01);  // a few outside, to check the clamping
      for (int i = 0; i < 3000; ++i) {
        dem::vec3d x{box.lo.x + t(rng) * e.x, box.lo.y + t(rng) * e.y, box.lo.z + t(rng) * e.z};
        if (i % 3 == 0) x.x = box.lo.x + std::floor(t(rng) * dims[0]) * cell;  // on cell faces
        const auto p = V::from_world(c, x);
        const dem::vec3d w = V::to_world(c, p);
        std::uint32_t got[3];
        V::cell_of(c, p, inv_cell, dims, got);
        for (int k = 0; k < 3; ++k) {
          if (got[k] == expect(w, k)) continue;
          // Near the origin w - lo is exact, so the two agree everywhere. Far from it, w itself is
          // rounded (ulp 1e-10 m at 1e6 m): only a point right on a cell face may then differ.
          CHECK(box.lo.x == far_box.lo.x);
          const double q = (w[k] - box.lo[k]) * inv_cell;
          CHECK(std::abs(q - std::round(q)) < 1e-8);
        }
      }
    }
  }
}

TEST_CASE_TEMPLATE("voxel: make_params refuses what it cannot represent, naming extent, bits and resolution", C, VOXEL_CONFIGS) {
  using V = typename C::space;
  const dem::aabb km{{0, 0, 0}, {2000, 2000, 2000}};
  const auto c = V::make_params(km);
  const double res = V::resolution(c);
  std::ostringstream res_text, req_text;
  res_text << "resolution " << res << " m";
  req_text << res / 8;
  CHECK_THROWS_WITH_AS(V::make_params(km, res / 8), doctest::Contains("extent 2000 x 2000 x 2000 m"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(V::make_params(km, res / 8), doctest::Contains(bits_text<V>(c, C::sub_bits).c_str()), std::invalid_argument);
  CHECK_THROWS_WITH_AS(V::make_params(km, res / 8), doctest::Contains(res_text.str().c_str()), std::invalid_argument);
  CHECK_THROWS_WITH_AS(V::make_params(km, res / 8), doctest::Contains(req_text.str().c_str()), std::invalid_argument);
  CHECK_NOTHROW(V::make_params(km, res));
  CHECK_NOTHROW(V::make_params(km, 1.0));
  CHECK(V::make_params(km, 0.0).exponent == c.exponent);

  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  const dem::aabb bad[] = {{{0, 0, 0}, {inf, 1, 1}}, {{0, 0, 0}, {1, nan, 1}}, {{-inf, 0, 0}, {1, 1, 1}},
                           {{0, 0, 0}, {1, 1, 0}},   {{0, 0, 0}, {1, -1, 1}}};
  for (const dem::aabb& b : bad) {
    CHECK_THROWS_WITH_AS(V::make_params(b), doctest::Contains("cannot be represented"), std::invalid_argument);
    CHECK_THROWS_WITH_AS(V::make_params(b), doctest::Contains("domain extent"), std::invalid_argument);
    CHECK_THROWS_AS(V::resolution_for(b), std::invalid_argument);
  }
  CHECK_THROWS_WITH_AS(V::make_params({{0, 0, 0}, {1, 1, 0}}), doctest::Contains("extent 1 x 1 x 0 m"), std::invalid_argument);
  if constexpr (sizeof(typename C::real) == 4) {
    // 1e36 m: no split with at most 2^63 units per axis keeps the grid's span below FLT_MAX.
    CHECK_THROWS_WITH_AS(V::make_params({{0, 0, 0}, {1e36, 1e36, 1e36}}), doctest::Contains("normal float"), std::invalid_argument);
  }
}

TEST_CASE_TEMPLATE("voxel: the bit split follows the formula and the queries agree", C, VOXEL_CONFIGS) {
  using V = typename C::space;
  constexpr int S = static_cast<int>(C::sub_bits);
  const dem::aabb boxes[] = {{{0, 0, 0}, {1, 1, 1}}, {{0, 0, 0}, {100, 100, 100}}, {{0, 0, 0}, {2000, 2000, 2000}},
                             {{0, 0, 0}, {2000, 2000, 10}}, near_box, far_box};
  for (const dem::aabb& box : boxes) {
    const auto c = V::make_params(box);
    const dem::vec3d e = box.extent();
    // No axis thin enough to get 0 bits or long enough to hit the 63-bit cap here, so the
    // exponent is the largest m with sum_k (ceil_log2(extent_k (1 + 1/512)) + m - S) <= 64.
    int sum_e = 0;
    for (int k = 0; k < 3; ++k) sum_e += ceil_log2(e[k] * (1 + 1.0 / 512));
    const int m = static_cast<int>(std::floor((64.0 + 3 * S - sum_e) / 3));
    CHECK(c.exponent == m);
    CHECK(V::resolution(c) == std::ldexp(1.0, -m));
    CHECK(V::resolution_for(box) == V::resolution(c));
    CHECK(V::voxel_size(c) == std::ldexp(V::resolution(c), S));
    const auto bits = V::voxel_bits(c);
    CHECK(bits[0] + bits[1] + bits[2] <= 64u);
    CHECK(bits[0] + bits[1] + bits[2] >= 62u);  // at most two bits left that no finer unit could use
    const dem::vec3d span = V::max_extent(c);
    for (int k = 0; k < 3; ++k) {
      CHECK(bits[k] + S <= 63u);
      CHECK(span[k] == std::ldexp(V::resolution(c), static_cast<int>(bits[k]) + S));  // same voxel size on every axis
      CHECK(span[k] >= e[k] + 2 * V::resolution(c));
      CHECK(span[k] < 2 * (e[k] * (1 + 1.0 / 512) + 4 * V::resolution(c)));  // no wasted bit
      CHECK(c.lo_u[k] >= 1);
      CHECK(c.hi_u[k] < c.max_u[k]);
      CHECK(c.max_u[k] == (std::uint64_t{1} << (bits[k] + S)) - 1);
    }
    CHECK(V::inside(c, V::from_world(c, box.lo)));
    CHECK(V::inside(c, V::from_world(c, box.hi)));
  }
  // The 2 km cube: 21 voxel bits per axis, a resolution of 2^-26 m (1.5e-8 m) with 16 sub-voxel bits.
  const dem::aabb km{{0, 0, 0}, {2000, 2000, 2000}};
  if constexpr (S == 16) {
    static_assert(V::resolution_for(dem::aabb{{0, 0, 0}, {2000, 2000, 2000}}) == 1.0 / (1 << 26));
    CHECK(V::resolution_for(km) < 1e-7);
  } else {
    static_assert(V::resolution_for(dem::aabb{{0, 0, 0}, {2000, 2000, 2000}}) == 1.0 / (std::int64_t{1} << 42));
  }
  // A domain thinner than one voxel on z gets no z bits; an elongated one hits the 63-bit cap.
  const auto flat = V::make_params({{0, 0, 0}, {2000, 2000, 1e-9}});
  CHECK(V::voxel_bits(flat)[2] <= 1u);
  CHECK(V::max_extent(flat).z >= 1e-9);
  const auto rod = V::make_params({{0, 0, 0}, {1e12, 1, 1}});
  CHECK(V::voxel_bits(rod)[0] + S <= 63u);
  CHECK(V::max_extent(rod).x >= 1e12);
}

TEST_CASE("voxel: names and storage") {
  CHECK(std::string(dem::coord::voxel<16>::name) == "voxel16");
  CHECK(std::string(dem::coord::voxel<32>::name) == "voxel32");
  CHECK(std::string(dem::coord::voxel<8>::name) == "voxel8");
  static_assert(sizeof(dem::coord::voxel<16>::space<float>::position) == 16);
  static_assert(sizeof(dem::coord::voxel<32>::space<double>::position) == 24);
  static_assert(std::is_trivially_copyable_v<dem::coord::voxel<16>::space<float>::position>);
  static_assert(std::is_trivially_copyable_v<dem::coord::voxel<16>::space<float>::params>);
}
