#pragma once
// dem::simulation_config — the run-time settings of a Simulator, checked by its constructor.
#include <cstdint>
#include <limits>

#include "dem/math/aabb.hpp"
#include "dem/math/vec3.hpp"

namespace dem {

struct simulation_config {
  aabb domain;                          // particles leaving it are deactivated and counted
  vec3d gravity{0.0, 0.0, -9.81};
  double dt = 1e-5;                     // s
  double contact_margin = -1;           // m; < 0: 0.2 x the largest radius
  // m; < 0: the contact margin. Boundary elements are listed up to this gap from a particle, and a
  // moving boundary may move (boundary_margin - contact_margin / 2) before the lists are rebuilt:
  // a rotating drum or mill rebuilds less often with a larger one (more listed elements per particle).
  double boundary_margin = -1;
  double max_speed = std::numeric_limits<double>::infinity();  // m/s; faster means divergence
  bool allow_unstable_dt = false;       // run even if dt exceeds the stable estimate
  bool allow_initial_overlap = false;   // accept overlaps above 10 % of the smaller radius at start
  // m; > 0: the coordinate policy must resolve positions at least this finely everywhere in the
  // domain (coord::voxel: its unit; coord::floating: the spacing of the stored type at the farthest
  // corner), else the constructor throws naming the domain, the bits and the resolution. 0: no check.
  double position_resolution = 0;
  // Device backends (CUDA, emulated_device): steps run between two reads of the step status. The
  // device decides each contact-list rebuild itself and the host reads once per this many steps
  // (sim/device_steps.hpp); results are the same bits for any value. 0: the host reads back after
  // every step (as before 2026-12-04). Ignored by backend::host, where reads cost nothing.
  std::uint32_t status_read_interval = 32;
  // Local validity of the contact list (contact/local_validity.hpp): while at most this many
  // (and at most 2 sqrt(N) of N particles) have moved past their budgets (half the margin, plus
  // their family's extra margin)
  // since the list's build, only those are checked against their neighbours and the boundaries,
  // each step. A partner one of them comes near and lacks is added to the list in place (up to 4
  // per particle checked; not while a deferred build is in flight or the energy ledger is on); a
  // boundary element it lacks rebuilds the list. More than this many (a flowing bed) rebuild at
  // once. 0: the global criterion (any one particle past its budget rebuilds the list). Results are
  // the same bits for any value.
  std::uint32_t max_overrun = 256;
  // Levels of the broad phase's grid (broad/uniform_grid.hpp), at most 8: particles are binned by
  // size into levels whose radii run from the largest to the smallest, a factor of 2 or less apart,
  // so that a wide size distribution does not search cells sized for its largest particles. A level
  // is kept only if it shrinks the cells by 1.5x or more. 0: up to 8; 1: one uniform grid (as
  // before 2026-12-06). The pairs listed, and the results, do not depend on it.
  std::uint32_t broad_phase_levels = 0;
  // m. Bodies without probe spheres (polyhedra) meet discs and the outside of cylinders and cones
  // as meshes of flat facets (boundary/faceted.hpp): with this set, the fewest facets around the
  // axis (a multiple of 32) that keep every facet within this distance of the true surface; 0: 384
  // (the sagitta is then 3.3e-5 of the radius). Fewer facets, fewer triangles per body to test.
  // Spheres and clumps meet the exact surfaces; so do polyhedra the inside of cylinders and cones.
  double facet_tolerance = 0;
  // Deferred contact detection (sim/deferred_detection.hpp): contact lists are built from a
  // snapshot of the positions on a thread of their own while the steps go on with the list in
  // service, and put in service when ready (if no particle has moved more than half the margin since
  // the snapshot). A build starts when the list in service would run out within 1.5x the builds'
  // measured latency + 2 steps: by the displacements' rate under the plain criterion, at a learnt
  // age under local validity (max_overrun). A particle that uses up its margin first makes a
  // synchronous rebuild (counted and logged: Simulator::deferred_statistics()). The results are the
  // same bits as without. The builder's buffers are held twice while a build runs. A Simulator::step
  // call waits for its build before it returns (a step(1) loop overlaps one step at most). The energy
  // ledger's runs detect synchronously; deformable spheres and backend::cuda refuse it (not built
  // there yet: its build thread needs per-thread default streams). On the emulated device the steps
  // run one at a time (no batches). Off by default: it pays where the build has cores to itself.
  bool deferred_detection = false;
  // OpenMP threads of the build thread while a build runs (the dynamics run on the rest);
  // 0: max(1, threads / 8).
  std::uint32_t deferred_threads = 0;
  // > 0 (tests): each build runs on the stepping thread when it starts, and its list is put in
  // service exactly this many steps later: a deterministic schedule of deferred lists.
  std::uint32_t deferred_fixed_latency = 0;
};

}  // namespace dem
