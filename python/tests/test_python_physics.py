"""Physics through Python: restitution, free fall, a settled bed's packing, the energy ledger, a
rotating drum's torque, rigid bodies and deformable spheres (the same checks as the C++ tests,
driven from the bindings)."""

import math

import numpy as np
import pytest

import dem

# Every sphere law this build holds (the adhesive and cohesive ones without adhesion or cohesion:
# then their normal law is Hertz's).
SPHERE_LAWS = sorted({law for shape, law, precision, backend in dem.available() if shape == "sphere" and backend == "host"})


def drop_on_plane(law, precision, e, speed=0.5, r=1e-3):
    """A sphere thrown at a rigid plane without gravity (the C++ tests' impact, tests/support/
    scenarios.hpp): the rebound ratio of the normal velocity, at dt = stable step / 200."""
    domain = ((-0.01, -0.01, -0.001), (0.01, 0.01, 0.02))
    sim = dem.Simulator(domain=domain, gravity=(0, 0, 0), law=law, precision=precision)
    sim.set_log(False)
    glass = dem.Material("glass", density=2500, youngs_modulus=1e8, restitution=e, friction=0.3)
    mat = sim.add_material(glass)
    wall = sim.add_material(dem.Material("steel", density=7800, youngs_modulus=2e11, restitution=e, friction=0.3, rigid=True))
    sim.add_plane((0, 0, 0), (0, 0, 1), wall)
    sim.add_particles([(0, 0, r * 1.001)], r, mat, velocities=[(0, 0, -speed)])
    sim.dt = sim.stable_time_step() / 200
    touched = False
    for _ in range(100000):
        sim.step(10)
        gap = sim.positions()[0][2] - r
        if gap < 0:
            touched = True
        elif touched:
            break
    assert touched and sim.positions()[0][2] > r, "the sphere must have hit the plane and left it"
    return sim.velocities()[0][2] / speed


@pytest.mark.parametrize("law", SPHERE_LAWS)
@pytest.mark.parametrize("precision", ["single", "double"])
def test_restitution_equals_the_material_value(law, precision):
    for e in (0.3, 0.8):
        assert drop_on_plane(law, precision, e) == pytest.approx(e, rel=0.02)


def test_free_fall_is_exact_to_rounding():
    sim = dem.Simulator(domain=((0, 0, 0), (0.01, 0.01, 0.1)), dt=1e-5, precision="double")
    m = sim.add_material(dem.Material("glass"))
    sim.add_particles([(0.005, 0.005, 0.09)], 1e-3, m)
    n = 1000
    sim.step(n)
    t = n * sim.dt
    assert sim.time == pytest.approx(t, rel=1e-12)
    assert sim.velocities()[0][2] == pytest.approx(-9.81 * t, rel=1e-9)
    assert sim.positions()[0][2] == pytest.approx(0.09 - 0.5 * 9.81 * t * t, abs=1e-6 * 9.81 * t * t)


@pytest.fixture(scope="module")
def settled_bed():
    """1,500 glass beads poured into a 15 mm box and settled (shared by the bed tests; double
    precision, where the ledger's books close to 1e-3 as in the C++ tests)."""
    w = 0.015
    sim = dem.Simulator(domain=((0, 0, 0), (w, w, 0.05)), dt=1e-5, precision="double")
    glass = sim.add_material(dem.Material("glass", density=2500, youngs_modulus=1e7, restitution=0.3, friction=0.5, rolling_friction=0.05))
    sim.add_box(sim.config.domain, glass)
    beads = dem.sample.cubic_lattice(((0, 0, 0), (w, w, 0.05)), radius=5e-4, radius_spread=0.1, spacing=1.25e-3, jitter=5e-5, max_count=1500)
    sim.add_particles(beads, glass)
    sim.enable_energy_ledger()
    dem.run(sim, 0.25)
    return sim


def test_a_settled_bed_has_a_random_packing_fraction(settled_bed):
    sim = settled_bed
    assert sim.num_active == 1500
    assert sim.kinetic_energy() < 1e-9
    top = np.sort(sim.positions()[:, 2] + sim.radii())[-75:].mean()
    m = 4 * 5e-4
    inside = dem.inspect.Box((m, m, m), (0.015 - m, 0.015 - m, top - m))
    phi = sim.inspect_particles(inside).packing_fraction
    assert 0.55 < phi < 0.64, phi  # random loose to random close packing of frictional spheres
    c = sim.inspect_contacts(inside)
    assert 3.5 < c.coordination < 6.5, c.coordination
    # The bed carries its own weight: compressive vertical stress of the order of rho phi g depth.
    assert c.stress[2, 2] < 0
    assert c.mean_pressure > 0


