#pragma once
// The performance suite: Google Benchmark scenarios written once for every backend (registered by
// suite_bench.cpp: the host binary registers backend::host, the CUDA binary backend::cuda).
//
// Names (Google Benchmark appends /real_time, or /manual_time for copy_bandwidth):
//   free_fall/<backend>/<law>/<N>              N spheres on a wide lattice, gravity, no planes, no contacts
//   free_fall/<backend>/<law>/deferred/<N>     the same with config.deferred_detection (N <= 1e6)
//   tiled_bed/<backend>/<law>/<N>              the dense settled bed at any N (tiles of the 10,000 bed)
//   tiled_bed/<backend>/<law>/<precision>/<coord>/<N>   the same for the force-law / precision / coordinate matrix
//   contact_detection/<backend>/<law>/<N>      Simulator::rebuild_contact_list() alone, on the tiled bed
//   polydisperse_bed/<backend>/<law>/<ratio>/<N>   rebuild_contact_list() on a bed of radius ratio 1, 3 or 10
//   polydisperse_bed_one_level/<backend>/<law>/<ratio>/<N>   the same with config.broad_phase_levels = 1
//                                              (registered at the smaller N; at every N with DEM_BENCH_ONE_LEVEL_ALL=1)
//   inspect_particles|inspect_region|inspect_contacts_region|inspect_contacts/<backend>/<law>/<N>   inspectors on the tiled bed
//   copy_bandwidth/cuda/<bytes>                device-to-device cudaMemcpy (CUDA binary only)
//
// Counters of the stepping scenarios (free_fall, tiled_bed):
//   particle_steps_per_s            particles x steps / wall time
//   bytes_moved_per_particle_step   the traffic model below, per particle and step
//   model_bytes_per_s               bytes_moved_per_particle_step x particle_steps_per_s
//   contacts_per_particle           2 x touching pairs / N;  listed_pairs_per_particle: listed pairs / N
//   steps_per_rebuild               timed steps / contact-list rebuilds in them (all timed runs of the fixture)
//   bytes_per_particle              state + wall history + listed pairs x bytes_per_contact, as settled_bed_bench
//   bytes_per_particle_state, bytes_per_contact, threads, particles, position_resolution_m
//   device_bytes_per_particle       (CUDA) device memory the fixture took (cudaMemGetInfo before/after) / N
//   held_bytes_per_particle         the backend's buffers now, peak_bytes_per_particle: their most at
//                                   any moment since the fixture began (backend memory(): a rebuild's
//                                   scratch counts where the backend allocates it), each / N
// contact_detection: particles_per_s (N / time of one rebuild), listed_pairs_per_particle.
// polydisperse_bed: ns_per_listed_pair (time of one rebuild / listed pairs), particles_per_s,
//   listed_pairs_per_particle, levels (of the broad phase's grid), particles, small_fraction (of N).
// copy_bandwidth: bytes_per_s, counting each copied byte twice (read + write).
//
// Fixtures (the simulator, set up and warmed) are kept between Google Benchmark's calls of the same
// benchmark (it calls a benchmark several times while it settles the iteration count) and shared by
// tiled_bed and contact_detection at the same N; only one is alive at a time, so the previous one's
// (device) memory is freed before the next is built. The timed state therefore carries on from one
// call to the next: the bed keeps settling, the free fall keeps bouncing.
//
// ---- bytes_moved_per_particle_step: the traffic model ------------------------------------------
// The bytes one step must move through memory on this code (velocity Verlet, spheres, laws without
// wildcards), from the kernels in include/dem/sim/step_kernels.hpp and the sizes of the types the
// simulator stores. Every per-particle array a kernel reads counts once per kernel (ideal caching of
// the neighbours' data: particles are sorted by cell), every write once; per-pair data counts per
// access. Contact-list rebuilds are not included (steps_per_rebuild says how often they happen;
// contact_detection times them); nor are the 16-byte status word and the small parameter tables.
// With V = sizeof(vec3<real>), R = sizeof(real), P = sizeof(position), C = sizeof(carry) (coord::voxel;
// else 0), M = sizeof(material_id), A = 1 (active flag), U = 4 (uint32), H = sizeof(pair history)
// (0 for laws without history), Hp = sizeof(wall history):
//   per particle:
//     pre_force_kernel        read  A + 4V (vel, omega, force, torque) + 2R (inv_mass, radius: spheres derive the
//                                   inverse inertia) + 2P (pos, pos_ref) + C
//                             write 2V (vel, omega) + P + C
//     its reduce_max          device backends only: the per-particle double is written, then read by CUB: 2 x 8
//     pair_force_kernel       (when pairs are listed) read A + P + R (radius) + M + 2V (vel, omega) + R (inv_mass)
//     particle_update_kernel  read  A + U (incident_offset) + U (wall list offset) + R (radius) + P + C +
//                                   2V (vel, omega) + R (inv_mass)
//                             write 4V (force, torque, vel, omega) + P + C
//   per listed pair:          read 2U (pair_a, pair_b) + H (history); write V (force) + T V (torques) + H
//                             (history: the pair kernel is branch-free, every listed pair runs the law
//                             and keeps or resets its history); gather: read 2 x V (force, once per
//                             side) + 2U (incident entries) + A's torque V + B's: its torque V (T = 2),
//                             or pair_a U and A's position P to derive it (T = 1: policies::one_torque_per_pair)
//   per wall entry (a boundary element within reach of a particle): read U (element) + Hp, write Hp,
//                             the report written and read back 2 (R + U), the reactions written 2V
//                             (elements and frames are few and stay in cache)
// bytes_moved_per_particle_step = (N x per particle + pairs x per pair + wall entries x per entry) / N.
// The model counts the device form of the step. On the host, spheres finish the step in a loop of
// their own (sphere_finish_kernel, which vectorises): it reads the force and torque back and the
// active flag and inverse mass again, about 2V + R + A more per particle (the rest it reads, the
// particle kernel then no longer does; sphere_start_kernel moves what pre_force_kernel moves).
// For Hertz-Mindlin (H = 12, Hp = 16, T = 1), single precision, floating coordinates: 279 bytes per
// particle (295 on a GPU), 116 per listed pair, 76 per wall entry; the wall entries are counted after
// the bed is built (Simulator::num_wall_entries). (Before 2026-12-07, later: 287, 303, 124 and 92.)
//
// ---- CUDA ------------------------------------------------------------------------------------------
// Compiled by nvcc (suite_bench_cuda) the header adds backend::cuda and copy_bandwidth; everything
// else is the same code.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <vector>

