# -*- encoding=utf-8 -*-
"""Rigid-sphere oedometric compression, reference run in Debian's YADE.

Setup copied from YADE's examples/DeformEngine/OedometricDeform.py
(reference paper [Haustein2017]) with the particle-deformation engine
(DeformControl) removed, so the spheres stay rigid (plain ViscEl contacts).
Made deterministic: fixed makeCloud seed, checks on iteration counts instead
of the wall-clock (realPeriod=1 s) checks of the original.

Run from the repository root:
    yade -n -x -j1 scripts/yade/oedometer.py
Optional environment variables:
    OEDO_OUT      output folder (default docs/data/yade)
    OEDO_SEED     makeCloud seed (default 1)
    OEDO_REC      recording period in iterations (default 100)
    OEDO_TIMING   1 = enable YADE's per-engine timing and print timing.stats() (slows the run a little)
Outputs (in OEDO_OUT):
    oedometer_rigid.csv             compression / unloading curve
    oedometer_settled_spheres.csv   settled packing (x,y,z,r) when the plate is inserted
    oedometer_run_info.json         all parameters and summary figures
"""
import json
import math
import os
import sys
import time

import yade.config
from yade import pack, geom, timing
from yade.utils import wall, unbalancedForce

OUT = os.environ.get("OEDO_OUT", os.path.join("docs", "data", "yade"))
SEED = int(os.environ.get("OEDO_SEED", "1"))
REC_PERIOD = int(os.environ.get("OEDO_REC", "100"))
os.makedirs(OUT, exist_ok=True)

# ---------------- parameters (as in the original example) ----------------
fr = 0.3            # friction angle [rad]
rho = 2000          # defined in the original but NOT passed to the material -> density stays 1000
tc = 0.002          # contact duration [s]
en = 0.7            # normal restitution
et = 0.7            # tangential restitution
Diameter = 16.5e-3  # sphere DIAMETER (the original comments "# R" but uses rMean=Diameter/2)
radius = Diameter / 2.0
NUM = 300
DT = 1.0e-5
PLATE_SPEED = 0.01  # m/s, downwards, reversed on unloading
F_UNLOAD = 5e2      # N, |F_z| on plate that triggers unloading
SETTLE_MIN_ITER = 20000
SETTLE_UNBALANCED = 0.2
SETTLE_CHECK_PERIOD = 1000   # original: every 1 s of wall-clock time
MAX_SIM_TIME = 20.0          # safety cap [s of simulated time]

box_half = 4.0 * Diameter           # facetBox((0,0,0),(4D,4D,4D)) -> cube [-4D,4D]^3, top open
z_bottom = -box_half
box_area = (2.0 * box_half) ** 2
cloud_min = (-4.0 * Diameter, -4.0 * Diameter, -2.5 * Diameter)
cloud_max = (3.0 * Diameter, 3.0 * Diameter, 15.0 * Diameter)

O.dt = DT
mat1 = O.materials.append(ViscElMat(frictionAngle=fr, tc=tc, en=en, et=et))

sp = pack.SpherePack()
n_made = sp.makeCloud(cloud_min, cloud_max, rMean=radius, num=NUM, seed=SEED)
sp.toSimulation(material=mat1)
sphere_ids = [b.id for b in O.bodies if isinstance(b.shape, Sphere)]
O.bodies.append(geom.facetBox((0, 0, 0), (box_half, box_half, box_half), wallMask=63 - 32, material=mat1))

O.engines = [
    ForceResetter(),
    InsertionSortCollider([Bo1_Sphere_Aabb(aabbEnlargeFactor=1.05), Bo1_Wall_Aabb(), Bo1_Facet_Aabb()]),
    InteractionLoop(
        [Ig2_Sphere_Sphere_ScGeom(interactionDetectionFactor=1.05), Ig2_Facet_Sphere_ScGeom(), Ig2_Wall_Sphere_ScGeom()],
        [Ip2_ViscElMat_ViscElMat_ViscElPhys()],
        [Law2_ScGeom_ViscElPhys_Basic()],
    ),
    NewtonIntegrator(damping=0.1, gravity=[0, 0, -9.81]),
    PyRunner(command="checkForce()", iterPeriod=SETTLE_CHECK_PERIOD, label="fCheck"),
    # DeformControl(label="DefControl")   # removed: rigid spheres (also absent from Debian's build)
]

TIMING = os.environ.get("OEDO_TIMING", "0") == "1"
O.timingEnabled = TIMING

sphere_vol_total = sum(4.0 / 3.0 * math.pi * O.bodies[i].shape.radius ** 3 for i in sphere_ids)
state = {"phase": "settling"}
rows = []
t_wall0 = time.time()


