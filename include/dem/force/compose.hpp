#pragma once
// force::composed<Normal, Damping, Tangential, Rolling, Twisting> — a force policy assembled from
// slots (force/slot/*.hpp), evaluated in LAMMPS GRANULAR's order: normal -> damping ->
// tangential (Coulomb-capped by the load the damping slot leaves) -> rolling -> twisting.
// Each slot declares its own params and history; the law's history packs them (empty ones take
// no space), so a composition costs what its slots need. The built-in laws are compositions:
//
//   struct my_law : dem::force::composed<normal::hertz, damping::restitution, tangential::mindlin,
//                                        rolling::epsd> { static constexpr const char* name = "my_law"; };
#include <type_traits>

#include "dem/config.hpp"
#include "dem/force/contact.hpp"
#include "dem/force/slot/damping.hpp"
#include "dem/force/slot/normal.hpp"
#include "dem/force/slot/rolling.hpp"
#include "dem/force/slot/state.hpp"
#include "dem/force/slot/tangential.hpp"
#include "dem/force/slot/twisting.hpp"
#include "dem/material/material.hpp"

namespace dem::force {

namespace detail {
// One slot's history as a base class of the law's history. Empty histories become distinct empty
// bases that hold nothing (empty-base optimisation; they must not derive from a shared empty type,
// which would force distinct addresses); the index keeps slots with equal history types apart.
template <int I, class H, bool Empty = std::is_empty_v<H>>
struct slot_history : H {};
template <int I, class H>
struct slot_history<I, H, true> {};

// A slot's history: a reference into the law's history, or a fresh empty value.
template <int I, class H>
DEM_HD inline H& slot_access(slot_history<I, H, false>& h) { return h; }
template <int I, class H>
DEM_HD inline const H& slot_access(const slot_history<I, H, false>& h) { return h; }
template <int I, class H>
DEM_HD inline H slot_access(const slot_history<I, H, true>&) { return H{}; }

template <class Slot, class Real>
concept slot_model = requires { typename Slot::template model<Real>; } &&
    requires(const typename Slot::template model<Real>& m, const contact<Real>& c,
             const typename Slot::template model<Real>::params& p, typename Slot::template model<Real>::history& h,
             contact_state<Real>& s, const material_pair& mp, const slot_setup& setup) {
      { Slot::template model<Real>::make_params(mp, setup) } -> std::same_as<typename Slot::template model<Real>::params>;
      m(c, p, h, s);
    };

template <class M, class Real>
concept slot_has_energy = requires(const contact<Real>& c, const typename M::params& p, const typename M::history& h,
                                   const contact_state<Real>& s) {
  { M::energy(c, p, h, s) } -> std::convertible_to<Real>;
};

template <class M, class Real>
DEM_HD inline Real slot_energy(const contact<Real>& c, const typename M::params& p, const typename M::history& h,
                               const contact_state<Real>& s) {
  if constexpr (slot_has_energy<M, Real>) return M::energy(c, p, h, s);
  else return Real(0);
}
}  // namespace detail

// What each slot of a composed law contributed to one evaluation (law::run_parts).
template <class Real>
struct slot_parts {
  vec3<Real> damping_force, tangential_force, rolling_couple, twisting_couple;  // on A
  Real tangential_energy, rolling_energy, twisting_energy;                      // stored after the evaluation
};

template <class Normal, class Damping, class Tangential, class Rolling = rolling::none, class Twisting = twisting::none>
struct composed {
  static constexpr const char* name = "composed";

  template <class Real>
  struct law {
    static_assert(detail::slot_model<Normal, Real>,
                  "dem::force::composed: the normal slot (1st) must define `template <class Real> struct model` with params, history, make_params(material_pair, slot_setup) and operator()(contact, params, history&, contact_state&) (see force/slot/state.hpp).");
    static_assert(requires { { Normal::calibration } -> std::convertible_to<restitution::model>; },
                  "dem::force::composed: the normal slot (1st) must define `static constexpr restitution::model calibration`.");
    static_assert(detail::slot_model<Damping, Real>, "dem::force::composed: the damping slot (2nd) must define `template <class Real> struct model` with params, history, make_params and operator() (see force/slot/state.hpp).");
    static_assert(detail::slot_model<Tangential, Real>, "dem::force::composed: the tangential slot (3rd) must define `template <class Real> struct model` with params, history, make_params and operator() (see force/slot/state.hpp).");
    static_assert(detail::slot_model<Rolling, Real>, "dem::force::composed: the rolling slot (4th) must define `template <class Real> struct model` with params, history, make_params and operator() (see force/slot/state.hpp).");
    static_assert(detail::slot_model<Twisting, Real>, "dem::force::composed: the twisting slot (5th) must define `template <class Real> struct model` with params, history, make_params and operator() (see force/slot/state.hpp).");

    using normal_model = typename Normal::template model<Real>;
    using damping_model = typename Damping::template model<Real>;
    using tangential_model = typename Tangential::template model<Real>;
    using rolling_model = typename Rolling::template model<Real>;
    using twisting_model = typename Twisting::template model<Real>;

