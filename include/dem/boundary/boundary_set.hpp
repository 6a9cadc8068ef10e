#pragma once
// Every boundary of a simulation: what each is (host), the device tables the kernels read
// (elements, frames, mesh hierarchies), how each moves, and the wall contact list (per particle,
// the elements within reach, with their histories and per-entry reactions). The Simulator owns
// one and calls it at each contact-list build (rebuild), each step (move, before the force
// evaluation) and for readouts.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "dem/boundary/bvh.hpp"
#include "dem/boundary/contact_rule.hpp"
#include "dem/boundary/element.hpp"
#include "dem/boundary/faceted.hpp"
#include "dem/boundary/frame.hpp"
#include "dem/boundary/mesh.hpp"
#include "dem/boundary/motion.hpp"
#include "dem/boundary/surface.hpp"
#include "dem/boundary/wall_forces.hpp"
#include "dem/boundary/wall_kernels.hpp"
#include "dem/material/material.hpp"
#include "dem/math/aabb.hpp"
#include "dem/math/quaternion.hpp"

namespace dem::boundary {

enum class motion_kind : std::uint32_t { fixed = 0, constant_velocity = 1, vibration = 2, user = 3, servo = 4, free_body = 5 };

// The load on a boundary from the particles: force, and torque about a point.
struct load {
  vec3d force{0, 0, 0};
  vec3d torque{0, 0, 0};
};

// A cylinder's or cone's lateral surface: the axis from `base` along `axis` for `length` (infinite
// when length is infinite: then both ways), radius `radius` at the base and `top_radius` at the
// other end (a cylinder: equal), particles inside or outside, with optional flat caps (finite only).
struct axisymmetric {
  vec3d base{0, 0, 0};
  vec3d axis{0, 0, 1};
  double length = std::numeric_limits<double>::infinity();
  double radius = 0;
  double top_radius = -1;  // < 0: = radius (a cylinder)
  bool inside = true;
  bool cap_base = false, cap_top = false;
};

// What one boundary is, on the host.
struct description {
  std::string name;
  std::string kind;  // plane, plate, disc, cylinder, cone, mesh
  material_id material = 0;
  std::uint32_t first_element = 0, element_count = 0;
  vec3d origin0{0, 0, 0};  // world position of its frame's origin when added (its frame is the world's, shifted)
  // The elements' extent in the local frame (planes: none, `plane` is set instead), and an axis
  // about which the surface is symmetric (cylinders, cones, discs): rotation about it moves nothing.
  vec3d box_lo{0, 0, 0}, box_hi{0, 0, 0};
  bool plane = false;
  bool has_axis = false;
  vec3d axis_point{0, 0, 0}, axis_dir{0, 0, 1};
  // Motion.
  motion_kind motion = motion_kind::fixed;
  constant_velocity velocity_motion;
  vibration vibration_motion;
  std::function<rigid_motion(double)> user_motion;
  bool user_motion_missing = false;  // a user motion that a checkpoint could not restore
  servo servo_motion;
  servo_state servo_now;
  free_body free_motion;
  free_body_state free_now;
  rigid_motion now, at_build;  // the map from the placement when added, now and at the last wall-list build
  rigid_motion base;           // built-in motions and servos act on the placement the boundary had when they were set
  std::shared_ptr<const prepared_mesh> mesh;
};

template <class Real, class Backend, class Histories>
class boundary_set {
 public:
  template <class T>
  using buffer = typename Backend::template buffer<T>;
  using wall_histories = Histories;
  static constexpr int slots_per_entry = sizeof(Histories::slot) / sizeof(Histories::slot[0]);

  // ---- definition (host) ----------------------------------------------------------------------
  std::uint32_t size() const { return static_cast<std::uint32_t>(boundaries_.size()); }
  const description& operator[](std::uint32_t b) const { return at(b); }
  const std::vector<element<Real>>& elements_host() const { return elements_host_; }
  bool empty() const { return boundaries_.empty(); }
  // Whether any boundary has a motion (prescribed, servo or free); fixed ones never move.
  bool any_moving() const {
    return std::any_of(boundaries_.begin(), boundaries_.end(), [](const description& d) { return d.motion != motion_kind::fixed; });
  }

