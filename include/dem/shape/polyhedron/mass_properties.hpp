#pragma once
// Mass properties of a closed polyhedron per unit density (host, double, Eigen): volume, centroid,
// inertia tensor about the centroid, principal moments and axes, and the map of points into the
// principal frame. Blaze-DEM ships a separate script for this; here it is computed from the faces.
//
// Method: each face is fanned into triangles, each triangle with a reference point r (the mean of
// the vertices) spans a tetrahedron, and the tetrahedra's signed volumes, first and second moments
// are summed (exact for any closed, consistently oriented surface — the divergence theorem in
// tetrahedral form). For a tetrahedron with vertices 0, a, b, c (relative to r):
//   V = det[a b c] / 6,   ∫x dV = V (a + b + c) / 4,
//   ∫x xᵀ dV = V / 20 (a aᵀ + b bᵀ + c cᵀ + s sᵀ),   s = a + b + c.
// Working relative to r keeps the sums well conditioned for shapes far from the origin.
#include <Eigen/Dense>
#include <cmath>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "dem/math/quaternion.hpp"
#include "dem/math/vec3.hpp"

namespace dem::shape::poly {

struct mass_properties {
  double volume;                    // = mass per unit density
  vec3d centroid;                   // in the input frame
  Eigen::Matrix3d inertia;          // about the centroid, input axes, per unit density
  vec3d principal_moments;          // per unit density, ascending (unless the input is already principal)
  Eigen::Matrix3d principal_axes;   // columns: principal axes in input axes; a rotation (det = +1)
  quatd principal_to_input;         // rotates principal-frame vectors into the input frame
};

// `faces` are vertex-index polygons, counter-clockwise seen from outside. `name` names the shape in
// errors (a surface with non-positive volume: open, or faces oriented inwards).
inline mass_properties compute_mass_properties(const std::vector<vec3d>& vertices,
                                               const std::vector<std::vector<int>>& faces,
                                               std::string_view name = "polyhedron") {
  vec3d ref{0, 0, 0};
  for (const auto& v : vertices) ref += v;
  ref = ref / static_cast<double>(vertices.size());

  double volume = 0;
  Eigen::Vector3d first = Eigen::Vector3d::Zero();
  Eigen::Matrix3d second = Eigen::Matrix3d::Zero();
  auto ev = [&](int i) {
    const vec3d r = vertices[i] - ref;
    return Eigen::Vector3d(r.x, r.y, r.z);
  };
  for (const auto& f : faces) {
    const Eigen::Vector3d a = ev(f[0]);
    for (std::size_t k = 1; k + 1 < f.size(); ++k) {
      const Eigen::Vector3d b = ev(f[k]), c = ev(f[k + 1]);
      const double v = a.dot(b.cross(c)) / 6.0;
      const Eigen::Vector3d s = a + b + c;
      volume += v;
      first += v * s / 4.0;
      second += v / 20.0 * (a * a.transpose() + b * b.transpose() + c * c.transpose() + s * s.transpose());
    }
  }
  if (!(volume > 0))
    throw std::invalid_argument("polyhedron '" + std::string(name) + "': the surface encloses volume " +
                                std::to_string(volume) + " (must be positive: a closed surface with outward faces)");

  mass_properties mp;
  mp.volume = volume;
  const Eigen::Vector3d c = first / volume;
  mp.centroid = ref + vec3d{c.x(), c.y(), c.z()};
  const Eigen::Matrix3d cov = second - volume * c * c.transpose();  // about the centroid
  mp.inertia = cov.trace() * Eigen::Matrix3d::Identity() - cov;

  // An inertia tensor that is already diagonal keeps the input axes: for symmetric shapes (a cube,
  // any eigenvalue repeated) the eigen-solver would otherwise pick an arbitrary basis from round-off.
  const double scale = mp.inertia.trace();
  const double off = std::abs(mp.inertia(0, 1)) + std::abs(mp.inertia(0, 2)) + std::abs(mp.inertia(1, 2));
  if (off <= 1e-13 * scale) {
    mp.principal_axes = Eigen::Matrix3d::Identity();
    mp.principal_moments = {mp.inertia(0, 0), mp.inertia(1, 1), mp.inertia(2, 2)};
  } else {
    const Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d> es(mp.inertia);
    mp.principal_axes = es.eigenvectors();
    if (mp.principal_axes.determinant() < 0) mp.principal_axes.col(2) *= -1;  // right-handed
    const Eigen::Vector3d m = es.eigenvalues();
    mp.principal_moments = {m.x(), m.y(), m.z()};
  }
  const Eigen::Quaterniond q(mp.principal_axes);
  mp.principal_to_input = normalized(quatd{q.w(), q.x(), q.y(), q.z()});
  return mp;
}

// A point of the input frame in the principal frame (centroid at the origin, principal axes).
inline vec3d to_principal_frame(const mass_properties& mp, const vec3d& x) {
  const vec3d r = x - mp.centroid;
  const Eigen::Vector3d p = mp.principal_axes.transpose() * Eigen::Vector3d(r.x, r.y, r.z);
  return {p.x(), p.y(), p.z()};
}

}  // namespace dem::shape::poly
