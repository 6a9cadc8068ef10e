#!/usr/bin/env bash
# Compiler launcher that runs the compiler and appends "<seconds> <object>" to $DEM_COMPILE_LOG.
#   cmake ... -DCMAKE_CXX_COMPILER_LAUNCHER=$PWD/scripts/build_schedule/time_compile.sh \
#             -DCMAKE_CUDA_COMPILER_LAUNCHER=$PWD/scripts/build_schedule/time_compile.sh
s=$(date +%s.%N)
"$@"
rc=$?
e=$(date +%s.%N)
out=""
args=("$@")
for ((i = 0; i < ${#args[@]}; ++i)); do [[ "${args[$i]}" == "-o" ]] && out=${args[$((i + 1))]}; done
echo "$(echo "$e - $s" | bc) $out" >>"${DEM_COMPILE_LOG:-/tmp/dem-compile-times.txt}"
exit $rc
