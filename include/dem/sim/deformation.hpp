#pragma once
// The step's radius update for deformable spheres (shape::deformable_sphere; the kernels are in
// deform/radius_kernel.hpp), the contact list's budget it uses, its errors and its report.
//
// The list holds every pair within (R'_a + R'_b + margin) at its build; a pair can come into
// contact once the particles' displacements plus their radii's growth since the build exceed the
// margin, so the Verlet check counts both (Simulator::one_step). The step's own growth is known
// only after the solve: if it used up the budget, the list is rebuilt (from last step's radii, as
// the solve read them) and the solve run again, so that no plane is missed and the result does not
// depend on when the list was built.
#include <cmath>
#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "dem/deform/radius_kernel.hpp"

namespace dem {

// What the last step's radius update did (Simulator::deformation_report).
struct deformation_report {
  std::uint64_t particles = 0;         // active particles
  std::uint64_t deformed = 0;          // with R' > R (as stored: a growth below the radius's resolution does not count)
  std::uint64_t solved = 0;            // whose planes cut the original sphere (a Newton solve ran)
  std::uint64_t iterations = 0;        // Newton iterations, all particles
  std::uint32_t max_iterations = 0;    // of one particle
  double mean_iterations = 0;          // per solved particle
  double max_ratio = 1;                // largest R' / R
  std::uint64_t redone = 0;            // solves repeated after a rebuild since the start (the growth used up the margin)
};

namespace sim {

template <class Sim>
struct deformation {
  using P = typename Sim::policy;
  using Real = typename P::real;

  // The solve's accuracy relative to R: about what the stored radius resolves.
  static constexpr double tolerance = sizeof(Real) == 4 ? 1e-7 : 1e-13;
  // Under velocity Verlet the particles do not move after the force evaluation, so the particle
  // kernel solves the next R' from the pair kernel's distances (no pass of its own); integrators
  // that move them after it solve before the evaluation, in a kernel of their own.
  static constexpr bool in_particle_kernel = deform::caps_in_pair_kernel<P>;

  static deform::settings<Real> settings(const Sim& s) {
    using std::sqrt;
    return {static_cast<Real>(0.5 * s.margin()), static_cast<Real>(s.deform_limit_), static_cast<Real>(tolerance),
            sqrt(static_cast<Real>(tolerance))};  // deform::solve's sqrt(tolerance), in the same operation
  }

  // Whether this step solves the radii (every deformation interval-th step; the radii stay between).
  static bool due(const Sim& s) { return s.steps_ % s.deform_interval_ == 0; }

  // What the particle kernel needs for the radius update (nothing without one).
  static deform::in_step<Real> in_step(Sim& s, bool integrate) {
    if (!in_particle_kernel || !integrate || !due(s)) return {s.deform_caps()};  // the caps only: no solve
    s.deformed_next_.resize(s.num_particles_);
    s.deform_iterations_.resize(s.num_particles_);
    return {s.deform_caps(), s.pair_a_.data(), s.pair_b_.data(), s.deformed_ref_.data(), s.deformed_next_.data(), s.deform_iterations_.data(),
            settings(s)};
  }

  // The solve in a kernel of its own, into deformed_next_; returns the growth (see radius_kernel).
  static double solve(Sim& s) {
    const std::uint32_t n = s.num_particles_;
    s.deformed_next_.resize(n);
    s.deform_iterations_.resize(n);
    return s.backend_.reduce_max(
        n, deform::radius_kernel<P>{s.view(), s.coord_, s.deformed_ref_.data(), s.deformed_next_.data(), s.deform_iterations_.data(),
                                    s.incident_offset_.data(), s.incident_entry_.data(), s.pair_a_.data(), s.pair_b_.data(),
                                    s.walls_.view(), s.walls_.walls(), s.rigid(), s.params_.data(), s.num_materials(), settings(s),
                                    s.status_.data()});
  }

  // Before the force evaluation (integrators that move particles after it). `moved`: the largest
  // displacement since the list was built (0 right after a build).
  static void before_forces(Sim& s, double moved) {
    if (due(s)) accept(s, moved, solve(s));
  }

