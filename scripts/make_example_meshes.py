#!/usr/bin/env python3
"""Writes the meshes the examples load (run once; the OBJ files are in the repository):

    examples/08_ball_mill/lifters.obj   8 lifter bars on the inside of a mill shell of radius 0.1 m,
                                        0.06 m long (axis y), each 12 mm high, 12 mm wide
    examples/09_mixer/impeller.obj      a hub and four blades pitched at 45 degrees (axis z),
                                        blade tips at 30 mm, between z = 6 and 18 mm

Every part is a closed box of 12 triangles (outward normals), so the files also show how a
user's CAD export looks to dem.
"""
import math
import os

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")


def box(center, axes, half):
    """A box: centre, three unit axes, half extents -> 8 corners, 12 triangles (outward)."""
    corners = []
    for k in range(8):
        s = [(1 if k & 1 else -1), (1 if k & 2 else -1), (1 if k & 4 else -1)]
        corners.append(tuple(center[i] + sum(s[a] * half[a] * axes[a][i] for a in range(3)) for i in range(3)))
    quads = [(0, 2, 3, 1), (4, 5, 7, 6), (0, 1, 5, 4), (2, 6, 7, 3), (0, 4, 6, 2), (1, 3, 7, 5)]
    tris = []
    for q in quads:
        tris += [(q[0], q[1], q[2]), (q[0], q[2], q[3])]
    return corners, tris


def write_obj(path, parts, comment):
    with open(path, "w") as f:
        f.write(f"# {comment}\n# written by scripts/make_example_meshes.py\n")
        base = 0
        for corners, tris in parts:
            for c in corners:
                f.write("v %.9g %.9g %.9g\n" % c)
            for t in tris:
                f.write("f %d %d %d\n" % (base + t[0] + 1, base + t[1] + 1, base + t[2] + 1))
            base += len(corners)
    print("wrote", os.path.relpath(path, ROOT))


def lifters():
    R, length, h, w, bars = 0.1, 0.06, 0.012, 0.012, 8
    parts = []
    for k in range(bars):
        a = 2 * math.pi * k / bars
        radial = (math.cos(a), 0.0, math.sin(a))
        tangent = (-math.sin(a), 0.0, math.cos(a))
        centre = tuple((R - h / 2 + 0.001) * radial[i] for i in range(3))  # 1 mm into the shell: no gap
        parts.append(box(centre, [radial, (0.0, 1.0, 0.0), tangent], [h / 2 + 0.001, length / 2, w / 2]))
    write_obj(os.path.join(ROOT, "examples/08_ball_mill/lifters.obj"), parts,
              "8 lifter bars, 12 x 12 mm, inside a mill shell of radius 0.1 m and length 0.06 m (axis y, through the origin)")


def impeller():
    parts = [box((0.0, 0.0, 0.012), [(1, 0, 0), (0, 1, 0), (0, 0, 1)], [0.006, 0.006, 0.008])]  # hub
    for k in range(4):
        a = 2 * math.pi * k / 4 + math.pi / 8
        radial = (math.cos(a), math.sin(a), 0.0)
        tangent = (-math.sin(a), math.cos(a), 0.0)
        p = math.pi / 4  # pitch
        up = tuple(math.cos(p) * (0, 0, 1)[i] + math.sin(p) * tangent[i] for i in range(3))
        across = tuple(-math.sin(p) * (0, 0, 1)[i] + math.cos(p) * tangent[i] for i in range(3))
        centre = tuple(0.018 * radial[i] + (0, 0, 0.012)[i] for i in range(3))
        parts.append(box(centre, [radial, up, across], [0.012, 0.006, 0.001]))
    write_obj(os.path.join(ROOT, "examples/09_mixer/impeller.obj"), parts,
              "an impeller: hub and four blades pitched at 45 degrees, tips at 30 mm, axis z, centred at z = 12 mm")


if __name__ == "__main__":
    lifters()
    impeller()
