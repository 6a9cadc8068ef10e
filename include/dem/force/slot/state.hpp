#pragma once
// The slots of a composed contact law (force/compose.hpp), in LAMMPS GRANULAR's order:
//   normal -> damping -> tangential -> rolling -> twisting.
// A slot S provides `template <class Real> struct model` (M) with
//   struct params;  using history;    (trivially copyable; `no_history` keeps none)
//   static params make_params(const material_pair&, const slot_setup&);
//   DEM_HD void operator()(const contact<Real>&, const params&, history&, contact_state<Real>&) const;
// Each slot reads what earlier slots wrote into the state and adds its own part. Optional:
//   DEM_HD static Real energy(const contact<Real>&, const params&, const history&, const contact_state<Real>&);
// Normal slots also provide `static constexpr restitution::model calibration` and
//   static double stable_time_step(const material&, const material_pair&, double radius, double mass);
// and may provide `DEM_HD static Real range(const params&)` (acting beyond touching).
#include "dem/config.hpp"
#include "dem/force/contact.hpp"
#include "dem/force/restitution.hpp"
#include "dem/material/material.hpp"
#include "dem/math/vec3.hpp"

namespace dem::force {

// What slots pass on to later slots. Value-initialised before the normal slot runs.
template <class Real>
struct contact_state {
  // normal slot
  Real elastic;          // elastic normal force, >= 0 (repulsive)
  Real attraction;       // cohesive pull, >= 0
  Real stiffness;        // tangent normal stiffness dF/dδ; 0 while not touching
  Real contact_radius;   // a = sqrt(R* δ); 0 while not touching
  // damping slot
  Real damping;          // c in F_d = -c sqrt(k m*) v; tangential slots use it too
  Real normal_force;     // total normal force on A along the normal (> 0 pushes A away from B)
  Real load;             // normal load for the Coulomb limits, >= 0
  // tangential slot
  Real tangential_stiffness;
  Real tangential_damping;  // c_t in F = -c_t v_t
  Real friction;            // mu of the pair
  vec3<Real> tangential_force;
  // rolling and twisting slots
  vec3<Real> couple;     // pure couple on A
};

// What the composition tells each slot when building parameters.
struct slot_setup {
  restitution::model calibration;  // the normal slot's model (for damping from restitution)
};

// A slot that does nothing: tangential::none, rolling::none, twisting::none.
struct inactive_slot {
  template <class Real>
  struct model {
    struct params {};
    using history = no_history;
    static params make_params(const material_pair&, const slot_setup&) { return {}; }
    DEM_HD void operator()(const contact<Real>&, const params&, history&, contact_state<Real>&) const {}
  };
};

}  // namespace dem::force
