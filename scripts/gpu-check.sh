#!/usr/bin/env bash
# One-shot GPU check for a lent H200/H100 (see docs/performance.md), budgeted to finish inside 8 minutes
# on a 16-core machine:
#   1. configures build-gpu for sm_90 (benchmarks on, examples off) and builds only the CUDA targets:
#      the CUDA tests (*_cuda) and suite_bench_cuda;
#   2. runs every CUDA test (ctest -L cuda);
#   3. runs the benchmark suite (benchmarks/suite.hpp) on the GPU: copy_bandwidth, then tiled_bed,
#      contact_detection and free_fall at N = 1e5, 1e6 and 1e7 (at 1e5 and 1e6 also with the host
#      reading the status back after every step, "host_reads"); then, while the GPU's free memory and
#      the time left allow, the tiled bed at 3e7, the force-law / precision matrix at 1e6, the tiled
#      bed at 1e8, and the free fall at 3e7 and 1e8;
#   4. prints a table last: particle-steps/s against the memory-bandwidth floor (copy bandwidth /
#      modelled bytes moved per particle-step), and whether 2e9 particle-steps/s at N = 1e7 holds.
# Output in $OUT (default gpu-check-out): gpu.txt, configure.log, build.log, ninja_log.txt, ctest.log,
# sanitize_<test>.log (each failed CUDA test rerun under compute-sanitizer memcheck), bench_<part>.log,
# suite_cuda_<part>.json (one per run) and suite_cuda.json (all runs merged); and, since the device
# tool brings back at most 8 files, all of them in gpu-check.tgz when GPU_CHECK_TAR=1.
#
#   scripts/gpu-check.sh                run everything
#   scripts/gpu-check.sh --table DIR    print the table from DIR's suite_cuda*.json (no GPU needed)
#
# Carry to the machine when you have them: the settled 10,000-sphere beds, settled_bed_<law>_10000.csv,
# from $DEM_BED_CACHE (default build-host/benchmarks; else the suite settles them on the host first,
# about half a minute each), and, if the machine lacks Google Benchmark or doctest, their Debian
# packages (.deb files) in $GPU_DEPS (default .gpu-deps): they are unpacked under /tmp and used.
# Knobs (environment): GPU_CHECK_BUDGET (s, default 465), GPU_CHECK_BUILD_SECONDS, GPU_CHECK_TEST_SECONDS and
# GPU_CHECK_TEST_MAX (ctest's whole run), GPU_CHECK_TEST_TIMEOUT (one test, default 120), GPU_CHECK_TEST_JOBS
# (with MPS, default 6), GPU_CHECK_SANITIZE (failed tests rerun under memcheck, default 3), GPU_CHECK_BENCH=0
# (tests only), GPU_CHECK_TESTS=0 (benchmarks only), GPU_CHECK_PARTS (a regex over the benchmark parts' names:
# copy, n100000, n1000000, bed_10000000, free_fall_10000000, bed_30000000, matrix, bed_100000000,
# free_fall_30000000, free_fall_100000000; default all), GPU_CHECK_TAR=1.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
py=/usr/bin/python3
[ -x "$py" ] || py=python3

