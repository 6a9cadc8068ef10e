"""The Python API beyond test_python_api.py. Each test checks an outcome: the error type and the
C++ message naming the parameter, the values in the views, copies and files, bit-identical restarts
of rigid bodies, moving walls and deformable spheres, boundaries that hold or let through, regions
that count what NumPy counts, families and trackers that do what they are told."""

import gc
import math
import os
import threading
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import dem

G = 9.81
DOMAIN = ((0, 0, 0), (0.01, 0.01, 0.02))


def lattice_sim(n=27, precision="single", shape="sphere", **kw):
    sim = dem.Simulator(domain=DOMAIN, dt=1e-5, precision=precision, shape=shape, **kw)
    sim.set_log(False)
    mat = sim.add_material(dem.Material("glass", density=2500, youngs_modulus=1e7, restitution=0.5, friction=0.5))
    sim.add_box(DOMAIN, mat)
    if shape == "sphere":
        sim.add_particles(dem.sample.cubic_lattice(DOMAIN, radius=8e-4, radius_spread=0.1, jitter=1e-4, max_count=n), mat)
    return sim, mat


# ---- errors: type and message -------------------------------------------------------------------

@pytest.mark.parametrize("make, kind, message", [
    (lambda: dem.Simulator(dt=1e-5), ValueError, r"Simulator needs a config or domain="),
    (lambda: dem.Simulator(dem.Config(DOMAIN), dt=1e-5), ValueError, r"a config or keyword settings, not both \(got dt\)"),
    (lambda: dem.Simulator(domain=DOMAIN, dt=-1e-5), ValueError, r"dt is -1e-05, but it must be > 0 and finite"),
    (lambda: dem.Simulator(domain=DOMAIN, dt=math.nan), ValueError, r"dt is nan, but it must be > 0 and finite"),
    (lambda: dem.Simulator(domain=((0, 0, 0), (-1, 1, 1))), ValueError, r"config.domain must be a finite box with hi > lo"),
    (lambda: dem.Simulator(domain=DOMAIN, law="no_such_law"), ValueError,
     r"(?s)no simulator for shape='sphere', law='no_such_law'.*Built:.*sphere, linear_spring_dashpot, double, host"),
    (lambda: dem.family.ConstantVelocity(linear="xw"), ValueError, r"linear is 'xw'; it takes the letters x, y and z"),
    (lambda: dem.run(lattice_sim()[0], -1.0), ValueError, r"run: duration is -1"),
    (lambda: dem.run(lattice_sim()[0], 1e-3, chunk=0), ValueError, r"run: chunk is 0, but it must be >= 1"),
    (lambda: dem.shapes.make_clump("c", [(0, 0, 0)], [1e-3, 2e-3]), ValueError, r"clump 'c': 1 centres but 2 radii"),
    (lambda: dem.shapes.make_polyhedron([(0, 0, 0), (1, 0, 0), (0, 1, 0), (1, 1, 0)], "flat"), ValueError,
     r"polyhedron 'flat': all 4 points are coplanar"),
    (lambda: dem.sample.random_fill(DOMAIN, "big"), TypeError, r"random_fill: sizes is a radius, ConstantRadius"),
    (lambda: dem.io.read_csv("/nonexistent/p.csv"), RuntimeError, r"cannot open for reading '/nonexistent/p.csv'"),
    (lambda: dem.from_checkpoint("/nonexistent/x.ckpt"), RuntimeError, r"cannot open for reading '/nonexistent/x.ckpt'"),
])
def test_module_level_errors(make, kind, message):
    with pytest.raises(kind, match=message):
        make()


def test_simulator_errors_name_the_parameter():
    sim, mat = lattice_sim(n=2)
    cases = [
        (lambda: sim.add_material(dem.Material("x", density=-1)), ValueError, r"density of material 'x' \(id 1\) is -1, but it must be > 0"),
        (lambda: sim.add_material(dem.Material("x", restitution=1.5)), ValueError, r"restitution of material 'x' \(id 1\) is 1.5, but it must be in \(0, 1\]"),
        (lambda: sim.add_material(dem.Material("x", friction=-0.1)), ValueError, r"friction of material 'x' \(id 1\) is -0.1"),
        (lambda: sim.add_material(dem.Material("x", poisson_ratio=0.6)), ValueError, r"poisson_ratio of material 'x' \(id 1\) is 0.6"),
        (lambda: sim.add_particles([(0.005, 0.005, 0.01)], 1e-3, 7), ValueError, r"material id 7 does not exist \(1 materials defined\)"),
        (lambda: sim.add_particles([(0.5, 0.005, 0.01)], 1e-3, mat), ValueError, r"position of particle 2 \(0.5, 0.005, 0.01\) is outside the domain"),
        (lambda: sim.add_particles([(0.005, 0.005, 0.01), (0.002, 0.005, 0.01)], [1e-3] * 3, mat), ValueError,
         r"positions \(2\), radii \(3\)"),
        (lambda: sim.add_plane((0, 0, 0), (0, 0, 0), mat), ValueError, r"normal \(0, 0, 0\) is not valid"),
        (lambda: sim.set_motion(42, dem.boundary.Fixed()), ValueError, r"boundary 42 does not exist \(6 boundaries\)"),
        (lambda: sim.set_velocities(np.zeros((3, 3))), ValueError, r"got 3 values of velocity for 2 particles"),
        (lambda: sim.set_families(np.zeros(3, dtype=np.uint32)), ValueError, r"got 3 family ids for 2 particles"),
        (lambda: sim.track([5]), ValueError, r"particle id 5 does not exist \(2 particles\)"),
        (lambda: sim.inspect_particles("everywhere"), TypeError, r"a region is None \(everywhere\), dem.inspect.Box"),
        (lambda: sim.add_inlet(DOMAIN, "big", mat, 10), TypeError, r"add_inlet: sizes is a radius"),
        (lambda: sim.track([0]).orientations(), TypeError, r"orientations are for rigid bodies"),
        (lambda: sim.add_mesh([(0, 0, 0), (1, 0, 0), (0, 1, 0)], [(0, 1)], mat), ValueError, r"triangles must be an \(m, 3\) array"),
    ]
    for make, kind, message in cases:
        with pytest.raises(kind, match=message):
            make()
    # None of the refused calls changed the simulator.
    assert sim.num_particles == 2 and sim.num_materials == 1 and sim.num_boundaries == 6
    sim.step(10)


