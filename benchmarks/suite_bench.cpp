// Google Benchmark: the performance suite (scenarios, counters and the traffic model in suite.hpp).
// Built as host C++ (suite_bench: backend::host, N = 1e3 .. 1e6) and by nvcc (suite_bench_cuda:
// backend::cuda, N = 1e5, 1e6, 1e7, and 3e7 and 1e8 that scripts/gpu-check.sh runs when memory and
// time allow; plus copy_bandwidth). Run from a directory that holds (or may receive) the settled-bed
// cache, settled_bed_<law>_<N>.csv, e.g.
//   cd build-host/benchmarks && ./suite_bench --benchmark_filter='^tiled_bed/host/hertz_mindlin/10000/'
// The matrix (linear_spring_dashpot; Hertz-Mindlin in double precision and with coord::voxel<16>) runs
// the tiled bed at N = 1e5 (host) / 1e6 (CUDA), named <scenario>/<backend>/<law>/<precision>/<coord>/<N>.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "suite.hpp"

namespace {

namespace suite = bench::suite;
using hertz_mindlin = dem::force::hertz_mindlin;
using linear_spring_dashpot = dem::force::linear_spring_dashpot;

#if defined(__CUDACC__)
using backend = dem::backend::cuda;
constexpr std::size_t sizes[] = {100000, 1000000, 10000000, 30000000, 100000000};
constexpr std::size_t matrix_n = 1000000;
constexpr std::size_t poly_sizes[] = {1000000, 10000000};
#else
using backend = dem::backend::host;
constexpr std::size_t sizes[] = {1000, 10000, 100000, 1000000};
constexpr std::size_t matrix_n = 100000;
constexpr std::size_t poly_sizes[] = {100000, 1000000};
#endif

std::string name(const char* scenario, const char* law, std::size_t n, const char* matrix = nullptr) {
  std::string s = std::string(scenario) + "/" + backend::name + "/" + law + "/";
  if (matrix) s += std::string(matrix) + "/";
  return s + std::to_string(n);
}

template <class F>
void add(const std::string& name, F&& fn) {
  benchmark::RegisterBenchmark(name.c_str(), std::forward<F>(fn))->Unit(benchmark::kMillisecond)->UseRealTime();
}

template <class Force, class Precision, class Coord>
void add_matrix(std::size_t n) {
  const std::string m = std::string(Precision::name) + "/" + Coord::name;
  add(name("tiled_bed", Force::name, n, m.c_str()),
      [n](benchmark::State& st) { suite::tiled_bed<backend, Force, Precision, Coord>(st, n); });
}

void register_all() {
#if defined(__CUDACC__)
  for (std::size_t bytes : {std::size_t{1} << 30, std::size_t{4} << 30})
    benchmark::RegisterBenchmark(("copy_bandwidth/cuda/" + std::to_string(bytes)).c_str(),
                                 [bytes](benchmark::State& st) { suite::copy_bandwidth(st, bytes); })
        ->Unit(benchmark::kMillisecond)
        ->UseManualTime();
#endif
  // Per N: tiled_bed, then contact_detection (they share the bed), then free_fall.
  for (std::size_t n : sizes) {
    add(name("tiled_bed", hertz_mindlin::name, n), [n](benchmark::State& st) { suite::tiled_bed<backend, hertz_mindlin>(st, n); });
    add(name("contact_detection", hertz_mindlin::name, n),
        [n](benchmark::State& st) { suite::contact_detection<backend, hertz_mindlin>(st, n); });
    const char* inspectors[] = {"inspect_particles", "inspect_region", "inspect_contacts_region", "inspect_contacts"};
    for (int which = 0; which < 4; ++which)
      add(name(inspectors[which], hertz_mindlin::name, n),
          [n, which](benchmark::State& st) { suite::inspectors<backend, hertz_mindlin>(st, n, which); });
    add(name("free_fall", hertz_mindlin::name, n), [n](benchmark::State& st) { suite::free_fall<backend, hertz_mindlin>(st, n); });
#if !defined(__CUDACC__)  // deferred detection (issue 17, item 1) on the same fixture; not built for backend::cuda yet
    if (n <= 1000000)
      add(name("free_fall", hertz_mindlin::name, n, "deferred"),
          [n](benchmark::State& st) { suite::free_fall<backend, hertz_mindlin>(st, n, false, true); });
#endif
#if defined(__CUDACC__)
    // The same with the host reading the status after every step (config.status_read_interval = 0).
    if (n <= 1000000) {
      add(name("tiled_bed", hertz_mindlin::name, n, "host_reads"),
          [n](benchmark::State& st) { suite::tiled_bed<backend, hertz_mindlin>(st, n, true); });
      add(name("free_fall", hertz_mindlin::name, n, "host_reads"),
          [n](benchmark::State& st) { suite::free_fall<backend, hertz_mindlin>(st, n, true); });
    }
#endif
  }
  // Wide size distributions (issue 17, item 3): radius ratios 1, 3 and 10, with the automatic levels
  // and with one grid (at the smaller N only, unless DEM_BENCH_ONE_LEVEL_ALL is set: one grid costs
  // 2.4x more per pair at ratio 10 and N = 1e6 on the host).
  for (std::size_t n : poly_sizes)
    for (int ratio : {1, 3, 10}) {
      const std::string r = std::to_string(ratio);
      add(name("polydisperse_bed", hertz_mindlin::name, n, r.c_str()),
          [n, ratio](benchmark::State& st) { suite::polydisperse_bed<backend, hertz_mindlin>(st, ratio, n, 0); });
      if (n == poly_sizes[0] || std::getenv("DEM_BENCH_ONE_LEVEL_ALL"))
        add(name("polydisperse_bed_one_level", hertz_mindlin::name, n, r.c_str()),
            [n, ratio](benchmark::State& st) { suite::polydisperse_bed<backend, hertz_mindlin>(st, ratio, n, 1); });
    }
  add_matrix<linear_spring_dashpot, dem::precision::single, dem::coord::floating>(matrix_n);
  add_matrix<hertz_mindlin, dem::precision::double_, dem::coord::floating>(matrix_n);
  add_matrix<hertz_mindlin, dem::precision::single, dem::coord::voxel<16>>(matrix_n);
}

}  // namespace

int main(int argc, char** argv) {
#if defined(__CUDACC__)
  bool listing = false;
  for (int i = 1; i < argc; ++i) listing = listing || std::string(argv[i]).rfind("--benchmark_list_tests", 0) == 0;
#endif
  register_all();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
#if defined(__CUDACC__)
  std::string why;
  if (!listing && !dem::backend::cuda_device_available(&why)) {
    std::fprintf(stderr, "suite_bench_cuda: no usable CUDA device: %s\n", why.c_str());
    return 1;
  }
#endif
  benchmark::RunSpecifiedBenchmarks();
  bench::suite::release_fixture();  // free device memory before the CUDA runtime shuts down
  benchmark::Shutdown();
  return 0;
}
