#pragma once
// A bounding-volume hierarchy over a mesh's triangles, built once on the host in the mesh's own
// frame. A rigid mesh never needs a refit: a query moves the sphere into the mesh's frame instead.
// Large triangles cost what small ones do (one leaf each), so a floor of two triangles under a
// million spheres does not make detection quadratic, as binning triangles into grid cells would
// for the cells they span.
#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "dem/config.hpp"
#include "dem/math/vec3.hpp"

namespace dem::boundary {

template <class Real>
struct bvh_node {
  vec3<Real> lo, hi;
  std::uint32_t first;  // leaf: first item; inner node: index of the left child (the right one follows it)
  std::uint32_t count;  // leaf: number of items (> 0); inner node: 0
};

// Builds the hierarchy over boxes[k] (lo, hi) by median splits along the longest axis of the
// centres, at most `leaf_size` items per leaf. `items` returns the item order the leaves refer to.
template <class Real>
std::vector<bvh_node<Real>> build_bvh(const std::vector<std::array<vec3d, 2>>& boxes, std::vector<std::uint32_t>& items,
                                      std::uint32_t leaf_size = 4) {
  std::vector<bvh_node<Real>> nodes;
  items.resize(boxes.size());
  for (std::uint32_t k = 0; k < boxes.size(); ++k) items[k] = k;
  if (boxes.empty()) return nodes;
  nodes.reserve(2 * boxes.size());
  struct task { std::uint32_t node, begin, end; };
  std::vector<task> todo;
  nodes.push_back({});
  todo.push_back({0, 0, static_cast<std::uint32_t>(boxes.size())});
  while (!todo.empty()) {
    const task t = todo.back();
    todo.pop_back();
    vec3d lo = boxes[items[t.begin]][0], hi = boxes[items[t.begin]][1], clo = lo, chi = hi;
    for (std::uint32_t k = t.begin; k < t.end; ++k) {
      const auto& b = boxes[items[k]];
      const vec3d c = (b[0] + b[1]) * 0.5;
      for (int a = 0; a < 3; ++a) {
        lo[a] = std::min(lo[a], b[0][a]);
        hi[a] = std::max(hi[a], b[1][a]);
        clo[a] = std::min(clo[a], c[a]);
        chi[a] = std::max(chi[a], c[a]);
      }
    }
    // Stored boxes are rounded outwards to Real, so that they still contain their items.
    auto down = [](double v) { const Real r = static_cast<Real>(v); return static_cast<double>(r) > v ? std::nextafter(r, Real(-1e30)) : r; };
    auto up = [](double v) { const Real r = static_cast<Real>(v); return static_cast<double>(r) < v ? std::nextafter(r, Real(1e30)) : r; };
    nodes[t.node].lo = {down(lo.x), down(lo.y), down(lo.z)};
    nodes[t.node].hi = {up(hi.x), up(hi.y), up(hi.z)};
    const std::uint32_t n = t.end - t.begin;
    if (n <= leaf_size) {
      nodes[t.node].first = t.begin;
      nodes[t.node].count = n;
      continue;
    }
    int axis = 0;
    const vec3d ext = chi - clo;
    if (ext.y > ext[axis]) axis = 1;
    if (ext.z > ext[axis]) axis = 2;
    const std::uint32_t mid = t.begin + n / 2;
    std::nth_element(items.begin() + t.begin, items.begin() + mid, items.begin() + t.end, [&](std::uint32_t p, std::uint32_t q) {
      const double cp = boxes[p][0][axis] + boxes[p][1][axis], cq = boxes[q][0][axis] + boxes[q][1][axis];
      return cp < cq || (cp == cq && p < q);
    });
    const auto left = static_cast<std::uint32_t>(nodes.size());
    nodes[t.node].first = left;
    nodes[t.node].count = 0;
    nodes.push_back({});
    nodes.push_back({});
    todo.push_back({left + 1, mid, t.end});
    todo.push_back({left, t.begin, mid});
  }
  return nodes;
}

// Squared distance from x to the box (0 inside).
template <class Real>
DEM_HD inline Real box_distance2(const bvh_node<Real>& b, const vec3<Real>& x) {
  Real d2 = 0;
  for (int a = 0; a < 3; ++a) {
    const Real lo = b.lo[a] - x[a], hi = x[a] - b.hi[a];
    const Real d = lo > Real(0) ? lo : (hi > Real(0) ? hi : Real(0));
    d2 += d * d;
  }
  return d2;
}

inline constexpr int bvh_stack_depth = 64;  // median splits: depth log2(items / leaf) + 1, far below 64

// Calls visit(item) for every item whose leaf box is within `reach` of x (x in the mesh's frame),
// leaves left to right. `nodes` holds every mesh's hierarchy, `root` is this mesh's: a node's
// `first` indexes the whole array (boundary_set::add_mesh shifts them by the root).
template <class Real, class Visit>
DEM_HD inline void query_bvh(const bvh_node<Real>* nodes, std::uint32_t root, const std::uint32_t* items, const vec3<Real>& x, Real reach,
                             Visit&& visit) {
  std::uint32_t stack[bvh_stack_depth];
  int top = 0;
  stack[top++] = root;
  const Real reach2 = reach * reach;
  while (top > 0) {
    const bvh_node<Real>& b = nodes[stack[--top]];
    if (!(box_distance2(b, x) < reach2)) continue;
    if (b.count > 0) {
      for (std::uint32_t k = 0; k < b.count; ++k) visit(items[b.first + k]);
    } else {
      stack[top++] = b.first + 1;
      stack[top++] = b.first;
    }
  }
}

}  // namespace dem::boundary
