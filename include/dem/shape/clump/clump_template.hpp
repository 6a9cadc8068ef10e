#pragma once
// clump_template: a rigid body made of overlapping spheres (DEM-Engine's clump), built on the
// host. The owner gets the mass properties of the union of the spheres (sphere_union.hpp: exact
// when no three spheres share a point, else slice quadrature to rel_tol); each component
// sphere keeps its material. The template re-expresses the spheres in the principal frame
// (centroid at the origin, inertia diagonal with I1 <= I2 <= I3) and remembers the map back to
// the frame they were given in: x_input = centroid() + rotate(orientation(), x_principal).
//
// Bad data is refused with std::invalid_argument naming the clump and the problem: no spheres,
// a non-finite centre, a radius that is not positive and finite, zero volume; to_shape refuses
// more spheres than its MaxSpheres bound.
#include <Eigen/Dense>

#include <array>
#include <cmath>
#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "dem/material/material.hpp"
#include "dem/math/quaternion.hpp"
#include "dem/math/vec3.hpp"
#include "dem/shape/clump/clump_shape.hpp"
#include "dem/shape/clump/sphere_union.hpp"

namespace dem::shape {

static_assert(std::is_same_v<material_id, std::uint16_t>, "clump_shape stores material ids as std::uint16_t");

// One component sphere.
// A component's material id, or body_material: the component takes the material its body is
// added with (Simulator::add_bodies).
inline constexpr material_id body_material = 0xFFFF;

struct clump_sphere {
  vec3d centre;
  double radius;
  material_id material = body_material;
};

class clump_template {
 public:
  using inertia_tensor_t = std::array<std::array<double, 3>, 3>;

  // rel_tol: target relative error of the slice quadrature (unused when the exact path applies).
  clump_template(std::string name, std::vector<clump_sphere> spheres, double rel_tol = 1e-10)
      : name_(std::move(name)), input_(std::move(spheres)), rel_tol_(rel_tol) {
    validate();
    compute();
  }

  const std::string& name() const { return name_; }
  std::size_t size() const { return input_.size(); }
  // Components in the principal frame (centroid at the origin).
  const std::vector<clump_sphere>& spheres() const { return principal_; }
  // Components as given.
  const std::vector<clump_sphere>& input_spheres() const { return input_; }

  double volume() const { return volume_; }
  double mass(double density) const { return density * volume_; }
  // Centroid, in the input frame.
  const vec3d& centroid() const { return centroid_; }
  // Rotation principal -> input frame.
  const quatd& orientation() const { return orientation_; }
  // Principal moments per unit density, ascending.
  const vec3d& principal_inertia_per_density() const { return principal_inertia_; }
  vec3d principal_inertia(double density) const { return principal_inertia_ * density; }
  // Inertia tensor per unit density about the centroid, input-frame axes.
  const inertia_tensor_t& inertia_tensor_per_density() const { return inertia_; }
  // Radius of the ball about the centroid that encloses every component.
  double bounding_radius() const { return bounding_radius_; }
  // Whether the mass properties are exact (closed form) or from the slice quadrature.
  union_method method() const { return method_; }

  vec3d to_input_frame(const vec3d& principal) const { return centroid_ + rotate(orientation_, principal); }
  vec3d to_principal_frame(const vec3d& input) const { return rotate_inverse(orientation_, input - centroid_); }

  // The device-side copy; refuses more spheres than MaxSpheres.
  template <class Real, int MaxSpheres>
  clump_shape<Real, MaxSpheres> to_shape() const {
    if (principal_.size() > static_cast<std::size_t>(MaxSpheres))
      fail(std::to_string(principal_.size()) + " spheres, more than the bound MaxSpheres = " + std::to_string(MaxSpheres) +
           " of clump_shape");
    clump_shape<Real, MaxSpheres> s{};
    s.count = static_cast<int>(principal_.size());
    for (std::size_t i = 0; i < principal_.size(); ++i) {
      s.centre[i] = vec3<Real>(principal_[i].centre);
      s.radius[i] = static_cast<Real>(principal_[i].radius);
      s.material[i] = principal_[i].material;
    }
    s.volume = static_cast<Real>(volume_);
    s.inertia_per_density = vec3<Real>(principal_inertia_);
    s.bounding_radius = static_cast<Real>(bounding_radius_);
    return s;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw std::invalid_argument("clump '" + name_ + "': " + what);
  }
  static std::string str(double v) {
    std::ostringstream o;
    o.precision(17);
    o << v;
    return o.str();
  }

