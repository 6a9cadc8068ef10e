#pragma once
// Trackers: a handle on a few particles (by id) whose state can be read and set without copying the
// whole state: each call gathers or scatters the tracked entries only, on the simulator's backend.
//
//   auto probe = dem::track::particles(sim, {12, 40, 41});
//   probe.positions(); probe.velocities(); probe.contact_forces();   // one entry per tracked id
//   probe.set_velocities({{0, 0, -2}, {0, 0, -2}, {0, 0, -2}});      // a projectile launched
//
// Particles are reordered at every contact-list rebuild; the simulator keeps the index of every id
// (rebuilt after a reordering, lazily, one pass), and a tracker looks its ids up there.
// Setting positions asks for a contact-list rebuild and, with velocity Verlet, a new force
// evaluation before the next step (the stored forces belong to the old positions), so a moved
// particle can never pass through another unseen.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "dem/config.hpp"
#include "dem/family/rule.hpp"
#include "dem/inspect/inspect.hpp"  // inspect::access<Sim>::require_forces
#include "dem/math/aabb.hpp"
#include "dem/math/quaternion.hpp"
#include "dem/math/vec3.hpp"
#include "dem/sim/families.hpp"
#include "dem/sim/flow_driver.hpp"  // which outlet took a particle

namespace dem::track {

namespace detail {

// index_of_ids' entry for an id no longer stored (lost or removed, then compacted away).
inline constexpr std::uint32_t not_stored = 0xffffffffu;

// out[k] = v[index[ids[k]]]; `absent` for an id no longer stored.
template <class T>
struct gather_kernel {
  const std::uint32_t* ids;
  const std::uint32_t* index;
  const T* v;
  T* out;
  T absent;
  DEM_HD void operator()(index_t k) const {
    const std::uint32_t i = index[ids[k]];
    out[k] = i == not_stored ? absent : v[i];
  }
};
// out[k] = where id ids[k] is stored (not_stored if nowhere).
struct where_kernel {
  const std::uint32_t* ids;
  const std::uint32_t* index;
  std::uint32_t* out;
  DEM_HD void operator()(index_t k) const { out[k] = index[ids[k]]; }
};
// Setters check first that every tracked id is stored and active (tracker::require_active).
template <class T>
struct scatter_kernel {
  const std::uint32_t* ids;
  const std::uint32_t* index;
  const T* in;
  T* v;
  DEM_HD void operator()(index_t k) const { v[index[ids[k]]] = in[k]; }
};
// The contact force and torque on a tracked particle: the stored totals minus gravity and the
// external force and torque (boundary contacts included).
template <class Real>
struct contact_load_kernel {
  const std::uint32_t* ids;
  const std::uint32_t* index;
  const vec3<Real>* force;
  const vec3<Real>* torque;
  const Real* inv_mass;
  const std::uint32_t* active;
  const vec3<Real>* external_force;  // null when none
  const vec3<Real>* external_torque;
  const vec3<Real>* contact_force;   // the contact load itself, kept while a family rule exists (else null)
  const vec3<Real>* contact_torque;
  vec3<Real> gravity;
  vec3<Real>* out_force;
  vec3<Real>* out_torque;
  DEM_HD void operator()(index_t k) const {
    const std::uint32_t i = index[ids[k]];
    if (i == not_stored) {  // no longer in the simulation: no load
      out_force[k] = out_torque[k] = vec3<Real>{0, 0, 0};
      return;
    }
    if (contact_force) {  // a rule may have held components of the stored total
      out_force[k] = contact_force[i];
      out_torque[k] = contact_torque[i];
      return;
    }
    vec3<Real> f = force[i], t = torque[i];
    if (active[i]) {
      f -= gravity * (Real(1) / inv_mass[i]);
      if (external_force) {
        f -= external_force[i];
        t -= external_torque[i];
      }
    }
    out_force[k] = f;
    out_torque[k] = t;
  }
};

// index[id[i]] = i: where each particle id is stored now.
struct index_of_ids_kernel {
  const std::uint32_t* id;
  std::uint32_t* index;
  DEM_HD void operator()(index_t i) const { index[id[i]] = i; }
};

}  // namespace detail

// The simulator's side (a friend of dem::Simulator).
template <class Sim>
struct access {
  static auto& positions(Sim& s) { return s.pos_; }
  static auto& carries(Sim& s) { return s.carry_; }
  static auto& velocities(Sim& s) { return s.vel_; }
  static auto& angular_velocities(Sim& s) { return s.omega_; }
  static auto& orientations(Sim& s) { return s.orientation_; }
  static auto& active(Sim& s) { return s.active_; }
  static const auto& coord(const Sim& s) { return s.coord_; }
  static const aabb& domain(const Sim& s) { return s.cfg_.domain; }
  static auto& backend(Sim& s) { return s.backend_; }
  // The storage index of every id, rebuilt (one pass) after particles were reordered or added.
  static const std::uint32_t* index_of_ids(Sim& s) {
    if (!s.index_of_ids_valid_) {
      s.index_of_ids_.resize(s.num_ids_);
      s.index_of_ids_.fill(detail::not_stored);
      if (s.num_particles_) s.backend_.for_each(s.num_particles_, detail::index_of_ids_kernel{s.id_.data(), s.index_of_ids_.data()});
      s.index_of_ids_valid_ = true;
    }
    return s.index_of_ids_.data();
  }
  // Moved (or turned) particles: the contact list is rebuilt, and velocity Verlet's stored forces
  // evaluated again, before the next step.
  static void positions_changed(Sim& s) {
    s.contacts_valid_ = false;
    s.prepared_ = false;
  }
  static void require_forces(Sim& s) { inspect::access<Sim>::require_forces(s); }
  static detail::contact_load_kernel<typename Sim::real> contact_load_kernel(Sim& s, const std::uint32_t* ids, const std::uint32_t* index,
                                                                             vec3<typename Sim::real>* f, vec3<typename Sim::real>* t) {
    const bool kept = s.family_contact_force_.size() == s.num_particles_;
    return {ids, index, s.force_.data(), s.torque_.data(), s.inv_mass_.data(), s.active_.data(), s.ext_force_ptr(), s.ext_torque_ptr(),
            kept ? s.family_contact_force_.data() : nullptr, kept ? s.family_contact_torque_.data() : nullptr,
            vec3<typename Sim::real>(s.cfg_.gravity), f, t};
  }
  // The family ids (created, all 0, on first use); a change takes effect as Simulator::set_families.
  static auto& families(Sim& s) {
    sim::families<Sim>::ensure(s);
    return s.family_;
  }
  static void families_changed(Sim& s, std::uint32_t highest) {
    s.highest_family_ = std::max(s.highest_family_, highest);
    sim::families<Sim>::ids_changed(s);
  }
};

template <class Sim>
class tracker {
 public:
  using real = typename Sim::real;
  template <class T>
  using buffer = typename Sim::template buffer<T>;

