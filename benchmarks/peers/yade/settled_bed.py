# YADE script for the settled-bed peer benchmark.  Run headless, e.g.
#   yade -j 2 -n -x settled_bed.py <bed.csv> <L> <settle_steps> <relax_steps> <timed_steps> <out_prefix> [repeats]
#
# bed.csv      x,y,z,r CSV (make_bed.py's initial lattice, or a bed settled by LIGGGHTS)
# L            box side in x and y [m]
# settle_steps steps of phase 1 (30000 = 0.3 s from the lattice); 0 when the CSV is already settled
# relax_steps  untimed steps run before the timed phase (re-establishes contacts/history when
#              the bed is loaded from another code with zero velocity); 0 otherwise
# timed_steps  steps of the timed phase (2000)
# out_prefix   writes <out_prefix>_settled.csv (x,y,z,r,cn; state right before the timed phase)
# repeats      run the timed phase this many times back to back (default 1) and report the fastest
#              (guards against noise from other load on the machine); all times are printed too
#
# Prints one line "YADE_RESULT key=value ..." with the timed-phase wall-clock seconds.
import math
import sys
import time

import numpy as np

from yade import O, utils
from yade.wrapper import (FrictMat, ForceResetter, InsertionSortCollider, Bo1_Sphere_Aabb,
                          Bo1_Wall_Aabb, InteractionLoop, Ig2_Sphere_Sphere_ScGeom,
                          Ig2_Wall_Sphere_ScGeom, Ip2_FrictMat_FrictMat_MindlinPhys,
                          Law2_ScGeom_MindlinPhys_Mindlin, NewtonIntegrator, Sphere)

args = sys.argv[1:]
if len(args) not in (6, 7):
    raise SystemExit("usage: yade -j T -n -x settled_bed.py bed.csv L settle_steps relax_steps timed_steps out_prefix [repeats]")
csv, L = args[0], float(args[1])
settle_steps, relax_steps, timed_steps = int(args[2]), int(args[3]), int(args[4])
out_prefix = args[5]
repeats = int(args[6]) if len(args) > 6 else 1

bed = np.loadtxt(csv, delimiter=",", skiprows=1, ndmin=2)
n = bed.shape[0]

# E = 1e7 Pa, nu = 0.3, rho = 2500 kg/m^3, friction coefficient 0.5 (= tan(frictionAngle))
mat = O.materials.append(FrictMat(young=1.0e7, poisson=0.3, density=2500.0,
                                  frictionAngle=math.atan(0.5), label="grain"))

# Box walls first (ids 0..4): frictional planes of the same material.
walls = [utils.wall(0.0, axis=0, material=mat), utils.wall(L, axis=0, material=mat),
         utils.wall(0.0, axis=1, material=mat), utils.wall(L, axis=1, material=mat),
         utils.wall(0.0, axis=2, material=mat)]
O.bodies.append(walls)
nwalls = len(walls)
ids = O.bodies.append([utils.sphere((float(p[0]), float(p[1]), float(p[2])), float(p[3]), material=mat)
                       for p in bed])

O.engines = [
    ForceResetter(),
    InsertionSortCollider([Bo1_Sphere_Aabb(), Bo1_Wall_Aabb()]),
    InteractionLoop(
        [Ig2_Sphere_Sphere_ScGeom(), Ig2_Wall_Sphere_ScGeom()],
        # en: normal restitution -> Tsuji/Antypov non-linear viscous damping (same formula as LIGGGHTS hertz)
        [Ip2_FrictMat_FrictMat_MindlinPhys(en=0.5, es=0.5)],
        [Law2_ScGeom_MindlinPhys_Mindlin()],
    ),
    NewtonIntegrator(gravity=(0.0, 0.0, -9.81), damping=0.0),  # no numerical (Cundall) damping
]
O.dt = 1.0e-5


def contacts_per_sphere():
    cn = np.zeros(len(O.bodies), dtype=np.int64)
    for i in O.interactions:
        if i.isReal and i.id1 >= nwalls and i.id2 >= nwalls:
            cn[i.id1] += 1
            cn[i.id2] += 1
    return cn[nwalls:]


t0 = time.time()
if settle_steps > 0:
    O.run(settle_steps, True)
t_settle = time.time() - t0
t0 = time.time()
if relax_steps > 0:
    O.run(relax_steps, True)
t_relax = time.time() - t0

cn = contacts_per_sphere()
with open(out_prefix + "_settled.csv", "w") as f:
    f.write("x,y,z,r,cn\n")
    for k, bid in enumerate(ids):
        b = O.bodies[bid]
        p = b.state.pos
        f.write(f"{p[0]:.9e},{p[1]:.9e},{p[2]:.9e},{b.shape.radius:.9e},{cn[k]}\n")

all_seconds = []
for _ in range(repeats):
    t0 = time.time()
    O.run(timed_steps, True)
    all_seconds.append(time.time() - t0)
seconds = min(all_seconds)

print(f"YADE_RESULT n={n} threads={O.numThreads} settle_steps={settle_steps} settle_s={t_settle:.3f} "
      f"relax_steps={relax_steps} relax_s={t_relax:.3f} timed_steps={timed_steps} seconds={seconds:.6f} "
      f"all_seconds={','.join(f'{t:.3f}' for t in all_seconds)} "
      f"particle_steps_per_s={n * timed_steps / seconds:.6g} contacts_per_particle={cn.mean():.6g} "
      f"ke={utils.kineticEnergy():.6g}", flush=True)