def plate_force():
    return O.forces.f(plate.id)[2]


def record(tag=""):
    z = plate.state.pos[2]
    h = z - z_bottom
    fz = plate_force()
    rows.append((O.time - state["t0"], O.time, O.iter, z, h, (state["H0"] - h) / state["H0"], fz,
                 1.0 - sphere_vol_total / (box_area * h), unbalancedForce(), state["phase"], tag))


def contact_stats():
    """Contacts with real overlap, split by partner type; overlaps in m."""
    out = {"sphere_sphere": [], "sphere_facet": [], "sphere_plate": []}
    phys = {}
    pid = plate.id if "plate" in globals() else -1
    for I in O.interactions:
        if not I.isReal or I.geom.penetrationDepth <= 0:
            continue
        s1, s2 = O.bodies[I.id1].shape, O.bodies[I.id2].shape
        if isinstance(s1, Sphere) and isinstance(s2, Sphere):
            k = "sphere_sphere"
        elif pid in (I.id1, I.id2):
            k = "sphere_plate"
        else:
            k = "sphere_facet"
        out[k].append(I.geom.penetrationDepth)
        if k not in phys:
            p = I.phys
            phys[k] = {"kn": p.kn, "cn": p.cn, "ks": p.ks, "cs": p.cs, "tanPhi": p.tangensOfFrictionAngle}
    res = {}
    for k, v in out.items():
        res[k] = {"n": len(v), "mean_overlap_m": (sum(v) / len(v)) if v else 0.0, "max_overlap_m": max(v) if v else 0.0}
    res["coordination_number"] = 2.0 * len(out["sphere_sphere"]) / len(sphere_ids) + (len(out["sphere_facet"]) + len(out["sphere_plate"])) / len(sphere_ids)
    return res, phys


def checkForce():
    if O.iter < SETTLE_MIN_ITER:
        return
    ub = unbalancedForce()
    if ub > SETTLE_UNBALANCED:
        return
    global plate
    tops = [O.bodies[i].state.pos[2] + O.bodies[i].shape.radius for i in sphere_ids]
    highSphere = max(O.bodies[i].state.pos[2] for i in sphere_ids)
    state.update(settle_iter=O.iter, settle_time=O.time, settle_unbalanced=ub,
                 settle_wall_s=time.time() - t_wall0,
                 settled_top=max(tops), settled_height=max(tops) - z_bottom,
                 settle_kinetic=sum(0.5 * O.bodies[i].state.mass * O.bodies[i].state.vel.squaredNorm() for i in sphere_ids))
    with open(os.path.join(OUT, "oedometer_settled_spheres.csv"), "w") as f:
        f.write("x,y,z,r\n")
        for i in sphere_ids:
            b = O.bodies[i]
            f.write("%.10e,%.10e,%.10e,%.10e\n" % (b.state.pos[0], b.state.pos[1], b.state.pos[2], b.shape.radius))
    # plate at the top of the highest sphere (as in the original: highSphere + 0.5*Diameter)
    O.bodies.append(wall(highSphere + 0.5 * Diameter, axis=2, sense=-1, material=mat1))
    plate = O.bodies[-1]
    state["settle_contacts"], state["phys"] = contact_stats()
    plate.state.vel = (0, 0, -PLATE_SPEED)
    state.update(phase="loading", t0=O.time, iter0=O.iter, z0=plate.state.pos[2],
                 H0=plate.state.pos[2] - z_bottom, wall_load0=time.time(), peak=0.0)
    fCheck.command = "unloadPlate()"
    fCheck.iterPeriod = 1
    O.engines = O.engines + [PyRunner(command="record()", iterPeriod=REC_PERIOD, label="recorder")]
    record("plate_inserted")


def unloadPlate():
    fz = abs(plate_force())
    if fz > state["peak"]:
        state.update(peak=fz, peak_row=None, peak_z=plate.state.pos[2], peak_t=O.time - state["t0"])
    if fz > 0 and "contact_z" not in state:
        state.update(contact_z=plate.state.pos[2], contact_t=O.time - state["t0"])
    if fz > F_UNLOAD:
        record("unload_trigger")
        state["trigger_row"] = rows[-1]
        state["trigger_contacts"], phys = contact_stats()
        state["phys"].update(phys)
        plate.state.vel *= -1
        state["phase"] = "unloading"
        fCheck.command = "stopUnloading()"


def stopUnloading():
    fz = abs(plate_force())
    if fz > state["peak"]:
        state.update(peak=fz, peak_z=plate.state.pos[2], peak_t=O.time - state["t0"])
    if fz == 0:
        record("end_force_zero")
        state["end_reason"] = "force_zero"
        O.pause()
    elif O.time > MAX_SIM_TIME:
        record("end_time_cap")
        state["end_reason"] = "time_cap"
        O.pause()