# ---- the table (also run alone with --table DIR) -------------------------------------------------
print_table() {
  "$py" - "$1" <<'PY'
import glob, json, os, sys

out = sys.argv[1]

def load(path):
    """A JSON file of Google Benchmark; one cut short by a timeout is closed after its last complete run."""
    text = open(path).read()
    try:
        return json.loads(text)
    except ValueError:
        pass
    end = len(text)
    while True:
        end = text.rfind('}', 0, end)
        if end < 0:
            return {}
        try:
            return json.loads(text[:end + 1] + ']}')
        except ValueError:
            continue

parts = sorted(glob.glob(os.path.join(out, 'suite_cuda_*.json')))
if parts:
    merged = {'context': None, 'benchmarks': []}
    for p in parts:
        d = load(p)
        merged['context'] = merged['context'] or d.get('context')
        merged['benchmarks'] += d.get('benchmarks', [])
    with open(os.path.join(out, 'suite_cuda.json'), 'w') as f:
        json.dump(merged, f, indent=1)
elif os.path.exists(os.path.join(out, 'suite_cuda.json')):
    merged = load(os.path.join(out, 'suite_cuda.json'))
else:
    print('no benchmark results in %s' % out)
    sys.exit(0)

def split(name):
    p = name.split('/')
    while p and (p[-1] in ('real_time', 'manual_time') or ':' in p[-1]):
        p.pop()
    return p

def g(x):
    return '%.3g' % x if isinstance(x, (int, float)) else str(x)

bw = 0.0
for b in merged['benchmarks']:
    if split(b['name'])[0] == 'copy_bandwidth' and not b.get('error_occurred'):
        bw = max(bw, b.get('bytes_per_s', 0.0))

header = ('scenario', 'law', 'N', 'p-steps/s', 'B/p-step', 'copy GB/s', 'floor p-steps/s', 'meas/floor', 'pairs/p', 'steps/rebuild', 'peak B/p')
rows, errors = [], []
target = None
for b in merged['benchmarks']:
    p = split(b['name'])
    if len(p) < 3 or p[0] == 'copy_bandwidth':
        continue
    scen, law, n = p[0], '/'.join(p[2:-1]), p[-1]
    if b.get('error_occurred'):
        errors.append('%s: %s' % ('/'.join(p), b.get('error_message', 'error')))
        continue
    if scen == 'contact_detection':
        rows.append((scen, law, n, g(b.get('particles_per_s', 0)) + ' p/s', '-', '-', '-', '-', g(b.get('listed_pairs_per_particle', '-')), '-', '-'))
        continue
    if scen.startswith('polydisperse_bed'):  # law = <law>/<radius ratio>; levels of the grid in the last column
        rows.append((scen, law, n, g(b.get('ns_per_listed_pair', 0)) + ' ns/pair', '-', '-', '-', '-', g(b.get('listed_pairs_per_particle', '-')),
                     'levels ' + g(b.get('levels', '-')), '-'))
        continue
    rate, moved = b.get('particle_steps_per_s', 0.0), b.get('bytes_moved_per_particle_step', 0.0)
    floor = bw / moved if bw and moved else 0.0
    rows.append((scen, law, n, g(rate), g(moved), '%.0f' % (bw / 1e9) if bw else '-', g(floor) if floor else '-',
                 '%.2f' % (rate / floor) if floor else '-', g(b.get('listed_pairs_per_particle', '-')), g(b.get('steps_per_rebuild', '-')),
                 g(b.get('peak_bytes_per_particle', '-'))))
    if scen == 'tiled_bed' and law == 'hertz_mindlin' and n == '10000000':
        target = rate

order = {'tiled_bed': 0, 'contact_detection': 1, 'free_fall': 2, 'polydisperse_bed': 3, 'polydisperse_bed_one_level': 4}
rows.sort(key=lambda r: (order.get(r[0], 3), r[1] != 'hertz_mindlin', r[1], int(r[2]) if r[2].isdigit() else 0))
rows.insert(0, header)
widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
for k, r in enumerate(rows):
    print('  '.join(c.rjust(w) if i >= 2 else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths))))
    if k == 0:
        print('  '.join('-' * w for w in widths))
for e in errors:
    print('error: ' + e)
print('copy bandwidth (device to device, read + write): %s' % ('%.0f GB/s' % (bw / 1e9) if bw else 'not measured'))
print('floor = copy bandwidth / modelled bytes moved per particle-step (benchmarks/suite.hpp); meas/floor = measured / floor')
if target is None:
    print('target 2e9 particle-steps/s at N = 1e7 (tiled_bed, hertz_mindlin): NOT MEASURED')
else:
    print('target 2e9 particle-steps/s at N = 1e7 (tiled_bed, hertz_mindlin): %s (%.3g)' % ('HOLDS' if target >= 2e9 else 'DOES NOT HOLD', target))
PY
}

if [ "${1:-}" = "--table" ]; then
  print_table "${2:-${OUT:-gpu-check-out}}"
  exit
fi

