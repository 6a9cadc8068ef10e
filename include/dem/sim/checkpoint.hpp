#pragma once
// Checkpoints of a Simulator: its whole state in the format of io/checkpoint.hpp, such that N
// steps, a save, a load and M more steps give the same bits as N + M steps, on any backend (a
// checkpoint written on the host loads on a GPU and back: the buffers hold the same values).
//
// What is saved: the configuration, the materials with their pair overrides, the planes, the
// shapes of rigid bodies, every per-particle array in storage order (position and the position at
// the last contact-list build, velocities, the forces of the last evaluation that velocity
// Verlet's next half kick uses, ...), the contact list with its history, carry-over keys and
// incident lists, the per-(particle, plane) history, user properties, external forces (when set),
// time, step and counters.
// Nothing random is kept by the simulator yet (samplers take their seed explicitly).
// What is derived on load instead: the law's parameter table (from the materials), the device
// copies of planes and shapes, and per-step scratch.
//
// Loading checks everything it will later index with: the policy signature (a checkpoint loads
// only into the combination that wrote it; the error names the policy that differs), every
// record's element size and count, ids (a permutation), material, shape and plane indices, the
// contact list (indices in range, incident lists consistent) and finite positions, radii and
// masses. A file that passes gives a simulation that cannot read out of bounds; a file that does
// not is refused with the reason, and the simulator it was loaded into is left as it was.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "dem/boundary/checkpoint.hpp"
#include "dem/io/checkpoint.hpp"
#include "dem/material/material.hpp"
#include "dem/sim/config.hpp"
#include "dem/sim/contact_builder.hpp"
#include "dem/sim/particle_view.hpp"
#include "dem/sim/step_kernels.hpp"

namespace dem::sim {

template <class Sim>
struct state_io {
  using P = typename Sim::policy;

  // ---- the policy signature -------------------------------------------------------------------
  static std::string signature() {
    return std::string("shape=") + P::shape::name + ";force=" + P::force::name + ";integrator=" + P::integrator::name +
           ";precision=" + P::precision::name + ";coord=" + P::coord::name;
  }
  struct size_entry {
    const char* what;
    std::uint64_t bytes;
  };
  static std::vector<size_entry> sizes() {
    return {{"position type", sizeof(typename Sim::position_type)},
            {"rounding carry", Sim::has_carry ? sizeof(typename Sim::carry_type) : 0},
            {"real type", sizeof(typename Sim::real)},
            {"pair history", Sim::stores_history ? sizeof(typename Sim::pair_history) : 0},
            {"wall history", sizeof(typename Sim::plane_history)},
            {"force-law parameters", sizeof(typename Sim::law::params)},
            {"owner properties", Sim::law_traits::has_owner_wildcards ? sizeof(typename Sim::owner_wildcards_type) : 0},
            {"geometry properties", Sim::law_traits::has_geometry_wildcards ? sizeof(typename Sim::geometry_wildcards_type) : 0},
            {"shape data", P::rigid ? sizeof(typename Sim::shape_data) : 0}};
  }

  static void check_policy(const io::checkpoint_reader& r) {
    const std::map<std::string, std::string> theirs = fields(r.text("policy")), ours = fields(signature());
    static const std::pair<const char*, const char*> names[] = {
        {"shape", "shape"}, {"force", "force law"}, {"integrator", "integrator"}, {"precision", "precision"}, {"coord", "coordinate policy"}};
    for (const auto& [key, what] : names) {
      const auto it = theirs.find(key);
      const std::string t = it == theirs.end() ? "(none)" : it->second;
      if (t != ours.at(key))
        r.fail(std::string("written with ") + what + " '" + t + "', but this simulator's is '" + ours.at(key) +
               "' (a checkpoint loads only into the policy combination that wrote it: " + r.text("policy") + ")");
    }
    const std::vector<std::uint64_t> theirs_sizes = r.array<std::uint64_t>("policy.sizes");
    const std::vector<size_entry> ours_sizes = sizes();
    if (theirs_sizes.size() != ours_sizes.size()) r.fail("record 'policy.sizes' has " + std::to_string(theirs_sizes.size()) + " entries");
    for (std::size_t k = 0; k < ours_sizes.size(); ++k)
      if (theirs_sizes[k] != ours_sizes[k].bytes)
        r.fail(std::string("its ") + ours_sizes[k].what + " is " + std::to_string(theirs_sizes[k]) + " bytes, this simulator's " +
               std::to_string(ours_sizes[k].bytes) + " (same policy names, other types: a force law or shape changed since?)");
  }

