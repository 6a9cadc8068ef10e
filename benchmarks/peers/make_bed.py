#!/usr/bin/env python3
"""Deterministic initial state for the "settled bed" peer benchmark.

N spheres on a jittered cubic lattice:
  nx = ny = ceil(cbrt(N)), nz = ceil(N / (nx*ny)), spacing s = 2 r_max + 0.2 mm, L = nx*s,
  site (i, j, l) -> ((i+0.5)s, (j+0.5)s, (l+0.5)s) + U(-0.1 mm, +0.1 mm) per axis,
  first N sites in (i fastest, then j, then l) order, zero velocity, numpy seed 42.
Radii: r = 1 mm (monodisperse: s = 2.2 mm), or with --ratio q > 1 uniform in [1 mm, q mm]
(numpy seed 43, drawn after the positions, so the jitter is the same as the monodisperse bed's);
the smallest sphere is the monodisperse one, so dt = 1e-5 s stays as stable.

Writes (<stem> = bed_N<N>, or bed_N<N>_r<q> with --ratio q; the stem is printed on stdout)
  <out>/<stem>.csv       plain CSV with header "x,y,z,r" (SI units)
  <out>/<stem>.data      LIGGGHTS data file (atom_style granular: id type diameter density x y z)
  <out>/<stem>.env       shell-sourceable geometry (BED_N, BED_L, BED_ZTOP, BED_ZHI)
"""
import argparse
import math
import os
import sys

import numpy as np

R = 1.0e-3
RHO = 2500.0
JITTER = 0.1e-3
SEED = 42


def make_bed(n, ratio=1.0):
    nx = int(math.ceil(round(n ** (1.0 / 3.0), 9)))
    # guard against floating point in cbrt (e.g. 27 -> 3.0000000004)
    while (nx - 1) ** 3 >= n:
        nx -= 1
    while nx ** 3 < n:
        nx += 1
    ny = nx
    nz = int(math.ceil(n / (nx * ny)))
    radii = np.full(n, R) if ratio == 1.0 else np.random.default_rng(SEED + 1).uniform(R, ratio * R, size=n)
    s = 2 * radii.max() + 2 * JITTER  # 2.2 mm for the monodisperse bed
    L = nx * s
    k = np.arange(n)
    i = k % nx
    j = (k // nx) % ny
    l = k // (nx * ny)
    base = np.stack([(i + 0.5) * s, (j + 0.5) * s, (l + 0.5) * s], axis=1)
    rng = np.random.default_rng(SEED)
    pos = base + rng.uniform(-JITTER, JITTER, size=(n, 3))
    return pos, radii, L, nx, ny, nz


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("N", type=int)
    ap.add_argument("--out", default=".")
    ap.add_argument("--ratio", type=float, default=1.0, help="largest / smallest radius (1: monodisperse)")
    a = ap.parse_args()
    if not a.ratio >= 1.0:
        ap.error(f"--ratio must be >= 1, got {a.ratio}")
    os.makedirs(a.out, exist_ok=True)
    pos, radii, L, nx, ny, nz = make_bed(a.N, a.ratio)
    n = a.N
    ztop = float((pos[:, 2] + radii).max())
    stem = os.path.join(a.out, f"bed_N{n}" if a.ratio == 1.0 else f"bed_N{n}_r{a.ratio:g}")

    with open(stem + ".csv", "w") as f:
        f.write("x,y,z,r\n")
        for p, r in zip(pos, radii):
            f.write(f"{p[0]:.9e},{p[1]:.9e},{p[2]:.9e},{r:.9e}\n")

    # LIGGGHTS data file; box is generous in z (particles only fall).
    zhi = ztop + 5 * radii.max()
    with open(stem + ".data", "w") as f:
        f.write(f"settled-bed benchmark, N={n}, radius ratio {a.ratio:g}, nx=ny={nx}, nz={nz}, L={L}, seed={SEED}\n\n")
        f.write(f"{n} atoms\n1 atom types\n\n")
        f.write(f"0.0 {L:.9e} xlo xhi\n0.0 {L:.9e} ylo yhi\n0.0 {zhi:.9e} zlo zhi\n\n")
        f.write("Atoms\n\n")
        for k, (p, r) in enumerate(zip(pos, radii)):
            f.write(f"{k + 1} 1 {2 * r:.9e} {RHO:.9e} {p[0]:.9e} {p[1]:.9e} {p[2]:.9e}\n")

    with open(stem + ".env", "w") as f:
        f.write(f"BED_N={n}\nBED_L={L:.9e}\nBED_ZTOP={ztop:.9e}\nBED_ZHI={zhi:.9e}\n")
    print(f"N={n} nx=ny={nx} nz={nz} L={L:.6g} ztop={ztop:.6g} -> {stem}.{{csv,data,env}}", file=sys.stderr)
    print(os.path.basename(stem))  # the files' stem, the one line on stdout (run.sh names its outputs by it)


if __name__ == "__main__":
    main()
