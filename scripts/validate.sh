#!/usr/bin/env bash
# Builds and runs the long validation cases and plots them (docs/validation.md):
#   silo      silo_discharge: Beverloo's law over 6 orifices (99 minutes on 2 cores, 2026-12-07)
#   penetration  projectile_penetration: Uehara's law, 12 drops, and the angle of repose (about 15 minutes)
#   boundaries   scripts/validate-boundaries.sh (about 3 minutes)
#   energy    scripts/validate-energy.sh (about 40 minutes)
# With no argument it runs silo, penetration and boundaries; name cases to run only those
# ("all" adds energy). The runs' CSV goes to build/validation/<case>/, the plots to docs/validation/.
#   scripts/validate.sh [silo] [penetration] [boundaries] [energy] [all]
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/cuda/bin"
cases=("$@")
((${#cases[@]})) || cases=(silo penetration boundaries)
[[ " ${cases[*]} " == *" all "* ]] && cases=(silo penetration boundaries energy)
scripts/deps.sh
dpkg-query -W -f='${Status}' python3-matplotlib 2>/dev/null | grep -q "install ok installed" || {
  SUDO=""; [[ $(id -u) -ne 0 ]] && SUDO="sudo"
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq python3-matplotlib >/dev/null
}
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DDEM_BUILD_EXAMPLES=ON -DDEM_NATIVE=ON >/dev/null
out=build/validation
mkdir -p "$out"
for c in "${cases[@]}"; do
  start=$(date +%s)
  case "$c" in
    silo)
      cmake --build build -j"$(nproc)" --target silo_discharge >/dev/null
      mkdir -p "$out/silo"
      build/examples/silo_discharge --csv "$out/silo" | tee "$out/silo/log.txt" ;;
    penetration)
      cmake --build build -j"$(nproc)" --target projectile_penetration >/dev/null
      mkdir -p "$out/penetration"
      build/examples/projectile_penetration --csv "$out/penetration" | tee "$out/penetration/log.txt" ;;
    boundaries) scripts/validate-boundaries.sh | tee "$out/boundaries.txt" ;;
    energy) scripts/validate-energy.sh | tee "$out/energy.txt" ;;
    *) echo "validate.sh: unknown case '$c' (silo, penetration, boundaries, energy, all)" >&2; exit 2 ;;
  esac
  echo "== $c: $(( $(date +%s) - start )) s"
done
/usr/bin/python3 scripts/plot_validation.py "$out" docs/validation
