// Faults a long run meets: a process killed while it writes a checkpoint or an output file, a
// full disk (a file-size limit: EFBIG, as ENOSPC goes through the same calls), a buffer that cannot
// grow. Each gives a named error or leaves the previous file intact, never half a file under the
// final name. The faults are made in child processes (fork), so that limits and kills stay there.
#include <doctest/doctest.h>

#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#if defined(_OPENMP)
#include <omp.h>
#endif
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dem/io/csv.hpp"
#include "dem/io/vtk.hpp"
#include "support/scenarios.hpp"

using namespace dem_test;
namespace fs = std::filesystem;

namespace {

using sim = sim_t<dem::force::hertz_mindlin>;

// A bed of n spheres after a few steps (forces, history and contacts in the state).
sim bed(std::size_t n) {
  dem::simulation_config c;
  const double side = 0.002 * std::ceil(std::cbrt(double(n))) + 0.004;
  c.domain = {{0, 0, 0}, {side, side, 2 * side}};
  sim s(c);
  const auto m = s.add_material({"glass", 2500, 1e7, 0.3, 0.5, 0.5, 0.0});
  s.add_box(c.domain, m);
  dem::sample::lattice_options o;
  o.radius = 0.9e-3;
  o.max_count = n;
  s.add_particles(dem::sample::cubic_lattice(c.domain, o), m);
  s.step(20);
  return s;
}

fs::path scratch_dir(const std::string& name) {
  const fs::path d = fs::path("faults_test") / name;
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

// Files in `dir` other than `keep`: temporaries a writer left behind.
std::vector<std::string> others(const fs::path& dir, const std::vector<std::string>& keep) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (std::find(keep.begin(), keep.end(), name) == keep.end()) out.push_back(name);
  }
  return out;
}

std::string contents(const fs::path& p) { return dem::io::read_file(p.string()); }

// Runs `body` in a forked child; returns the message of the exception it threw ("" if none). The
// parent's OpenMP threads do not exist in the child, so the child runs single-threaded.
std::string in_child(const std::function<void()>& body) {
  int fd[2];
  REQUIRE(pipe(fd) == 0);
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    close(fd[0]);
#if defined(_OPENMP)
    omp_set_num_threads(1);
#endif
    std::string msg;
    try {
      body();
    } catch (const std::exception& e) {
      msg = e.what();
    }
    if (!msg.empty() && write(fd[1], msg.data(), msg.size()) < 0) _exit(3);
    close(fd[1]);
    _exit(0);
  }
  close(fd[1]);
  std::string msg;
  char b[512];
  ssize_t k;
  while ((k = read(fd[0], b, sizeof b)) > 0) msg.append(b, static_cast<std::size_t>(k));
  close(fd[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  return msg;
}

// `body` in a child with the file-size limit at `limit` bytes (SIGXFSZ ignored, so that writes
// fail with EFBIG).
std::string with_file_size_limit(rlim_t limit, const std::function<void()>& body) {
  return in_child([&] {
    std::signal(SIGXFSZ, SIG_IGN);
    rlimit r{limit, limit};
    setrlimit(RLIMIT_FSIZE, &r);
    body();
  });
}

// Kills a child with SIGKILL while it rewrites `target` in a loop (after one complete write), at
// the moment a temporary file beside the target appears. Returns whether the kill came mid-write
// (a temporary was left behind).
bool kill_mid_write(const fs::path& dir, const std::string& target, const std::function<void()>& write_once) {
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    for (int k = 0; k < 1000; ++k) write_once();
    _exit(0);
  }
  const fs::path t = dir / target;
  const std::string tmp = target + ".tmp-" + std::to_string(pid);
  bool first_done = false, killed = false;
  for (int spin = 0; spin < 2000000 && !killed; ++spin) {
    if (!first_done) {
      first_done = fs::exists(t);
      continue;
    }
    if (fs::exists(dir / tmp)) {
      kill(pid, SIGKILL);
      killed = true;
    }
  }
  if (!killed) kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  CHECK(WIFSIGNALED(status));
  return killed && fs::exists(dir / tmp);
}

}  // namespace

TEST_CASE("faults: a process killed while writing a checkpoint leaves the previous one intact") {
  const fs::path dir = scratch_dir("kill_checkpoint");
  const sim s = bed(30000);  // about 10 MB: the kill lands inside the write
  const std::string target = "run.ckpt";
  const bool mid_write = kill_mid_write(dir, target, [&] { s.save_checkpoint((dir / target).string()); });
  CHECK(mid_write);
  // The file under the final name is a complete checkpoint of the state.
  sim back = sim::from_checkpoint((dir / target).string());
  CHECK(back.positions() == s.positions());
  CHECK(back.step_count() == s.step_count());
  fs::remove_all(dir);
}

TEST_CASE("faults: a process killed while writing CSV or VTU output leaves the previous file intact") {
  const fs::path dir = scratch_dir("kill_output");
  sim s = bed(30000);
  const dem::io::snapshot snap = s.snapshot();
  CHECK(kill_mid_write(dir, "state.csv", [&] { dem::io::write_csv((dir / "state.csv").string(), snap); }));
  CHECK(dem::io::read_csv((dir / "state.csv").string()).size() == snap.size());
  CHECK(kill_mid_write(dir, "state.vtu", [&] { dem::io::write_vtu((dir / "state.vtu").string(), snap); }));
  const std::string vtu = contents(dir / "state.vtu");
  CHECK(vtu.size() > 1000000);
  CHECK(vtu.find("</VTKFile>") != std::string::npos);  // complete
  fs::remove_all(dir);
}

TEST_CASE("faults: a full disk while writing gives a named error, keeps the previous file, leaves no temporary") {
  const fs::path dir = scratch_dir("full_disk");
  sim s = bed(2000);
  const std::string ckpt = (dir / "run.ckpt").string(), csv = (dir / "state.csv").string(), vtu = (dir / "state.vtu").string();
  s.save_checkpoint(ckpt);
  dem::io::write_csv(csv, s.snapshot());
  dem::io::write_vtu(vtu, s.snapshot());
  const std::string old_ckpt = contents(ckpt), old_csv = contents(csv), old_vtu = contents(vtu);
  s.step(10);  // the state the failed writes try to save
  const rlim_t limit = 64 * 1024;
  REQUIRE(old_ckpt.size() > limit);

  std::string msg = with_file_size_limit(limit, [&] { s.save_checkpoint(ckpt); });
  CHECK(msg.find("dem::io: cannot write '" + ckpt + "': File too large") != std::string::npos);
  msg = with_file_size_limit(limit, [&] { dem::io::write_csv(csv, s.snapshot()); });
  CHECK(msg.find("dem::io: cannot write '" + csv + "': File too large") != std::string::npos);
  msg = with_file_size_limit(limit, [&] { dem::io::write_vtu(vtu, s.snapshot()); });
  CHECK(msg.find("dem::io: cannot write '" + vtu + "': File too large") != std::string::npos);
  msg = with_file_size_limit(limit, [&] {
    dem::io::vtk_series series((dir / "series").string());
    series.write(s.snapshot());
  });
  CHECK(msg.find("File too large") != std::string::npos);

  CHECK(contents(ckpt) == old_ckpt);
  CHECK(contents(csv) == old_csv);
  CHECK(contents(vtu) == old_vtu);
  CHECK(others(dir, {"run.ckpt", "state.csv", "state.vtu", "series"}).empty());
  CHECK(fs::is_empty(dir / "series"));  // neither a half frame nor a .pvd
  // Below the limit the same writes work (the child's limit did not leak here).
  CHECK_NOTHROW(s.save_checkpoint(ckpt));
  CHECK(sim::from_checkpoint(ckpt).step_count() == s.step_count());
  fs::remove_all(dir);
}

#if !defined(DEM_TEST_SANITIZED) && !defined(__SANITIZE_ADDRESS__)  // ASan reserves terabytes of address space: an address-space limit cannot be set under it
TEST_CASE("faults: a contact list that cannot be allocated is a named error with the size asked for") {
  const std::string msg = in_child([] {
    dem::simulation_config c;
    c.domain = {{0, 0, 0}, {0.05, 0.05, 0.05}};
    c.contact_margin = 0.012;  // every particle lists hundreds of neighbours: millions of pairs
    sim s(c);
    const auto m = s.add_material({});
    dem::sample::lattice_options o;
    o.radius = 0.9e-3;
    // First two layers, listed (some 3e5 pairs), so that the failed build below has a list before it.
    s.add_particles(dem::sample::cubic_lattice({{0, 0, 0}, {0.05, 0.05, 0.004}}, o), m);
    s.step(1);
    if (s.num_listed_pairs() == 0) throw std::runtime_error("no list before the failed build");
    s.add_particles(dem::sample::cubic_lattice({{0, 0, 0.006}, {0.05, 0.05, 0.05}}, o), m);
    rlimit r{512u << 20, 512u << 20};  // 512 MiB of address space for what follows
    setrlimit(RLIMIT_AS, &r);
    try {
      s.step(1);
    } catch (const dem::allocation_error&) {
      // Caught, the simulator holds an empty, invalid list (contact_builder::abandon), not the
      // previous build's counts over arrays the failed build had begun to replace: nothing stale
      // or out of bounds is read by the queries or by a checkpoint.
      const std::string path = (scratch_dir("after_failed_build") / "s.ckpt").string();
      if (s.num_listed_pairs() != 0 || !s.listed_pairs().empty() || s.num_touching_pairs() != 0)
        throw std::runtime_error("a stale contact list after a failed build");
      s.save_checkpoint(path);
      fs::remove_all(fs::path(path).parent_path());
      throw;
    }
  });
  INFO(msg);
  CHECK(msg.find("dem: contact-list rebuild at step 1 (") != std::string::npos);
  CHECK(msg.find("dem::backend::host: cannot allocate ") != std::string::npos);
  CHECK(msg.find(" bytes)") != std::string::npos);
}
#endif
