#!/usr/bin/env bash
# Builds everything (CUDA targets too when nvcc is present, and the Python module with its pytest
# suite: docs/python.md) but the host benchmarks, and runs all tests, then builds the host and
# emulated-device tests with AddressSanitizer + UBSan (clang at -O0, with the host benchmarks, so
# that CI sees them compile: 73 s for all ten there against 462 s of CPU at -O3; optimised, they are built by
# name or all at once with `cmake --build build --target benchmarks`) and runs them, all but the long
# physics runs labelled "slow" (packing, energy drift, the coordinate x precision matrix, the energy
# ledger's closure runs, reproducibility: minutes under ASan at -O0; they run in the release pass)
# and the heavy cases that skip themselves there (dem_test::sanitized), then fuzzes every reader for
# 6 s each (FUZZ_SECONDS; 8 s until the evening of 2026-12-06, 12 s before, 30 s before the Python
# module came into the build, 20 s before all its laws did), so that the whole script stays inside
# CI's 40 minutes. The fuzzers are built in the sanitizer tree (at -O1), beside the tests: one clang
# tree instead of two, in the same time (CI on 2026-12-07: build 349 s + fuzzing 24 s, against
# 238 + 138 s with a tree of their own; docs/performance.md, "CI"). Each phase prints how long it took.
# CUDA tests report SKIPPED on machines without a GPU.
#
# Every option the script relies on is set on the command line (a build/ folder configured by
# scripts/run-example.sh, with tests off, is reconfigured here), and each ctest pass must run every
# test it selects, no fewer than the project's test sources define: "No tests were found" fails.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
jobs=$(nproc)
export PATH="$PATH:/usr/local/cuda/bin"

# run_ctest DIR MINIMUM [ctest filter args...]: registered tests (ctest -N) >= MINIMUM, and the
# run's "out of N" equals the registered count.
run_ctest() {
  local dir=$1 minimum=$2
  shift 2
  local registered ran log
  registered=$(cd "$dir" && ctest -N "$@" | sed -n 's/^Total Tests: \([0-9]*\)$/\1/p')
  if [[ -z "$registered" || "$registered" -lt "$minimum" ]]; then
    echo "test.sh: $dir registers ${registered:-no} tests for '$*', fewer than the $minimum the project defines" >&2
    return 1
  fi
  log=$(mktemp)
  (cd "$dir" && ctest -j"$jobs" --output-on-failure --no-tests=error "$@") 2>&1 | tee "$log"
  ran=$(sed -n 's/.* tests failed out of \([0-9]*\)$/\1/p' "$log" | tail -n 1)
  rm -f "$log"
  if [[ "$ran" != "$registered" ]]; then
    echo "test.sh: ctest in $dir ran ${ran:-no} tests, but $registered are registered" >&2
    return 1
  fi
  echo "test.sh: $dir: all $ran selected tests ran"
}

# The floor from the sources: one host test per test source, one emulated-device test per backend
# test source (tests/CMakeLists.txt: DEM_BACKEND_TESTS), and one CUDA test per backend test source
# when nvcc is found.
sources=$(ls tests/*/test_*.cpp | wc -l)
backend_sources=$(sed -n '/DEM_BACKEND_TESTS/,/)/p' tests/CMakeLists.txt | grep -c '\.cpp')
host_floor=$((sources + backend_sources))
all_floor=$host_floor
command -v nvcc >/dev/null && all_floor=$((host_floor + backend_sources))

phase() { echo "== $* ($(date -u +%H:%M:%S); $SECONDS s since the start)"; }
phase "release build (host + CUDA when nvcc is available)"
# The Python module's host classes at -O1, as the tests (python/CMakeLists.txt: 39 % of this
# build's compiles at -O3); build/ is set back to the optimised module when the script ends, however
# it ends, so that building dem_python there afterwards gives the module users run.
trap 'cmake -S . -B build -DDEM_PYTHON_OPTIMIZATION= >/dev/null 2>&1 && echo "test.sh: build/ configured back to the optimised Python module (DEM_PYTHON_OPTIMIZATION empty)"' EXIT
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DDEM_BUILD_TESTS=ON -DDEM_BUILD_EXAMPLES=ON -DDEM_BUILD_BENCHMARKS=ON \
      -DDEM_BENCHMARKS_IN_ALL=OFF -DDEM_ENABLE_CUDA=ON -DDEM_SANITIZE=OFF -DDEM_NATIVE=ON -DDEM_BUILD_PYTHON=ON \
      -DDEM_PYTHON_OPTIMIZATION=-O1
cmake --build build -j"$jobs"
# The Python module is built only where pybind11 and a Python with NumPy are found (deps.sh installs
# them): here it must be, with its pytest suite, install test and the two example scripts.
python_tests=$(cd build && ctest -N -L python | sed -n 's/^Total Tests: \([0-9]*\)$/\1/p')
if [[ "${python_tests:-0}" -lt 4 ]]; then
  echo "test.sh: the Python module's tests are not registered (${python_tests:-0} of 4): was dem_python configured? (build/CMakeCache.txt, 'dem: Python module')" >&2
  exit 1
fi
phase "tests"
run_ctest build "$all_floor"

# clang 14 at -O0 -g1: ASan + UBSan builds of the tests took 578 s with GCC 12 at -O0 -g1, about
# 260 s with clang (GCC at -O1 -g: 227 s for sim/test_checkpoint.cpp alone; clang at -O1: 717 s in
# all). Line tables are enough for the reports' stack traces. A second compiler also checks that the
# headers build with clang.
phase "sanitizer build (ASan + UBSan, clang 14) of the host tests"
cmake -S . -B build-asan-clang -DCMAKE_CXX_COMPILER=clang++-14 -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O0 -g1" -DDEM_SANITIZE=ON -DDEM_ENABLE_CUDA=OFF \
      -DDEM_BUILD_TESTS=ON -DDEM_BUILD_BENCHMARKS=ON -DDEM_BENCHMARKS_IN_ALL=ON -DDEM_BUILD_EXAMPLES=OFF -DDEM_NATIVE=ON \
      -DDEM_BUILD_FUZZERS=ON
cmake --build build-asan-clang -j"$jobs"
# The slow physics runs (several minutes each under ASan) ran in the release pass.
slow=$(($(grep -o 'set(DEM_SLOW_TESTS[^)]*)' tests/CMakeLists.txt | wc -w) - 1))
export ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1
run_ctest build-asan-clang $((host_floor - 2 * slow)) -L "host|emulated" -LE slow -E "install|examples"

phase "fuzzing every reader briefly (libFuzzer, ASan + UBSan; scripts/fuzz.sh for long runs)"
FUZZ_BUILD=build-asan-clang scripts/fuzz.sh "${FUZZ_SECONDS:-6}"
phase "done"
