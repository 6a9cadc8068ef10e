#pragma once
// shape::clump<MaxSpheres> — rigid bodies made of up to MaxSpheres overlapping spheres (DEM-Engine's
// particles). The owner (the body) has mass, principal inertia, orientation and velocities; its
// geometries are the component spheres. Two clumps touch where component spheres overlap: each
// touching pair (i of A, j of B) is one contact with its own history slot i * MaxSpheres + j.
// Mass properties come from the template (shape/clump/: exact for up to two spheres per point,
// slice quadrature otherwise). A component has its own material when the template gives it one
// (clump_sphere::material), else its body's; the body's material gives the density.
#include <string>
#include <type_traits>

#include "dem/config.hpp"
#include "dem/math/quaternion.hpp"
#include "dem/shape/clump/clump.hpp"
#include "dem/shape/rigid_contact.hpp"
#include "dem/shape/sphere.hpp"

namespace dem::shape {

template <int MaxSpheres = 8>
struct clump {
  static_assert(MaxSpheres >= 1 && MaxSpheres <= 8, "dem::shape::clump<MaxSpheres>: MaxSpheres must be in [1, 8] (contact slots per pair are MaxSpheres^2 <= 64)");
  static constexpr const char* name = "clump";
  static constexpr bool rigid_body = true;
  static constexpr int pair_slots = MaxSpheres * MaxSpheres;
  static constexpr int plane_slots = MaxSpheres;
  static constexpr bool supports_range = true;
  using host_template = clump_template;
  template <class Real>
  using data = clump_shape<Real, MaxSpheres>;

  template <class Real>
  static data<Real> make(const clump_template& t) { return t.template to_shape<Real, MaxSpheres>(); }
  static double volume(const clump_template& t) { return t.volume(); }
  static vec3d inertia_per_density(const clump_template& t) { return t.principal_inertia_per_density(); }
  static double bounding_radius(const clump_template& t) { return t.bounding_radius(); }
  // The smallest component radius: contact stiffness, and so the stable time step, follow it.
  static double contact_radius(const clump_template& t) {
    double r = t.spheres().front().radius;
    for (const auto& c : t.spheres()) r = c.radius < r ? c.radius : r;
    return r;
  }
  static const std::string& template_name(const clump_template& t) { return t.name(); }
  // Why shape data read from a file cannot be used (empty: it can): what the kernels index with.
  template <class Real>
  static std::string check_data(const data<Real>& d) {
    if (d.count < 1 || d.count > MaxSpheres) return "it has " + std::to_string(d.count) + " spheres (1 to " + std::to_string(MaxSpheres) + ")";
    for (int i = 0; i < d.count; ++i)
      if (!(d.radius[i] > 0) || !all_finite(vec3d(d.centre[i]))) return "component " + std::to_string(i) + " is not a finite sphere";
    if (!(d.bounding_radius > 0)) return "its bounding radius is not positive";
    return "";
  }

  // Calls visit(slot, rigid_contact) for each pair of overlapping component spheres; d = x_A - x_B.
  template <class Real, class Visit>
  DEM_HD static void collide(const data<Real>& a, const quat<Real>& qa, const data<Real>& b, const quat<Real>& qb,
                             const vec3<Real>& d, Real range, Visit&& visit) {
    const Real reach = a.bounding_radius + b.bounding_radius + range;
    if (norm2(d) >= reach * reach) return;
    vec3<Real> cb[MaxSpheres];
    for (int j = 0; j < b.count; ++j) cb[j] = rotate(qb, b.centre[j]);
    for (int i = 0; i < a.count; ++i) {
      const vec3<Real> ca = rotate(qa, a.centre[i]);
      for (int j = 0; j < b.count; ++j) {
        sphere::pair_geometry<Real> g;
        if (!sphere::collide(d + ca - cb[j], a.radius[i], b.radius[j], g, range)) continue;
        visit(i * MaxSpheres + j, rigid_contact<Real>{g.overlap, g.normal, ca + g.branch_a, cb[j] + g.branch_b,
                                                      a.radius[i] * b.radius[j] / (a.radius[i] + b.radius[j]), a.material[i],
                                                      b.material[j]});
      }
    }
  }

  // Boundaries meet a clump through its component spheres (boundary/wall_forces.hpp); slot = component.
  template <class Real>
  DEM_HD static int wall_probe_count(const data<Real>& s) { return s.count; }
  template <class Real>
  DEM_HD static probe<Real> wall_probe(const data<Real>& s, const quat<Real>& q, int k, material_id) {
    return {rotate(q, s.centre[k]), s.radius[k], s.material[k], s.radius[k]};
  }

  // Against a plane through the origin with unit `normal`; `centre` is the body's centre relative to
  // a point of the plane. Slot = component index.
  template <class Real, class Visit>
  DEM_HD static void collide_plane(const data<Real>& s, const quat<Real>& q, const vec3<Real>& centre, const vec3<Real>& normal,
                                   Real range, Visit&& visit) {
    if (dot(centre, normal) >= s.bounding_radius + range) return;
    const vec3<Real> zero{0, 0, 0};
    for (int i = 0; i < s.count; ++i) {
      const vec3<Real> c = rotate(q, s.centre[i]);
      sphere::pair_geometry<Real> g;
      if (!sphere::collide_plane(centre + c, s.radius[i], zero, normal, g, range)) continue;
      visit(i, rigid_contact<Real>{g.overlap, g.normal, c + g.branch_a, zero, s.radius[i], s.material[i], no_geometry_material});
    }
  }
};

}  // namespace dem::shape