def test_an_overlap_is_refused_at_the_first_step_and_stays_refused():
    """Overlapping particles are accepted by add_particles and refused when the state is first used
    (a step, or a query that needs forces), with the overlap in the message; nothing advances."""
    sim = dem.Simulator(domain=DOMAIN)
    sim.set_log(False)
    m = sim.add_material(dem.Material("glass"))
    sim.add_particles([(0.005, 0.005, 0.01), (0.0055, 0.005, 0.01)], 1e-3, m)
    for _ in range(2):
        with pytest.raises(ValueError, match=r"particles 0 and 1 overlap by 0.0015 m at the start.*allow_initial_overlap"):
            sim.step()
    assert sim.step_count == 0 and sim.time == 0
    # Allowed on request: they push apart, symmetrically, and stop touching.
    sim = dem.Simulator(domain=((-0.01, -0.01, -0.01), (0.01, 0.01, 0.01)), gravity=(0, 0, 0), allow_initial_overlap=True, precision="double")
    sim.set_log(False)
    m = sim.add_material(dem.Material("glass", restitution=0.3))
    sim.add_particles([(-0.8e-3, 0, 0), (0.8e-3, 0, 0)], 1e-3, m)  # 0.4 mm: 40 % of the radius
    dem.run(sim, 2e-4)
    v, x = sim.velocities(), sim.positions()
    assert v[0, 0] < 0 < v[1, 0] and v[0, 0] == pytest.approx(-v[1, 0], rel=1e-9)
    assert x[1, 0] - x[0, 0] > 2e-3 and sim.num_touching_pairs() == 0 and sim.num_lost == 0


def test_rigid_and_sphere_only_calls_are_refused_by_type():
    sim, mat = lattice_sim(shape="clump")
    with pytest.raises(TypeError, match="holds rigid bodies: use add_shape and add_bodies"):
        sim.add_particles([(0.005, 0.005, 0.01)], 1e-3, mat)
    assert not hasattr(sim, "enable_energy_ledger")  # the ledger is for spheres
    nine = dem.shapes.make_clump("nine", [(1e-4 * i, 0, 0) for i in range(9)], [1e-3] * 9)
    with pytest.raises(ValueError, match="9 spheres, more than the bound MaxSpheres = 8"):
        sim.add_shape(nine)


# ---- configuration ------------------------------------------------------------------------------

def test_a_config_object_and_the_properties_drive_the_simulator():
    c = dem.Config(((0, 0, 0), (0.01, 0.01, 0.01)), dt=2e-5, gravity=(0, 0, 0))
    sim = dem.Simulator(c, law="linear_spring_dashpot", precision="double")
    assert type(sim).__name__ == "SphereLinearSpringDashpotDoubleHost" and type(sim).precision == "double"
    assert sim.config.domain == ((0, 0, 0), (0.01, 0.01, 0.01)) and sim.dt == 2e-5 and sim.gravity == (0, 0, 0)
    m = sim.add_material(dem.Material("glass"))
    sim.add_particles([(0.005, 0.005, 0.008)], 1e-3, m)
    sim.step(10)
    np.testing.assert_array_equal(sim.velocities(), 0)  # no gravity
    sim.gravity = (1.0, 0, -2.0)
    sim.step(100)
    np.testing.assert_allclose(sim.velocities()[0], (100 * 2e-5, 0, -200 * 2e-5), rtol=1e-12)
    sim.dt = 1e-5
    sim.step(50)
    assert sim.time == pytest.approx(110 * 2e-5 + 50 * 1e-5, rel=1e-12) and sim.step_count == 160


def test_local_validity_keeps_the_list_while_a_lone_flyer_is_clear():
    def run(max_overrun):
        c = dem.Config(((0, 0, 0), (0.1, 0.1, 0.1)), dt=2e-6, gravity=(0, 0, 0), max_overrun=max_overrun)
        sim = dem.Simulator(c, precision="double")
        m = sim.add_material(dem.Material("glass"))
        sim.add_particles([(0.07, 0.05, 0.05), (0.08, 0.05, 0.05)], 1e-3, m, velocities=[(5, 0, 0), (0, 0, 0)])
        sim.step(1000)  # 1 cm of flight, the margin's half (0.1 mm) every 10 steps; the two meet after 8 mm
        return sim

    local, plain = run(256), run(0)
    assert local.config.max_overrun == 256 and plain.config.max_overrun == 0
    np.testing.assert_array_equal(local.positions(), plain.positions())
    assert local.velocities()[1][0] > 1.0  # they did meet
    assert plain.num_rebuilds() > 50 and plain.num_local_checks() == 0 and plain.num_list_patches() == 0
    # The pair is added to the list in place when the flyer nears its target: no rebuild for it.
    assert local.num_rebuilds() == 1 and local.num_local_checks() > 900
    assert local.num_list_patches() == 1 and local.num_patched_pairs() == 1


