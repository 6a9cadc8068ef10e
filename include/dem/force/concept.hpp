#pragma once
// The force-law concept (docs/force-laws.md has the guide). A force policy F provides
//   static constexpr const char* name;
//   static double stable_time_step(const material&, const material_pair& self, double radius, double mass);
//   template <class Real> struct law;   // L below
// and L provides
//   struct params;      trivially copyable; built once per material pair on the host
//   struct history;     trivially copyable, value-initialised when a contact appears
//                       (`using history = dem::force::no_history;` keeps none: nothing stored)
//   static params make_params(const material_pair&);
//   DEM_HD contact_force<Real> operator()(const contact<Real>&, const params&, history&) const;
// Optional members, each a capability the kernels see at compile time (nothing is loaded or
// stored for a capability a law does not declare):
//   using owner_wildcards = W; using geometry_wildcards = G;   user properties (force/wildcards.hpp);
//       the call then takes a fourth argument, wildcards<W, G>&
//   static constexpr bool writes_owner_wildcards = true;       the law adds increments (W::operator+=);
//   static constexpr bool writes_geometry_wildcards = true;    likewise for G
//   DEM_HD static Real range(const params&);                   acts up to this gap beyond touching
//                                                              (cohesion); contact detection honours it
//   DEM_HD static Real elastic_energy(const contact<Real>&, const params&, const history&);
//   static constexpr bool sets_torque_only_force = false;     never sets contact_force::torque_only_force:
//                                                              on spheres, B's torque is then derived
//                                                              from A's (12 bytes per pair less)
#include <concepts>
#include <type_traits>

#include "dem/force/contact.hpp"
#include "dem/force/wildcards.hpp"
#include "dem/force/properties.hpp"
#include "dem/material/material.hpp"

