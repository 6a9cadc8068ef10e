#!/usr/bin/env python3
"""A rotating drum from Python (examples/07_rotating_drum as a script), with a plot.

Glass beads in a horizontal cylinder with end caps, turned at several Froude numbers
Fr = omega^2 R / g; at each the script reports the dynamic angle of repose of the bed's free
surface, the torque the drum needs and its power, and with --plot draws the bed's cross-section at
each Froude number and the angle against Fr (matplotlib, written to a PNG file).

    build/python/dem-python examples/python/rotating_drum.py [--n 2000] [--froude 0.03,0.1,0.3] [--revs 0.25] [--plot drum.png]
"""

import argparse
import math
import sys

import numpy as np

import dem

R, L, r, g = 0.03, 0.02, 1e-3, 9.81


def surface_angle(x):
    """Slope of the free surface in the cross-section (x, z): the highest bead in each of 16 bins
    across the bed, a line through the middle 60 % of them (as the C++ example)."""
    lo, hi = x[:, 0].min(), x[:, 0].max()
    bins = 16
    k = np.clip(((x[:, 0] - lo) / (hi - lo) * bins).astype(int), 0, bins - 1)
    top = np.full(bins, -1e9)
    np.maximum.at(top, k, x[:, 2])
    sel = np.arange(bins // 5, bins - bins // 5)
    centres = lo + (sel + 0.5) * (hi - lo) / bins
    slope = np.polyfit(centres, top[sel], 1)[0]
    return math.degrees(math.atan(abs(slope)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--froude", default="0.03,0.1,0.3")
    ap.add_argument("--revs", type=float, default=0.25)
    ap.add_argument("--plot", default="", help="PNG file for the cross-sections and the angle against Fr")
    o = ap.parse_args()
    froude = [float(f) for f in o.froude.split(",")]
    if not (1 <= o.n <= 20000) or not all(0 < f <= 1 for f in froude) or not (o.revs > 0):
        ap.error("--n in [1, 20000], Froude numbers in (0, 1], --revs > 0")

    domain = ((-R - 0.002, -L / 2 - 0.002, -R - 0.002), (R + 0.002, L / 2 + 0.002, R + 0.002))
    sim = dem.Simulator(domain=domain, law="hertz_mindlin_epsd")
    beads = sim.add_material(dem.Material("glass beads", density=2500, youngs_modulus=5e7, poisson_ratio=0.25, restitution=0.5,
                                          friction=0.5, rolling_friction=0.1))
    steel = sim.add_material(dem.Material("steel", density=7800, youngs_modulus=2e11, poisson_ratio=0.3, restitution=0.5, friction=0.5,
                                          rolling_friction=0.1, rigid=True))
    drum = sim.add_cylinder((0, -L / 2, 0), (0, 1, 0), R, steel, length=L, cap_base=True, cap_top=True, name="drum")
    # Beads on a lattice in the lower part of the drum, inside the circle.
    grid = dem.sample.cubic_lattice(((-R, -L / 2, -R), (R, L / 2, R)), radius=r, jitter=1e-4)
    x = grid.positions
    inside = np.flatnonzero(np.hypot(x[:, 0], x[:, 2]) < R - 1.5 * r)[: o.n]
    if len(inside) < o.n:
        sys.exit(f"rotating_drum.py: the drum holds at most {len(inside)} beads on this lattice")
    sim.add_particles(x[inside], grid.radii[inside], beads)
    sim.dt = min(1e-5, 0.25 * sim.stable_time_step())
    print(f"rotating_drum.py: {o.n} beads (r = {r * 1e3:.1f} mm) in a drum of radius {R * 1e3:.0f} mm, length {L * 1e3:.0f} mm, dt {sim.dt:.2e} s")

    dem.run(sim, 0.3)  # the bed settles in the resting drum
    results, sections = [], []
    for fr in froude:
        omega = math.sqrt(fr * g / R)
        rev_time = 2 * math.pi / omega
        sim.set_motion(drum, dem.boundary.ConstantVelocity(omega=(0, omega, 0)))
        dem.run(sim, 0.6 * o.revs * rev_time)  # three fifths of the time to reach the steady flow
        samples = 20
        angle = torque = power = 0.0

        def sample(s):
            nonlocal angle, torque, power
            angle += surface_angle(s.positions()) / samples
            torque += s.boundary_torque(drum)[1] / samples
            power += s.boundary_power(drum) / samples

        for _ in range(samples):
            dem.run(sim, 0.4 * o.revs * rev_time / samples)
            sample(sim)
        sections.append(sim.positions())
        results.append((fr, omega, angle, torque, power))
        print(f"Fr = {fr:.3g} (omega {omega:.2f} rad/s): dynamic angle of repose {angle:.1f} deg, torque on the drum {torque:.3e} N m, "
              f"power {power:.3e} W")
    print("summary: n=%d %s lost=%d" % (sim.num_particles, " ".join(f"angle_deg_fr{fr:g}={a:.1f}" for fr, _, a, _, _ in results), sim.num_lost))

    if o.plot:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, axes = plt.subplots(1, len(froude) + 1, figsize=(4 * (len(froude) + 1), 4))
        for ax, (fr, *_rest), xs in zip(axes, results, sections):
            ax.add_patch(plt.Circle((0, 0), R * 1e3, fill=False, color="k"))
            ax.scatter(xs[:, 0] * 1e3, xs[:, 2] * 1e3, s=2, c=xs[:, 1], cmap="viridis")
            ax.set_aspect("equal")
            ax.set_xlim(-R * 1e3 * 1.05, R * 1e3 * 1.05)
            ax.set_ylim(-R * 1e3 * 1.05, R * 1e3 * 1.05)
            ax.set_title(f"Fr = {fr:g}")
            ax.set_xlabel("x (mm)")
        axes[0].set_ylabel("z (mm)")
        axes[-1].plot([f for f, *_ in results], [a for _, _, a, _, _ in results], "o-")
        axes[-1].set_xscale("log")
        axes[-1].set_xlabel("Froude number")
        axes[-1].set_ylabel("dynamic angle of repose (deg)")
        fig.tight_layout()
        fig.savefig(o.plot, dpi=100)
        print(f"plot: {o.plot}")


if __name__ == "__main__":
    try:
        main()
    except (ValueError, RuntimeError) as e:
        sys.exit(f"rotating_drum.py: {e}")
