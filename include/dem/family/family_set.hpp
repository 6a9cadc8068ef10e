#pragma once
// The simulator's family table (host side) and its device copies: per family a motion, an added
// acceleration and force; the contact matrix; each boundary's family. The per-particle family ids
// live with the other particle arrays in the Simulator (sim/families.hpp manages them).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "dem/family/motion.hpp"
#include "dem/family/rule.hpp"

namespace dem::family {

inline void check_id(family_id f, const char* what) {
  if (f >= max_families)
    throw std::invalid_argument(std::string("dem: ") + what + ": family " + std::to_string(f) + " does not exist (families are 0 .. " +
                                std::to_string(max_families - 1) + ")");
}

template <class Real, class Backend>
class family_set {
 public:
  template <class T>
  using buffer = typename Backend::template buffer<T>;

  // ---- rules ------------------------------------------------------------------------------------
  void set_motion(family_id f, motion_entry m) {
    entry& e = grow(f);
    e.motion = std::move(m);
  }
  void set_acceleration(family_id f, const vec3d& a) { grow(f).acceleration = a; }
  void set_force(family_id f, const vec3d& force) { grow(f).force = force; }
  // Whether any family has a rule (a prescribed component or an added load): the particle kernel
  // reads the family ids only then.
  bool has_rules() const {
    for (const entry& e : entries_)
      if (e.motion.linear || e.motion.angular || !(e.acceleration == vec3d{0, 0, 0}) || !(e.force == vec3d{0, 0, 0})) return true;
    return false;
  }
  bool prescribes(family_id f) const { return f < entries_.size() && (entries_[f].motion.linear || entries_[f].motion.angular); }
  const vec3d& acceleration(family_id f) const { return f < entries_.size() ? entries_[f].acceleration : zero_; }
  const vec3d& force(family_id f) const { return f < entries_.size() ? entries_[f].force : zero_; }

  // The device rule table for the interval [t0, t1] the integrator drifts through next, covering
  // families 0 .. highest (every id a particle can hold); uploaded only when it changed.
  const rule<Real>* rules(double t0, double t1, family_id highest) {
    host_rules_.assign(std::size_t(highest) + 1, rule<Real>{});
    for (std::size_t f = 0; f < entries_.size() && f <= highest; ++f) {
      const entry& e = entries_[f];
      rule<Real>& r = host_rules_[f];
      r.linear = e.motion.linear;
      r.angular = e.motion.angular;
      vec3d v, w;
      e.motion.mean(t0, t1, v, w);
      if (!all_finite(v) || !all_finite(w))
        throw std::invalid_argument("dem: the prescribed motion of family " + std::to_string(f) + " gives a velocity that is not finite between t = " +
                                    std::to_string(t0) + " and " + std::to_string(t1) + " s");
      r.velocity = vec3<Real>(v);
      r.omega = vec3<Real>(w);
      r.acceleration = vec3<Real>(e.acceleration);
      r.force = vec3<Real>(e.force);
      r.adds = !(e.acceleration == vec3d{0, 0, 0}) || !(e.force == vec3d{0, 0, 0});
    }
    if (host_rules_.size() != uploaded_.size() ||
        std::memcmp(host_rules_.data(), uploaded_.data(), host_rules_.size() * sizeof(rule<Real>)) != 0) {
      rules_.assign(host_rules_);
      uploaded_ = host_rules_;
    }
    return rules_.data();
  }

  // ---- the contact matrix -----------------------------------------------------------------------
  void set_contacts(family_id a, family_id b, bool enabled) {
    if (mask_host_.empty()) mask_host_.assign(std::size_t(max_families) * mask_words, 0);
    auto bit = [&](family_id r, family_id c) -> std::uint64_t& { return mask_host_[r * mask_words + (c >> 6)]; };
    const std::uint64_t ab = std::uint64_t{1} << (b & 63u), ba = std::uint64_t{1} << (a & 63u);
    if (enabled) {
      bit(a, b) &= ~ab;
      bit(b, a) &= ~ba;
    } else {
      bit(a, b) |= ab;
      bit(b, a) |= ba;
    }
    any_disabled_ = std::any_of(mask_host_.begin(), mask_host_.end(), [](std::uint64_t w) { return w != 0; });
    mask_.assign(mask_host_);
  }
  bool contacts_enabled(family_id a, family_id b) const { return mask_host_.empty() || !disabled(mask_host_.data(), a, b); }
  bool any_disabled() const { return any_disabled_; }
  const std::uint64_t* mask() const { return any_disabled_ ? mask_.data() : nullptr; }
  const std::vector<std::uint64_t>& mask_host() const { return mask_host_; }
  void set_mask_host(const std::vector<std::uint64_t>& m) {
    mask_host_ = m;
    any_disabled_ = std::any_of(mask_host_.begin(), mask_host_.end(), [](std::uint64_t w) { return w != 0; });
    mask_.assign(mask_host_);
  }

