#pragma once
// What an inspector looks at: a region (where a particle's centre must be) and a filter (a
// predicate on the particle's state), both host-device structs checked by the compiler.
//
//   dem::inspect::everywhere{}                        every active particle
//   dem::inspect::box{lo, hi}                         an axis-aligned box
//   dem::inspect::ball{centre, radius}
//   dem::inspect::cylinder{base, axis, radius, length}  finite or (length = infinity) not
//   any struct with  DEM_HD bool contains(const dem::vec3d&) const  (a user region)
//
//   filter: any struct with  DEM_HD bool operator()(const dem::inspect::particle&) const
//   (a material, a speed, an id range, ...); inspect::any_particle takes all.
//
// Box, ball and cylinder know their volume and the exact volume of a sphere inside them
// (inspect/overlap_volume.hpp), so they give a packing fraction; user regions count a particle's
// whole volume where its centre lies and have no volume of their own.
#include <cmath>
#include <concepts>
#include <cstdint>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>

#include "dem/config.hpp"
#include "dem/inspect/overlap_volume.hpp"
#include "dem/math/vec3.hpp"

namespace dem::inspect {

// The state a filter sees, in world units (double).
struct particle {
  vec3d position, velocity, angular_velocity;
  double radius;  // bounding radius for rigid bodies
  double mass;
  std::uint32_t id;
  std::uint32_t material;
  std::uint32_t family;  // 0 until families are used (docs/families.md)
};

struct any_particle {
  DEM_HD bool operator()(const particle&) const { return true; }
};

// The particles of one family: dem::inspect::where(region, dem::inspect::in_family{2}).
struct in_family {
  std::uint32_t family;
  DEM_HD bool operator()(const particle& p) const { return p.family == family; }
};

struct everywhere {
  DEM_HD bool contains(const vec3d&) const { return true; }
};

struct box {
  vec3d lo, hi;
  DEM_HD bool contains(const vec3d& p) const {
    return p.x >= lo.x && p.y >= lo.y && p.z >= lo.z && p.x < hi.x && p.y < hi.y && p.z < hi.z;
  }
  DEM_HD double volume() const { return (hi.x - lo.x) * (hi.y - lo.y) * (hi.z - lo.z); }
  DEM_HD double solid_volume(const vec3d& c, double r) const { return sphere_box_volume(c, r, lo, hi); }
};

struct ball {
  vec3d centre;
  double radius;
  DEM_HD bool contains(const vec3d& p) const { return norm2(p - centre) < radius * radius; }
  DEM_HD double volume() const { return sphere_volume(radius); }
  DEM_HD double solid_volume(const vec3d& c, double r) const { return sphere_ball_volume(c, r, centre, radius); }
};

// Around the axis from `base` along `axis` (any length: the inspectors normalise it) for `length`
// metres; an infinite length (the default) is unbounded both ways.
struct cylinder {
  vec3d base, axis;
  double radius;
  double length = std::numeric_limits<double>::infinity();
  DEM_HD bool contains(const vec3d& p) const {
    const vec3d rel = p - base;
    const double s = dot(rel, axis);
    return (s >= 0 && s < length) || length == std::numeric_limits<double>::infinity() ? norm2(rel - axis * s) < radius * radius : false;
  }
  DEM_HD double volume() const { return 3.14159265358979323846 * radius * radius * length; }
  DEM_HD double solid_volume(const vec3d& c, double r) const { return sphere_cylinder_volume(c, r, base, axis, length, radius); }
};

// Everything beyond a plane: the points x with (x - point) . normal > 0 (an outlet plane).
struct half_space {
  vec3d point, normal;
  DEM_HD bool contains(const vec3d& p) const { return dot(p - point, normal) > 0; }
};

template <class R>
concept region = requires(const R& r, const vec3d& p) {
  { r.contains(p) } -> std::convertible_to<bool>;
};
template <class F>
concept particle_filter = requires(const F& f, const particle& p) {
  { f(p) } -> std::convertible_to<bool>;
};
// Regions that know their volume and the exact volume of a sphere inside them.
template <class R>
concept measured_region = region<R> && requires(const R& r, const vec3d& c, double x) {
  { r.volume() } -> std::convertible_to<double>;
  { r.solid_volume(c, x) } -> std::convertible_to<double>;
};

// A region and a filter: what inspect::particles, contacts and contact_network take.
template <class Region = everywhere, class Filter = any_particle>
struct selection {
  static_assert(region<Region>, "dem::inspect: a region needs `DEM_HD bool contains(const dem::vec3d&) const`");
  static_assert(particle_filter<Filter>, "dem::inspect: a filter needs `DEM_HD bool operator()(const dem::inspect::particle&) const`");
  Region where{};
  Filter filter{};
};
template <class Region = everywhere, class Filter = any_particle>
selection<Region, Filter> where(const Region& r = {}, const Filter& f = {}) {
  return {r, f};
}

namespace detail {
inline std::string str(const vec3d& v) {
  std::ostringstream s;
  s.precision(9);
  s << '(' << v.x << ", " << v.y << ", " << v.z << ')';
  return s.str();
}
inline std::string num(double v) {
  std::ostringstream s;
  s.precision(9);
  s << v;
  return s.str();
}
inline bool finite(const vec3d& v) { return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z); }
}  // namespace detail

