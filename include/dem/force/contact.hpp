#pragma once
// What a force law sees of one contact, and what it returns. Always floating point: fixed-point
// positions are differenced exactly and converted before a law is called.
#include "dem/config.hpp"
#include "dem/math/vec3.hpp"

namespace dem::force {

template <class Real>
struct contact {
  Real overlap;            // > 0 when touching
  vec3<Real> normal;       // unit, from B to A
  vec3<Real> branch_a;     // from A's centre of mass to the contact point
  vec3<Real> branch_b;     // from B's centre of mass to the contact point
  Real radius_eff;         // R* (R_A for a wall contact)
  Real mass_eff;           // m* (m_A for a wall contact)
  Real inertia_eff;        // I_A I_B / (I_A + I_B) (I_A for a wall contact)
  vec3<Real> v_rel;        // velocity of A relative to B at the contact point
  Real v_n;                // v_rel . normal (negative while approaching)
  vec3<Real> v_t;          // tangential part of v_rel
  vec3<Real> omega_rel;    // omega_A - omega_B
  Real dt;
  Real time;
};

// Result of a law: `force` acts on A at the contact point (B receives -force there);
// `torque` is a pure couple on A (B receives -torque), e.g. rolling resistance.
template <class Real>
struct contact_force {
  vec3<Real> force;
  vec3<Real> torque;
};

// History type of laws that keep none.
struct no_history {};

}  // namespace dem::force
