#!/usr/bin/env bash
# The main example against the benchmark, in one run: the dense-phase rate of gravity_packing
# (N = 20,000, default time) and settled_bed_bench at the same N, built in build/ as the README's
# example command builds (DEM_NATIVE), run alternately ROUNDS times (this VM's speed drifts by
# +-20 % over minutes, so one run of each proves little). Prints every figure and the ratio of the
# medians; exits 1 when the example's dense rate is under RATIO (0.9) of the benchmark's.
#
#   scripts/example-vs-bench.sh              ROUNDS=3 N=20000 RATIO=0.9 by default
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-3}
N=${N:-20000}
RATIO=${RATIO:-0.9}
export PATH="$PATH:/usr/local/cuda/bin"
scripts/deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DDEM_BUILD_EXAMPLES=ON -DDEM_BUILD_BENCHMARKS=ON -DDEM_NATIVE=ON >/dev/null
cmake --build build -j"$(nproc)" --target gravity_packing settled_bed_bench >/dev/null
ex=() be=()
for ((r = 1; r <= ROUNDS; ++r)); do
  e=$(build/examples/gravity_packing --n "$N" | sed -n 's/.*dense_particle_steps_per_s=\([^ ]*\).*/\1/p')
  b=$(cd build/benchmarks && ./settled_bed_bench --benchmark_filter="settled_bed/host/hertz_mindlin/$N/" --benchmark_format=json 2>/dev/null |
      /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["benchmarks"][0]["particle_steps_per_s"])')
  printf 'round %d: gravity_packing dense %.4g particle-steps/s, settled_bed_bench %.4g\n' "$r" "$e" "$b"
  ex+=("$e") be+=("$b")
done
/usr/bin/python3 - "$RATIO" "${ex[*]}" "${be[*]}" <<'PY'
import statistics, sys
need = float(sys.argv[1])
ex = [float(x) for x in sys.argv[2].split()]
be = [float(x) for x in sys.argv[3].split()]
me, mb = statistics.median(ex), statistics.median(be)
print(f"median: example dense {me:.4g}, benchmark {mb:.4g}, ratio {me / mb:.3f} (fastest: {max(ex):.4g} / {max(be):.4g} = {max(ex) / max(be):.3f})")
ok = me / mb >= need
print(f"example-vs-bench: {'PASS' if ok else 'FAIL'}: the example's dense rate is {me / mb:.2f}x the benchmark's (required >= {need})")
sys.exit(0 if ok else 1)
PY