  std::uint32_t add_plane(const vec3d& point, const vec3d& normal, material_id mat, const std::string& name) {
    description d = start("plane", name, mat, point);
    d.plane = true;
    d.axis_dir = normal / norm(normal);
    element<Real> e = blank(plane_kind);
    e.n = vec3<Real>(d.axis_dir);
    push(d, {e});
    return finish(d);
  }

  std::uint32_t add_plate(const vec3d& centre, const vec3d& normal, const vec3d& axis, double half_u, double half_v, material_id mat,
                          const std::string& name) {
    description d = start("plate", name, mat, centre);
    const vec3d n = normal / norm(normal);
    vec3d u = axis - n * dot(axis, n);
    u = u / norm(u);
    const vec3d v = cross(n, u);
    element<Real> e = blank(plate_kind);
    e.n = vec3<Real>(n);
    e.b = vec3<Real>(u);
    e.s0 = static_cast<Real>(half_u);
    e.s1 = static_cast<Real>(half_v);
    for (int su = -1; su <= 1; su += 2)
      for (int sv = -1; sv <= 1; sv += 2) grow(d, u * (su * half_u) + v * (sv * half_v));
    push(d, {e});
    return finish(d);
  }

  // facets > 0: as a mesh of that many facets around (boundary/faceted.hpp), for bodies without probes.
  std::uint32_t add_disc(const vec3d& centre, const vec3d& normal, double radius, double inner_radius, material_id mat,
                         const std::string& name, std::uint32_t facets = 0) {
    const vec3d n = normal / norm(normal);
    if (facets) return add_mesh(faceted_disc(centre, n, radius, inner_radius, facets), mat, name, "disc");
    description d = start("disc", name, mat, centre);
    element<Real> e = blank(disc_kind);
    e.n = vec3<Real>(n);
    e.r0 = static_cast<Real>(radius);
    e.r1 = static_cast<Real>(inner_radius);
    grow_circle(d, vec3d{0, 0, 0}, n, radius);
    d.has_axis = true;
    d.axis_dir = n;
    push(d, {e});
    return finish(d);
  }

  // Cylinders and cones; `domain` bounds an infinite one (it reaches past the domain's bounding
  // sphere both ways). facets > 0: as a mesh of that many facets around (boundary/faceted.hpp).
  std::uint32_t add_axisymmetric(const axisymmetric& c, material_id mat, const std::string& name, const aabb& domain, std::uint32_t facets = 0) {
    const bool cylinder = c.top_radius < 0 || c.top_radius == c.radius;
    const vec3d u = c.axis / norm(c.axis);
    double s0 = 0, s1 = c.length;
    if (!std::isfinite(c.length)) {
      const vec3d centre = (domain.lo + domain.hi) * 0.5;
      const double reach = norm(domain.hi - domain.lo) * 2.0;
      const double sc = dot(centre - c.base, u);
      s0 = sc - reach;
      s1 = sc + reach;
    }
    const double r0 = c.radius, r1 = cylinder ? c.radius : c.top_radius;
    const bool finite = std::isfinite(c.length);
    if (facets)
      return add_mesh(faceted_frustum(c.base, u, s0, s1, r0, r1, finite && c.cap_base, finite && c.cap_top, facets), mat, name,
                      cylinder ? "cylinder" : "cone");
    description d = start(cylinder ? "cylinder" : "cone", name, mat, c.base);
    std::vector<element<Real>> es;
    element<Real> lateral = blank(cone_kind);
    lateral.n = vec3<Real>(u);
    lateral.s0 = static_cast<Real>(s0);
    lateral.s1 = static_cast<Real>(s1);
    lateral.r0 = static_cast<Real>(r0);
    lateral.r1 = static_cast<Real>(r1);
    lateral.flags = c.inside ? particles_inside : 0u;
    lateral.edge[0] = 0;  // the rims: shared with the caps
    lateral.edge[1] = 1;
    es.push_back(lateral);
    auto cap = [&](double s, double r, std::uint32_t rim) {
      element<Real> e = blank(disc_kind);
      e.a = vec3<Real>(u * s);
      e.n = vec3<Real>(u);
      e.r0 = static_cast<Real>(r);
      e.r1 = 0;
      e.edge[0] = rim;
      if (c.inside) e.flags = rim == 0 ? particles_above : particles_below;  // the side the container's inside is on
      es.push_back(e);
    };
    if (std::isfinite(c.length)) {
      if (c.cap_base) cap(0, r0, 0);
      if (c.cap_top) cap(c.length, r1, 1);
    }
    grow_circle(d, u * s0, u, r0);
    grow_circle(d, u * s1, u, r1);
    d.has_axis = true;
    d.axis_dir = u;
    push(d, es);
    return finish(d);
  }

