"""Helpers shared by the benchmark scripts: timing real commands, finding memtier.

Every bench that compares memtier with a floor (`python -c pass`, an `rg` over the
same files) times them in pairs with `paired` and prints the machine's load with
each figure; the large COLD tier of a bench comes from `write_notes`.
"""

from __future__ import annotations

import os
import random
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
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


# -- paired runs: the one way every bench compares a command with its floor -------------


def loadavg() -> str:
    """The machine's load (1, 5, 15 minutes), printed beside every figure."""
    try:
        return " ".join(Path("/proc/loadavg").read_text(encoding="ascii").split()[:3])
    except OSError:
        return "unknown"


def run_seconds(
    argv: Sequence[str],
    *,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    before: Callable[[], None] | None = None,
) -> float:
    """Wall time of one run of *argv* (output discarded); *before* runs untimed.
    The exit code of the last run is kept in `LAST_EXIT` (a failed run is no figure),
    its CPU time (user and system, with the processes it waited for: memtier's rg) in
    `LAST_CPU`."""
    full_env = {**os.environ, **(env or {})}
    full_env.pop("PYTHONDONTWRITEBYTECODE", None)
    if before is not None:
        before()
    start = time.perf_counter()
    process = subprocess.Popen(
        list(argv),
        cwd=cwd or work_folder(),
        env=full_env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)  # reaped: Popen need not wait
    LAST_EXIT[0] = process.returncode
    LAST_CPU[0] = usage.ru_utime + usage.ru_stime
    return elapsed


LAST_EXIT = [0]
LAST_CPU = [0.0]


@dataclass(frozen=True)
class Paired:
    """A command timed against its floor in pairs (floor, command, floor, command, …)."""

    seconds: float  # median of the command's runs
    floor: float  # median of the floor's runs
    ratio: float  # median of the per-pair ratios: what a change of load cannot skew
    load: str  # /proc/loadavg when the runs ended
    exits: tuple[int, ...] = ()  # the command's exit codes, when any was not 0
    # The same median for CPU times (user and system): on a loaded machine a wait for
    # a core counts in the wall time only.
    cpu_ratio: float = float("nan")

    def line(self, label: str, target: float | None = None) -> str:
        verdict = ""
        if target is not None:
            over = f"  over the {target:g}x target"
            verdict = "  within target" if self.ratio <= target else over
        exits = f"  exit codes {sorted(set(self.exits))}" if self.exits else ""
        return (
            f"{label:<34} {self.seconds * 1000:8.1f} ms  floor {self.floor * 1000:7.1f} ms  "
            f"{self.ratio:5.2f}x{verdict}  cpu {self.cpu_ratio:5.2f}x  (load {self.load}){exits}"
        )


def paired(
    argv: Sequence[str],
    floor: Sequence[str],
    runs: int,
    *,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    before: Callable[[], None] | None = None,
    before_floor: Callable[[], None] | None = None,
    warmup: int = 1,
) -> Paired:
    """Run *floor* and *argv* alternately (A B A B …) and take the median of the
    per-pair ratios: both halves of a pair see the same load on a shared machine.
    *before* (*before_floor*) runs untimed before each run of *argv* (*floor*):
    a fresh copy of a workspace."""
    for _ in range(warmup):
        run_seconds(floor, cwd=cwd, env=env, before=before_floor)
        run_seconds(argv, cwd=cwd, env=env, before=before)
    floors: list[float] = []
    timed: list[float] = []
    exits: list[int] = []
    cpu: list[float] = []
    for _ in range(runs):
        floors.append(run_seconds(floor, cwd=cwd, env=env, before=before_floor))
        floor_cpu = LAST_CPU[0]
        timed.append(run_seconds(argv, cwd=cwd, env=env, before=before))
        exits.append(LAST_EXIT[0])
        if floor_cpu > 0:
            cpu.append(LAST_CPU[0] / floor_cpu)
    ratios = [t / f for t, f in zip(timed, floors, strict=True) if f > 0]
    return Paired(
        statistics.median(timed),
        statistics.median(floors),
        statistics.median(ratios) if ratios else float("nan"),
        loadavg(),
        tuple(exits) if any(exits) else (),
        statistics.median(cpu) if cpu else float("nan"),
    )


