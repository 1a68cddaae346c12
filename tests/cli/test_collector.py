"""The hot commands run with the cyclic garbage collector paused; typer's path, which
also serves the tool server for hours, runs with it as it was."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

# Counts the collections that start while `main` runs, and tells whether the collector
# was on when typer's path was given the command line and after `main` returned.
_PROBE = """
import gc, json, sys
import memtier.cli
from memtier.cli.fast import main

seen = {"collections": 0, "typer_collecting": None}
def count(phase, info):
    if phase == "start":
        seen["collections"] += 1
def typer_path(args, read):
    seen["typer_collecting"] = gc.isenabled()
    return 0
memtier.cli.run = typer_path
gc.collect()
gc.set_threshold(100)  # collections every 100 allocations, were the collector on
gc.callbacks.append(count)
code = main(sys.argv[1:])
gc.callbacks.remove(count)
seen["code"] = code
seen["after"] = gc.isenabled()
sys.stderr.write(json.dumps(seen))
"""


def _probe(args: list[str]) -> dict[str, object]:
    import json

    proc = subprocess.run(
        [sys.executable, "-c", _PROBE, *args], capture_output=True, text=True, check=False
    )
    found: dict[str, object] = json.loads(proc.stderr.strip().splitlines()[-1])
    return found


def test_a_search_runs_without_a_collection(root: Path) -> None:
    seen = _probe(["--root", str(root), "search", "backup", "--json"])
    assert seen["code"] == 0
    assert seen["collections"] == 0
    assert seen["typer_collecting"] is None  # the fast path ran it
    assert seen["after"] is True


def test_typers_path_runs_with_the_collector_on(root: Path) -> None:
    seen = _probe(["--root", str(root), "stats"])
    assert seen["typer_collecting"] is True
    assert seen["after"] is True


# `script`, the installed command: the collections that start until the process ends
# (told by an exit handler: a search ends without the interpreter's teardown).
_SCRIPT_PROBE = """
import atexit, gc, json, sys
from memtier.cli.fast import script

seen = {"collections": 0}
def count(phase, info):
    if phase == "start":
        seen["collections"] += 1
def report():
    seen["collecting"] = gc.isenabled()
    sys.stderr.write(json.dumps(seen))
atexit.register(report)
gc.collect()
gc.set_threshold(100)  # collections every 100 allocations, were the collector on
gc.callbacks.append(count)
sys.argv = ["memtier", *sys.argv[1:]]
script()
"""


def test_a_search_ends_its_process_without_a_collection(root: Path) -> None:
    import json

    proc = subprocess.run(
        [sys.executable, "-c", _SCRIPT_PROBE, "--root", str(root), "search", "backup", "--json"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    seen = json.loads(proc.stderr.strip().splitlines()[-1])
    assert proc.returncode == 0
    assert json.loads(proc.stdout)["query"] == "backup"
    assert seen == {"collections": 0, "collecting": False}
