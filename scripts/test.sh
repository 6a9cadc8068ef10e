#!/usr/bin/env bash
# Builds everything (CUDA targets too when nvcc is present) and runs all tests, then builds the
# host tests with AddressSanitizer + UBSan and runs them, all but the long physics runs labelled
# "slow" (packing, energy drift, the coordinate x precision matrix: minutes under ASan; they run in
# the release pass), so that the whole script stays well inside CI's 30 minutes.
# CUDA tests report SKIPPED on machines without a GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
jobs=$(nproc)
export PATH="$PATH:/usr/local/cuda/bin"

echo "== release build (host + CUDA when nvcc is available)"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j"$jobs"
echo "== tests"
(cd build && ctest -j"$jobs" --output-on-failure)

echo "== sanitizer build (ASan + UBSan) of the host tests"
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g" -DDEM_SANITIZE=ON -DDEM_ENABLE_CUDA=OFF \
      -DDEM_BUILD_BENCHMARKS=OFF -DDEM_BUILD_EXAMPLES=OFF
cmake --build build-asan -j"$jobs"
(cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
   ctest -j"$jobs" --output-on-failure -L host -LE slow -E "install|examples")
