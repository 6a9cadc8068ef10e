// Compaction of deformable spheres (YADE's deformation engine; Haustein et al., SoftwareX 6 (2017)
// 118, section 3.3): 400 spheres of 10 mm diameter settle in an 80 mm cube, then the top wall comes
// down at 0.01 m/s until it feels 1000 N and goes back up. Run with rigid spheres
// (shape::sphere) and with deformable ones (shape::deformable_sphere), same packing, same law: with
// deformation the limit comes at a lower strain and a lower porosity. Prints the force against the
// strain e = (L0 - L) / L0 (L: the wall's height above the floor, L0 = 80 mm), and for each model
// the strain and porosity at the force limit.
//
//   deformable_compaction [--n 400] [--kn 1300] [--cn 0.186] [--force 1000] [--speed 0.01]
//                         [--model both|rigid|deformable] [--csv DIR]
//   YADE's own example (examples/DeformEngine/OedometricDeform.py) from the packing it settled
//   (scripts/yade/oedometer.py writes it; a cube centred at the origin, open at the top):
//   deformable_compaction --packing docs/data/yade/oedometer_settled_spheres.csv --side 0.132
//       --diameter 0.0165 --density 1000 --kn 2939.154 --cn 0.41946 --kt-ratio 0.285714 --mu 0.309336
//       --force 500 --settle 0
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>

#include <dem/dem.hpp>

#include "../common/example.hpp"

namespace {

struct options {
  std::size_t n = 400;
  double side = 0.08, radius = 0.005, density = 2000;
  double kn = 1300, cn = 0.186, kt_ratio = 1.0, mu = 0.5, force = 1000, speed = 0.01, dt = 1e-5, settle = 0.6;
  std::string model = "both", csv, packing;
};

// x,y,z,r rows (a header line first) of a packing in a cube of edge `side` centred at the origin,
// moved into [0, side]^3.
dem::particle_set read_packing(const std::string& path, double side) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read the packing " + path);
  std::string line;
  std::getline(in, line);
  dem::particle_set p;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    double v[4];
    if (std::sscanf(line.c_str(), "%lf,%lf,%lf,%lf", &v[0], &v[1], &v[2], &v[3]) != 4)
      throw std::runtime_error(path + ": a row is not x,y,z,r: '" + line + "'");
    p.positions.push_back({v[0] + side / 2, v[1] + side / 2, v[2] + side / 2});
    p.radii.push_back(v[3]);
  }
  if (p.radii.empty()) throw std::runtime_error(path + " holds no spheres");
  return p;
}

struct result {
  double strain_at_limit = 0, porosity_at_limit = 0, nominal_porosity_at_limit = 0, peak_force = 0, max_ratio = 1, steps_per_s = 0;
  std::uint64_t steps = 0;
  std::uint32_t n = 0;
};

// The solid volume inside the box of rigid spheres that overlap: their volume less the lenses two
// spheres share and the caps that stick out through a wall (that volume is not there: the reason
// the paper gives for deformable spheres). Triple overlaps are neglected. Deformable spheres keep
// their volume, cut at the planes between them and at the walls: their solid volume is their sum.
template <class Sim>
double rigid_solid_volume(Sim& sim, double side, double top) {
  const auto x = sim.positions();
  const auto r = sim.radii();
  double v = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    v += 4.0 / 3 * M_PI * r[i] * r[i] * r[i];
    const double d[6] = {x[i].x, side - x[i].x, x[i].y, side - x[i].y, x[i].z, top - x[i].z};
    for (const double di : d)
      if (di < r[i]) {
        const double h = r[i] - di;
        v -= M_PI * h * h * (3 * r[i] - h) / 3;
      }
  }
  for (const auto& [a, b] : sim.listed_pairs()) {
    const double L = dem::norm(x[a] - x[b]), ra = r[a], rb = r[b];
    if (L >= ra + rb) continue;
    const double gap = ra + rb - L;  // the lens of two overlapping spheres
    v -= M_PI * gap * gap * (L * L + 2 * L * (ra + rb) - 3 * (ra - rb) * (ra - rb)) / (12 * L);
  }
  return v;
}

// The restitution of a linear spring-dashpot with stiffness k and dashpot c for effective mass m:
// e = exp(-pi zeta / sqrt(1 - zeta^2)), zeta = c / (2 sqrt(k m)).
double restitution_of(double k, double c, double m) {
  const double zeta = c / (2 * std::sqrt(k * m));
  if (!(zeta < 1)) throw std::invalid_argument("--cn " + example::show(c) + " over-damps the contact (zeta = " + example::show(zeta) + " >= 1)");
  return std::exp(-M_PI * zeta / std::sqrt(1 - zeta * zeta));
}