  // `kind`: "mesh", or the analytic kind a mesh of facets stands for (faceted.hpp).
  std::uint32_t add_mesh(const triangle_mesh& m, material_id mat, const std::string& name, const char* kind = "mesh") {
    auto prepared = std::make_shared<prepared_mesh>(prepare(m));
    vec3d lo = prepared->vertices[prepared->triangles[0][0]], hi = lo;
    for (const auto& t : prepared->triangles)
      for (std::uint32_t v : t)
        for (int a = 0; a < 3; ++a) {
          lo[a] = std::min(lo[a], prepared->vertices[v][a]);
          hi[a] = std::max(hi[a], prepared->vertices[v][a]);
        }
    const vec3d origin = (lo + hi) * 0.5;  // the frame sits at the mesh's centre: small local coordinates
    const bool file_mesh = std::string(kind) == "mesh";
    description d = start(kind, name.empty() && file_mesh ? m.name : name, mat, origin);
    const std::uint32_t vertex_base = next_vertex_id_, edge_base = next_edge_id_;
    next_vertex_id_ += static_cast<std::uint32_t>(prepared->vertices.size());
    next_edge_id_ += static_cast<std::uint32_t>(prepared->edge_valence.size());
    std::vector<element<Real>> es;
    es.reserve(prepared->triangles.size());
    std::vector<std::array<vec3d, 2>> boxes;
    for (std::size_t t = 0; t < prepared->triangles.size(); ++t) {
      const auto& tri = prepared->triangles[t];
      const vec3d a = prepared->vertices[tri[0]] - origin, b = prepared->vertices[tri[1]] - origin, c = prepared->vertices[tri[2]] - origin;
      element<Real> e = blank(triangle_kind);
      e.index = static_cast<std::uint32_t>(t);
      e.a = vec3<Real>(a);
      e.b = vec3<Real>(b);
      e.c = vec3<Real>(c);
      const vec3d n = cross(b - a, c - a);
      e.n = vec3<Real>(n / norm(n));
      for (int k = 0; k < 3; ++k) {
        e.vertex[k] = vertex_base + tri[k];
        e.edge[k] = edge_base + prepared->edges[t][k];
        if ((prepared->flat_edges[t] >> k) & 1u) e.flags |= flat_edge0 << k;
        if ((prepared->flat_owner[t] >> k) & 1u) e.flags |= seam_owner0 << k;
        if ((prepared->flat_owner[t] >> (3 + k)) & 1u) e.flags |= corner_owner0 << k;
        grow(d, prepared->vertices[tri[k]] - origin);
      }
      es.push_back(e);
      // The box of the triangle as stored (rounded to Real).
      std::array<vec3d, 2> box{vec3d(e.a), vec3d(e.a)};
      const vec3<Real> corners[2] = {e.b, e.c};
      for (const vec3<Real>& p : corners)
        for (int k = 0; k < 3; ++k) {
          box[0][k] = std::min(box[0][k], double(p[k]));
          box[1][k] = std::max(box[1][k], double(p[k]));
        }
      boxes.push_back(box);
    }
    std::vector<std::uint32_t> order;
    std::vector<bvh_node<Real>> nodes = build_bvh<Real>(boxes, order);
    const auto first_element = static_cast<std::uint32_t>(elements_host_.size());
    const auto item_base = static_cast<std::uint32_t>(items_host_.size());
    const auto root = static_cast<std::uint32_t>(nodes_host_.size());
    for (auto& nd : nodes) {
      if (nd.count > 0) nd.first += item_base;
      else nd.first += root;
    }
    for (std::uint32_t k : order) items_host_.push_back(first_element + k);
    nodes_host_.insert(nodes_host_.end(), nodes.begin(), nodes.end());
    meshes_host_.push_back({size(), root});
    d.mesh = prepared;
    push(d, es);
    return finish(d);
  }