  // ---- configuration and materials ------------------------------------------------------------
  static simulation_config read_config(const io::checkpoint_reader& r) {
    const std::vector<double> c = r.array<double>("config", 16);
    simulation_config cfg;
    cfg.domain = {{c[0], c[1], c[2]}, {c[3], c[4], c[5]}};
    cfg.gravity = {c[6], c[7], c[8]};
    cfg.dt = c[9];
    cfg.contact_margin = c[10];
    cfg.max_speed = c[11];
    cfg.position_resolution = c[12];
    cfg.allow_unstable_dt = c[13] != 0;
    cfg.allow_initial_overlap = c[14] != 0;
    cfg.boundary_margin = c[15];
    return cfg;  // checked by the Simulator's constructor
  }
  static std::vector<double> config_record(const simulation_config& c) {
    return {c.domain.lo.x, c.domain.lo.y, c.domain.lo.z, c.domain.hi.x, c.domain.hi.y, c.domain.hi.z, c.gravity.x, c.gravity.y,
            c.gravity.z,   c.dt,          c.contact_margin, c.max_speed, c.position_resolution, c.allow_unstable_dt ? 1.0 : 0.0,
            c.allow_initial_overlap ? 1.0 : 0.0, c.boundary_margin};
  }

  struct override_record {
    std::uint32_t a, b, set;  // set: bit k for field k of override_fields
    double value[10];
  };
  // The fields of a pair override in record order (const or not).
  template <class O>
  static auto override_fields(O& o) {
    return std::array{&o.restitution,      &o.friction,         &o.rolling_friction, &o.rolling_damping, &o.work_of_adhesion,
                      &o.cohesion_range,   &o.effective_youngs, &o.effective_shear,  &o.normal_stiffness, &o.tangential_stiffness_ratio};
  }
  static void write_materials(io::checkpoint_writer& w, const material_table& t) {
    w.value<std::uint64_t>("materials", t.size());
    for (std::size_t k = 0; k < t.size(); ++k) {
      const material& m = t[static_cast<material_id>(k)];
      w.text("material." + std::to_string(k) + ".name", m.name);
      w.array("material." + std::to_string(k) + ".values",
              std::vector<double>{m.density, m.youngs_modulus, m.poisson_ratio, m.restitution, m.friction, m.rolling_friction,
                                  m.rolling_damping, m.work_of_adhesion, m.cohesion_range, m.rigid ? 1.0 : 0.0});
      write_properties(w, "material." + std::to_string(k), m.properties);
    }
    std::vector<override_record> o;
    for (const auto& [key, v] : t.overrides()) {
      override_record rec{key.first, key.second, 0, {}};
      const auto f = override_fields(v);
      for (int k = 0; k < 10; ++k)
        if (f[k]->has_value()) {
          rec.set |= 1u << k;
          rec.value[k] = **f[k];
        }
      o.push_back(rec);
      write_properties(w, "material.override." + std::to_string(key.first) + "." + std::to_string(key.second), v.properties);
    }
    w.array("material.overrides", o);
  }
  // A custom law's named material properties (force/properties.hpp), only where some are set: the
  // names one per line, the values in the same order.
  static void write_properties(io::checkpoint_writer& w, const std::string& prefix, const std::map<std::string, double>& props) {
    if (props.empty()) return;
    std::string names;
    std::vector<double> values;
    for (const auto& [name, v] : props) {
      names += name + "\n";
      values.push_back(v);
    }
    w.text(prefix + ".property_names", names);
    w.array(prefix + ".property_values", values);
  }
  static std::map<std::string, double> read_properties(const io::checkpoint_reader& r, const std::string& prefix) {
    std::map<std::string, double> props;
    if (!r.has(prefix + ".property_names")) return props;
    const std::string names = r.text(prefix + ".property_names");
    std::vector<std::string> list;
    for (std::size_t at = 0; at < names.size();) {
      const std::size_t end = names.find('\n', at);
      if (end == std::string::npos) r.fail(prefix + ".property_names is not a list of lines");
      list.push_back(names.substr(at, end - at));
      at = end + 1;
    }
    const std::vector<double> values = r.array<double>(prefix + ".property_values", list.size());
    for (std::size_t k = 0; k < list.size(); ++k) props[list[k]] = values[k];
    return props;
  }
  // Through material_table::add and set_pair: the same checks as user input.
  static material_table read_materials(const io::checkpoint_reader& r) {
    material_table t;
    const auto count = r.value<std::uint64_t>("materials");
    if (count > 65535) r.fail(std::to_string(count) + " materials (at most 65535)");
    for (std::uint64_t k = 0; k < count; ++k) {
      material m;
      m.name = r.text("material." + std::to_string(k) + ".name");
      const std::vector<double> v = r.array<double>("material." + std::to_string(k) + ".values", 10);
      m.density = v[0], m.youngs_modulus = v[1], m.poisson_ratio = v[2], m.restitution = v[3], m.friction = v[4];
      m.rolling_friction = v[5], m.rolling_damping = v[6], m.work_of_adhesion = v[7], m.cohesion_range = v[8], m.rigid = v[9] != 0;
      m.properties = read_properties(r, "material." + std::to_string(k));
      guarded(r, [&] { t.add(m); });
    }
    for (const override_record& rec : r.array<override_record>("material.overrides")) {
      if (rec.a >= count || rec.b >= count) r.fail("a pair override names material " + std::to_string(std::max(rec.a, rec.b)));
      pair_override o;
      const auto f = override_fields(o);
      for (int k = 0; k < 10; ++k)
        if (rec.set & (1u << k)) *f[k] = rec.value[k];
      o.properties = read_properties(r, "material.override." + std::to_string(rec.a) + "." + std::to_string(rec.b));
      guarded(r, [&] { t.set_pair(static_cast<material_id>(rec.a), static_cast<material_id>(rec.b), o); });
    }
    return t;
  }

