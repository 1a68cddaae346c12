"""Helpers shared by the benchmark scripts: timing real commands, finding memtier."""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

# The one folder a benchmark may write to besides a temporary folder (ignored by git):
# a checkout must never become a workspace (PROTOCOL §1 root discovery).
WORK = Path(__file__).resolve().parent / ".work"


def work_folder(name: str | None = None) -> Path:
    """``bench/.work/<name>`` (created), for a run kept with ``--keep``; a plain name
    only, so a benchmark never writes outside it."""
    if name is not None and (not name or Path(name).name != name or name in (".", "..")):
        raise SystemExit(f"--keep takes a plain folder name (kept under {WORK}), not {name!r}")
    folder = WORK / name if name else WORK
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def memtier_argv() -> list[str]:
    """The installed `memtier` script beside this interpreter, else `python -m memtier`."""
    script = Path(sys.executable).with_name("memtier")
    if script.exists():
        return [str(script)]
    found = shutil.which("memtier")
    return [found] if found else [sys.executable, "-m", "memtier"]


def median_seconds(
    argv: Sequence[str],
    runs: int = 11,
    *,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    before_each: Callable[[], None] | None = None,
    warmup: int = 1,
) -> float:
    """Median wall time of running *argv* to completion (output discarded).

    PYTHONDONTWRITEBYTECODE is dropped for the timed runs: an installed memtier
    has its bytecode cached, and the warm-up run writes the cache for a checkout.
    """
    full_env = {**os.environ, **(env or {})}
    full_env.pop("PYTHONDONTWRITEBYTECODE", None)
    # Never from the checkout: a command that falls back to the working folder
    # (root discovery, init) writes under the ignored work folder instead.
    cwd = cwd or work_folder()
    times: list[float] = []
    for i in range(warmup + runs):
        if before_each is not None:
            before_each()
        start = time.perf_counter()
        subprocess.run(
            list(argv), cwd=cwd, env=full_env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        elapsed = time.perf_counter() - start
        if i >= warmup:
            times.append(elapsed)
    return statistics.median(times)


def python_baseline(runs: int = 21) -> float:
    """Median wall time of `python -c pass`: the floor every ratio is measured against."""
    return median_seconds([sys.executable, "-c", "pass"], runs)


def row(label: str, seconds: float, baseline: float, target: float | None = None) -> str:
    ratio = seconds / baseline if baseline else float("nan")
    verdict = ""
    if target is not None:
        verdict = "  within target" if ratio <= target else f"  over the {target:g}x target"
    return f"{label:<44} {seconds * 1000:8.1f} ms  {ratio:5.1f}x{verdict}"