  // ---- motion ---------------------------------------------------------------------------------
  // Sets boundary b's motion at time `now`: built-in motions and servos start from where the
  // boundary is (their `start` is at least `now`); a user motion gives the whole map itself.
  template <class M>
  void set_motion(std::uint32_t b, const M& m, double now) {
    description& d = at(b);
    d.now.velocity = d.now.omega = vec3d{0, 0, 0};  // a fixed boundary stays where it is, at rest
    d.base = d.now;
    d.user_motion = {};
    d.user_motion_missing = false;
    if constexpr (std::is_same_v<M, fixed>) {
      d.motion = motion_kind::fixed;
    } else if constexpr (std::is_same_v<M, constant_velocity>) {
      d.motion = motion_kind::constant_velocity;
      d.velocity_motion = m;
      d.velocity_motion.start = std::max(m.start, now);
    } else if constexpr (std::is_same_v<M, vibration>) {
      d.motion = motion_kind::vibration;
      d.vibration_motion = m;
      d.vibration_motion.start = std::max(m.start, now);
    } else if constexpr (std::is_same_v<M, servo>) {
      check(m);
      d.motion = motion_kind::servo;
      d.servo_motion = m;
      d.servo_motion.direction = m.direction / norm(m.direction);
      d.servo_now = servo_state{};
    } else if constexpr (std::is_same_v<M, free_body>) {
      check(m);
      d.motion = motion_kind::free_body;
      d.free_motion = m;
      d.free_now = free_body_state{};
      d.free_now.velocity = m.velocity;
    } else {
      static_assert(motion_function<M>,
                    "dem::Simulator::set_motion: a user motion must be copyable and have `dem::boundary::rigid_motion operator()(double t) const`");
      d.motion = motion_kind::user;
      d.user_motion = m;
    }
    frames_host_[b] = frame_of(d);
    frames_.assign(frames_host_);
  }

  // m after base, with m's twist.
  static rigid_motion after(const rigid_motion& m, const rigid_motion& base) {
    return {m.rotation * base.rotation, rotate(m.rotation, base.translation) + m.translation, m.velocity, m.omega};
  }

  // The map of boundary b at time t (servos and free bodies: from the integrated travel `sv` and `fb`).
  static rigid_motion motion_at(const description& d, double t, const servo_state& sv, const free_body_state& fb) {
    switch (d.motion) {
      case motion_kind::fixed: return rigid_motion{d.now.rotation, d.now.translation, {0, 0, 0}, {0, 0, 0}};
      case motion_kind::constant_velocity: return after(d.velocity_motion(t), d.base);
      case motion_kind::vibration: return after(d.vibration_motion(t), d.base);
      case motion_kind::user:
        if (!d.user_motion)
          throw std::invalid_argument("dem: boundary '" + d.name + "' had a user motion that a checkpoint cannot hold; set it again with set_motion");
        return d.user_motion(t);
      case motion_kind::servo: {
        rigid_motion m;
        m.translation = d.servo_motion.direction * sv.travel;
        m.velocity = d.servo_motion.direction * sv.velocity;
        return after(m, d.base);
      }
      case motion_kind::free_body: {
        rigid_motion m;
        m.translation = fb.displacement;
        m.velocity = fb.velocity;
        return after(m, d.base);
      }
    }
    return {};
  }

