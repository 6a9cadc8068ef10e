#!/usr/bin/env bash
# Installs the Debian packages dem's build, tests and examples need, when they are missing.
set -euo pipefail
need=()
for pkg in cmake g++ make doctest-dev libeigen3-dev libbenchmark-dev python3-vtk9 python3-meshio python3-numpy python3-dev pybind11-dev python3-pytest python3-matplotlib clang-14 libfuzzer-14-dev libomp-14-dev; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || need+=("$pkg")
done
if ((${#need[@]})); then
  echo "deps: installing ${need[*]}"
  SUDO=""
  [[ $(id -u) -ne 0 ]] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi
