"""Contact mechanics and rigid-body dynamics checked through Python against closed forms.

These tests do not repeat test_python_physics.py, which covers the sphere-on-plane restitution, free
fall, the 1,500-bead bed, the drum and the deformable sphere. Here each number comes from a
closed form or a published benchmark:
- Hertz impact: Chung & Ooi (2011) test 1, the C++ tests/force/test_impact.cpp;
- linear contact time: pi sqrt(m*/k);
- restitution and momentum of two unequal spheres;
- static Hertz and linear overlaps; adhesive (JKR, DMT, cohesive) force-free overlaps;
- sliding, rolling and incline kinematics (5/7 and 2/7 factors, mu g);
- a moving wall's (1 + e) U kick;
- vibrated plates below and above Gamma = 1;
- a free-body boundary in free fall;
- the energy ledger of one bounce;
- the force chain in a stack;
- a poured bed's density and stress;
- rigid bodies' mass properties, resting poses and torque-free rotation.
Tolerances are the C++ tests' (2 % on restitution, 1-2 % on impact peaks) unless a comment says
otherwise.
"""

import math

import numpy as np
import pytest

import dem

G = 9.81
SPHERE_LAWS = sorted({k[1] for k in dem.available() if k[0] == "sphere" and k[3] == "host"})
PRECISIONS = ["single", "double"]


def ball_mass(density, r):
    return density * 4.0 / 3.0 * math.pi * r ** 3


def zero_g(L, **kw):
    sim = dem.Simulator(domain=((-L, -L, -L), (L, L, L)), gravity=(0, 0, 0), **kw)
    sim.set_log(False)
    return sim


def head_on(sim, r1, r2, every=1):
    """Steps two spheres on the x axis through one collision; returns (contact time, peak overlap,
    peak |force on sphere 0|, velocities after)."""
    touched, tc, peak_overlap, peak_force = False, 0.0, 0.0, 0.0
    for _ in range(200000):
        sim.step(every)
        x = sim.positions()
        overlap = r1 + r2 - (x[1, 0] - x[0, 0])
        if overlap > 0:
            touched = True
            tc += every * sim.dt
            peak_overlap = max(peak_overlap, overlap)
            peak_force = max(peak_force, abs(sim.forces()[0, 0]))
        elif touched:
            return tc, peak_overlap, peak_force, sim.velocities()
    raise AssertionError("the spheres never separated")


def pair_sim(law, precision, material, r1, r2, v1, v2, dt_fraction, L=None):
    sim = zero_g(L or 1.0 + 20 * max(r1, r2), law=law, precision=precision)
    m = sim.add_material(material)
    gap = 1e-3 * min(r1, r2)
    sim.add_particles([(-r1 - gap / 2, 0, 0), (r2 + gap / 2, 0, 0)], [r1, r2], m, velocities=[(v1, 0, 0), (v2, 0, 0)])
    sim.dt = sim.stable_time_step() * dt_fraction
    return sim


# ---- binary collisions --------------------------------------------------------------------------

@pytest.mark.parametrize("precision", PRECISIONS)
def test_hertz_impact_matches_chung_and_ooi_benchmark_1(precision):
    """Two glass spheres (r = 10 mm, E = 48 GPa, nu = 0.2) at +-10 m/s: Hertz theory gives a peak
    overlap of 274 um, a peak force of 10.7 kN and a contact time of 40 us (Chung & Ooi 2011)."""
    r, E, nu, rho, v = 0.01, 48e9, 0.2, 2800.0, 20.0
    glass = dem.Material("glass", density=rho, youngs_modulus=E, poisson_ratio=nu, restitution=1.0, friction=0.0)
    sim = pair_sim("hertz_mindlin", precision, glass, r, r, v / 2, -v / 2, 1 / 500)
    tc, overlap, force, vel = head_on(sim, r, r)
    e_star, r_star, m_star = E / (2 * (1 - nu * nu)), r / 2, ball_mass(rho, r) / 2
    theory_overlap = (15 * m_star * v * v / (16 * e_star * math.sqrt(r_star))) ** 0.4
    theory_force = 4 / 3 * e_star * math.sqrt(r_star) * theory_overlap ** 1.5
    theory_time = 2.87 * (m_star * m_star / (r_star * e_star * e_star * v)) ** 0.2
    assert theory_overlap == pytest.approx(274e-6, rel=0.01)  # the benchmark's quoted values
    assert overlap == pytest.approx(theory_overlap, rel=0.02)
    assert force == pytest.approx(theory_force, rel=0.02)
    assert tc == pytest.approx(theory_time, rel=0.02)
    assert (vel[1, 0] - vel[0, 0]) / v == pytest.approx(1.0, abs=0.01)  # elastic