  // Places every moving boundary at time t (servos and free bodies first advance by dt with the
  // particles' load of the last evaluation, load_of(b)). Returns whether any frame changed.
  // All or nothing: every pose is computed before any is stored, so a motion that throws (a user
  // motion's own error, a pose that is not finite, a restored user motion not set again) leaves every
  // boundary as it was, and the simulator calls this before it touches the particles.
  template <class LoadOf>
  bool move(double t, double dt, LoadOf&& load_of, const vec3d& gravity) {
    pending_.clear();
    for (std::uint32_t b = 0; b < size(); ++b) {
      const description& d = boundaries_[b];
      if (d.motion == motion_kind::fixed) continue;
      pending_move p{b, d.servo_now, d.free_now, {}};
      if (d.motion == motion_kind::servo && dt > 0) advance_servo(d.servo_motion, p.servo, -dot(load_of(b), d.servo_motion.direction), dt);
      if (d.motion == motion_kind::free_body && dt > 0) advance_free_body(d.free_motion, p.free, load_of(b), gravity, dt);
      p.pose = motion_at(d, t, p.servo, p.free);
      if (!finite(p.pose))
        throw std::invalid_argument("dem: the motion of boundary '" + d.name + "' gives a pose or velocity that is not finite (or a rotation that is not a unit quaternion) at t = " +
                                    std::to_string(t) + " s");
      pending_.push_back(p);
    }
    for (const pending_move& p : pending_) {
      description& d = boundaries_[p.boundary];
      d.servo_now = p.servo;
      d.free_now = p.free;
      d.now = p.pose;
      frames_host_[p.boundary] = frame_of(d);
    }
    if (!pending_.empty()) frames_.assign(frames_host_);
    return !pending_.empty();
  }

  // The most any boundary's surface moved since the last wall-list build (a bound).
  double moved_since_build(const aabb& domain) const {
    double most = 0;
    for (const description& d : boundaries_)
      if (d.motion != motion_kind::fixed || !(d.now.translation == d.at_build.translation) || !(d.now.rotation == d.at_build.rotation))
        most = std::max(most, displacement(d, domain));
    return most;
  }

  // The particles are bodies without probes (polyhedra): their contacts with triangles and plates
  // need a scratch report per entry (boundary/body_contacts.hpp).
  void keep_body_reports() { bodies_ = true; }
  std::size_t body_report_bytes() const { return bodies_ ? sizeof(body_report<Real>) : 0; }

  // ---- the wall list --------------------------------------------------------------------------
  boundary_view<Real> view() {
    return {elements_.data(), frames_.data(), analytic_.data(), static_cast<std::uint32_t>(analytic_host_.size()), meshes_.data(),
            static_cast<std::uint32_t>(meshes_host_.size()), nodes_.data(), items_.data()};
  }
  wall_view<Real, Histories> walls() {
    return {offset_.data(), entry_element_.data(), history_.data(), reports_.data(), force_.data(), torque_.data(),
            body_reports_.size() ? body_reports_.data() : nullptr};
  }
  std::uint32_t num_entries() const { return entries_; }
  // The wall list on the host: per particle its first entry (n + 1 values), per entry its element.
  void copy_list(std::vector<std::uint32_t>& offset, std::vector<std::uint32_t>& element) const {
    offset_.copy_to(offset);
    entry_element_.copy_to(element);
  }