  // ---- the scalars ----------------------------------------------------------------------------
  struct counters {
    std::uint64_t num_particles, lost, num_contacts, old_contacts, steps, rebuilds;
    double time, r_max, max_range;
    std::uint32_t contacts_valid, prepared;
  };

  // ---- save -----------------------------------------------------------------------------------
  static void save(const Sim& s, const std::string& path) {
    io::checkpoint_writer w(path);
    w.text("policy", signature());
    std::vector<std::uint64_t> sz;
    for (const size_entry& e : sizes()) sz.push_back(e.bytes);
    w.array("policy.sizes", sz);
    w.text("backend", Sim::backend_type::name);  // informative: any backend loads it
    w.array("config", config_record(s.cfg_));
    write_materials(w, s.materials_);
    boundary::boundary_io<typename Sim::real, typename Sim::backend_type, typename Sim::plane_history>::save(w, s.walls_, s.contacts_valid_);
    if constexpr (P::rigid) {
      w.array("shapes", s.shapes_host_);
      w.array("shape.volume", s.shape_volume_);
      w.array("shape.contact_radius", s.shape_contact_radius_);
      w.array("shape.inertia", s.shape_inertia_);
      for (std::size_t k = 0; k < s.shape_names_.size(); ++k) w.text("shape." + std::to_string(k) + ".name", s.shape_names_[k]);
    }
    w.value("counters", counters{s.num_particles_, s.lost_, s.num_contacts_, s.old_contacts_, s.steps_, s.rebuilds_, s.time_, s.r_max_,
                                 s.max_range_, s.contacts_valid_ ? 1u : 0u, s.prepared_ ? 1u : 0u});
    w.array("status", s.status_.to_vector());
    visit(const_cast<Sim&>(s), [&w](const char* name, auto& buffer) { w.array(name, buffer.to_vector()); });
    if constexpr (Sim::stores_history) {  // each history entry's pair, by its ids
      std::vector<std::uint64_t> key;
      std::vector<std::uint32_t> index;
      history_keys(s, key, index);
      w.array("contact_key", key);
      w.array("contact_index", index);
    }
    if (s.ext_force_.size()) {  // external forces, in storage order (absent when none are set)
      w.array("external_force", s.ext_force_.to_vector());
      w.array("external_torque", s.ext_torque_.to_vector());
    }
    // Families: the ids (storage order), the contact matrix and the boundaries' families. Motions,
    // added loads and predicates are code: they are set again after a load (docs/families.md).
    if (s.family_.size()) w.array("family", s.family_.to_vector());
    if (!s.families_.mask_host().empty()) w.array("family.mask", s.families_.mask_host());
    if (!s.families_.boundary_host().empty()) w.array("family.boundary", s.families_.boundary_host());
    if (s.families_.any_margin()) w.array("family.margin", s.families_.margin_host());  // extra detection margins (m)
    // Of the inactive particles, how many outlets took (inlets and outlets themselves are code).
    if (s.removed_) w.value("flow.removed", static_cast<std::uint64_t>(s.removed_));
    // Ids issued, when storage was compacted (more ids than stored particles; absent: as many).
    if (s.num_ids_ != s.num_particles_) w.value("storage.ids", static_cast<std::uint64_t>(s.num_ids_));
    if constexpr (P::deformable) {
      w.value("deform.limit", s.deform_limit_);
      w.value("deform.interval", static_cast<std::uint64_t>(s.deform_interval_));
      w.value("deform.growth", s.deform_growth_);
      w.value("deform.redone", static_cast<std::uint64_t>(s.deform_redone_));
    }
    w.finish();
  }