#include "dem/coord/voxel.hpp"
#include "settled_cache.hpp"
#if defined(__CUDACC__)
#include "dem/backend/cuda.hpp"
#endif

namespace bench::suite {

inline constexpr std::size_t tile_n = 10000;   // particles per tile of the tiled bed
// Untimed steps before the first timing of a tiled bed: the seams between tiles must relax, or the
// bed is still moving and the contact list is rebuilt far more often than on a settled bed (at N =
// 1e5: 300 steps gave a rebuild every 120 steps and 1.28e7 particle-steps/s, 3000 steps every 180
// and 1.91e7). Fewer above 1e7 particles, where 3000 steps would take minutes of the GPU check.
inline int resettle_steps(std::size_t n) { return n <= 10000000 ? 3000 : 1000; }
inline constexpr double free_fall_spacing = 3e-3;  // lattice spacing of the free fall (gap 1 mm > margin 0.2 mm)
inline constexpr double free_fall_episode = 0.04;  // s between bounces of the free fall (see free_fall_fixture)

template <class Backend, class Force, class Precision = dem::precision::single, class Coord = dem::coord::floating>
using simulator = dem::Simulator<dem::policies<dem::shape::sphere, Force, dem::integrate::velocity_verlet, Precision, Coord>, Backend>;

// Steps per timed iteration: a step of a small system is short, one of a large one long.
// (Divides the free fall's episode of 4000 steps.)
inline int steps_per_iteration(std::size_t n) { return n <= 10000 ? 100 : n <= 100000 ? 20 : 10; }

// ---- one fixture alive at a time ----------------------------------------------------------------
struct fixture_slot {
  std::string key;
  std::shared_ptr<void> object;
};
inline fixture_slot& slot() {
  static fixture_slot s;
  return s;
}
inline void release_fixture() {
  slot().object.reset();
  slot().key.clear();
}
// The fixture of type T under `key`, built from args when it is not the one alive.
template <class T, class... Args>
T& fixture(const std::string& key, Args&&... args) {
  fixture_slot& s = slot();
  if (s.object && s.key == key) return *static_cast<T*>(s.object.get());
  release_fixture();  // free the previous fixture's memory first (device memory at 1e8 particles)
  // Not std::make_shared: with it, nvcc 13.0 failed to compile Simulator::prepare() for the free
  // fall and tiled fixtures (error: identifier "stable" is undefined), reached through the constexpr
  // std::construct_at.
  std::shared_ptr<T> made(new T(std::forward<Args>(args)...));
  s.object = made;
  s.key = key;
  return *made;
}
template <class Sim>
std::string fixture_key(const char* scenario, std::size_t n) {
  return std::string(scenario) + "/" + typeid(Sim).name() + "/" + std::to_string(n);
}

// Free device memory in bytes (0 for host backends or when it cannot be read).
template <class Backend>
double device_free_bytes() {
#if defined(__CUDACC__)
  if constexpr (Backend::is_device) {
    std::size_t free = 0, total = 0;
    if (cudaMemGetInfo(&free, &total) == cudaSuccess) return static_cast<double>(free);
    (void)cudaGetLastError();
  }
#endif
  return 0.0;
}

// ---- the traffic model (see the top of this file) ----------------------------------------------
template <class Sim>
double bytes_moved_per_step(double n, double listed, double wall_entries) {
  using real = typename Sim::real;
  using traits = typename Sim::law_traits;
  static_assert(!Sim::policy::rigid && !traits::has_owner_wildcards && !traits::has_geometry_wildcards,
                "bench::suite traffic model: spheres and laws without wildcards only");
  static_assert(Sim::policy::integrator::needs_initial_force, "bench::suite traffic model: integrators with a pre-force half (velocity Verlet)");
  constexpr double V = sizeof(dem::vec3<real>), R = sizeof(real), P = sizeof(typename Sim::position_type),
                   C = Sim::has_carry ? sizeof(typename Sim::carry_type) : 0, M = sizeof(dem::material_id), A = sizeof(std::uint8_t),
                   U = sizeof(std::uint32_t), H = traits::has_history ? sizeof(typename Sim::pair_history) : 0,
                   Hp = sizeof(typename Sim::plane_history);
  // pre_force_kernel
  double particle = (A + 4 * V + 2 * R + 2 * P + C) + (2 * V + P + C);
  if (Sim::backend_type::is_device) particle += 2 * sizeof(double);  // reduce_max's per-particle values
  // pair_force_kernel's reads of per-particle arrays
  if (listed > 0) particle += A + P + R + M + 2 * V + R;
  // particle_update_kernel
  particle += A + U + U + R + P + C + 2 * V + R;
  particle += 4 * V + P + C;
  const double wall_entry = U + 2 * Hp + 2 * (R + U) + 2 * V;
  constexpr double T = Sim::policy::one_torque_per_pair ? 1 : 2;
  const double b_torque = T == 2 ? V : U + P;  // stored, or derived from A's position
  const double pair = 2 * U + H + (1 + T) * V + H + 2 * V + 2 * U + V + b_torque;
  return n * particle + listed * pair + wall_entries * wall_entry;
}

// ---- the tiled bed ------------------------------------------------------------------------------
struct bed {
  dem::particle_set set;
  dem::aabb domain;
};

// kx x ky = tiles with kx the largest divisor <= sqrt(tiles): as square as the count allows
// (10 -> 2 x 5, 100 -> 10 x 10, 1000 -> 25 x 40, 3000 -> 50 x 60, 10000 -> 100 x 100).
inline void tile_layout(std::size_t tiles, std::size_t& kx, std::size_t& ky) {
  kx = 1;
  for (std::size_t d = 1; d * d <= tiles; ++d)
    if (tiles % d == 0) kx = d;
  ky = tiles / kx;
}

// N < 10,000: the settled bed of N itself (bench::settled<Force>(N)) in its own box. Else N/10,000
// copies of the settled 10,000 bed side by side in kx x ky tiles, each shifted by the side of the box
// it was settled in (22 lattice sites x 2.2 mm = 48.4 mm; it was settled against walls there), every
// other column mirrored in x and every other row in y: across a seam each particle then faces its own
// mirror image, which pushes back about as the wall did (unmirrored copies meet misaligned and the
// bed jolts: with 2 tiles, contacts per particle fell from 4.5 to 4.15 over the 300 re-settling steps;
// mirrored they stay at 4.5). Centred on x = y = 0 (float positions are finest near the origin); the
// box planes of bench::setup go around the whole.
template <class Force>
bed make_tiled_bed(std::size_t n) {
  bed b;
  if (n < tile_n) {
    b.set = bench::settled<Force>(n);
    b.domain = bench::bed_domain(b.set);
    return b;
  }
  if (n % tile_n != 0) throw std::invalid_argument("tiled_bed: N = " + std::to_string(n) + " is not a multiple of " + std::to_string(tile_n));
  const dem::particle_set tile = bench::settled<Force>(tile_n);
  const std::size_t tiles = n / tile_n;
  std::size_t kx = 0, ky = 0;
  tile_layout(tiles, kx, ky);
  const double side = static_cast<double>(bench::lattice_side(tile_n)) * bench::spacing;
  double top = 0;
  for (const auto& p : tile.positions) top = std::max(top, p.z);
  b.set.positions.reserve(tiles * tile.size());
  b.set.radii.reserve(tiles * tile.size());
  for (std::size_t ty = 0; ty < ky; ++ty)
    for (std::size_t tx = 0; tx < kx; ++tx) {
      const dem::vec3d shift{(static_cast<double>(tx) - 0.5 * static_cast<double>(kx)) * side,
                             (static_cast<double>(ty) - 0.5 * static_cast<double>(ky)) * side, 0.0};
      for (std::size_t k = 0; k < tile.size(); ++k) {
        dem::vec3d p = tile.positions[k];
        if (tx & 1) p.x = side - p.x;  // mirrored: across a seam each particle faces its mirror image
        if (ty & 1) p.y = side - p.y;
        b.set.positions.push_back(p + shift);
        b.set.radii.push_back(tile.radii[k]);
      }
    }
  b.domain = {{-0.5 * static_cast<double>(kx) * side, -0.5 * static_cast<double>(ky) * side, 0.0},
              {0.5 * static_cast<double>(kx) * side, 0.5 * static_cast<double>(ky) * side, top + 6 * bench::radius}};
  return b;
}

inline dem::simulation_config config_for(const dem::aabb& domain) {
  dem::simulation_config cfg;
  cfg.domain = domain;
  cfg.dt = 1e-5;
  return cfg;
}

// The backend's buffers from a fixture's start (declared before its simulator, so constructed first):
// what they hold now and their high-water mark since then (backend/memory_meter.hpp).
template <class Backend>
struct memory_mark {
  std::size_t base = Backend::memory().live;
  memory_mark() { Backend::reset_memory_peak(); }
  double held() const { return static_cast<double>(Backend::memory().live) - static_cast<double>(base); }
  double peak() const { return static_cast<double>(Backend::memory().peak) - static_cast<double>(base); }
};

template <class Sim>
struct tiled_fixture {
  using backend = typename Sim::backend_type;
  memory_mark<backend> memory;
  Sim sim;
  double device_bytes = 0;
  std::uint64_t timed_steps = 0, timed_rebuilds = 0;  // over tiled_bed's timed loops only

