"""memtier's tests.

Python's bytecode cache is on for the test run, whatever the environment says
(`PYTHONDONTWRITEBYTECODE`). This package is imported before any conftest or test
module, so everything imported after this line can be cached: with the cache off,
each xdist worker recompiled and assertion-rewrote ~100 test modules on every run
(about 3.5 s of CPU each), and each of the ~120 memtier processes the suite starts
recompiled the package (about 80 ms each). The subprocesses inherit the variable,
which only stops writing: they read the `__pycache__` files the workers wrote.
git ignores `__pycache__/`.
"""

import sys

sys.dont_write_bytecode = False
