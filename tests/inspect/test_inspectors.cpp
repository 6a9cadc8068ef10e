// Inspectors (inspect/inspect.hpp) on every backend, against references computed on the host from
// the particles' state and the contact network: counts exact, sums to 1e-12 (relative).
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "support/scenarios.hpp"

using namespace dem_test;
using dem::vec3d;
namespace inspect = dem::inspect;

namespace {

using sim = sim_t<dem::force::hertz_mindlin>;
const double pi = 3.14159265358979323846;

bool close(double a, double b, double rel = 1e-12) { return std::fabs(a - b) <= rel * std::max(std::fabs(a), std::fabs(b)) + 1e-300; }

// Spheres of two materials, scattered without contact, with velocities and spins; one leaves the
// domain (lost) before the inspection.
struct scattered {
  sim s;
  dem::particle_set set;
  std::vector<dem::material_id> mats;
  std::vector<vec3d> spin;
  static dem::simulation_config config() {
    dem::simulation_config c = zero_g_config(0.05);
    c.dt = 1e-6;
    return c;
  }
  scattered() : s(config()) {
    const auto m0 = s.add_material({"a", 2500, 1e7, 0.3, 0.5, 0.5, 0.0});
    const auto m1 = s.add_material({"b", 7800, 1e7, 0.3, 0.5, 0.5, 0.0});
    for (int k = 0; k < 400; ++k) {
      const double t = k * 0.618034;
      set.positions.push_back({0.04 * (std::fmod(t, 1.0) - 0.5), 0.04 * (std::fmod(3.7 * t, 1.0) - 0.5), 0.04 * (std::fmod(7.3 * t, 1.0) - 0.5)});
      set.radii.push_back(1e-4 * (1 + 0.5 * std::fmod(11.1 * t, 1.0)));
      set.velocities.push_back({0.1 * std::sin(t), 0.2 * std::cos(2 * t), -0.05 * std::sin(3 * t)});
      spin.push_back({10 * std::cos(t), -5 * std::sin(t), 2.0});
      mats.push_back(k % 3 == 0 ? m1 : m0);
    }
    set.positions[17] = {0.049998, 0, 0};  // leaves through +x in the first step
    set.velocities[17] = {5, 0, 0};
    s.set_log(nullptr);  // the lost particle is expected
    s.add_particles(set, mats);
    s.set_angular_velocities(spin);
    s.step(1);
  }
};

struct heavy_only {
  DEM_HD bool operator()(const inspect::particle& p) const { return p.material == 1; }
};
struct upper_half {  // a user region
  DEM_HD bool contains(const vec3d& x) const { return x.z > 0; }
};

// The reference: the same quantities from the host copy of the state.
template <class Region, class Filter>
inspect::particle_summary reference(sim& s, const std::vector<dem::material_id>& mats, const Region& region, const Filter& filter) {
  const dem::io::snapshot snap = s.snapshot();
  const auto w = s.angular_velocities();
  const double rho[2] = {2500, 7800};
  inspect::particle_summary r;
  r.max_speed = 0;
  double lo[3] = {1e300, 1e300, 1e300}, hi[3] = {-1e300, -1e300, -1e300};
  vec3d mx{0, 0, 0};
  for (std::size_t i = 0; i < snap.size(); ++i) {
    if (!snap.active[i]) continue;
    const std::uint32_t id = snap.id[i];  // the lost particle is compacted away: entries are not ids
    const double rad = snap.radius[i], v = 4.0 / 3.0 * pi * rad * rad * rad, m = rho[mats[id]] * v;
    const vec3d x = snap.position[i], u = snap.velocity[i];
    const inspect::particle p{x, u, w[id], rad, m, id, mats[id]};
    if (!filter(p) || !region.contains(x)) continue;
    ++r.count;
    r.mass += m;
    r.volume += v;
    mx += x * m;
    r.momentum += u * m;
    r.kinetic_translational += 0.5 * m * norm2(u);
    r.kinetic_rotational += 0.5 * 0.4 * m * rad * rad * norm2(w[id]);
    r.max_speed = std::max(r.max_speed, norm(u));
    for (int k = 0; k < 3; ++k) {
      lo[k] = std::min(lo[k], x[k]);
      hi[k] = std::max(hi[k], x[k]);
    }
  }
  r.centre_of_mass = mx / r.mass;
  r.lowest = {lo[0], lo[1], lo[2]};
  r.highest = {hi[0], hi[1], hi[2]};
  return r;
}

void check_against(const inspect::particle_summary& got, const inspect::particle_summary& want) {
  CHECK(got.count == want.count);
  CHECK(close(got.mass, want.mass, 1e-6));  // masses: the simulator stores 1/m in the precision's real
  CHECK(close(got.volume, want.volume));
  CHECK(close(got.kinetic_translational, want.kinetic_translational, 1e-6));
  CHECK(close(got.kinetic_rotational, want.kinetic_rotational, 1e-6));
  CHECK(close(got.max_speed, want.max_speed));
  for (int k = 0; k < 3; ++k) {
    CHECK(close(got.centre_of_mass[k], want.centre_of_mass[k], 1e-9));
    CHECK(close(got.momentum[k], want.momentum[k], 1e-6));
    CHECK(got.lowest[k] == want.lowest[k]);
    CHECK(got.highest[k] == want.highest[k]);
  }
}

}  // namespace

