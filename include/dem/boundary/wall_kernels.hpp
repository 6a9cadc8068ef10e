#pragma once
// The wall contact list: per particle, the boundary elements within the detection distance at the
// last contact-list build (sorted by element index, so that a particle's wall forces are summed in
// a fixed order), each with its history, carried across builds by the key (particle id, element).
// Built from the analytic elements (tested one by one: there are few) and, for each mesh, its
// bounding-volume hierarchy queried in the mesh's frame.
#include <cstdint>

#include "dem/backend/atomic.hpp"
#include "dem/boundary/bvh.hpp"
#include "dem/boundary/element.hpp"
#include "dem/boundary/frame.hpp"
#include "dem/broad/uniform_grid.hpp"
#include "dem/config.hpp"
#include "dem/family/rule.hpp"

namespace dem::boundary {

struct mesh_ref {
  std::uint32_t boundary;
  std::uint32_t root;  // its hierarchy's root node
};

// The device tables of every boundary, as kernels see them.
template <class Real>
struct boundary_view {
  const element<Real>* elements;
  const frame<Real>* frames;
  const std::uint32_t* analytic;  // indices of the elements that are not triangles
  std::uint32_t num_analytic;
  const mesh_ref* meshes;
  std::uint32_t num_meshes;
  const bvh_node<Real>* nodes;
  const std::uint32_t* items;  // leaves' element indices

  // Point `rel` (world axes, from boundary b's origin) in b's frame.
  DEM_HD vec3<Real> local(std::uint32_t b, const vec3<Real>& rel) const { return frames[b].to_local(rel); }
};

// Calls take(e) for every boundary element e closer than `limit` to the point at position `x`
// (NaN distances count as near): the analytic elements one by one, each mesh through its hierarchy.
template <class Space, class Real, class Take>
DEM_HD inline void for_each_element_within(const boundary_view<Real>& b, const typename Space::params& coord, const typename Space::position& x,
                                           Real limit, Take&& take) {
  for (std::uint32_t k = 0; k < b.num_analytic; ++k) {
    const element<Real>& e = b.elements[b.analytic[k]];
    const frame<Real>& f = b.frames[e.boundary];
    const vec3<Real> local = f.to_local(Space::relative_to(coord, x, f.origin));
    if (!(closest(e, local).distance >= limit)) take(b.analytic[k]);
  }
  for (std::uint32_t m = 0; m < b.num_meshes; ++m) {
    const frame<Real>& f = b.frames[b.meshes[m].boundary];
    const vec3<Real> local = f.to_local(Space::relative_to(coord, x, f.origin));
    query_bvh(b.nodes, b.meshes[m].root, b.items, local, limit, [&](std::uint32_t t) {
      if (closest(b.elements[t], local).distance < limit) take(t);
    });
  }
}

// Count (Fill = false) or write (Fill = true, sorted) the elements within `reach` of the surface of
// each particle's bounding sphere.
template <class Space, bool Fill>
struct wall_search_kernel {
  using Real = typename Space::real;
  typename Space::params coord;
  const typename Space::position* pos;
  const Real* radius;
  boundary_view<Real> b;
  Real reach;
  std::uint32_t* count;          // Fill = false: per particle; Fill = true: offsets (exclusive scan)
  std::uint32_t* entry_element;  // Fill = true only
  family::mask_view families;    // boundaries of a family whose contacts with the particle's are disabled are not listed