  explicit tiled_fixture(std::size_t n) : tiled_fixture(device_free_bytes<backend>(), make_tiled_bed<typename Sim::policy::force>(n)) {}

 private:
  tiled_fixture(double free_before, bed b) : sim(config_for(b.domain)) {
    sim.set_log(nullptr);
    bench::setup(sim, b.set);
    b = bed{};  // the host copy is no longer needed (3 GB at 1e8)
    sim.step(resettle_steps(sim.num_particles()));  // seams relax, history and the contact list form
    sim.backend().synchronize();
    if (free_before > 0) device_bytes = free_before - device_free_bytes<backend>();
  }
};

// ---- the polydisperse bed -----------------------------------------------------------------------
// Ratio 1: the tiled bed of N. Ratio k > 1: a tiled bed of r = 1 mm spheres with some of them each
// replaced by a cluster of spheres of radius 1 mm / k on a face-centred cubic lattice of touching
// spheres, whose centres lie within 1 mm - 1 mm / k of the replaced sphere's: two sizes, as dense
// where the clusters sit as elsewhere. The tiled bed is the smallest multiple of 10,000 spheres
// whose clusters can bring the count to N; the replaced spheres are spread evenly through it, as
// many as bring the count to about N (ratio 10: clusters of 555, in 1.6 % of the large spheres'
// places at N = 1e5 and 18 % at 1e6; ratio 3: clusters of 13, in 75 % and 96 %). The contact margin is 0.2 x the small radius (lists as short for the
// small spheres as the bed's 0.2 mm for its own), the same for every ratio at 1. Never stepped (the
// clusters' lattice would collapse), so the time-step check is off.
inline std::vector<dem::vec3d> fcc_cluster(double r_small, double reach) {
  const double a = 2.0 * std::sqrt(2.0) * r_small;  // nearest neighbours at a / sqrt(2) = 2 r_small
  const double basis[4][3] = {{0, 0, 0}, {0.5, 0.5, 0}, {0.5, 0, 0.5}, {0, 0.5, 0.5}};
  const int k = static_cast<int>(std::ceil(reach / a)) + 1;
  std::vector<dem::vec3d> out;
  for (int i = -k; i <= k; ++i)
    for (int j = -k; j <= k; ++j)
      for (int l = -k; l <= k; ++l)
        for (const auto& b : basis) {
          const dem::vec3d p{a * (i + b[0]), a * (j + b[1]), a * (l + b[2])};
          if (dem::norm(p) <= reach) out.push_back(p);
        }
  return out;
}

struct polydisperse_bed_set {
  bed b;
  double r_small = 0;
  std::size_t small = 0;
};

inline polydisperse_bed_set make_polydisperse_bed(int ratio, std::size_t n) {
  polydisperse_bed_set out;
  out.r_small = bench::radius / ratio;
  if (ratio == 1) {
    out.b = make_tiled_bed<dem::force::hertz_mindlin>(n);
    return out;
  }
  const std::vector<dem::vec3d> cluster = fcc_cluster(out.r_small, bench::radius - out.r_small);
  const double c = static_cast<double>(cluster.size());
  std::size_t base = tile_n;
  while (static_cast<double>(base) * c < static_cast<double>(n)) base += tile_n;
  const bed tiled = make_tiled_bed<dem::force::hertz_mindlin>(base);
  const double q = std::clamp((static_cast<double>(n) - static_cast<double>(base)) / (static_cast<double>(base) * (c - 1.0)), 0.0, 1.0);
  out.b.domain = tiled.domain;
  for (std::size_t i = 0; i < tiled.set.size(); ++i) {
    const dem::vec3d centre = tiled.set.positions[i];
    if (std::floor(static_cast<double>(i + 1) * q) > std::floor(static_cast<double>(i) * q)) {
      for (const dem::vec3d& p : cluster) {
        out.b.set.positions.push_back(centre + p);
        out.b.set.radii.push_back(out.r_small);
      }
      out.small += cluster.size();
    } else {
      out.b.set.positions.push_back(centre);
      out.b.set.radii.push_back(tiled.set.radii[i]);
    }
  }
  return out;
}

template <class Sim>
struct polydisperse_fixture {
  Sim sim;
  double small_fraction = 0;
  polydisperse_fixture(int ratio, std::size_t n) : polydisperse_fixture(make_polydisperse_bed(ratio, n)) {}

