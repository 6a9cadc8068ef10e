// The checkpoint fuzz target's seeds: small checkpoints without their end record (the target adds
// it with the right checksum).
//   make_checkpoint_seeds DIR           writes the seeds into DIR
//   make_checkpoint_seeds --check DIR   every file in DIR must load (stale seeds would leave the
//                                       fuzzer at the format's first refusal); run as a ctest
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "dem/dem.hpp"
#include "dem/io/checkpoint.hpp"

namespace {
using sim = dem::Simulator<dem::policies<dem::shape::sphere, dem::force::hertz_mindlin>, dem::backend::host>;

sim small(bool two_materials) {
  dem::simulation_config c;
  c.domain = {{0, 0, 0}, {0.006, 0.006, 0.01}};
  sim s(c);
  const auto a = s.add_material({"a", 2500, 1e7, 0.3, 0.5, 0.5, 0.1});
  s.add_box(c.domain, a);
  dem::sample::lattice_options o;
  o.radius = 1e-3;
  o.jitter = 1e-4;
  o.max_count = 8;
  if (two_materials) {
    const auto b = s.add_material({"b", 1000, 5e6, 0.25, 0.7, 0.3, 0.0});
    s.materials().set_pair(a, b, {.friction = 0.2});
    const auto set = dem::sample::cubic_lattice(c.domain, o);
    std::vector<dem::material_id> m(set.size(), a);
    for (std::size_t k = 0; k < m.size(); k += 2) m[k] = b;
    s.add_particles(set, m);
  } else {
    s.add_particles(dem::sample::cubic_lattice(c.domain, o), a);
  }
  return s;
}

void write_seed(const sim& s, const std::filesystem::path& path) {
  const std::string tmp = path.string() + ".full";
  s.save_checkpoint(tmp);
  std::ifstream in(tmp, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  in.close();
  std::filesystem::remove(tmp);
  bytes.resize(bytes.size() - dem::io::checkpoint_format::end_record_size);
  std::ofstream(path, std::ios::binary) << bytes;
}
}  // namespace

int main(int argc, char** argv) {
  if (argc == 3 && std::string(argv[1]) == "--check") {
    int n = 0;
    for (const auto& e : std::filesystem::directory_iterator(argv[2])) {
      std::ifstream in(e.path(), std::ios::binary);
      std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      dem::io::checkpoint_format::append_end_record(bytes);
      try {
        sim s = sim::from_checkpoint(dem::io::checkpoint_reader(std::move(bytes), e.path().string()));
        s.step(2);
      } catch (const std::exception& x) {
        std::fprintf(stderr, "seed %s does not load: %s\n(regenerate the seeds with make_checkpoint_seeds)\n", e.path().c_str(), x.what());
        return 1;
      }
      ++n;
    }
    std::printf("%d checkpoint seeds load and run\n", n);
    return n > 0 ? 0 : 1;
  }
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_checkpoint_seeds DIR | --check DIR\n");
    return 2;
  }
  const std::filesystem::path dir = argv[1];
  std::filesystem::create_directories(dir);
  sim fresh = small(false);
  write_seed(fresh, dir / "unprepared.ckpt");
  fresh.step(300);
  write_seed(fresh, dir / "settling.ckpt");
  sim mixed = small(true);
  mixed.step(300);
  write_seed(mixed, dir / "two_materials.ckpt");
  // Moving boundaries: a turning mesh and a servo disc, so that the fuzzer explores their records.
  sim moving = small(false);
  dem::boundary::triangle_mesh paddle;
  paddle.vertices = {{0.001, 0.003, 0.006}, {0.005, 0.003, 0.006}, {0.005, 0.003, 0.009}, {0.001, 0.003, 0.009}};
  paddle.triangles = {{0, 1, 2}, {0, 2, 3}};
  moving.step(200);
  const auto mesh = moving.add_mesh(paddle, 0, "paddle");
  moving.set_motion(mesh, dem::boundary::constant_velocity{.omega = {0, 0, 4}, .centre = {0.003, 0.003, 0}});
  const auto piston = moving.add_disc({0.003, 0.003, 0.0095}, {0, 0, -1}, 0.0025, 0, 0, "piston");
  moving.set_motion(piston, dem::boundary::servo{.direction = {0, 0, -1}, .speed = 0.02, .target_force = 0.01});
  moving.step(100);
  write_seed(moving, dir / "moving_boundaries.ckpt");
  std::printf("4 seeds in %s\n", dir.c_str());
  return 0;
}