  tracker(Sim& s, std::vector<std::uint32_t> ids) : sim_(&s), ids_(std::move(ids)) {
    std::vector<std::uint32_t> sorted = ids_;
    std::sort(sorted.begin(), sorted.end());
    for (std::size_t k = 0; k < sorted.size(); ++k) {
      if (sorted[k] >= s.num_particles())
        throw std::invalid_argument("dem::track: particle id " + std::to_string(sorted[k]) + " does not exist (" +
                                    std::to_string(s.num_particles()) + " particles)");
      if (k && sorted[k] == sorted[k - 1])
        throw std::invalid_argument("dem::track: particle id " + std::to_string(sorted[k]) + " is tracked twice");
      const std::string removed = sim::flow_driver<Sim>::removed_note(s, sorted[k]);
      if (!removed.empty()) throw std::invalid_argument("dem::track: particle id " + std::to_string(sorted[k]) + " " + removed);
    }
    device_ids_.assign(ids_);
  }

  const std::vector<std::uint32_t>& ids() const { return ids_; }
  std::size_t size() const { return ids_.size(); }

  // A particle that has left (lost, or taken by an outlet) stays in storage until the next
  // contact-list build, then is compacted away: from then on its positions, velocities and
  // orientation read NaN, its family family::not_stored, its contact load zero, active() false.
  std::vector<vec3d> positions() {
    std::vector<typename Sim::position_type> p = gather(access::positions(*sim_));
    const std::vector<bool> in = stored();
    std::vector<vec3d> out(p.size(), nan3());
    for (std::size_t k = 0; k < p.size(); ++k)
      if (in[k]) out[k] = Sim::coord_space::to_world(access::coord(*sim_), p[k]);
    return out;
  }
  std::vector<vec3d> velocities() { return widen(gather(access::velocities(*sim_), nan_real3())); }
  std::vector<vec3d> angular_velocities() { return widen(gather(access::angular_velocities(*sim_), nan_real3())); }
  std::vector<quatd> orientations() {
    static_assert(Sim::policy::rigid, "dem::track::tracker::orientations is for rigid bodies");
    const real nan = std::numeric_limits<real>::quiet_NaN();
    const auto q = gather(access::orientations(*sim_), quat<real>{nan, nan, nan, nan});
    return std::vector<quatd>(q.begin(), q.end());
  }
  // Whether each tracked particle is still in the simulation (0 once it has left the domain).
  std::vector<bool> active() {
    const auto a = gather(access::active(*sim_));
    return std::vector<bool>(a.begin(), a.end());
  }
  // The family of each tracked particle, and a new one for each (family/: docs/families.md).
  std::vector<family::family_id> families() {
    if (ids_.empty()) return {};
    return gather(access::families(*sim_), family::not_stored);
  }
  void set_families(const std::vector<family::family_id>& f) {
    if (f.size() != ids_.size()) throw std::invalid_argument(count_error(f.size(), "family"));
    family::family_id highest = 0;
    for (std::size_t k = 0; k < f.size(); ++k) {
      family::check_id(f[k], ("dem::track: family of particle " + std::to_string(ids_[k])).c_str());
      highest = std::max(highest, f[k]);
    }
    require_active("family");
    if (ids_.empty()) return;
    scatter(access::families(*sim_), f);
    access::families_changed(*sim_, highest);
  }
  void set_family(family::family_id f) { set_families(std::vector<family::family_id>(ids_.size(), f)); }