@pytest.mark.parametrize("precision", PRECISIONS)
def test_linear_contact_lasts_half_a_period(precision):
    """Steel spheres with the linear spring k = 2 E R* (e = 1): the contact time is pi sqrt(m*/k) and
    the peak overlap v sqrt(m*/k) (tests/force/test_impact.cpp)."""
    r, E, rho, v = 5e-3, 2e11, 7800.0, 1.0
    steel = dem.Material("steel", density=rho, youngs_modulus=E, poisson_ratio=0.3, restitution=1.0, friction=0.0)
    sim = pair_sim("linear_spring_dashpot", precision, steel, r, r, v / 2, -v / 2, 1 / 500)
    tc, overlap, _, vel = head_on(sim, r, r)
    k, m_star = 2 * E * (r / 2), ball_mass(rho, r) / 2
    assert tc == pytest.approx(math.pi * math.sqrt(m_star / k), rel=0.01)
    assert overlap == pytest.approx(v * math.sqrt(m_star / k), rel=0.01)
    assert (vel[1, 0] - vel[0, 0]) / v == pytest.approx(1.0, abs=0.01)


@pytest.mark.parametrize("law", SPHERE_LAWS)
@pytest.mark.parametrize("precision", PRECISIONS)
def test_unequal_spheres_rebound_at_e_and_keep_their_momentum(law, precision):
    """A 2.5 mm alumina sphere at 3.9 m/s hits a 1.5 mm one at rest (about 4.6 times lighter):
    the relative velocity reverses with the factor e (within 2 %), and the total momentum is
    conserved to rounding."""
    r1, r2, v, rho = 2.5e-3, 1.5e-3, 3.9, 4000.0
    masses = np.array([ball_mass(rho, r1), ball_mass(rho, r2)])
    for e in (0.2, 0.7):
        alumina = dem.Material("alumina", density=rho, youngs_modulus=380e9, poisson_ratio=0.23, restitution=e, friction=0.0)
        sim = pair_sim(law, precision, alumina, r1, r2, v, 0.0, 1 / 200, L=0.05)
        _, _, _, vel = head_on(sim, r1, r2, every=5)
        assert (vel[1, 0] - vel[0, 0]) / v == pytest.approx(e, rel=0.02), (law, precision, e)
        assert vel[0, 0] > 0 and vel[1, 0] > vel[0, 0]  # the heavy one follows the light one
        momentum = masses @ vel[:, 0]
        assert momentum == pytest.approx(masses[0] * v, rel=1e-12 if precision == "double" else 1e-5)
        np.testing.assert_array_equal(vel[:, 1:], 0.0)  # head-on: nothing off the line of centres


# ---- a sphere at rest on a plane ----------------------------------------------------------------

@pytest.mark.parametrize("law", ["hertz_mindlin", "linear_spring_dashpot"])
def test_static_overlap_on_a_rigid_plane(law):
    """A 5 mm sphere (E = 10 MPa) resting on a rigid plane sinks by Hertz's
    (3 m g / (4 E* sqrt(R)))^(2/3), E* = E / (1 - nu^2); or, for the linear spring (k = 2 E_h R*,
    E_h = 2E against a rigid wall), by m g / (4 E R). The plane carries exactly the weight."""
    r, E, nu, rho = 5e-3, 1e7, 0.3, 2500.0
    sim = dem.Simulator(domain=((-0.02, -0.02, -0.01), (0.02, 0.02, 0.03)), dt=1e-5, law=law, precision="double")
    sim.set_log(False)
    m = sim.add_material(dem.Material("bead", density=rho, youngs_modulus=E, poisson_ratio=nu, restitution=0.3, friction=0.5))
    w = sim.add_material(dem.Material("wall", density=7800, youngs_modulus=2e11, poisson_ratio=nu, rigid=True))
    floor = sim.add_plane((0, 0, 0), (0, 0, 1), w)
    sim.add_particles([(0, 0, r)], r, m)
    dem.run(sim, 0.1, chunk=10000)
    weight = ball_mass(rho, r) * G
    if law == "hertz_mindlin":
        expected = (3 * weight / (4 * E / (1 - nu * nu) * math.sqrt(r))) ** (2 / 3)
    else:
        expected = weight / (4 * E * r)
    sink = r - sim.positions()[0, 2]
    assert sink == pytest.approx(expected, rel=1e-4), (sink, expected)
    assert abs(sim.velocities()[0, 2]) < 1e-9
    assert sim.boundary_force(floor) == pytest.approx((0, 0, -weight), rel=1e-9, abs=1e-15)


ADHESIVE_LAWS = [law for law in ("hertz_mindlin_jkr", "hertz_mindlin_dmt", "hertz_mindlin_cohesive") if law in SPHERE_LAWS]


