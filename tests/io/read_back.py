#!/usr/bin/python3
"""Reads the files written by the gravity_packing example back with real readers.

    read_back.py EXE OUTDIR        run EXE --n 300 --time 0.02 --frames 4 --out OUTDIR --backend host, then check
    read_back.py --check-only DIR  only check the files already in DIR

Checks: the .pvd lists exactly the frames asked for (4), evenly spaced from t = 0 to the end (to
half a time step), each with its boundaries as part 1, and no other .vtu file was written; VTK's own
XML reader opens every frame with the expected points, vertex cells and point arrays, and every
boundary surface with triangles inside the domain and its cell arrays; meshio opens the last frame;
the last frame holds the same particles as particles_final.csv. Needs Debian's python3-vtk9, python3-meshio
and numpy, hence /usr/bin/python3 rather than the first python3 on PATH.
"""
import csv
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

N_PARTICLES = 300
BASE = "particles"
FRAMES = 4
END_TIME = 0.02
DT = 1e-5
# name -> number of components; the VTK type each array must read back as.
ARRAYS = {"id": 1, "radius": 1, "velocity": 3, "angular_velocity": 3, "active": 1}
VTK_TYPES = {"id": "unsigned int", "radius": "double", "velocity": "double", "angular_velocity": "double",
             "active": "unsigned char"}
VTK_VERTEX = 1
VTK_TRIANGLE = 5
BOUNDARY_PLANES = 6  # the example's box: six planes


class CheckFailed(Exception):
    pass


def require(cond, msg):
    if not cond:
        raise CheckFailed(msg)


def read_pvd(directory):
    path = os.path.join(directory, BASE + ".pvd")
    require(os.path.isfile(path), f"{path} was not written")
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as e:
        raise CheckFailed(f"{path} is not well-formed XML: {e}")
    require(root.tag == "VTKFile" and root.get("type") == "Collection",
            f"{path}: root must be <VTKFile type=\"Collection\">, found <{root.tag} type={root.get('type')!r}>")
    frames, surfaces = [], []
    for ds in root.iter("DataSet"):
        require("timestep" in ds.attrib and "file" in ds.attrib, f"{path}: DataSet without timestep/file: {ds.attrib}")
        entry = (float(ds.get("timestep")), os.path.join(directory, ds.get("file")))
        (surfaces if ds.get("part") == "1" else frames).append(entry)
    require([t for t, _ in surfaces] == [t for t, _ in frames],
            f"{path}: the boundary surfaces (part 1) are not at the frames' times: {surfaces}")
    require(len(frames) == FRAMES, f"{path} lists {len(frames)} frame(s), expected {FRAMES} (--frames {FRAMES})")
    times = [t for t, _ in frames]
    require(all(b > a for a, b in zip(times, times[1:])), f"{path}: timesteps are not increasing: {times}")
    for k, t in enumerate(times):
        want = END_TIME * k / (FRAMES - 1)
        require(abs(t - want) <= 0.5 * DT + 1e-12, f"{path}: frame {k} at t = {t:g}, expected {want:g} (evenly spaced)")
    written = sorted(f for f in os.listdir(directory) if f.endswith(".vtu"))
    require(len(written) == 2 * FRAMES, f"{directory} holds {len(written)} .vtu files, expected {2 * FRAMES}: {written}")
    print(f"  {path}: {len(frames)} frames, t = {times[0]:g} .. {times[-1]:g}, evenly spaced, each with its boundaries")
    return frames, surfaces