  // Every buffer a checkpoint holds, in one list for save and load: per particle, then the contact
  // list (only while it is valid: an invalid list is rebuilt before it is read, except the keys and
  // history it carries over).
  template <class F>
  static void visit(Sim& s, F&& f) {
    f("pos", s.pos_);
    f("pos_ref", s.pos_ref_);
    if constexpr (Sim::has_carry) f("carry", s.carry_);
    f("vel", s.vel_);
    f("omega", s.omega_);
    f("force", s.force_);
    f("torque", s.torque_);
    f("radius", s.radius_);
    f("inv_mass", s.inv_mass_);
    if constexpr (P::rigid) f("inv_inertia", s.inv_inertia_);  // spheres derive theirs
    f("material", s.material_);
    f("id", s.id_);
    f("active", s.active_);
    if constexpr (P::rigid) {
      f("orientation", s.orientation_);
      f("inertia", s.inertia_);
      f("shape", s.shape_);
    }
    if constexpr (P::deformable) {
      f("deform.radius", s.deformed_);
      f("deform.radius_ref", s.deformed_ref_);
      f("deform.iterations", s.deform_iterations_);
    }
    if constexpr (Sim::law_traits::has_owner_wildcards) f("owner_wildcards", s.owner_wc_);
    if constexpr (Sim::law_traits::has_geometry_wildcards) f("geometry_wildcards", s.geometry_wc_);
    if constexpr (Sim::stores_history) f("history", s.history_);
    if (s.contacts_valid_) {
      f("pair_a", s.pair_a_);
      f("pair_b", s.pair_b_);
      f("incident_entry", s.incident_entry_);
      f("incident_offset", s.incident_offset_);
    }
  }

