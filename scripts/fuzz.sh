#!/usr/bin/env bash
# Fuzzes every reader with libFuzzer (clang-14, ASan + UBSan; Debian's clang-14 and
# libfuzzer-14-dev): builds build-fuzz/ (or FUZZ_BUILD, below), then runs each target for SECONDS, starting from its seed
# corpus in tests/fuzz/corpus/<target> and the regressions in tests/fuzz/regressions/<target> (new
# inputs go to build-fuzz/corpus/<target>, or FUZZ_BUILD's; the repository's corpus is not touched). Prints a table
# of executions per target; exits 1 if any target crashed, leaked, hung (10 s per input) or ran out
# of memory (2 GiB), with the input saved as build-fuzz/artifacts/<target>-*: copy it into
# tests/fuzz/regressions/<target>/ once fixed, so that the ordinary tests replay it.
#
#   scripts/fuzz.sh [SECONDS]     default 60 s per target; TARGETS="obj stl" to pick
#   RUNS=1000000 scripts/fuzz.sh  each target until it has executed RUNS inputs (no time limit;
#                                 for the documented runs of at least 1e6 executions per reader)
#   FUZZ_JOBS=1 scripts/fuzz.sh   one target at a time (default: one per core)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
targets=${TARGETS:-"obj stl particle_csv clump_csv checkpoint"}
command -v clang++-14 >/dev/null || { echo "fuzz.sh: clang++-14 not found (apt-get install clang-14 libfuzzer-14-dev)" >&2; exit 1; }
# FUZZ_BUILD=DIR: an existing clang build tree configured with DEM_BUILD_FUZZERS=ON (scripts/test.sh
# passes its sanitizer tree, where the fuzzers were built with the tests); the targets are brought up
# to date there. Otherwise build-fuzz/ is configured here (RelWithDebInfo).
build=${FUZZ_BUILD:-build-fuzz}
if [[ -z "${FUZZ_BUILD:-}" ]]; then
  cmake -S . -B build-fuzz -DCMAKE_CXX_COMPILER=clang++-14 -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDEM_BUILD_FUZZERS=ON \
        -DDEM_BUILD_TESTS=OFF -DDEM_BUILD_EXAMPLES=OFF -DDEM_BUILD_BENCHMARKS=OFF -DDEM_ENABLE_CUDA=OFF -DDEM_NATIVE=ON >/dev/null
elif ! grep -q '^DEM_BUILD_FUZZERS:BOOL=ON' "$build/CMakeCache.txt" 2>/dev/null; then
  echo "fuzz.sh: FUZZ_BUILD=$build is not a build tree configured with -DDEM_BUILD_FUZZERS=ON" >&2
  exit 1
fi
cmake --build "$build" -j"$(nproc)" --target $(for t in $targets; do printf 'fuzz_%s ' "$t"; done) >/dev/null
mkdir -p "$build"/artifacts
# One target per core at a time (each libFuzzer process is single-threaded); the results are
# printed in the targets' order once all have run.
fuzz_one() {
  local t=$1 work=$build/corpus/$1 log=$build/fuzz_$1.log rc
  mkdir -p "$work"
  cp -n tests/fuzz/corpus/"$t"/* "$work"/ 2>/dev/null || true
  local dirs=("$work")
  [[ -d tests/fuzz/regressions/$t ]] && dirs+=(tests/fuzz/regressions/"$t")
  local limit
  if [[ -n "${RUNS:-}" ]]; then limit=(-runs="$RUNS"); else limit=(-max_total_time="$seconds"); fi
  set +e
  "$build"/tests/fuzz/fuzz_"$t" "${limit[@]}" -timeout=10 -rss_limit_mb=2048 -max_len=8192 -print_final_stats=1 \
      -artifact_prefix="$build"/artifacts/"$t"- "${dirs[@]}" >"$log" 2>&1
  rc=$?
  set -e
  echo "$rc" >"$build"/fuzz_$t.rc
}
parallel=${FUZZ_JOBS:-$(nproc)}
for t in $targets; do
  while (($(jobs -rp | wc -l) >= parallel)); do wait -n || true; done
  if [[ -n "${RUNS:-}" ]]; then echo "== fuzz_$t for $RUNS executions"; else echo "== fuzz_$t for ${seconds} s"; fi
  rm -f "$build"/fuzz_$t.rc
  fuzz_one "$t" &
done
wait
failed=0
rows=()
for t in $targets; do
  log=$build/fuzz_$t.log
  rc=$(cat "$build"/fuzz_$t.rc 2>/dev/null || echo "?")
  runs=$(sed -n 's/^stat::number_of_executed_units: *\([0-9]*\)/\1/p' "$log" | tail -n 1)
  speed=$(sed -n 's/^stat::average_exec_per_sec: *\([0-9]*\)/\1/p' "$log" | tail -n 1)
  if [[ "$rc" != 0 ]]; then
    failed=1
    echo "fuzz_$t FAILED (exit $rc); the end of $log:"
    tail -n 40 "$log"
    rows+=("$t ${runs:-?} ${speed:-?} FAILED")
  else
    rows+=("$t ${runs:-?} ${speed:-?} ok")
  fi
done
printf '\n%-14s %14s %10s  %s\n' target executions exec/s result
for r in "${rows[@]}"; do
  read -r t n s res <<<"$r"
  printf '%-14s %14s %10s  %s\n' "$t" "$n" "$s" "$res"
done
exit $failed
