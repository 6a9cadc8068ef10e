// Setting state between steps keeps the contact list valid: a setter must not reset the
// displacement each particle has used of its skin budget (it once did, through push(), so that a
// particle could cross the margin and pass through another without the list ever being rebuilt).
#include <doctest/doctest.h>

#include <functional>
#include <string>
#include <vector>

#include "support/scenarios.hpp"

using namespace dem_test;

namespace {

struct scale_property {
  double value;
  DEM_HD scale_property& operator+=(const scale_property& o) { value += o.value; return *this; }
};

// Hertz–Mindlin that declares owner and geometry properties (and ignores them), so that every
// wildcard setter can be called.
struct hertz_mindlin_with_properties : hertz_mindlin_time_step {
  static constexpr const char* name = "hertz_mindlin_with_properties";
  template <class Real>
  struct law : hertz_mindlin_based<Real> {
    using typename hertz_mindlin_based<Real>::base;
    using typename hertz_mindlin_based<Real>::params;
    using typename hertz_mindlin_based<Real>::history;
    using owner_wildcards = scale_property;
    using geometry_wildcards = scale_property;
    DEM_HD dem::force::contact_force<Real> operator()(const dem::force::contact<Real>& c, const params& p, history& h,
                                                      dem::force::wildcards<scale_property, scale_property>&) const {
      return base{}(c, p, h);
    }
  };
};

using sim = sim_t<hertz_mindlin_with_properties>;

// Particle 0 runs at 1 m/s into particle 1, which starts 0.5 mm away: farther than the margin
// (0.2 mm), so the pair is listed only once particle 0 has moved half the margin (10 steps) and
// then nears particle 1: by a rebuild, or (local validity) added to the list in place. `touch` is
// called before every step.
void approach(const std::function<void(sim&)>& touch, const char* what) {
  dem::simulation_config c = zero_g_config(0.1);
  c.dt = 1e-5;
  sim s(c);
  const auto m = s.add_material({"m", 2500, 1e7, 0.3, 0.9, 0.5, 0.0});
  dem::particle_set p;
  p.positions = {{0, 0, 0}, {2e-3 + 5e-4, 0, 0}};
  p.radii = {1e-3, 1e-3};
  p.velocities = {{1, 0, 0}, {0, 0, 0}};
  s.add_particles(p, m);
  for (int k = 0; k < 150; ++k) {  // 1.5 mm: the gap closes after 50 steps
    touch(s);
    s.step(1);
  }
  INFO("setter: " << std::string(what) << ", contact-list builds: " << s.num_rebuilds() << ", patches: " << s.num_list_patches());
  const auto v = s.velocities();
  CHECK(v[1].x > 0.5);  // particle 1 was hit (elastic-ish: about 0.95 m/s)
  CHECK(v[0].x < 0.5);
  CHECK(s.num_rebuilds() + s.num_list_patches() >= 2);  // the first build, then the pair listed
}

}  // namespace

TEST_CASE("setters keep the contact list valid: a particle cannot pass through another") {
  approach([](sim&) {}, "none (reference)");
  approach([](sim& s) { s.set_velocities(s.velocities()); }, "set_velocities");
  approach([](sim& s) { s.set_angular_velocities(s.angular_velocities()); }, "set_angular_velocities");
  approach([](sim& s) { s.set_owner_wildcards(s.owner_wildcards()); }, "set_owner_wildcards");
  approach([](sim& s) { s.set_geometry_wildcards(s.geometry_wildcards()); }, "set_geometry_wildcards");
}

TEST_CASE("a setter between steps changes nothing else: same bits as a run without it") {
  auto run = [](bool touch) {
    dem::simulation_config c = zero_g_config(0.1);
    c.dt = 1e-5;
    sim s(c);
    const auto m = s.add_material({"m", 2500, 1e7, 0.3, 0.5, 0.5, 0.1});
    dem::particle_set p;
    for (int k = 0; k < 40; ++k) {
      p.positions.push_back({2.05e-3 * (k % 10), 2.05e-3 * (k / 10), 0});
      p.radii.push_back(1e-3);
      p.velocities.push_back({(k % 3) * 0.1 - 0.1, (k % 7) * 0.05 - 0.15, 0});
    }
    s.add_particles(p, m);
    for (int k = 0; k < 400; ++k) {
      if (touch) {
        s.set_velocities(s.velocities());
        s.set_angular_velocities(s.angular_velocities());
      }
      s.step(1);
    }
    return std::pair{s.positions(), s.num_rebuilds()};
  };
  const auto [plain, rebuilds_plain] = run(false);
  const auto [touched, rebuilds_touched] = run(true);
  CHECK(rebuilds_plain == rebuilds_touched);
  for (std::size_t i = 0; i < plain.size(); ++i) {
    CAPTURE(i);
    CHECK(plain[i].x == touched[i].x);
    CHECK(plain[i].y == touched[i].y);
    CHECK(plain[i].z == touched[i].z);
  }
}
