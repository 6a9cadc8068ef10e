#pragma once
// Precision policies: which floating-point type each part of a step uses. The choice is made at
// compile time and shows in the memory footprint (Simulator::bytes_per_particle/_contact).
//
// A precision policy P provides:
//   using real     = float | double;  // contact math, per-contact storage (history, results),
//                                     // velocities, radii, masses: everything not listed below
//   using position = float | double;  // stored positions of coord::floating (coord::voxel stores
//                                     // integers and ignores it)
//   using gather   = float | double;  // per-particle sum of contact forces and torques (registers
//                                     // only; the stored total is `real`)
//   using accum    = float | double;  // reductions over particles (energies, sums)
//   static constexpr const char* name;
//
// `mixed` keeps the per-contact work and storage in float (the bulk of the bytes and flops) and
// uses double where values accumulate: positions (a float position at 1 km moves in steps of
// 6e-5 m), the force gather of a particle with many contacts, energy sums.
#include <type_traits>

namespace dem::precision {

struct single {
  using real = float;
  using position = float;
  using gather = float;
  using accum = double;
  static constexpr const char* name = "single";
};

struct double_ {
  using real = double;
  using position = double;
  using gather = double;
  using accum = double;
  static constexpr const char* name = "double";
};

struct mixed {
  using real = float;
  using position = double;
  using gather = double;
  using accum = double;
  static constexpr const char* name = "mixed";
};

namespace detail {
template <class P>
struct position_of { using type = typename P::real; };
template <class P>
  requires requires { typename P::position; }
struct position_of<P> { using type = typename P::position; };
template <class P>
struct gather_of { using type = typename P::real; };
template <class P>
  requires requires { typename P::gather; }
struct gather_of<P> { using type = typename P::gather; };
}  // namespace detail

// `position` and `gather` are optional: a policy without them uses `real` for both.
template <class P>
using position_t = typename detail::position_of<P>::type;
template <class P>
using gather_t = typename detail::gather_of<P>::type;

template <class P>
concept policy = requires {
  typename P::real;
  typename P::accum;
  { P::name } -> std::convertible_to<const char*>;
} && std::is_floating_point_v<typename P::real> && std::is_floating_point_v<typename P::accum> &&
    std::is_floating_point_v<position_t<P>> && std::is_floating_point_v<gather_t<P>>;

}  // namespace dem::precision