def read_surface_with_vtk(path):
    """A boundary surface: triangles only, cell arrays boundary/element/force, points finite."""
    from vtkmodules.util.numpy_support import vtk_to_numpy
    from vtkmodules.vtkIOXML import vtkXMLUnstructuredGridReader
    import numpy as np

    require(os.path.isfile(path), f"{path} is listed in the .pvd but does not exist")
    errors = []
    reader = vtkXMLUnstructuredGridReader()
    reader.AddObserver("ErrorEvent", lambda obj, ev: errors.append(ev))
    reader.SetFileName(path)
    reader.Update()
    require(not errors and reader.GetErrorCode() == 0, f"{path}: VTK reader reported an error")
    grid = reader.GetOutput()
    cells = grid.GetNumberOfCells()
    require(cells > 0, f"{path}: no triangles")
    require(all(grid.GetCellType(c) == VTK_TRIANGLE for c in range(cells)), f"{path}: not every cell is a triangle")
    cd = grid.GetCellData()
    for name, ncomp in (("boundary", 1), ("element", 1), ("force", 3)):
        arr = cd.GetArray(name)
        require(arr is not None and arr.GetNumberOfComponents() == ncomp and arr.GetNumberOfTuples() == cells,
                f"{path}: cell array '{name}' missing or of the wrong shape")
    boundaries = set(int(b) for b in vtk_to_numpy(cd.GetArray("boundary")))
    require(boundaries == set(range(BOUNDARY_PLANES)), f"{path}: boundaries {sorted(boundaries)}, expected 0..{BOUNDARY_PLANES - 1}")
    pts = vtk_to_numpy(grid.GetPoints().GetData())
    require(np.all(np.isfinite(pts)), f"{path}: non-finite points")
    return cells


def read_vtu_with_vtk(path):
    """Returns {name: numpy array} incl. 'points', after checking structure with VTK's reader."""
    from vtkmodules.util.numpy_support import vtk_to_numpy
    from vtkmodules.vtkIOXML import vtkXMLUnstructuredGridReader
    import numpy as np

    require(os.path.isfile(path), f"{path} is listed in the .pvd but does not exist")
    errors = []
    reader = vtkXMLUnstructuredGridReader()
    reader.AddObserver("ErrorEvent", lambda obj, ev: errors.append(ev))
    reader.SetFileName(path)
    reader.Update()
    require(not errors and reader.GetErrorCode() == 0, f"{path}: VTK reader reported an error")
    grid = reader.GetOutput()
    n = grid.GetNumberOfPoints()
    require(n == N_PARTICLES, f"{path}: {n} points, expected {N_PARTICLES}")
    require(grid.GetNumberOfCells() == N_PARTICLES, f"{path}: {grid.GetNumberOfCells()} cells, expected {N_PARTICLES}")
    for c in range(grid.GetNumberOfCells()):
        if grid.GetCellType(c) != VTK_VERTEX or grid.GetCell(c).GetPointId(0) != c:
            raise CheckFailed(f"{path}: cell {c} is not the vertex of point {c}")
    out = {"points": vtk_to_numpy(grid.GetPoints().GetData())}
    pd = grid.GetPointData()
    for name, ncomp in ARRAYS.items():
        arr = pd.GetArray(name)
        require(arr is not None, f"{path}: point array '{name}' missing")
        require(arr.GetNumberOfComponents() == ncomp,
                f"{path}: '{name}' has {arr.GetNumberOfComponents()} components, expected {ncomp}")
        require(arr.GetNumberOfTuples() == n, f"{path}: '{name}' has {arr.GetNumberOfTuples()} tuples, expected {n}")
        require(arr.GetDataTypeAsString() == VTK_TYPES[name],
                f"{path}: '{name}' is {arr.GetDataTypeAsString()}, expected {VTK_TYPES[name]}")
        out[name] = vtk_to_numpy(arr)
    for name, a in out.items():
        require(np.all(np.isfinite(a)), f"{path}: '{name}' has non-finite values")
    require(np.all(out["radius"] > 0), f"{path}: radius <= 0 for {int(np.sum(out['radius'] <= 0))} particles")
    require(set(np.unique(out["active"])) <= {0, 1}, f"{path}: 'active' holds values other than 0/1")
    require(len(np.unique(out["id"])) == n, f"{path}: ids are not unique")
    return out


