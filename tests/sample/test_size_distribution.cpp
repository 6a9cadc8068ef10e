// Size distributions (sample/size_distribution.hpp) and random fills (sample/random_fill.hpp):
// moments and sieve fractions of large draws, determinism, fills without overlap inside boxes and
// cylinders, a fill that cannot be met reported with what fitted, named errors.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "dem/io/csv.hpp"
#include "dem/sample/random_fill.hpp"
#include "dem/sample/size_distribution.hpp"

namespace sample = dem::sample;
using dem::vec3d;

namespace {
double mean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return s / double(v.size());
}
double std_dev(const std::vector<double>& v) {
  const double m = mean(v);
  double s = 0;
  for (double x : v) s += (x - m) * (x - m);
  return std::sqrt(s / double(v.size() - 1));
}
// A normal distribution cut at ±3 sd keeps 0.98659 of its standard deviation.
constexpr double cut_sd = 0.98659;
double min_gap(const dem::particle_set& s) {
  double g = 1e300;
  for (std::size_t i = 0; i < s.size(); ++i)
    for (std::size_t j = i + 1; j < s.size(); ++j) g = std::min(g, dem::norm(s.positions[i] - s.positions[j]) - s.radii[i] - s.radii[j]);
  return g;
}
}  // namespace

TEST_CASE("normal and log-normal radii: moments of 200,000 draws, truncation, determinism") {
  const auto r = sample::draw(sample::normal_radii{1e-3, 1e-4}, 200000, 3);
  CHECK(mean(r) == doctest::Approx(1e-3).epsilon(2e-3).scale(0));
  CHECK(std_dev(r) == doctest::Approx(1e-4 * cut_sd).epsilon(1e-2).scale(0));
  CHECK(*std::min_element(r.begin(), r.end()) >= 0.7e-3);
  CHECK(*std::max_element(r.begin(), r.end()) <= 1.3e-3);
  CHECK(sample::draw(sample::normal_radii{1e-3, 1e-4}, 100, 3) == std::vector<double>(r.begin(), r.begin() + 100));  // same seed, same radii
  CHECK(sample::draw(sample::normal_radii{1e-3, 1e-4}, 100, 4) != std::vector<double>(r.begin(), r.begin() + 100));
  const auto l = sample::draw(sample::lognormal_radii{2e-3, 0.3}, 200000, 5);
  std::vector<double> ln(l.size());
  for (std::size_t k = 0; k < l.size(); ++k) ln[k] = std::log(l[k]);
  CHECK(std::exp(mean(ln)) == doctest::Approx(2e-3).epsilon(3e-3).scale(0));
  CHECK(std_dev(ln) == doctest::Approx(0.3 * cut_sd).epsilon(1e-2));
  const auto c = sample::draw(sample::constant_radius{5e-4}, 10);
  CHECK(c == std::vector<double>(10, 5e-4));
}

TEST_CASE("a sieve curve: the drawn particles' mass passing each sieve gives the curve back") {
  const sample::sieve_curve curve{{0.5e-3, 1e-3, 2e-3, 4e-3}, {0.0, 0.2, 0.7, 1.0}};
  const auto r = sample::draw(curve, 400000, 9);
  double total = 0;
  for (double x : r) total += x * x * x;
  for (std::size_t k = 0; k < curve.sizes.size(); ++k) {
    double passing = 0;
    for (double x : r)
      if (2 * x <= curve.sizes[k]) passing += x * x * x;
    INFO("sieve " << curve.sizes[k]);
    CHECK(passing / total == doctest::Approx(curve.passing[k]).epsilon(0.02).scale(1));
  }
  CHECK(2 * *std::min_element(r.begin(), r.end()) >= 0.5e-3);
  CHECK(2 * *std::max_element(r.begin(), r.end()) <= 4e-3);
}

