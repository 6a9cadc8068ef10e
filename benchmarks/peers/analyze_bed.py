#!/usr/bin/env python3
"""Common post-processing for the settled-bed benchmark (same metrics for every code).

Input: a CSV with header "x,y,z,r[,cn]" or a LIGGGHTS text dump
("ITEM: ATOMS id x y z radius c_cn"; the last snapshot is used).

Prints one line:
  bed_height=<m> packing_fraction=<-> contacts_per_particle=<-|nan> n=<N>
  bed_height       = mean(z + r) over the 100 highest particle centres
  packing_fraction = sum(4/3 pi r^3 of centres inside x,y in [4 mm, L-4 mm],
                     z in [4 mm, h_bed - 4 mm]) / volume of that box
  contacts_per_particle = mean particle-particle contacts (from the code, if given)
Options: --L box side (default: max(x)+r rounded to the 2.2 mm lattice cell count
         is not assumed; pass it), --write-csv PATH to convert a dump to x,y,z,r CSV.
"""
import argparse
import math
import sys

import numpy as np

MARGIN = 4.0e-3


def read_any(path):
    with open(path) as f:
        first = f.readline()
    if first.startswith("ITEM:"):
        lines = open(path).read().splitlines()
        starts = [i for i, s in enumerate(lines) if s.startswith("ITEM: ATOMS")]
        i0 = starts[-1]
        cols = lines[i0].split()[2:]
        n = int(lines[[i for i, s in enumerate(lines) if s.startswith("ITEM: NUMBER OF ATOMS")][-1] + 1])
        data = np.loadtxt(lines[i0 + 1:i0 + 1 + n], ndmin=2)
        c = {name: data[:, k] for k, name in enumerate(cols)}
        x, y, z = c["x"], c["y"], c["z"]
        r = c.get("radius")
        cn = c.get("c_cn")
    else:
        data = np.genfromtxt(path, delimiter=",", names=True)
        x, y, z, r = data["x"], data["y"], data["z"], data["r"]
        cn = data["cn"] if "cn" in data.dtype.names else None
    return np.asarray(x), np.asarray(y), np.asarray(z), np.asarray(r), (None if cn is None else np.asarray(cn))


def metrics(x, y, z, r, L):
    top = np.argsort(z + r)[-100:]
    h = float(np.mean(z[top] + r[top]))
    lo, hi = MARGIN, L - MARGIN
    zlo, zhi = MARGIN, h - MARGIN
    inside = (x >= lo) & (x <= hi) & (y >= lo) & (y <= hi) & (z >= zlo) & (z <= zhi)
    vol = (hi - lo) ** 2 * (zhi - zlo)
    phi = float(np.sum(4.0 / 3.0 * math.pi * r[inside] ** 3) / vol) if vol > 0 else float("nan")
    return h, phi


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("path")
    ap.add_argument("--L", type=float, required=True, help="box side in x and y [m]")
    ap.add_argument("--write-csv", help="also write the positions as x,y,z,r CSV")
    a = ap.parse_args()
    x, y, z, r, cn = read_any(a.path)
    h, phi = metrics(x, y, z, r, a.L)
    if a.write_csv:
        with open(a.write_csv, "w") as f:
            f.write("x,y,z,r\n")
            for k in range(len(x)):
                f.write(f"{x[k]:.9e},{y[k]:.9e},{z[k]:.9e},{r[k]:.9e}\n")
    cps = float(np.mean(cn)) if cn is not None else float("nan")
    print(f"bed_height={h:.6g} packing_fraction={phi:.6g} contacts_per_particle={cps:.6g} n={len(x)}")


if __name__ == "__main__":
    sys.exit(main())
