// Convex polyhedra poured into a box (Blaze-DEM's gravity packing): cubes, or a mix of cubes,
// tetrahedra and octahedra in equal numbers, randomly oriented on a loose lattice, settle under
// gravity. Prints the settling, the packing fraction of the bed and writes centres and orientations.
//
//   polyhedra_packing [--n 200] [--time 0.4] [--mix] [--out polyhedra.csv]
#include <cmath>
#include <cstdio>
#include <fstream>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <dem/dem.hpp>
#include <dem/shape/polyhedron.hpp>

#include "../common/example.hpp"

namespace poly = dem::shape::poly;

int run(std::size_t n, double time, bool mix, const std::string& out);

int main(int argc, char** argv) {
  example::flags f("polyhedra_packing", "[--n 200] [--time 0.4] [--mix] [--out polyhedra.csv]", argc, argv);
  const std::size_t n = f.count("--n", 200, 1, 100000);
  const double time = f.number("--time", 0.4, 1e-5, 1e4);
  const bool mix = f.option("--mix");
  const std::string out = f.text("--out", "polyhedra.csv");
  f.done();
  return example::guarded_main("polyhedra_packing", [&] { return run(n, time, mix, out); });
}

int run(std::size_t n, double time, bool mix, const std::string& out) {

  // A 4 mm cube, a tetrahedron and an octahedron that fit the same lattice (bounding radius < 4.25 mm).
  const double a = 0.002;
  std::vector<dem::vec3d> cube, tetra, octa;
  for (int i = 0; i < 8; ++i) cube.push_back({(i & 1 ? a : -a), (i & 2 ? a : -a), (i & 4 ? a : -a)});
  const double t = 1.2 * a;
  tetra = {{t, t, t}, {t, -t, -t}, {-t, t, -t}, {-t, -t, t}};
  const double o = 1.6 * a;
  octa = {{o, 0, 0}, {-o, 0, 0}, {0, o, 0}, {0, -o, 0}, {0, 0, o}, {0, 0, -o}};

  using Sim = dem::Simulator<dem::policies<dem::shape::polyhedron<8>, dem::force::hertz_mindlin>, dem::backend::host>;
  const double side = 0.04, height = 0.03 + 0.012 * std::ceil(double(n) / 16.0) * 0.7;
  dem::simulation_config cfg{.domain = {{0, 0, 0}, {side, side, height}}, .dt = 1e-5};
  Sim sim(cfg);
  const auto m = sim.add_material({"glass", 2500, 1e7, 0.3, 0.3, 0.5, 0.0});
  sim.add_box(cfg.domain, m);
  std::vector<std::uint32_t> shapes = {sim.add_shape(poly::make_polyhedron_template(cube, "cube"))};
  if (mix) {
    shapes.push_back(sim.add_shape(poly::make_polyhedron_template(tetra, "tetrahedron")));
    shapes.push_back(sim.add_shape(poly::make_polyhedron_template(octa, "octahedron")));
  }
  // A loose lattice (spacing > bounding diameter), random orientations.
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(-1, 1);
  const double spacing = 0.0085;
  const int per_row = static_cast<int>(side / spacing);
  std::vector<dem::particle_set> sets(shapes.size());
  std::vector<std::vector<dem::quatd>> orient(shapes.size());
  for (std::size_t k = 0; k < n; ++k) {
    const int ix = static_cast<int>(k % per_row), iy = static_cast<int>((k / per_row) % per_row), iz = static_cast<int>(k / (per_row * per_row));
    sets[k % shapes.size()].positions.push_back({(ix + 0.5) * spacing, (iy + 0.5) * spacing, 0.006 + iz * spacing});
    dem::quatd q{u(rng), u(rng), u(rng), u(rng)};
    orient[k % shapes.size()].push_back(dem::normalized(q));
  }
  std::vector<int> kind;  // shape of each body id (ids are given in the order of the add_bodies calls)
  for (std::size_t s = 0; s < shapes.size(); ++s) {
    sim.add_bodies(shapes[s], sets[s], orient[s], m);
    kind.insert(kind.end(), sets[s].positions.size(), static_cast<int>(s));
  }

  const int frames = 6;
  example::progress progress(frames * example::steps_for(time / frames, cfg.dt));
  for (int f = 1; f <= frames; ++f) {
    example::advance(sim, time / frames, progress);
    std::printf("t = %.2f s  kinetic energy %.3e J  touching pairs %llu\n", sim.time(), sim.kinetic_energy(),
                static_cast<unsigned long long>(sim.num_touching_pairs()));
  }
  // Packing fraction: solid volume of bodies whose centres lie below 80 % of the bed height, over
  // the box volume up to that height (a rough, wall-affected estimate).
  const auto pos = sim.positions();
  double top = 0;
  for (const auto& p : pos) top = std::max(top, p.z);
  const double cut = 0.8 * top;
  const double vols[3] = {8 * a * a * a, 8.0 / 3.0 * t * t * t, 4.0 / 3.0 * o * o * o};
  double solid = 0;
  for (std::size_t k = 0; k < pos.size(); ++k)
    if (pos[k].z < cut) solid += vols[kind[k]];
  std::ofstream csv(out);
  if (!csv) throw std::runtime_error("cannot write '" + out + "'");
  csv << "id,x,y,z,qw,qx,qy,qz\n";
  const auto q = sim.orientations();
  for (std::size_t k = 0; k < pos.size(); ++k)
    csv << k << ',' << pos[k].x << ',' << pos[k].y << ',' << pos[k].z << ',' << q[k].w << ',' << q[k].x << ',' << q[k].y << ',' << q[k].z << '\n';
  std::printf("summary: n=%u kinetic_energy=%.4e packing_fraction=%.3f bed_height=%.4f\n", sim.num_particles(), sim.kinetic_energy(),
              solid / (side * side * cut), top);
  return 0;
}
