#pragma once
// A force law's own per-material properties. material_pair holds what the built-in laws need
// (E*, G*, e, mu, ...); a bonded-particle or a wet-cohesion law also needs a bond strength or a
// liquid volume. Such a law declares them in law<Real>:
//
//   struct properties { double bond_strength; double liquid_volume; std::uint32_t max_bonds; };
//   static constexpr auto property_fields = std::make_tuple(
//       dem::force::property("bond_strength", &properties::bond_strength),
//       dem::force::property("liquid_volume", &properties::liquid_volume),
//       dem::force::property("max_bonds", &properties::max_bonds));
//   static properties mix(const properties& a, const properties& b);          // the pair's values
//   static params make_params(const dem::material_pair&, const properties&);  // instead of (material_pair)
//
// Users give the values by name, per material (`material::properties["bond_strength"] = 2e6`), and
// may override the mixed value for a pair (`pair_override::properties`). When the parameter table
// is built (Simulator::prepare) each material must give every declared property, and nothing
// else; a value must fit its field's type (integers whole and in range, bool 0 or 1, floating
// point finite). Each failure is a std::invalid_argument naming the law, the property, the material
// or pair and the value. The resulting params go to the device like any other: both backends.
#include <algorithm>
#include <cmath>
#include <map>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "dem/material/material.hpp"