def test_the_energy_ledger_balances(settled_bed):
    led = settled_bed.energy_ledger()
    assert led.dissipated > 0
    # What gravity released went into dissipation and what is stored. The books' error is second
    # order in dt (velocity Verlet): 2.7e-3 of the energy at this dt (a quarter of the Rayleigh
    # step), 6.5e-4 at dt / 2.
    assert abs(led.relative_imbalance) < 5e-3, led.relative_imbalance
    assert led.potential_change < 0


def test_the_bed_weighs_on_the_floor(settled_bed):
    sim = settled_bed
    floor = next(b for b in range(sim.num_boundaries) if sim.boundary(b)["name"] == "box -z")
    weight = sim.inspect_particles().mass * 9.81
    assert -sim.boundary_force(floor)[2] == pytest.approx(weight, rel=0.15)  # the side walls carry some (Janssen)
    total = sum(sim.boundary_force(b)[2] for b in range(sim.num_boundaries))
    assert -total == pytest.approx(weight, rel=0.01)


def test_a_turning_drum_needs_a_torque_against_its_rotation():
    R, L = 0.015, 0.01
    sim = dem.Simulator(domain=((-R - 1e-3, -L / 2 - 1e-3, -R - 1e-3), (R + 1e-3, L / 2 + 1e-3, R + 1e-3)), law="hertz_mindlin_epsd")
    sim.set_log(False)
    beads = sim.add_material(dem.Material("beads", density=2500, youngs_modulus=5e7, restitution=0.5, friction=0.5, rolling_friction=0.1))
    steel = sim.add_material(dem.Material("steel", density=7800, youngs_modulus=2e11, rigid=True))
    drum = sim.add_cylinder((0, -L / 2, 0), (0, 1, 0), R, steel, length=L, cap_base=True, cap_top=True)
    grid = dem.sample.cubic_lattice(((-R, -L / 2, -R), (R, L / 2, 0)), radius=8e-4, jitter=5e-5)
    keep = np.hypot(grid.positions[:, 0], grid.positions[:, 2]) < R - 1.5e-3
    sim.add_particles(grid.positions[keep], grid.radii[keep], beads)
    dem.run(sim, 0.1)
    omega = 6.0
    sim.set_motion(drum, dem.boundary.ConstantVelocity(omega=(0, omega, 0)))
    dem.run(sim, 0.3)
    torque = np.mean([(dem.run(sim, 0.005), sim.boundary_torque(drum)[1])[1] for _ in range(10)])
    power = sim.boundary_power(drum)
    assert torque * omega < 0, "the bed resists the drum's rotation"
    assert power > 0, "the drum drives the bed"
    # The bed is lifted on the rising side: its centre of mass moves off the axis against the turn.
    com = sim.inspect_particles().centre_of_mass
    assert com[0] * omega < 0
    assert sim.num_lost == 0


