#pragma once
// Precision policies: the real type that flows through every kernel, and the type used where
// values are accumulated over many particles or steps (energies, sums).
//
// A precision policy P provides:
//   using real  = float | double;   // per-particle and per-contact arithmetic and storage
//   using accum = float | double;   // host-side reductions (energy, momentum)
//   static constexpr const char* name;
#include <type_traits>

namespace dem::precision {

struct single {
  using real = float;
  using accum = double;
  static constexpr const char* name = "single";
};

struct double_ {
  using real = double;
  using accum = double;
  static constexpr const char* name = "double";
};

template <class P>
concept policy = requires {
  typename P::real;
  typename P::accum;
  { P::name } -> std::convertible_to<const char*>;
} && std::is_floating_point_v<typename P::real> && std::is_floating_point_v<typename P::accum>;

}  // namespace dem::precision