def read_final_csv(directory):
    import numpy as np

    path = os.path.join(directory, BASE + "_final.csv")
    require(os.path.isfile(path), f"{path} was not written")
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    header = "id,x,y,z,vx,vy,vz,wx,wy,wz,radius,active".split(",")
    require(rows and rows[0] == header, f"{path}: header is {rows[0] if rows else None}, expected {header}")
    data = rows[1:]
    require(len(data) == N_PARTICLES, f"{path}: {len(data)} rows, expected {N_PARTICLES}")
    for i, r in enumerate(data):
        require(len(r) == 12, f"{path}:{i + 2}: {len(r)} fields, expected 12")
    a = np.array([[float(x) for x in r] for r in data])
    return {"id": a[:, 0].astype(np.int64), "points": a[:, 1:4], "velocity": a[:, 4:7], "angular_velocity": a[:, 7:10],
            "radius": a[:, 10], "active": a[:, 11]}


def compare_with_csv(vtu_path, frame, final):
    import numpy as np

    fo, co = np.argsort(frame["id"]), np.argsort(final["id"])
    require(np.array_equal(frame["id"][fo].astype(np.int64), final["id"][co]),
            f"{vtu_path}: ids differ from {BASE}_final.csv")
    for name in ("points", "velocity", "angular_velocity", "radius", "active"):
        a = np.asarray(frame[name], dtype=float)[fo]
        b = np.asarray(final[name], dtype=float)[co]
        # Relative 1e-9, measured against the largest magnitude of the field (entries near 0 included).
        tol = 1e-9 * max(1e-300, float(np.max(np.abs(b))))
        worst = float(np.max(np.abs(a - b))) if a.size else 0.0
        require(worst <= tol, f"{vtu_path}: '{name}' differs from {BASE}_final.csv by {worst:g} (> {tol:g})")
    print(f"  last frame equals {BASE}_final.csv (ids, positions, velocities, radii, active; rel. 1e-9)")


def check(directory):
    try:
        import numpy  # noqa: F401
        import meshio
        from vtkmodules.vtkIOXML import vtkXMLUnstructuredGridReader  # noqa: F401
    except ImportError as e:
        raise CheckFailed(f"{e}: run with Debian's /usr/bin/python3 (packages python3-vtk9, python3-meshio)")

    frames, surfaces = read_pvd(directory)
    last = None
    for _, path in frames:
        last = read_vtu_with_vtk(path)
    print(f"  VTK reader: {len(frames)} .vtu files with {N_PARTICLES} points, {N_PARTICLES} vertex cells, "
          f"arrays {', '.join(ARRAYS)}; values finite, radius > 0")
    triangles = [read_surface_with_vtk(path) for _, path in surfaces]
    print(f"  VTK reader: {len(surfaces)} boundary surfaces of {triangles[0]} triangles ({BOUNDARY_PLANES} planes clipped to the domain)")

    last_path = frames[-1][1]
    try:
        mesh = meshio.read(last_path)
    except Exception as e:  # meshio raises a variety of types on bad input
        raise CheckFailed(f"meshio cannot read {last_path}: {type(e).__name__}: {e}")
    require(len(mesh.points) == N_PARTICLES,
            f"meshio: {last_path} has {len(mesh.points)} points, expected {N_PARTICLES}")
    missing = [a for a in ARRAYS if a not in mesh.point_data]
    require(not missing, f"meshio: {last_path} lacks point data {missing}")
    print(f"  meshio: {os.path.basename(last_path)} has {len(mesh.points)} points and all point arrays")

    compare_with_csv(last_path, last, read_final_csv(directory))


def run_example(exe, directory):
    shutil.rmtree(directory, ignore_errors=True)
    os.makedirs(directory)
    cmd = [exe, "--n", str(N_PARTICLES), "--time", str(END_TIME), "--frames", str(FRAMES), "--out", directory, "--backend", "host"]
    print("running:", " ".join(cmd))
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=900)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise CheckFailed(f"could not run the example: {e}")
    if p.returncode != 0:
        raise CheckFailed(f"example exited with {p.returncode}; last output:\n{p.stdout[-3000:]}")


def main(argv):
    if len(argv) == 3 and argv[1] == "--check-only":
        directory = argv[2]
    elif len(argv) == 3:
        directory = argv[2]
    else:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        if argv[1] != "--check-only":
            run_example(argv[1], directory)
        print(f"checking {directory}")
        check(directory)
    except CheckFailed as e:
        print(f"FAILED: {e}", file=sys.stderr)
        return 1
    print("OK")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