namespace dem::force {

// One declared property: its name and the member of the law's `properties` struct it fills.
template <class S, class T>
struct property_field {
  static_assert(std::is_arithmetic_v<T>, "dem::force::property: a material property must be a number or a bool");
  const char* name;
  T S::*member;
};
template <class S, class T>
constexpr property_field<S, T> property(const char* name, T S::*member) {
  return {name, member};
}

// Whether law L declares properties of its own.
template <class L>
concept declares_properties = requires {
  typename L::properties;
  L::property_fields;
};

namespace detail {

[[noreturn]] inline void property_error(const std::string& message) { throw std::invalid_argument("dem: " + message); }

inline std::string number(double v) {
  std::ostringstream s;
  s.precision(10);
  s << v;
  return s.str();
}

// `value` as a T, or an error naming `what` (property, law and owner).
template <class T>
T property_value(double value, const std::string& what) {
  if constexpr (std::is_same_v<T, bool>) {
    if (value != 0 && value != 1) property_error(what + " is " + number(value) + ", but it must be 0 or 1 (a bool)");
    return value != 0;
  } else if constexpr (std::is_integral_v<T>) {
    if (!(value == std::floor(value)) || value < static_cast<double>(std::numeric_limits<T>::lowest()) ||
        value > static_cast<double>(std::numeric_limits<T>::max()))
      property_error(what + " is " + number(value) + ", but it must be a whole number in [" + number(double(std::numeric_limits<T>::lowest())) +
                     ", " + number(double(std::numeric_limits<T>::max())) + "]");
    return static_cast<T>(value);
  } else {
    if (!std::isfinite(value)) property_error(what + " is " + number(value) + ", but it must be finite");
    return static_cast<T>(value);
  }
}

template <class L>
std::string declared_names() {
  std::string out;
  std::apply([&](const auto&... f) { ((out += (out.empty() ? "" : ", ") + std::string(f.name)), ...); }, L::property_fields);
  return out;
}

template <class L>
bool declares(const std::string& name) {
  bool found = false;
  std::apply([&](const auto&... f) { ((found = found || name == f.name), ...); }, L::property_fields);
  return found;
}

inline std::string material_who(const material& m, material_id id) { return "material '" + m.name + "' (id " + std::to_string(id) + ")"; }

}  // namespace detail

namespace detail {

// Sets the field called `name` of p from `value` (a declared name: callers check).
template <class L>
void assign_property(typename L::properties& p, const std::string& name, double value, const std::string& what) {
  std::apply(
      [&](const auto&... f) {
        (
            [&] {
              if (name != f.name) return;
              using T = std::remove_reference_t<decltype(p.*(f.member))>;
              p.*(f.member) = property_value<T>(value, what);
            }(),
            ...);
      },
      L::property_fields);
}

template <class L>
void check_declared(const std::map<std::string, double>& props, const std::string& who, const char* law) {
  for (const auto& entry : props)
    if (!declares<L>(entry.first))
      property_error(who + " sets property '" + entry.first + "', which force law " + law + " does not declare (it declares: " +
                     declared_names<L>() + ")");
}

inline std::string pair_who(const std::pair<material_id, material_id>& key) {
  return "the override of material pair (" + std::to_string(key.first) + ", " + std::to_string(key.second) + ")";
}

}  // namespace detail

// The law's properties of material `id`, from its named values.
template <class L>
typename L::properties material_properties(const material_table& t, material_id id, const char* law) {
  const material& m = t[id];
  const std::string who = detail::material_who(m, id);
  detail::check_declared<L>(m.properties, who, law);
  typename L::properties p{};
  std::apply(
      [&](const auto&... f) {
        ((m.properties.count(f.name) ? void()
                                     : detail::property_error("force law " + std::string(law) + " needs property '" + f.name + "' of " + who +
                                                              "; set it with material.properties[\"" + f.name + "\"]")),
         ...);
      },
      L::property_fields);
  for (const auto& entry : m.properties)
    detail::assign_property<L>(p, entry.first, entry.second, "property '" + entry.first + "' of " + who + " (force law " + law + ")");
  return p;
}

// The law's parameter table for every ordered pair of materials (row-major, a * size + b): from the
// pair's mixed values and, for a law that declares them, its own properties, each material's read
// once, mixed by the law's rule and replaced by the pair's overrides. A law that declares none
// refuses materials and overrides that set some.
template <class L>
std::vector<typename L::params> law_param_table(const material_table& t, const char* law) {
  const std::size_t m = t.size();
  std::vector<typename L::params> table(m * m);
  if constexpr (declares_properties<L>) {
    using props = typename L::properties;
    std::vector<props> own(m);
    for (std::size_t a = 0; a < m; ++a) own[a] = material_properties<L>(t, static_cast<material_id>(a), law);
    for (const auto& [key, o] : t.overrides()) detail::check_declared<L>(o.properties, detail::pair_who(key), law);
    for (std::size_t a = 0; a < m; ++a)
      for (std::size_t b = 0; b < m; ++b) {
        const auto ia = static_cast<material_id>(a), ib = static_cast<material_id>(b);
        props q = L::mix(own[a], own[b]);
        if (const auto it = t.overrides().find({std::min(ia, ib), std::max(ia, ib)}); it != t.overrides().end())
          for (const auto& entry : it->second.properties)
            detail::assign_property<L>(q, entry.first, entry.second,
                                       "property '" + entry.first + "' of " + detail::pair_who(it->first) + " (force law " + law + ")");
        table[a * m + b] = L::make_params(t.pair(ia, ib), q);
      }
  } else {
    for (std::size_t a = 0; a < m; ++a)
      if (!t[static_cast<material_id>(a)].properties.empty())
        detail::property_error(detail::material_who(t[static_cast<material_id>(a)], static_cast<material_id>(a)) + " sets property '" +
                               t[static_cast<material_id>(a)].properties.begin()->first + "', but force law " + law + " declares no material properties");
    for (const auto& [key, o] : t.overrides())
      if (!o.properties.empty())
        detail::property_error(detail::pair_who(key) + " sets property '" + o.properties.begin()->first + "', but force law " + law +
                               " declares no material properties");
    for (std::size_t a = 0; a < m; ++a)
      for (std::size_t b = 0; b < m; ++b) table[a * m + b] = L::make_params(t.pair(static_cast<material_id>(a), static_cast<material_id>(b)));
  }
  return table;
}

}  // namespace dem::force
