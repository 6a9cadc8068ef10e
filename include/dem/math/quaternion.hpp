#pragma once
// Unit quaternions for body orientation, usable in host and device code. q = (w, x, y, z) rotates
// body-frame vectors into the world frame: v_world = rotate(q, v_body). Trivially copyable.
#include <cmath>

#include "dem/config.hpp"
#include "dem/math/vec3.hpp"

namespace dem {

template <class T>
struct quat {
  T w, x, y, z;

  quat() = default;
  DEM_HD constexpr quat(T w_, T x_, T y_, T z_) : w(w_), x(x_), y(y_), z(z_) {}
  template <class U>
  DEM_HD explicit constexpr quat(const quat<U>& o)
      : w(static_cast<T>(o.w)), x(static_cast<T>(o.x)), y(static_cast<T>(o.y)), z(static_cast<T>(o.z)) {}
  DEM_HD static constexpr quat identity() { return {T(1), T(0), T(0), T(0)}; }
  DEM_HD constexpr vec3<T> vector() const { return {x, y, z}; }
  friend DEM_HD constexpr bool operator==(const quat& a, const quat& b) { return a.w == b.w && a.x == b.x && a.y == b.y && a.z == b.z; }
};

// Hamilton product: (a * b) rotates by b first, then by a.
template <class T>
DEM_HD constexpr quat<T> operator*(const quat<T>& a, const quat<T>& b) {
  return {a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z, a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
          a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x, a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w};
}
template <class T>
DEM_HD constexpr quat<T> conjugate(const quat<T>& q) { return {q.w, -q.x, -q.y, -q.z}; }
template <class T>
DEM_HD constexpr T norm2(const quat<T>& q) { return q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z; }
template <class T>
DEM_HD inline quat<T> normalized(const quat<T>& q) {
  using std::sqrt;
  const T s = T(1) / sqrt(norm2(q));
  return {q.w * s, q.x * s, q.y * s, q.z * s};
}

// Body -> world: v' = q v q*, written out (two cross products).
template <class T>
DEM_HD constexpr vec3<T> rotate(const quat<T>& q, const vec3<T>& v) {
  const vec3<T> u = q.vector();
  const vec3<T> t = cross(u, v) * T(2);
  return v + t * q.w + cross(u, t);
}
// World -> body.
template <class T>
DEM_HD constexpr vec3<T> rotate_inverse(const quat<T>& q, const vec3<T>& v) { return rotate(conjugate(q), v); }

// Rotation by `angle` (rad) about unit `axis`.
template <class T>
DEM_HD inline quat<T> from_axis_angle(const vec3<T>& axis, T angle) {
  using std::cos;
  using std::sin;
  const T s = sin(angle / T(2));
  return {cos(angle / T(2)), axis.x * s, axis.y * s, axis.z * s};
}

// The rotation by the rotation vector phi (axis phi/|phi|, angle |phi|); exact for any |phi|.
template <class T>
DEM_HD inline quat<T> from_rotation_vector(const vec3<T>& phi) {
  using std::sqrt;
  const T a = sqrt(norm2(phi));
  if (a < T(1e-12)) return normalized(quat<T>{T(1), phi.x / T(2), phi.y / T(2), phi.z / T(2)});
  return from_axis_angle(phi / a, a);
}

using quatd = quat<double>;
using quatf = quat<float>;

}  // namespace dem