  // The force and torque the contacts (with particles and boundaries) put on each tracked particle
  // at the last evaluation.
  std::vector<vec3d> contact_forces() { return contact_loads().first; }
  std::vector<vec3d> contact_torques() { return contact_loads().second; }

  void set_positions(const std::vector<vec3d>& x) {
    check(x, "position");
    std::vector<typename Sim::position_type> p(x.size());
    for (std::size_t k = 0; k < x.size(); ++k) {
      if (!access::domain(*sim_).contains(x[k]))
        throw std::invalid_argument("dem::track: position of particle " + std::to_string(ids_[k]) + " is outside the domain");
      p[k] = Sim::coord_space::from_world(access::coord(*sim_), x[k]);
    }
    scatter(access::positions(*sim_), p);
    if constexpr (Sim::has_carry)  // a new position starts without a rounding carry
      scatter(access::carries(*sim_), std::vector<typename Sim::carry_type>(x.size(), typename Sim::carry_type{}));
    access::positions_changed(*sim_);
  }
  void set_velocities(const std::vector<vec3d>& v) {
    check(v, "velocity");
    scatter(access::velocities(*sim_), narrow(v));
  }
  void set_angular_velocities(const std::vector<vec3d>& w) {
    check(w, "angular velocity");
    scatter(access::angular_velocities(*sim_), narrow(w));
  }
  void set_orientations(const std::vector<quatd>& q) {
    static_assert(Sim::policy::rigid, "dem::track::tracker::set_orientations is for rigid bodies");
    if (q.size() != ids_.size()) throw std::invalid_argument(count_error(q.size(), "orientation"));
    require_active("orientation");
    std::vector<quat<real>> r(q.size());
    for (std::size_t k = 0; k < q.size(); ++k) {
      const double n = std::sqrt(q[k].w * q[k].w + q[k].x * q[k].x + q[k].y * q[k].y + q[k].z * q[k].z);
      if (!(n > 0.5 && n < 2.0) || !std::isfinite(n))
        throw std::invalid_argument("dem::track: orientation of particle " + std::to_string(ids_[k]) + " is not a unit quaternion");
      r[k] = quat<real>(quatd{q[k].w / n, q[k].x / n, q[k].y / n, q[k].z / n});
    }
    scatter(access::orientations(*sim_), r);
    access::positions_changed(*sim_);  // the shape turned: contacts must be found again
  }

 private:
  using access = track::access<Sim>;

