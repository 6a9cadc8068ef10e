#!/usr/bin/env bash
# Side-by-side peer benchmark, "settled bed" scenario: LIGGGHTS 3.8 and YADE (Debian packages).
# See README.md.  Usage:  benchmarks/peers/run.sh        (all settings via env vars, below)
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PY="${PY:-/usr/bin/python3}"                    # needs numpy (Debian's python3-numpy)
WORK="${WORK:-$HERE/_work}"                     # generated beds, logs, dumps
NS="${NS:-10000 50000}"                         # particle counts; "N:q" runs N at radius ratio q only
RATIOS="${RATIOS:-1}"                           # largest / smallest radius of each bed (1: monodisperse; make_bed.py --ratio)
THREADS="${THREADS:-1 2}"                       # MPI ranks (LIGGGHTS) / OpenMP threads (YADE)
SETTLE_STEPS="${SETTLE_STEPS:-30000}"           # phase 1: 0.3 s at dt = 1e-5 s
TIMED_STEPS="${TIMED_STEPS:-2000}"              # phase 2: the timed phase
SETTLE_NP="${SETTLE_NP:-2}"                     # LIGGGHTS ranks used for the (untimed) settle
RUN_LIGGGHTS="${RUN_LIGGGHTS:-1}"
RUN_YADE="${RUN_YADE:-1}"
YADE_SELF_SETTLE_NS="${YADE_SELF_SETTLE_NS:-}"  # N values YADE settles itself from the lattice (slow!)
YADE_RELAX_STEPS="${YADE_RELAX_STEPS:-500}"     # untimed YADE steps after loading a settled CSV
YADE_TIMED_STEPS="${YADE_TIMED_STEPS:-$TIMED_STEPS}"  # YADE timed-phase steps (lower it if YADE is too slow)
REPEATS="${REPEATS:-3}"                         # LIGGGHTS timed runs per (N, threads); fastest is kept
YADE_REPEATS="${YADE_REPEATS:-1}"               # timed 2000-step segments per YADE process; fastest kept
REUSE="${REUSE:-0}"                             # 1: reuse settled beds already in $WORK (skip settling)
RUN_OURS="${RUN_OURS:-1}"                       # build and run dem's benchmarks/peer_settled_bed as "ours"
RESULTS="$WORK/results.tsv"

log() { printf '[%(%H:%M:%S)T] %s\n' -1 "$*" >&2; }