@pytest.mark.parametrize("law", ADHESIVE_LAWS)
@pytest.mark.parametrize("precision", PRECISIONS)
def test_an_adhesive_sphere_rests_on_a_plane_at_the_closed_form_overlap(law, precision):
    """Without gravity or load, adhesion pulls a 1 mm sphere onto a rigid plane until the elastic
    repulsion balances it (w = 0.05 J/m^2, E* = 10 MPa, R* = R):
    - DMT, and the cohesive law while touching: 4/3 E* sqrt(R) d^1.5 = 2 pi w R;
    - JKR: a^3 = 9 pi w R^2 / (2 E*), d = a^2 / R - sqrt(2 pi w a / E*) (a force-free contact).
    The overlaps differ (0.82 um and 0.57 um), so each law is told apart from the others."""
    r, w, E = 1e-3, 0.05, 1e7
    sim = zero_g(0.01, law=law, precision=precision, dt=1e-6)
    bead = sim.add_material(dem.Material("bead", density=2500, youngs_modulus=E, restitution=0.2, friction=0.3, work_of_adhesion=w))
    wall = sim.add_material(dem.Material("wall", density=7800, youngs_modulus=2e11, restitution=0.2, friction=0.3, work_of_adhesion=w, rigid=True))
    sim.set_pair(bead, wall, effective_youngs=E, cohesion_range=1e-5)
    sim.add_plane((0, 0, 0), (0, 0, 1), wall)
    sim.add_particles([(0, 0, r - 1e-9)], r, bead)  # 1 nm of overlap (DMT pulls only while the overlap is positive), at rest
    sim.step(30000)  # 30 ms: about 35 periods of the contact's oscillation, damped at e = 0.2
    if law == "hertz_mindlin_jkr":
        a = (9 * math.pi * w * r * r / (2 * E)) ** (1 / 3)
        expected = a * a / r - math.sqrt(2 * math.pi * w * a / E)
    else:
        expected = (2 * math.pi * w * r / (4 / 3 * E * math.sqrt(r))) ** (2 / 3)
    overlap = r - sim.positions()[0, 2]
    assert overlap == pytest.approx(expected, rel=2e-3 if precision == "double" else 1e-2), (law, overlap, expected)
    assert abs(sim.velocities()[0, 2]) < (1e-6 if precision == "double" else 1e-5)  # against about 1e-3 m/s while it settles


def settled_on_plane(law, precision, r, mu, gravity=(0, 0, -G), length=2.0):
    sim = dem.Simulator(domain=((-0.05, -0.05, -0.01), (length, 0.05, 0.05)), dt=2e-6, law=law, precision=precision, gravity=gravity)
    sim.set_log(False)
    m = sim.add_material(dem.Material("m", density=2500, youngs_modulus=1e8, poisson_ratio=0.3, restitution=0.5, friction=mu))
    plane = sim.add_plane((0, 0, 0), (0, 0, 1), m)
    sim.add_particles([(0, 0, r * 0.9999)], r, m)
    return sim, plane


@pytest.mark.parametrize("law", [law for law in ("hertz_mindlin", "hertz_mindlin_incremental", "linear_spring_dashpot") if law in SPHERE_LAWS])
@pytest.mark.parametrize("precision", PRECISIONS)
def test_a_sliding_sphere_decelerates_at_mu_g_then_rolls_at_five_sevenths(law, precision):
    """Launched sliding at v0 = 1 m/s without spin on a plane with mu = 0.3: Coulomb friction
    decelerates it at mu g until it rolls (v = omega r) at 5/7 v0 (tests/sim/test_sliding.cpp)."""
    r, v0, mu = 5e-3, 1.0, 0.3
    sim, _ = settled_on_plane(law, precision, r, mu)
    dem.run(sim, 0.01, chunk=5000)
    assert abs(sim.velocities()[0, 2]) < 1e-3
    sim.set_velocities([(v0, 0, 0)])
    t_roll = 2 * v0 / (7 * mu * G)
    t1, t2 = 0.2 * t_roll, 0.7 * t_roll
    dem.run(sim, t1, chunk=100000)
    v1 = sim.velocities()[0, 0]
    dem.run(sim, t2 - t1, chunk=100000)
    v2 = sim.velocities()[0, 0]
    dem.run(sim, t_roll, chunk=100000)
    v_end, w_end = sim.velocities()[0, 0], sim.angular_velocities()[0, 1]
    tol = 0.01 if precision == "double" else 0.02  # single: 0.8 % measured on the deceleration
    assert (v1 - v2) / (t2 - t1) == pytest.approx(mu * G, rel=tol)
    assert v_end == pytest.approx(5 / 7 * v0, rel=0.01)
    assert w_end * r == pytest.approx(v_end, rel=0.01)  # rolling without slip


