#!/usr/bin/python3
"""Plot the compaction of rigid and deformable spheres (examples/13_deformable_compaction --csv DIR).

usage: scripts/plot_deformation.py PAPER_DIR YADE_SETUP_DIR YADE_CSV OUT_PNG

PAPER_DIR: the paper's case (compaction_rigid.csv and compaction_deformable.csv: time_s, wall_z_m,
strain, force_N, porosity, nominal_porosity). YADE_SETUP_DIR: the same from YADE's example's
packing. YADE_CSV: scripts/yade/oedometer.py's curve (docs/data/yade/oedometer_rigid.csv).
Writes three panels: the paper's case, force and porosity against strain; YADE's example, force
against strain, ours (rigid and deformable) and YADE's (rigid).
"""
import csv
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def rows(path):
    with open(path, newline="") as f:
        lines = [line for line in f if not line.startswith("#")]
    out = []
    for r in csv.DictReader(lines):
        try:
            out.append({k: float(v) for k, v in r.items() if k in ("strain", "force_N", "force_z_N", "porosity", "nominal_porosity")})
        except ValueError:
            continue
    return out


def loading(r, force):
    """The rows up to the peak force (the loading branch)."""
    peak = max(range(len(r)), key=lambda k: r[k][force])
    return r[: peak + 1]


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    paper, yade_setup, yade_csv, out = sys.argv[1:]
    fig, ax = plt.subplots(1, 3, figsize=(15, 4.2))
    for label, style in (("rigid", "-"), ("deformable", "--")):
        r = rows(os.path.join(paper, "compaction_%s.csv" % label))
        ax[0].plot([x["strain"] for x in r], [x["force_N"] for x in r], style, label=label + " spheres")
        ax[1].plot([x["strain"] for x in r], [x["porosity"] for x in r], style, label=label + " spheres")
        r = rows(os.path.join(yade_setup, "compaction_%s.csv" % label))
        ax[2].plot([x["strain"] for x in r], [x["force_N"] for x in r], style, label="dem, " + label)
    y = rows(yade_csv)
    ax[2].plot([x["strain"] for x in y], [x["force_z_N"] for x in y], ":", color="k", label="YADE 2023.02a, rigid")
    ax[0].set_title("paper's case (400 x 10 mm, k_n = 1300 N/m)")
    ax[0].set_xlabel("strain e = (L0 - L) / L0")
    ax[0].set_ylabel("top wall force (N)")
    ax[1].set_title("porosity (rigid: overlaps subtracted)")
    ax[1].set_xlabel("strain e")
    ax[1].set_ylabel("porosity")
    ax[2].set_title("YADE's OedometricDeform.py (300 x 16.5 mm)")
    ax[2].set_xlabel("strain e")
    ax[2].set_ylabel("plate force (N)")
    for a in ax:
        a.legend()
    fig.tight_layout()
    fig.savefig(out, dpi=100)
    print("wrote", out)


if __name__ == "__main__":
    main()