TEST_CASE("particle inspectors against the host state: all, a box, a ball, a cylinder, a user region, a filter") {
  scattered f;
  REQUIRE(f.s.num_lost() == 1);
  const inspect::any_particle all;
  {
    const auto got = inspect::particles(f.s);
    check_against(got, reference(f.s, f.mats, inspect::everywhere{}, all));
    CHECK(got.count == 399);
    CHECK(std::isnan(got.packing_fraction));  // no region volume
  }
  const inspect::box b{{-0.01, -0.015, -0.02}, {0.012, 0.01, 0.005}};
  const inspect::ball ball{{0.003, -0.002, 0.001}, 0.012};
  const inspect::cylinder cyl{{0.0, 0.001, -0.01}, {0, 0, 2}, 0.009, 0.025};  // axis normalised by the inspector
  const inspect::cylinder cyl_unit{{0.0, 0.001, -0.01}, {0, 0, 1}, 0.009, 0.025};
  check_against(inspect::particles(f.s, b), reference(f.s, f.mats, b, all));
  check_against(inspect::particles(f.s, ball), reference(f.s, f.mats, ball, all));
  check_against(inspect::particles(f.s, cyl), reference(f.s, f.mats, cyl_unit, all));
  check_against(inspect::particles(f.s, upper_half{}), reference(f.s, f.mats, upper_half{}, all));
  check_against(inspect::particles(f.s, inspect::where(b, heavy_only{})), reference(f.s, f.mats, b, heavy_only{}));
  const auto heavy = inspect::particles(f.s, inspect::where(inspect::everywhere{}, heavy_only{}));
  CHECK(heavy.count == 134);  // k % 3 == 0 for k < 400, none of them the lost particle 17
  // Packing fractions: every sphere's exact share, summed on the host.
  const dem::io::snapshot snap = f.s.snapshot();
  double in_box = 0, in_ball = 0, in_cyl = 0;
  for (std::size_t i = 0; i < snap.size(); ++i) {
    if (!snap.active[i]) continue;
    in_box += inspect::sphere_box_volume(snap.position[i], snap.radius[i], b.lo, b.hi);
    in_ball += inspect::sphere_ball_volume(snap.position[i], snap.radius[i], ball.centre, ball.radius);
    in_cyl += inspect::sphere_cylinder_volume(snap.position[i], snap.radius[i], cyl_unit.base, cyl_unit.axis, cyl_unit.length, cyl_unit.radius);
  }
  CHECK(close(inspect::particles(f.s, b).packing_fraction, in_box / b.volume()));
  CHECK(close(inspect::particles(f.s, ball).packing_fraction, in_ball / ball.volume()));
  CHECK(close(inspect::particles(f.s, cyl).packing_fraction, in_cyl / cyl_unit.volume()));
  // An empty selection: zero count, NaN centre.
  const auto none = inspect::particles(f.s, inspect::box{{0.049, 0.049, 0.049}, {0.05, 0.05, 0.05}});
  CHECK(none.count == 0);
  CHECK(std::isnan(none.centre_of_mass.x));
}