  // After the particles were sorted (ids permuted with them): every active particle's elements
  // within `reach` of its bounding sphere, histories carried over by (particle id, element).
  template <class Space>
  void build(Backend& be, const typename Space::params& coord, const typename Space::position* pos, const Real* radius,
             const std::uint32_t* id, std::uint32_t n, std::uint32_t n_active, double reach, const family::mask_view& families = {}) {
    for (description& d : boundaries_) d.at_build = d.now;
    offset_.resize(std::size_t(n) + 1);
    if (boundaries_.empty() || n_active == 0) {
      offset_.fill(0);
      swap_in_empty();
      return;
    }
    const boundary_view<Real> v = view();
    be.for_each(n_active, wall_search_kernel<Space, false>{coord, pos, radius, v, static_cast<Real>(reach), offset_.data(), nullptr, families});
    if (n_active < n + 1) be.for_each(n + 1 - n_active, zero_kernel{offset_.data() + n_active});
    const std::uint64_t total = be.exclusive_scan(offset_, n + 1);
    if (total >= std::numeric_limits<std::uint32_t>::max() / 2)
      throw std::runtime_error("dem: the wall contact list would hold " + std::to_string(total) + " entries, more than 2^31; reduce config.boundary_margin");
    const auto ne = static_cast<std::uint32_t>(total);
    entry_element_.resize(ne);
    if (ne) be.for_each(n_active, wall_search_kernel<Space, true>{coord, pos, radius, v, static_cast<Real>(reach), offset_.data(), entry_element_.data(), families});
    // Carry histories over by key.
    history_.swap(old_history_);
    key_.swap(old_key_);
    index_.swap(old_index_);
    history_.resize(ne);
    key_.resize(ne);
    index_.resize(ne);
    from_.resize(ne);
    if (ne) {
      be.for_each(n, wall_key_kernel{offset_.data(), entry_element_.data(), id, old_key_.data(), old_index_.data(), old_entries_, key_.data(),
                                     index_.data(), from_.data()});
      be.for_each(ne, carry_kernel<Histories>{from_.data(), old_history_.data(), history_.data()});
      be.sort_pairs(key_, index_, ne);
    }
    if constexpr (!Backend::keeps_rebuild_scratch) {  // the previous list's, needed by the carry alone
      old_history_.clear();
      old_key_.clear();
      old_index_.clear();
    }
    old_entries_ = ne;
    entries_ = ne;
    reports_.resize(std::size_t(ne) * slots_per_entry);
    if (bodies_) body_reports_.resize(ne);
    force_.resize(ne);
    torque_.resize(ne);
    force_.fill(vec3<Real>{0, 0, 0});
    torque_.fill(vec3<Real>{0, 0, 0});
  }
  // Local validity (contact/local_validity.hpp): adds 1 to *missing for each element within `reach`
  // of an overrun particle's bounding sphere now that its wall list lacks.
  template <class Space>
  void check_overrun(Backend& be, const typename Space::params& coord, const typename Space::position* pos, const Real* radius,
                     const std::uint32_t* overrun, std::uint32_t count, double reach, const family::mask_view& families, std::uint32_t* missing) {
    if (boundaries_.empty() || count == 0) return;
    be.for_each(count, wall_overrun_check_kernel<Space>{coord, pos, radius, view(), static_cast<Real>(reach), offset_.data(), entry_element_.data(),
                                                        overrun, families, missing});
  }
  // Where each entry's history came from at the last build (not_carried: new), for other per-entry
  // records carried the same way (the energy ledger's).
  const buffer<std::uint32_t>& carried_from() const { return from_; }
  // After a build's carries (the ledger's too), on backends that do not keep rebuild scratch.
  void release_carried_from() { from_.clear(); }

  // ---- readouts ---------------------------------------------------------------------------------
  // The particles' load on boundary b at the last force evaluation; torque about `about` (world).
  load load_on(Backend& be, std::uint32_t b, const vec3d& about) {
    (void)at(b);
    load l;
    if (entries_ == 0) return l;
    double c[6];
    for (int k = 0; k < 6; ++k)
      c[k] = be.reduce_sum(entries_, load_component<Real>{entry_element_.data(), elements_.data(), force_.data(), torque_.data(), b, k});
    l.force = {c[0], c[1], c[2]};
    const vec3d origin = frames_host_[b].origin;
    l.torque = vec3d{c[3], c[4], c[5]} + cross(origin - about, l.force);
    return l;
  }
  // The force on each element of boundary b (a mesh: per triangle), summed in entry order.
  std::vector<vec3d> element_forces(std::uint32_t b) const {
    const description& d = at(b);
    std::vector<vec3d> out(d.element_count, vec3d{0, 0, 0});
    std::vector<std::uint32_t> el;
    std::vector<vec3<Real>> f;
    entry_element_.copy_to(el);
    force_.copy_to(f);
    for (std::uint32_t e = 0; e < entries_; ++e)
      if (el[e] >= d.first_element && el[e] < d.first_element + d.element_count) out[el[e] - d.first_element] += vec3d(f[e]);
    return out;
  }
  const frame<Real>& frame_host(std::uint32_t b) const { return frames_host_[b]; }
  const servo_state& servo_of(std::uint32_t b) const { return at(b).servo_now; }
  const free_body_state& free_body_of(std::uint32_t b) const { return at(b).free_now; }