  DEM_HD void operator()(index_t i) const {
    std::uint32_t n = 0;
    const std::uint32_t base = Fill ? count[i] : 0;
    const bool masked = families.active();
    for_each_element_within<Space>(b, coord, pos[i], radius[i] + reach, [&](std::uint32_t e) {
      if (masked && families.wall_disabled(i, b.elements[e].boundary)) return;
      if constexpr (Fill) entry_element[base + n] = e;
      ++n;
    });
    if constexpr (Fill) {
      // Insertion sort of the particle's few entries: element order is the summation order.
      for (std::uint32_t a = base + 1; a < base + n; ++a) {
        const std::uint32_t v = entry_element[a];
        std::uint32_t j = a;
        for (; j > base && entry_element[j - 1] > v; --j) entry_element[j] = entry_element[j - 1];
        entry_element[j] = v;
      }
    } else {
      count[i] = n;
    }
  }
};

// Local validity (contact/local_validity.hpp): per particle past its budget (overrun[k]), every
// element within `reach` of its bounding sphere now must be in its wall list (sorted by element);
// adds 1 to *missing otherwise.
template <class Space>
struct wall_overrun_check_kernel {
  using Real = typename Space::real;
  typename Space::params coord;
  const typename Space::position* pos;
  const Real* radius;
  boundary_view<Real> b;
  Real reach;
  const std::uint32_t* offset;
  const std::uint32_t* entry_element;
  const std::uint32_t* overrun;
  family::mask_view families;
  std::uint32_t* missing;

  DEM_HD void operator()(index_t k) const {
    const std::uint32_t i = overrun[k];
    const std::uint32_t first = offset[i], last = offset[i + 1];
    for_each_element_within<Space>(b, coord, pos[i], radius[i] + reach, [&](std::uint32_t e) {
      if (families.active() && families.wall_disabled(i, b.elements[e].boundary)) return;
      std::uint32_t lo = first, hi = last;
      while (lo < hi) {
        const std::uint32_t mid = lo + (hi - lo) / 2;
        if (entry_element[mid] < e) lo = mid + 1;
        else hi = mid;
      }
      if (lo == last || entry_element[lo] != e) atomic::add(missing, 1u);
    });
  }
};

struct zero_kernel {
  std::uint32_t* out;
  DEM_HD void operator()(index_t i) const { out[i] = 0; }
};

DEM_HD inline std::uint64_t wall_key(std::uint32_t particle_id, std::uint32_t element) {
  return (static_cast<std::uint64_t>(particle_id) << 32) | element;
}

inline constexpr std::uint32_t not_carried = 0xFFFFFFFFu;

// Per particle: the key of each of its entries, and where the entry was in the previous list
// (not_carried if it is new).
struct wall_key_kernel {
  const std::uint32_t* offset;
  const std::uint32_t* entry_element;
  const std::uint32_t* id;
  const std::uint64_t* old_key;    // sorted
  const std::uint32_t* old_index;  // entry index in the old list for each sorted key
  std::uint32_t old_count;
  std::uint64_t* key;
  std::uint32_t* index;
  std::uint32_t* from;
  DEM_HD void operator()(index_t i) const {
    for (std::uint32_t e = offset[i]; e < offset[i + 1]; ++e) {
      const std::uint64_t k = wall_key(id[i], entry_element[e]);
      key[e] = k;
      index[e] = e;
      const std::uint32_t p = broad::lower_bound(old_key, old_count, k);
      from[e] = (p < old_count && old_key[p] == k) ? old_index[p] : not_carried;
    }
  }
};

// out[e] = in[from[e]], or a fresh value for new entries.
template <class T>
struct carry_kernel {
  const std::uint32_t* from;
  const T* in;
  T* out;
  DEM_HD void operator()(index_t e) const { out[e] = from[e] != not_carried ? in[from[e]] : T{}; }
};

// One component of the load on boundary `which` from entry e's stored results (force on the
// boundary, torque about its origin), for the backend's deterministic sums.
template <class Real>
struct load_component {
  const std::uint32_t* entry_element;
  const element<Real>* elements;
  const vec3<Real>* force;
  const vec3<Real>* torque;
  std::uint32_t which;
  int component;  // 0..2 force, 3..5 torque
  DEM_HD double operator()(index_t e) const {
    if (elements[entry_element[e]].boundary != which) return 0.0;
    const vec3<Real>& v = component < 3 ? force[e] : torque[e];
    return static_cast<double>(v[component % 3]);
  }
};

}  // namespace dem::boundary
