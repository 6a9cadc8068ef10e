// Projectile penetration into a loose granular bed (Uehara et al. 2003, DEM-Engine's validation).
// A bed of glass grains is poured into a box and left to settle once (checkpointed). A ball of
// diameter D = 2.54 cm, a triangle mesh moving as a free body under the grains' load and gravity,
// starts just above the surface at the speed of a drop from height h, for every density and height
// asked; its final depth d is fitted against (rho_ball / rho_bed)^(1/2) D^(2/3) H^(1/3), H = h + d.
// Uehara's law: d = (0.14 / mu_r) (rho_ball / rho_bed)^(1/2) D^(2/3) H^(1/3), mu_r = tan(angle of
// repose). The angle of repose is measured with the same grains: a column held by a gate on a
// rough floor (a layer of grains held fixed, families) collapses when the gate's contacts are
// switched off (a boundary family), and the slope of the heap left behind is fitted.
//
//   projectile_penetration [--box 0.1] [--depth 0.07] [--densities 2.2,3.8,7.8,15] [--heights 0.05,0.1,0.2]
//                          [--repose-n 5000] [--settle 0.5] [--csv DIR]
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <dem/dem.hpp>
#include <dem/sample/random_fill.hpp>

#include "../common/example.hpp"

namespace {

using Sim = dem::Simulator<dem::policies<dem::shape::sphere, dem::force::hertz_mindlin>, dem::backend::host>;
constexpr double g = 9.81, ball_d = 0.0254, rho_grain = 2500;
const dem::material grains{"glass grains", rho_grain, 1e7, 0.3, 0.5, 0.3, 0.05};
const dem::sample::normal_radii grain_sizes{1.5e-3, 0.15e-3, 1.25e-3, 1.75e-3};  // diameters 2.5 .. 3.5 mm

struct options {
  double box = 0.1, depth = 0.07, settle = 0.5;
  std::vector<double> densities{2.2, 3.8, 7.8, 15}, heights{0.05, 0.1, 0.2};
  std::size_t repose_n = 5000;
  std::string csv;
};

// An icosphere: the icosahedron subdivided `levels` times, vertices on the sphere.
dem::boundary::triangle_mesh icosphere(double r, int levels) {
  const double t = (1 + std::sqrt(5.0)) / 2;
  std::vector<dem::vec3d> v = {{-1, t, 0}, {1, t, 0}, {-1, -t, 0}, {1, -t, 0}, {0, -1, t}, {0, 1, t},
                               {0, -1, -t}, {0, 1, -t}, {t, 0, -1}, {t, 0, 1}, {-t, 0, -1}, {-t, 0, 1}};
  std::vector<std::array<std::uint32_t, 3>> f = {{0, 11, 5}, {0, 5, 1}, {0, 1, 7}, {0, 7, 10}, {0, 10, 11}, {1, 5, 9}, {5, 11, 4},
                                                 {11, 10, 2}, {10, 7, 6}, {7, 1, 8}, {3, 9, 4}, {3, 4, 2}, {3, 2, 6}, {3, 6, 8},
                                                 {3, 8, 9}, {4, 9, 5}, {2, 4, 11}, {6, 2, 10}, {8, 6, 7}, {9, 8, 1}};
  for (int l = 0; l < levels; ++l) {
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint32_t> mid;
    auto middle = [&](std::uint32_t a, std::uint32_t b) {
      const auto key = std::minmax(a, b);
      const auto it = mid.find(key);
      if (it != mid.end()) return it->second;
      v.push_back((v[a] + v[b]) * 0.5);
      return mid[key] = static_cast<std::uint32_t>(v.size() - 1);
    };
    std::vector<std::array<std::uint32_t, 3>> next;
    for (const auto& tri : f) {
      const std::uint32_t a = middle(tri[0], tri[1]), b = middle(tri[1], tri[2]), c = middle(tri[2], tri[0]);
      next.push_back({tri[0], a, c});
      next.push_back({tri[1], b, a});
      next.push_back({tri[2], c, b});
      next.push_back({a, b, c});
    }
    f = next;
  }
  dem::boundary::triangle_mesh m;
  for (const dem::vec3d& p : v) m.vertices.push_back(p * (r / norm(p)));
  m.triangles = f;
  m.name = "ball";
  return m;
}

// The angle of repose of the grains (degrees) from a column collapse on a rough floor.
double angle_of_repose(const options& o, double dt, example::progress& progress, const std::string& csv) {
  const double r = grain_sizes.mean, width = 12 * 2 * r;  // a slab 12 grains wide (y)
  const double length = 0.16, gate = 32 * r;  // between two floor grains (the floor lattice's spacing is 2 r)
  // The column is filled at random (a solid fraction of 0.25) behind the gate, then settles.
  const double grain = M_PI / 6 * std::pow(2 * r, 3) * (1 + 3 * std::pow(grain_sizes.std_dev / r, 2));
  const double height = 2.05 * r + static_cast<double>(o.repose_n) * grain / (0.25 * gate * width);
  dem::simulation_config cfg;
  cfg.domain = {{0, 0, -0.01}, {length, width, height + 0.01}};
  cfg.gravity = {0, 0, -g};
  cfg.dt = dt;
  Sim s(cfg);
  s.set_log(nullptr);
  const auto mat = s.add_material(grains);
  s.add_box({{0, 0, 0}, {length, width, height + 0.01}}, mat);
  const auto door = s.add_plate({gate, 0.5 * width, 0.5 * (height + 0.01)}, {-1, 0, 0}, {0, 0, 1}, 0.5 * (height + 0.01), 0.5 * width, mat, "gate");
  s.set_boundary_family(door, 9);
  // The rough floor: one layer of grains on a square lattice over the whole floor, held fixed.
  dem::particle_set floor;
  for (double x = r; x < length - r; x += 2 * r)
    for (double y = r; y < width - r; y += 2 * r) {
      floor.positions.push_back({x, y, r});
      floor.radii.push_back(r);
    }
  s.add_particles(floor, mat, 1);
  s.set_family_motion(1, dem::family::fixed{});
  dem::sample::fill_options fo;
  fo.count = o.repose_n;
  fo.seed = 5;
  s.add_particles(dem::sample::random_fill(dem::aabb{{0, 0, 2.05 * r}, {gate, width, height}}, grain_sizes, fo), mat);
  example::advance(s, 0.4, progress);  // the column settles behind the gate
  s.disable_contacts(0, 9);             // the gate opens
  example::advance(s, 1.2, progress);   // the column collapses and comes to rest
  // The heap's surface: the highest grain top per 4 mm bin along x, away from the side walls.
  const auto snap = s.snapshot();
  const double bin = 0.004;
  std::vector<double> top(static_cast<std::size_t>(length / bin) + 1, 0.0);
  for (std::size_t i = 0; i < snap.size(); ++i) {
    if (!snap.active[i] || snap.position[i].z < 2.5 * r) continue;  // not the floor layer
    const auto b = static_cast<std::size_t>(snap.position[i].x / bin);
    top[b] = std::max(top[b], snap.position[i].z + snap.radius[i]);
  }
  // Fit the slope where the surface is between 25 % and 75 % of the heap's height.
  const double peak = *std::max_element(top.begin(), top.end());
  std::vector<double> x, z;
  for (std::size_t b = 0; b < top.size(); ++b)
    if (top[b] > 2 * r + 0.25 * (peak - 2 * r) && top[b] < 2 * r + 0.75 * (peak - 2 * r)) {
      x.push_back((b + 0.5) * bin);
      z.push_back(top[b]);
    }
  double sx = 0, sz = 0, sxx = 0, sxz = 0;
  const double n = static_cast<double>(x.size());
  for (std::size_t k = 0; k < x.size(); ++k) {
    sx += x[k];
    sz += z[k];
    sxx += x[k] * x[k];
    sxz += x[k] * z[k];
  }
  const double slope = (n * sxz - sx * sz) / (n * sxx - sx * sx);
  if (!csv.empty()) {
    std::ofstream f(csv + "/repose_profile.csv");
    f << "x_m,top_m\n";
    for (std::size_t b = 0; b < top.size(); ++b) f << (b + 0.5) * bin << ',' << top[b] << '\n';
  }
  if (x.size() < 3 || !(slope < 0)) throw std::runtime_error("the heap left no slope to fit (" + std::to_string(x.size()) + " bins)");
  return std::atan(-slope) * 180 / M_PI;
}

int run(const options& o) {
  const double W = o.box, top = o.depth + ball_d + 0.02;
  dem::simulation_config cfg;
  cfg.domain = {{0, 0, 0}, {W, W, 2.2 * o.depth + 0.01 > top ? 2.2 * o.depth + 0.01 : top}};
  cfg.gravity = {0, 0, -g};
  cfg.dt = 2.5e-5;
  cfg.boundary_margin = 2e-3;  // the ball moves up to 2 m/s: fewer rebuilds for its wall list
  Sim bed(cfg);
  bed.set_log(nullptr);
  const auto mat = bed.add_material(grains);
  const dem::aabb box{{0, 0, 0}, cfg.domain.hi};
  bed.add_plane(box.lo, {0, 0, 1}, mat, "floor");
  bed.add_plane(box.lo, {1, 0, 0}, mat, "-x");
  bed.add_plane(box.lo, {0, 1, 0}, mat, "-y");
  bed.add_plane(box.hi, {-1, 0, 0}, mat, "+x");
  bed.add_plane(box.hi, {0, -1, 0}, mat, "+y");
  // Poured: a random fill twice as high as the bed, left to fall and settle.
  const double grain = M_PI / 6 * std::pow(2 * grain_sizes.mean, 3) * (1 + 3 * std::pow(grain_sizes.std_dev / grain_sizes.mean, 2));
  dem::sample::fill_options fo;
  fo.count = static_cast<std::size_t>(0.58 * W * W * o.depth / grain);
  fo.seed = 3;
  bed.add_particles(dem::sample::random_fill(dem::aabb{{0, 0, 0}, {W, W, 2.1 * o.depth}}, grain_sizes, fo), mat);
  bed.set_dt(std::min(2.5e-5, 0.25 * bed.stable_time_step()));
  const double runs = static_cast<double>(o.densities.size() * o.heights.size());
  example::progress progress(example::steps_for(o.settle + 1.6 + 0.25 * runs, bed.dt()), 10.0);
  std::printf("projectile_penetration: %u grains (d = 2.5 .. 3.5 mm) in a %.0f mm box, dt = %.3g s\n", bed.num_particles(), W * 1e3, bed.dt());
  example::advance(bed, o.settle, progress);
  // The bed: bulk density in its core; the surface, as one would measure it, the mean over 5 mm
  // columns of the central part of the highest grain top in each.
  const auto core = dem::inspect::particles(bed, dem::inspect::box{{0.2 * W, 0.2 * W, 0.01}, {0.8 * W, 0.8 * W, 0.7 * o.depth}});
  const double rho_bed = core.packing_fraction * rho_grain;
  const auto all = dem::inspect::particles(bed);
  double surface = 0;
  {
    const double column = 0.005, lo = 0.2 * W;
    const auto cols = static_cast<std::size_t>(0.6 * W / column);
    std::vector<double> top(cols * cols, 0.0);
    const auto snap = bed.snapshot();
    for (std::size_t i = 0; i < snap.size(); ++i) {
      const double cx = (snap.position[i].x - lo) / column, cy = (snap.position[i].y - lo) / column;
      if (cx < 0 || cy < 0 || cx >= double(cols) || cy >= double(cols)) continue;
      double& t = top[static_cast<std::size_t>(cx) * cols + static_cast<std::size_t>(cy)];
      t = std::max(t, snap.position[i].z + snap.radius[i]);
    }
    for (double t : top) surface += t / static_cast<double>(top.size());
  }
  std::printf("bed: bulk density %.1f kg/m^3 (solid fraction %.4f), surface at %.2f mm (from the mass and the core's density: %.2f mm), kinetic "
              "energy %.3g J\n",
              rho_bed, core.packing_fraction, surface * 1e3, 1e3 * all.mass / (rho_bed * W * W), all.kinetic_energy());
  const std::string saved = (o.csv.empty() ? std::string(".") : o.csv) + "/penetration_bed.ckpt";
  bed.save_checkpoint(saved);

  const double theta = angle_of_repose(o, bed.dt(), progress, o.csv);
  const double mu_r = std::tan(theta * M_PI / 180);
  std::printf("angle of repose %.2f deg: mu_r = %.4f\n", theta, mu_r);

  struct drop {
    double rho, h, depth, x;
  };
  std::vector<drop> drops;
  const auto ball = icosphere(0.5 * ball_d, 3);
  for (double rho_ball : o.densities)
    for (double h : o.heights) {
      Sim s = Sim::from_checkpoint(saved);
      s.set_log(nullptr);
      const double R = 0.5 * ball_d, gap = 3e-3;  // a grain above the mean surface: no grain sticks up into the ball
      dem::boundary::triangle_mesh m = ball;
      for (dem::vec3d& v : m.vertices) v = v + dem::vec3d{0.5 * W, 0.5 * W, surface + R + gap};
      dem::material steel = grains;
      steel.name = "ball";
      steel.youngs_modulus = 1e8;
      const auto bm = s.add_material(steel);
      const auto b = s.add_mesh(m, bm, "ball");
      dem::boundary::free_body fb;
      fb.mass = rho_ball * 1000 * M_PI / 6 * ball_d * ball_d * ball_d;
      fb.velocity = {0, 0, -std::sqrt(2 * g * (h - gap))};  // as if dropped from h above the surface
      s.set_motion(b, fb);
      double t_still = 0;
      const double t0 = s.time();
      while (s.time() - t0 < 0.4) {
        example::advance(s, 0.005, progress);
        if (std::abs(s.free_body_state(b).velocity.z) < 5e-3 && s.time() - t0 > 0.02) {
          if ((t_still += 0.005) >= 0.02) break;  // at rest for 20 ms
        } else {
          t_still = 0;
        }
      }
      const double bottom = surface + gap + s.free_body_state(b).displacement.z;  // the ball's lowest point
      const double depth = surface - bottom;
      const double H = h + depth;
      const double x = std::sqrt(rho_ball * 1000 / rho_bed) * std::pow(ball_d, 2.0 / 3) * std::cbrt(H);
      drops.push_back({rho_ball, h, depth, x});
      std::printf("ball %5.2f g/cm^3 from %4.0f mm: depth %6.2f mm, X = %.4f m\n", rho_ball, h * 1e3, depth * 1e3, x);
    }
  // d = a X through the origin (Uehara's form), and the least-squares line's R^2.
  double sxx = 0, sxd = 0, sx = 0, sd = 0;
  const double n = static_cast<double>(drops.size());
  for (const drop& q : drops) {
    sxx += q.x * q.x;
    sxd += q.x * q.depth;
    sx += q.x;
    sd += q.depth;
  }
  const double slope0 = sxd / sxx;
  const double b1 = (n * sxd - sx * sd) / (n * sxx - sx * sx), b0 = (sd - b1 * sx) / n;
  double ss_res = 0, ss_tot = 0;
  for (const drop& q : drops) {
    ss_res += std::pow(q.depth - b0 - b1 * q.x, 2);
    ss_tot += std::pow(q.depth - sd / n, 2);
  }
  const double r2 = 1 - ss_res / ss_tot;
  const double expected = 0.14 / mu_r;
  std::printf("Uehara: depth = %.4f X (through the origin; expected 0.14 / mu_r = %.4f, ratio %.3f); line %.4f X %+.5f m with R^2 = %.4f\n", slope0,
              expected, slope0 / expected, b1, b0, r2);
  if (!o.csv.empty()) {
    std::ofstream f(o.csv + "/penetration.csv");
    f << "rho_ball_g_cm3,h_m,depth_m,X_m,rho_bed,mu_r,slope,expected_slope,r2\n";
    for (const drop& q : drops)
      f << q.rho << ',' << q.h << ',' << q.depth << ',' << q.x << ',' << rho_bed << ',' << mu_r << ',' << slope0 << ',' << expected << ',' << r2 << '\n';
  }
  std::printf("summary: n=%u drops=%zu rho_bed=%.1f repose_deg=%.2f slope=%.4f expected=%.4f ratio=%.3f r2=%.4f\n", bed.num_particles(), drops.size(),
              rho_bed, theta, slope0, expected, slope0 / expected, r2);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  example::flags f("projectile_penetration",
                   "[--box 0.1] [--depth 0.07] [--densities 2.2,3.8,7.8,15] [--heights 0.05,0.1,0.2] [--repose-n 5000] [--settle 0.5] [--csv DIR]",
                   argc, argv);
  options o;
  o.box = f.number("--box", 0.1, 0.03, 1);
  o.depth = f.number("--depth", 0.07, 0.01, 1);
  o.settle = f.number("--settle", 0.5, 0.01, 10);
  o.densities = f.numbers("--densities", "2.2,3.8,7.8,15", 0.1, 30);
  o.heights = f.numbers("--heights", "0.05,0.1,0.2", 0.001, 2);
  o.repose_n = f.count("--repose-n", 5000, 100, 1000000);
  o.csv = f.text("--csv", "");
  f.done();
  return example::guarded_main("projectile_penetration", [&] { return run(o); });
}
