#pragma once
// Damping from restitution, calibrated for the force as it is really applied.
//
// The closed-form damping ratios (zeta = -ln e / sqrt(ln^2 e + pi^2) for the linear law, and
// beta of the same form for Hertz–Mindlin) assume the normal force may turn attractive at the end
// of a contact. Our normal force never pulls (F_n >= 0), which makes the rebound faster than e by
// up to ~30 % at e = 0.2. Both laws reduce to one dimensionless equation whose only parameter is
// the damping, so we solve it once per material pair on the host and invert it by bisection:
// the measured restitution then equals the input e (tested to 2 %).
//   linear:  x'' = -x - 2 zeta x'                    (x: overlap, time in units of sqrt(m*/k_n))
//   Hertz:   x'' = -x^1.5 - gamma x^0.25 x'          (gamma = sqrt(5) |beta|, see PHYSICS.md)
#include <cmath>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>

namespace dem::force::restitution {

enum class model { linear, hertz };

namespace detail {
// Rebound speed of the dimensionless contact with unit approach speed.
inline double rebound(model m, double c) {
  auto accel = [&](double x, double v) {
    const double xp = x > 0 ? x : 0;
    const double f = (m == model::linear) ? (xp + c * v) : (std::pow(xp, 1.5) + c * std::pow(xp, 0.25) * v);
    return -(f > 0 ? f : 0.0);  // never attractive
  };
  const double h = 2e-4;
  double x = 0, v = 1;
  for (int step = 0; step < 2000000; ++step) {
    // RK4
    const double k1x = v, k1v = accel(x, v);
    const double k2x = v + 0.5 * h * k1v, k2v = accel(x + 0.5 * h * k1x, v + 0.5 * h * k1v);
    const double k3x = v + 0.5 * h * k2v, k3v = accel(x + 0.5 * h * k2x, v + 0.5 * h * k2v);
    const double k4x = v + h * k3v, k4v = accel(x + h * k3x, v + h * k3v);
    const double xn = x + h / 6 * (k1x + 2 * k2x + 2 * k3x + k4x);
    const double vn = v + h / 6 * (k1v + 2 * k2v + 2 * k3v + k4v);
    if (xn <= 0) return -vn;              // surfaces separate
    if (vn < 0 && accel(xn, vn) == 0.0) return -vn;  // force released: flies apart at constant speed
    x = xn;
    v = vn;
  }
  return 0.0;  // stuck (only for absurd damping)
}
}  // namespace detail

// Damping parameter c of the dimensionless equation (2 zeta for linear, gamma for Hertz)
// whose rebound equals e.
inline double damping_for(model m, double e) {
  if (!(e > 0 && e <= 1))
    throw std::invalid_argument("dem: restitution is " + std::to_string(e) + ", but it must be in (0, 1]");
  if (e >= 1) return 0.0;
  // Calibration costs ~0.1 s; simulations built in a loop reuse it.
  static std::mutex mutex;
  static std::map<std::pair<int, double>, double> cache;
  const std::lock_guard<std::mutex> lock(mutex);
  if (auto it = cache.find({static_cast<int>(m), e}); it != cache.end()) return it->second;
  double lo = 0, hi = 1;
  while (detail::rebound(m, hi) > e) {
    hi *= 2;
    if (hi > 1e4) throw std::invalid_argument("dem: restitution " + std::to_string(e) + " is too small to calibrate");
  }
  for (int it = 0; it < 40; ++it) {
    const double mid = 0.5 * (lo + hi);
    (detail::rebound(m, mid) > e ? lo : hi) = mid;
  }
  return cache[{static_cast<int>(m), e}] = 0.5 * (lo + hi);
}

}  // namespace dem::force::restitution

namespace dem::force::restitution {
// Coefficient c of the damping force F_d = -c sqrt(k m*) v_n (k: the normal slot's tangent
// stiffness dF/dδ) that gives restitution e for a normal force of the given model.
// Hertz: dF/dδ = 2 E* sqrt(R* δ) = S_n and c = 2 gamma / sqrt(6) (PHYSICS.md: 2 sqrt(5/6) |beta|).
inline double coefficient(model m, double e) {
  const double c = damping_for(m, e);
  return m == model::hertz ? 2.0 * c / std::sqrt(6.0) : c;
}
}  // namespace dem::force::restitution