  void validate() const {
    if (input_.empty()) fail("no spheres");
    if (!(rel_tol_ > 0) || !std::isfinite(rel_tol_)) fail("rel_tol must be positive and finite, got " + str(rel_tol_));
    for (std::size_t i = 0; i < input_.size(); ++i) {
      const clump_sphere& s = input_[i];
      if (!all_finite(s.centre))
        fail("sphere " + std::to_string(i) + ": centre is not finite (" + str(s.centre.x) + ", " + str(s.centre.y) + ", " +
             str(s.centre.z) + ")");
      if (!(s.radius > 0) || !std::isfinite(s.radius))
        fail("sphere " + std::to_string(i) + ": radius must be positive and finite, got " + str(s.radius));
    }
    // One body: a connected union of spheres spans at most the sum of their diameters on every
    // axis; twice that leaves room for gaps. Far-flung spheres are a mistake in the input (and a
    // quadrature over a span of 1e40 radii would never end).
    double diameters = 0;
    vec3d lo = input_[0].centre, hi = input_[0].centre;
    for (const clump_sphere& s : input_) {
      diameters += 2 * s.radius;
      for (int k = 0; k < 3; ++k) {
        lo[k] = std::min(lo[k], s.centre[k] - s.radius);
        hi[k] = std::max(hi[k], s.centre[k] + s.radius);
      }
    }
    for (int k = 0; k < 3; ++k)
      if (hi[k] - lo[k] > 2 * diameters)
        fail("the spheres span " + str(hi[k] - lo[k]) + " m along axis " + std::to_string(k) + ", more than twice the sum of their diameters (" +
             str(diameters) + " m): they do not form one body");
  }

  void compute() {
    std::vector<ball> balls;
    balls.reserve(input_.size());
    for (const clump_sphere& s : input_) balls.push_back({s.centre, s.radius});
    const solid_moments m = union_moments(balls, rel_tol_, &method_);
    volume_ = m.volume;
    if (!(volume_ > 0) || !std::isfinite(volume_))
      fail("zero volume (" + str(volume_) + "): the radii are too small to represent its volume in double precision");
    centroid_ = m.first / volume_;

    // Inertia about the centroid: J = tr(C) 1 - C, C the second moments about the centroid.
    Eigen::Matrix3d c, j;
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b) c(a, b) = m.second[a][b] - volume_ * centroid_[a] * centroid_[b];
    j = Eigen::Matrix3d::Identity() * c.trace() - c;
    j = 0.5 * (j + j.transpose());
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b) inertia_[a][b] = j(a, b);

    Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d> eig(j);
    if (eig.info() != Eigen::Success) fail("the eigen-decomposition of the inertia tensor failed");
    const Eigen::Vector3d ev = eig.eigenvalues();  // ascending
    Eigen::Matrix3d r = eig.eigenvectors();         // columns: principal axes in the input frame
    // An isotropic body (a sphere, a regular tetrahedron of spheres) has no preferred axes: keep
    // the input frame rather than an arbitrary eigenbasis of the round-off.
    if (ev(2) - ev(0) <= 1e-9 * ev(2)) r.setIdentity();
    if (r.determinant() < 0) r.col(2) *= -1;  // right-handed
    Eigen::Quaterniond q(r);
    q.normalize();
    if (q.w() < 0) q.coeffs() *= -1;
    orientation_ = quatd{q.w(), q.x(), q.y(), q.z()};
    principal_inertia_ = {ev(0), ev(1), ev(2)};

    principal_.clear();
    bounding_radius_ = 0;
    for (const clump_sphere& s : input_) {
      const vec3d p = to_principal_frame(s.centre);
      principal_.push_back({p, s.radius, s.material});
      bounding_radius_ = std::max(bounding_radius_, norm(p) + s.radius);
    }
  }

  std::string name_;
  std::vector<clump_sphere> input_;
  double rel_tol_;
  std::vector<clump_sphere> principal_;
  double volume_ = 0;
  vec3d centroid_{0, 0, 0};
  quatd orientation_ = quatd::identity();
  vec3d principal_inertia_{0, 0, 0};
  inertia_tensor_t inertia_{};
  double bounding_radius_ = 0;
  union_method method_ = union_method::exact;
};

// From parallel arrays; materials may be empty (all 0) or one per sphere.
inline clump_template make_clump(std::string name, const std::vector<vec3d>& centres, const std::vector<double>& radii,
                                 const std::vector<material_id>& materials = {}, double rel_tol = 1e-10) {
  if (centres.size() != radii.size())
    throw std::invalid_argument("clump '" + name + "': " + std::to_string(centres.size()) + " centres but " +
                                std::to_string(radii.size()) + " radii");
  if (!materials.empty() && materials.size() != centres.size())
    throw std::invalid_argument("clump '" + name + "': " + std::to_string(materials.size()) + " materials for " +
                                std::to_string(centres.size()) + " spheres");
  std::vector<clump_sphere> s;
  for (std::size_t i = 0; i < centres.size(); ++i)
    s.push_back({centres[i], radii[i], materials.empty() ? material_id{0} : materials[i]});
  return clump_template(std::move(name), std::move(s), rel_tol);
}

}  // namespace dem::shape