// Checks of a region's numbers (named errors) and its normal form (a unit cylinder axis).
inline everywhere checked(const everywhere& r) { return r; }
inline box checked(const box& b) {
  if (!detail::finite(b.lo) || !detail::finite(b.hi))
    throw std::invalid_argument("dem::inspect: box region lo = " + detail::str(b.lo) + ", hi = " + detail::str(b.hi) + ": both must be finite");
  if (!(b.hi.x > b.lo.x && b.hi.y > b.lo.y && b.hi.z > b.lo.z))
    throw std::invalid_argument("dem::inspect: box region hi = " + detail::str(b.hi) + " must be above lo = " + detail::str(b.lo) + " on every axis");
  return b;
}
inline ball checked(const ball& b) {
  if (!detail::finite(b.centre)) throw std::invalid_argument("dem::inspect: ball region centre is " + detail::str(b.centre) + ", but it must be finite");
  if (!(b.radius > 0) || !std::isfinite(b.radius))
    throw std::invalid_argument("dem::inspect: ball region radius is " + detail::num(b.radius) + ", but it must be > 0 and finite");
  return b;
}
inline cylinder checked(const cylinder& c) {
  if (!detail::finite(c.base)) throw std::invalid_argument("dem::inspect: cylinder region base is " + detail::str(c.base) + ", but it must be finite");
  const double a = norm(c.axis);
  if (!detail::finite(c.axis) || !(a > 0))
    throw std::invalid_argument("dem::inspect: cylinder region axis is " + detail::str(c.axis) + ", but it must be finite and non-zero");
  if (!(c.radius > 0) || !std::isfinite(c.radius))
    throw std::invalid_argument("dem::inspect: cylinder region radius is " + detail::num(c.radius) + ", but it must be > 0 and finite");
  if (!(c.length > 0)) throw std::invalid_argument("dem::inspect: cylinder region length is " + detail::num(c.length) + ", but it must be > 0 (infinity: unbounded)");
  cylinder u = c;
  u.axis = c.axis / a;
  return u;
}
inline half_space checked(const half_space& h) {
  if (!detail::finite(h.point)) throw std::invalid_argument("dem::inspect: half_space point is " + detail::str(h.point) + ", but it must be finite");
  const double a = norm(h.normal);
  if (!detail::finite(h.normal) || !(a > 0))
    throw std::invalid_argument("dem::inspect: half_space normal is " + detail::str(h.normal) + ", but it must be finite and non-zero");
  return {h.point, h.normal / a};
}
template <class R>
const R& checked(const R& user_region) {  // user regions: their own business
  return user_region;
}

}  // namespace dem::inspect