// Bit for bit (NaN included): the summaries hold integers and doubles only, without padding.
template <class Summary>
bool same_bits(const Summary& a, const Summary& b) {
  return std::memcmp(&a, &b, sizeof(Summary)) == 0;
}

TEST_CASE("any_region and any_family give the bits of the regions and filters they stand for") {
  scattered f;
  const inspect::box b{{-0.01, -0.015, -0.02}, {0.012, 0.01, 0.005}};
  const inspect::ball ball{{0.003, -0.002, 0.001}, 0.012};
  const inspect::cylinder cyl{{0.0, 0.001, -0.01}, {0, 0, 2}, 0.009, 0.025};
  const inspect::half_space half{{0, 0, 0.001}, {0, 1, 1}};
  const inspect::any_family every;
  CHECK(same_bits(inspect::particles(f.s, inspect::where(inspect::any_region{}, every)), inspect::particles(f.s)));
  CHECK(same_bits(inspect::particles(f.s, inspect::any_region(b)), inspect::particles(f.s, b)));
  CHECK(same_bits(inspect::particles(f.s, inspect::any_region(ball)), inspect::particles(f.s, ball)));
  CHECK(same_bits(inspect::particles(f.s, inspect::any_region(cyl)), inspect::particles(f.s, cyl)));
  CHECK(same_bits(inspect::particles(f.s, inspect::any_region(half)), inspect::particles(f.s, half)));
  CHECK(!std::isnan(inspect::particles(f.s, inspect::any_region(cyl)).packing_fraction));
  CHECK(std::isnan(inspect::particles(f.s, inspect::any_region(half)).packing_fraction));
  CHECK(std::isnan(inspect::particles(f.s, inspect::any_region{}).packing_fraction));
  // Families: half the particles moved to family 1.
  std::vector<dem::family::family_id> fam(400);
  for (std::size_t k = 0; k < fam.size(); ++k) fam[k] = k % 2;
  f.s.set_families(fam);
  const auto in_1 = inspect::particles(f.s, inspect::where(b, inspect::in_family{1}));
  CHECK(in_1.count > 0);
  CHECK(in_1.count < inspect::particles(f.s, b).count);
  CHECK(same_bits(inspect::particles(f.s, inspect::where(inspect::any_region(b), inspect::any_family{1})), in_1));
  // Contacts and the network, on a pressed lattice.
  dem::simulation_config c = zero_g_config(0.02);
  c.allow_initial_overlap = true;
  c.dt = 1e-7;
  sim s(c);
  const auto m = s.add_material({"a", 2500, 1e8, 0.3, 0.5, 0.5, 0.0});
  s.add_particles(pressed_cubic_lattice(5, 1e-3, 2e-6), m);
  s.step(1);
  const inspect::ball core{{4e-3, 4e-3, 4e-3}, 3e-3};
  CHECK(same_bits(inspect::contacts(s, inspect::any_region(core)), inspect::contacts(s, core)));
  CHECK(same_bits(inspect::contacts(s, inspect::any_region{}), inspect::contacts(s)));
  CHECK(inspect::network(s, inspect::any_region(core)).size() == inspect::network(s, core).size());
  CHECK(inspect::network(s, inspect::any_region(core)).normal_force == inspect::network(s, core).normal_force);
  CHECK(inspect::network(s, inspect::where(inspect::any_region{}, inspect::any_family{3})).size() == 0);
  // The held region's checks.
  CHECK_THROWS_WITH(inspect::particles(f.s, inspect::any_region(inspect::ball{{0, 0, 0}, -1.0})), doctest::Contains("ball region radius is -1"));
}

