#pragma once
// How boundaries move. A motion is a rigid map from a boundary's placement when it was added
// (time t0) to its placement at time t, with the twist that goes with it:
//
//   x(t) = rotation * x(t0) + translation        for every point of the boundary
//   v(x) = velocity + omega x x                  the velocity of the boundary's point at x (world)
//
// (`velocity` is the velocity of the point that is at the world origin: a frame-free twist.)
// Built in: fixed, constant linear and angular velocity (rotation about any axis through any
// point), sinusoidal vibration (translation and rotation), a user motion (any struct with
// `rigid_motion operator()(double t) const`, checked by the compiler), and force-controlled motion
// (`servo`: move until the load reaches a target, then stop, reverse or hold the load).
// Evaluated on the host in double precision once per step; kernels get the pose and twist.
#include <cmath>
#include <concepts>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>

#include "dem/math/quaternion.hpp"
#include "dem/math/vec3.hpp"

namespace dem::boundary {

struct rigid_motion {
  quatd rotation = quatd::identity();
  vec3d translation{0, 0, 0};
  vec3d velocity{0, 0, 0};  // of the point at the world origin
  vec3d omega{0, 0, 0};
};

// A user motion: any copyable type with `rigid_motion operator()(double t) const`, t the
// simulation time. (Compile-time: the Simulator stores it as it is and calls it on the host.)
template <class M>
concept motion_function = std::copy_constructible<M> && requires(const M& m, double t) {
  { m(t) } -> std::convertible_to<rigid_motion>;
};

// Does not move.
struct fixed {
  rigid_motion operator()(double) const { return {}; }
};

// Constant velocity from `start` on: translation at `velocity`, rotation at `omega` (rad/s, about
// the axis along omega through `centre`, which moves with the translation).
struct constant_velocity {
  vec3d velocity{0, 0, 0};
  vec3d omega{0, 0, 0};
  vec3d centre{0, 0, 0};
  double start = 0;
  rigid_motion operator()(double t) const {
    const double tau = std::fmax(0.0, t - start);
    const bool moving = t >= start;
    rigid_motion m;
    m.rotation = from_rotation_vector(omega * tau);
    const vec3d c = centre + velocity * tau;  // where the axis is now
    m.translation = c - rotate(m.rotation, centre);
    if (moving) {
      m.omega = omega;
      m.velocity = velocity - cross(omega, c);
    }
    return m;
  }
};

// Sinusoidal vibration from `start` on: displacement amplitude * (sin(2 pi f tau + phase) - sin(phase))
// and a rotation by angular_amplitude * (the same factor) about `centre` (a rotation vector: axis
// and amplitude in rad). Starts where it is, at the velocity the sine gives.
struct vibration {
  vec3d amplitude{0, 0, 0};
  double frequency = 0;  // Hz
  double phase = 0;      // rad
  vec3d angular_amplitude{0, 0, 0};
  vec3d centre{0, 0, 0};
  double start = 0;
  rigid_motion operator()(double t) const {
    if (t < start) return {};
    const double w = 2 * M_PI * frequency, arg = w * (t - start) + phase;
    const double s = std::sin(arg) - std::sin(phase), ds = w * std::cos(arg);
    rigid_motion m;
    m.rotation = from_rotation_vector(angular_amplitude * s);
    const vec3d c = centre + amplitude * s;
    m.translation = c - rotate(m.rotation, centre);
    m.omega = angular_amplitude * ds;
    m.velocity = amplitude * ds - cross(m.omega, c);
    return m;
  }
};

// Force-controlled translation along `direction` (unit after normalisation): the boundary moves at
// `speed` until the load against its motion, -F . direction with F the particles' force on it,
// reaches `target_force`; then, by `mode`:
//   stop      it stays where it is;
//   reverse   it moves back at `return_speed` (no further targets);
//   regulate  it keeps the load at the target: velocity = speed * clamp(gain (target - load) / target, -1, 1)
//             (a proportional controller, as LIGGGHTS' servo; `gain` is dimensionless).
// The Simulator integrates its position each step from the load of the step before.
struct servo {
  enum class mode : std::uint32_t { stop = 0, reverse = 1, regulate = 2 };
  vec3d direction{0, 0, -1};
  double speed = 0.01;         // m/s, > 0
  double target_force = 1.0;   // N, > 0
  mode after = mode::stop;
  double return_speed = 0.01;  // m/s (reverse)
  double gain = 1.0;           // regulate
};

// Where a servo is: position along its direction since it was added, its phase and its velocity.
struct servo_state {
  double travel = 0;
  double velocity = 0;         // along the direction
  double load = 0;             // the load seen at the last step
  std::uint32_t reached = 0;   // 1 once the target was reached (stop / reverse)
  std::uint32_t pad = 0;
};

// One step of a servo given the load of the last evaluation.
inline void advance_servo(const servo& s, servo_state& st, double load, double dt) {
  st.load = load;
  switch (s.after) {
    case servo::mode::stop:
    case servo::mode::reverse:
      if (!st.reached && load >= s.target_force) st.reached = 1;
      st.velocity = !st.reached ? s.speed : (s.after == servo::mode::stop ? 0.0 : -s.return_speed);
      break;
    case servo::mode::regulate: {
      const double e = s.gain * (s.target_force - load) / s.target_force;
      st.velocity = s.speed * std::fmin(1.0, std::fmax(-1.0, e));
      break;
    }
  }
  st.travel += st.velocity * dt;
}

// Free translation under the particles' load, the simulation's gravity (when `gravity`) and a
// constant `force`: a projectile dropped into a bed, a floating lid, a weight on a sample. The
// boundary keeps its orientation. The Simulator integrates it each step from the load of the step
// before (semi-implicit Euler: v += a dt, x += v dt), as it does a servo.
struct free_body {
  double mass = 1.0;         // kg, > 0
  vec3d velocity{0, 0, 0};   // m/s at the moment it is set
  vec3d force{0, 0, 0};      // N, added to the particles' load
  std::uint32_t gravity = 1;  // 1: the simulation's gravity acts on it
  std::uint32_t unused = 0;
};

// Where a free body is: displacement since it was set, velocity, the particles' load last seen.
struct free_body_state {
  vec3d displacement{0, 0, 0};
  vec3d velocity{0, 0, 0};
  vec3d load{0, 0, 0};
};

inline void advance_free_body(const free_body& f, free_body_state& st, const vec3d& load, const vec3d& gravity, double dt) {
  st.load = load;
  const vec3d a = (load + f.force) * (1.0 / f.mass) + (f.gravity ? gravity : vec3d{0, 0, 0});
  st.velocity = st.velocity + a * dt;
  st.displacement = st.displacement + st.velocity * dt;
}

inline void check(const free_body& f) {
  if (!(f.mass > 0) || !std::isfinite(f.mass))
    throw std::invalid_argument("dem: free_body mass is " + std::to_string(f.mass) + ", but it must be > 0 and finite");
  if (!all_finite(f.velocity) || !all_finite(f.force)) throw std::invalid_argument("dem: free_body velocity and force must be finite");
}

inline void check(const servo& s) {
  auto bad = [](const std::string& what, double v, const char* rule) {
    throw std::invalid_argument("dem: servo " + what + " is " + std::to_string(v) + ", but it must be " + rule);
  };
  const double d = norm(s.direction);
  if (!(d > 0) || !std::isfinite(d)) throw std::invalid_argument("dem: servo direction must be a finite, non-zero vector");
  if (!(s.speed > 0) || !std::isfinite(s.speed)) bad("speed", s.speed, "> 0 and finite");
  if (!(s.target_force > 0) || !std::isfinite(s.target_force)) bad("target_force", s.target_force, "> 0 and finite");
  if (!(s.return_speed >= 0) || !std::isfinite(s.return_speed)) bad("return_speed", s.return_speed, ">= 0 and finite");
  if (!(s.gain > 0) || !std::isfinite(s.gain)) bad("gain", s.gain, "> 0 and finite");
}

inline bool finite(const rigid_motion& m) {
  return all_finite(m.translation) && all_finite(m.velocity) && all_finite(m.omega) && std::isfinite(m.rotation.w) &&
         std::isfinite(m.rotation.x) && std::isfinite(m.rotation.y) && std::isfinite(m.rotation.z) &&
         std::fabs(norm2(m.rotation) - 1.0) < 1e-6;
}

}  // namespace dem::boundary