@pytest.mark.parametrize("law", ["hertz_mindlin", "linear_spring_dashpot"])
def test_on_an_incline_a_sphere_rolls_at_five_sevenths_g_sin_or_slides(law):
    """Gravity tilted by 20 degrees. With mu = 0.5 (> 2/7 tan 20 = 0.10) the sphere rolls down at
    5/7 g sin(theta); with mu = 0.05 it slides at g (sin(theta) - mu cos(theta)) and spins slower than it
    rolls."""
    th, r = math.radians(20), 2e-3
    gravity = (G * math.sin(th), 0, -G * math.cos(th))
    for mu, expected in ((0.5, 5 / 7 * G * math.sin(th)), (0.05, G * (math.sin(th) - 0.05 * math.cos(th)))):
        sim, _ = settled_on_plane(law, "double", r, mu, gravity=gravity)
        dem.run(sim, 0.02, chunk=10000)
        v1, t1 = sim.velocities()[0, 0], sim.time
        dem.run(sim, 0.1, chunk=10000)
        v2, t2 = sim.velocities()[0, 0], sim.time
        assert (v2 - v1) / (t2 - t1) == pytest.approx(expected, rel=2e-3), (mu, law)
        slip = sim.angular_velocities()[0, 1] * r / v2
        if mu == 0.5:
            assert slip == pytest.approx(1.0, rel=1e-3)
        else:
            assert 0.2 < slip < 0.6  # the friction torque spins it up only partly
        assert sim.positions()[0, 2] == pytest.approx(r, rel=1e-3)  # stays on the plane


# ---- moving boundaries --------------------------------------------------------------------------

def test_a_conveyor_belt_brings_a_resting_sphere_to_two_sevenths_of_its_speed():
    """A sphere at rest on a plane that starts sliding along itself at U: friction drives it until
    its contact point moves with the belt, at v = 2/7 U (angular momentum about the contact point is
    conserved). The belt is a plane moving in its own plane, so only the boundary's velocity (not its
    position) can act: this checks that the wall velocity enters the contact. A Python function
    giving the same motion gives the same bits."""
    r, U = 2e-3, 0.2
    ends = []
    for motion in ("constant_velocity", "python"):
        sim, belt = settled_on_plane("hertz_mindlin", "double", r, 0.4, length=0.5)
        dem.run(sim, 0.005, chunk=10000)
        t0 = sim.time
        if motion == "constant_velocity":
            sim.set_motion(belt, dem.boundary.ConstantVelocity(velocity=(U, 0, 0), start=t0))
        else:
            sim.set_motion(belt, lambda t: dem.boundary.RigidMotion(translation=(U * max(t - t0, 0.0), 0, 0), velocity=(U, 0, 0)))
        dem.run(sim, 3 * 2 * U / (7 * 0.4 * G), chunk=10000)
        v, w = sim.velocities()[0], sim.angular_velocities()[0]
        assert v[0] == pytest.approx(2 / 7 * U, rel=1e-3), motion
        assert v[0] - w[1] * r == pytest.approx(U, rel=1e-3), motion  # the contact point moves with the belt
        assert sim.boundary_force(belt)[2] == pytest.approx(-ball_mass(2500, r) * G, rel=1e-6)
        ends.append((v, w, sim.positions()[0]))
    for a, b in zip(*ends):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("e", [0.3, 0.8])
def test_a_wall_moving_at_u_kicks_a_sphere_at_rest_to_one_plus_e_u(e):
    """A rigid plane moving at U = 0.5 m/s hits a sphere at rest (no gravity): the sphere leaves at
    (1 + e) U, as for a ball hit by an infinitely heavy bat."""
    r, U = 1e-3, 0.5
    sim = zero_g(0.05, precision="double")
    m = sim.add_material(dem.Material("bead", density=2500, youngs_modulus=1e8, restitution=e, friction=0.3))
    w = sim.add_material(dem.Material("bat", youngs_modulus=2e11, restitution=e, friction=0.3, rigid=True))
    bat = sim.add_plane((0, 0, -0.04), (0, 0, 1), w)
    sim.add_particles([(0, 0, -0.04 + r + 2e-4)], r, m)
    sim.dt = sim.stable_time_step() / 100
    sim.set_motion(bat, dem.boundary.ConstantVelocity(velocity=(0, 0, U)))
    dem.run(sim, 2e-3, chunk=1000)
    assert sim.velocities()[0, 2] == pytest.approx((1 + e) * U, rel=0.01)
    assert sim.boundary_force(bat) == (0, 0, 0)  # separated


