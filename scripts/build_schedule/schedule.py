#!/usr/bin/env python3
"""Reads stand_in_compile.sh's log: the build's length and when fewer than two compiles ran.

    python3 scripts/build_schedule/schedule.py [LOG] [SCALE]
"""
import sys

log = sys.argv[1] if len(sys.argv) > 1 else "/tmp/dem-stand-in-schedule.txt"
scale = float(sys.argv[2]) if len(sys.argv) > 2 else 20.0
rows = [line.split() for line in open(log)]
t0 = min(float(r[0]) for r in rows)
jobs = sorted((scale * (float(s) - t0), scale * (float(e) - t0), float(t), o) for s, e, t, o in rows)
end = max(j[1] for j in jobs)
for s, e, t, o in jobs:
    if t >= 40 or e > end - 60:
        print(f"{s:7.0f} {e:7.0f} {t:6.0f}  {o}")
step, busy, single = 1.0, [], 0.0
t = 0.0
while t < end:
    n = sum(1 for s, e, _, _ in jobs if s <= t < e)
    single += step if n < 2 else 0.0
    t += step
cpu = sum(j[2] for j in jobs)
print(f"build: {end:.0f} s at {scale:g}x the stand-in's time; {cpu:.0f} s of compiles, {cpu / 2:.0f} s on two cores; "
      f"{single:.0f} s with fewer than two compiles running")
