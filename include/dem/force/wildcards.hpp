#pragma once
// User properties ("wildcards", DEM-Engine's word) of owners and geometries, as a law sees them.
//
// A law that declares `using owner_wildcards = W;` and/or `using geometry_wildcards = G;`
// (trivially copyable structs) is called as law(contact, params, history, wildcards<W, G>&).
// It reads both bodies' values, which are those at the start of the step for every contact.
// A law that also declares `static constexpr bool writes_owner_wildcards = true;` (or
// writes_geometry_wildcards) may set the matching `*_increment_*` members; each body's increments are summed in a fixed order (the same order
// the forces are gathered in) and added with `W::operator+=` once per step, after all contacts
// are evaluated. No atomics: the result does not depend on thread count or contact order.
// For spheres an owner and its geometry are the same particle; walls have value-initialised
// properties and their increments are dropped.
#include "dem/config.hpp"

namespace dem::force {

// Wildcard type of laws that declare none.
struct no_wildcards {};

template <class Owner, class Geometry>
struct wildcards {
  const Owner& owner_a;
  const Owner& owner_b;
  const Geometry& geometry_a;
  const Geometry& geometry_b;
  Owner owner_increment_a{};
  Owner owner_increment_b{};
  Geometry geometry_increment_a{};
  Geometry geometry_increment_b{};
};

}  // namespace dem::force
