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
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>

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

// The law's properties of material `id`, from its named values.
template <class L>
typename L::properties material_properties(const material_table& t, material_id id, const char* law) {
  const material& m = t[id];
  const std::string who = detail::material_who(m, id);
  for (const auto& [name, value] : m.properties)
    if (!detail::declares<L>(name))
      detail::property_error(who + " sets property '" + name + "', which force law " + law + " does not declare (it declares: " +
                             detail::declared_names<L>() + ")");
  typename L::properties p{};
  std::apply(
      [&](const auto&... f) {
        (
            [&] {
              const auto it = m.properties.find(f.name);
              if (it == m.properties.end())
                detail::property_error("force law " + std::string(law) + " needs property '" + f.name + "' of " + who + "; set it with material.properties[\"" +
                                       f.name + "\"]");
              using T = std::remove_reference_t<decltype(p.*(f.member))>;
              p.*(f.member) = detail::property_value<T>(it->second, "property '" + std::string(f.name) + "' of " + who + " (force law " + law + ")");
            }(),
            ...);
      },
      L::property_fields);
  return p;
}

// The pair's properties: the law's mix of the two materials', then the pair's overrides by name.
template <class L>
typename L::properties pair_properties(const material_table& t, material_id a, material_id b, const char* law) {
  typename L::properties p = L::mix(material_properties<L>(t, a, law), material_properties<L>(t, b, law));
  const auto it = t.overrides().find({std::min(a, b), std::max(a, b)});
  if (it == t.overrides().end()) return p;
  const std::string who = "the override of material pair (" + std::to_string(a) + ", " + std::to_string(b) + ")";
  for (const auto& entry : it->second.properties) {  // not a structured binding: lambdas below capture it (clang 14)
    const std::string& name = entry.first;
    const double value = entry.second;
    if (!detail::declares<L>(name))
      detail::property_error(who + " sets property '" + name + "', which force law " + law + " does not declare (it declares: " +
                             detail::declared_names<L>() + ")");
    std::apply(
        [&](const auto&... f) {
          (
              [&] {
                if (name != f.name) return;
                using T = std::remove_reference_t<decltype(p.*(f.member))>;
                p.*(f.member) = detail::property_value<T>(value, "property '" + name + "' of " + who + " (force law " + law + ")");
              }(),
              ...);
        },
        L::property_fields);
  }
  return p;
}

// The law's parameters for a pair of materials, from the pair's mixed values and, for a law that
// declares them, its own properties. A law that declares none refuses materials that set some.
template <class L>
typename L::params make_law_params(const material_table& t, material_id a, material_id b, const char* law) {
  if constexpr (declares_properties<L>) {
    return L::make_params(t.pair(a, b), pair_properties<L>(t, a, b, law));
  } else {
    for (material_id id : {a, b})
      if (!t[id].properties.empty())
        detail::property_error(detail::material_who(t[id], id) + " sets property '" + t[id].properties.begin()->first + "', but force law " + law +
                               " declares no material properties");
    if (const auto it = t.overrides().find({std::min(a, b), std::max(a, b)}); it != t.overrides().end() && !it->second.properties.empty())
      detail::property_error("the override of material pair (" + std::to_string(a) + ", " + std::to_string(b) + ") sets property '" +
                             it->second.properties.begin()->first + "', but force law " + law + " declares no material properties");
    return L::make_params(t.pair(a, b));
  }
}

}  // namespace dem::force
