// Samplers: counts, containment, no overlaps, radius distribution, determinism.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>

#include "dem/sample/lattice.hpp"

namespace {
double min_gap(const dem::particle_set& s) {
  double g = 1e300;
  for (std::size_t i = 0; i < s.size(); ++i)
    for (std::size_t j = i + 1; j < s.size(); ++j)
      g = std::min(g, dem::norm(s.positions[i] - s.positions[j]) - s.radii[i] - s.radii[j]);
  return g;
}
}  // namespace

TEST_CASE("cubic lattice fills the box without overlaps") {
  const dem::aabb box{{0, 0, 0}, {0.01, 0.01, 0.01}};
  dem::sample::lattice_options o;
  o.radius = 5e-4;
  const auto s = dem::sample::cubic_lattice(box, o);
  // spacing 2r * 1.01 = 1.01 mm: floor((10 - 1) / 1.01) + 1 = 9 per axis
  CHECK(s.size() == 9 * 9 * 9);
  for (std::size_t i = 0; i < s.size(); ++i) {
    CHECK(s.radii[i] == 5e-4);
    for (int k = 0; k < 3; ++k) {
      CHECK(s.positions[i][k] - s.radii[i] >= 0);
      CHECK(s.positions[i][k] + s.radii[i] <= 0.01);
    }
  }
  CHECK(min_gap(s) > 0);
}

TEST_CASE("hexagonal close packing is denser than the cubic lattice and overlap-free") {
  const dem::aabb box{{0, 0, 0}, {0.02, 0.02, 0.02}};
  dem::sample::lattice_options o;
  o.radius = 1e-3;
  o.spacing = 2e-3 * 1.001;
  const auto h = dem::sample::hexagonal_close_packing(box, o);
  const auto c = dem::sample::cubic_lattice(box, o);
  CHECK(h.size() > c.size() * 1.25);
  CHECK(min_gap(h) > 0);
  CHECK(min_gap(h) < 1e-5);  // nearest neighbours at the spacing
}

TEST_CASE("radius spread, jitter, count limit and determinism") {
  const dem::aabb box{{0, 0, 0}, {0.02, 0.02, 0.02}};
  dem::sample::lattice_options o;
  o.radius = 1e-3;
  o.radius_spread = 0.2;
  o.jitter = 1e-4;
  o.max_count = 100;
  const auto a = dem::sample::cubic_lattice(box, o);
  const auto b = dem::sample::cubic_lattice(box, o);
  CHECK(a.size() == 100);
  double rmin = 1, rmax = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    rmin = std::min(rmin, a.radii[i]);
    rmax = std::max(rmax, a.radii[i]);
    CHECK(a.positions[i] == b.positions[i]);
    CHECK(a.radii[i] == b.radii[i]);
  }
  CHECK(rmin >= 0.8e-3);
  CHECK(rmax <= 1.2e-3);
  CHECK(rmax - rmin > 0.2e-3);
  CHECK(min_gap(a) > 0);
  o.seed = 7;
  CHECK(dem::sample::cubic_lattice(box, o).positions[0] != a.positions[0]);
  o.radius = -1;
  CHECK_THROWS_WITH_AS(dem::sample::cubic_lattice(box, o), doctest::Contains("radius is -1"), std::invalid_argument);
}

// The default spacing leaves room for the jitter: no overlap for any seed, spread or jitter (the
// README's first program once started with an overlap because the jitter was not accounted for).
TEST_CASE("default spacing never overlaps, over seeds, spreads and jitters, for both samplers") {
  const dem::aabb box{{0, 0, 0}, {0.012, 0.012, 0.012}};
  int sets = 0;
  for (const bool hcp : {false, true})
    for (const double spread : {0.0, 0.1, 0.3})
      for (const double jitter : {0.0, 1e-4, 2.5e-4, 5e-4})
        for (std::uint64_t seed = 1; seed <= 8; ++seed) {
          dem::sample::lattice_options o;
          o.radius = 1e-3;
          o.radius_spread = spread;
          o.jitter = jitter;
          o.seed = seed;
          const auto s = hcp ? dem::sample::hexagonal_close_packing(box, o) : dem::sample::cubic_lattice(box, o);
          INFO("hcp " << hcp << " spread " << spread << " jitter " << jitter << " seed " << seed << " count " << s.size());
          REQUIRE(s.size() >= 8);
          CHECK(min_gap(s) > 0);
          ++sets;
        }
  CHECK(sets == 2 * 3 * 4 * 8);
}

TEST_CASE("default spacing: the bound it uses") {
  dem::sample::lattice_options o;
  o.radius = 1e-3;
  o.radius_spread = 0.1;
  o.jitter = 2e-4;
  CHECK(dem::sample::default_spacing(o) == doctest::Approx(2 * 1.1e-3 * 1.01 + 2 * 2e-4));
  CHECK(dem::sample::default_spacing(o, true) == doctest::Approx(2 * 1.1e-3 * 1.01 + 2 * std::sqrt(3.0) * 2e-4));
  // With the spacing the old default gave (jitter not counted) large jitters do overlap: the test
  // above can fail.
  o.jitter = 5e-4;
  o.spacing = 2 * 1.1e-3 * 1.01;
  CHECK(min_gap(dem::sample::cubic_lattice({{0, 0, 0}, {0.012, 0.012, 0.012}}, o)) < 0);
}