def test_a_vibrated_plate_throws_a_sphere_only_above_gamma_one():
    """A sphere on a plate vibrating vertically with amplitude A: below Gamma = A (2 pi f)^2 / g = 1
    it rides the plate (its height stays within +-A); at Gamma = 4 it takes off, rising well above A."""
    r, A = 1e-3, 1e-4
    heights = {}
    for f in (20.0, 100.0):  # Gamma = 0.16 and 4.0
        sim = dem.Simulator(domain=((-0.01, -0.01, -0.01), (0.01, 0.01, 0.05)), dt=1e-6, precision="double")
        sim.set_log(False)
        m = sim.add_material(dem.Material("bead", density=2500, youngs_modulus=1e8, restitution=0.3, friction=0.3))
        plate = sim.add_plane((0, 0, 0), (0, 0, 1), m)
        sim.add_particles([(0, 0, r * 0.9999)], r, m)
        dem.run(sim, 0.01, chunk=10000)
        sim.set_motion(plate, dem.boundary.Vibration(amplitude=(0, 0, A), frequency=f, start=sim.time))
        z = []
        dem.run(sim, 3 / f, chunk=int(1 / f / 1e-6 / 50), callback=lambda s: z.append(s.positions()[0, 2] - r))
        heights[f] = (min(z) / A, max(z) / A)
    lo, hi = heights[20.0]
    assert -1.02 < lo < -0.95 and 0.95 < hi < 1.02, heights  # follows the plate: +-A
    assert heights[100.0][1] > 2.0, heights  # airborne above Gamma = 1 (3.5 A measured)


def test_a_free_body_boundary_falls_under_gravity_and_floats_when_held():
    """A free-body plate (mass 0.1 kg) with no particles near it falls as g t^2 / 2 (v = g t
    exactly); given an upward force M g and a sideways start velocity, it moves in a straight line."""
    for held in (False, True):
        sim = dem.Simulator(domain=((-0.01, -0.01, -0.1), (0.01, 0.01, 0.05)), precision="double")
        sim.set_log(False)
        m = sim.add_material(dem.Material("steel", density=7800))
        plate = sim.add_plate((0, 0, 0), (0, 0, 1), (1, 0, 0), 0.005, 0.005, m)
        sim.add_particles([(0.009, 0.009, 0.04)], 1e-3, m, velocities=[(0, 0, 0)])  # far away: never touches
        if held:
            sim.set_motion(plate, dem.boundary.FreeBody(mass=0.1, force=(0, 0, 0.1 * G), velocity=(0.1, 0, 0)))
        else:
            sim.set_motion(plate, dem.boundary.FreeBody(mass=0.1))
        sim.step(1000)
        t, s = sim.time, sim.free_body_state(plate)
        if held:
            assert s.displacement == pytest.approx((0.1 * t, 0, 0), rel=1e-9, abs=1e-15)
            assert s.velocity == pytest.approx((0.1, 0, 0), rel=1e-12)
        else:
            assert s.velocity[2] == pytest.approx(-G * t, rel=1e-9)
            # Symplectic Euler: the sum of n velocities, n (n + 1) / 2 g dt^2 = (1 + 1/n) g t^2 / 2.
            assert s.displacement[2] == pytest.approx(-0.5 * G * t * t, rel=2e-3)
        assert s.load == pytest.approx((0, 0, 0), abs=1e-15)


# ---- energy -------------------------------------------------------------------------------------

@pytest.mark.parametrize("law", ["hertz_mindlin", "linear_spring_dashpot"])
def test_the_energy_ledger_books_a_bounce(law):
    """A sphere dropped 10 mm onto a rigid frictionless plane, e = 0.6: one impact dissipates
    (1 - e^2) of the impact energy, all of it in the normal dashpot; once the sphere has come to rest
    everything gravity released has been dissipated, and the books close to 1e-3 (double)."""
    r, h, e = 1e-3, 0.01, 0.6
    sim = dem.Simulator(domain=((-0.01, -0.01, -0.001), (0.01, 0.01, 0.03)), law=law, precision="double")
    sim.set_log(False)
    m = sim.add_material(dem.Material("bead", density=2500, youngs_modulus=1e7, restitution=e, friction=0.0))
    w = sim.add_material(dem.Material("wall", youngs_modulus=2e11, restitution=e, friction=0.0, rigid=True))
    sim.add_plane((0, 0, 0), (0, 0, 1), w)
    sim.add_particles([(0, 0, r + h)], r, m)
    sim.dt = sim.stable_time_step() / 50
    sim.enable_energy_ledger()
    mass = sim.inspect_particles().mass
    assert mass == pytest.approx(ball_mass(2500, r), rel=1e-12)
    dem.run(sim, 0.95 * math.sqrt(2 * h / G), chunk=100000)  # most of the fall, in big chunks
    assert sim.positions()[0, 2] > r
    touched = False
    while True:
        sim.step(5)
        if sim.positions()[0, 2] < r:
            touched = True
        elif touched:
            break
    led = sim.energy_ledger()
    impact = mass * G * h
    assert led.dissipated == pytest.approx((1 - e * e) * impact, rel=0.01)
    assert led.normal_damping == pytest.approx(led.dissipated, rel=1e-12)
    assert led.tangential == 0 and led.rolling == 0
    assert led.gravity_work == pytest.approx(mass * G * (r + h - sim.positions()[0, 2]), rel=1e-6)
    # The bounces that follow die out within 0.14 s; a coarser step to get there. The books' error is
    # second order in dt: 1e-4 to 4e-4 at stable / 25 (2e-3 at stable / 10).
    sim.dt = sim.stable_time_step() / 25
    dem.run(sim, 0.3, chunk=20000)
    led = sim.energy_ledger()
    assert sim.kinetic_energy() < 1e-12 * impact
    assert led.dissipated == pytest.approx(impact, rel=1e-3)
    assert abs(led.relative_imbalance) < 1e-3