TEST_CASE("a dense packing's packing fraction: a lattice of touching spheres fills pi/6 of a cell-aligned box") {
  dem::simulation_config c = zero_g_config(0.01);
  sim s(c);
  const auto m = s.add_material({"a", 2500, 1e7, 0.3, 0.5, 0.5, 0.0});
  dem::particle_set p;
  const double r = 1e-3, a = 2 * r * 1.0000001;
  for (int i = -4; i < 4; ++i)
    for (int j = -4; j < 4; ++j)
      for (int k = -4; k < 4; ++k) {
        p.positions.push_back({(i + 0.5) * a, (j + 0.5) * a, (k + 0.5) * a});
        p.radii.push_back(r);
      }
  s.add_particles(p, m);
  // A box through the centres of the outer layer's spheres: each cell of side a holds one sphere's volume.
  const double h = 3.5 * a;
  const auto in = inspect::particles(s, inspect::box{{-h, -h, -h}, {h, h, h}});
  CHECK(in.packing_fraction == doctest::Approx(pi / 6 / 1.0000003).epsilon(1e-9));
  CHECK(in.count == 7 * 7 * 7);  // the outer layers' centres lie on the faces: lo counts, hi does not
}

namespace {
// n^3 spheres of radius r on a cubic lattice, each pressed 2 micrometres into its neighbours along
// the lattice axes, without gravity.
sim pressed_lattice(int n, double r) {
  dem::simulation_config c = zero_g_config(0.02);
  c.allow_initial_overlap = true;
  c.dt = 1e-7;
  sim s(c);
  const auto m = s.add_material({"a", 2500, 1e8, 0.3, 0.5, 0.5, 0.0});
  s.add_particles(pressed_cubic_lattice(n, r, 2e-6), m);
  return s;
}
}  // namespace

