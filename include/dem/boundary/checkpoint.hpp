#pragma once
// Boundaries in a checkpoint (sim/checkpoint.hpp): every boundary's definition and where its motion
// is (pose, servo travel and phase), the elements and mesh hierarchies, and the wall list with its
// histories and last reactions. A user motion (a function) cannot be written: a boundary that had
// one comes back with its pose, and the next step asks for set_motion. Loading checks every index
// a kernel follows (element and boundary indices, hierarchy nodes and items, wall entries).
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "dem/boundary/boundary_set.hpp"
#include "dem/io/checkpoint.hpp"

namespace dem::boundary {

struct boundary_record {
  std::uint32_t material, first_element, element_count, plane, has_axis, motion, user, pad;
  vec3d origin0, box_lo, box_hi, axis_point, axis_dir;
  constant_velocity velocity_motion;
  vibration vibration_motion;
  servo servo_motion;
  servo_state servo_now;
  rigid_motion now, at_build, base;
};

template <class Real, class Backend, class Histories>
struct boundary_io {
  using set = boundary_set<Real, Backend, Histories>;

  static void save(io::checkpoint_writer& w, const set& s, bool list_valid) {
    std::vector<boundary_record> recs;
    for (std::size_t b = 0; b < s.boundaries_.size(); ++b) {
      const description& d = s.boundaries_[b];
      recs.push_back({d.material, d.first_element, d.element_count, d.plane, d.has_axis, static_cast<std::uint32_t>(d.motion),
                      d.user_motion ? 1u : 0u, 0, d.origin0, d.box_lo, d.box_hi, d.axis_point, d.axis_dir, d.velocity_motion,
                      d.vibration_motion, d.servo_motion, d.servo_now, d.now, d.at_build, d.base});
      if (d.motion == motion_kind::free_body) {  // beside the fixed record (older checkpoints have none)
        w.value("boundary." + std::to_string(b) + ".free_body", d.free_motion);
        w.value("boundary." + std::to_string(b) + ".free_body_state", d.free_now);
      }
      w.text("boundary." + std::to_string(b) + ".name", d.name);
      w.text("boundary." + std::to_string(b) + ".kind", d.kind);
    }
    w.array("boundaries", recs);
    w.array("boundary.elements", s.elements_host_);
    w.array("boundary.frames", s.frames_host_);
    w.array("boundary.analytic", s.analytic_host_);
    w.array("boundary.meshes", s.meshes_host_);
    w.array("boundary.nodes", s.nodes_host_);
    w.array("boundary.items", s.items_host_);
    w.array("boundary.ids", std::vector<std::uint32_t>{s.next_vertex_id_, s.next_edge_id_, s.entries_, s.old_entries_, list_valid ? 1u : 0u});
    // The carry-over keys and histories always (an invalid list is rebuilt from them); the list
    // itself and its reactions while it is valid.
    w.array("wall.key", s.key_.to_vector());
    w.array("wall.index", s.index_.to_vector());
    w.array("wall.history", s.history_.to_vector());
    if (list_valid) {
      w.array("wall.offset", s.offset_.to_vector());
      w.array("wall.element", s.entry_element_.to_vector());
      w.array("wall.force", s.force_.to_vector());
      w.array("wall.torque", s.torque_.to_vector());
    }
  }