TEST_CASE("random fills of a box and a cylinder: the count asked for, inside, without overlap") {
  sample::fill_options o;
  o.count = 600;
  o.seed = 11;
  const dem::aabb box{{0, 0, 0}, {0.03, 0.02, 0.04}};
  const auto s = sample::random_fill(box, sample::lognormal_radii{1e-3, 0.2}, o);
  REQUIRE(s.size() == 600);
  CHECK(min_gap(s) >= 0);
  for (std::size_t i = 0; i < s.size(); ++i)
    for (int k = 0; k < 3; ++k) {
      CHECK(s.positions[i][k] - s.radii[i] >= box.lo[k]);
      CHECK(s.positions[i][k] + s.radii[i] <= box.hi[k]);
    }
  CHECK(sample::random_fill(box, sample::lognormal_radii{1e-3, 0.2}, o).positions == s.positions);  // deterministic
  // A tilted cylinder.
  const dem::inspect::cylinder cyl{{0.01, 0.01, 0}, {1, 0, 1}, 0.008, 0.03};
  o.count = 300;
  o.min_gap = 1e-4;
  const auto c = sample::random_fill(cyl, sample::normal_radii{8e-4, 1e-4}, o);
  REQUIRE(c.size() == 300);
  CHECK(min_gap(c) >= 1e-4 * (1 - 1e-9));
  const vec3d a = vec3d{1, 0, 1} / std::sqrt(2.0);
  for (std::size_t i = 0; i < c.size(); ++i) {
    const vec3d rel = c.positions[i] - cyl.base;
    const double s_ax = dem::dot(rel, a), rho = dem::norm(rel - a * s_ax);
    CHECK(s_ax - c.radii[i] >= -1e-12);
    CHECK(s_ax + c.radii[i] <= cyl.length + 1e-12);
    CHECK(rho + c.radii[i] <= cyl.radius + 1e-12);
  }
  // As many as fit: random sequential addition jams near a solid fraction of 0.3.
  sample::fill_options all;
  all.max_attempts = 500;
  const auto full = sample::random_fill(dem::aabb{{0, 0, 0}, {0.01, 0.01, 0.01}}, sample::constant_radius{5e-4}, all);
  double solid = 0;
  for (double r : full.radii) solid += 4.0 / 3.0 * 3.14159265358979323846 * r * r * r;
  INFO("solid fraction " << solid / 1e-6 << " with " << full.size() << " particles");
  CHECK(solid / 1e-6 > 0.2);
  CHECK(min_gap(full) >= 0);
}

TEST_CASE("a fill that cannot be met, and bad distributions, are refused with what is wrong") {
  sample::fill_options o;
  o.count = 5000;
  o.max_attempts = 200;
  try {
    sample::random_fill(dem::aabb{{0, 0, 0}, {0.01, 0.01, 0.01}}, sample::constant_radius{5e-4}, o);
    FAIL("no error");
  } catch (const std::invalid_argument& e) {
    const std::string m = e.what();
    CHECK(m.find("random_fill: placed ") != std::string::npos);
    CHECK(m.find(" of 5000 particles (solid fraction 0.") != std::string::npos);
  }
  CHECK_THROWS_WITH_AS(sample::draw(sample::normal_radii{1e-3, -1}, 3), doctest::Contains("normal_radii: std_dev is -1"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(sample::draw(sample::lognormal_radii{0, 0.1}, 3), doctest::Contains("lognormal_radii: median is 0"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(sample::draw(sample::sieve_curve{{1e-3, 0.5e-3}, {0, 1}}, 3), doctest::Contains("sizes must be strictly ascending"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(sample::draw(sample::sieve_curve{{0.5e-3, 1e-3}, {0, 0.9}}, 3), doctest::Contains("the largest sieve must pass everything"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(sample::draw(sample::constant_radius{std::nan("")}, 3), doctest::Contains("constant_radius: radius is nan"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(sample::random_fill(dem::aabb{{0, 0, 0}, {0.01, -0.01, 0.01}}, sample::constant_radius{1e-3}, o),
                       doctest::Contains("the box must be finite with hi > lo"), std::invalid_argument);
}

TEST_CASE("positions from a particle CSV: the active particles, with velocities, in id order") {
  dem::io::snapshot snap;
  snap.id = {2, 0, 1};
  snap.position = {{3, 0, 0}, {1, 0, 0}, {2, 0, 0}};
  snap.velocity = {{0, 0, 3}, {0, 0, 1}, {0, 0, 2}};
  snap.angular_velocity = std::vector<vec3d>(3, vec3d{0, 0, 0});
  snap.radius = {0.3, 0.1, 0.2};
  snap.active = {1, 1, 0};
  dem::io::write_csv("sample_positions.csv", snap);
  const dem::particle_set s = sample::from_snapshot(dem::io::read_csv("sample_positions.csv"));
  REQUIRE(s.size() == 2);
  CHECK(s.positions[0].x == 1);  // id 0
  CHECK(s.positions[1].x == 3);  // id 2 (id 1 is inactive)
  CHECK(s.radii[1] == 0.3);
  CHECK(s.velocities[1].z == 3);
}