# ---------------------------------------------------------------- install peers if missing
need=()
[[ "$RUN_LIGGGHTS" == 1 ]] && ! command -v liggghts >/dev/null && need+=(liggghts)
[[ "$RUN_YADE" == 1 ]] && ! command -v yade >/dev/null && need+=(yade)
if ((${#need[@]})); then
  SUDO=""; [[ $EUID -ne 0 ]] && SUDO=sudo
  log "installing ${need[*]} with apt-get"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi
"$PY" -c 'import numpy' 2>/dev/null || { echo "error: $PY lacks numpy (apt-get install python3-numpy)" >&2; exit 1; }

MPIRUN=(mpirun)
[[ $EUID -eq 0 ]] && MPIRUN+=(--allow-run-as-root)
export OMP_NUM_THREADS=1   # LIGGGHTS is pure MPI; keep stray OpenMP off

mkdir -p "$WORK"
printf 'code\tN\tratio\tthreads\tseconds\tparticle_steps_per_s\tbed_height\tpacking_fraction\tcontacts_per_particle\tnote\n' > "$RESULTS"
addrow() { local IFS=$'\t'; printf '%s\n' "$*" >> "$RESULTS"; }
load1() { cut -d' ' -f1 /proc/loadavg; }
kv() { sed -n "s/.*\b$1=\([^ ]*\).*/\1/p" <<<"$2" | tail -1; }   # kv key "text with key=value"

for bed in $NS; do
N=${bed%%:*}
ratios=$RATIOS; [[ "$bed" == *:* ]] && ratios=${bed#*:}   # "10000:3" in NS: that N at that ratio only
for RATIO in $ratios; do
  stem=$("$PY" "$HERE/make_bed.py" "$N" --ratio "$RATIO" --out "$WORK")   # bed_N<N>, or bed_N<N>_r<ratio>
  # shellcheck disable=SC1090
  source "$WORK/$stem.env"
  L="$BED_L"
  tag="${stem#bed_}"         # N<N>[_r<ratio>]: names the codes' folders and outputs
  settled_csv=""

  # ------------------------------------------------------------ LIGGGHTS
  if [[ "$RUN_LIGGGHTS" == 1 ]]; then
    d="$WORK/liggghts_$tag"; mkdir -p "$d"
    if [[ "$REUSE" == 1 && -s "$d/settled.restart" && -s "$d/settled.dump" ]]; then
      log "LIGGGHTS $tag: REUSE=1, using the existing $d/settled.restart"
    else
      log "LIGGGHTS $tag: settle $SETTLE_STEPS steps on $SETTLE_NP ranks (untimed)"
      (cd "$d" && "${MPIRUN[@]}" -np "$SETTLE_NP" liggghts -in "$HERE/liggghts/settle.in" \
          -var dir "$HERE/liggghts" -var data "$WORK/$stem.data" -var L "$L" \
          -var settle_steps "$SETTLE_STEPS" -var restart settled.restart -var dumpfile settled.dump \
          -log settle.log > settle.out 2>&1) || { tail -20 "$d/settle.out" >&2; exit 1; }
    fi
    m=$("$PY" "$HERE/analyze_bed.py" "$d/settled.dump" --L "$L" --write-csv "$d/settled.csv")
    settled_csv="$d/settled.csv"
    log "LIGGGHTS $tag settled: $m"
    for T in $THREADS; do
      secs=""; all=""; loads=""
      for ((rep = 1; rep <= REPEATS; rep++)); do
        loads+="$(load1) "
        log "LIGGGHTS $tag: timed $TIMED_STEPS steps, mpirun -np $T (repeat $rep/$REPEATS, load $(load1))"
        (cd "$d" && "${MPIRUN[@]}" -np "$T" liggghts -in "$HERE/liggghts/timed.in" \
            -var dir "$HERE/liggghts" -var restart settled.restart -var L "$L" \
            -var timed_steps "$TIMED_STEPS" -log "timed_np${T}_$rep.log" > "timed_np${T}_$rep.out" 2>&1) \
            || { tail -20 "$d/timed_np${T}_$rep.out" >&2; exit 1; }
        # "Loop time of <s> on <P> procs for <steps> steps with <N> atoms" (excludes setup)
        t=$(awk -v s="$TIMED_STEPS" '/^Loop time of/ && $9==s {t=$4} END{print t}' "$d/timed_np${T}_$rep.out")
        [[ -n "$t" ]] || { echo "could not parse LIGGGHTS loop time" >&2; exit 1; }
        all+="$t "
        if [[ -z "$secs" ]] || awk -v a="$t" -v b="$secs" 'BEGIN{exit !(a < b)}'; then secs=$t; fi
      done
      log "LIGGGHTS $tag np=$T loop times: $all(min $secs)"
      psps=$("$PY" -c "print(f'{$N*$TIMED_STEPS/$secs:.4g}')")
      addrow liggghts "$N" "$RATIO" "$T" "$secs" "$psps" "$(kv bed_height "$m")" "$(kv packing_fraction "$m")" \
             "$(kv contacts_per_particle "$m")" "min of $REPEATS runs [${all% }] s; load1 before: ${loads% }; restart of a $SETTLE_NP-rank settle"
    done
  fi

  # ------------------------------------------------------------ YADE
  if [[ "$RUN_YADE" == 1 ]]; then
    d="$WORK/yade_$tag"; mkdir -p "$d"
    self=0; for s in $YADE_SELF_SETTLE_NS; do [[ "$s" == "$N" ]] && self=1; done
    if [[ $self == 0 && -z "$settled_csv" ]]; then
      echo "YADE N=$N needs a LIGGGHTS-settled bed (RUN_LIGGGHTS=1) or YADE_SELF_SETTLE_NS containing $N" >&2; exit 1
    fi
    yade_csv=""
    [[ $self == 1 && "$REUSE" == 1 && -s "$d/settled_self.csv" ]] && yade_csv="$d/settled_self.csv"
    for T in $THREADS; do
      if [[ $self == 1 && -z "$yade_csv" ]]; then
        in_csv="$WORK/$stem.csv"; st=$SETTLE_STEPS; rx=0; note="settled by YADE itself"
      elif [[ $self == 1 ]]; then
        in_csv="$yade_csv"; st=0; rx=$YADE_RELAX_STEPS; note="settled by YADE itself, reloaded + $rx relax steps"
      else
        in_csv="$settled_csv"; st=0; rx=$YADE_RELAX_STEPS; note="bed settled by LIGGGHTS, + $rx relax steps"
      fi
      log "YADE $tag -j $T: settle=$st relax=$rx timed=$YADE_TIMED_STEPS x $YADE_REPEATS"
      l0=$(load1)
      [[ "$YADE_TIMED_STEPS" != "$TIMED_STEPS" ]] && note+="; timed $YADE_TIMED_STEPS steps (not $TIMED_STEPS)"
      yade -j "$T" -n -x "$HERE/yade/settled_bed.py" "$in_csv" "$L" "$st" "$rx" "$YADE_TIMED_STEPS" "$d/j$T" \
          "$YADE_REPEATS" > "$d/j$T.out" 2>&1 || { tail -20 "$d/j$T.out" >&2; exit 1; }
      r=$(grep '^YADE_RESULT' "$d/j$T.out")
      if [[ -z "$yade_csv" ]]; then
        yade_csv="$d/j$T""_settled.csv"
        [[ $self == 1 ]] && cp "$yade_csv" "$d/settled_self.csv"
      fi
      note+="; min of $YADE_REPEATS segments [$(kv all_seconds "$r" | tr , ' ')] s; load1 before: $l0"
      m=$("$PY" "$HERE/analyze_bed.py" "$d/j$T""_settled.csv" --L "$L")
      log "YADE $tag -j $T: $r"
      addrow yade "$N" "$RATIO" "$T" "$(kv seconds "$r")" "$(kv particle_steps_per_s "$r")" "$(kv bed_height "$m")" \
             "$(kv packing_fraction "$m")" "$(kv contacts_per_particle "$m")" "$note"
    done
  fi

  # ------------------------------------------------------------ HOOK: "ours" -------------------
  # If OURS_CMD is set it is run as:  $OURS_CMD <initial-lattice CSV> <N> <threads>
  # and must settle SETTLE_STEPS steps, time TIMED_STEPS steps (TIMED_REPEATS = REPEATS consecutive
  # segments, reporting the fastest, as LIGGGHTS' repeats do) and print a line containing
  #   particle_steps_per_s=... bed_height=... packing_fraction=...
  # The table then gets an "ours" row and an ours/peer column for rows with the same N, threads.
  if [[ -z "${OURS_CMD:-}" && "$RUN_OURS" == 1 ]]; then
    repo="$(cd "$HERE/../.." && pwd)"
    # Every option this build relies on is set here: build/ may have been configured by the
    # README's example command, with benchmarks off.
    cmake -S "$repo" -B "$repo/build" -DCMAKE_BUILD_TYPE=Release -DDEM_BUILD_BENCHMARKS=ON -DDEM_NATIVE=ON >/dev/null
    cmake --build "$repo/build" -j"$(nproc)" --target peer_settled_bed >/dev/null
    OURS_CMD="$repo/build/benchmarks/peer_settled_bed"
  fi
  if [[ -n "${OURS_CMD:-}" ]]; then
    for T in $THREADS; do
      log "ours $tag threads=$T: $OURS_CMD $WORK/$stem.csv $N $T"
      o=$(SETTLE_STEPS=$SETTLE_STEPS TIMED_STEPS=$TIMED_STEPS TIMED_REPEATS=$REPEATS $OURS_CMD "$WORK/$stem.csv" "$N" "$T" \
            "$WORK/ours_${tag}_j$T.csv")
      op=$(kv particle_steps_per_s "$o")
      osec=$("$PY" -c "print(f'{$N*$TIMED_STEPS/$op:.4g}')")
      # Same analysis script as the peers, on the bed ours wrote.
      m=$("$PY" "$HERE/analyze_bed.py" "$WORK/ours_${tag}_j$T.csv" --L "$L")
      addrow ours "$N" "$RATIO" "$T" "$osec" "$op" "$(kv bed_height "$m")" "$(kv packing_fraction "$m")" \
             "$(kv contacts_per_particle "$o")" "settled by ours ($SETTLE_STEPS steps); fastest of $REPEATS consecutive timed segments $(echo "$o" | grep -o 'segments=\[[^]]*\]' | cut -d= -f2) s"
    done
  fi
  # ------------------------------------------------------------ end of hook ---------------------
done
done

# ---------------------------------------------------------------- table
"$PY" - "$RESULTS" "$SETTLE_STEPS" "$TIMED_STEPS" <<'PYEOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
ours = {(r["N"], r["ratio"], r["threads"]): float(r["particle_steps_per_s"]) for r in rows if r["code"] == "ours"}
order = {"ours": 0, "liggghts": 1, "yade": 2}
rows.sort(key=lambda r: (int(r["N"]), float(r["ratio"]), int(r["threads"]), order.get(r["code"], 9)))
hdr = ["code", "N", "radius ratio", "threads", "seconds", "particle_steps_per_s", "bed_height_m", "packing_fraction",
       "contacts/particle"] + (["ours/peer"] if ours else []) + ["note"]
out = []
for r in rows:
    ratio = []
    if ours:
        o = ours.get((r["N"], r["ratio"], r["threads"]))
        ratio = ["" if (o is None or r["code"] == "ours") else f"{o / float(r['particle_steps_per_s']):.3g}"]
    f = lambda k, fmt: (fmt.format(float(r[k])) if r[k] not in ("", "nan") else "-")
    out.append([r["code"], r["N"], r["ratio"], r["threads"], f("seconds", "{:.3f}"), f("particle_steps_per_s", "{:.3e}"),
                f("bed_height", "{:.5f}"), f("packing_fraction", "{:.4f}"), f("contacts_per_particle", "{:.3f}")]
               + ratio + [r["note"]])
print(f"\nsettled bed: settle {sys.argv[2]} steps (untimed), timed {sys.argv[3]} steps, dt = 1e-5 s\n")
print("| " + " | ".join(hdr) + " |")
print("|" + "|".join("---" for _ in hdr) + "|")
for o in out:
    print("| " + " | ".join(o) + " |")
PYEOF
