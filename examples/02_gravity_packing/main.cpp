// Gravity packing: spheres fall into a box and settle. The main example of dem.
//
//   gravity_packing [--n N] [--time T] [--out DIR] [--frames K] [--backend host|cuda]
//
// Built by nvcc (when CUDA is available) it carries both backends; built by a plain C++
// compiler it carries the host backend only.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <stdexcept>
#include <string>

#include "dem/dem.hpp"
#include "dem/io/csv.hpp"
#include "dem/io/vtk.hpp"
#if defined(__CUDACC__)
#include "dem/backend/cuda.hpp"
#endif

namespace {

struct options {
  std::size_t n = 20000;
  double time = 0.5;
  std::string out;
  int frames = 10;
  std::string backend;
};

[[noreturn]] void usage_error(const std::string& why) {
  std::cerr << "gravity_packing: " << why << "\n"
            << "usage: gravity_packing [--n N] [--time T] [--out DIR] [--frames K] [--backend host|cuda]\n";
  std::exit(2);
}

double parse_number(const std::string& flag, const char* text) {
  char* end = nullptr;
  const double v = std::strtod(text, &end);
  if (end == text || *end != '\0' || !std::isfinite(v)) usage_error(flag + " expects a number, got '" + text + "'");
  return v;
}

options parse(int argc, char** argv) {
  options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> const char* {
      if (i + 1 >= argc) usage_error(a + " needs a value");
      return argv[++i];
    };
    if (a == "--n") {
      const double v = parse_number(a, value());
      if (v < 1 || v > 2e8 || v != std::floor(v)) usage_error("--n must be a whole number in [1, 2e8], got " + std::to_string(v));
      o.n = static_cast<std::size_t>(v);
    } else if (a == "--time") {
      o.time = parse_number(a, value());
      if (!(o.time > 0)) usage_error("--time must be > 0 seconds, got " + std::to_string(o.time));
    } else if (a == "--out") {
      o.out = value();
    } else if (a == "--frames") {
      const double v = parse_number(a, value());
      if (v < 1 || v > 100000 || v != std::floor(v)) usage_error("--frames must be a whole number in [1, 100000], got " + std::to_string(v));
      o.frames = static_cast<int>(v);
    } else if (a == "--backend") {
      o.backend = value();
      if (o.backend != "host" && o.backend != "cuda") usage_error("--backend must be host or cuda, got '" + o.backend + "'");
    } else if (a == "--help" || a == "-h") {
      usage_error("help");
    } else {
      usage_error("unknown argument '" + a + "'");
    }
  }
  return o;
}

template <class Backend>
int run(const options& o) {
  using Sim = dem::Simulator<dem::policies<dem::shape::sphere, dem::force::hertz_mindlin, dem::integrate::velocity_verlet,
                                           dem::precision::single>,
                             Backend>;
  // Glass beads of 1 mm radius (+-10 %) into a square box sized so that the bed is about as
  // high as it is wide; they start on a jittered lattice above the floor.
  const double r = 1e-3, spacing = 2.5e-3;
  const double bed_volume = static_cast<double>(o.n) * 4.0 / 3.0 * M_PI * r * r * r / 0.6;
  const double width = std::max(0.012, std::cbrt(bed_volume));
  const auto per_layer = static_cast<std::size_t>(std::floor((width - 2 * 1.2e-3) / spacing) + 1);
  const double fill_height = (static_cast<double>(o.n) / (per_layer * per_layer) + 2) * spacing;
  dem::simulation_config cfg;
  cfg.domain = {{0, 0, 0}, {width, width, fill_height + 0.01}};
  cfg.dt = 1e-5;
  Sim sim(cfg);
  const auto glass = sim.add_material({"glass beads", 2500, 1e7, 0.3, 0.5, 0.5, 0.05});
  sim.add_box(cfg.domain, glass);
  dem::sample::lattice_options lo;
  lo.radius = r;
  lo.radius_spread = 0.1;
  lo.spacing = spacing;
  lo.jitter = 1e-4;
  lo.max_count = o.n;
  const dem::particle_set set = dem::sample::cubic_lattice({{0, 0, 0}, {width, width, cfg.domain.hi.z}}, lo);
  if (set.size() != o.n) throw std::runtime_error("could only place " + std::to_string(set.size()) + " particles");
  sim.add_particles(set, glass);

  std::printf("gravity_packing: %zu spheres, box %.4f x %.4f x %.4f m, dt %.1e s, backend %s, stable dt %.3e s\n", o.n, width, width,
              cfg.domain.hi.z, cfg.dt, Backend::name, sim.stable_time_step());
  std::optional<dem::io::vtk_series> series;
  if (!o.out.empty()) {
    series.emplace(o.out);
    series->write(sim.snapshot());
  }
  const auto total_steps = static_cast<std::uint64_t>(std::ceil(o.time / cfg.dt - 1e-9));
  const int reports = std::max(o.frames, 10);
  const auto t0 = std::chrono::steady_clock::now();
  double compute_seconds = 0;
  std::uint64_t done = 0;
  for (int k = 1; k <= reports; ++k) {
    const std::uint64_t target = total_steps * k / reports;
    const auto c0 = std::chrono::steady_clock::now();
    sim.step(target - done);
    sim.backend().synchronize();
    const double dts = std::chrono::duration<double>(std::chrono::steady_clock::now() - c0).count();
    compute_seconds += dts;
    const double rate = dts > 0 ? static_cast<double>(target - done) / dts : 0.0;
    done = target;
    std::printf("t = %.4f s  steps = %llu  steps/s = %.0f  kinetic_energy = %.4e J  contacts = %llu\n", sim.time(),
                static_cast<unsigned long long>(done), rate, sim.kinetic_energy(),
                static_cast<unsigned long long>(sim.num_touching_pairs()));
    std::fflush(stdout);
    if (series && (k * o.frames) % reports == 0) series->write(sim.snapshot());
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const dem::io::snapshot snap = sim.snapshot();
  if (!o.out.empty()) dem::io::write_csv(o.out + "/particles_final.csv", snap);
  const double h = dem::analysis::bed_height(snap);
  const double m = 4 * r;
  double phi = 0;
  if (h > 3 * m) phi = dem::analysis::packing_fraction(snap, {{m, m, m}, {width - m, width - m, h - m}});
  std::printf("summary: n=%zu steps=%llu seconds=%.3f particle_steps_per_s=%.4e packing_fraction=%.4f kinetic_energy=%.4e\n", o.n,
              static_cast<unsigned long long>(done), wall, static_cast<double>(o.n) * done / compute_seconds, phi,
              sim.kinetic_energy());
  if (sim.num_lost()) std::printf("note: %u particles left the domain\n", sim.num_lost());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const options o = parse(argc, argv);
  try {
#if defined(__CUDACC__)
    std::string why;
    const bool gpu = dem::backend::cuda_device_available(&why);
    const std::string backend = o.backend.empty() ? (gpu ? "cuda" : "host") : o.backend;
    if (backend == "cuda") {
      if (!gpu) {
        std::cerr << "gravity_packing: --backend cuda, but no usable CUDA device: " << why << "\n";
        return 2;
      }
      return run<dem::backend::cuda>(o);
    }
#else
    if (o.backend == "cuda") {
      std::cerr << "gravity_packing: --backend cuda, but this build has no CUDA backend (configure with nvcc available)\n";
      return 2;
    }
#endif
    return run<dem::backend::host>(o);
  } catch (const std::exception& e) {
    std::cerr << "gravity_packing: error: " << e.what() << "\n";
    return 1;
  }
}
