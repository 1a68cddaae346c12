"""The shared memory after random writes and syncs on three hosts matches the model (§14).

`tests.reliability.sync_machine.SyncMachine` drives three real workspaces and one
real bare repository; `tests.sync_model` says what they must hold. The default
run tries a few short, derandomised sequences; the slow step many more.
"""

from __future__ import annotations

import os
import shutil

import pytest
from hypothesis import HealthCheck, Phase, settings

from tests.reliability.sync_machine import SyncMachine

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="sync needs git")
_QUIET = [HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large]
# No shrinking: every step is real processes and git, and a failing sequence is
# printed as it ran (each step says what it did).
_PHASES = [Phase.explicit, Phase.reuse, Phase.generate]


def _runs(examples: int, steps: int) -> settings:
    """*examples* derandomised sequences of *steps* steps, no deadline, no shrinking."""
    return settings(
        max_examples=examples,
        stateful_step_count=steps,
        derandomize=True,
        deadline=None,
        database=None,
        suppress_health_check=_QUIET,
        phases=_PHASES,
    )


# A few seconds in the default suite: two short sequences.
TestSyncModel = SyncMachine.TestCase
TestSyncModel.settings = _runs(examples=2, steps=6)


class SlowSyncMachine(SyncMachine):
    pass


# The slow step: 2,000 sequences of 25 steps, in 20 parts of 100 that pytest-xdist
# spreads over the cores (.ci/run runs them with -n 2, apart from the other slow
# tests, which want the machine to themselves). Hypothesis derives a derandomised
# run's seed from the machine class, so each part is a class of its own name and
# runs its own 100 sequences; the first part is `SlowSyncMachine`, the 100 the slow
# step ran before. Every step is real processes and every merge runs the drivers as
# git's child processes: a sequence costs about 1 s of CPU, most of it git's.
# MEMTIER_MODEL_EXAMPLES sets another total (a multiple of the parts, rounded up).
PARTS = 20
_TOTAL = int(os.environ.get("MEMTIER_MODEL_EXAMPLES", "2000"))
_EACH = max(1, -(-_TOTAL // PARTS))
for _part in range(PARTS):
    _machine = (
        SlowSyncMachine if _part == 0 else type(f"SyncMachinePart{_part:02d}", (SyncMachine,), {})
    )
    _case = _machine.TestCase
    _case.settings = _runs(examples=_EACH, steps=25)
    globals()[f"TestSyncModelSlow{_part:02d}"] = pytest.mark.model(pytest.mark.slow(_case))
del _machine, _case