def python_floor() -> list[str]:
    """`python -c pass`: the floor of a command whose cost is its start-up."""
    return [sys.executable, "-c", "pass"]


def ripgrep() -> str | None:
    """The `rg` beside this interpreter (the ripgrep wheel), else on PATH."""
    beside = Path(sys.executable).parent / "rg"
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    return shutil.which("rg")


# -- a large COLD tier: the bench generator of daily notes --------------------------------

HOSTS = ["atlas", "borealis", "cobalt", "dune", "ember", "fjord", "gale", "harbor"]
SERVICES = ["qdrant", "synapse", "coturn", "docker", "pm2", "samba", "fail2ban", "ufw"]
VERBS = ["restarted", "upgraded", "migrated", "rebuilt", "checked", "pinned", "rolled back"]
THINGS = [
    "the reverse proxy config",
    "the nightly backup job",
    "the tailnet ACLs",
    "the systemd unit",
    "the compose file",
    "the apt mirror list",
    "the TLS certificates",
    "the disk quota on /var",
    "the log rotation policy",
    "the snapshot schedule",
]
REASONS = [
    "because the health probe kept flapping after the kernel update",
    "since the old image still pinned an outdated glibc",
    "after the monitoring graph showed a slow memory leak",
    "to stop the cron job from overlapping with the weekly review",
    "because the mirror answered with stale package indexes",
    "as the user asked for quieter alerts outside working hours",
    "after a failed deploy left two containers bound to the same port",
]
FOLLOWUPS = [
    "Latency went from 180 ms to 35 ms on the p95.",
    "The restart took 4 minutes, most of it waiting on the database.",
    "Nothing else changed; the config diff is two lines.",
    "Left a note in decisions.md with the rationale.",
    "Need to re-check this after the next upgrade window.",
    "Ran the smoke tests twice, both green.",
    "The old volume is kept for a week before cleanup.",
]


def sentence(rng: random.Random) -> str:
    return (
        f"{rng.choice(VERBS).capitalize()} {rng.choice(THINGS)} on {rng.choice(HOSTS)} "
        f"({rng.choice(SERVICES)}) {rng.choice(REASONS)}. {rng.choice(FOLLOWUPS)}"
    )


def note_text(rng: random.Random, day: date, size: int = 2000, extra: Sequence[str] = ()) -> str:
    """A closed daily note of about *size* bytes of technical prose; *extra* lines
    stand first in its session log."""
    lines = [f"# {day.isoformat()}", "", "## Session log", *extra]
    while sum(len(x) + 1 for x in lines) < size - 160:
        stamp = f"{rng.randrange(7, 23):02d}:{rng.randrange(60):02d}"
        lines.append(f"- {stamp} {sentence(rng)}")
    lines += [
        "",
        f"Updated: {day.isoformat()}",
        f"Decisions: {rng.choice(VERBS)} {rng.choice(THINGS)}",
        f"Signal: {rng.choice(FOLLOWUPS)}",
        "Open: none",
    ]
    return "\n".join(lines) + "\n"


def write_notes(
    root: Path,
    count: int,
    today: date,
    *,
    seed: int = 20261130,
    extra: Callable[[int], Sequence[str]] | None = None,
) -> None:
    """*count* daily notes in *root*'s ``memory/episodic/``, one a day back from
    *today*; ``extra(n)`` gives the first lines of the n-th note's log."""
    rng = random.Random(seed)
    folder = root / "memory" / "episodic"
    folder.mkdir(parents=True, exist_ok=True)
    for n in range(count):
        day = today - timedelta(days=n)
        text = note_text(rng, day, extra=extra(n) if extra else ())
        (folder / f"{day.isoformat()}.md").write_text(text, encoding="utf-8")