TEST_CASE("contact inspectors on a compressed cubic lattice: coordination, histogram, fabric, Love–Weber stress") {
  const int n = 5;
  const double r = 1e-3, a = 2 * r - 2e-6;  // 2 micrometres of overlap along the lattice axes
  sim s = pressed_lattice(n, r);
  s.step(1);
  const inspect::box all_box{{-2 * r, -2 * r, -2 * r}, {n * a + 2 * r, n * a + 2 * r, n * a + 2 * r}};
  const auto cs = inspect::contacts(s, all_box);
  CHECK(cs.particles == std::uint64_t(n * n * n));
  // Corners 3 contacts, edges 4, faces 5, interior 6.
  CHECK(cs.histogram[3] == 8);
  CHECK(cs.histogram[4] == 12 * (n - 2));
  CHECK(cs.histogram[5] == 6 * (n - 2) * (n - 2));
  CHECK(cs.histogram[6] == std::uint64_t((n - 2) * (n - 2) * (n - 2)));
  CHECK(cs.contact_ends == 2 * 3 * std::uint64_t(n * n * (n - 1)));
  CHECK(cs.coordination == doctest::Approx(2.0 * 3 * n * n * (n - 1) / (n * n * n)));
  for (int k = 0; k < 9; ++k) CHECK(cs.fabric[k] == doctest::Approx(k % 4 == 0 ? 1.0 / 3.0 : 0.0).epsilon(1e-9));
  // The stress from the contact network on the host: sum of (x_B - x_A) (x) f_A over the contacts.
  const auto net = inspect::network(s);
  REQUIRE(net.size() == std::size_t(3 * n * n * (n - 1)));
  double moment[9] = {};
  for (std::size_t k = 0; k < net.size(); ++k) {
    const vec3d l = net.centre_b[k] - net.centre_a[k], f = net.normal_force[k] + net.tangential_force[k];
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) moment[3 * i + j] += l[i] * f[j];
    CHECK(norm(net.tangential_force[k]) < 1e-9 * norm(net.normal_force[k]));
    CHECK(net.id_a[k] < net.id_b[k]);
  }
  for (int k = 0; k < 9; ++k) {
    CHECK(cs.force_moment[k] == doctest::Approx(moment[k]).epsilon(1e-9).scale(1e-12));
    CHECK(cs.stress[k] == doctest::Approx(moment[k] / all_box.volume()).epsilon(1e-9).scale(1e-6));
  }
  CHECK(cs.mean_pressure() > 0);  // compressed: compression positive in mean_pressure
  // Hertz: F = 4/3 E* sqrt(R*) delta^1.5 with E* = E / (2 (1 - nu^2)), R* = r / 2, delta = 2 um.
  const double E_star = 1e8 / (2 * (1 - 0.09)), F = 4.0 / 3.0 * E_star * std::sqrt(r / 2) * std::pow(2e-6, 1.5);
  CHECK(norm(net.normal_force[0]) == doctest::Approx(F).epsilon(1e-3).scale(0));
  // The contact point lies halfway between equal spheres.
  CHECK(norm(net.point[0] - 0.5 * (net.centre_a[0] + net.centre_b[0])) < 1e-12);
  // A region around the centre particle: 6 contacts, all counted; the ball holds one particle.
  const vec3d mid{2 * a, 2 * a, 2 * a};
  const auto one = inspect::contacts(s, inspect::ball{mid, 0.5 * r});
  CHECK(one.particles == 1);
  CHECK(one.contact_ends == 6);
  const auto local = inspect::network(s, inspect::ball{mid, 1.01 * r});
  CHECK(local.size() == 6);
  // Boxes that cut the lattice: every sum against the network on the host, each contact's ends
  // weighted by whether their centres are in the box (contacts across the cut count half in the
  // moment). The lower three layers (3/5 of the particles) take the pass over the listed pairs, the
  // bottom layer (1/5) the walk over the selected particles' incident entries.
  std::vector<int> touching(n * n * n, 0);
  for (std::size_t k = 0; k < net.size(); ++k) ++touching[net.id_a[k]], ++touching[net.id_b[k]];
  const auto centres = s.positions();
  for (const double top : {2.5 * a, 0.5 * a}) {
    CAPTURE(top);
    const inspect::box cut{{-2 * r, -2 * r, -2 * r}, {n * a + 2 * r, n * a + 2 * r, top}};
    const auto part = inspect::contacts(s, cut);
    double ref_moment[9] = {}, ref_fabric[9] = {}, ref_ends = 0;
    for (std::size_t k = 0; k < net.size(); ++k) {
      const double w = double(cut.contains(net.centre_a[k])) + double(cut.contains(net.centre_b[k]));
      const vec3d l = net.centre_b[k] - net.centre_a[k], f = net.normal_force[k] + net.tangential_force[k];
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
          ref_moment[3 * i + j] += 0.5 * w * l[i] * f[j];
          ref_fabric[3 * i + j] += w * l[i] * l[j] / norm2(l);
        }
      ref_ends += w;
    }
    std::array<std::uint64_t, inspect::contact_summary::bins> ref_histogram{};
    std::uint64_t ref_particles = 0;
    for (std::size_t i = 0; i < centres.size(); ++i)
      if (cut.contains(centres[i])) ++ref_particles, ++ref_histogram[std::min(touching[i], inspect::contact_summary::bins - 1)];
    CHECK(part.particles == ref_particles);
    CHECK(part.particles == std::uint64_t((top > a ? 3 : 1) * n * n));
    CHECK(part.contact_ends == std::uint64_t(ref_ends));
    CHECK(part.histogram == ref_histogram);
    for (int k = 0; k < 9; ++k) {
      CHECK(part.force_moment[k] == doctest::Approx(ref_moment[k]).epsilon(1e-9).scale(1e-12));
      CHECK(part.fabric[k] == doctest::Approx(ref_fabric[k] / ref_ends).epsilon(1e-9).scale(1e-12));
    }
  }
  // CSV and VTU output of the network.
  const std::string dir = "inspect_output";
  std::filesystem::create_directories(dir);
  inspect::write_contact_csv(dir + "/net.csv", net);
  inspect::write_contact_vtu(dir + "/net.vtu", net);
  const std::string csv = dem::io::read_file(dir + "/net.csv");
  CHECK(std::count(csv.begin(), csv.end(), '\n') == std::ptrdiff_t(net.size() + 1));
  CHECK(csv.rfind("id_a,id_b,x,y,z,", 0) == 0);
  const std::string vtu = dem::io::read_file(dir + "/net.vtu");
  CHECK(vtu.find("NumberOfCells=\"" + std::to_string(net.size()) + "\"") != std::string::npos);
}

