#!/usr/bin/env bash
# The Python module's speed against C++ (issue 18: within 5 %): the main example's gravity packing
# as the C++ program (examples/02_gravity_packing, stepping in the chunks its progress line sets)
# and as the Python script (examples/python/gravity_packing.py, stepping in chunks of 100 steps),
# the same physics to the bit, built in build/ as the README's commands build them, run alternately
# ROUNDS times (this VM's speed drifts by +-20 % over minutes, so one run of each proves little).
# Prints every figure and the ratios of the medians (whole run and dense bed); exits 1 when
# Python's whole-run rate is under RATIO (0.95) of C++'s.
#
#   benchmarks/python_vs_cpp.sh              ROUNDS=5 N=20000 TIME=0.5 RATIO=0.95 THREADS=nproc by default
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-5}
N=${N:-20000}
TIME=${TIME:-0.5}
RATIO=${RATIO:-0.95}
export OMP_NUM_THREADS=${THREADS:-$(nproc)}
export PATH="$PATH:/usr/local/cuda/bin"
scripts/deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DDEM_BUILD_EXAMPLES=ON -DDEM_NATIVE=ON -DDEM_BUILD_PYTHON=ON -DDEM_PYTHON_OPTIMIZATION= >/dev/null  # the optimised module (scripts/test.sh builds its own at -O1)
cmake --build build -j"$(nproc)" --target gravity_packing dem_python >/dev/null
py=build/python/dem-python  # the interpreter the module was built for
field() { sed -n "s/^summary: .* $1=\([^ ]*\).*/\1/p"; }  # " name=": not the dense_ field of the same name
cpp=() cpp_dense=() pyr=() py_dense=()
for ((r = 1; r <= ROUNDS; ++r)); do
  c=$(build/examples/gravity_packing --n "$N" --time "$TIME" --backend host 2>/dev/null)
  p=$("$py" examples/python/gravity_packing.py --n "$N" --time "$TIME" 2>/dev/null)
  cpp+=("$(field particle_steps_per_s <<<"$c")") cpp_dense+=("$(field dense_particle_steps_per_s <<<"$c")")
  pyr+=("$(field particle_steps_per_s <<<"$p")") py_dense+=("$(field dense_particle_steps_per_s <<<"$p")")
  [[ "$(field kinetic_energy <<<"$c")" == "$(field kinetic_energy <<<"$p")" ]] || { echo "python_vs_cpp: the two runs ended in different states" >&2; exit 1; }
  printf 'round %d: C++ %s particle-steps/s (dense %s), Python %s (dense %s)\n' "$r" "${cpp[-1]}" "${cpp_dense[-1]}" "${pyr[-1]}" "${py_dense[-1]}"
done
"$py" - "$RATIO" "${cpp[*]}" "${pyr[*]}" "${cpp_dense[*]}" "${py_dense[*]}" <<'PY'
import statistics, sys
need = float(sys.argv[1])
c, p, cd, pd = ([float(x) for x in a.split()] for a in sys.argv[2:6])
mc, mp = statistics.median(c), statistics.median(p)
print(f"median: C++ {mc:.4g}, Python {mp:.4g} particle-steps/s: ratio {mp / mc:.3f}")
if min(cd) > 0 and min(pd) > 0:
    print(f"dense bed: C++ {statistics.median(cd):.4g}, Python {statistics.median(pd):.4g}: ratio {statistics.median(pd) / statistics.median(cd):.3f}")
ok = mp / mc >= need
print(f"python_vs_cpp: {'PASS' if ok else 'FAIL'}: Python runs at {mp / mc:.3f}x the C++ example's rate (required >= {need})")
sys.exit(0 if ok else 1)
PY
