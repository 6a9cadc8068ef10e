#!/usr/bin/env bash
# One-shot GPU check for a lent H200/H100 (see docs/performance.md): builds the CUDA tests and
# examples for sm_90, runs every CUDA test, runs the gravity packing on the GPU at several sizes,
# and prints a table last. Meant to finish well inside 8 minutes.
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/cuda/bin"
out=${OUT:-gpu-check-out}
mkdir -p "$out"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$out/gpu.txt"
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DDEM_BUILD_BENCHMARKS=OFF >"$out/configure.log" 2>&1 || { tail -20 "$out/configure.log"; exit 1; }
cmake --build build-gpu -j"$(nproc)" >"$out/build.log" 2>&1 || { grep -m20 -E "error" "$out/build.log"; exit 1; }
(cd build-gpu && ctest -L cuda --output-on-failure --timeout 300) 2>&1 | tee "$out/ctest.log" | tail -25
declare -a rows
for n in 100000 1000000 10000000; do
  t=$([ "$n" -ge 10000000 ] && echo 0.002 || echo 0.01)
  line=$(timeout 240 build-gpu/examples/gravity_packing --backend cuda --n "$n" --time "$t" 2>&1 | tee "$out/packing_$n.log" | grep '^summary:')
  rows+=("$n ${line:-failed (see $out/packing_$n.log)}")
done
echo
echo "== GPU check: $(head -1 "$out/gpu.txt")"
grep -E "tests passed|tests failed" "$out/ctest.log" || true
printf '%s\n' "${rows[@]}"
