"""The Python API: errors, NumPy views and copies, checkpoints, output, boundaries and their motion,
families, trackers, inlets and outlets; each checked against what it must do, not only that it
returns."""

import math
import os

import numpy as np
import pytest

import dem


def small_sim(n=27, precision="single", **kw):
    """n spheres on a lattice in a 10 mm box with walls, at rest."""
    sim = dem.Simulator(domain=((0, 0, 0), (0.01, 0.01, 0.02)), dt=1e-5, precision=precision, **kw)
    sim.set_log(False)
    mat = sim.add_material(dem.Material("glass", density=2500, youngs_modulus=1e7, restitution=0.5, friction=0.5))
    sim.add_box(sim.config.domain, mat)
    sim.add_particles(dem.sample.cubic_lattice(((0, 0, 0), (0.01, 0.01, 0.02)), radius=8e-4, jitter=1e-4, max_count=n), mat)
    return sim, mat


# ---- errors -------------------------------------------------------------------------------------

def test_bad_input_raises_value_error_with_the_cpp_message():
    sim, mat = small_sim()
    with pytest.raises(ValueError, match=r"radius of particle 27 is -0.001, but it must be > 0"):
        sim.add_particles([(0.005, 0.005, 0.015)], -1e-3, mat)
    with pytest.raises(ValueError, match=r"position of particle 27 is not finite"):
        sim.add_particles([(math.nan, 0.005, 0.015)], 1e-3, mat)
    with pytest.raises(ValueError, match=r"dt is 0, but it must be > 0 and finite"):
        sim.dt = 0.0
    with pytest.raises(ValueError, match=r"exceeds the stable time step"):
        sim.dt = 1.0
        sim.step()
    with pytest.raises(ValueError, match=r"mesh file '/nonexistent.stl'"):
        sim.add_mesh("/nonexistent.stl", mat)
    with pytest.raises(ValueError, match=r"must be an \(n, 3\) array"):
        sim.set_velocities(np.zeros((27, 2)))


def test_an_unbuilt_combination_names_what_is_built():
    with pytest.raises(ValueError, match=r"(?s)no simulator for shape='sphere', law='hertz_mindlin', precision='mixed'.*sphere, hertz_mindlin, single, host"):
        dem.Simulator(domain=((0, 0, 0), (1, 1, 1)), precision="mixed")
    assert ("sphere", "linear_spring_dashpot", "double", "host") in dem.available()
    assert ("polyhedron", "hertz_mindlin", "single", "host") in dem.available()


def cuda_state():
    """(has CUDA classes, GPU usable, why not)."""
    if not any(k[3] == "cuda" for k in dem.available()):
        return False, False, "this build has no CUDA classes (no nvcc, or DEM_PYTHON_CUDA=OFF)"
    ok, why = dem._core.cuda_device_available()
    return True, ok, why


def test_cuda_without_a_gpu_is_refused_with_the_reason():
    built, gpu, why = cuda_state()
    if not built or gpu:
        pytest.skip(why if not built else "a GPU is present (test_cuda_runs_as_the_host does)")
    with pytest.raises(RuntimeError, match="no usable CUDA device"):
        dem.Simulator(domain=((0, 0, 0), (1, 1, 1)), backend="cuda")


def test_cuda_runs_as_the_host():
    built, gpu, why = cuda_state()
    if not (built and gpu):
        pytest.skip("GPU test not run: " + why)
    runs = []
    for backend in ("host", "cuda"):
        sim, _ = small_sim(n=64, backend=backend)
        dem.run(sim, 0.05)
        runs.append((sim.positions(), sim.kinetic_energy(), sim.inspect_particles().count))
    (xh, eh, nh), (xc, ec, nc) = runs
    assert nh == nc == 64
    # Not the same bits across backends (summation order), the same physics: a bed 1 mm deep.
    assert np.abs(xh[:, 2].mean() - xc[:, 2].mean()) < 2e-4
    with pytest.raises(TypeError, match="on the device"):
        sim.local_arrays()