def test_a_wide_size_range_gets_grid_levels_and_runs_to_the_same_bits():
    results = []
    for levels in (0, 1):
        c = dem.Config(((0, 0, 0), (0.02, 0.02, 0.02)), dt=1e-6, contact_margin=5e-5, broad_phase_levels=levels,
                       allow_initial_overlap=True)
        sim = dem.Simulator(c, precision="double")
        sim.set_log(False)
        m = sim.add_material(dem.Material("glass"))
        rng = np.random.default_rng(3)
        positions = [tuple(p) for p in rng.uniform(0.002, 0.018, (2000, 3))]
        radii = [1e-3 if k % 40 == 0 else 1e-4 for k in range(2000)]  # 10:1
        sim.add_particles(positions, radii, m)
        sim.step(20)
        results.append((sim.broad_phase_levels(), sim.num_listed_pairs(), sim.positions()))
    (levels, pairs, x), (one, pairs_one, x_one) = results
    assert levels == 5 and one == 1 and pairs == pairs_one > 0
    np.testing.assert_array_equal(x, x_one)


def test_run_returns_the_steps_calls_back_and_stops_when_told(capsys):
    sim = dem.Simulator(domain=DOMAIN, dt=1e-5, precision="double")
    sim.set_log(False)
    m = sim.add_material(dem.Material("glass"))
    sim.add_particles([(0.005, 0.005, 0.015)], 1e-3, m)
    seen = []
    assert dem.run(sim, 1.23e-3, chunk=40, progress=lambda s, done: seen.append(done)) == 123
    assert seen == [40, 80, 120, 123] and sim.step_count == 123
    assert sim.time == pytest.approx(1.23e-3, rel=1e-12)
    calls = []
    assert dem.run(sim, 0.01, chunk=50, callback=lambda s: calls.append(s.step_count) or len(calls) < 3) == 150
    assert calls == [173, 223, 273]
    assert dem.run(sim, 0.0) == 0
    dem.run(sim, 1e-4, progress=True)
    err = capsys.readouterr().err
    assert "100.0 %" in err and "particle-steps/s" in err and err.endswith("\n")


def test_the_gil_is_free_while_a_step_runs():
    """Another Python thread keeps running during a long step() (the GIL is released)."""
    sim = dem.Simulator(domain=((0, 0, 0), (0.03, 0.03, 0.03)), gravity=(0, 0, 0))
    sim.set_log(False)
    m = sim.add_material(dem.Material("glass"))
    sim.add_particles(dem.sample.cubic_lattice(((0, 0, 0), (0.03, 0.03, 0.03)), radius=4e-4, max_count=20000), m)
    sim.step(2)
    count = 0
    worker = threading.Thread(target=sim.step, args=(300,))
    worker.start()
    while worker.is_alive():
        count += 1
    worker.join()
    assert sim.step_count == 302
    assert count > 10000, count  # about 1e6 measured; a held GIL allows a handful of iterations


# ---- the state: views and copies ----------------------------------------------------------------

def test_copies_are_copies():
    sim, _ = lattice_sim(n=8, precision="double")
    x = sim.positions()
    x[:] = 0
    assert sim.positions().min() > 0
    assert sim.positions().dtype == np.float64 and sim.positions().flags.owndata


@pytest.mark.parametrize("shape", ["sphere", "clump", "deformable_sphere"])
def test_local_arrays_per_shape(shape):
    """The views' keys, dtypes and values by shape: a clump has its orientation, a deformable sphere
    its deformed radius; every view, read through 'id', equals the copy by id."""
    sim = dem.Simulator(domain=((0, 0, 0), (0.01, 0.01, 0.01)), shape=shape, allow_initial_overlap=True)
    sim.set_log(False)
    m = sim.add_material(dem.Material("g"))
    if shape == "clump":
        k = sim.add_shape(dem.shapes.make_clump("p", [(-4e-4, 0, 0), (4e-4, 0, 0)], [5e-4, 5e-4]))
        sim.add_bodies(k, [(0.003, 0.003, 0.003), (0.006, 0.006, 0.006)], m, orientations=[(1, 0, 0, 0), (0.6, 0.8, 0, 0)])
    else:
        sim.add_particles([(0.005, 0.005, 0.005), (0.005, 0.005, 0.0068)], 1e-3, m)  # pressed together
    sim.step(3)
    with dem.local_arrays(sim) as a:
        base = {"active", "angular_velocity", "force", "id", "material", "position", "radius", "torque", "velocity"}
        extra = {"sphere": set(), "clump": {"orientation"}, "deformable_sphere": {"deformed_radius"}}[shape]
        assert set(a) == base | extra
        ids = a["id"]
        assert a["position"].dtype == np.float32 and a["id"].dtype == np.uint32
        for view, copy in (("position", sim.positions()), ("velocity", sim.velocities()), ("angular_velocity", sim.angular_velocities())):
            np.testing.assert_array_equal(a[view].astype(np.float64), copy[ids])
        if shape == "clump":
            assert a["orientation"].shape == (2, 4)
            np.testing.assert_array_equal(a["orientation"].astype(np.float64), sim.orientations()[ids])
        if shape == "deformable_sphere":
            np.testing.assert_array_equal(a["deformed_radius"].astype(np.float64), sim.deformed_radii()[ids])
            assert np.all(a["deformed_radius"] > a["radius"])  # pressed spheres grow to keep their volume
        for v in a.values():
            assert not v.flags.writeable


