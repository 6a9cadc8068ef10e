#!/usr/bin/env bash
# The long boundary validation (docs/boundaries.md): the 10,000-sphere settled bed in a box of planes
# and in a 12-triangle mesh box: bed heights within 1 %, and each box carries the bed's weight within
# 0.5 % once it rests. About 3 minutes on 2 cores.
#   scripts/validate-boundaries.sh [N]
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/cuda/bin"
scripts/deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DDEM_BUILD_EXAMPLES=ON -DDEM_BUILD_BENCHMARKS=ON -DDEM_NATIVE=ON >/dev/null
cmake --build build -j"$(nproc)" --target validate_boundaries >/dev/null
exec build/benchmarks/validate_boundaries "${1:-10000}"
