#!/usr/bin/env bash
# The tilting-box angle of repose at dt and dt/2 from the same settled beds
# (benchmarks/validate_repose.cpp; docs/force-laws.md, "Rolling resistance and the time step").
# The seeds are split over one single-threaded process per core (300 grains: threads would only
# add overhead) and their lines pooled: the mean failure angle at dt and at dt/2, and the standard
# error of their difference from the paired (same-bed) differences. About 5 s per seed and core.
#   scripts/validate-repose.sh [hertz_mindlin|hertz_mindlin_epsd] [seeds, 640] [dt, 2e-5]
set -euo pipefail
cd "$(dirname "$0")/.."
law=${1:-hertz_mindlin} seeds=${2:-640} dt=${3:-2e-5}
export PATH="$PATH:/usr/local/cuda/bin"
scripts/deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DDEM_BUILD_EXAMPLES=ON -DDEM_BUILD_BENCHMARKS=ON -DDEM_NATIVE=ON >/dev/null
cmake --build build -j"$(nproc)" --target validate_repose >/dev/null
jobs=$(nproc)
((jobs > seeds)) && jobs=$seeds
per=$(((seeds + jobs - 1) / jobs))
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
pids=()
for ((j = 0; j < jobs; ++j)); do
  first=$((1 + j * per)) count=$((seeds - j * per < per ? seeds - j * per : per))
  ((count > 0)) || break
  OMP_NUM_THREADS=1 build/benchmarks/validate_repose "$law" "$count" "$dt" "$first" >"$out/$j.txt" &
  pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done
head -n 2 "$out/0.txt"
for ((j = 0; j < ${#pids[@]}; ++j)); do grep -E '^ *[0-9]+ ' "$out/$j.txt"; done
# Pooled: the seed lines are "seed, angle at dt, angle at dt/2, relative difference".
cat "$out"/*.txt | awk '
  $1 ~ /^[0-9]+$/ && NF == 4 { n++; a += $2; b += $3; d = $2 - $3; s += d; s2 += d * d }
  END {
    if (n < 2) { print "validate-repose.sh: fewer than 2 seeds ran"; exit 1 }
    m = s / n; sd = sqrt((s2 - n * m * m) / (n - 1)); se = sd / sqrt(n);
    printf "%d seeds: mean failure angle %.3f deg at dt, %.3f deg at dt/2: %+.2f%%, standard error %.2f%% (%.3f deg, from the paired differences)\n",
           n, a / n, b / n, 100 * (a - b) / b, 100 * se / (b / n), se
  }'
