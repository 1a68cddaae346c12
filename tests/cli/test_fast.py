"""The typer-free fast path agrees with typer on every argument shape it accepts.

typer is the one definition of the CLI: for each argument list below, the fast
parse either declines (typer decides) or names the same command body with the
same arguments that typer's parse of that list hands it.
"""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

import pytest

from memtier.cli import fast
from memtier.cli.invocation import split_shared
from tests.conftest import NOW_TEXT, CliRunner, run_memtier

ACCEPTED = [
    ["buffer", "note", "hello"],
    ["buffer", "note", "--json", "hello"],
    ["--json", "buffer", "note", "hello"],
    ["buffer", "note", "", "--root", "/w"],
    ["buffer", "note", "--", "- a markdown bullet"],
    ["buffer", "note", "--", "--json"],
    ["buffer", "note", "- a markdown bullet"],
    ["buffer", "note", "- [ ] a checkbox", "--json"],
    ["buffer", "task", "--- a rule"],
    ["buffer", "done", "-1"],
    ["episodic", "append", "-----BEGIN a block", "--date", "2026-11-29"],
    ["learn", "error", "- rate limit", "hit"],
    ["--root=/w", "--now", NOW_TEXT, "buffer", "task", "check the backup"],
    ["buffer", "done", "1"],
    ["buffer", "done", "--", "-1"],
    ["buffer", "heartbeat"],
    ["buffer", "show", "--json"],
    ["episodic", "append", "deployed"],
    ["episodic", "append", "--date", "2026-11-29", "deployed"],
    ["episodic", "append", "deployed", "--date=2026-11-29"],
    ["episodic", "append", "--date", "2026-11-28", "--date", "2026-11-29", "x"],
    ["learn", "learning", "rsync", "needs", "a", "slash"],
    ["learn", "--pin", "error", "x"],
    ["learn", "error", "x", "--pin", "--json"],
    ["learn", "error", "--", "-a", "--pin"],
    ["session-start"],
    ["session-start", "--json"],
    ["health-check"],
    ["health-check", "-v"],
    ["health-check", "--verbose", "--json", "-v"],
    ["search", "qdrant"],
    ["search", "qdrant host", "--limit", "3", "--json"],
    ["search", "--regex", "qdr.nt", "--context=0", "--all"],
    ["search", "- a bullet", "--limit=+2"],
    ["search", "x", "--tier", "warm", "--tier=COLD"],
    ["search", "--tag", "docker", "x", "--tag", "ssh", "--json"],
]
DECLINED = [
    ["buffer", "note", "-"],
    ["buffer", "note", "--", "-"],
    ["buffer", "note", "-x"],
    ["buffer", "note"],
    ["buffer", "note", "a", "b"],
    ["buffer", "note", "--help"],
    ["buffer", "nte", "x"],
    ["buffer", "heartbeat", "extra"],
    ["episodic", "append", "--date"],
    ["episodic", "append", "--date", "-1", "x"],
    ["episodic", "close", "--decisions", "d"],
    ["learn", "error"],
    ["learn", "error", "x", "--pin=yes"],
    ["health-check", "-vv"],
    ["health-check", "--verbose=1"],
    ["health-check", "-h"],
    ["stats"],
    ["search", "x", "--tier"],
    ["search", "x", "--tag", "--json"],
    ["search", "x", "--limit", "many"],
    ["search", "x", "--limit"],
    ["search"],
    [],
]


def _typer_call(argv: list[str], cli: CliRunner, monkeypatch: pytest.MonkeyPatch) -> Any:
    """The body and arguments typer's parse of *argv* hands to the fast module."""
    calls: list[tuple[str, dict[str, Any]]] = []
    for name, body in fast.BODIES.items():

        def recorder(*args: Any, _name: str = name, _body: Any = body, **kwargs: Any) -> int:
            bound = inspect.signature(_body).bind(*args, **kwargs)
            bound.apply_defaults()
            calls.append((_name, dict(bound.arguments)))
            return 0

        monkeypatch.setattr(fast, name, recorder)
    result = cli(*argv)
    assert result.exit_code == 0, result.stderr
    assert len(calls) == 1
    name, kwargs = calls[0]
    return name, {k: list(v) if isinstance(v, tuple) else v for k, v in kwargs.items()}


@pytest.mark.parametrize("argv", ACCEPTED, ids=" ".join)
def test_fast_parse_matches_typer(
    argv: list[str], cli: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    rest, _ = split_shared(argv)
    parsed = fast.parse(rest)
    assert parsed is not None
    assert parsed == _typer_call(argv, cli, monkeypatch)


@pytest.mark.parametrize("argv", DECLINED, ids=lambda a: " ".join(a) or "(none)")
def test_other_shapes_go_to_typer(argv: list[str]) -> None:
    rest, _ = split_shared(argv)
    assert fast.parse(rest) is None


def test_shared_options_are_taken_before_a_double_dash_only() -> None:
    rest, found = split_shared(["buffer", "--json", "note", "--now=T", "x", "--root", "R"])
    assert (rest, found.root, found.now, found.as_json) == (["buffer", "note", "x"], "R", "T", True)
    tail = ["buffer", "note", "--", "--root", "R", "--json"]
    rest, found = split_shared(tail)
    assert (rest, found.root, found.as_json) == (tail, None, False)


@pytest.mark.parametrize(
    "argv",
    [
        ["buffer", "show", "--json"],
        ["health-check", "--verbose"],
        ["session-start", "--json"],
        ["buffer", "done", "no such task", "--json"],
        ["learn", "nonsense", "x"],
    ],
    ids=" ".join,
)
def test_a_real_process_on_the_fast_path_prints_what_typer_prints(
    argv: list[str], root: Path, cli: CliRunner
) -> None:
    args = ["--root", str(root), "--now", NOW_TEXT, *argv]
    proc = run_memtier(*args)
    typer_run = cli(*args)
    assert (proc.returncode, proc.stdout, proc.stderr) == (
        typer_run.exit_code,
        typer_run.stdout,
        typer_run.stderr,
    )
