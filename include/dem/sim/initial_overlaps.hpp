#pragma once
// The check of the initial state (Simulator::prepare, at step 0 unless
// config.allow_initial_overlap): overlaps above 10 % of the smaller (contact) radius between listed
// pairs and between particles or bodies and boundary elements are refused with a message naming
// both and the overlap. On the host, from a copy of the state.
#include <algorithm>
#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "dem/boundary/element.hpp"
#include "dem/boundary/wall_forces.hpp"
#include "dem/shape/rigid_contact.hpp"

namespace dem::sim {

template <class Sim>
struct initial_overlaps {
  using P = typename Sim::policy;
  using real = typename Sim::real;
  using space = typename Sim::coord_space;

  static void check(Sim& s) {
    const auto h = s.pull();
    std::vector<std::uint32_t> a, b;
    s.pair_a_.copy_to(a);
    s.pair_b_.copy_to(b);
    if constexpr (P::rigid) pairs_rigid(s, h, a, b);
    else pairs(s, h, a, b);
    walls(s, h);
  }

 private:
  template <class H>
  static void pairs(const Sim& s, const H& h, const std::vector<std::uint32_t>& a, const std::vector<std::uint32_t>& b) {
    for (std::size_t c = 0; c < s.num_contacts_; ++c) {
      const vec3<real> d = space::difference(s.coord_, h.pos[a[c]], h.pos[b[c]]);
      const double overlap = double(h.radius[a[c]]) + double(h.radius[b[c]]) - norm(vec3d(d));
      const double limit = 0.1 * std::min<double>(h.radius[a[c]], h.radius[b[c]]);
      if (overlap > limit) {
        std::ostringstream m;
        m << "dem: particles " << h.id[a[c]] << " and " << h.id[b[c]] << " overlap by " << overlap
          << " m at the start, more than 10 % of the smaller radius (" << limit
          << " m); move them apart or set config.allow_initial_overlap = true";
        throw std::invalid_argument(m.str());
      }
    }
  }

  // Rigid bodies: the shapes' own narrow phase, against 10 % of the smaller contact radius.
  template <class H>
  static void pairs_rigid(const Sim& s, const H& h, const std::vector<std::uint32_t>& a, const std::vector<std::uint32_t>& b) {
    for (std::size_t c = 0; c < s.num_contacts_; ++c) {
      const std::uint32_t i = a[c], j = b[c];
      const double limit = 0.1 * std::min(s.shape_contact_radius_[h.shape[i]], s.shape_contact_radius_[h.shape[j]]);
      double worst = 0;
      P::shape::collide(s.shapes_host_[h.shape[i]], h.orientation[i], s.shapes_host_[h.shape[j]], h.orientation[j],
                        space::difference(s.coord_, h.pos[i], h.pos[j]), real(0),
                        [&](int, const shape::rigid_contact<real>& g) { worst = std::max(worst, double(g.overlap)); });
      if (worst > limit) {
        std::ostringstream m;
        m << "dem: bodies " << h.id[i] << " and " << h.id[j] << " overlap by " << worst
          << " m at the start, more than 10 % of the smaller contact radius (" << limit
          << " m); move them apart or set config.allow_initial_overlap = true";
        throw std::invalid_argument(m.str());
      }
    }
  }

  // Every listed (particle or body, boundary element) pair against 10 % of the (contact) radius.
  template <class H>
  static void walls(const Sim& s, const H& h) {
    std::vector<std::uint32_t> offset, element;
    s.walls_.copy_list(offset, element);
    const auto& elements = s.walls_.elements_host();
    for (std::size_t i = 0; i < s.num_particles_; ++i) {
      if (!h.active[i]) continue;
      for (std::uint32_t e = offset[i]; e < offset[i + 1]; ++e) {
        const boundary::element<real>& el = elements[element[e]];
        const boundary::frame<real>& fr = s.walls_.frame_host(el.boundary);
        const vec3<real> rel = space::relative_to(s.coord_, h.pos[i], fr.origin);
        double worst = 0, limit = 0;
        if constexpr (!P::rigid) {
          worst = double(h.radius[i]) - double(boundary::closest(el, fr.to_local(rel)).distance);
          limit = 0.1 * double(h.radius[i]);
        } else {
          const auto& shape = s.shapes_host_[h.shape[i]];
          limit = 0.1 * s.shape_contact_radius_[h.shape[i]];
          if constexpr (boundary::has_wall_probes<P>) {
            for (int k = 0; k < P::shape::wall_probe_count(shape); ++k) {
              const shape::probe<real> pr = P::shape::wall_probe(shape, h.orientation[i], k, static_cast<material_id>(h.material[i]));
              worst = std::max(worst, double(pr.radius) - double(boundary::closest(el, fr.to_local(rel + pr.offset)).distance));
            }
          } else {
            boundary::collide_body<P>(shape, h.orientation[i], rel, el, fr, real(0),
                                      [&](int, const shape::rigid_contact<real>& g) { worst = std::max(worst, double(g.overlap)); });
          }
        }
        if (worst > limit) {
          const boundary::description& d = s.walls_[el.boundary];
          std::ostringstream m;
          m << "dem: " << (P::rigid ? "body " : "particle ") << h.id[i] << " overlaps boundary " << el.boundary << " ('" << d.name << "'"
            << (el.kind == boundary::triangle_kind ? ", triangle " + std::to_string(el.index) : std::string()) << ") by " << worst
            << " m at the start, more than 10 % of its " << (P::rigid ? "contact radius" : "radius")
            << "; move it or set config.allow_initial_overlap = true";
          throw std::invalid_argument(m.str());
        }
      }
    }
  }
};

}  // namespace dem::sim