  // After the force evaluation (velocity Verlet), whose particle kernel solved the next R'.
  static void after_forces(Sim& s, double moved) {
    if (!due(s)) return;
    const double growth =
        s.backend_.reduce_max(s.num_particles_, deform::growth_kernel<Real>{s.deformed_next_.data(), s.deformed_.data(), s.deformed_ref_.data(), s.active_.data()});
    accept(s, moved, growth);
  }

  // The solve in deformed_next_ becomes the radii, once its growth is known to fit the list.
  static void accept(Sim& s, double moved, double growth) {
    const double half = 0.5 * s.margin();
    if (moved + growth > half) {
      s.rebuild_contacts();  // for the radii the solve read (deformed_ still holds them)
      ++s.deform_redone_;
      growth = solve(s);
      // A radius that grew by more than half the margin in one step (a start from overlapping
      // spheres, a sudden load): the list is rebuilt for the grown radii and the radii solved again
      // from them (one more sweep), until the growth fits; reported.
      int sweeps = 0;
      for (; growth > half; ++sweeps) {
        if (sweeps == 50) {
          std::ostringstream m;
          m.precision(6);
          m << "dem: deformable spheres: at step " << s.steps_ << " a radius still grew by " << growth << " m after " << sweeps
            << " extra sweeps, more than half the contact margin (" << half << " m); reduce dt (now " << s.cfg_.dt
            << " s) or raise config.contact_margin";
          throw std::runtime_error(m.str());
        }
        s.deformed_.swap(s.deformed_next_);
        s.rebuild_contacts();
        growth = solve(s);
      }
      if (sweeps && s.log_)
        *s.log_ << "dem: step " << s.steps_ << ": deformable spheres grew by more than half the contact margin (" << half
                << " m) in one step; the contact list was rebuilt for the grown radii and the radii solved again (" << sweeps
                << " extra sweep" << (sweeps > 1 ? "s" : "") << ")\n";
    }
    s.deformed_.swap(s.deformed_next_);
    s.deform_growth_ = growth;
  }

  // Called with the status words after a step: a solve that failed stops the run.
  static void check(Sim& s, std::uint32_t failed) {
    if (failed == no_particle) return;
    const std::vector<std::uint32_t> ids = s.id_.to_vector(), its = s.deform_iterations_.to_vector();
    const std::vector<Real> r0 = s.radius_.to_vector(), r = s.deformed_.to_vector();
    std::ostringstream m;
    m.precision(9);
    m << "dem: deformable sphere " << ids[failed] << " (radius " << static_cast<double>(r0[failed]) << " m) at step " << s.steps_ << ": ";
    switch (static_cast<deform::solve_status>(its[failed] - deform::failed_iterations)) {
      case deform::solve_status::beyond_limit:
        m << "keeping its volume needs a radius of " << s.deform_limit_ << " x its own or more (its contact planes cut away too much: "
          << "a large deformation the model does not describe); raise the limit with set_deformation_limit (now " << s.deform_limit_
          << "), or reduce the load";
        break;
      case deform::solve_status::too_many_planes:
        m << "more than " << deform::max_planes << " contact planes are within reach (much smaller neighbours); the model is for "
          << "spheres with a few contacts each";
        break;
      default:
        m << "Newton's method did not converge in " << deform::max_iterations << " iterations (last radius " << static_cast<double>(r[failed])
          << " m)";
    }
    throw std::runtime_error(m.str());
  }

  static deformation_report report(const Sim& s) {
    deformation_report out;
    out.redone = s.deform_redone_;
    const std::vector<std::uint32_t> active = s.active_.to_vector(), its = s.deform_iterations_.to_vector();
    const std::vector<Real> r0 = s.radius_.to_vector(), r = s.deformed_.to_vector();
    for (std::size_t i = 0; i < active.size(); ++i) {
      if (!active[i]) continue;
      ++out.particles;
      const std::uint32_t k = i < its.size() ? its[i] : 0;
      out.iterations += k;
      out.solved += k > 0;
      out.max_iterations = std::max(out.max_iterations, k);
      const double ratio = static_cast<double>(r[i]) / static_cast<double>(r0[i]);
      if (r[i] > r0[i]) ++out.deformed;
      out.max_ratio = std::max(out.max_ratio, ratio);
    }
    out.mean_iterations = out.solved ? static_cast<double>(out.iterations) / static_cast<double>(out.solved) : 0.0;
    return out;
  }
};

}  // namespace sim
}  // namespace dem
