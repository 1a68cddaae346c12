"""A fresh checkout's first run: the second worker rewrites the test modules from the far end.

pytest rewrites the assertions of every test module it imports and keeps the result
beside the module (`__pycache__/*-pytest-*.pyc`); the next run only reads it. On a
fresh checkout there is nothing to read, and each pytest-xdist worker collects the
whole suite: both rewrite all ~200 modules at once, in the same order, each paying
about 6 s of CPU for the same files.

Here the second worker, before it collects, walks the test modules from the last to
the first and rewrites each one whose result is not kept yet, while the first worker
collects from the first. They meet about halfway; from there each reads what the
other wrote, so the work is done about once. A module both reach at the same moment
is rewritten twice, which is harmless: pytest writes the result atomically.

This leans on pytest's own rewriting functions, which are not public. Any failure
to find or use them makes this a no-op, and the collection rewrites what is missing
as it always does; a run's results never depend on it.
"""

from __future__ import annotations

from pathlib import Path

import pytest


def rewrite_from_the_end(config: pytest.Config, tests: Path) -> int:
    """Rewrite and keep the modules under *tests* with no kept rewrite, last first.

    Returns how many were written (0 when pytest's rewriting is off or its
    functions are not the ones this knows).
    """
    try:
        from _pytest.assertion import rewrite

        state = config.stash[rewrite.assertstate_key]
        tail = rewrite.PYC_TAIL
        rewrite_test, write_pyc = rewrite._rewrite_test, rewrite._write_pyc
    except (ImportError, AttributeError, KeyError):
        return 0
    written = 0
    for module in sorted(tests.rglob("test_*.py"), reverse=True):
        pyc = module.parent / "__pycache__" / (module.stem + tail)
        if pyc.exists():  # kept by an earlier run, or the other worker got here first
            continue
        try:
            pyc.parent.mkdir(exist_ok=True)
            source, code = rewrite_test(module, config)
            written += bool(write_pyc(state, code, source, pyc))
        except Exception:  # only a head start: the collection rewrites it anyway
            return written
    return written


def is_second_worker(config: pytest.Config) -> bool:
    """True in pytest-xdist's worker `gw1`."""
    worker = getattr(config, "workerinput", None)
    return isinstance(worker, dict) and worker.get("workerid") == "gw1"
