#pragma once
// Materials and material pairs. Properties are per material; any mixed property can be
// overridden for one pair. Force laws turn a material_pair into their own parameter struct
// once, on the host (see force/*.hpp, make_params).
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace dem {

using material_id = std::uint16_t;

struct material {
  std::string name = "material";
  double density = 2500.0;          // kg/m^3
  double youngs_modulus = 1.0e7;    // Pa
  double poisson_ratio = 0.3;       // in (-1, 0.5]
  double restitution = 0.5;         // in (0, 1]
  double friction = 0.5;            // sliding friction coefficient, >= 0
  double rolling_friction = 0.0;    // rolling resistance coefficient, >= 0
  double rolling_damping = 0.3;     // EPSD rolling: viscous ratio eta_r, >= 0
  double work_of_adhesion = 0.0;    // cohesive laws: J/m^2, >= 0 (pull-off 2 pi w R*)
  double cohesion_range = 0.0;      // cohesive laws: gap in m at which the pull has faded, >= 0
  bool rigid = false;               // boundaries only: E -> infinity in the pair's moduli (Chung & Ooi's rigid walls)
  // A custom force law's own properties, by name (force/properties.hpp): every material must give
  // each one the law declares, and nothing else.
  std::map<std::string, double> properties;
};

// Values used by the force laws for one pair of materials (symmetric).
struct material_pair {
  double effective_youngs = 0;   // E*:  1/E* = (1-v_a^2)/E_a + (1-v_b^2)/E_b
  double effective_shear = 0;    // G*:  1/G* = 2(2-v_a)(1+v_a)/E_a + 2(2-v_b)(1+v_b)/E_b
  double harmonic_youngs = 0;    // 2 E_a E_b / (E_a + E_b); linear law: k_n = 2 * this * R*
  double restitution = 0;        // mean of the two, unless overridden
  double friction = 0;           // mean of the two, unless overridden
  double rolling_friction = 0;   // mean of the two, unless overridden
  double rolling_damping = 0;    // mean of the two, unless overridden
  double work_of_adhesion = 0;   // geometric mean sqrt(w_a w_b), unless overridden
  double cohesion_range = 0;     // mean of the two, unless overridden
  double normal_stiffness = 0;   // linear law: k_n in N/m when > 0 (else derived from E and R*)
  double tangential_stiffness_ratio = 2.0 / 7.0;  // linear law: k_t / k_n
};

// Per-pair overrides; unset fields keep the mixed value.
struct pair_override {
  std::optional<double> restitution, friction, rolling_friction, rolling_damping, work_of_adhesion, cohesion_range;
  std::optional<double> effective_youngs, effective_shear;
  std::optional<double> normal_stiffness, tangential_stiffness_ratio;
  std::map<std::string, double> properties;  // a custom law's own (force/properties.hpp), replacing the law's mix
};

namespace detail {
inline void require(bool ok, const std::string& what, const std::string& who, double value, const char* rule) {
  if (ok) return;
  std::ostringstream s;
  s.precision(10);
  s << "dem: " << what << " of " << who << " is " << value << ", but it must be " << rule;
  throw std::invalid_argument(s.str());
}
}  // namespace detail

class material_table {
 public:
  // Adds a material after checking it; returns its id.
  material_id add(const material& m) {
    const std::string who = "material '" + m.name + "' (id " + std::to_string(materials_.size()) + ")";
    validate(m, who);
    if (materials_.size() >= std::numeric_limits<material_id>::max())
      throw std::invalid_argument("dem: too many materials (limit " +
                                  std::to_string(std::numeric_limits<material_id>::max()) + ")");
    materials_.push_back(m);
    return static_cast<material_id>(materials_.size() - 1);
  }

  void set_pair(material_id a, material_id b, const pair_override& o) {
    check_id(a);
    check_id(b);
    const std::string who = "material pair (" + std::to_string(a) + ", " + std::to_string(b) + ")";
    using detail::require;
    if (o.restitution) require(*o.restitution > 0 && *o.restitution <= 1, "restitution", who, *o.restitution, "in (0, 1]");
    if (o.friction) require(*o.friction >= 0 && std::isfinite(*o.friction), "friction", who, *o.friction, ">= 0 and finite");
    if (o.rolling_friction)
      require(*o.rolling_friction >= 0 && std::isfinite(*o.rolling_friction), "rolling_friction", who, *o.rolling_friction, ">= 0 and finite");
    if (o.rolling_damping)
      require(*o.rolling_damping >= 0 && std::isfinite(*o.rolling_damping), "rolling_damping", who, *o.rolling_damping, ">= 0 and finite");
    if (o.work_of_adhesion)
      require(*o.work_of_adhesion >= 0 && std::isfinite(*o.work_of_adhesion), "work_of_adhesion", who, *o.work_of_adhesion, ">= 0 and finite");
    if (o.cohesion_range)
      require(*o.cohesion_range >= 0 && std::isfinite(*o.cohesion_range), "cohesion_range", who, *o.cohesion_range, ">= 0 and finite");
    if (o.effective_youngs) require(*o.effective_youngs > 0 && std::isfinite(*o.effective_youngs), "effective_youngs", who, *o.effective_youngs, "> 0 and finite");
    if (o.effective_shear) require(*o.effective_shear > 0 && std::isfinite(*o.effective_shear), "effective_shear", who, *o.effective_shear, "> 0 and finite");
    if (o.normal_stiffness) require(*o.normal_stiffness > 0 && std::isfinite(*o.normal_stiffness), "normal_stiffness", who, *o.normal_stiffness, "> 0 and finite");
    if (o.tangential_stiffness_ratio)
      require(*o.tangential_stiffness_ratio >= 0 && std::isfinite(*o.tangential_stiffness_ratio), "tangential_stiffness_ratio", who, *o.tangential_stiffness_ratio, ">= 0 and finite");
    for (const auto& [name, v] : o.properties) {
      if (name.empty() || name.find('\n') != std::string::npos)
        throw std::invalid_argument("dem: " + who + " has a property named '" + name + "'; names must be non-empty and on one line");
      require(std::isfinite(v), "property '" + name + "'", who, v, "finite");
    }
    overrides_[key(a, b)] = o;
  }

  material_pair pair(material_id a, material_id b) const {
    check_id(a);
    check_id(b);
    const material& A = materials_[a];
    const material& B = materials_[b];
    material_pair p;
    // A rigid side adds no compliance (its terms vanish as E -> infinity). Two rigid materials never
    // meet (both are boundaries): they mix as if neither were, so that every table entry stays finite.
    const bool ra = A.rigid && !B.rigid, rb = B.rigid && !A.rigid;
    p.effective_youngs = 1.0 / ((ra ? 0 : (1 - A.poisson_ratio * A.poisson_ratio) / A.youngs_modulus) +
                                (rb ? 0 : (1 - B.poisson_ratio * B.poisson_ratio) / B.youngs_modulus));
    p.effective_shear = 1.0 / ((ra ? 0 : 2 * (2 - A.poisson_ratio) * (1 + A.poisson_ratio) / A.youngs_modulus) +
                               (rb ? 0 : 2 * (2 - B.poisson_ratio) * (1 + B.poisson_ratio) / B.youngs_modulus));
    p.harmonic_youngs = ra ? 2 * B.youngs_modulus : rb ? 2 * A.youngs_modulus
                                                       : 2 * A.youngs_modulus * B.youngs_modulus / (A.youngs_modulus + B.youngs_modulus);
    p.restitution = 0.5 * (A.restitution + B.restitution);
    p.friction = 0.5 * (A.friction + B.friction);
    p.rolling_friction = 0.5 * (A.rolling_friction + B.rolling_friction);
    p.rolling_damping = 0.5 * (A.rolling_damping + B.rolling_damping);
    p.work_of_adhesion = std::sqrt(A.work_of_adhesion * B.work_of_adhesion);
    p.cohesion_range = 0.5 * (A.cohesion_range + B.cohesion_range);
    if (auto it = overrides_.find(key(a, b)); it != overrides_.end()) {
      const pair_override& o = it->second;
      if (o.restitution) p.restitution = *o.restitution;
      if (o.friction) p.friction = *o.friction;
      if (o.rolling_friction) p.rolling_friction = *o.rolling_friction;
      if (o.rolling_damping) p.rolling_damping = *o.rolling_damping;
      if (o.work_of_adhesion) p.work_of_adhesion = *o.work_of_adhesion;
      if (o.cohesion_range) p.cohesion_range = *o.cohesion_range;
      if (o.effective_youngs) p.effective_youngs = *o.effective_youngs;
      if (o.effective_shear) p.effective_shear = *o.effective_shear;
      if (o.normal_stiffness) p.normal_stiffness = *o.normal_stiffness;
      if (o.tangential_stiffness_ratio) p.tangential_stiffness_ratio = *o.tangential_stiffness_ratio;
    }
    return p;
  }

  std::size_t size() const { return materials_.size(); }
  // The pair overrides set so far, keyed by (smaller id, larger id).
  const std::map<std::pair<material_id, material_id>, pair_override>& overrides() const { return overrides_; }
  const material& operator[](material_id i) const { check_id(i); return materials_[i]; }

  static void validate(const material& m, const std::string& who) {
    using detail::require;
    require(m.density > 0 && std::isfinite(m.density), "density", who, m.density, "> 0 and finite");
    require(m.youngs_modulus > 0 && std::isfinite(m.youngs_modulus), "youngs_modulus", who, m.youngs_modulus, "> 0 and finite");
    require(m.poisson_ratio > -1 && m.poisson_ratio <= 0.5, "poisson_ratio", who, m.poisson_ratio, "in (-1, 0.5]");
    require(m.restitution > 0 && m.restitution <= 1, "restitution", who, m.restitution, "in (0, 1]");
    require(m.friction >= 0 && std::isfinite(m.friction), "friction", who, m.friction, ">= 0 and finite");
    require(m.rolling_friction >= 0 && std::isfinite(m.rolling_friction), "rolling_friction", who, m.rolling_friction, ">= 0 and finite");
    require(m.rolling_damping >= 0 && std::isfinite(m.rolling_damping), "rolling_damping", who, m.rolling_damping, ">= 0 and finite");
    require(m.work_of_adhesion >= 0 && std::isfinite(m.work_of_adhesion), "work_of_adhesion", who, m.work_of_adhesion, ">= 0 and finite");
    require(m.cohesion_range >= 0 && std::isfinite(m.cohesion_range), "cohesion_range", who, m.cohesion_range, ">= 0 and finite");
    for (const auto& [name, v] : m.properties) {
      if (name.empty() || name.find('\n') != std::string::npos)
        throw std::invalid_argument("dem: " + who + " has a property named '" + name + "'; names must be non-empty and on one line");
      require(std::isfinite(v), "property '" + name + "'", who, v, "finite");
    }
  }

 private:
  void check_id(material_id i) const {
    if (i >= materials_.size())
      throw std::invalid_argument("dem: material id " + std::to_string(i) + " does not exist (" +
                                  std::to_string(materials_.size()) + " materials defined)");
  }
  static std::pair<material_id, material_id> key(material_id a, material_id b) {
    return a < b ? std::pair{a, b} : std::pair{b, a};
  }
  std::vector<material> materials_;
  std::map<std::pair<material_id, material_id>, pair_override> overrides_;
};

}  // namespace dem
