#!/usr/bin/env bash
# Side-by-side: the drum scenario (benchmarks/drum.hpp) in dem and in LIGGGHTS 3.8 (Debian package):
# 50,000 spheres in a turning drum whose liner with lifters is one mesh of 20,672 triangles. Both
# start from the same settled charge and mesh (written by peer_drum), spin up for SPIN_STEPS, and
# time TIMED_STEPS; the fastest of REPEATS is kept for each code and thread count.
#   benchmarks/peers/drum.sh        env: N (50000), THREADS ("1 2"), SPIN_STEPS (10000), TIMED_STEPS (2000), REPEATS (3)
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
WORK="${WORK:-$HERE/_work/drum}"
N="${N:-50000}"
THREADS="${THREADS:-1 2}"
SPIN_STEPS="${SPIN_STEPS:-10000}"
TIMED_STEPS="${TIMED_STEPS:-2000}"
REPEATS="${REPEATS:-3}"
log() { printf '[%(%H:%M:%S)T] %s\n' -1 "$*" >&2; }
if ! command -v liggghts >/dev/null; then
  SUDO=""; [[ $EUID -ne 0 ]] && SUDO=sudo
  log "installing liggghts with apt-get"
  $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq liggghts >/dev/null
fi
MPIRUN=(mpirun); [[ $EUID -eq 0 ]] && MPIRUN+=(--allow-run-as-root)
export OMP_NUM_THREADS=1
cmake -S "$REPO" -B "$REPO/build" -DCMAKE_BUILD_TYPE=Release -DDEM_BUILD_BENCHMARKS=ON -DDEM_NATIVE=ON >/dev/null
cmake --build "$REPO/build" -j"$(nproc)" --target peer_drum >/dev/null
mkdir -p "$WORK"
[[ -s "$WORK/charge.csv" ]] || (cd "$WORK" && "$REPO/build/benchmarks/peer_drum" files "$WORK" "$N")
printf 'code\tthreads\tseconds\tparticle_steps_per_s\tnote\n' > "$WORK/results.tsv"
for T in $THREADS; do
  best=""; all=""
  for ((r = 1; r <= REPEATS; r++)); do
    log "LIGGGHTS drum: np $T, repeat $r/$REPEATS"
    (cd "$WORK" && "${MPIRUN[@]}" -np "$T" liggghts -in "$HERE/liggghts/drum.in" -var data charge.data -var stl liner.stl \
        -var spin_steps "$SPIN_STEPS" -var timed_steps "$TIMED_STEPS" -log "liggghts_np${T}_$r.log" > "liggghts_np${T}_$r.out" 2>&1) \
      || { tail -20 "$WORK/liggghts_np${T}_$r.out" >&2; exit 1; }
    t=$(awk -v s="$TIMED_STEPS" '/^Loop time of/ && $9==s {t=$4} END{print t}' "$WORK/liggghts_np${T}_$r.out")
    [[ -n "$t" ]] || { echo "could not parse LIGGGHTS loop time" >&2; exit 1; }
    all+="$t "
    if [[ -z "$best" ]] || awk -v a="$t" -v b="$best" 'BEGIN{exit !(a < b)}'; then best=$t; fi
  done
  printf 'liggghts\t%s\t%s\t%s\tmin of [%s] s\n' "$T" "$best" "$(awk -v n="$N" -v s="$TIMED_STEPS" -v t="$best" 'BEGIN{printf "%.4g", n*s/t}')" "${all% }" >> "$WORK/results.tsv"
  log "dem drum: $T thread(s)"
  out=$(OMP_NUM_THREADS=$T SPIN_STEPS=$SPIN_STEPS TIMED_STEPS=$TIMED_STEPS TIMED_REPEATS=$REPEATS "$REPO/build/benchmarks/peer_drum" run "$WORK" "$N" "$T")
  echo "$out" >&2
  secs=$(sed -n 's/.*seconds=\([^ ]*\).*/\1/p' <<<"$out"); psps=$(sed -n 's/.*particle_steps_per_s=\([^ ]*\).*/\1/p' <<<"$out")
  printf 'dem\t%s\t%s\t%s\t%s\n' "$T" "$secs" "$psps" "$(sed -n 's/.*\(power_W=[^ ]* lost=[^ ]* rebuilds=[^ ]*\).*/\1/p' <<<"$out")" >> "$WORK/results.tsv"
done
column -t -s $'\t' "$WORK/results.tsv"