# ---- contact networks and beds ------------------------------------------------------------------

def test_a_column_of_three_spheres_carries_its_weight_down_the_chain():
    """Three spheres stacked on a plane: the contact network carries 2W and W (force on the lower
    sphere of each pair, pointing down), each sphere's contact force balances its weight, the floor
    carries 3W, and the overlap between spheres 1 and 2 is Hertz's for the force 2W
    (E* = E / (2 (1 - nu^2)), R* = r / 2)."""
    r, E, nu = 1e-3, 1e7, 0.3
    sim = dem.Simulator(domain=((-0.005, -0.005, 0), (0.005, 0.005, 0.02)), precision="double")
    sim.set_log(False)
    m = sim.add_material(dem.Material("bead", density=2500, youngs_modulus=E, poisson_ratio=nu, restitution=0.3, friction=0.5))
    floor = sim.add_plane((0, 0, 0), (0, 0, 1), m)
    sim.add_particles([(0, 0, r), (0, 0, 3 * r), (0, 0, 5 * r)], r, m)
    dem.run(sim, 0.2)
    W = ball_mass(2500, r) * G
    net = sim.contact_network()
    order = np.argsort(net["id_a"])
    np.testing.assert_array_equal(net["id_a"][order], [0, 1])
    np.testing.assert_array_equal(net["id_b"][order], [1, 2])
    np.testing.assert_allclose(net["normal_force"][order][:, 2], [-2 * W, -W], rtol=1e-6)
    np.testing.assert_allclose(net["normal"][order], [[0, 0, -1], [0, 0, -1]], atol=1e-9)
    np.testing.assert_allclose(net["tangential_force"], 0, atol=1e-15)
    np.testing.assert_allclose(sim.track([2, 0, 1]).contact_forces(), [[0, 0, W]] * 3, rtol=1e-6, atol=1e-12)
    assert sim.boundary_force(floor)[2] == pytest.approx(-3 * W, rel=1e-6)
    z = sim.positions()[:, 2]
    e_star = E / (2 * (1 - nu * nu))
    hertz = (3 * 2 * W / (4 * e_star * math.sqrt(r / 2))) ** (2 / 3)
    assert 2 * r - (z[1] - z[0]) == pytest.approx(hertz, rel=1e-4)
    c = sim.inspect_contacts()
    assert c.contact_ends == 4 and c.coordination == pytest.approx(4 / 3)  # particle pairs only
    assert list(c.histogram[:3]) == [0, 2, 1]