  // Boundary b where it is now, as triangles (boundary/surface.hpp), appended to `out`.
  void append_surface(std::uint32_t b, const aabb& domain, surface_triangles& out) const {
    const description& d = at(b);
    const rigid_motion& m = d.now;
    auto place = [&](const vec3d& local) { return rotate(m.rotation, d.origin0 + local) + m.translation; };
    auto direction = [&](const vec3d& v) { return rotate(m.rotation, v); };
    for (std::uint32_t k = 0; k < d.element_count; ++k) tessellate(elements_host_[d.first_element + k], b, k, place, direction, domain, out);
  }

 private:
  template <class, class, class>
  friend struct boundary_io;

  description& at(std::uint32_t b) {
    if (b >= boundaries_.size())
      throw std::invalid_argument("dem: boundary " + std::to_string(b) + " does not exist (" + std::to_string(boundaries_.size()) + " boundaries)");
    return boundaries_[b];
  }
  const description& at(std::uint32_t b) const { return const_cast<boundary_set*>(this)->at(b); }

  static element<Real> blank(std::uint32_t kind) {
    element<Real> e{};
    e.kind = kind;
    e.a = e.b = e.c = e.n = vec3<Real>{0, 0, 0};
    for (int k = 0; k < 3; ++k) e.vertex[k] = e.edge[k] = no_feature_id;
    return e;
  }
  description start(const char* kind, const std::string& name, material_id mat, const vec3d& origin) const {
    description d;
    d.kind = kind;
    d.name = name.empty() ? std::string(kind) + " " + std::to_string(boundaries_.size()) : name;
    d.material = mat;
    d.origin0 = origin;
    d.box_lo = vec3d{1e300, 1e300, 1e300};
    d.box_hi = vec3d{-1e300, -1e300, -1e300};
    return d;
  }
  static void grow(description& d, const vec3d& p) {
    for (int a = 0; a < 3; ++a) {
      d.box_lo[a] = std::min(d.box_lo[a], p[a]);
      d.box_hi[a] = std::max(d.box_hi[a], p[a]);
    }
  }
  static void grow_circle(description& d, const vec3d& centre, const vec3d& n, double r) {
    for (int a = 0; a < 3; ++a) {  // the circle's extent along axis a: r sqrt(1 - n_a^2)
      const double half = r * std::sqrt(std::max(0.0, 1 - n[a] * n[a]));
      d.box_lo[a] = std::min(d.box_lo[a], centre[a] - half);
      d.box_hi[a] = std::max(d.box_hi[a], centre[a] + half);
    }
  }
  void push(description& d, std::vector<element<Real>> es) {
    d.first_element = static_cast<std::uint32_t>(elements_host_.size());
    d.element_count = static_cast<std::uint32_t>(es.size());
    const auto b = size();
    // Rim and cap ids of analytic boundaries are numbered per boundary: shift them past every id in use.
    std::uint32_t used = 0;
    for (auto& e : es) {
      e.boundary = b;
      if (e.kind != triangle_kind)
        for (int k = 0; k < 3; ++k)
          if (e.edge[k] != no_feature_id) {
            used = std::max(used, e.edge[k] + 1);
            e.edge[k] += next_edge_id_;
          }
      if (e.kind != triangle_kind) analytic_host_.push_back(static_cast<std::uint32_t>(elements_host_.size()));
      elements_host_.push_back(e);
    }
    next_edge_id_ += used;
  }
  std::uint32_t finish(description& d) {
    boundaries_.push_back(d);
    frames_host_.push_back(frame_of(boundaries_.back()));
    upload();
    return size() - 1;
  }
  void upload() {
    elements_.assign(elements_host_);
    frames_.assign(frames_host_);
    analytic_.assign(analytic_host_);
    meshes_.assign(meshes_host_);
    nodes_.assign(nodes_host_);
    items_.assign(items_host_);
  }
  frame<Real> frame_of(const description& d) const {
    const rigid_motion& m = d.now;
    const vec3d origin = rotate(m.rotation, d.origin0) + m.translation;
    return make_frame<Real>(origin, m.rotation, m.velocity + cross(m.omega, origin), m.omega, d.material);
  }
  void swap_in_empty() {
    entries_ = 0;
    old_entries_ = 0;
    entry_element_.resize(0);
    history_.resize(0);
    key_.resize(0);
    index_.resize(0);
    from_.resize(0);
  }