namespace dem::force {

namespace detail {
template <class L> struct owner_wildcards_of { using type = no_wildcards; };
template <class L> requires requires { typename L::owner_wildcards; }
struct owner_wildcards_of<L> { using type = typename L::owner_wildcards; };
template <class L> struct geometry_wildcards_of { using type = no_wildcards; };
template <class L> requires requires { typename L::geometry_wildcards; }
struct geometry_wildcards_of<L> { using type = typename L::geometry_wildcards; };
}  // namespace detail

// What a law declares, with defaults for what it leaves out.
template <class L>
struct law_traits {
  using params = typename L::params;
  using history = typename L::history;
  using owner_wildcards = typename detail::owner_wildcards_of<L>::type;
  using geometry_wildcards = typename detail::geometry_wildcards_of<L>::type;
  using wildcards_type = wildcards<owner_wildcards, geometry_wildcards>;
  static constexpr bool has_history = !std::is_empty_v<history>;
  static constexpr bool has_owner_wildcards = requires { typename L::owner_wildcards; };
  static constexpr bool has_geometry_wildcards = requires { typename L::geometry_wildcards; };
  static constexpr bool has_wildcards = has_owner_wildcards || has_geometry_wildcards;
  static constexpr bool writes_owner_wildcards = [] {
    if constexpr (requires { { L::writes_owner_wildcards } -> std::convertible_to<bool>; }) return bool(L::writes_owner_wildcards);
    else return false;
  }();
  static constexpr bool writes_geometry_wildcards = [] {
    if constexpr (requires { { L::writes_geometry_wildcards } -> std::convertible_to<bool>; }) return bool(L::writes_geometry_wildcards);
    else return false;
  }();
  static constexpr bool writes_wildcards = writes_owner_wildcards || writes_geometry_wildcards;
  static constexpr bool has_range = requires(const params& p) { L::range(p); };
  static constexpr bool sets_torque_only_force = [] {
    if constexpr (requires { { L::sets_torque_only_force } -> std::convertible_to<bool>; }) return bool(L::sets_torque_only_force);
    else return true;  // a law that does not say may set it
  }();
};

template <class L, class Real>
concept has_elastic_energy = requires(const contact<Real>& c, const typename L::params& p, const typename L::history& h) {
  { L::elastic_energy(c, p, h) } -> std::convertible_to<Real>;
};

// Checks a force policy for one real type; each failure names what is missing.
template <class F, class Real>
constexpr bool check_law() {
  static_assert(requires { F::name; }, "dem force law: the force policy must define `static constexpr const char* name`.");
  static_assert(requires { typename F::template law<Real>; },
                "dem force law: the force policy must define `template <class Real> struct law`.");
  using L = typename F::template law<Real>;
  static_assert(requires { typename L::params; }, "dem force law: law<Real> must define `struct params` (per material pair).");
  static_assert(requires { typename L::history; },
                "dem force law: law<Real> must define `struct history` (use `using history = dem::force::no_history;` if it keeps none).");
  static_assert(std::is_trivially_copyable_v<typename L::params>, "dem force law: law<Real>::params must be trivially copyable.");
  static_assert(std::is_trivially_copyable_v<typename L::history>, "dem force law: law<Real>::history must be trivially copyable.");
  if constexpr (declares_properties<L>) {
    using Props = typename L::properties;
    static_assert(std::is_trivially_copyable_v<Props>, "dem force law: law<Real>::properties must be trivially copyable.");
    static_assert(requires(const Props& a) {
      { L::mix(a, a) } -> std::same_as<Props>;
    }, "dem force law: a law that declares `properties` must define `static properties mix(const properties&, const properties&)` (the value for a pair of materials).");
    static_assert(requires(const material_pair& mp, const Props& q) {
      { L::make_params(mp, q) } -> std::same_as<typename L::params>;
    }, "dem force law: a law that declares `properties` must define `static params make_params(const dem::material_pair&, const properties&)`.");
    static_assert(std::tuple_size_v<std::remove_cvref_t<decltype(L::property_fields)>> > 0,
                  "dem force law: `property_fields` must list at least one dem::force::property(\"name\", &properties::member).");
  } else {
    static_assert(requires(const material_pair& mp) {
      { L::make_params(mp) } -> std::same_as<typename L::params>;
    }, "dem force law: law<Real> must define `static params make_params(const dem::material_pair&)`.");
  }
  using T = law_traits<L>;
  if constexpr (T::has_wildcards) {
    static_assert(std::is_trivially_copyable_v<typename T::owner_wildcards> && std::is_trivially_copyable_v<typename T::geometry_wildcards>,
                  "dem force law: law<Real>::owner_wildcards and geometry_wildcards must be trivially copyable.");
    static_assert(requires(const L& law, const contact<Real>& c, const typename L::params& p, typename L::history& h,
                           typename T::wildcards_type& w) {
      { law(c, p, h, w) } -> std::same_as<contact_force<Real>>;
    }, "dem force law: a law that declares owner_wildcards or geometry_wildcards must define `DEM_HD contact_force<Real> operator()(const contact<Real>&, const params&, history&, dem::force::wildcards<owner_wildcards, geometry_wildcards>&) const`.");
    if constexpr (T::writes_owner_wildcards)
      static_assert(requires(typename T::owner_wildcards& o) { o += o; },
                    "dem force law: a law with `writes_owner_wildcards = true` needs `DEM_HD owner_wildcards& operator+=(const owner_wildcards&)` (increments are summed per body).");
    if constexpr (T::writes_geometry_wildcards)
      static_assert(requires(typename T::geometry_wildcards& g) { g += g; },
                    "dem force law: a law with `writes_geometry_wildcards = true` needs `DEM_HD geometry_wildcards& operator+=(const geometry_wildcards&)` (increments are summed per body).");
  }
  static_assert(!T::writes_owner_wildcards || T::has_owner_wildcards,
                "dem force law: `writes_owner_wildcards = true` needs `using owner_wildcards = ...` in law<Real>.");
  static_assert(!T::writes_geometry_wildcards || T::has_geometry_wildcards,
                "dem force law: `writes_geometry_wildcards = true` needs `using geometry_wildcards = ...` in law<Real>.");
  if constexpr (!T::has_wildcards) {
    static_assert(requires(const L& law, const contact<Real>& c, const typename L::params& p, typename L::history& h) {
      { law(c, p, h) } -> std::same_as<contact_force<Real>>;
    }, "dem force law: law<Real> must define `DEM_HD contact_force<Real> operator()(const contact<Real>&, const params&, history&) const`.");
  }
  static_assert(requires(const material& m, const material_pair& mp) {
    { F::stable_time_step(m, mp, 1.0, 1.0) } -> std::convertible_to<double>;
  }, "dem force law: the force policy must define `static double stable_time_step(const material&, const material_pair&, double radius, double mass)` (force/time_step.hpp has helpers).");
  return true;
}

// Calls the law with or without user properties, as it declares.
template <class L, class Real>
DEM_HD inline contact_force<Real> evaluate(const L& law, const contact<Real>& c, const typename L::params& p,
                                          typename L::history& h, typename law_traits<L>::wildcards_type& w) {
  if constexpr (law_traits<L>::has_wildcards) return law(c, p, h, w);
  else return law(c, p, h);
}

}  // namespace dem::force