  // ---- load -----------------------------------------------------------------------------------
  // Into `s`, freshly built from read_config(r) (Simulator::from_checkpoint).
  static void load(Sim& s, const io::checkpoint_reader& r) {
    check_policy(r);
    s.materials_ = read_materials(r);
    std::size_t shapes = 0;
    if constexpr (P::rigid) {
      s.shapes_host_ = r.array<typename Sim::shape_data>("shapes");
      shapes = s.shapes_host_.size();
      s.shape_volume_ = r.array<double>("shape.volume", shapes);
      s.shape_contact_radius_ = r.array<double>("shape.contact_radius", shapes);
      s.shape_inertia_ = r.array<vec3d>("shape.inertia", shapes);
      s.shape_names_.clear();
      for (std::size_t k = 0; k < shapes; ++k) {
        s.shape_names_.push_back(r.text("shape." + std::to_string(k) + ".name"));
        const std::string bad = P::shape::check_data(s.shapes_host_[k]);
        if (!bad.empty()) r.fail("shape " + std::to_string(k) + " ('" + s.shape_names_.back() + "'): " + bad);
      }
      s.shapes_.assign(s.shapes_host_);
    }

    const counters c = r.value<counters>("counters");
    if (c.num_particles > Sim::max_particles) r.fail(std::to_string(c.num_particles) + " particles, more than this simulator holds");
    if (c.num_contacts > std::uint64_t(0x7fffffff) || c.old_contacts > std::uint64_t(0x7fffffff))
      r.fail(std::to_string(std::max(c.num_contacts, c.old_contacts)) + " contacts");
    const std::uint64_t ids = r.has("storage.ids") ? r.value<std::uint64_t>("storage.ids") : c.num_particles;
    if (ids < c.num_particles || ids >= 0xffffffffull) r.fail(std::to_string(ids) + " ids issued for " + std::to_string(c.num_particles) + " stored particles");
    if (c.lost > ids || c.lost < ids - c.num_particles) r.fail("the lost-particle count does not fit the particle counts");
    const std::uint64_t n = c.num_particles, nc = c.num_contacts;
    s.num_particles_ = static_cast<std::uint32_t>(n);
    s.num_ids_ = static_cast<std::uint32_t>(ids);
    s.lost_ = static_cast<std::uint32_t>(c.lost);
    s.num_contacts_ = static_cast<std::uint32_t>(nc);
    s.old_contacts_ = static_cast<std::uint32_t>(c.old_contacts);
    s.steps_ = c.steps;
    s.rebuilds_ = c.rebuilds;
    s.time_ = c.time;
    s.r_max_ = c.r_max;
    s.max_range_ = c.max_range;
    s.contacts_valid_ = c.contacts_valid != 0;
    s.prepared_ = c.prepared != 0;
    if (!std::isfinite(c.time) || !(c.r_max > 0) || !std::isfinite(c.r_max) || !(c.max_range >= 0) || !std::isfinite(c.max_range))
      r.fail("time, largest radius or law range is not valid");
    // A build leaves as many histories as listed pairs; the pairs of an invalid list are loaded only
    // with a history (made again from its keys), so without one there is no list to count.
    if (Sim::stores_history && s.old_contacts_ != s.num_contacts_) r.fail("inconsistent contact counts");
    if (!Sim::stores_history && !s.contacts_valid_) s.num_contacts_ = 0;

    // Buffers, each with the count it must have.
    boundary::boundary_io<typename Sim::real, typename Sim::backend_type, typename Sim::plane_history>::load(r, s.walls_, n, s.materials_.size());
    auto expected = [&](const std::string& name) -> std::size_t {
      if (name == "history") return s.old_contacts_;
      if (name == "pair_a" || name == "pair_b") return nc;
      if (name == "incident_entry") return 2 * nc;
      if (name == "incident_offset") return n + 1;
      return n;
    };
    visit(s, [&](const char* name, auto& buffer) {
      using T = typename std::decay_t<decltype(buffer.to_vector())>::value_type;
      buffer.assign(r.array<T>(name, expected(name)));
    });
    {
      std::vector<std::uint32_t> st = r.array<std::uint32_t>("status", status_words);
      st[deform_failure] = no_particle;  // a failed solve stops the run: none was pending at a save
      s.status_.assign(st);
    }
    if constexpr (P::deformable) {
      s.deform_limit_ = r.value<double>("deform.limit");
      const auto interval = r.value<std::uint64_t>("deform.interval");
      if (interval == 0 || interval > 0xFFFFFFFFu) r.fail("the deformation interval is " + std::to_string(interval));
      s.deform_interval_ = static_cast<std::uint32_t>(interval);
      s.deform_growth_ = r.value<double>("deform.growth");
      s.deform_redone_ = r.value<std::uint64_t>("deform.redone");
      if (!(s.deform_limit_ > 1) || !std::isfinite(s.deform_limit_) || !(s.deform_growth_ >= 0) || !std::isfinite(s.deform_growth_))
        r.fail("the deformation limit or growth is not valid");
      const auto r0 = s.radius_.to_vector(), rd = s.deformed_.to_vector(), rr = s.deformed_ref_.to_vector();
      for (std::size_t i = 0; i < r0.size(); ++i)
        if (!(rd[i] >= r0[i]) || !(static_cast<double>(rd[i]) < s.deform_limit_ * static_cast<double>(r0[i])) || !(rr[i] >= r0[i]) ||
            !(static_cast<double>(rr[i]) < s.deform_limit_ * static_cast<double>(r0[i])))
          r.fail("a deformed radius is not between the radius and the limit");
    }
    if (r.has("external_force")) {
      s.ext_force_.assign(r.array<vec3<typename Sim::real>>("external_force", n));
      s.ext_torque_.assign(r.array<vec3<typename Sim::real>>("external_torque", n));
      for (const auto* b : {&s.ext_force_, &s.ext_torque_})
        for (const auto& v : b->to_vector())
          if (!all_finite(v)) r.fail("an external force or torque is not finite");
    }
    if (r.has("family")) {
      const std::vector<std::uint32_t> f = r.array<std::uint32_t>("family", n);
      for (std::uint32_t v : f) {
        if (v >= family::max_families) r.fail("a particle has family " + std::to_string(v));
        s.highest_family_ = std::max(s.highest_family_, v);
      }
      s.family_.assign(f);
    }
    if (r.has("family.mask")) s.families_.set_mask_host(r.array<std::uint64_t>("family.mask", std::size_t(family::max_families) * family::mask_words));
    if (r.has("family.boundary")) {
      const std::vector<std::uint32_t> b = r.array<std::uint32_t>("family.boundary");
      if (b.size() > std::max<std::size_t>(s.walls_.size(), 1)) r.fail("more boundary families than boundaries");
      for (std::uint32_t v : b)
        if (v >= family::max_families) r.fail("a boundary has family " + std::to_string(v));
      s.families_.set_boundary_host(b);
    }
    if (r.has("family.margin")) {
      const std::vector<double> m = r.array<double>("family.margin");
      if (m.size() > family::max_families) r.fail("more family margins than families");
      for (double v : m)
        if (!(v >= 0) || !std::isfinite(v)) r.fail("a family's extra margin is " + std::to_string(v) + " m");
      s.families_.set_margin_host(m);
    }
    s.family_changes_seen_ = s.status_.to_vector()[family_changes];
    if (r.has("flow.removed")) {
      const auto removed = r.value<std::uint64_t>("flow.removed");
      if (removed > s.lost_) r.fail("more particles removed by outlets than inactive");
      s.removed_ = static_cast<std::uint32_t>(removed);
    }
    validate(s, r, shapes);
    if constexpr (Sim::stores_history) load_history_keys(s, r);

    // Derived: the parameter table (the same materials give the same table and range), scratch
    // the kernels write before they read.
    s.build_params();
    if (s.contacts_valid_) {
      s.cforce_.resize(nc);
      s.ctorque_.resize(Sim::torques_per_pair * nc);
      if constexpr (Sim::law_traits::writes_owner_wildcards) s.owner_increment_.resize(2 * nc);
      if constexpr (Sim::law_traits::writes_geometry_wildcards) s.geometry_increment_.resize(2 * nc);
    }
    contact_builder<Sim>::index_cells(s);  // the build's cells, for the local check (sim/local_validity.hpp)
  }

