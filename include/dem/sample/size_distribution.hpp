#pragma once
// Particle size distributions, drawn deterministically for a seed on every platform (no std::
// distributions, whose output is implementation-defined): a constant radius, a (truncated) normal,
// a log-normal, and a sieve curve (the mass fraction passing each sieve). All give radii in metres.
//
//   dem::sample::normal_radii d{1e-3, 1e-4};            // mean, standard deviation (cut at ±3 sd by default)
//   dem::sample::lognormal_radii l{1e-3, 0.25};         // median radius, sigma of ln r
//   dem::sample::sieve_curve s{{0.5e-3, 1e-3, 2e-3},    // sieve openings (diameters), ascending
//                              {0.0,    0.4,  1.0}};   // mass fraction passing each
//   std::vector<double> r = dem::sample::draw(s, 10000, seed);
//
// A sieve curve describes mass: `draw` returns particles whose mass fractions follow it, so their
// diameters passed through the same sieves give the curve back.
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace dem::sample {

struct constant_radius {
  double radius;
};
struct normal_radii {
  double mean, std_dev;
  double min = -1, max = -1;  // truncation; < 0: mean ∓ 3 std_dev (and never below 1e-3 mean)
};
struct lognormal_radii {
  double median;   // exp(mean of ln r)
  double sigma;    // standard deviation of ln r
  double min = -1, max = -1;  // truncation; < 0: median exp(∓3 sigma)
};
struct sieve_curve {
  std::vector<double> sizes;    // sieve openings = particle diameters (m), strictly ascending
  std::vector<double> passing;  // cumulative mass fraction passing each, non-decreasing, last = 1
};

namespace detail {
inline double uniform(std::mt19937_64& g) { return (static_cast<double>(g() >> 11) + 0.5) * 0x1.0p-53; }  // (0, 1)
inline double standard_normal(std::mt19937_64& g) {  // Box–Muller (one of the pair)
  const double u = uniform(g), v = uniform(g);
  return std::sqrt(-2.0 * std::log(u)) * std::cos(6.283185307179586 * v);
}
inline std::string num(double v) {
  std::ostringstream s;
  s.precision(9);
  s << v;
  return s.str();
}
[[noreturn]] inline void bad(const std::string& what) { throw std::invalid_argument("dem::sample: " + what); }
inline bool positive(double v) { return v > 0 && std::isfinite(v); }
}  // namespace detail

inline void check(const constant_radius& d) {
  if (!detail::positive(d.radius)) detail::bad("constant_radius: radius is " + detail::num(d.radius) + ", but it must be > 0 and finite");
}
inline void check(const normal_radii& d) {
  if (!detail::positive(d.mean)) detail::bad("normal_radii: mean is " + detail::num(d.mean) + ", but it must be > 0 and finite");
  if (!(d.std_dev >= 0) || !std::isfinite(d.std_dev)) detail::bad("normal_radii: std_dev is " + detail::num(d.std_dev) + ", but it must be >= 0 and finite");
  const double lo = d.min >= 0 ? d.min : std::max(d.mean - 3 * d.std_dev, 1e-3 * d.mean), hi = d.max >= 0 ? d.max : d.mean + 3 * d.std_dev;
  if (!(lo > 0) || !(hi >= lo) || !std::isfinite(hi))
    detail::bad("normal_radii: the truncation [" + detail::num(lo) + ", " + detail::num(hi) + "] must be positive, finite and not empty");
}
inline void check(const lognormal_radii& d) {
  if (!detail::positive(d.median)) detail::bad("lognormal_radii: median is " + detail::num(d.median) + ", but it must be > 0 and finite");
  if (!(d.sigma >= 0) || !std::isfinite(d.sigma)) detail::bad("lognormal_radii: sigma is " + detail::num(d.sigma) + ", but it must be >= 0 and finite");
  if ((d.min >= 0 && d.max >= 0 && d.max < d.min) || d.min == 0) detail::bad("lognormal_radii: the truncation must be positive and not empty");
}
inline void check(const sieve_curve& c) {
  if (c.sizes.size() < 2 || c.sizes.size() != c.passing.size())
    detail::bad("sieve_curve: needs at least 2 sieves and one passing fraction per sieve, got " + std::to_string(c.sizes.size()) + " sizes and " +
                std::to_string(c.passing.size()) + " fractions");
  for (std::size_t k = 0; k < c.sizes.size(); ++k) {
    if (!detail::positive(c.sizes[k])) detail::bad("sieve_curve: size " + std::to_string(k) + " is " + detail::num(c.sizes[k]) + ", but it must be > 0 and finite");
    if (!(c.passing[k] >= 0 && c.passing[k] <= 1)) detail::bad("sieve_curve: passing fraction " + std::to_string(k) + " is " + detail::num(c.passing[k]) + ", but it must be in [0, 1]");
    if (k && !(c.sizes[k] > c.sizes[k - 1])) detail::bad("sieve_curve: sizes must be strictly ascending (size " + std::to_string(k) + ")");
    if (k && c.passing[k] < c.passing[k - 1]) detail::bad("sieve_curve: passing fractions must not decrease (fraction " + std::to_string(k) + ")");
  }
  if (c.passing.back() != 1.0) detail::bad("sieve_curve: the largest sieve must pass everything (last fraction 1), got " + detail::num(c.passing.back()));
  if (!(c.passing.front() < 1.0)) detail::bad("sieve_curve: everything passes the smallest sieve: no size class holds any mass");
}

// Largest radius a distribution can give (for spacing and cell sizes).
inline double max_radius(const constant_radius& d) { return d.radius; }
inline double max_radius(const normal_radii& d) { return d.max >= 0 ? d.max : d.mean + 3 * d.std_dev; }
inline double max_radius(const lognormal_radii& d) { return d.max >= 0 ? d.max : d.median * std::exp(3 * d.sigma); }
inline double max_radius(const sieve_curve& c) { return 0.5 * c.sizes.back(); }

// One radius.
inline double draw_one(const constant_radius& d, std::mt19937_64&) { return d.radius; }
inline double draw_one(const normal_radii& d, std::mt19937_64& g) {
  const double lo = d.min >= 0 ? d.min : std::max(d.mean - 3 * d.std_dev, 1e-3 * d.mean), hi = max_radius(d);
  for (;;) {  // rejection: at most a few tries for any truncation of at least ±1 sd
    const double r = d.mean + d.std_dev * detail::standard_normal(g);
    if (r >= lo && r <= hi) return r;
  }
}
inline double draw_one(const lognormal_radii& d, std::mt19937_64& g) {
  const double lo = d.min >= 0 ? d.min : d.median * std::exp(-3 * d.sigma), hi = max_radius(d);
  for (;;) {
    const double r = d.median * std::exp(d.sigma * detail::standard_normal(g));
    if (r >= lo && r <= hi) return r;
  }
}
// A sieve curve: within each size class (between two sieves) the mass is spread uniformly in
// log d, so the number density there goes as d^-4. A class is chosen by its share of the number
// (its mass times the mean of d^-3), then a diameter by inverting the class's d^-4 distribution:
// exact, no rejection. Mass passing the smallest sieve (finer than any opening given) is left out.
inline std::vector<double> class_number_weights(const sieve_curve& c) {
  std::vector<double> w(c.sizes.size() - 1);
  double total = 0;
  for (std::size_t k = 0; k + 1 < c.sizes.size(); ++k) {
    const double a = c.sizes[k], b = c.sizes[k + 1], mass = c.passing[k + 1] - c.passing[k];
    total += w[k] = mass * (1 / (a * a * a) - 1 / (b * b * b)) / (3 * std::log(b / a));
  }
  for (double& x : w) x /= total;
  return w;
}
inline double draw_one(const sieve_curve& c, const std::vector<double>& weights, std::mt19937_64& g) {
  double u = detail::uniform(g);
  std::size_t k = 0;
  while (k + 1 < weights.size() && (u -= weights[k]) > 0) ++k;
  const double a = c.sizes[k], b = c.sizes[k + 1], ia = 1 / (a * a * a), ib = 1 / (b * b * b);
  const double d = std::cbrt(1 / (ia - detail::uniform(g) * (ia - ib)));
  return 0.5 * d;
}

// n radii from the distribution, deterministic for the seed.
template <class Distribution>
std::vector<double> draw(const Distribution& d, std::size_t n, std::uint64_t seed = 42) {
  check(d);
  std::mt19937_64 g(seed);
  std::vector<double> r(n);
  if constexpr (std::is_same_v<Distribution, sieve_curve>) {
    const std::vector<double> w = class_number_weights(d);
    for (double& x : r) x = draw_one(d, w, g);
  } else {
    for (double& x : r) x = draw_one(d, g);
  }
  return r;
}

}  // namespace dem::sample
