#pragma once
// What a force law sees of one contact, and what it returns. Always floating point: fixed-point
// positions are differenced exactly and converted before a law is called.
#include "dem/config.hpp"
#include "dem/material/material.hpp"
#include "dem/math/vec3.hpp"

namespace dem::force {

template <class Real>
struct contact {
  Real overlap;            // > 0 when touching; in (-range, 0] for laws with a range (cohesion)
  vec3<Real> normal;       // unit, from B to A
  vec3<Real> point;        // contact point, world frame (as precise as Real is at that distance)
  vec3<Real> branch_a;     // from A's centre of mass to the contact point
  vec3<Real> branch_b;     // from B's centre of mass to the contact point
  Real radius_eff;         // R* (R_A for a wall contact)
  Real mass_eff;           // m* (m_A for a wall contact)
  Real inertia_eff;        // I_A I_B / (I_A + I_B) (I_A for a wall contact)
  Real rolling_inertia;    // [1/(I_A + m_A r_A^2) + 1/(I_B + m_B r_B^2)]^-1, r the centre-to-contact-point
                           // distance (Ai, Chen, Rotter & Ooi 2011); I_A + m_A r_A^2 for a wall contact
  vec3<Real> v_rel;        // velocity of A relative to B at the contact point
  Real v_n;                // v_rel . normal (negative while approaching)
  vec3<Real> v_t;          // tangential part of v_rel
  vec3<Real> omega_rel;    // omega_A - omega_B
  Real spin;               // (omega_A + omega_B) / 2 . normal: the contact frame's rate of turn about the
                           // normal (omega_B = the wall's for a wall contact), for histories that co-rotate
  material_id material_a;  // A's material
  material_id material_b;  // B's (the wall's for a wall contact)
  bool wall;               // B is a wall (plane): infinite mass, no user properties
  Real dt;                 // 0 when forces of the initial state are evaluated: history must not advance
  Real time;
};

// Result of a law, for body A; the toolkit applies the reaction to B.
//   force:             acts at the contact point (B receives -force there)
//   torque:            a pure couple on A (B receives -torque), e.g. rolling resistance
//   torque_only_force: acts at the contact point but only for torques (DEM-Engine's
//                      torque_only_force): A gets branch_a x f, B gets branch_b x (-f), no net force
// Members left out of a law's return are zero and cost nothing once the law is inlined: they
// default to -0, because x + (-0) == x for every x (also -0), so the compiler may drop the addition
// the kernel makes, which it may not do for +0 (-0 + +0 is +0).
template <class Real>
struct contact_force {
  vec3<Real> force{-Real(0), -Real(0), -Real(0)};
  vec3<Real> torque{-Real(0), -Real(0), -Real(0)};
  vec3<Real> torque_only_force{-Real(0), -Real(0), -Real(0)};
};

// History type of laws that keep none: nothing is stored, carried or loaded for it.
struct no_history {};

}  // namespace dem::force
