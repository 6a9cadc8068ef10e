#pragma once
// The smaller and the larger of two values, with std::fmin's and std::fmax's results (a NaN
// argument is skipped; of equal values, +0 and -0, b is returned, as glibc does) but inline: in host
// code std::fmin and std::fmax are library calls (GCC inlines them only under
// -ffinite-math-only), and they were a quarter of a polyhedron's narrow phase against a finely
// faceted surface. The narrow phase relies on the skipping: a degenerate clipped corner gives a
// NaN depth that fmax(depth, 0) turns into 0.
#include "dem/config.hpp"

namespace dem {

template <class T>
DEM_HD constexpr T min_of(T a, T b) {
  const T m = a < b ? a : b;  // minsd
  return b != b ? a : m;
}
template <class T>
DEM_HD constexpr T max_of(T a, T b) {
  const T m = a > b ? a : b;  // maxsd
  return b != b ? a : m;
}

}  // namespace dem
