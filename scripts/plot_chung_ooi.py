#!/usr/bin/python3
"""Plot Chung & Ooi's oblique-impact tests 4-8 (tests/force/test_impact.cpp) for docs/validation.md.

usage:
  rm -f /tmp/co.csv
  DEM_CHUNG_OOI_CSV=/tmp/co.csv build/tests/dem_tests_host -sf="*/force/test_impact.cpp" -tc='oblique*'
  scripts/plot_chung_ooi.py /tmp/co.csv docs/validation

The CSV has a row per simulated impact: test, law, swept value (incidence in degrees, tangential
speed in m/s or spin in rad/s), e, psi = initial slip / (3.5 mu J_n / m*), J_t / (mu J_n), the
integrated reference's J_t / (mu J_n) (elastic runs only, else nan), A's spin change.
Writes OUT_DIR/chung_ooi_impulse.png (every test, normalised) and OUT_DIR/chung_ooi_test4.png.
"""
import csv
import math
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

LAWS = {"hertz_mindlin": ("total form (default)", "o", "C0"), "hertz_mindlin_incremental": ("incremental form", "s", "C1")}


def main(path, out):
    rows = []
    with open(path, newline="") as f:
        for r in csv.reader(f):
            rows.append({"test": r[0], "law": r[1], "x": float(r[2]), "e": float(r[3]), "psi": float(r[4]), "jt": float(r[5]),
                         "ref": float(r[6]), "dw": float(r[7])})
    os.makedirs(out, exist_ok=True)

    # 1. Every test, normalised: |J_t| / (mu J_n) against |psi|; rigid-body theory min(psi, 1).
    fig, ax = plt.subplots(figsize=(6.2, 4.2))
    xs = [10 ** (k / 100 - 3) for k in range(0, 401)]
    ax.plot(xs, [min(x, 1.0) for x in xs], "k-", lw=1, label="rigid-body theory (stick, then gross sliding)")
    for law, (label, marker, colour) in LAWS.items():
        pts = [r for r in rows if r["law"] == law]
        ax.plot([abs(r["psi"]) for r in pts], [abs(r["jt"]) for r in pts], marker, mfc="none", color=colour, ms=5, label=label + ", simulated")
        ref = [r for r in pts if not math.isnan(r["ref"])]
        ax.plot([abs(r["psi"]) for r in ref], [abs(r["ref"]) for r in ref], "x", color=colour, ms=6, label=label + ", integrated reference (e = 1)")
    ax.set_xscale("log")
    ax.set_xlim(0.01, 10)
    ax.set_xlabel("initial slip / (3.5 mu J_n / m*)")
    ax.set_ylabel("|J_t| / (mu J_n)")
    ax.set_title("Chung & Ooi tests 4-8: tangential impulse")
    ax.legend(fontsize=7, loc="upper left")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "chung_ooi_impulse.png"), dpi=110)
    plt.close(fig)

    # 2. Test 4: tangential restitution e_t = v_t1 / v_t0 = 1 + J_t / (3.5 psi mu J_n) against incidence.
    fig, ax = plt.subplots(figsize=(6.2, 4.2))
    t4 = [r for r in rows if r["test"] == "4" and r["e"] < 1]
    if t4:
        mu, e, v = 0.092, t4[0]["e"], 3.9
        angles = [a / 2 for a in range(2, 180)]
        theory = []
        for a in angles:
            th = math.radians(a)
            psi = math.tan(th) / (3.5 * mu * (1 + e))
            theory.append(1 - 1 / (3.5 * psi) if psi >= 1 else 5 / 7)
        ax.plot(angles, theory, "k-", lw=1, label="rigid-body theory")
        for law, (label, marker, colour) in LAWS.items():
            pts = sorted((r for r in t4 if r["law"] == law), key=lambda r: r["x"])
            ax.plot([r["x"] for r in pts], [1 + r["jt"] / (3.5 * r["psi"]) for r in pts], marker + "-", mfc="none", color=colour, ms=5, lw=0.8,
                    label=label)
    ax.set_xlabel("incidence (degrees from the normal)")
    ax.set_ylabel("tangential restitution v_t1 / v_t0")
    ax.set_title("Chung & Ooi test 4: alumina sphere on a rigid plane, 3.9 m/s")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "chung_ooi_test4.png"), dpi=110)
    plt.close(fig)
    print("wrote %s and %s" % (os.path.join(out, "chung_ooi_impulse.png"), os.path.join(out, "chung_ooi_test4.png")))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