def test_local_arrays_guard_every_call_that_would_move_them():
    sim, mat = lattice_sim(n=27)
    sim.step(5)
    with dem.local_arrays(sim) as a:
        for name, call in (("add_particles", lambda: sim.add_particles([(0.005, 0.005, 0.019)], 5e-4, mat)),
                           ("rebuild_contact_list", sim.rebuild_contact_list),
                           ("load_checkpoint", lambda: sim.load_checkpoint("/nonexistent")),
                           ("step", lambda: dem.run(sim, 1e-4))):
            with pytest.raises(RuntimeError, match=name + r" while a local_arrays\(\) view is open"):
                call()
        assert sim.num_particles == 27 and sim.step_count == 5
        assert "family" not in a  # only once families are used
    sim.set_families(np.full(27, 3, dtype=np.uint32))
    with dem.local_arrays(sim) as a:
        np.testing.assert_array_equal(a["family"], 3)


def test_a_view_keeps_its_simulator_alive():
    def view_of_a_simulator_gone_out_of_scope():
        sim, _ = lattice_sim(n=27)
        sim.step(5)
        with dem.local_arrays(sim) as a:
            return a["position"], sim.positions()[a["id"]]

    x, expected = view_of_a_simulator_gone_out_of_scope()
    gc.collect()
    assert type(x.base).__name__ == "SphereHertzMindlinSingleHost"  # the owner is the simulator itself
    np.testing.assert_array_equal(x.astype(np.float64), expected)


# ---- checkpoints --------------------------------------------------------------------------------