# ---- the check -----------------------------------------------------------------------------------
budget=${GPU_CHECK_BUDGET:-465}  # seconds for everything, the table included (8 minutes with some slack)
left() { echo $((budget - SECONDS)); }
SECONDS=0
export PATH="$PATH:/usr/local/cuda/bin:/usr/local/nvidia/bin"
out=${OUT:-gpu-check-out}
mkdir -p "$out"
out=$(cd "$out" && pwd)
notes=()
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$out/gpu.txt"

# Carried Debian packages (Google Benchmark, doctest), if any.
deps=${GPU_DEPS:-.gpu-deps}
prefix_args=()
if compgen -G "$deps/*.deb" >/dev/null; then
  for f in "$deps"/*.deb; do dpkg -x "$f" /tmp/dem-gpu-deps; done
  prefix_args=(-DCMAKE_PREFIX_PATH=/tmp/dem-gpu-deps/usr)
  export LD_LIBRARY_PATH="/tmp/dem-gpu-deps/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi

# 1. Configure and build the CUDA targets only (about 40 s of one core for suite_bench_cuda; the tests
#    build side by side: one executable per test source, DEM_TEST_UNITY=OFF, as 16 cores build the
#    25 sources faster than one unity unit that one core compiles).
gen=()
[ ! -f build-gpu/CMakeCache.txt ] && command -v ninja >/dev/null && gen=(-G Ninja)
configure() {
  timeout 120 cmake -S . -B build-gpu "${gen[@]}" "${prefix_args[@]}" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DDEM_BUILD_TESTS=ON -DDEM_TEST_UNITY=OFF -DDEM_BUILD_EXAMPLES=OFF "$@" >>"$out/configure.log" 2>&1
}
bench_opt=ON
[ "${GPU_CHECK_BENCH:-1}" = 0 ] && bench_opt=OFF
if ! configure -DDEM_BUILD_BENCHMARKS=$bench_opt; then
  notes+=("configure with benchmarks failed (Google Benchmark missing?): tests only; see configure.log")
  configure -DDEM_BUILD_BENCHMARKS=OFF || { tail -20 "$out/configure.log"; exit 1; }
fi
grep -q "CUDA targets ON" "$out/configure.log" || { echo "gpu-check: nvcc not found (CUDA targets OFF)"; tail -20 "$out/configure.log"; exit 1; }
targets=$(cmake --build build-gpu --target help 2>/dev/null | grep -oE '[A-Za-z0-9_]+_cuda\b' | sort -u)
[ -n "$targets" ] || { echo "gpu-check: no *_cuda targets in build-gpu"; exit 1; }
t_build=$(( $(left) - 250 ))  # leave time for the tests and the core benchmarks
(( t_build > 300 )) && t_build=300
[ -n "${GPU_CHECK_BUILD_SECONDS:-}" ] && t_build=$GPU_CHECK_BUILD_SECONDS
(( t_build < 60 )) && t_build=60
b0=$SECONDS
# shellcheck disable=SC2086
timeout "$t_build" cmake --build build-gpu -j"$(nproc)" --target $targets >"$out/build.log" 2>&1 ||
  { notes+=("build failed or timed out (${t_build}s): see build.log"); grep -m20 -E "error|Error" "$out/build.log"; }
echo "build: $((SECONDS - b0)) s ($(wc -w <<<"$targets") targets)"

# 2. The CUDA tests.
#    Several test processes share the one GPU; without MPS the driver time-slices their contexts, and
#    tests that take many small steps (launch- and sync-bound) slowed down more than tenfold at -j4
#    (2026-12-04). So the MPS daemon is started when it works (checked on one short test), else -j1.
t_test=${GPU_CHECK_TEST_SECONDS:-$(( $(left) - 150 ))}
(( t_test > ${GPU_CHECK_TEST_MAX:-180} )) && t_test=${GPU_CHECK_TEST_MAX:-180}
(( t_test < 30 )) && t_test=30
jobs=1
if [ "${GPU_CHECK_TESTS:-1}" != 0 ] && command -v nvidia-cuda-mps-control >/dev/null; then
  export CUDA_MPS_PIPE_DIRECTORY=/tmp/dem-mps CUDA_MPS_LOG_DIRECTORY=/tmp/dem-mps-log
  mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
  if nvidia-cuda-mps-control -d && (cd build-gpu && timeout 60 ctest -R '^cuda\.broad\.' >/dev/null 2>&1); then
    jobs=${GPU_CHECK_TEST_JOBS:-6}
    echo "MPS daemon on: ctest -j$jobs"
  else
    echo quit | nvidia-cuda-mps-control 2>/dev/null
    unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
    notes+=("MPS unavailable: tests ran one at a time")
  fi
fi
if [ "${GPU_CHECK_TESTS:-1}" = 0 ]; then
  notes+=("tests not run (GPU_CHECK_TESTS=0)")
  : >"$out/ctest.log"
else
  (cd build-gpu && timeout "$t_test" ctest -L cuda --output-on-failure --timeout "${GPU_CHECK_TEST_TIMEOUT:-120}" -j"$jobs") 2>&1 | tee "$out/ctest.log" | tail -25
fi
# The MPS daemon only serves the tests: memcheck and the benchmarks run in plain contexts.
if [ -n "${CUDA_MPS_PIPE_DIRECTORY:-}" ]; then
  echo quit | nvidia-cuda-mps-control 2>/dev/null
  sleep 1
  unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
fi
# Each test's time, also when the time limit cut ctest short (its summary is then missing).
grep -E "Test +#[0-9]+: " "$out/ctest.log" | sed -E 's/^ *[0-9]+\/[0-9]+ //' >"$out/test_times.txt"
cp build-gpu/.ninja_log "$out/ninja_log.txt" 2>/dev/null  # per-target build times

# 2b. Each failed CUDA test (at most GPU_CHECK_SANITIZE of them) once more under compute-sanitizer's
#     memcheck, which names the kernel and the out-of-bounds or misaligned access (slow: bounded).
sanitize=${GPU_CHECK_SANITIZE:-3}
#     Read from each test's result line, which is there also when the time limit cut ctest short
#     before its summary (so it was in the first run); timed-out tests are left out (memcheck is slower).
mapfile -t failed < <(sed -En 's/.*Test +#[0-9]+: (cuda\.[A-Za-z0-9_.]+) .*\*\*\*(Failed|Exception|SEGFAULT|Subprocess|Child).*/\1/p' "$out/ctest.log")
for t in "${failed[@]:0:$sanitize}"; do
  l=$(( $(left) - 200 ))
  (( l > 75 )) && l=75
  (( l < 20 )) && { notes+=("not sanitized: $t (out of time)"); continue; }
  echo "compute-sanitizer memcheck: $t (${l}s at most)"
  (cd build-gpu && timeout -k 5 "$l" compute-sanitizer --tool memcheck --target-processes all --print-limit 30 \
     ctest -R "^${t//./\\.}\$" --output-on-failure) >"$out/sanitize_$t.log" 2>&1
  grep -m8 -E "=========.*(Invalid|Error|error|Program hit)" "$out/sanitize_$t.log"