  template <class T>
  std::vector<T> gather(buffer<T>& from, const T& absent = T{}) {
    std::vector<T> out;
    if (ids_.empty()) return out;
    const std::uint32_t* index = access::index_of_ids(*sim_);
    buffer<T> tmp;
    tmp.resize(ids_.size());
    access::backend(*sim_).for_each(static_cast<index_t>(ids_.size()), detail::gather_kernel<T>{device_ids_.data(), index, from.data(), tmp.data(), absent});
    tmp.copy_to(out);
    return out;
  }
  // Whether each tracked id is still in storage.
  std::vector<bool> stored() {
    const std::uint32_t* index = access::index_of_ids(*sim_);
    std::vector<std::uint32_t> at(ids_.size());
    if (!ids_.empty()) {
      buffer<std::uint32_t> tmp;
      tmp.resize(ids_.size());
      access::backend(*sim_).for_each(static_cast<index_t>(ids_.size()), detail::where_kernel{device_ids_.data(), index, tmp.data()});
      tmp.copy_to(at);
    }
    std::vector<bool> out(at.size());
    for (std::size_t k = 0; k < at.size(); ++k) out[k] = at[k] != detail::not_stored;
    return out;
  }
  static vec3d nan3() {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    return {nan, nan, nan};
  }
  static vec3<real> nan_real3() {
    const real nan = std::numeric_limits<real>::quiet_NaN();
    return {nan, nan, nan};
  }
  template <class T>
  void scatter(buffer<T>& to, const std::vector<T>& values) {
    if (ids_.empty()) return;
    const std::uint32_t* index = access::index_of_ids(*sim_);
    buffer<T> tmp;
    tmp.assign(values);
    access::backend(*sim_).for_each(static_cast<index_t>(ids_.size()), detail::scatter_kernel<T>{device_ids_.data(), index, tmp.data(), to.data()});
  }
  std::pair<std::vector<vec3d>, std::vector<vec3d>> contact_loads() {
    if (ids_.empty()) return {};
    access::require_forces(*sim_);
    const std::uint32_t* index = access::index_of_ids(*sim_);
    buffer<vec3<real>> f, t;
    f.resize(ids_.size());
    t.resize(ids_.size());
    access::backend(*sim_).for_each(static_cast<index_t>(ids_.size()), access::contact_load_kernel(*sim_, device_ids_.data(), index, f.data(), t.data()));
    std::vector<vec3<real>> hf, ht;
    f.copy_to(hf);
    t.copy_to(ht);
    return {widen(hf), widen(ht)};
  }
  void check(const std::vector<vec3d>& v, const char* what) {
    if (v.size() != ids_.size()) throw std::invalid_argument(count_error(v.size(), what));
    for (std::size_t k = 0; k < v.size(); ++k)
      if (!all_finite(v[k])) throw std::invalid_argument(std::string("dem::track: ") + what + " of particle " + std::to_string(ids_[k]) + " is not finite");
    require_active(what);
  }
  // A particle that has left the domain is out of the simulation: its state is not set again.
  void require_active(const char* what) {
    const std::vector<bool> a = active();
    for (std::size_t k = 0; k < a.size(); ++k)
      if (!a[k]) {
        const std::string removed = sim::flow_driver<Sim>::removed_note(*sim_, ids_[k]);
        throw std::invalid_argument("dem::track: particle " + std::to_string(ids_[k]) + " " + (removed.empty() ? "has left the domain (lost)" : removed) +
                                    "; its " + what + " cannot be set");
      }
  }
  std::string count_error(std::size_t n, const char* what) const {
    return "dem::track: got " + std::to_string(n) + " values of " + what + " for " + std::to_string(ids_.size()) + " tracked particles";
  }
  static std::vector<vec3d> widen(const std::vector<vec3<real>>& v) { return std::vector<vec3d>(v.begin(), v.end()); }
  static std::vector<vec3<real>> narrow(const std::vector<vec3d>& v) {
    std::vector<vec3<real>> out(v.size());
    for (std::size_t k = 0; k < v.size(); ++k) out[k] = vec3<real>(v[k]);
    return out;
  }

  Sim* sim_;
  std::vector<std::uint32_t> ids_;
  buffer<std::uint32_t> device_ids_;
};

// A tracker on the particles (or rigid bodies) with these ids.
template <class Sim>
tracker<Sim> particles(Sim& s, std::vector<std::uint32_t> ids) {
  return tracker<Sim>(s, std::move(ids));
}

// A tracker on the active particles in family f now (the selection is fixed when it is made:
// particles that change family later stay tracked).
template <class Sim>
tracker<Sim> in_family(Sim& s, family::family_id f) {
  family::check_id(f, "dem::track::in_family");
  const std::vector<family::family_id> by_id = s.families();
  const std::vector<std::uint8_t> active = s.active();  // not those that left since the last build
  std::vector<std::uint32_t> ids;
  for (std::size_t k = 0; k < by_id.size(); ++k)
    if (by_id[k] == f && active[k]) ids.push_back(static_cast<std::uint32_t>(k));
  return tracker<Sim>(s, std::move(ids));
}

}  // namespace dem::track