 private:
  static dem::simulation_config config(const polydisperse_bed_set& p) {
    dem::simulation_config cfg = config_for(p.b.domain);
    cfg.contact_margin = 0.2 * p.r_small;
    cfg.allow_initial_overlap = true;
    cfg.allow_unstable_dt = true;  // never stepped
    return cfg;
  }
  explicit polydisperse_fixture(polydisperse_bed_set p) : sim(config(p)) {
    sim.set_log(nullptr);
    bench::setup(sim, p.b.set);
    small_fraction = static_cast<double>(p.small) / static_cast<double>(p.b.set.size());
    p = polydisperse_bed_set{};
    sim.rebuild_contact_list();
    sim.backend().synchronize();
  }
};

// ---- the free fall ------------------------------------------------------------------------------
// N spheres (r = 1 mm, the bed's material) on a cubic lattice of spacing 3 mm, so no pair is ever
// listed (the gap, 1 mm, exceeds the 0.2 mm margin, and every particle has the same acceleration).
// The lattice is thrown up at v0 = g T / 2 with T = 0.04 s: it rises g T^2 / 8 = 2 mm and is back
// where it started, falling at v0, after T (4000 steps); there it is bounced (all velocities set to
// v0 up again, untimed: set_velocities copies the state through the host, but at most once per
// 4000 steps, and never in a timed run at N >= 1e7 on a GPU). The domain holds the lattice and its
// 2 mm rise with 5 mm to spare, so nothing leaves however long the benchmark runs, and the speed
// stays below 0.2 m/s: the lattice moves 3.9 mm per bounce, a contact-list rebuild every ~100 steps
// (a fall from rest would rebuild ever more often as it gathers speed).
template <class Sim>
struct free_fall_fixture {
  using backend = typename Sim::backend_type;
  memory_mark<backend> memory;
  Sim sim;
  double v0 = 0, device_bytes = 0;
  std::uint64_t episode_steps = 0, in_episode = 0, bounces = 0;
  std::uint64_t timed_steps = 0, timed_rebuilds = 0;