  // Into a fresh set; `particles`: the simulator's particle count; `materials`: how many exist.
  static void load(const io::checkpoint_reader& r, set& s, std::size_t particles, std::size_t materials) {
    const auto recs = r.array<boundary_record>("boundaries");
    s.elements_host_ = r.array<element<Real>>("boundary.elements");
    s.frames_host_ = r.array<frame<Real>>("boundary.frames", recs.size());
    s.analytic_host_ = r.array<std::uint32_t>("boundary.analytic");
    s.meshes_host_ = r.array<mesh_ref>("boundary.meshes");
    s.nodes_host_ = r.array<bvh_node<Real>>("boundary.nodes");
    s.items_host_ = r.array<std::uint32_t>("boundary.items");
    const auto ids = r.array<std::uint32_t>("boundary.ids", 5);
    s.next_vertex_id_ = ids[0];
    s.next_edge_id_ = ids[1];
    const std::size_t ne = ids[2], old = ids[3];
    const bool valid = ids[4] != 0;
    const std::size_t nb = recs.size(), nel = s.elements_host_.size();
    s.boundaries_.clear();
    for (std::size_t b = 0; b < nb; ++b) {
      const boundary_record& c = recs[b];
      const std::string who = "boundary " + std::to_string(b);
      if (c.material >= materials) r.fail(who + " has material " + std::to_string(c.material));
      if (std::uint64_t(c.first_element) + c.element_count > nel) r.fail(who + " names elements past the " + std::to_string(nel) + " there are");
      if (c.motion > static_cast<std::uint32_t>(motion_kind::free_body)) r.fail(who + " has an unknown motion");
      if (!finite(c.now) || !finite(c.at_build) || !finite(c.base) || !all_finite(c.origin0)) r.fail(who + " has a pose that is not finite");
      description d;
      d.name = r.text("boundary." + std::to_string(b) + ".name");
      d.kind = r.text("boundary." + std::to_string(b) + ".kind");
      d.material = static_cast<material_id>(c.material);
      d.first_element = c.first_element;
      d.element_count = c.element_count;
      d.origin0 = c.origin0;
      d.box_lo = c.box_lo;
      d.box_hi = c.box_hi;
      d.plane = c.plane != 0;
      d.has_axis = c.has_axis != 0;
      d.axis_point = c.axis_point;
      d.axis_dir = c.axis_dir;
      d.motion = static_cast<motion_kind>(c.motion);
      d.velocity_motion = c.velocity_motion;
      d.vibration_motion = c.vibration_motion;
      d.servo_motion = c.servo_motion;
      d.servo_now = c.servo_now;
      if (d.motion == motion_kind::free_body) {
        d.free_motion = r.value<free_body>("boundary." + std::to_string(b) + ".free_body");
        d.free_now = r.value<free_body_state>("boundary." + std::to_string(b) + ".free_body_state");
        if (!(d.free_motion.mass > 0) || !all_finite(d.free_now.displacement) || !all_finite(d.free_now.velocity) || !all_finite(d.free_motion.force))
          r.fail(who + " has a free-body motion that is not valid");
      }
      d.now = c.now;
      d.at_build = c.at_build;
      d.base = c.base;
      d.user_motion_missing = d.motion == motion_kind::user;  // motion_at() then asks for it
      s.boundaries_.push_back(d);
      if (!all_finite(s.frames_host_[b].origin)) r.fail(who + "'s frame is not finite");
      s.frames_host_[b].material = c.material;
    }
    for (std::size_t k = 0; k < nel; ++k) {
      const element<Real>& e = s.elements_host_[k];
      if (e.kind > triangle_kind || e.boundary >= nb) r.fail("boundary element " + std::to_string(k) + " is not valid");
      const description& d = s.boundaries_[e.boundary];
      if (k < d.first_element || k >= d.first_element + d.element_count) r.fail("boundary element " + std::to_string(k) + " lies outside its boundary");
    }
    for (std::uint32_t a : s.analytic_host_)
      if (a >= nel || s.elements_host_[a].kind == triangle_kind) r.fail("an analytic element index is not valid");
    const std::size_t nodes = s.nodes_host_.size(), items = s.items_host_.size();
    for (const mesh_ref& m : s.meshes_host_)
      if (m.boundary >= nb || m.root >= nodes) r.fail("a mesh hierarchy is not valid");
    for (std::size_t k = 0; k < nodes; ++k) {
      const bvh_node<Real>& nd = s.nodes_host_[k];
      // Children come after their parent (the builder appends them), so a traversal ends.
      const bool ok = nd.count > 0 ? std::uint64_t(nd.first) + nd.count <= items : (nd.first > k && std::uint64_t(nd.first) + 1 < nodes);
      if (!ok) r.fail("mesh hierarchy node " + std::to_string(k) + " is not valid");
    }
    for (std::uint32_t it : s.items_host_)
      if (it >= nel || s.elements_host_[it].kind != triangle_kind) r.fail("a mesh hierarchy names an element that is not a triangle");
    s.upload();
    // The wall list.
    s.key_.assign(r.array<std::uint64_t>("wall.key", old));
    s.index_.assign(r.array<std::uint32_t>("wall.index", old));
    s.history_.assign(r.array<Histories>("wall.history", old));
    for (std::uint32_t k : s.index_.to_vector())
      if (k >= old) r.fail("a carried-over wall entry index is out of range");
    s.old_entries_ = static_cast<std::uint32_t>(old);
    s.entries_ = static_cast<std::uint32_t>(valid ? ne : 0);
    if (valid) {
      if (ne != old) r.fail("inconsistent wall entry counts");
      const auto offset = r.array<std::uint32_t>("wall.offset", particles + 1);
      const auto element = r.array<std::uint32_t>("wall.element", ne);
      if (offset[0] != 0 || offset[particles] != ne) r.fail("the wall offsets do not cover the wall entries");
      for (std::size_t i = 0; i < particles; ++i)
        if (offset[i] > offset[i + 1]) r.fail("the wall offsets are not sorted");
      for (std::uint32_t e : element)
        if (e >= nel) r.fail("a wall entry names an element that does not exist");
      s.offset_.assign(offset);
      s.entry_element_.assign(element);
      s.force_.assign(r.array<vec3<Real>>("wall.force", ne));
      s.torque_.assign(r.array<vec3<Real>>("wall.torque", ne));
      s.reports_.resize(ne * set::slots_per_entry);
      if (s.bodies_) s.body_reports_.resize(ne);
    }
  }
};

}  // namespace dem::boundary