# ---- the state: copies by id and views in place -------------------------------------------------

def test_local_arrays_are_read_only_views_in_storage_order():
    sim, _ = small_sim(n=64)
    dem.run(sim, 0.02)  # a few rebuilds: the storage order is no longer the id order
    by_id = sim.positions()
    with dem.local_arrays(sim) as a:
        x, ids = a["position"], a["id"]
        assert x.dtype == np.float32 and x.shape == (64, 3)
        assert not x.flags.writeable and not x.flags.owndata
        with pytest.raises(ValueError):
            x[0, 0] = 1.0
        # The same memory on a second read (no copy), and the same values as the copy by id.
        with dem.local_arrays(sim) as b:
            assert np.shares_memory(b["position"], x)
        assert sorted(ids) == list(range(64))
        np.testing.assert_array_equal(x.astype(np.float64), by_id[ids])
        np.testing.assert_array_equal(a["radius"].astype(np.float64), sim.radii()[ids])
        with pytest.raises(RuntimeError, match="local_arrays"):
            sim.step()
    sim.step()  # allowed again after the block


def test_set_velocities_by_id_moves_the_particles():
    sim, _ = small_sim(n=8, precision="double", gravity=(0, 0, 0))
    v = np.zeros((8, 3))
    v[3] = (0.01, 0, 0)
    before = sim.positions()
    sim.set_velocities(v)
    sim.step(100)
    moved = sim.positions() - before
    assert moved[3, 0] == pytest.approx(0.01 * 100 * sim.dt, rel=1e-3)
    assert np.abs(np.delete(moved, 3, axis=0)).max() < 1e-9


# ---- checkpoints and files ----------------------------------------------------------------------

def test_a_checkpoint_continues_to_the_same_bits(tmp_path):
    sim, _ = small_sim(n=64, precision="double")
    dem.run(sim, 0.01)
    path = str(tmp_path / "bed.ckpt")
    sim.save_checkpoint(path)
    sim.step(300)
    again = dem.from_checkpoint(path, precision="double")
    again.step(300)
    assert again.time == sim.time
    np.testing.assert_array_equal(again.positions(), sim.positions())
    np.testing.assert_array_equal(again.velocities(), sim.velocities())
    # load_checkpoint rewinds an existing simulator.
    sim.load_checkpoint(path)
    sim.step(300)
    np.testing.assert_array_equal(again.positions(), sim.positions())


def test_csv_and_vtu_output(tmp_path):
    sim, _ = small_sim(n=27)
    sim.step(50)
    sim.write_csv(str(tmp_path / "p.csv"))
    back = dem.io.read_csv(str(tmp_path / "p.csv"))
    np.testing.assert_allclose(back["position"], sim.positions(), rtol=1e-6)
    assert list(back["id"]) == list(range(27))
    series = dem.io.VtkSeries(str(tmp_path / "frames"))
    for _ in range(3):
        sim.step(10)
        sim.write_frame(series)
    assert series.frames == 3
    assert os.path.exists(series.pvd_path)
    files = os.listdir(tmp_path / "frames")
    assert sum(f.endswith(".vtu") for f in files) >= 3


# ---- boundaries ---------------------------------------------------------------------------------

def test_a_lowered_piston_compresses_the_bed_with_a_servo():
    sim, mat = small_sim(n=50)
    dem.run(sim, 0.1)
    top = sim.inspect_particles().highest[2] + 8e-4
    piston = sim.add_plate((0.005, 0.005, top + 5e-4), (0, 0, -1), (1, 0, 0), 0.005, 0.005, mat, name="piston")
    sim.set_motion(piston, dem.boundary.Servo(direction=(0, 0, -1), speed=0.05, target_force=1.0))
    dem.run(sim, 0.05, callback=lambda s: not s.servo_state(piston).reached)
    state = sim.servo_state(piston)
    assert state.reached
    assert state.load == pytest.approx(1.0, rel=0.02)
    assert sim.boundary_force(piston)[2] > 0  # the bed pushes the piston up


