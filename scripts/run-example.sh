#!/usr/bin/env bash
# Builds and runs the main example (gravity packing); extra arguments go to the example,
# e.g. scripts/run-example.sh --n 5000 --time 0.2 --out out/packing
# The build is for this machine's instruction set (DEM_NATIVE, as the benchmarks are): the
# vectorised contact loop runs at less than half speed without it.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
export PATH="$PATH:/usr/local/cuda/bin"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DDEM_BUILD_EXAMPLES=ON -DDEM_BUILD_TESTS=OFF -DDEM_BUILD_BENCHMARKS=OFF \
      -DDEM_NATIVE=ON >/dev/null
cmake --build build -j"$(nproc)" --target gravity_packing
exec build/examples/gravity_packing "$@"