template <class Shape>
result run(const options& o, const char* label) {
  using Sim = dem::Simulator<dem::policies<Shape, dem::force::linear_spring_dashpot, dem::integrate::velocity_verlet, dem::precision::double_>,
                             dem::backend::host>;
  const double side = o.side, radius = o.radius, density = o.density;
  dem::simulation_config cfg;
  cfg.domain = {{0, 0, 0}, {side, side, 2 * side + 0.01}};
  cfg.dt = o.dt;
  Sim sim(cfg);
  const double mass = density * 4.0 / 3 * M_PI * radius * radius * radius;
  // The paper's dashpot c_n on both kinds of contact: the pair's effective mass is m / 2, a wall's m.
  const auto grain = sim.add_material({"grain", density, 1e7, 0.3, restitution_of(o.kn, o.cn, mass / 2), o.mu, 0.0});
  const auto wall = sim.add_material({"wall", density, 1e7, 0.3, restitution_of(o.kn, o.cn, mass / 2), o.mu, 0.0});
  sim.materials().set_pair(grain, grain, dem::pair_override{.normal_stiffness = o.kn, .tangential_stiffness_ratio = o.kt_ratio});
  sim.materials().set_pair(grain, wall, dem::pair_override{.restitution = restitution_of(o.kn, o.cn, mass), .normal_stiffness = o.kn,
                                                           .tangential_stiffness_ratio = o.kt_ratio});
  sim.add_plane({0, 0, 0}, {1, 0, 0}, wall, "-x");
  sim.add_plane({side, 0, 0}, {-1, 0, 0}, wall, "+x");
  sim.add_plane({0, 0, 0}, {0, 1, 0}, wall, "-y");
  sim.add_plane({0, side, 0}, {0, -1, 0}, wall, "+y");
  sim.add_plane({0, 0, 0}, {0, 0, 1}, wall, "floor");
  // Spheres of 10 mm spread through twice the cube's height (a jittered lattice: 400 do not fit in
  // the cube without touching), then settled under gravity; the top wall comes in at 80 mm after.
  // Or a packing settled elsewhere (YADE's), whose top wall comes in on its highest sphere.
  if (!o.packing.empty()) {
    sim.add_particles(read_packing(o.packing, side), grain);
  } else {
    dem::sample::lattice_options lo;
    lo.radius = radius;
    lo.jitter = 0.4e-3;
    lo.seed = 7;
    lo.max_count = o.n;
    lo.spacing = 2 * radius + 0.8e-3;
    sim.add_particles(dem::sample::cubic_lattice({{0, 0, 0}, {side, side, 2 * side}}, lo), grain);
    if (sim.num_particles() < o.n) throw std::runtime_error("the cube holds " + std::to_string(sim.num_particles()) + " spheres on this lattice");
  }
  const auto t0 = std::chrono::steady_clock::now();
  example::progress progress(example::steps_for(o.settle, sim.dt()), 10.0);
  example::advance(sim, o.settle, progress);
  double solid = 0, start = side;
  if (!o.packing.empty()) start = 0;
  {
    const auto x = sim.positions();
    const auto rs = sim.radii();
    for (std::size_t k = 0; k < rs.size(); ++k) {
      solid += 4.0 / 3 * M_PI * rs[k] * rs[k] * rs[k];  // conserved by the deformation too
      if (!o.packing.empty()) start = std::max(start, x[k].z + rs[k]);
    }
  }
  const auto top = sim.add_plane({0, 0, start}, {0, 0, -1}, wall, "top");

  // Down at the given speed until the wall feels the force, then back up at the same speed.
  sim.set_motion(top, dem::boundary::servo{.direction = {0, 0, -1}, .speed = o.speed, .target_force = o.force,
                                           .after = dem::boundary::servo::mode::reverse, .return_speed = o.speed});
  std::ofstream csv;
  if (!o.csv.empty()) {
    csv.open(o.csv + "/compaction_" + label + ".csv");
    if (!csv) throw std::runtime_error("cannot write " + o.csv + "/compaction_" + label + ".csv");
    csv << "time_s,wall_z_m,strain,force_N,porosity,nominal_porosity\n";
  }
  result res;
  const auto every = static_cast<std::uint64_t>(std::max(1.0, std::round(1e-3 / sim.dt())));  // a record per ms
  const auto max_steps = static_cast<std::uint64_t>(2.2 * start / o.speed / sim.dt());
  bool reached = false;
  for (std::uint64_t k = 1; k <= max_steps; ++k) {
    sim.step();
    const auto& st = sim.servo_state(top);
    const double L = start - st.travel;
    const double strain = st.travel / start;
    const double f = sim.boundary_force(top).z;
    res.peak_force = std::max(res.peak_force, f);
    const bool record = csv.is_open() && k % every == 0, limit = st.reached && !reached;
    // The porosity with the solid volume that is there (rigid spheres: less their overlaps), and
    // the nominal one of the spheres' whole volumes (what YADE's example records).
    double porosity = 0;
    const double nominal = 1 - solid / (side * side * L);
    if (record || limit) porosity = 1 - (Sim::deformable ? solid : rigid_solid_volume(sim, side, L)) / (side * side * L);
    if (record) csv << sim.time() << ',' << L << ',' << strain << ',' << f << ',' << porosity << ',' << nominal << '\n';
    if (limit) {
      res.nominal_porosity_at_limit = nominal;
      reached = true;
      res.strain_at_limit = strain;
      res.porosity_at_limit = porosity;
      if constexpr (Sim::deformable) res.max_ratio = sim.deformation_report().max_ratio;
    }
    if (reached && (st.travel <= 0 || f <= 0)) break;  // back up and free of the bed
  }
  if (!reached) throw std::runtime_error(std::string(label) + ": the wall never felt " + example::show(o.force) + " N");
  res.steps = sim.step_count();
  res.n = sim.num_particles();
  res.steps_per_s = static_cast<double>(res.steps) / std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("%s: strain at %.0f N %.4f, porosity %.4f (nominal %.4f), peak force %.1f N, largest R'/R %.4f, %.0f steps/s (%llu steps)\n",
              label, o.force, res.strain_at_limit, res.porosity_at_limit, res.nominal_porosity_at_limit, res.peak_force, res.max_ratio,
              res.steps_per_s, static_cast<unsigned long long>(res.steps));
  return res;
}