    struct params {
      typename normal_model::params normal;
      typename damping_model::params damping;
      typename tangential_model::params tangential;
      typename rolling_model::params rolling;
      typename twisting_model::params twisting;
    };
    struct history : detail::slot_history<0, typename normal_model::history>,
                     detail::slot_history<1, typename damping_model::history>,
                     detail::slot_history<2, typename tangential_model::history>,
                     detail::slot_history<3, typename rolling_model::history>,
                     detail::slot_history<4, typename twisting_model::history> {};

    template <int I, class M, class H>
    DEM_HD static decltype(auto) slot(H& h) {
      return detail::slot_access<I, typename M::history>(h);
    }

    static params make_params(const material_pair& mp) {
      const slot_setup setup{Normal::calibration};
      return {normal_model::make_params(mp, setup), damping_model::make_params(mp, setup),
              tangential_model::make_params(mp, setup), rolling_model::make_params(mp, setup),
              twisting_model::make_params(mp, setup)};
    }

    // Runs the slots in order; returns the state they leave. `between(k, s)` is called after slot k
    // (2: tangential, 3: rolling); run() passes one that does nothing, which the compiler drops.
    template <class Between>
    DEM_HD static contact_state<Real> run_with(const contact<Real>& c, const params& p, history& h, Between&& between) {
      contact_state<Real> s{};
      s.couple = vec3<Real>{-Real(0), -Real(0), -Real(0)};  // adding an unused couple then folds away (see contact_force)
      auto&& h0 = slot<0, normal_model>(h);
      auto&& h1 = slot<1, damping_model>(h);
      auto&& h2 = slot<2, tangential_model>(h);
      auto&& h3 = slot<3, rolling_model>(h);
      auto&& h4 = slot<4, twisting_model>(h);
      normal_model{}(c, p.normal, h0, s);
      damping_model{}(c, p.damping, h1, s);
      tangential_model{}(c, p.tangential, h2, s);
      between(2, s);
      rolling_model{}(c, p.rolling, h3, s);
      between(3, s);
      twisting_model{}(c, p.twisting, h4, s);
      return s;
    }
    DEM_HD static contact_state<Real> run(const contact<Real>& c, const params& p, history& h) {
      return run_with(c, p, h, [](int, const contact_state<Real>&) {});
    }

    // run(), keeping what each slot contributed, for the energy ledger (energy/ledger.hpp): the
    // damping slot's part of the normal force (what the elastic force minus the attraction leaves,
    // the clamp included), the tangential force, the rolling and twisting couples, and the energy
    // the tangential, rolling and twisting slots hold afterwards. The state returned is run()'s.
    DEM_HD static contact_state<Real> run_parts(const contact<Real>& c, const params& p, history& h, slot_parts<Real>& out) {
      vec3<Real> before_rolling{0, 0, 0}, before_twisting{0, 0, 0};
      const contact_state<Real> s = run_with(c, p, h, [&](int k, const contact_state<Real>& now) {
        (k == 2 ? before_rolling : before_twisting) = now.couple;
      });
      out.damping_force = c.normal * (s.normal_force - (s.elastic - s.attraction));
      out.tangential_force = s.tangential_force;
      out.rolling_couple = before_twisting - before_rolling;
      out.twisting_couple = s.couple - before_twisting;
      out.tangential_energy = detail::slot_energy<tangential_model>(c, p.tangential, slot<2, tangential_model>(h), s);
      out.rolling_energy = detail::slot_energy<rolling_model>(c, p.rolling, slot<3, rolling_model>(h), s);
      out.twisting_energy = detail::slot_energy<twisting_model>(c, p.twisting, slot<4, twisting_model>(h), s);
      return s;
    }

    // The force and a couple only: the pair kernels may then keep A's torque alone and derive B's
    // (sim::contact_results).
    static constexpr bool sets_torque_only_force = false;

    DEM_HD contact_force<Real> operator()(const contact<Real>& c, const params& p, history& h) const {
      const contact_state<Real> s = run(c, p, h);
      contact_force<Real> r;
      r.force = c.normal * s.normal_force + s.tangential_force;
      r.torque = vec3<Real>{s.couple.x, s.couple.y, s.couple.z};  // by component: see vec3 store()
      return r;
    }

    // Present when the normal slot acts beyond touching (cohesion).
    DEM_HD static Real range(const params& p)
      requires requires(const typename normal_model::params& np) { normal_model::range(np); }
    {
      return normal_model::range(p.normal);
    }

    // Energy stored in the contact: the sum over slots that define `energy` (the state they need
    // comes from running the slots on a copy of the history).
    DEM_HD static Real elastic_energy(const contact<Real>& c, const params& p, const history& h)
      requires detail::slot_has_energy<normal_model, Real>
    {
      history scratch = h;
      const contact_state<Real> s = run(c, p, scratch);
      return detail::slot_energy<normal_model>(c, p.normal, slot<0, normal_model>(h), s) +
             detail::slot_energy<damping_model>(c, p.damping, slot<1, damping_model>(h), s) +
             detail::slot_energy<tangential_model>(c, p.tangential, slot<2, tangential_model>(h), s) +
             detail::slot_energy<rolling_model>(c, p.rolling, slot<3, rolling_model>(h), s) +
             detail::slot_energy<twisting_model>(c, p.twisting, slot<4, twisting_model>(h), s);
    }
  };

  static double stable_time_step(const material& m, const material_pair& self, double radius, double mass) {
    return Normal::stable_time_step(m, self, radius, mass);
  }
};

}  // namespace dem::force
