"""Shared pytest setup for the Python tests.

OpenMP's default wait policy spins idle threads. On a machine whose cores are also busy with
something else (a parallel build next to ctest), two spinning threads on two shared cores slowed the
1,500-bead bed fixture of test_python_physics.py from 17 s to 148 s. A passive wait (threads sleep
at barriers) costs nothing measurable here. libgomp reads the variable when it is loaded, that is at
the first `import dem`, and pytest imports this file before the test modules. A value already set
in the environment wins.
"""

import os

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