  // ---- extra detection margins -------------------------------------------------------------------
  // Per family, added to its particles' radii in contact detection (Simulator::set_family_margin).
  void set_margin(family_id f, double extra) {
    if (margin_host_.size() <= f) margin_host_.resize(std::size_t(f) + 1, 0.0);
    margin_host_[f] = extra;
    margins_changed();
  }
  double margin(family_id f) const { return f < margin_host_.size() ? margin_host_[f] : 0.0; }
  double max_margin() const { return max_margin_; }
  bool any_margin() const { return max_margin_ > 0; }
  const std::vector<double>& margin_host() const { return margin_host_; }
  void set_margin_host(const std::vector<double>& m) {
    margin_host_ = m;
    margins_changed();
  }
  // The device table of margins for families 0 .. highest, uploaded when the margins changed or
  // a higher family id appeared (a particle can hold any id up to `highest`).
  const Real* margins(family_id highest) {
    const std::size_t size = std::size_t(highest) + 1;
    if (margins_stale_ || margins_.size() < size) {
      std::vector<Real> table(std::max(size, margin_host_.size()), Real(0));
      for (std::size_t f = 0; f < margin_host_.size(); ++f) table[f] = static_cast<Real>(margin_host_[f]);
      margins_.assign(table);
      margins_stale_ = false;
    }
    return margins_.data();
  }

  // ---- boundaries' families ----------------------------------------------------------------------
  void set_boundary_family(std::uint32_t b, family_id f, std::uint32_t num_boundaries) {
    boundary_host_.resize(num_boundaries, 0);
    boundary_host_[b] = f;
    boundary_.assign(boundary_host_);
  }
  family_id boundary_family(std::uint32_t b) const { return b < boundary_host_.size() ? boundary_host_[b] : 0; }
  // Per boundary (at least num_boundaries entries; those never set are family 0).
  const std::uint32_t* boundary_families(std::uint32_t num_boundaries) {
    if (boundary_host_.size() < num_boundaries || boundary_.size() < std::max<std::size_t>(num_boundaries, 1)) {
      boundary_host_.resize(std::max<std::size_t>(num_boundaries, 1), 0);
      boundary_.assign(boundary_host_);
    }
    return boundary_.data();
  }
  const std::vector<std::uint32_t>& boundary_host() const { return boundary_host_; }
  void set_boundary_host(const std::vector<std::uint32_t>& b) {
    boundary_host_ = b;
    boundary_.assign(boundary_host_);
  }

  // The highest family id any rule, contact setting or boundary names (the particle ids are
  // tracked by the simulator).
  family_id highest_named() const {
    family_id h = entries_.empty() ? 0 : static_cast<family_id>(entries_.size() - 1);
    for (family_id f : boundary_host_) h = std::max(h, f);
    if (!margin_host_.empty()) h = std::max(h, static_cast<family_id>(margin_host_.size() - 1));
    return h;
  }

 private:
  struct entry {
    motion_entry motion;
    vec3d acceleration{0, 0, 0}, force{0, 0, 0};
  };
  void margins_changed() {
    max_margin_ = margin_host_.empty() ? 0.0 : *std::max_element(margin_host_.begin(), margin_host_.end());
    margins_stale_ = true;  // re-uploaded at the next use
  }
  entry& grow(family_id f) {
    if (entries_.size() <= f) entries_.resize(std::size_t(f) + 1);
    return entries_[f];
  }

  std::vector<entry> entries_;
  std::vector<rule<Real>> host_rules_, uploaded_;
  buffer<rule<Real>> rules_;
  std::vector<std::uint64_t> mask_host_;
  buffer<std::uint64_t> mask_;
  bool any_disabled_ = false;
  std::vector<std::uint32_t> boundary_host_;
  buffer<std::uint32_t> boundary_;
  std::vector<double> margin_host_;
  double max_margin_ = 0;
  bool margins_stale_ = true;
  buffer<Real> margins_;
  vec3d zero_{0, 0, 0};
};

}  // namespace dem::family
