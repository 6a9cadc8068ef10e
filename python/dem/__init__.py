"""dem: the discrete element method, from Python (docs/python.md).

The simulators are the C++ ``dem::Simulator`` instantiations compiled into ``dem._core`` (one class
per line of the instantiation list in python/CMakeLists.txt); :func:`Simulator` picks one by its
policies::

    import dem
    sim = dem.Simulator(domain=((0, 0, 0), (0.02, 0.02, 0.04)), dt=1e-5,
                        shape="sphere", law="hertz_mindlin", precision="single")
    glass = sim.add_material(dem.Material("glass", density=2500, youngs_modulus=1e7))
    sim.add_box(sim.config.domain, glass)
    sim.add_particles(dem.sample.cubic_lattice(((0, 0, 0), (0.02, 0.02, 0.04)), radius=1e-3), glass)
    dem.run(sim, 0.1, progress=True)
    x = sim.positions()              # (n, 3) float64 copy, by particle id

Errors in the input raise ValueError with the C++ message; other failures RuntimeError.
"""

from __future__ import annotations

import contextlib
import math
import sys
import time as _time

from . import _core
from ._core import Config, EnergyLedger, DeformationReport, Material, ParticleSet, boundary, family, inspect, io, sample

__all__ = [
    "Simulator", "available", "run", "local_arrays", "Config", "Material", "ParticleSet", "EnergyLedger", "DeformationReport",
    "boundary", "family", "inspect", "io", "sample", "shapes",
]

shapes = getattr(_core, "shapes", None)


def available():
    """The (shape, law, precision, backend) combinations this build holds, sorted."""
    return sorted(_core.simulators.keys())


def simulator_class(shape="sphere", law="hertz_mindlin", precision="single", backend="host"):
    """The compiled class for these policies; ValueError, listing what exists, if it was not built."""
    key = (shape, law, precision, backend)
    try:
        return _core.simulators[key]
    except KeyError:
        have = "\n  ".join(", ".join(k) for k in available())
        raise ValueError(
            f"dem: no simulator for shape={shape!r}, law={law!r}, precision={precision!r}, backend={backend!r} in this build; "
            f"add a line to the instantiation list in python/CMakeLists.txt (docs/python.md). Built:\n  {have}") from None


def Simulator(config=None, *, shape="sphere", law="hertz_mindlin", precision="single", backend="host", **settings):
    """A simulator with the given policies.

    ``config`` is a :class:`Config`; or give its fields as keywords (``domain`` is required then:
    ``((x0, y0, z0), (x1, y1, z1))``; ``dt``, ``gravity``, ``contact_margin``, ...).
    ``backend="cuda"`` needs a module built with nvcc (DEM_PYTHON_CUDA, on when nvcc is found) and a GPU;
    its arrays live on the device: positions() etc. copy them, local_arrays() is refused.
    """
    cls = simulator_class(shape, law, precision, backend)
    if backend == "cuda":
        ok, why = _core.cuda_device_available()
        if not ok:
            raise RuntimeError(f"dem: backend='cuda', but there is no usable CUDA device: {why}")
    if config is None:
        if "domain" not in settings:
            raise ValueError("dem: Simulator needs a config or domain=((x0, y0, z0), (x1, y1, z1))")
        config = Config(settings.pop("domain"), **settings)
    elif settings:
        raise ValueError("dem: Simulator takes a config or keyword settings, not both (got " + ", ".join(settings) + ")")
    return cls(config)


def from_checkpoint(path, *, shape="sphere", law="hertz_mindlin", precision="single", backend="host"):
    """A simulator restored from a checkpoint written by ``save_checkpoint`` with the same policies."""
    return simulator_class(shape, law, precision, backend).from_checkpoint(path)


@contextlib.contextmanager
def local_arrays(sim):
    """The host backend's arrays as read-only NumPy views, without a copy, inside a ``with`` block.

    The arrays are in storage order (``a["id"][i]`` is the id of the particle in slot i); stepping or
    adding particles inside the block raises RuntimeError, because the views would dangle.
    """
    views = sim.local_arrays()
    try:
        yield views
    finally:
        sim._close_views()


class Progress:
    """A progress line on standard error: steps done, simulated time, particle-steps per second."""

    def __init__(self, total_steps, stream=None, every=1.0):
        self.total = max(1, int(total_steps))
        self.stream = stream or sys.stderr
        self.every = every
        self.start = self.last = _time.perf_counter()

    def __call__(self, sim, done):
        now = _time.perf_counter()
        if now - self.last < self.every and done < self.total:
            return
        self.last = now
        elapsed = now - self.start
        rate = sim.num_active * done / elapsed if elapsed > 0 else 0.0
        end = "\n" if done >= self.total else "\r"
        self.stream.write(f"  {100.0 * done / self.total:5.1f} %  t = {sim.time:.4e} s  {rate:.3e} particle-steps/s{end}")
        self.stream.flush()


def run(sim, duration, *, chunk=100, progress=None, callback=None):
    """Advances ``sim`` by ``duration`` simulated seconds (whole steps) in chunks of ``chunk`` steps.

    After each chunk ``callback(sim)`` runs (when given: sample, plot, change the setup); returning
    False stops the run early. ``progress=True`` prints a progress line; a callable gets
    ``(sim, steps_done)``. Returns the number of steps run. The GIL is free while a chunk runs.
    """
    if not (duration >= 0 and math.isfinite(duration)):
        raise ValueError(f"dem: run: duration is {duration}, but it must be finite and >= 0")
    if chunk < 1:
        raise ValueError(f"dem: run: chunk is {chunk}, but it must be >= 1")
    total = math.ceil(duration / sim.dt - 1e-9)
    report = Progress(total) if progress is True else progress
    done = 0
    while done < total:
        k = min(chunk, total - done)
        sim.step(k)
        done += k
        if report:
            report(sim, done)
        if callback is not None and callback(sim) is False:
            break
    return done
