#!/usr/bin/env bash
# Downloads the Debian packages the GPU check needs beyond the GPU machine's image (Google
# Benchmark, doctest, Eigen headers) into .gpu-deps/ (git-ignored). Run it here, then name
# .gpu-deps in the device tool's `carry`: scripts/gpu-check.sh unpacks them under /tmp there.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .gpu-deps
cd .gpu-deps
apt-get download libbenchmark-dev libbenchmark1debian doctest-dev libeigen3-dev 2>&1 | grep -v "unsandboxed" || true
ls -la