TEST_CASE("contact inspectors: from the first call on, the step counts each particle's touching pairs") {
  // The first call counts them from the listed forces (Simulator::count_touching); the steps after
  // it count them as they sum the forces. A corner sphere of a pressed lattice flies off: a count
  // left over from the first call would still give it 3 contacts.
  const int n = 3;
  const double r = 1e-3, a = 2 * r - 2e-6;
  sim s = pressed_lattice(n, r);
  s.step(1);
  const inspect::box all_box{{-2 * r, -2 * r, -2 * r}, {n * a + 2 * r, n * a + 2 * r, n * a + 2 * r}};
  const auto first = inspect::contacts(s, all_box);
  CHECK(first.histogram[3] == 8);
  CHECK(first.histogram[6] == 1);
  const auto centres = s.positions();
  const vec3d centre{a, a, a};
  std::uint32_t corner = 0;  // the particle farthest from the centre
  for (std::uint32_t i = 1; i < centres.size(); ++i)
    if (norm(centres[i] - centre) > norm(centres[corner] - centre)) corner = i;
  auto v = s.velocities();
  v[corner] = (centres[corner] - centre) * (1.0 / norm(centres[corner] - centre));  // 1 m/s outwards: 2 um in some 35 steps
  s.set_velocities(v);
  s.step(100);
  const auto later = inspect::contacts(s, all_box);
  const auto net = inspect::network(s);
  std::vector<std::size_t> touching(centres.size(), 0);
  for (std::size_t k = 0; k < net.size(); ++k) ++touching[net.id_a[k]], ++touching[net.id_b[k]];
  std::array<std::uint64_t, inspect::contact_summary::bins> expected{};
  for (std::size_t t : touching) ++expected[std::min<std::size_t>(t, inspect::contact_summary::bins - 1)];
  CHECK(touching[corner] == 0);
  CHECK(later.histogram == expected);
}