def rigid_or_deformable(shape):
    sim = dem.Simulator(domain=((0, 0, 0), (0.02, 0.02, 0.03)), dt=2e-6, shape=shape)
    sim.set_log(False)
    m = sim.add_material(dem.Material("g", restitution=0.3))
    sim.add_box(sim.config.domain, m)
    if shape == "deformable_sphere":
        sim.add_particles(dem.sample.cubic_lattice(((0, 0, 0), (0.02, 0.02, 0.01)), radius=8e-4, jitter=1e-4, max_count=40), m)
        return sim
    c = 8e-4
    if shape == "clump":
        t = dem.shapes.make_clump("pair", [(-4e-4, 0, 0), (4e-4, 0, 0)], [6e-4, 6e-4])
    else:
        t = dem.shapes.make_polyhedron([(x, y, z) for x in (-c, c) for y in (-c, c) for z in (-c, c)], "cube")
    k = sim.add_shape(t)
    sim.add_bodies(k, [(0.004 + 0.004 * (i % 4), 0.004 + 0.004 * (i // 4), 0.004) for i in range(12)], m,
                   orientations=[(math.cos(0.4 * i), 0.6 * math.sin(0.4 * i), 0.8 * math.sin(0.4 * i), 0) for i in range(12)])
    return sim


@pytest.mark.parametrize("shape", ["clump", "polyhedron", "deformable_sphere"])
def test_a_checkpoint_of_bodies_continues_to_the_same_bits(shape, tmp_path):
    sim = rigid_or_deformable(shape)
    sim.step(3000)  # in the middle of the landing: contacts and their history are live
    path = str(tmp_path / "state.ckpt")
    sim.save_checkpoint(path)
    sim.step(2000)
    again = dem.from_checkpoint(path, shape=shape)
    again.step(2000)
    assert again.step_count == sim.step_count == 5000
    np.testing.assert_array_equal(again.positions(), sim.positions())
    np.testing.assert_array_equal(again.angular_velocities(), sim.angular_velocities())
    if shape == "deformable_sphere":
        np.testing.assert_array_equal(again.deformed_radii(), sim.deformed_radii())
    else:
        np.testing.assert_array_equal(again.orientations(), sim.orientations())


def drum(tmp_motion=None):
    R, L = 0.006, 0.004
    sim = dem.Simulator(domain=((-R - 1e-3, -L / 2 - 1e-3, -R - 1e-3), (R + 1e-3, L / 2 + 1e-3, R + 1e-3)), precision="double")
    sim.set_log(False)
    beads = sim.add_material(dem.Material("beads", restitution=0.5, friction=0.5, rolling_friction=0.05))
    steel = sim.add_material(dem.Material("steel", youngs_modulus=2e11, density=7800, rigid=True))
    d = sim.add_cylinder((0, -L / 2, 0), (0, 1, 0), R, steel, length=L, cap_base=True, cap_top=True)
    g = dem.sample.cubic_lattice(((-R, -L / 2, -R), (R, L / 2, 0)), radius=5e-4, jitter=5e-5)
    keep = np.hypot(g.positions[:, 0], g.positions[:, 2]) < R - 1e-3
    sim.add_particles(g.positions[keep], g.radii[keep], beads)
    sim.set_motion(d, tmp_motion or dem.boundary.ConstantVelocity(omega=(0, 5, 0)))
    return sim, d


def test_a_checkpoint_of_a_turning_drum_continues_to_the_same_bits(tmp_path):
    """The boundary's motion state (its angle) and the wall contacts' history are in the checkpoint:
    the torque on the drum after the restart is the same number. The ledger is not saved
    (docs/reliability.md): it is off after a load."""
    sim, d = drum()
    sim.enable_energy_ledger()
    sim.step(2000)
    path = str(tmp_path / "drum.ckpt")
    sim.save_checkpoint(path)
    sim.step(1000)
    again = dem.from_checkpoint(path, precision="double")
    again.step(1000)
    np.testing.assert_array_equal(again.positions(), sim.positions())
    np.testing.assert_array_equal(again.angular_velocities(), sim.angular_velocities())
    assert again.boundary_torque(d) == sim.boundary_torque(d) != (0, 0, 0)
    with pytest.raises(RuntimeError, match="the ledger is off"):
        again.energy_ledger()


def test_a_python_motion_is_not_in_a_checkpoint_and_must_be_set_again(tmp_path):
    """Set again before the first step, the restored run continues to the same bits; forgotten, the
    first step is refused with a message saying what to do."""
    spin = lambda t: dem.boundary.RigidMotion(rotation=(math.cos(2.5 * t), 0, math.sin(2.5 * t), 0), omega=(0, 5, 0))
    sim, d = drum(spin)
    sim.step(200)
    path = str(tmp_path / "py.ckpt")
    sim.save_checkpoint(path)
    forgot = dem.from_checkpoint(path, precision="double")
    with pytest.raises(ValueError, match=r"boundary 'cylinder 0' had a user motion that a checkpoint cannot hold; set it again with set_motion"):
        forgot.step(10)
    assert forgot.step_count == 200
    again = dem.from_checkpoint(path, precision="double")
    again.set_motion(d, spin)
    sim.step(100)
    again.step(100)
    np.testing.assert_array_equal(again.positions(), sim.positions())
    np.testing.assert_array_equal(again.velocities(), sim.velocities())


@pytest.mark.parametrize("load_as, message", [
    ({"precision": "single"}, r"written with precision 'double', but this simulator's is 'single'"),
    ({"precision": "double", "law": "linear_spring_dashpot"}, r"written with force law 'hertz_mindlin', but this simulator's is 'linear_spring_dashpot'"),
    ({"shape": "clump"}, r"written with shape 'sphere', but this simulator's is 'clump'"),
])
def test_a_checkpoint_loads_only_into_its_own_class(tmp_path, load_as, message):
    sim, _ = lattice_sim(n=8, precision="double")
    path = str(tmp_path / "d.ckpt")
    sim.save_checkpoint(path)
    with pytest.raises(RuntimeError, match=message):
        dem.from_checkpoint(path, **load_as)


def test_damaged_checkpoints_are_refused(tmp_path):
    sim, _ = lattice_sim(n=8, precision="double")
    path = tmp_path / "d.ckpt"
    sim.save_checkpoint(str(path))
    data = path.read_bytes()
    (tmp_path / "junk.ckpt").write_bytes(b"hello world" * 10)
    (tmp_path / "cut.ckpt").write_bytes(data[: len(data) // 2])
    with pytest.raises(RuntimeError, match="not a dem checkpoint"):
        dem.from_checkpoint(str(tmp_path / "junk.ckpt"), precision="double")
    with pytest.raises(RuntimeError, match="truncated"):
        dem.from_checkpoint(str(tmp_path / "cut.ckpt"), precision="double")
    with pytest.raises(RuntimeError, match="truncated"):
        sim.load_checkpoint(str(tmp_path / "cut.ckpt"))
    sim.step(10)  # the failed load left it usable


# ---- output files -------------------------------------------------------------------------------

@pytest.mark.parametrize("precision", ["single", "double"])
def test_csv_round_trip_is_exact(precision, tmp_path):
    sim, _ = lattice_sim(n=30, precision=precision)
    sim.set_angular_velocities(np.outer(np.arange(30), (1.0, -2.0, 0.5)))
    sim.step(300)
    path = str(tmp_path / "p.csv")
    sim.write_csv(path)
    back = dem.io.read_csv(path)
    np.testing.assert_array_equal(back["id"], np.arange(30))
    np.testing.assert_array_equal(back["position"], sim.positions())
    np.testing.assert_array_equal(back["velocity"], sim.velocities())
    np.testing.assert_array_equal(back["angular_velocity"], sim.angular_velocities())
    np.testing.assert_array_equal(back["radius"], sim.radii())
    np.testing.assert_array_equal(back["active"], 1)
    with open(path) as f:
        assert f.readline().strip() == "id,x,y,z,vx,vy,vz,wx,wy,wz,radius,active"


def vtu_arrays(path):
    root = ET.parse(path).getroot()
    piece = next(root.iter("Piece"))
    arrays = {}
    for a in root.iter("DataArray"):
        values = np.array(a.text.split(), dtype=float) if a.text and a.text.strip() else np.array([])
        k = int(a.get("NumberOfComponents", "1"))
        arrays[a.get("Name", "Points")] = values.reshape(-1, k) if k > 1 else values
    return int(piece.get("NumberOfPoints")), arrays


def test_vtu_files_and_series_hold_the_state(tmp_path):
    sim, _ = lattice_sim(n=30, precision="double")
    sim.step(300)
    sim.write_vtu(str(tmp_path / "p.vtu"))
    n, arrays = vtu_arrays(tmp_path / "p.vtu")
    assert n == 30
    np.testing.assert_allclose(arrays["Points"], sim.positions(), rtol=1e-12)
    np.testing.assert_allclose(arrays["radius"], sim.radii(), rtol=1e-12)
    np.testing.assert_allclose(arrays["velocity"], sim.velocities(), rtol=1e-12, atol=1e-300)
    np.testing.assert_array_equal(arrays["id"], np.arange(30))
    sim.write_boundaries_vtu(str(tmp_path / "walls.vtu"))
    assert vtu_arrays(tmp_path / "walls.vtu")[0] > 0
    series = dem.io.VtkSeries(str(tmp_path / "run"), "beads")
    times = []
    for _ in range(3):
        sim.step(10)
        times.append(sim.time)
        written = sim.write_frame(series)
        assert os.path.exists(written) and os.path.basename(written).startswith("beads_")
    assert series.frames == 3 and series.pvd_path.endswith("beads.pvd")
    data = [d.attrib for d in ET.parse(series.pvd_path).getroot().iter("DataSet")]
    particle_frames = [d for d in data if d["part"] == "0"]
    assert [d["file"] for d in particle_frames] == [f"beads_{k:06d}.vtu" for k in range(3)]
    np.testing.assert_allclose([float(d["timestep"]) for d in particle_frames], times, rtol=1e-12)
    assert all(os.path.exists(tmp_path / "run" / d["file"]) for d in data)
    with pytest.raises(RuntimeError, match="cannot create directory"):
        dem.io.VtkSeries("/proc/nonexistent/run")


# ---- boundaries ---------------------------------------------------------------------------------

def ball_over(add, x, y, z=0.003, r=1e-3):
    """A 1 mm ball dropped at (x, y, z) over the boundary add(sim, material) makes; where it is after
    0.1 s, and the boundary's load."""
    sim = dem.Simulator(domain=((-0.01, -0.01, -0.01), (0.01, 0.01, 0.01)), precision="double")
    sim.set_log(False)
    m = sim.add_material(dem.Material("glass", restitution=0.3))
    b = add(sim, m)
    sim.add_particles([(x, y, z)], r, m)
    dem.run(sim, 0.1)
    # A ball that fell past left through the domain's floor (gravity is the only force beside the
    # boundary): it is lost and compacted away, its position NaN; report it as below everything.
    z = sim.positions()[0, 2] if sim.num_lost == 0 else -np.inf
    return z, np.array(sim.boundary_force(b)), sim.inspect_particles().mass * G


def write_stl(path, triangles):
    with open(path, "w") as f:
        f.write("solid floor\n")
        for tri in triangles:
            f.write(" facet normal 0 0 1\n  outer loop\n")
            for v in tri:
                f.write("   vertex %r %r %r\n" % v)
            f.write("  endloop\n endfacet\n")
        f.write("endsolid floor\n")


def test_finite_boundaries_hold_a_ball_only_where_they_are(tmp_path):
    """Discs, annuli, plates and a mesh read from an STL file: a ball dropped over them rests at one
    radius with the boundary carrying its weight; dropped beside them (or over the annulus's hole) it
    falls past and the boundary carries nothing."""
    stl = str(tmp_path / "floor.stl")
    write_stl(stl, [((-0.008, -0.008, 0.0), (0.008, -0.008, 0.0), (0.008, 0.008, 0.0)),
                    ((-0.008, -0.008, 0.0), (0.008, 0.008, 0.0), (-0.008, 0.008, 0.0))])
    cases = [
        ("disc", lambda s, m: s.add_disc((0, 0, 0), (0, 0, 1), 0.004, m), (0.0, 0.0), (0.006, 0.0)),
        ("annulus", lambda s, m: s.add_disc((0, 0, 0), (0, 0, 1), 0.006, m, inner_radius=0.002), (0.004, 0.0), (0.0, 0.0)),
        ("plate", lambda s, m: s.add_plate((0, 0, 0), (0, 0, 1), (1, 0, 0), 0.004, 0.002, m), (0.003, 0.0), (0.0, 0.004)),
        ("stl mesh", lambda s, m: s.add_mesh(stl, m), (0.001, 0.002), (0.009, 0.0)),
    ]
    for name, add, on, off in cases:
        z, load, weight = ball_over(add, *on)
        assert z == pytest.approx(1e-3, abs=2e-6), name  # resting (Hertz sink about 0.6 um)
        np.testing.assert_allclose(load, (0, 0, -weight), rtol=1e-6, atol=1e-15, err_msg=name)
        z, load, _ = ball_over(add, *off)
        assert z < -0.005, name  # fell past
        np.testing.assert_array_equal(load, 0)


def test_a_hopper_cone_holds_a_ball_larger_than_its_outlet():
    """A cone widening upwards (half-angle atan(1/2)) from an outlet: a ball of radius 1 mm stops
    where the wall is one radius from its centre, z = z_apex + r / sin(alpha); with an outlet wider
    than the ball it falls through. Only the height is checked: on the axis the ball touches a whole
    circle, and one contact point on it pushes the ball sideways. It then chatters across the axis,
    and the reported load swings between 60 and 76 times its weight sideways (measured after 0.2 s)."""
    alpha = math.atan(0.5)
    z, _, _ = ball_over(lambda s, m: s.add_cone((0, 0, -0.005), (0, 0, 1), 0.0, 0.005, 0.01, m), 0.0, 0.0, z=0.0005)
    assert z == pytest.approx(-0.005 + 1e-3 / math.sin(alpha), abs=5e-5)
    z, _, _ = ball_over(lambda s, m: s.add_cone((0, 0, -0.005), (0, 0, 1), 0.0015, 0.005, 0.01, m), 0.0, 0.0, z=0.0005)
    assert z < -0.005


def test_the_mesh_from_arrays_reports_the_load_per_triangle():
    sim = dem.Simulator(domain=((0, 0, -0.001), (0.01, 0.01, 0.01)), dt=1e-5, precision="double")
    sim.set_log(False)
    m = sim.add_material(dem.Material("glass", restitution=0.3))
    v = [(0, 0, 0), (0.01, 0, 0), (0.01, 0.01, 0), (0, 0.01, 0)]
    floor = sim.add_mesh(np.array(v), np.array([(0, 1, 2), (0, 2, 3)]), m, name="floor")
    assert sim.boundary(floor) == {"name": "floor", "kind": "mesh", "material": m, "elements": 2}
    sim.add_particles([(0.007, 0.003, 0.002), (0.003, 0.007, 0.002)], 1e-3, m)  # one over each triangle
    dem.run(sim, 0.1)
    w = sim.inspect_particles().mass * G / 2
    np.testing.assert_allclose(sim.boundary_element_forces(floor), [(0, 0, -w), (0, 0, -w)], rtol=1e-6, atol=1e-15)


# ---- regions ------------------------------------------------------------------------------------

def test_regions_select_what_numpy_selects():
    sim = dem.Simulator(domain=((0, 0, 0), (0.01, 0.01, 0.01)), precision="double")
    sim.set_log(False)
    m = sim.add_material(dem.Material("g", density=2000))
    sim.add_particles(dem.sample.cubic_lattice(((0, 0, 0), (0.01, 0.01, 0.01)), radius=4e-4, jitter=1e-4, radius_spread=0.2), m)
    x, r = sim.positions(), sim.radii()
    mass = 2000 * 4 / 3 * math.pi * r ** 3
    c = np.array((0.005, 0.005, 0.005))
    regions = [
        (dem.inspect.Ball(tuple(c), 0.003), np.linalg.norm(x - c, axis=1) < 0.003),
        (dem.inspect.Box((0.001, 0.002, 0.003), (0.006, 0.008, 0.009)), np.all((x > (0.001, 0.002, 0.003)) & (x < (0.006, 0.008, 0.009)), axis=1)),
        (dem.inspect.Cylinder((0.005, 0.005, 0.002), (0, 0, 1), 0.003, 0.005), (np.hypot(*(x[:, :2] - c[:2]).T) < 0.003) & (x[:, 2] > 0.002) & (x[:, 2] < 0.007)),
        (dem.inspect.HalfSpace((0, 0, 0.004), (0, 0, 1)), x[:, 2] > 0.004),
        (None, np.ones(len(x), bool)),
    ]
    for region, inside in regions:
        s = sim.inspect_particles(region)
        assert 10 < s.count == inside.sum()
        assert s.mass == pytest.approx(mass[inside].sum(), rel=1e-12)
        np.testing.assert_allclose(s.centre_of_mass, (mass[inside, None] * x[inside]).sum(0) / mass[inside].sum(), rtol=1e-12)
    s = sim.inspect_particles()
    assert s.volume == pytest.approx((4 / 3 * math.pi * r ** 3).sum(), rel=1e-12)
    np.testing.assert_allclose(s.extent_lo, (x - r[:, None]).min(0), rtol=1e-12)
    np.testing.assert_allclose(s.extent_hi, (x + r[:, None]).max(0), rtol=1e-12)


# ---- families, forces, trackers -----------------------------------------------------------------

def test_disabled_contacts_let_one_family_pass_through_another():
    results = {}
    for disable in (False, True):
        sim = dem.Simulator(domain=((0, 0, 0), (0.01, 0.01, 0.03)), precision="double")
        sim.set_log(False)
        m = sim.add_material(dem.Material("g", restitution=0.3))
        sim.add_box(sim.config.domain, m)
        sim.add_particles([(0.001 + 0.002 * i, 0.001 + 0.002 * j, 0.005) for i in range(5) for j in range(5)], 1e-3, m, family=1)
        sim.add_particles([(0.005, 0.005, 0.009)], 8e-4, m, family=0)
        sim.set_family_motion(1, dem.family.Fixed())
        if disable:
            sim.disable_contacts(0, 1)
        assert sim.contacts_enabled(0, 1) is not disable
        dem.run(sim, 0.2)
        results[disable] = sim.positions()[25, 2]
    assert results[False] == pytest.approx(0.005 + 1e-3 + 8e-4, abs=1e-5)  # resting on the fixed layer
    assert results[True] == pytest.approx(8e-4, abs=1e-5)  # through it, onto the floor


def test_family_motions_accelerations_and_forces():
    sim = dem.Simulator(domain=((0, 0, 0), (0.01, 0.01, 0.03)), precision="double")
    sim.set_log(False)
    m = sim.add_material(dem.Material("g"))
    sim.add_particles([(0.002, 0.005, 0.02), (0.005, 0.005, 0.02), (0.008, 0.005, 0.02), (0.005, 0.002, 0.01)], 5e-4, m,
                      velocities=[(0, 0, 0), (0, 0, 0), (0, 0, 0), (0.01, 0, 0)])
    sim.set_families(np.array([1, 2, 3, 4], dtype=np.uint32))
    sim.set_family_motion(1, dem.family.ConstantVelocity(velocity=(0, 0.01, 0.02)))
    sim.set_family_acceleration(2, (0, 0, G))  # cancels gravity
    mass = sim.inspect_particles(family=3).mass
    sim.set_family_force(3, (0, 0, 2 * mass * G))  # net g upwards
    sim.set_family_motion(4, dem.family.ConstantVelocity(velocity=(0, 0, 0), linear="z"))  # only z held
    x0 = sim.positions()
    sim.step(500)
    t, d = sim.time, sim.positions() - x0
    np.testing.assert_allclose(d[0], (0, 0.01 * t, 0.02 * t), rtol=1e-9)
    np.testing.assert_array_equal(d[1], 0)
    np.testing.assert_allclose(d[2], (0, 0, 0.5 * G * t * t), rtol=1e-9)  # velocity Verlet: exact for a constant force
    np.testing.assert_allclose(sim.velocities()[3], (0.01, 0, 0), rtol=1e-12)  # x free, z held at 0
    np.testing.assert_allclose(d[3], (0.01 * t, 0, 0), rtol=1e-9)


def test_external_forces_act_until_cleared():
    sim = dem.Simulator(domain=((0, 0, 0), (0.01, 0.01, 0.03)), precision="double")
    sim.set_log(False)
    m = sim.add_material(dem.Material("g"))
    sim.add_particles([(0.005, 0.005, 0.02), (0.003, 0.003, 0.02)], 5e-4, m)
    mass = sim.inspect_particles().mass / 2
    sim.set_external_forces([(mass * 1.0, 0, mass * G), (0, 0, 0)])  # 1 m/s^2 sideways, weight held
    sim.step(500)
    t = sim.time
    np.testing.assert_allclose(sim.velocities(), [(1.0 * t, 0, 0), (0, 0, -G * t)], rtol=1e-9, atol=1e-15)
    sim.clear_external_forces()
    sim.step(100)
    np.testing.assert_allclose(sim.velocities()[0], (1.0 * t, 0, -G * 100 * sim.dt), rtol=1e-9)


def test_a_family_changes_when_its_particles_enter_a_box():
    sim = dem.Simulator(domain=((0, 0, 0), (0.01, 0.01, 0.03)), precision="double")
    sim.set_log(False)
    m = sim.add_material(dem.Material("g"))
    sim.add_particles([(0.005, 0.005, 0.025)], 5e-4, m)
    sim.change_family(0, 4, box=((0, 0, 0), (0.01, 0.01, 0.015)), every_step=True)
    while sim.families()[0] == 0:
        sim.step(10)
        assert sim.time < 0.1
    # It changed within the 10 steps after its centre crossed z = 0.015.
    z = sim.positions()[0, 2]
    assert 0.015 - 10 * sim.dt * abs(sim.velocities()[0, 2]) - 1e-9 < z < 0.015
    sim.clear_family_predicates()


def test_trackers_read_and_write_in_their_own_order():
    sim, _ = lattice_sim(n=27, precision="double")
    dem.run(sim, 0.02)
    t = sim.track([20, 3, 11])
    assert list(t.ids) == [20, 3, 11] and len(t) == 3
    np.testing.assert_array_equal(t.positions(), sim.positions()[[20, 3, 11]])
    np.testing.assert_array_equal(t.velocities(), sim.velocities()[[20, 3, 11]])
    assert t.active().tolist() == [True] * 3
    t.set_velocities([(0, 0, 0.5), (0, 0, 0), (0, 0, 0)])
    np.testing.assert_array_equal(sim.velocities()[20], (0, 0, 0.5))
    t.set_family(7)
    fam = sim.families()
    assert fam[[20, 3, 11]].tolist() == [7, 7, 7] and (fam == 7).sum() == 3
    assert list(sim.track_family(7).ids) == [3, 11, 20]
    # A tracker keeps its simulator alive.
    del sim
    gc.collect()
    assert t.positions().shape == (3, 3)


def test_a_python_motion_that_raises_stops_the_step_with_its_exception():
    sim, mat = lattice_sim(n=8)
    lid = sim.add_plane((0, 0, 0.019), (0, 0, -1), mat)

    def broken(t):
        raise ZeroDivisionError("boom at %g" % t)

    sim.set_motion(lid, broken)
    with pytest.raises(ZeroDivisionError, match="boom at 1e-05"):
        sim.step(5)
    assert sim.step_count == 0 and sim.time == 0
    sim.set_motion(lid, dem.boundary.Fixed())
    sim.step(5)
    assert sim.step_count == 5


@pytest.mark.parametrize("cause", ["python_exception", "restored_user_motion"])
def test_a_refused_step_leaves_the_state_as_it_was(cause, tmp_path):
    """A step refused by its boundary motion (a Python motion that raises, or a restored user motion
    not set again) is undone: the particles have not been kicked or drifted, the clock stands."""
    spin = lambda t: dem.boundary.RigidMotion(rotation=(math.cos(2.5 * t), 0, math.sin(2.5 * t), 0), omega=(0, 5, 0))
    sim, d = drum(spin)
    sim.step(50)
    if cause == "python_exception":
        def broken(t):
            raise ZeroDivisionError("boom")
        sim.set_motion(d, broken)
        error = ZeroDivisionError
    else:
        path = str(tmp_path / "py.ckpt")
        sim.save_checkpoint(path)
        sim = dem.from_checkpoint(path, precision="double")
        error = ValueError
    x, v = sim.positions(), sim.velocities()
    with pytest.raises(error):
        sim.step()
    assert sim.step_count == 50
    np.testing.assert_array_equal(sim.velocities(), v)
    np.testing.assert_array_equal(sim.positions(), x)


def test_a_pair_override_sets_the_restitution_between_two_materials():
    """Spheres of a material with e = 0.8 on a wall with e = 0.8: set_pair(restitution=0.4) for that pair
    makes the rebound 0.4; the pair's friction can be switched off the same way."""
    def rebound(override):
        r, speed = 1e-3, 0.5
        sim = dem.Simulator(domain=((-0.01, -0.01, -0.001), (0.01, 0.01, 0.02)), gravity=(0, 0, 0), precision="double")
        sim.set_log(False)
        a = sim.add_material(dem.Material("glass", youngs_modulus=1e8, restitution=0.8))
        b = sim.add_material(dem.Material("steel", youngs_modulus=2e11, restitution=0.8, rigid=True))
        if override:
            sim.set_pair(a, b, restitution=0.4)
        sim.add_plane((0, 0, 0), (0, 0, 1), b)
        sim.add_particles([(0, 0, r * 1.001)], r, a, velocities=[(0, 0, -speed)])
        sim.dt = sim.stable_time_step() / 200
        dem.run(sim, 4 * r / speed, chunk=1000)
        assert sim.positions()[0, 2] > r
        return sim.velocities()[0, 2] / speed
    assert rebound(False) == pytest.approx(0.8, rel=0.02)
    assert rebound(True) == pytest.approx(0.4, rel=0.02)