def test_a_poured_bed_of_random_spheres_is_a_random_packing_under_hydrostatic_stress():
    """800 spheres (r = 0.6 mm +- 5 %) from random_fill, single precision, Hertz-Mindlin, mu = 0.5,
    poured into a 12 mm box: the bed settles (kinetic energy below 1e-6 of its peak), its interior is a
    random packing (0.55 < phi < 0.64, 4 < Z < 6.5, measured 0.604 and 5.0), the walls and floor carry
    its weight, and the Love-Weber stress at mid-depth is of the order of the hydrostatic rho phi g depth
    (0.6 to 1.2 of it: Janssen's wall friction takes some; 1.02 measured)."""
    w, r, rho = 0.012, 6e-4, 2500.0
    sim = dem.Simulator(domain=((0, 0, 0), (w, w, 0.04)), dt=1e-5, precision="single")
    sim.set_log(False)
    m = sim.add_material(dem.Material("glass", density=rho, youngs_modulus=1e7, restitution=0.3, friction=0.5))
    sim.add_box(sim.config.domain, m)
    beads = dem.sample.random_fill(((0, 0, 0.002), (w, w, 0.04)), dem.sample.NormalRadii(r, 0.05 * r), count=800, seed=3)
    assert len(beads) == 800
    assert np.all(np.abs(beads.radii - r) <= 0.15 * r + 1e-12)
    d = np.linalg.norm(beads.positions[:, None] - beads.positions[None], axis=2)
    np.fill_diagonal(d, 1.0)
    assert np.all(d >= (beads.radii[:, None] + beads.radii[None]) * (1 - 1e-9))  # random_fill: no overlaps
    sim.add_particles(beads, m)
    peak = 0.0
    for _ in range(60):
        dem.run(sim, 0.01, chunk=1000)
        ke = sim.kinetic_energy()
        peak = max(peak, ke)
        if ke < 1e-6 * peak:
            break
    assert ke < 1e-6 * peak
    assert sim.num_lost == 0
    top = np.sort(sim.positions()[:, 2] + sim.radii())[-40:].mean()
    margin = 4 * r
    inside = dem.inspect.Box((margin, margin, margin), (w - margin, w - margin, top - margin))
    bed = sim.inspect_particles(inside)
    contacts = sim.inspect_contacts(inside)
    assert bed.count > 100
    assert 0.55 < bed.packing_fraction < 0.64, bed.packing_fraction
    assert 4.0 < contacts.coordination < 6.5, contacts.coordination
    weight = sim.inspect_particles().mass * G
    total = sum(sim.boundary_force(b)[2] for b in range(sim.num_boundaries))
    assert -total == pytest.approx(weight, rel=0.01)
    depth = top - 0.5 * top  # the region's centre is at top / 2
    hydrostatic = rho * bed.packing_fraction * G * depth
    assert 0.6 < -contacts.stress[2, 2] / hydrostatic < 1.2, contacts.stress
    assert contacts.mean_pressure > 0


# ---- rigid bodies -------------------------------------------------------------------------------

def rotation(q):
    w, x, y, z = np.asarray(q, dtype=float) / np.linalg.norm(q)
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


def test_body_types_have_the_mass_properties_of_their_shapes():
    c = 8e-4
    cube = dem.shapes.make_polyhedron([(x, y, z) for x in (-c, c) for y in (-c, c) for z in (-c, c)], "cube")
    a = 2 * c
    assert cube.volume == pytest.approx(a ** 3, rel=1e-12)
    np.testing.assert_allclose(cube.principal_moments, [a ** 5 / 6] * 3, rtol=1e-12)  # V a^2 / 6
    assert cube.bounding_radius == pytest.approx(c * math.sqrt(3), rel=1e-12)
    # A tetrahedron's centroid is the mean of its corners, wherever they are given.
    tet = dem.shapes.make_polyhedron([(0, 0, 0), (1e-3, 0, 0), (0, 1e-3, 0), (0, 0, 1e-3)], "tet")
    assert tet.volume == pytest.approx(1e-9 / 6, rel=1e-12)
    np.testing.assert_allclose(tet.centroid_in_input, [0.25e-3] * 3, rtol=1e-12)
    r = 6e-4
    one = dem.shapes.make_clump("one", [(1e-3, 2e-3, 3e-3)], [r])
    V = 4 / 3 * math.pi * r ** 3
    assert one.volume == pytest.approx(V, rel=1e-12)
    np.testing.assert_allclose(one.principal_inertia_per_density, [0.4 * V * r * r] * 3, rtol=1e-12)
    np.testing.assert_allclose(one.centroid, (1e-3, 2e-3, 3e-3), rtol=1e-12)
    # Two spheres 2 mm apart (not touching): parallel axis theorem.
    s = 5e-4
    Vs = 4 / 3 * math.pi * s ** 3
    apart = dem.shapes.make_clump("apart", [(-1e-3, 0, 0), (1e-3, 0, 0)], [s, s])
    assert apart.volume == pytest.approx(2 * Vs, rel=1e-12)
    along, across = 2 * 0.4 * Vs * s * s, 2 * Vs * (0.4 * s * s + 1e-6)
    np.testing.assert_allclose(apart.principal_inertia_per_density, [along, across, across], rtol=1e-9)
    # Overlapping spheres: the union's volume, less than the sum.
    pair = dem.shapes.make_clump("pair", [(-4e-4, 0, 0), (4e-4, 0, 0)], [6e-4, 6e-4])
    cap_h = 6e-4 - 4e-4
    lens = 2 * math.pi * cap_h * cap_h * (3 * 6e-4 - cap_h) / 3
    assert pair.volume == pytest.approx(2 * 4 / 3 * math.pi * 6e-4 ** 3 - lens, rel=1e-3)


