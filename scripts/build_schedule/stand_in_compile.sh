#!/usr/bin/env bash
# Stand-in compiler launcher: sleeps the time time_compile.sh logged for the object (divided by
# $DEM_STAND_IN_SCALE, default 20; 1 s for objects not in the log), writes a real object file (a weak
# main, so that every link succeeds) and its depfile, and logs "<start> <end> <seconds> <object>" to
# $DEM_STAND_IN_LOG. GNU make then schedules the build as it would the real one, in a minute.
times=${DEM_COMPILE_LOG:-/tmp/dem-compile-times.txt}
scale=${DEM_STAND_IN_SCALE:-20}
out="" dep=""
args=("$@")
for ((i = 0; i < ${#args[@]}; ++i)); do
  case "${args[$i]}" in
    -o) out=${args[$((i + 1))]} ;;
    -MF) dep=${args[$((i + 1))]} ;;
  esac
done
t=$(grep -F " $out" "$times" | head -n 1 | cut -d' ' -f1)
[[ -z "$t" ]] && t=1
weak=${TMPDIR:-/tmp}/dem-stand-in-weak.o
[[ -f "$weak" ]] || echo '__attribute__((weak)) int main() { return 0; }' | cc -x c -fPIC -c - -o "$weak"
s=$(date +%s.%N)
sleep "$(echo "$t / $scale" | bc -l)"
mkdir -p "$(dirname "$out")"
cp "$weak" "$out"
[[ -n "$dep" ]] && echo "$out: " >"$dep"
echo "$s $(date +%s.%N) $t $out" >>"${DEM_STAND_IN_LOG:-/tmp/dem-stand-in-schedule.txt}"
exit 0
