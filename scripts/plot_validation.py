#!/usr/bin/python3
"""Plot the validation runs' CSV output (scripts/validate.sh) as PNGs for docs/validation.md.

usage: scripts/plot_validation.py RESULTS_DIR OUT_DIR

RESULTS_DIR holds silo/ (silo_discharge --csv) and penetration/ (projectile_penetration --csv).
Writes OUT_DIR/silo_beverloo.png, silo_discharge.png, penetration_uehara.png, repose_profile.png
(each only when its input exists) and prints a markdown table of the fitted figures.
"""
import csv
import glob
import math
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def silo(results, out):
    summary = os.path.join(results, "silo", "silo_discharge.csv")
    if not os.path.exists(summary):
        return []
    r = rows(summary)
    d = float(r[0]["d_m"])
    rho_b = float(r[0]["rho_b"])
    C, k = float(r[0]["C"]), float(r[0]["k"])
    n_free = float(r[0]["exponent_free"])
    n_k = float(r[0]["exponent_k"]) if "exponent_k" in r[0] else float("nan")
    D0 = [float(x["orifice_m"]) for x in r]
    W = [float(x["rate_kg_s"]) for x in r]
    fig, ax = plt.subplots(figsize=(5.5, 4))
    ax.plot([x / d for x in D0], W, "o", label="simulated")
    xs = [min(D0) * 0.9 + i * (max(D0) * 1.05 - min(D0) * 0.9) / 100 for i in range(101)]
    ax.plot([x / d for x in xs], [C * rho_b * math.sqrt(9.81) * max(x - k * d, 0) ** 2.5 for x in xs], "-",
            label=f"Beverloo fit: C = {C:.3f}, k = {k:.2f}")
    ax.set_xlabel("orifice diameter D0 / d")
    ax.set_ylabel("mass flow rate W (kg/s)")
    ax.set_title(f"Silo discharge (exponent free: {n_k:.2f}; with k free too: {n_free:.2f})")
    ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(out, "silo_beverloo.png"), dpi=120)
    plt.close(fig)
    fig, ax = plt.subplots(figsize=(5.5, 4))
    for path in sorted(glob.glob(os.path.join(results, "silo", "silo_discharge_D0_*.csv")),
                       key=lambda p: float(p.rsplit("_", 1)[1][:-4])):
        t = rows(path)
        ax.plot([float(x["time_s"]) for x in t], [float(x["removed_kg"]) for x in t],
                label="D0 = " + path.rsplit("_", 1)[1][:-4] + " d")
    ax.set_xlabel("time since the orifice opened (s)")
    ax.set_ylabel("mass discharged (kg)")
    ax.set_title("Discharged mass against time")
    ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(out, "silo_discharge.png"), dpi=120)
    plt.close(fig)
    spread = max(abs(float(x["rate_first_half"]) / float(x["rate_second_half"]) - 1) for x in r)
    return [("silo: Beverloo C", f"{C:.3f}", "0.5 – 0.7"), ("silo: Beverloo k", f"{k:.2f}", "1.2 – 3.0"),
            ("silo: exponent left free (k from the 5/2 fit)", f"{n_k:.2f}", "2.5 ± 0.3"),
            ("silo: exponent and k both left free", f"{n_free:.2f} (k = {float(r[0]['k_free']):.2f})", "2.5 ± 0.3"),
            ("silo: rate change between the halves of the window", f"{100 * spread:.1f} %", "< 10 %")]


def penetration(results, out):
    path = os.path.join(results, "penetration", "penetration.csv")
    if not os.path.exists(path):
        return []
    r = rows(path)
    X = [float(x["X_m"]) for x in r]
    depth = [float(x["depth_m"]) for x in r]
    slope, expected, r2 = float(r[0]["slope"]), float(r[0]["expected_slope"]), float(r[0]["r2"])
    mu_r = float(r[0]["mu_r"])
    fig, ax = plt.subplots(figsize=(5.5, 4))
    for rho in sorted({x["rho_ball_g_cm3"] for x in r}, key=float):
        ax.plot([float(x["X_m"]) for x in r if x["rho_ball_g_cm3"] == rho],
                [1e3 * float(x["depth_m"]) for x in r if x["rho_ball_g_cm3"] == rho], "o", label=f"{rho} g/cm³")
    xs = [0, max(X) * 1.05]
    ax.plot(xs, [1e3 * slope * x for x in xs], "-", label=f"fit: {slope:.3f} X (R² = {r2:.3f})")
    ax.plot(xs, [1e3 * expected * x for x in xs], "--", label=f"Uehara: 0.14/μr X = {expected:.3f} X")
    ax.set_xlabel("X = (ρ_ball/ρ_bed)^½ D^⅔ H^⅓ (m)")
    ax.set_ylabel("penetration depth (mm)")
    ax.set_title(f"Projectile penetration (μr = {mu_r:.3f})")
    ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(out, "penetration_uehara.png"), dpi=120)
    plt.close(fig)
    prof = os.path.join(results, "penetration", "repose_profile.csv")
    if os.path.exists(prof):
        p = rows(prof)
        fig, ax = plt.subplots(figsize=(5.5, 3))
        ax.plot([1e3 * float(x["x_m"]) for x in p], [1e3 * float(x["top_m"]) for x in p], "-o", ms=3)
        ax.set_xlabel("x (mm)")
        ax.set_ylabel("heap surface (mm)")
        ax.set_title(f"Heap after the column collapse: {math.degrees(math.atan(mu_r)):.1f}°")
        ax.set_aspect("equal")
        fig.tight_layout()
        fig.savefig(os.path.join(out, "repose_profile.png"), dpi=120)
        plt.close(fig)
    return [("penetration: angle of repose", f"{math.degrees(math.atan(mu_r)):.1f}° (μr = {mu_r:.3f})", "measured"),
            ("penetration: slope of d against X", f"{slope:.4f}", f"0.14/μr = {expected:.4f} ± 25 %"),
            ("penetration: R² of the line", f"{r2:.4f}", "≥ 0.97")]


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    results, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    table = silo(results, out) + penetration(results, out)
    print("| quantity | measured | expected |")
    print("| --- | --- | --- |")
    for q, m, e in table:
        print(f"| {q} | {m} | {e} |")


if __name__ == "__main__":
    main()
