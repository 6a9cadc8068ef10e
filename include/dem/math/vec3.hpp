#pragma once
// A 3-vector usable in host and device code. Trivially copyable (trivial default constructor),
// so it can live in device buffers and be memcpy'd. Conversion between element types is an
// explicit constructor, not a conversion operator: nvcc's front end resolves `vec3<float>(v)` on an
// aggregate as aggregate initialisation and rejects it.
#include <cmath>

#include "dem/config.hpp"

namespace dem {

template <class T>
struct vec3 {
  T x, y, z;

  vec3() = default;
  DEM_HD constexpr vec3(T x_, T y_, T z_) : x(x_), y(y_), z(z_) {}
  template <class U>
  DEM_HD explicit constexpr vec3(const vec3<U>& o) : x(static_cast<T>(o.x)), y(static_cast<T>(o.y)), z(static_cast<T>(o.z)) {}
  DEM_HD constexpr T& operator[](int i) { return i == 0 ? x : (i == 1 ? y : z); }
  DEM_HD constexpr const T& operator[](int i) const { return i == 0 ? x : (i == 1 ? y : z); }

  DEM_HD constexpr vec3& operator+=(const vec3& o) { x += o.x; y += o.y; z += o.z; return *this; }
  DEM_HD constexpr vec3& operator-=(const vec3& o) { x -= o.x; y -= o.y; z -= o.z; return *this; }
  DEM_HD constexpr vec3& operator*=(T s) { x *= s; y *= s; z *= s; return *this; }
  friend DEM_HD constexpr bool operator==(const vec3& a, const vec3& b) { return a.x == b.x && a.y == b.y && a.z == b.z; }
};

template <class T> DEM_HD constexpr vec3<T> operator+(vec3<T> a, vec3<T> b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
template <class T> DEM_HD constexpr vec3<T> operator-(vec3<T> a, vec3<T> b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
template <class T> DEM_HD constexpr vec3<T> operator-(vec3<T> a) { return {-a.x, -a.y, -a.z}; }
template <class T> DEM_HD constexpr vec3<T> operator*(vec3<T> a, T s) { return {a.x * s, a.y * s, a.z * s}; }
template <class T> DEM_HD constexpr vec3<T> operator*(T s, vec3<T> a) { return {a.x * s, a.y * s, a.z * s}; }
template <class T> DEM_HD constexpr vec3<T> operator/(vec3<T> a, T s) { return {a.x / s, a.y / s, a.z / s}; }
template <class T> DEM_HD constexpr T dot(vec3<T> a, vec3<T> b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
template <class T> DEM_HD constexpr vec3<T> cross(vec3<T> a, vec3<T> b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
template <class T> DEM_HD constexpr T norm2(vec3<T> a) { return dot(a, a); }
template <class T> DEM_HD inline T norm(vec3<T> a) { using std::sqrt; return sqrt(dot(a, a)); }
template <class T> DEM_HD inline bool all_finite(vec3<T> a) {
  using std::isfinite;
  // & not &&: no branches (vectorisable loops); on ints, which clang does not warn about
  return (int(isfinite(a.x)) & int(isfinite(a.y)) & int(isfinite(a.z))) != 0;
}

// dst = v component by component. Kernels store results computed in registers with it: a
// whole-struct copy made GCC go through the stack (two 4-byte stores read back by one 8-byte load),
// which stalls on store forwarding in the hottest loops.
template <class T>
DEM_HD inline void store(vec3<T>& dst, const vec3<T>& v) {
  dst.x = v.x;
  dst.y = v.y;
  dst.z = v.z;
}

// m ? a : b component by component: a choice without a branch (the conditional operator on the
// structs becomes one), so that loops over contacts can be vectorised.
template <class T>
DEM_HD constexpr vec3<T> select(bool m, const vec3<T>& a, const vec3<T>& b) {
  return {m ? a.x : b.x, m ? a.y : b.y, m ? a.z : b.z};
}

using vec3d = vec3<double>;
using vec3f = vec3<float>;

}  // namespace dem