@pytest.mark.parametrize("shape", ["clump", "polyhedron"])
def test_rigid_bodies_come_to_rest_in_their_stable_pose(shape):
    """Six bodies dropped tilted onto the floor of a box: a pair of spheres ends lying flat (centre at
    one radius, its long axis horizontal), a cube ends on a face (centre at half its side, one body axis
    vertical); the floor carries their weight (1 %)."""
    sim = dem.Simulator(domain=((0, 0, 0), (0.02, 0.02, 0.03)), dt=2e-6, shape=shape)
    sim.set_log(False)
    # Rolling friction stops a pair rolling about its long axis (0.15 s instead of 0.18 s).
    m = sim.add_material(dem.Material("grain", density=2500, youngs_modulus=1e7, restitution=0.3, friction=0.5, rolling_friction=0.05))
    sim.add_box(sim.config.domain, m)
    c, rp = 8e-4, 6e-4
    if shape == "clump":
        t = dem.shapes.make_clump("pair", [(-4e-4, 0, 0), (4e-4, 0, 0)], [rp, rp])
    else:
        t = dem.shapes.make_polyhedron([(x, y, z) for x in (-c, c) for y in (-c, c) for z in (-c, c)], "cube")
    k = sim.add_shape(t)
    tilts = [(math.cos(0.25 * (i + 1)), 0.6 * math.sin(0.25 * (i + 1)), 0.8 * math.sin(0.25 * (i + 1)), 0) for i in range(6)]
    sim.add_bodies(k, [(0.005 + 0.005 * (i % 3), 0.006 + 0.008 * (i // 3), 0.005) for i in range(6)], m, orientations=tilts)
    dem.run(sim, 0.2, chunk=1000)
    # Translation only: a cube on a face is held at one contact point, its centre (docs/shapes.md,
    # "Limits"), so nothing stops it spinning about the vertical; about 2.5 rad/s are left here.
    assert sim.inspect_particles().max_speed < 1e-3
    z = sim.positions()[:, 2]
    R = [rotation(q) for q in sim.orientations()]
    if shape == "clump":
        np.testing.assert_allclose(z, rp, rtol=0.01)
        long_axis_z = [abs(Ri[2, 0]) for Ri in R]  # body x (the pair's axis) in world z
        assert max(long_axis_z) < 0.02, long_axis_z
    else:
        np.testing.assert_allclose(z, c, rtol=0.02)
        vertical = [np.abs(Ri[2, :]).max() for Ri in R]  # the body axis closest to world z
        assert min(vertical) > 0.999, vertical
    floor = next(b for b in range(sim.num_boundaries) if sim.boundary(b)["name"] == "box -z")
    assert -sim.boundary_force(floor)[2] == pytest.approx(sim.inspect_particles().mass * G, rel=0.01)


def test_a_free_clump_keeps_its_angular_momentum_and_energy():
    """Torque-free rotation of an asymmetric clump (three spheres, single precision) about a
    non-principal axis: omega wanders (precession) but the world angular momentum R I R^T omega and the
    rotational energy stay constant (within 2e-3 over 10,000 steps; 7e-4 and 1.1e-3 measured over
    20,000). Spun about its principal axis of least inertia its energy is I omega^2 / 2."""
    sim = zero_g(0.01, shape="clump")
    rho = 2000.0
    m = sim.add_material(dem.Material("g", density=rho))
    t = dem.shapes.make_clump("tri", [(-4e-4, 0, 0), (4e-4, 0, 0), (0, 6e-4, 0)], [5e-4, 5e-4, 3e-4])
    inertia = np.array(t.principal_inertia_per_density) * rho
    k = sim.add_shape(t)
    sim.add_bodies(k, [(0, 0, 0), (0.006, 0.006, 0.006)], m, orientations=[(0.9, 0.3, 0.2, 0.1), (1, 0, 0, 0)])
    sim.set_angular_velocities([(30, 40, 50), (100, 0, 0)])

    def momentum_and_energy(i):
        Ri = rotation(sim.orientations()[i])
        w = sim.angular_velocities()[i]
        Iw = Ri @ np.diag(inertia) @ Ri.T
        return Iw @ w, 0.5 * w @ Iw @ w

    L0, E0 = momentum_and_energy(0)
    second = sim.inspect_particles(dem.inspect.Ball((0.006, 0.006, 0.006), 0.002)).kinetic_rotational
    assert second == pytest.approx(0.5 * inertia[0] * 100 ** 2, rel=1e-6)
    sim.step(10000)
    L1, E1 = momentum_and_energy(0)
    assert np.linalg.norm(sim.angular_velocities()[0] - (30, 40, 50)) > 5  # it really precessed
    assert np.linalg.norm(L1 - L0) < 2e-3 * np.linalg.norm(L0)
    assert E1 == pytest.approx(E0, rel=2e-3)
    np.testing.assert_allclose(sim.angular_velocities()[1], (100, 0, 0), rtol=1e-5)  # stable principal axis
    assert np.all(np.abs(sim.velocities()) < 1e-12)  # no contacts, no gravity: the centres stay