done

# 3. The benchmark suite.
bench=build-gpu/benchmarks/suite_bench_cuda
cache=${DEM_BED_CACHE:-build-host/benchmarks}
mkdir -p build-gpu/benchmarks
cp -n "$cache"/settled_bed_*_10000.csv build-gpu/benchmarks/ 2>/dev/null
declare -A wall
run_part() {  # name, time limit (s), min time (s), filter
  local name=$1 limit=$2 min_time=$3 filter=$4 t0=$SECONDS rc
  [[ $name =~ ^(${GPU_CHECK_PARTS:-.*})$ ]] || return 1
  local l=$(( $(left) - 10 ))
  (( limit > l )) && limit=$l
  if (( limit < 15 )); then notes+=("skipped $name: out of time"); return 1; fi
  (cd build-gpu/benchmarks && timeout -k 5 "$limit" ./suite_bench_cuda --benchmark_filter="$filter" --benchmark_min_time="$min_time" \
     --benchmark_out="$out/suite_cuda_$name.json" --benchmark_out_format=json) >"$out/bench_$name.log" 2>&1
  rc=$?
  wall[$name]=$((SECONDS - t0))
  echo "bench $name: ${wall[$name]} s, exit $rc"
  (( rc == 0 )) || notes+=("bench $name exited $rc (124: timed out after ${limit}s); see bench_$name.log")
}
# Device bytes per particle a run took (the larger of device_bytes_per_particle, from cudaMemGetInfo after
# the set-up, and peak_bytes_per_particle, the memory meter's high-water mark; else a default).
bytes_per_particle() {  # json, default
  "$py" - "$1" "$2" <<'PY'
import json, sys
try:
    v = max(max(b.get('device_bytes_per_particle', 0), b.get('peak_bytes_per_particle', 0)) for b in json.load(open(sys.argv[1]))['benchmarks'])
except Exception:
    v = 0
print(int(v or float(sys.argv[2])))
PY
}
free_bytes() { echo $(( $(nvidia-smi --query-gpu=memory.free --format=csv,noheader,nounits | head -1) * 1048576 )); }
# A large run: only with the memory (measured per particle at 1e7, +15 % and 2 GiB) and the time
# (the 1e7 run's wall time scaled by N, +25 % and 20 s) it needs.
run_big() {  # name, N, scenario filter, the 1e7 part it scales from, default bytes per particle
  local name=$1 n=$2 scen=$3 base=$4 bpp need est
  [ -n "${wall[$base]:-}" ] || { notes+=("skipped $name: no $base run to size it"); return 1; }
  bpp=$(bytes_per_particle "$out/suite_cuda_$base.json" "$5")
  need=$(( bpp * n * 115 / 100 + 2147483648 ))
  if (( need > $(free_bytes) )); then notes+=("skipped $name: needs ~$((need >> 30)) GiB of GPU memory, $(( $(free_bytes) >> 30 )) GiB free"); return 1; fi
  est=$(( ${wall[$base]} * n * 125 / 100 / 10000000 + 20 ))
  if (( est > $(left) - 15 )); then notes+=("skipped $name: needs ~${est}s, $(left)s left"); return 1; fi
  run_part "$name" "$(( est * 2 ))" 0.2 "^($scen)/cuda/hertz_mindlin/$n/"
}
if [ "${GPU_CHECK_BENCH:-1}" = 0 ]; then
  notes+=("benchmarks not run (GPU_CHECK_BENCH=0)")