int main_run(const options& o) {
  if (o.model != "both" && o.model != "rigid" && o.model != "deformable")
    throw std::invalid_argument("--model is '" + o.model + "', but it must be both, rigid or deformable");
  result rigid, deformable;
  const bool both = o.model == "both";
  if (both || o.model == "rigid") rigid = run<dem::shape::sphere>(o, "rigid");
  if (both || o.model == "deformable") deformable = run<dem::shape::deformable_sphere>(o, "deformable");
  std::printf("summary: n=%zu rigid_strain=%.4f rigid_porosity=%.4f deformable_strain=%.4f deformable_porosity=%.4f max_ratio=%.4f\n",
              static_cast<std::size_t>(std::max(rigid.n, deformable.n)),
              rigid.strain_at_limit, rigid.porosity_at_limit, deformable.strain_at_limit, deformable.porosity_at_limit, deformable.max_ratio);
  return 0;
}
}  // namespace

int main(int argc, char** argv) {
  example::flags f("deformable_compaction",
                   "[--n 400] [--kn 1300] [--cn 0.186] [--kt-ratio 1] [--mu 0.5] [--force 1000] [--speed 0.01] [--settle 0.6] [--side 0.08] "
                   "[--diameter 0.01] [--density 2000] [--packing FILE] [--model both|rigid|deformable] [--csv DIR]",
                   argc, argv);
  options o;
  o.n = f.count("--n", 400, 1, 5000);
  o.side = f.number("--side", 0.08, 1e-3, 10);
  o.radius = 0.5 * f.number("--diameter", 0.01, 1e-5, 1);
  o.density = f.number("--density", 2000, 1, 1e5);
  o.mu = f.number("--mu", 0.5, 0, 10);
  o.kt_ratio = f.number("--kt-ratio", 1.0, 1e-3, 10);
  o.packing = f.text("--packing", "");
  o.kn = f.number("--kn", 1300, 1e-3, 1e12);
  o.cn = f.number("--cn", 0.186, 0, 1e6);
  o.force = f.number("--force", 1000, 1e-6, 1e9);
  o.speed = f.number("--speed", 0.01, 1e-5, 10);
  o.settle = f.number("--settle", 0.6, 0, 100);
  o.model = f.text("--model", "both");
  o.csv = f.text("--csv", "");
  f.done();
  return example::guarded_main("deformable_compaction", [&] { return main_run(o); });
}
