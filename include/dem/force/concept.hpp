#pragma once
// The force-law concept. A force policy F provides `template <class Real> struct law` (L) with:
//   struct params;      trivially copyable; built once per material pair on the host
//   struct history;     trivially copyable, value-initialised to "no history" (or force::no_history)
//   static params make_params(const material_pair&);
//   DEM_HD contact_force<Real> operator()(const contact<Real>&, const params&, history&) const;
// and F provides `static constexpr const char* name` and
//   static double stable_time_step(const material&, const material_pair& self, double radius, double mass);
// Optional: `DEM_HD static Real elastic_energy(const contact<Real>&, const params&, const history&)`.
#include <type_traits>

#include "dem/force/contact.hpp"
#include "dem/material/material.hpp"

namespace dem::force {

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
  static_assert(requires(const material_pair& mp) {
    { L::make_params(mp) } -> std::same_as<typename L::params>;
  }, "dem force law: law<Real> must define `static params make_params(const dem::material_pair&)`.");
  static_assert(requires(const L& law, const contact<Real>& c, const typename L::params& p, typename L::history& h) {
    { law(c, p, h) } -> std::same_as<contact_force<Real>>;
  }, "dem force law: law<Real> must define `DEM_HD contact_force<Real> operator()(const contact<Real>&, const params&, history&) const`.");
  static_assert(requires(const material& m, const material_pair& mp) {
    { F::stable_time_step(m, mp, 1.0, 1.0) } -> std::convertible_to<double>;
  }, "dem force law: the force policy must define `static double stable_time_step(const material&, const material_pair&, double radius, double mass)`.");
  return true;
}

}  // namespace dem::force