  explicit free_fall_fixture(std::size_t n) : free_fall_fixture(device_free_bytes<backend>(), n) {}

  void bounce() {
    sim.set_velocities(std::vector<dem::vec3d>(sim.num_particles(), dem::vec3d{0, 0, v0}));
    in_episode = 0;
    ++bounces;
  }

 private:
  static double throw_speed(const dem::simulation_config& cfg) { return 0.5 * std::abs(cfg.gravity.z) * free_fall_episode; }
  static dem::simulation_config config(std::size_t n) {
    dem::simulation_config cfg;
    const double side = static_cast<double>(bench::lattice_side(n)) * free_fall_spacing, pad = 5e-3;
    const double v0 = throw_speed(cfg), rise = v0 * v0 / (2 * std::abs(cfg.gravity.z));
    cfg.domain = {{-0.5 * side, -0.5 * side, -pad}, {0.5 * side, 0.5 * side, side + rise + pad}};
    cfg.dt = 1e-5;
    return cfg;
  }

  free_fall_fixture(double free_before, std::size_t n) : sim(config(n)) {
    sim.set_log(nullptr);
    v0 = throw_speed(sim.config());
    episode_steps = static_cast<std::uint64_t>(std::llround(free_fall_episode / sim.config().dt));
    {
      const std::size_t nx = bench::lattice_side(n);
      const double half = 0.5 * static_cast<double>(nx) * free_fall_spacing;
      dem::particle_set s;
      s.positions.reserve(n);
      s.radii.assign(n, bench::radius);
      s.velocities.assign(n, dem::vec3d{0, 0, v0});
      for (std::size_t k = 0; k < n; ++k) {
        const std::size_t i = k % nx, j = (k / nx) % nx, l = k / (nx * nx);
        s.positions.push_back({(static_cast<double>(i) + 0.5) * free_fall_spacing - half,
                               (static_cast<double>(j) + 0.5) * free_fall_spacing - half, (static_cast<double>(l) + 0.5) * free_fall_spacing});
      }
      const auto m = sim.add_material({"beads", 2500, 1e7, 0.3, 0.5, 0.5, 0.0});  // bench::setup's material
      sim.add_particles(s, m);
    }
    const int k = steps_per_iteration(n);
    sim.step(static_cast<std::uint64_t>(k));  // set-up (first contact-list build, initial forces) untimed
    in_episode = static_cast<std::uint64_t>(k);
    sim.backend().synchronize();
    if (free_before > 0) device_bytes = free_before - device_free_bytes<backend>();
  }
};

// ---- counters -----------------------------------------------------------------------------------
template <class Sim>
void step_counters(benchmark::State& state, Sim& sim, int steps_per_iter, std::uint64_t timed_steps, std::uint64_t timed_rebuilds,
                   double device_bytes, const memory_mark<typename Sim::backend_type>& memory) {
  const double n = sim.num_particles(), listed = static_cast<double>(sim.num_listed_pairs()),
               touching = static_cast<double>(sim.num_touching_pairs());
  const double particle_steps = n * steps_per_iter * static_cast<double>(state.iterations());
  const double moved = bytes_moved_per_step<Sim>(n, listed, static_cast<double>(sim.num_wall_entries())) / n;
  using benchmark::Counter;
  state.counters["particle_steps_per_s"] = Counter(particle_steps, Counter::kIsRate);
  state.counters["bytes_moved_per_particle_step"] = moved;
  state.counters["model_bytes_per_s"] = Counter(moved * particle_steps, Counter::kIsRate);
  state.counters["contacts_per_particle"] = 2.0 * touching / n;
  state.counters["listed_pairs_per_particle"] = listed / n;
  state.counters["steps_per_rebuild"] = static_cast<double>(timed_steps) / static_cast<double>(std::max<std::uint64_t>(1, timed_rebuilds));
  state.counters["bytes_per_particle"] = static_cast<double>(Sim::bytes_per_particle() + sim.wall_history_bytes_per_particle()) +
                                         static_cast<double>(Sim::bytes_per_contact()) * listed / n;
  state.counters["bytes_per_particle_state"] = static_cast<double>(Sim::bytes_per_particle());
  state.counters["bytes_per_contact"] = static_cast<double>(Sim::bytes_per_contact());
  state.counters["threads"] = Sim::backend_type::concurrency();
  state.counters["particles"] = n;
  state.counters["position_resolution_m"] = sim.position_resolution();
  if (device_bytes > 0) state.counters["device_bytes_per_particle"] = device_bytes / n;
  state.counters["held_bytes_per_particle"] = memory.held() / n;
  state.counters["peak_bytes_per_particle"] = memory.peak() / n;
}

// ---- the scenarios ------------------------------------------------------------------------------
// host_reads: the device backends' step as before 2026-12-04, the host reading the status back after
// every step (config.status_read_interval = 0), for comparison with the device's own rebuild
// decisions (sim/device_steps.hpp). Both share the fixture.
template <class Sim>
struct read_interval_scope {
  Sim& sim;
  read_interval_scope(Sim& s, bool host_reads) : sim(s) { sim.set_status_read_interval(host_reads ? 0 : dem::simulation_config{}.status_read_interval); }
  ~read_interval_scope() { sim.set_status_read_interval(dem::simulation_config{}.status_read_interval); }
};

// deferred: config.deferred_detection (sim/deferred_detection.hpp) for the run; the fixture is shared.
template <class Sim>
struct deferred_scope {
  Sim& sim;
  deferred_scope(Sim& s, bool deferred) : sim(s) { sim.set_deferred_detection(deferred); }
  ~deferred_scope() { sim.set_deferred_detection(false); }
};

template <class Backend, class Force>
void free_fall(benchmark::State& state, std::size_t n, bool host_reads = false, bool deferred = false) {
  using Sim = simulator<Backend, Force>;
  try {
    auto& f = fixture<free_fall_fixture<Sim>>(fixture_key<Sim>("free_fall", n), n);
    const read_interval_scope<Sim> reads(f.sim, host_reads);
    const deferred_scope<Sim> detection(f.sim, deferred);
    const dem::sim::deferred_stats d0 = f.sim.deferred_statistics();
    const int k = steps_per_iteration(n);
    const std::uint64_t s0 = f.sim.step_count(), r0 = f.sim.num_rebuilds();
    for (auto _ : state) {
      if (f.in_episode + static_cast<std::uint64_t>(k) > f.episode_steps) {
        state.PauseTiming();
        f.bounce();
        state.ResumeTiming();
      }
      f.sim.step(static_cast<std::uint64_t>(k));
      f.sim.backend().synchronize();
      f.in_episode += static_cast<std::uint64_t>(k);
    }
    f.timed_steps += f.sim.step_count() - s0;
    f.timed_rebuilds += f.sim.num_rebuilds() - r0;
    step_counters(state, f.sim, k, f.timed_steps, f.timed_rebuilds, f.device_bytes, f.memory);
    state.counters["bounces"] = static_cast<double>(f.bounces);
    if (deferred) {  // this run's deferred builds: applied, and the synchronous ones the guard made
      const dem::sim::deferred_stats d = f.sim.deferred_statistics();
      state.counters["deferred_applied"] = static_cast<double>(d.applied - d0.applied);
      state.counters["guard_rebuilds"] = static_cast<double>(d.guard_rebuilds - d0.guard_rebuilds);
      state.counters["deferred_latency_steps"] = d.latency_steps;
    }
    if (f.sim.num_lost()) state.SkipWithError("free_fall: particles left the domain");
  } catch (const std::exception& e) {
    release_fixture();
    state.SkipWithError(e.what());
  }
}

template <class Backend, class Force, class Precision = dem::precision::single, class Coord = dem::coord::floating>
void tiled_bed(benchmark::State& state, std::size_t n, bool host_reads = false) {
  using Sim = simulator<Backend, Force, Precision, Coord>;
  try {
    auto& f = fixture<tiled_fixture<Sim>>(fixture_key<Sim>("tiled_bed", n), n);
    const read_interval_scope<Sim> reads(f.sim, host_reads);
    const int k = steps_per_iteration(n);
    const std::uint64_t s0 = f.sim.step_count(), r0 = f.sim.num_rebuilds();
    for (auto _ : state) {
      f.sim.step(static_cast<std::uint64_t>(k));
      f.sim.backend().synchronize();
    }
    f.timed_steps += f.sim.step_count() - s0;
    f.timed_rebuilds += f.sim.num_rebuilds() - r0;
    step_counters(state, f.sim, k, f.timed_steps, f.timed_rebuilds, f.device_bytes, f.memory);
    state.counters["lost"] = f.sim.num_lost();
  } catch (const std::exception& e) {
    release_fixture();
    state.SkipWithError(e.what());
  }
}

// Contact detection alone on the tiled bed (the same fixture as tiled_bed at this N): cell sort and
// reorder, pair search, history carry-over, incident lists.
template <class Backend, class Force>
void contact_detection(benchmark::State& state, std::size_t n) {
  using Sim = simulator<Backend, Force>;
  try {
    auto& f = fixture<tiled_fixture<Sim>>(fixture_key<Sim>("tiled_bed", n), n);
    for (auto _ : state) {
      f.sim.rebuild_contact_list();
      f.sim.backend().synchronize();
    }
    const double np = f.sim.num_particles();
    state.counters["particles_per_s"] = benchmark::Counter(np * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
    state.counters["listed_pairs_per_particle"] = static_cast<double>(f.sim.num_listed_pairs()) / np;
    state.counters["particles"] = np;
    state.counters["threads"] = Backend::concurrency();
  } catch (const std::exception& e) {
    release_fixture();
    state.SkipWithError(e.what());
  }
}

// Contact detection alone on the polydisperse bed of `ratio` (above), with the broad phase's levels
// chosen by the simulator (levels = 0) or one uniform grid (levels = 1).
template <class Backend, class Force>
void polydisperse_bed(benchmark::State& state, int ratio, std::size_t n, std::uint32_t levels) {
  using Sim = simulator<Backend, Force>;
  try {
    auto& f = fixture<polydisperse_fixture<Sim>>(fixture_key<Sim>(("polydisperse_bed/" + std::to_string(ratio)).c_str(), n), ratio, n);
    f.sim.set_broad_phase_levels(levels);
    f.sim.rebuild_contact_list();  // untimed: the buffers take this grid's sizes
    f.sim.backend().synchronize();
    const auto t0 = std::chrono::steady_clock::now();
    for (auto _ : state) {
      f.sim.rebuild_contact_list();
      f.sim.backend().synchronize();
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double np = f.sim.num_particles(), listed = static_cast<double>(f.sim.num_listed_pairs());
    const double iterations = static_cast<double>(state.iterations());
    state.counters["ns_per_listed_pair"] = 1e9 * seconds / (iterations * listed);
    state.counters["particles_per_s"] = benchmark::Counter(np * iterations, benchmark::Counter::kIsRate);
    state.counters["listed_pairs_per_particle"] = listed / np;
    state.counters["levels"] = f.sim.broad_phase_levels();
    state.counters["particles"] = np;
    state.counters["small_fraction"] = f.small_fraction;
    state.counters["threads"] = Backend::concurrency();
  } catch (const std::exception& e) {
    release_fixture();
    state.SkipWithError(e.what());
  }
}

// Inspectors (inspect/inspect.hpp) on the tiled bed (the same fixture as tiled_bed at this N), each
// one reduction over the particles: `which` = 0: inspect::particles over everything; 1: particles
// in a box holding the middle half of the bed (exact packing fraction of the spheres it cuts);
// 2: inspect::contacts in that box (coordination, histogram, fabric, Love–Weber stress); 3:
// inspect::contacts over the whole bed (a box around it: every particle and contact).
// Counters: particles_per_s, and fraction_of_step = the inspector's time / the time of one step
// (20 steps timed in each call, before the timed loop). Target (issue 14): <= 0.1 at N = 1e6.
template <class Backend, class Force>
void inspectors(benchmark::State& state, std::size_t n, int which) {
  using Sim = simulator<Backend, Force>;
  try {
    auto& f = fixture<tiled_fixture<Sim>>(fixture_key<Sim>("tiled_bed", n), n);
    const auto t0 = std::chrono::steady_clock::now();
    f.sim.step(20);
    f.sim.backend().synchronize();
    const double step_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / 20;
    const auto all = dem::inspect::particles(f.sim);
    const dem::vec3d lo = all.extent_lo, hi = all.extent_hi, e = hi - lo;
    const dem::inspect::box middle{lo + e * 0.25, hi - e * 0.25}, whole{lo - e * 0.01, hi + e * 0.01};
    double checksum = 0;
    for (auto _ : state) {
      if (which == 0) checksum += dem::inspect::particles(f.sim).kinetic_energy();
      else if (which == 1) checksum += dem::inspect::particles(f.sim, middle).packing_fraction;
      else if (which == 2) checksum += dem::inspect::contacts(f.sim, middle).coordination;
      else checksum += dem::inspect::contacts(f.sim, whole).coordination;
      f.sim.backend().synchronize();
    }
    benchmark::DoNotOptimize(checksum);
    const double np = f.sim.num_particles();
    state.counters["particles_per_s"] = benchmark::Counter(np * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
    state.counters["step_s"] = step_s;
    // Time per iteration / step_s: an inverted rate of iterations x step_s.
    state.counters["fraction_of_step"] = benchmark::Counter(static_cast<double>(state.iterations()) * step_s,
                                                            benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
    state.counters["particles"] = np;
    state.counters["threads"] = Backend::concurrency();
  } catch (const std::exception& e) {
    release_fixture();
    state.SkipWithError(e.what());
  }
}

#if defined(__CUDACC__)
// Device-to-device copies of `bytes` (10 per iteration, timed with CUDA events); bytes_per_s counts
// read + write, 2 x bytes per copy: the bandwidth the traffic model's bytes are measured against.
inline void copy_bandwidth(benchmark::State& state, std::size_t bytes) {
  release_fixture();
  void* a = nullptr;
  void* b = nullptr;
  cudaEvent_t e0 = nullptr, e1 = nullptr;
  auto cleanup = [&] {
    if (a) cudaFree(a);
    if (b) cudaFree(b);
    if (e0) cudaEventDestroy(e0);
    if (e1) cudaEventDestroy(e1);
  };
  auto failed = [&](cudaError_t err, const char* what) {
    if (err == cudaSuccess) return false;
    (void)cudaGetLastError();
    cleanup();
    state.SkipWithError((std::string(what) + ": " + cudaGetErrorString(err)).c_str());
    return true;
  };
  if (failed(cudaMalloc(&a, bytes), "cudaMalloc") || failed(cudaMalloc(&b, bytes), "cudaMalloc") ||
      failed(cudaMemset(a, 1, bytes), "cudaMemset") || failed(cudaMemset(b, 0, bytes), "cudaMemset") ||
      failed(cudaEventCreate(&e0), "cudaEventCreate") || failed(cudaEventCreate(&e1), "cudaEventCreate") ||
      failed(cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice), "cudaMemcpy") || failed(cudaDeviceSynchronize(), "warm-up copy"))
    return;
  constexpr int copies = 10;
  for (auto _ : state) {
    cudaEventRecord(e0);
    for (int c = 0; c < copies; ++c) cudaMemcpyAsync((c & 1) ? a : b, (c & 1) ? b : a, bytes, cudaMemcpyDeviceToDevice);
    cudaEventRecord(e1);
    if (failed(cudaEventSynchronize(e1), "copy")) return;
    float ms = 0;
    cudaEventElapsedTime(&ms, e0, e1);
    state.SetIterationTime(1e-3 * ms);
  }
  state.counters["bytes_per_s"] =
      benchmark::Counter(2.0 * static_cast<double>(bytes) * copies * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
  state.counters["bytes"] = static_cast<double>(bytes);
  cleanup();
}
#endif

}  // namespace bench::suite