O.run()
O.wait()
t_end = time.time()
if TIMING:
    timing.stats()

loading_steps = O.iter - state["iter0"]
loading_wall = t_end - state["wall_load0"]
tr = state["trigger_row"]
H0 = state["H0"]
info = {
    "yade_version": yade.config.version,
    "threads": O.numThreads,
    "seed": SEED,
    "spheres_requested": NUM, "spheres_made": n_made, "sphere_radius_m": radius, "sphere_diameter_m": Diameter,
    "material": {"type": "ViscElMat", "frictionAngle_rad": fr, "tc_s": tc, "en": en, "et": et,
                 "density_kg_m3": O.materials[mat1].density, "rho_in_script_unused": rho},
    "sphere_mass_kg": O.bodies[sphere_ids[0]].state.mass,
    "dt_s": DT, "newton_damping": 0.1, "gravity": [0, 0, -9.81],
    "box": {"x": [-box_half, box_half], "y": [-box_half, box_half], "z": [-box_half, box_half], "top_open": True},
    "cloud": {"min": list(cloud_min), "max": list(cloud_max)},
    "settling": {k: state[k] for k in ("settle_iter", "settle_time", "settle_unbalanced", "settled_top",
                                        "settled_height", "settle_kinetic", "settle_wall_s", "settle_contacts")},
    "contact_parameters_from_yade": state["phys"],
    "contacts_at_unload_trigger": state["trigger_contacts"],
    "plate": {"z0_m": state["z0"], "H0_m": H0, "speed_m_s": PLATE_SPEED,
              "first_contact_z_m": state.get("contact_z"), "first_contact_t_s": state.get("contact_t")},
    "unload_trigger": {"time_s": tr[0], "plate_z_m": tr[3], "strain": tr[5], "force_z_N": tr[6], "porosity": tr[7]},
    "peak_force_N": state["peak"], "peak_time_s": state["peak_t"], "peak_plate_z_m": state["peak_z"],
    "peak_strain": (state["z0"] - state["peak_z"]) / H0,
    "end_reason": state.get("end_reason"), "end_time_s": O.time - state["t0"], "total_iter": O.iter,
    "wall_s_total": t_end - t_wall0,
    "steps_per_s_settling": state["settle_iter"] / state["settle_wall_s"],
    "steps_per_s_compression": loading_steps / loading_wall,
    "compression_steps": loading_steps,
}
with open(os.path.join(OUT, "oedometer_run_info.json"), "w") as f:
    json.dump(info, f, indent=1)

with open(os.path.join(OUT, "oedometer_rigid.csv"), "w") as f:
    f.write("# YADE %s rigid-sphere oedometer (from examples/DeformEngine/OedometricDeform.py, DeformControl removed)\n" % info["yade_version"])
    f.write("# %d spheres r=%.6g m, ViscElMat tc=%g en=%g et=%g frictionAngle=%g rad density=%g, dt=%g, seed=%d\n"
            % (n_made, radius, tc, en, et, fr, info["material"]["density_kg_m3"], DT, SEED))
    f.write("# box [-%.6g,%.6g]^2 x z>=%.6g (area %.6g m^2); plate speed %g m/s; unload when |F_z|>%g N; stop when F_z==0\n"
            % (box_half, box_half, z_bottom, box_area, PLATE_SPEED, F_UNLOAD))
    f.write("# time_s: simulated time since the plate was inserted (at sim time %.6f s, iter %d)\n" % (state["t0"], state["iter0"]))
    f.write("# strain = (z0 - plate_z)/H0 with z0 = plate z at insertion = top of highest sphere = %.9g m, H0 = z0 - z_bottom = %.9g m (start of compression, not first contact)\n" % (state["z0"], H0))
    f.write("# first contact (F_z>0) at plate_z=%s m, time_s=%s\n" % (state.get("contact_z"), state.get("contact_t")))
    f.write("# porosity = 1 - sum(sphere volumes, overlaps ignored)/(box area*(plate_z - z_bottom)); force_z_N = force of spheres on plate (+ = upward)\n")
    f.write("# rows every %d iterations plus tagged events\n" % REC_PERIOD)
    f.write("time_s,plate_z_m,strain,force_z_N,porosity,sim_time_s,iter,height_m,unbalanced,phase,event\n")
    for r in rows:
        f.write("%.6f,%.10e,%.8e,%.8e,%.8e,%.6f,%d,%.10e,%.6e,%s,%s\n" % (r[0], r[3], r[5], r[6], r[7], r[1], r[2], r[4], r[8], r[9], r[10]))

print("OEDO_SUMMARY", json.dumps(info))
sys.stdout.flush()