TEST_CASE("contact inspectors in single precision: the sums against the network to float rounding") {
  // The host sums each block of pairs in float lanes (contact_summary.hpp): the result must stay
  // within float rounding of a double sum over the same forces.
  dem::simulation_config c = zero_g_config(0.03);
  c.allow_initial_overlap = true;
  c.dt = 1e-7;
  sim_t<dem::force::hertz_mindlin, dem::precision::single> s(c);
  const auto m = s.add_material({"a", 2500, 1e8, 0.3, 0.5, 0.5, 0.0});
  // 1,728 particles: several chunks of pairs. Pressed along y and z (2 um of overlap), 50 um apart
  // along x (within the contact margin, 0.2 mm: listed pairs that do not touch, which every loop
  // must leave out), each centre moved by up to 0.3 um on each axis (a deterministic sequence), so
  // that no two contacts carry the same force and a loop that read another contact's would fail.
  const int n = 12;
  const double r = 1e-3, a = 2 * r - 2e-6, ax = 2 * r + 50e-6;
  dem::particle_set lattice;
  std::uint32_t state = 12345;
  const auto jitter = [&state] {
    state = state * 1664525u + 1013904223u;
    return 0.3e-6 * (2.0 * (state >> 8) / double(1u << 24) - 1.0);
  };
  for (int k = 0; k < n; ++k)
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) {
        lattice.positions.push_back({i * ax + jitter(), j * a + jitter(), k * a + jitter()});
        lattice.radii.push_back(r);
      }
  s.add_particles(lattice, m);
  s.step(1);
  const auto net = inspect::network(s);
  REQUIRE(net.size() == std::size_t(2 * n * n * (n - 1)));  // along y and z only
  REQUIRE(s.num_listed_pairs() > net.size());               // the x neighbours are listed
  // Four selections, three host loops: every particle (the pair pass without flags), the lower
  // half (the pair pass weighing each contact by its selected ends), and the lower or the upper two
  // layers, 1/6 of the particles (the walk over their incident entries, which sums a contact from
  // its A end where A is selected: across the lower cut A is mostly inside, across the upper one
  // mostly outside).
  const std::pair<int, int> selections[] = {{0, n}, {0, n / 2}, {0, 2}, {n - 2, n}};
  for (const auto& selection : selections) {
    const int first = selection.first, last = selection.second, layers = last - first;  // not a structured binding: clang 14's CAPTURE cannot take one
    CAPTURE(first);
    CAPTURE(last);
    const inspect::box cut{{-2 * r, -2 * r, (first - 0.5) * a}, {n * ax + 2 * r, n * a + 2 * r, (last - 0.5) * a}};
    const auto cs = layers == n ? inspect::contacts(s) : inspect::contacts(s, cut);
    double moment[9] = {}, fabric[9] = {}, ends = 0;
    for (std::size_t k = 0; k < net.size(); ++k) {
      const double w = double(cut.contains(net.centre_a[k])) + double(cut.contains(net.centre_b[k]));
      const vec3d l = net.centre_b[k] - net.centre_a[k], f = net.normal_force[k] + net.tangential_force[k];
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) moment[3 * i + j] += 0.5 * w * l[i] * f[j], fabric[3 * i + j] += w * l[i] * l[j] / norm2(l);
      ends += w;
    }
    CHECK(cs.particles == std::uint64_t(layers * n * n));
    CHECK(cs.contact_ends == std::uint64_t(ends));
    const double scale = std::max({std::abs(moment[0]), std::abs(moment[4]), std::abs(moment[8])});
    for (int k = 0; k < 9; ++k) {
      CHECK(std::abs(cs.force_moment[k] - moment[k]) <= 1e-5 * scale);
      CHECK(cs.fabric[k] == doctest::Approx(fabric[k] / ends).epsilon(1e-5).scale(1));
    }
  }
}

TEST_CASE("inspectors refuse bad regions and stale contact forces with named errors") {
  scattered f;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const auto message = [&](auto&& call) {
    try {
      call();
    } catch (const std::exception& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(message([&] { inspect::particles(f.s, inspect::box{{0, 0, nan}, {1, 1, 1}}); }).find("box region lo") != std::string::npos);
  CHECK(message([&] { inspect::particles(f.s, inspect::box{{0, 0, 0}, {1, -1, 1}}); }).find("must be above lo") != std::string::npos);
  CHECK(message([&] { inspect::particles(f.s, inspect::ball{{0, 0, 0}, -1.0}); }).find("ball region radius is -1") != std::string::npos);
  CHECK(message([&] { inspect::contacts(f.s, inspect::cylinder{{0, 0, 0}, {0, 0, 0}, 1.0}); }).find("cylinder region axis") != std::string::npos);
  CHECK(message([&] { inspect::contacts(f.s, inspect::cylinder{{0, 0, 0}, {0, 0, 1}, 1.0, -2.0}); }).find("cylinder region length is -2") != std::string::npos);
  f.s.rebuild_contact_list();
  CHECK(message([&] { inspect::contacts(f.s); }).find("step the simulation before inspecting contacts") != std::string::npos);
  f.s.step(1);
  CHECK(message([&] { inspect::contacts(f.s); }) == "no error");
}