elif [ -x "$bench" ]; then
  run_part copy 40 0.2 '^copy_bandwidth/'
  # With each, the same bed and free fall with the host reading back after every step (host_reads).
  for n in 100000 1000000; do run_part "n$n" 150 0.3 "^(tiled_bed|contact_detection|free_fall)/cuda/hertz_mindlin/(host_reads/)?$n/"; done
  run_part bed_10000000 200 0.5 '^(tiled_bed|contact_detection)/cuda/hertz_mindlin/10000000/'  # after 3000 resettle steps
  run_part free_fall_10000000 90 0.5 '^free_fall/cuda/hertz_mindlin/10000000/'
  run_big bed_30000000 30000000 'tiled_bed|contact_detection' bed_10000000 1500
  if (( $(left) > 100 )); then run_part matrix 120 0.3 '^tiled_bed/cuda/[a-z_]+/[a-z]+/[a-z0-9]+/1000000/'; else notes+=("skipped matrix: out of time"); fi
  # Wide size distributions: detection per listed pair at radius ratios 1, 3, 10, levels and one grid.
  if (( $(left) > 80 )); then run_part poly 90 0.3 '^polydisperse_bed(_one_level)?/cuda/hertz_mindlin/[0-9]+/1000000/'; else notes+=("skipped poly: out of time"); fi
  run_big bed_100000000 100000000 'tiled_bed|contact_detection' bed_10000000 1500
  run_big free_fall_30000000 30000000 free_fall free_fall_10000000 400
  run_big free_fall_100000000 100000000 free_fall free_fall_10000000 400
else
  notes+=("no $bench: benchmarks not run")
fi

# 4. The table, last.
echo
echo "== GPU check: $(head -1 "$out/gpu.txt"), $SECONDS s"
grep -E "tests passed|tests failed" "$out/ctest.log" || echo "ctest: no summary (see ctest.log)"
for n in "${notes[@]}"; do echo "note: $n"; done
print_table "$out"
if [ "${GPU_CHECK_TAR:-0}" = 1 ]; then
  tar czf /tmp/gpu-check.tgz -C "$out" . && mv /tmp/gpu-check.tgz "$out/"
fi