def test_a_python_function_moves_a_boundary():
    sim, mat = small_sim(n=8)
    lid = sim.add_plate((0.005, 0.005, 0.019), (0, 0, -1), (1, 0, 0), 0.004, 0.004, mat, name="lid")
    calls = []

    def sink(t):
        calls.append(t)
        return dem.boundary.RigidMotion(translation=(0, 0, -0.01 * t), velocity=(0, 0, -0.01))

    sim.set_motion(lid, sink)
    sim.step(20)
    assert len(calls) >= 20 and calls == sorted(calls)
    with pytest.raises(TypeError, match="must return a dem.boundary.RigidMotion"):
        sim.set_motion(lid, lambda t: 3)
        sim.step()


def test_a_mesh_from_arrays_is_a_floor():
    sim = dem.Simulator(domain=((0, 0, -0.001), (0.01, 0.01, 0.01)), dt=1e-5)
    sim.set_log(False)
    m = sim.add_material(dem.Material("glass", restitution=0.3))
    v = [(0, 0, 0), (0.01, 0, 0), (0.01, 0.01, 0), (0, 0.01, 0)]
    sim.add_mesh(v, [(0, 1, 2), (0, 2, 3)], m, name="floor")
    sim.add_particles([(0.005, 0.005, 0.003)], 1e-3, m)
    dem.run(sim, 0.1)
    assert sim.positions()[0][2] == pytest.approx(1e-3, abs=5e-5)  # resting on the mesh
    assert sim.boundary_force(0)[2] == pytest.approx(-sim.inspect_particles().mass * 9.81, rel=1e-3)
    with pytest.raises(ValueError, match="names vertex 7"):
        sim.add_mesh(v, [(0, 1, 7)], m)


# ---- families, trackers, flow -------------------------------------------------------------------

def test_a_fixed_family_stays_put_and_a_tracker_follows_ids():
    sim, _ = small_sim(n=27)
    fam = np.zeros(27, dtype=np.uint32)
    fam[:9] = 1  # the lowest layer
    sim.set_families(fam)
    sim.set_family_motion(1, dem.family.Fixed())
    before = sim.positions()
    dem.run(sim, 0.05)
    after = sim.positions()
    np.testing.assert_array_equal(after[:9], before[:9])
    assert np.all(after[9:, 2] < before[9:, 2])  # the others fell
    t = sim.track([20, 3, 11])
    np.testing.assert_array_equal(t.positions(), after[[20, 3, 11]])
    assert list(sim.track_family(1).ids) == list(range(9))
    moved = sim.change_family(0, 2, box=((0, 0, 0), (0.01, 0.01, 1.0)), max_speed=1e3)
    assert moved == 18
    assert (sim.families() == 2).sum() == 18


def test_an_inlet_fills_and_an_outlet_empties():
    sim = dem.Simulator(domain=((0, 0, 0), (0.01, 0.01, 0.03)), dt=1e-5)
    sim.set_log(False)
    m = sim.add_material(dem.Material("glass"))
    sim.add_box(sim.config.domain, m)
    sim.add_inlet(((0.001, 0.001, 0.02), (0.009, 0.009, 0.028)), dem.sample.NormalRadii(6e-4, 5e-5), m, rate=2000, stop=0.05)
    sim.add_outlet(((0, 0, 0), (0.01, 0.01, 0.003)))
    dem.run(sim, 0.2)
    inlet, outlet = sim.inlet(0), sim.outlet(0)
    assert inlet["count"] == sim.num_particles > 50
    assert outlet["count"] == sim.num_removed > 0
    assert sim.num_active == sim.num_particles - sim.num_removed - sim.num_lost
    # Storage is compacted at a contact-list build: what left is gone from it, ids stay.
    sim.rebuild_contact_list()
    assert sim.num_stored == sim.num_active
    x, active = sim.positions(), sim.active()
    assert x.shape == (sim.num_particles, 3) and active.shape == (sim.num_particles,)
    assert np.isnan(x[:, 0]).sum() == sim.num_particles - sim.num_active == (~active).sum()