def test_clumps_and_polyhedra_come_to_rest_on_the_floor():
    for shape in ("clump", "polyhedron"):
        sim = dem.Simulator(domain=((0, 0, 0), (0.02, 0.02, 0.03)), dt=2e-6, shape=shape)
        sim.set_log(False)
        m = sim.add_material(dem.Material("grain", density=2500, youngs_modulus=1e7, restitution=0.3, friction=0.5))
        sim.add_box(sim.config.domain, m)
        if shape == "clump":
            t = dem.shapes.make_clump("pair", [(-4e-4, 0, 0), (4e-4, 0, 0)], [6e-4, 6e-4])
        else:
            c = 8e-4
            t = dem.shapes.make_polyhedron([(x, y, z) for x in (-c, c) for y in (-c, c) for z in (-c, c)], "cube")
        k = sim.add_shape(t)
        pos = [(0.005 + 0.005 * (i % 3), 0.005 + 0.005 * (i // 3), 0.01) for i in range(6)]
        sim.add_bodies(k, pos, m, orientations=[(math.cos(0.3 * i), math.sin(0.3 * i), 0, 0) for i in range(6)])
        dem.run(sim, 0.15, chunk=1000)
        z = sim.positions()[:, 2]
        assert sim.num_active == 6
        assert np.all(z > 0) and np.all(z < t.bounding_radius + 1e-4), (shape, z)
        assert sim.inspect_particles().max_speed < 0.01, shape
        q = sim.orientations()
        assert np.allclose(np.linalg.norm(q, axis=1), 1, atol=1e-5)


def test_a_cube_rests_on_a_mesh_floor_as_on_the_plane():
    """Polyhedra meet triangle meshes (docs/boundaries.md, "Rigid bodies"): a cube dropped across
    the seams of a floor of 8 triangles comes to rest where it rests on the plane, carried by one
    contact (the floor's load is its weight)."""
    rest = {}
    c = 8e-4
    for floor in ("plane", "mesh"):
        sim = dem.Simulator(domain=((-0.01, -0.01, -0.005), (0.01, 0.01, 0.02)), dt=2e-6, shape="polyhedron")
        sim.set_log(False)
        m = sim.add_material(dem.Material("grain", density=2500, youngs_modulus=1e7, restitution=0.3, friction=0.5))
        if floor == "plane":
            b = sim.add_plane((0, 0, 0), (0, 0, 1), m)
        else:
            v = [(x, y, 0.0) for y in (-0.01, 0.0, 0.01) for x in (-0.01, 0.0, 0.01)]
            tris = []
            for j in range(2):
                for i in range(2):
                    a, b_, d, e = 3 * j + i, 3 * j + i + 1, 3 * (j + 1) + i, 3 * (j + 1) + i + 1
                    tris += [(a, b_, e), (a, e, d)]
            b = sim.add_mesh(np.array(v), np.array(tris), m)
        k = sim.add_shape(dem.shapes.make_polyhedron([(x, y, z) for x in (-c, c) for y in (-c, c) for z in (-c, c)], "cube"))
        sim.add_bodies(k, [(3e-4, -2e-4, 1.05 * c)], m)
        dem.run(sim, 0.05, chunk=1000)
        rest[floor] = (sim.positions()[0].copy(), sim.boundary_force(b)[2])
    weight = 2500 * (2 * c) ** 3 * 9.81
    assert rest["mesh"][0] == pytest.approx(rest["plane"][0], abs=3e-8)  # single precision; a doubled contact would rest 2e-7 m higher
    assert -rest["mesh"][1] == pytest.approx(weight, rel=1e-3)
    assert -rest["plane"][1] == pytest.approx(weight, rel=1e-3)


def test_a_cube_rests_on_a_disc_and_on_a_rod_as_meshes_of_facets():
    """Polyhedra meet discs and the outside of cylinders as meshes of flat facets
    (docs/boundaries.md, "Rigid bodies"): config.facet_tolerance sets how close to the true surface
    they lie. A cube comes to rest on a disc and on top of a rod, each carrying its weight."""
    c = 8e-4
    weight = 2500 * (2 * c) ** 3 * 9.81
    for kind in ("disc", "rod"):
        sim = dem.Simulator(domain=((-0.01, -0.01, -0.01), (0.01, 0.01, 0.02)), dt=2e-6, shape="polyhedron", facet_tolerance=1e-6)
        assert sim.config.facet_tolerance == 1e-6
        sim.set_log(False)
        m = sim.add_material(dem.Material("grain", density=2500, youngs_modulus=1e7, restitution=0.3, friction=0.5))
        if kind == "disc":
            b = sim.add_disc((0, 0, 0), (0, 0, 1), 0.005, m)
        else:  # along y, its top at z = 0
            b = sim.add_cylinder((0, -0.005, -0.003), (0, 1, 0), 0.003, m, length=0.01, inside=False)
        k = sim.add_shape(dem.shapes.make_polyhedron([(x, y, z) for x in (-c, c) for y in (-c, c) for z in (-c, c)], "cube"))
        sim.add_bodies(k, [(0, 0, 1.05 * c)], m)
        dem.run(sim, 0.05, chunk=1000)
        x = sim.positions()[0]
        assert -sim.boundary_force(b)[2] == pytest.approx(weight, rel=1e-3), kind
        assert x[2] == pytest.approx(c, rel=0.01), kind
        assert abs(x[0]) < 1e-6, kind


def test_a_deformable_sphere_keeps_its_volume_when_squeezed():
    sim = dem.Simulator(domain=((-0.003, -0.003, -0.003), (0.003, 0.003, 0.003)), gravity=(0, 0, 0), dt=1e-6, shape="deformable_sphere",
                        allow_initial_overlap=True)
    sim.set_log(False)
    m = sim.add_material(dem.Material("rubber", density=1000, youngs_modulus=1e6, restitution=0.5))
    r = 1e-3
    sim.add_plane((0, 0, -0.9 * r), (0, 0, 1), m)
    sim.add_plane((0, 0, 0.9 * r), (0, 0, -1), m)
    sim.add_particles([(0, 0, 0)], r, m)
    sim.step(10)
    grown = sim.deformed_radii()[0]
    assert grown > r  # two caps of 0.1 r cut off: the radius grows to keep the volume
    h = grown - 0.9 * r
    cap = math.pi * h * h * (3 * grown - h) / 3
    assert 4 / 3 * math.pi * grown ** 3 - 2 * cap == pytest.approx(4 / 3 * math.pi * r ** 3, rel=1e-4)
    assert sim.deformation_report().max_ratio == pytest.approx(grown / r, rel=1e-5)
