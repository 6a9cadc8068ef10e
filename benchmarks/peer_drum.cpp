// The drum scenario (drum.hpp) for benchmarks/peers/drum.sh:
//   peer_drum files <dir> <N>        writes <dir>/liner.stl (the liner mesh, ASCII STL) and the settled
//                                    charge as <dir>/charge.csv and <dir>/charge.data (LIGGGHTS data file)
//   peer_drum run <dir> <N> <threads> spins the charge up for SPIN_STEPS (default 10000), then times
//                                    TIMED_STEPS (2000) steps, TIMED_REPEATS segments, the fastest reported;
//                                    MAX_OVERRUN sets config.max_overrun (0: the list's global criterion),
//                                    DEFERRED=1 config.deferred_detection (DEFERRED_THREADS: config.deferred_threads),
//                                    MARGIN config.contact_margin (m)
// and prints seconds=, particle_steps_per_s=, power_W=, rebuilds=, local_checks=, list_patches= (in the
// timed segments; with DEFERRED, the deferred builds' counts over the whole run).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <string>

#if defined(_OPENMP)
#include <omp.h>
#endif

#include "drum.hpp"

namespace {
long env(const char* name, long fallback) { return std::getenv(name) ? std::atol(std::getenv(name)) : fallback; }
}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: peer_drum files <dir> <N> | peer_drum run <dir> <N> <threads>\n");
    return 2;
  }
  try {
    const std::string mode = argv[1], dir = argv[2];
    const auto n = static_cast<std::size_t>(std::atol(argv[3]));
    const dem::boundary::triangle_mesh mesh = bench::drum::liner();
    if (mode == "files") {
      const dem::particle_set c = bench::drum::charge(n, mesh);
      std::ofstream stl(dir + "/liner.stl");
      stl << std::setprecision(17) << "solid liner\n";
      for (const auto& t : mesh.triangles) {
        const dem::vec3d a = mesh.vertices[t[0]], b = mesh.vertices[t[1]], d = mesh.vertices[t[2]];
        dem::vec3d nrm = cross(b - a, d - a);
        nrm = nrm / norm(nrm);
        stl << "facet normal " << nrm.x << ' ' << nrm.y << ' ' << nrm.z << "\n outer loop\n";
        for (const auto& p : {a, b, d}) stl << "  vertex " << p.x << ' ' << p.y << ' ' << p.z << '\n';
        stl << " endloop\nendfacet\n";
      }
      stl << "endsolid liner\n";
      const dem::aabb d = bench::drum::config().domain;
      std::ofstream data(dir + "/charge.data");
      data << std::setprecision(17) << "LIGGGHTS data file: the settled drum charge (peer_drum)\n\n" << c.size() << " atoms\n1 atom types\n\n"
           << d.lo.x << ' ' << d.hi.x << " xlo xhi\n" << d.lo.y << ' ' << d.hi.y << " ylo yhi\n" << d.lo.z << ' ' << d.hi.z << " zlo zhi\n\nAtoms\n\n";
      for (std::size_t k = 0; k < c.size(); ++k)
        data << k + 1 << " 1 " << 2 * c.radii[k] << " 2500 " << c.positions[k].x << ' ' << c.positions[k].y << ' ' << c.positions[k].z << '\n';
      std::filesystem::copy_file("drum_settled_" + std::to_string(n) + ".csv", dir + "/charge.csv",
                                 std::filesystem::copy_options::overwrite_existing);
      std::printf("peer_drum: %zu spheres, %zu triangles written to %s\n", c.size(), mesh.triangles.size(), dir.c_str());
      return 0;
    }
    if (mode != "run" || argc < 5) throw std::runtime_error("unknown mode or missing threads");
#if defined(_OPENMP)
    omp_set_num_threads(std::atoi(argv[4]));
#endif
    const dem::particle_set c = bench::read_bed(dir + "/charge.csv");
    if (c.size() != n) throw std::runtime_error("the charge has " + std::to_string(c.size()) + " spheres, not " + argv[3]);
    dem::simulation_config cfg = bench::drum::config();
    cfg.deferred_detection = env("DEFERRED", 0) != 0;
    cfg.deferred_threads = static_cast<std::uint32_t>(env("DEFERRED_THREADS", 0));
    if (std::getenv("MARGIN")) cfg.contact_margin = std::atof(std::getenv("MARGIN"));
    bench::drum::sim_type sim(cfg);
    sim.set_log(nullptr);
    if (std::getenv("MAX_OVERRUN")) sim.set_max_overrun(static_cast<std::uint32_t>(env("MAX_OVERRUN", 256)));  // 0: the global criterion
    const std::uint32_t id = bench::drum::setup(sim, mesh);
    sim.add_particles(c, 0);
    sim.set_motion(id, dem::boundary::constant_velocity{.omega = {0, bench::drum::omega, 0}});
    sim.step(static_cast<std::uint64_t>(env("SPIN_STEPS", 10000)));
    const long timed = env("TIMED_STEPS", 2000), repeats = std::max(1L, env("TIMED_REPEATS", 1));
    double best = 0;
    std::string all;
    const std::uint64_t rebuilds = sim.num_rebuilds(), checks = sim.num_local_checks(), patches = sim.num_list_patches();
    for (long r = 0; r < repeats; ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      sim.step(static_cast<std::uint64_t>(timed));
      const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      best = r == 0 ? t : std::min(best, t);
      if (r) all += ' ';
      all += std::to_string(t);
    }
    std::printf("seconds=%.4f particle_steps_per_s=%.4e power_W=%.4f lost=%u rebuilds=%llu local_checks=%llu list_patches=%llu segments=[%s]\n",
                best, static_cast<double>(n) * timed / best, sim.boundary_power(id), sim.num_lost(),
                static_cast<unsigned long long>(sim.num_rebuilds() - rebuilds), static_cast<unsigned long long>(sim.num_local_checks() - checks),
                static_cast<unsigned long long>(sim.num_list_patches() - patches), all.c_str());
    if (cfg.deferred_detection) {
      const dem::sim::deferred_stats d = sim.deferred_statistics();
      std::printf("deferred: launched=%llu applied=%llu discarded=%llu too_late=%llu sync_rebuilds=%llu guard_rebuilds=%llu short_lists=%llu "
                  "latency_steps=%.2f wait_s=%.4f\n",
                  static_cast<unsigned long long>(d.launched), static_cast<unsigned long long>(d.applied),
                  static_cast<unsigned long long>(d.discarded), static_cast<unsigned long long>(d.too_late),
                  static_cast<unsigned long long>(d.sync_rebuilds), static_cast<unsigned long long>(d.guard_rebuilds),
                  static_cast<unsigned long long>(d.short_lists), d.latency_steps, d.wait_seconds);
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "peer_drum: %s\n", e.what());
    return 1;
  }
}