 private:
  // The pairs of the history's entries, named by ids: sorted keys (id_a << 32 | id_b) and the entry
  // of each. In memory the next build finds them through the list they were built with
  // (contact::carry_history_by_partner_kernel); a file names them independently of storage order.
  static void history_keys(const Sim& s, std::vector<std::uint64_t>& key, std::vector<std::uint32_t>& index) {
    const std::size_t m = s.old_contacts_;
    const auto a = s.pair_a_.to_vector(), b = s.pair_b_.to_vector(), id = s.id_.to_vector();
    std::vector<std::pair<std::uint64_t, std::uint32_t>> k(m);
    for (std::size_t c = 0; c < m; ++c) k[c] = {contact::pair_key(id[a[c]], id[b[c]]), static_cast<std::uint32_t>(c)};
    std::sort(k.begin(), k.end());
    key.resize(m);
    index.resize(m);
    for (std::size_t j = 0; j < m; ++j) std::tie(key[j], index[j]) = k[j];
  }

  // The history's keys read back. A valid list already names the pairs; otherwise the previous list
  // the next build carries history from is made again from the keys: pairs as storage indices and
  // their incident lists (each particle's entries in partner-id order), as a build leaves them.
  static void load_history_keys(Sim& s, const io::checkpoint_reader& r) {
    const std::size_t m = s.old_contacts_, n = s.num_particles_;
    const auto key = r.array<std::uint64_t>("contact_key", m);
    const auto index = r.array<std::uint32_t>("contact_index", m);
    std::vector<char> seen(m, 0);
    for (std::uint32_t k : index) {
      if (k >= m || seen[k]) r.fail("a carried-over contact index is out of range or repeated");
      seen[k] = 1;
    }
    if (s.contacts_valid_ || m == 0) return;
    const auto id = s.id_.to_vector();  // distinct and below num_ids_ (validate)
    std::vector<std::uint32_t> at(s.num_ids_, 0xffffffffu);
    for (std::size_t i = 0; i < n; ++i) at[id[i]] = static_cast<std::uint32_t>(i);
    std::vector<std::uint32_t> pa(m), pb(m);
    std::vector<std::pair<std::uint64_t, std::uint32_t>> entries(2 * m);  // (particle << 32 | partner id, entry)
    for (std::size_t j = 0; j < m; ++j) {
      const auto ida = static_cast<std::uint32_t>(key[j] >> 32), idb = static_cast<std::uint32_t>(key[j]);
      if (ida >= idb || idb >= s.num_ids_ || at[ida] == 0xffffffffu || at[idb] == 0xffffffffu)
        r.fail("carried-over contact " + std::to_string(j) + " does not name two stored particles with A the lower id");
      const std::uint32_t c = index[j];
      pa[c] = at[ida];
      pb[c] = at[idb];
      entries[2 * c] = {(std::uint64_t(pa[c]) << 32) | idb, 2 * c};
      entries[2 * c + 1] = {(std::uint64_t(pb[c]) << 32) | ida, 2 * c + 1};
    }
    std::sort(entries.begin(), entries.end());
    std::vector<std::uint32_t> entry(2 * m), offset(n + 1, 0);
    for (std::size_t k = 0; k < 2 * m; ++k) {
      entry[k] = entries[k].second;
      ++offset[(entries[k].first >> 32) + 1];
    }
    for (std::size_t i = 0; i < n; ++i) offset[i + 1] += offset[i];
    s.pair_a_.assign(pa);
    s.pair_b_.assign(pb);
    s.incident_entry_.assign(entry);
    s.incident_offset_.assign(offset);
  }

