#pragma once
// Stock clump templates, each centred on its centroid before the principal-frame step:
//   two_sphere(r, distance)               centres at (-distance/2, 0, 0) and (+distance/2, 0, 0)
//   three_sphere(r, distance, layout)     line: centres -distance, 0, +distance on x;
//                                         triangle: equilateral, side `distance`, in the xy plane
//   tetrahedral_four_sphere(r, edge)      centres on a regular tetrahedron of edge `edge`
// distance (edge) = 0 gives coincident spheres; below 2 r the spheres overlap.
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "dem/shape/clump/clump_template.hpp"

namespace dem::shape::clumps {

enum class layout { line, triangle };

namespace detail {
inline void check_stock(const std::string& name, double r, double distance, const char* distance_name) {
  if (!(r > 0) || !std::isfinite(r))
    throw std::invalid_argument("clump '" + name + "': radius must be positive and finite, got " + std::to_string(r));
  if (!(distance >= 0) || !std::isfinite(distance))
    throw std::invalid_argument("clump '" + name + "': " + distance_name + " must be non-negative and finite, got " +
                                std::to_string(distance));
}
}  // namespace detail

inline clump_template two_sphere(double r, double distance, material_id material = body_material) {
  detail::check_stock("two_sphere", r, distance, "distance");
  return clump_template("two_sphere", {{{-distance / 2, 0, 0}, r, material}, {{distance / 2, 0, 0}, r, material}});
}

inline clump_template three_sphere(double r, double distance, layout shape = layout::line, material_id material = body_material) {
  detail::check_stock("three_sphere", r, distance, "distance");
  if (shape == layout::line)
    return clump_template("three_sphere",
                          {{{-distance, 0, 0}, r, material}, {{0, 0, 0}, r, material}, {{distance, 0, 0}, r, material}});
  const double rc = distance / std::sqrt(3.0);  // circumradius of the triangle
  std::vector<clump_sphere> s;
  for (int k = 0; k < 3; ++k) {
    const double a = 2 * M_PI * k / 3;
    s.push_back({{rc * std::cos(a), rc * std::sin(a), 0}, r, material});
  }
  return clump_template("three_sphere", std::move(s));
}

inline clump_template tetrahedral_four_sphere(double r, double edge, material_id material = body_material) {
  detail::check_stock("tetrahedral_four_sphere", r, edge, "edge");
  const double a = edge / (2 * std::sqrt(2.0));  // (+-1, +-1, +-1) corners have edge 2 sqrt(2)
  return clump_template("tetrahedral_four_sphere", {{{a, a, a}, r, material},
                                                    {{a, -a, -a}, r, material},
                                                    {{-a, a, -a}, r, material},
                                                    {{-a, -a, a}, r, material}});
}

}  // namespace dem::shape::clumps
