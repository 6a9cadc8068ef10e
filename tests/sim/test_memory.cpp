// Memory the backend holds (backend/memory_meter.hpp): the meter balances, a step that does not
// rebuild the contact list allocates nothing, and device backends hold no rebuild scratch between
// rebuilds, so that their peak, reached inside a rebuild, stays within a budget per particle and
// listed pair (docs/performance.md, "Memory").
#include <doctest/doctest.h>

#include <cstddef>
#include <string>

#include "support/scenarios.hpp"

using namespace dem_test;

namespace {

using sim = sim_t<dem::force::hertz_mindlin, dem::precision::single>;

// A pressed 14^3 lattice (2744 spheres, each touching its neighbours), walls on every side.
struct pressed_block {
  sim s;
  explicit pressed_block(const dem::simulation_config& c) : s(c) {
    const auto m = s.add_material({"m", 2500, 1e7, 0.3, 0.5, 0.5, 0.0});
    dem::particle_set p = pressed_cubic_lattice(14, 1e-3, 1e-6);
    for (auto& x : p.positions) x -= dem::vec3d{13e-3, 13e-3, 13e-3};  // centred on the origin
    s.add_particles(p, m);
  }
};

dem::simulation_config block_config() {
  dem::simulation_config c = zero_g_config(0.05);
  c.dt = 1e-6;
  return c;
}

}  // namespace

TEST_CASE("memory meter: what a simulator allocates it frees; a step without a rebuild allocates nothing") {
  const std::size_t before = test_backend::memory().live;
  {
    pressed_block b(block_config());
    b.s.step(1);  // prepares and builds the list
    REQUIRE(b.s.num_listed_pairs() > 2 * 2744);
    const std::size_t held = test_backend::memory().live;
    CHECK(held > before);
    test_backend::reset_memory_peak();
    const auto rebuilds = b.s.num_rebuilds();
    b.s.step(5);  // the lattice barely moves: no rebuild
    REQUIRE(b.s.num_rebuilds() == rebuilds);
    CHECK(test_backend::memory().live == held);
    CHECK(test_backend::memory().peak == held);
  }
  CHECK(test_backend::memory().live == before);
}

TEST_CASE("memory: the peak inside a rebuild, per particle; device backends free the rebuild's scratch") {
  const std::size_t before = test_backend::memory().live;
  test_backend::reset_memory_peak();
  pressed_block b(block_config());
  b.s.step(1);
  b.s.rebuild_contact_list();  // a second build: old and new lists (history carry) both at play
  const double n = 2744, pairs = static_cast<double>(b.s.num_listed_pairs());
  const auto use = test_backend::memory();
  const double peak = static_cast<double>(use.peak - before) / n, steady = static_cast<double>(use.live - before) / n;
  MESSAGE(std::string(test_backend::name) << ": " << peak << " B per particle at peak, " << steady << " between rebuilds; " << pairs / n
                             << " listed pairs per particle; state " << sim::bytes_per_particle() << " B");
  CHECK(steady <= peak);
  if constexpr (!test_backend::keeps_rebuild_scratch) {
    // Between rebuilds: the state and each listed pair's indices, history, results and incident
    // entries (bytes_per_particle, bytes_per_contact), the occupied cells' keys and starts.
    // Whatever a build allocates for itself alone is gone.
    const double cells = 12.0 * (n + 1) / n;  // at most one occupied cell per particle
    const double walls = b.s.wall_history_bytes_per_particle();
    // backend::cuda also keeps CUB's scratch, its result cells and the reductions' values (8 B per
    // element reduced, up to 2^20); the emulated device keeps the last in host memory.
    const double fixed = std::string(test_backend::name) == "cuda" ? (8.0 * (n + pairs + 2) + 262144.0) / n : 0.0;
    CHECK(steady <= sim::bytes_per_particle() + sim::bytes_per_contact() * pairs / n + cells + walls + fixed);
    // A build's scratch never outweighs the listed forces and torques it frees while it runs (made
    // again last, after the wall list): the peak is the steady state, plus the wall list's carry map
    // while the forces come back (the emulated device: 0.25 B per particle over it; 11 B when the
    // incident lists were sorted by key and the forces came back before the wall list).
    CHECK(peak <= steady + 2 + fixed);
  }
}