  // Every value a kernel will index with, and what the grid needs finite.
  static void validate(const Sim& s, const io::checkpoint_reader& r, std::size_t shapes) {
    const std::size_t n = s.num_particles_, nc = s.num_contacts_, materials = s.materials_.size();
    const std::vector<std::uint32_t> id = s.id_.to_vector(), active = s.active_.to_vector(), material = s.material_.to_vector();
    std::vector<char> seen(s.num_ids_, 0);
    std::size_t inactive = s.num_ids_ - n;  // compacted away: inactive too
    for (std::size_t i = 0; i < n; ++i) {
      if (id[i] >= s.num_ids_ || seen[id[i]])
        r.fail("particle ids are not distinct ids below " + std::to_string(s.num_ids_) + " (entry " + std::to_string(i) + ")");
      seen[id[i]] = 1;
      if (active[i] > 1) r.fail("the active flag of particle " + std::to_string(id[i]) + " is " + std::to_string(active[i]));
      inactive += active[i] == 0;
      if (material[i] >= materials) r.fail("particle " + std::to_string(id[i]) + " has material " + std::to_string(material[i]));
    }
    const std::vector<std::uint32_t> status = s.status_.to_vector();
    if (inactive != s.lost_ || status[lost_count] != s.lost_ || status[bad_particle] != no_particle)
      r.fail("the lost-particle counts disagree (" + std::to_string(inactive) + " inactive, " + std::to_string(s.lost_) + " counted)");
    const auto radius = s.radius_.to_vector(), inv_mass = s.inv_mass_.to_vector();
    std::vector<typename Sim::real> inv_inertia = s.inv_inertia_.to_vector();
    if constexpr (!P::rigid)  // spheres derive it (sim::inverse_inertia): checked as the kernels will compute it
      for (std::size_t i = 0; i < n; ++i) inv_inertia.push_back(sim::sphere_inverse_inertia(inv_mass[i], radius[i]));
    const auto pos = s.pos_.to_vector(), pos_ref = s.pos_ref_.to_vector();
    double r_max = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const double ri = static_cast<double>(radius[i]);
      if (!(ri > 0) || !std::isfinite(ri) || !(inv_mass[i] > 0) || !std::isfinite(static_cast<double>(inv_mass[i])) || !(inv_inertia[i] > 0) ||
          !std::isfinite(static_cast<double>(inv_inertia[i])))
        r.fail("particle " + std::to_string(id[i]) + " has a radius, mass or inertia that is not positive and finite");
      r_max = std::max(r_max, ri);
      if (active[i] && (!all_finite(Sim::coord_space::to_world(s.coord_, pos[i])) || !all_finite(Sim::coord_space::to_world(s.coord_, pos_ref[i]))))
        r.fail("particle " + std::to_string(id[i]) + " has a position that is not finite");
    }
    const auto vel = s.vel_.to_vector(), omega = s.omega_.to_vector(), force = s.force_.to_vector(), torque = s.torque_.to_vector();
    for (std::size_t i = 0; i < n; ++i)
      if (!all_finite(vec3d(vel[i])) || !all_finite(vec3d(omega[i])) || !all_finite(vec3d(force[i])) || !all_finite(vec3d(torque[i])))
        r.fail("particle " + std::to_string(id[i]) + " has a velocity, angular velocity, force or torque that is not finite");
    if (r_max > s.r_max_ * (1 + 1e-6)) r.fail("a radius is larger than the recorded largest radius");  // (radii are rounded to the real type)
    if constexpr (P::rigid) {
      for (std::uint32_t k : s.shape_.to_vector())
        if (k >= shapes) r.fail("a body has shape " + std::to_string(k) + " (" + std::to_string(shapes) + " shapes)");
      for (const auto& q : s.orientation_.to_vector())
        if (!std::isfinite(static_cast<double>(norm2(q)))) r.fail("a body's orientation is not finite");
    }
    if (!s.contacts_valid_) return;
    const auto a = s.pair_a_.to_vector(), b = s.pair_b_.to_vector();
    for (std::size_t c = 0; c < nc; ++c)
      if (a[c] >= n || b[c] >= n || a[c] == b[c] || !active[a[c]] || !active[b[c]] || id[a[c]] >= id[b[c]])
        r.fail("listed pair " + std::to_string(c) + " is not a pair of two active particles with A the lower id");
    const auto offset = s.incident_offset_.to_vector(), entry = s.incident_entry_.to_vector();
    if (offset[0] != 0 || offset[n] != 2 * nc) r.fail("the incident offsets do not cover the incident entries");
    for (std::size_t p = 0; p < n; ++p)
      if (offset[p] > offset[p + 1]) r.fail("the incident offsets are not sorted");
    for (std::size_t p = 0; p < n; ++p) {
      for (std::uint32_t k = offset[p]; k < offset[p + 1]; ++k) {
        const std::uint32_t e = entry[k];
        if (e >= 2 * nc || ((e & 1u) ? b[e >> 1] : a[e >> 1]) != p)
          r.fail("incident entry " + std::to_string(k) + " does not belong to particle " + std::to_string(p));
        // In partner-id order: the gather's summation order, searched by the history carry.
        const auto partner = [&](std::uint32_t x) { return id[contact::partner_of_entry(x, a.data(), b.data())]; };
        if (k > offset[p] && !(partner(entry[k - 1]) < partner(e)))
          r.fail("incident entry " + std::to_string(k) + " of particle " + std::to_string(p) + " is not in partner-id order");
      }
    }
  }

  static std::map<std::string, std::string> fields(const std::string& sig) {
    std::map<std::string, std::string> m;
    std::istringstream in(sig);
    std::string item;
    while (std::getline(in, item, ';')) {
      const auto eq = item.find('=');
      if (eq != std::string::npos) m[item.substr(0, eq)] = item.substr(eq + 1);
    }
    return m;
  }
  template <class F>
  static void guarded(const io::checkpoint_reader& r, F&& f) {
    try {
      f();
    } catch (const std::invalid_argument& e) {
      r.fail(e.what());
    }
  }
};

}  // namespace dem::sim