  // A bound of how far any point of d's surface inside `domain` moved between its placement at
  // the last build and now.
  static double displacement(const description& d, const aabb& domain) {
    const rigid_motion &a = d.at_build, &m = d.now;
    auto place = [&](const rigid_motion& r, const vec3d& local) { return rotate(r.rotation, d.origin0 + local) + r.translation; };
    if (d.plane) {  // the change of the signed distance: affine in x, largest at a corner of the domain
      const vec3d n0 = rotate(a.rotation, d.axis_dir), n1 = rotate(m.rotation, d.axis_dir);
      const vec3d p0 = place(a, vec3d{0, 0, 0}), p1 = place(m, vec3d{0, 0, 0});
      double most = 0;
      for (int c = 0; c < 8; ++c) {
        const vec3d x{(c & 1) ? domain.hi.x : domain.lo.x, (c & 2) ? domain.hi.y : domain.lo.y, (c & 4) ? domain.hi.z : domain.lo.z};
        most = std::max(most, std::fabs(dot(x - p1, n1) - dot(x - p0, n0)));
      }
      return most;
    }
    // The corners of the local box, placed then and now (the displacement of a rigid map is convex
    // in the point, so the box's corners bound every point inside). A rotation about a symmetry
    // axis is taken out first: it moves no point of the surface.
    quatd untwist = quatd::identity();
    if (d.has_axis) {
      const quatd rel = conjugate(a.rotation) * m.rotation;
      const double p = rel.x * d.axis_dir.x + rel.y * d.axis_dir.y + rel.z * d.axis_dir.z;
      const quatd twist{rel.w, d.axis_dir.x * p, d.axis_dir.y * p, d.axis_dir.z * p};
      const double tn = std::sqrt(norm2(twist));
      if (tn > 1e-300) untwist = conjugate(quatd{twist.w / tn, twist.x / tn, twist.y / tn, twist.z / tn});
    }
    double most = 0;
    for (int c = 0; c < 8; ++c) {
      const vec3d corner{(c & 1) ? d.box_hi.x : d.box_lo.x, (c & 2) ? d.box_hi.y : d.box_lo.y, (c & 4) ? d.box_hi.z : d.box_lo.z};
      const vec3d same = d.axis_point + rotate(untwist, corner - d.axis_point);  // the surface's point that is there now
      most = std::max(most, norm(place(m, same) - place(a, corner)));
    }
    return most;
  }

  std::vector<description> boundaries_;
  // move()'s poses, held until every boundary's is known.
  struct pending_move {
    std::uint32_t boundary;
    servo_state servo;
    free_body_state free;
    rigid_motion pose;
  };
  std::vector<pending_move> pending_;
  std::vector<element<Real>> elements_host_;
  std::vector<frame<Real>> frames_host_;
  std::vector<std::uint32_t> analytic_host_;
  std::vector<mesh_ref> meshes_host_;
  std::vector<bvh_node<Real>> nodes_host_;
  std::vector<std::uint32_t> items_host_;
  std::uint32_t next_vertex_id_ = 0, next_edge_id_ = 0;
  buffer<element<Real>> elements_;
  buffer<frame<Real>> frames_;
  buffer<std::uint32_t> analytic_;
  buffer<mesh_ref> meshes_;
  buffer<bvh_node<Real>> nodes_;
  buffer<std::uint32_t> items_;
  // The wall list.
  std::uint32_t entries_ = 0, old_entries_ = 0;
  buffer<std::uint32_t> offset_, entry_element_, index_, old_index_, from_;
  buffer<std::uint64_t> key_, old_key_;
  buffer<Histories> history_, old_history_;
  buffer<report<Real>> reports_;
  bool bodies_ = false;                      // bodies without probes (polyhedra) meet these walls: body_reports_ kept
  buffer<body_report<Real>> body_reports_;   // their scratch per entry (body_contacts.hpp)
  buffer<vec3<Real>> force_, torque_;
};

}  // namespace dem::boundary
