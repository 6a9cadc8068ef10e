#!/usr/bin/env python3
"""Gravity packing from Python: the main example (examples/02_gravity_packing) as a script.

Spheres fall into a box and settle; the script steps in chunks of 100 steps, reports progress, and
at the end the packing fraction, coordination number and stress of the bed's inside, and the rate
of each phase (fall, landing, dense bed) as the C++ example does, so that the two can be compared
(benchmarks/python_vs_cpp.sh).

    build/python/dem-python examples/python/gravity_packing.py [--n N] [--time T] [--out DIR] [--frames K]
"""

import argparse
import math
import sys
import time

import dem
import numpy as np

DENSE_CONTACTS_PER_PARTICLE = 3.0
SETTLED_ENERGY_FRACTION = 1e-4
CHUNK = 100


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=20000, help="spheres (default 20000)")
    ap.add_argument("--time", type=float, default=0.5, help="simulated seconds (default 0.5)")
    ap.add_argument("--out", default="", help="directory for ParaView frames and the final CSV")
    ap.add_argument("--frames", type=int, default=10)
    ap.add_argument("--backend", default="host", choices=["host", "cuda"])
    o = ap.parse_args()
    if o.n < 1 or not (o.time > 0):
        ap.error("--n must be >= 1 and --time > 0")

    # Glass beads of 1 mm radius (+-10 %) into a square box sized so that the bed is about as high
    # as it is wide; they start on a jittered lattice above the floor (as the C++ example).
    r, spacing = 1e-3, 2.5e-3
    bed_volume = o.n * 4.0 / 3.0 * math.pi * r ** 3 / 0.6
    width = max(0.012, bed_volume ** (1.0 / 3.0))
    per_layer = math.floor((width - 2 * 1.2e-3) / spacing) + 1
    fill_height = (o.n / (per_layer * per_layer) + 2) * spacing
    domain = ((0, 0, 0), (width, width, fill_height + 0.01))
    sim = dem.Simulator(domain=domain, dt=1e-5, shape="sphere", law="hertz_mindlin", precision="single", backend=o.backend)
    glass = sim.add_material(dem.Material("glass beads", density=2500, youngs_modulus=1e7, poisson_ratio=0.3, restitution=0.5,
                                          friction=0.5, rolling_friction=0.05))
    sim.add_box(domain, glass)
    beads = dem.sample.cubic_lattice(((0, 0, 0), (width, width, domain[1][2])), radius=r, radius_spread=0.1, spacing=spacing,
                                     jitter=1e-4, max_count=o.n)
    if len(beads) != o.n:
        sys.exit(f"gravity_packing.py: could only place {len(beads)} particles")
    sim.add_particles(beads, glass)
    print(f"gravity_packing.py: {o.n} spheres, box {width:.4f} x {width:.4f} x {domain[1][2]:.4f} m, dt {sim.dt:.1e} s, "
          f"backend {sim.backend_name}, stable dt {sim.stable_time_step():.3e} s")

    total = math.ceil(o.time / sim.dt - 1e-9)
    series = dem.io.VtkSeries(o.out) if o.out else None
    frames = sorted({round(total * k / max(1, o.frames - 1)) for k in range(o.frames)}) if o.out else []
    progress = dem.Progress(total)
    phase_seconds, phase_steps = [0.0, 0.0, 0.0], [0, 0, 0]
    contacts_per_particle, energy = 0.0, sim.kinetic_energy()
    peak_energy = energy
    done, compute, next_frame = 0, 0.0, 0
    if series and frames and frames[0] == 0:
        sim.write_frame(series)
        next_frame = 1
    while done < total:
        stop = min(total, done + CHUNK)
        if next_frame < len(frames):
            stop = min(stop, frames[next_frame])
        phase = 0 if contacts_per_particle < DENSE_CONTACTS_PER_PARTICLE else 1 if energy > SETTLED_ENERGY_FRACTION * peak_energy else 2
        t0 = time.perf_counter()
        sim.step(stop - done)
        seconds = time.perf_counter() - t0
        compute += seconds
        phase_seconds[phase] += seconds
        phase_steps[phase] += stop - done
        done = stop
        # The phase of the next chunk, from the state now (two reductions per chunk, as the C++ example).
        contacts_per_particle = 2.0 * sim.num_touching_pairs() / max(1, sim.num_active)
        energy = sim.kinetic_energy()
        peak_energy = max(peak_energy, energy)
        if next_frame < len(frames) and frames[next_frame] == done:
            sim.write_frame(series)
            next_frame += 1
        progress(sim, done)

    if o.out:
        sim.write_csv(o.out + "/particles_final.csv")
    # The bed's height: the mean top of its highest 100 spheres (5 % if fewer than 2000), as
    # dem::analysis::bed_height; then its inside, 4 radii from the walls and from the rough top.
    active = sim.active()
    tops = np.sort((sim.positions()[:, 2] + sim.radii())[active])[::-1]
    h = float(tops[:max(1, min(100, len(tops) // 20))].mean()) if len(tops) else 0.0
    m = 4 * r
    phi = 0.0
    if h > 3 * m:
        inside = dem.inspect.Box((m, m, m), (width - m, width - m, h - m))
        phi = sim.inspect_particles(inside).packing_fraction
        c = sim.inspect_contacts(inside)
        print(f"bed: packing_fraction={phi:.4f} coordination={c.coordination:.3f} mean_pressure={c.mean_pressure:.4e} Pa "
              f"vertical_stress={c.stress[2, 2]:.4e} Pa (Love-Weber, compression negative)")

    def rate(steps, seconds):
        return o.n * steps / seconds if seconds > 0 else 0.0

    print(f"phases: fall {phase_steps[0]} steps at {rate(phase_steps[0], phase_seconds[0]):.4e} particle-steps/s, "
          f"landing {phase_steps[1]} steps at {rate(phase_steps[1], phase_seconds[1]):.4e}, "
          f"dense {phase_steps[2]} steps at {rate(phase_steps[2], phase_seconds[2]):.4e}")
    print(f"summary: n={o.n} steps={done} seconds={compute:.3f} particle_steps_per_s={rate(done, compute):.4e} "
          f"dense_steps={phase_steps[2]} dense_particle_steps_per_s={rate(phase_steps[2], phase_seconds[2]):.4e} "
          f"packing_fraction={phi:.4f} kinetic_energy={sim.kinetic_energy():.4e}")
    if sim.num_lost:
        print(f"note: {sim.num_lost} particles left the domain")


if __name__ == "__main__":
    try:
        main()
    except (ValueError, RuntimeError) as e:
        sys.exit(f"gravity_packing.py: {e}")
