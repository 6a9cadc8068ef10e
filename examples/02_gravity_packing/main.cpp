// Gravity packing: spheres fall into a box and settle. The main example of dem.
//
//   gravity_packing [--n N] [--time T] [--out DIR] [--frames K] [--backend host|cuda] [--ledger]
//
// Built by nvcc (when CUDA is available) it carries both backends; built by a plain C++
// compiler it carries the host backend only.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <optional>
#include <stdexcept>
#include <string>

#include "../common/example.hpp"
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
  bool ledger = false;
};

// The run in three phases, each with its own rate: the fall (fewer than 3 touching contacts per
// particle), the landing (the bed forms: contacts are made and broken, the contact list is rebuilt
// every few dozen steps) and the dense bed (at least 3 contacts per particle, about 4.5 once settled,
// and the kinetic energy below 1e-4 of its peak). The dense rate is what the settled-bed benchmark
// measures; the fall runs much faster and would hide it in the rate of the whole run.
constexpr double dense_contacts_per_particle = 3.0;
constexpr double settled_energy_fraction = 1e-4;
enum phase { fall = 0, landing = 1, dense = 2 };

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
  if (o.ledger) sim.enable_energy_ledger();  // where the energy goes (dem/energy/ledger.hpp); each step then costs about 4x

  std::printf("gravity_packing: %zu spheres, box %.4f x %.4f x %.4f m, dt %.1e s, backend %s, stable dt %.3e s\n", o.n, width, width,
              cfg.domain.hi.z, cfg.dt, Backend::name, sim.stable_time_step());
  const std::uint64_t total = example::steps_for(o.time, cfg.dt);
  std::optional<dem::io::vtk_series> series;
  std::vector<std::uint64_t> frames;
  if (!o.out.empty()) {
    series.emplace(o.out);
    frames = example::frame_schedule(total, o.frames);
  }
  const std::vector<std::uint64_t> reports = example::frame_schedule(total, 11);  // 0, 10 %, ..., 100 %
  std::size_t next_frame = 0, next_report = 1;
  example::progress progress(total);
  double compute = 0, phase_seconds[3] = {0, 0, 0};
  std::uint64_t done = 0, phase_steps[3] = {0, 0, 0};
  double contacts_per_particle = 0, energy = sim.kinetic_energy(), peak_energy = energy;
  auto write_frames = [&] {
    for (; next_frame < frames.size() && frames[next_frame] == done; ++next_frame) example::write_frame(*series, sim);
  };
  write_frames();
  while (done < total) {
    // Stop at the next report and the next frame; in between, chunks sized for the progress line.
    std::uint64_t stop = std::min(reports[next_report], done + progress.chunk(total - done));
    if (next_frame < frames.size()) stop = std::min(stop, frames[next_frame]);
    // The phase of this chunk, from the state at its start.
    const phase now = contacts_per_particle < dense_contacts_per_particle ? fall
                      : energy > settled_energy_fraction * peak_energy   ? landing
                                                                         : dense;
    const auto c0 = std::chrono::steady_clock::now();
    sim.step(stop - done);
    sim.backend().synchronize();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - c0).count();
    compute += seconds;
    phase_seconds[now] += seconds;
    phase_steps[now] += stop - done;
    const std::uint64_t chunk = stop - done;
    done = stop;
    contacts_per_particle = 2.0 * static_cast<double>(sim.num_touching_pairs()) / std::max<double>(1, sim.num_active());
    energy = sim.kinetic_energy();
    peak_energy = std::max(peak_energy, energy);
    write_frames();
    if (done == reports[next_report]) {
      ++next_report;
      char extra[200];
      std::snprintf(extra, sizeof extra, "kinetic_energy = %.4e J  contacts/particle = %.2f  contact-list builds = %llu", energy,
                    contacts_per_particle, static_cast<unsigned long long>(sim.num_rebuilds()));
      progress.add(chunk, sim.num_active(), sim.time(), extra, true);
    } else {
      progress.add(chunk, sim.num_active(), sim.time());
    }
  }
  const dem::io::snapshot snap = sim.snapshot();
  if (!o.out.empty()) dem::io::write_csv(o.out + "/particles_final.csv", snap);
  const double h = dem::analysis::bed_height(snap);
  const double m = 4 * r;
  // The bed's inside, 4 radii from the walls and from its rough top: the exact solid fraction of the
  // spheres the box holds or cuts, the coordination number and the Love–Weber stress (inspectors:
  // one pass each, on the simulator's backend).
  double phi = 0;
  if (h > 3 * m) {
    const dem::inspect::box inside{{m, m, m}, {width - m, width - m, h - m}};
    phi = dem::inspect::particles(sim, inside).packing_fraction;
    const dem::inspect::contact_summary c = dem::inspect::contacts(sim, inside);
    std::printf("bed: packing_fraction=%.4f coordination=%.3f mean_pressure=%.4e Pa vertical_stress=%.4e Pa (Love-Weber, compression negative)\n",
                phi, c.coordination, c.mean_pressure(), c.stress[8]);
  }
  const double n = static_cast<double>(o.n);
  const auto rate = [&](double steps, double seconds) { return seconds > 0 ? n * steps / seconds : 0.0; };
  std::printf("phases: fall %llu steps at %.4e particle-steps/s, landing %llu steps at %.4e, dense %llu steps at %.4e\n",
              static_cast<unsigned long long>(phase_steps[fall]), rate(phase_steps[fall], phase_seconds[fall]),
              static_cast<unsigned long long>(phase_steps[landing]), rate(phase_steps[landing], phase_seconds[landing]),
              static_cast<unsigned long long>(phase_steps[dense]), rate(phase_steps[dense], phase_seconds[dense]));
  std::printf("summary: n=%zu steps=%llu seconds=%.3f particle_steps_per_s=%.4e dense_steps=%llu dense_particle_steps_per_s=%.4e "
              "packing_fraction=%.4f kinetic_energy=%.4e\n",
              o.n, static_cast<unsigned long long>(done), progress.elapsed(), rate(done, compute),
              static_cast<unsigned long long>(phase_steps[dense]), rate(phase_steps[dense], phase_seconds[dense]), phi, sim.kinetic_energy());
  if (o.ledger) {
    const dem::energy::ledger l = sim.energy_ledger();
    std::printf("energy: released by gravity %.4e J, input %.4e J; kinetic %+.4e J, elastic %+.4e J; dissipated %.4e J (normal damping %.4e, "
                "tangential %.4e, rolling %.4e, twisting %.4e); imbalance %.3e J = %.2e of the energy that went through\n",
                -l.potential_change(), l.input(), l.kinetic_change(), l.elastic_change(), l.dissipated(), l.normal_damping, l.tangential,
                l.rolling, l.twisting, l.imbalance(), l.relative_imbalance());
    std::printf("summary_energy: dissipated=%.6e relative_imbalance=%.3e\n", l.dissipated(), l.relative_imbalance());
  }
  if (sim.num_lost()) std::printf("note: %u particles left the domain\n", sim.num_lost());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  example::flags f("gravity_packing", "[--n N] [--time T] [--out DIR] [--frames K] [--backend host|cuda] [--ledger]", argc, argv);
  options o;
  o.n = f.count("--n", o.n, 1, 200000000);
  o.time = f.number("--time", o.time, 1e-9, 1e6);
  o.out = f.text("--out", "");
  o.frames = static_cast<int>(f.count("--frames", 10, 1, 100000));
  o.backend = f.choice("--backend", "", {"host", "cuda"});
  o.ledger = f.option("--ledger");
  f.done();
  return example::guarded_main("gravity_packing", [&] {
#if defined(__CUDACC__)
    std::string why;
    const bool gpu = dem::backend::cuda_device_available(&why);
    const std::string backend = o.backend.empty() ? (gpu ? "cuda" : "host") : o.backend;
    if (backend == "cuda") {
      if (!gpu) throw std::runtime_error("--backend cuda, but no usable CUDA device: " + why);
      return run<dem::backend::cuda>(o);
    }
#else
    if (o.backend == "cuda") throw std::runtime_error("--backend cuda, but this build has no CUDA backend (configure with nvcc available)");
#endif
    return run<dem::backend::host>(o);
  });
}
