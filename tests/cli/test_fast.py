"""The typer-free fast path agrees with typer on every argument shape it accepts.

typer is the one definition of the CLI: the fast table is checked against the
typer app (options, arity, arguments, defaults), and for each argument list, listed
below or drawn by Hypothesis, the fast parse either declines (typer decides) or
names the same command body with the same arguments that typer's parse hands it.
"""

from __future__ import annotations

import inspect
import io
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memtier.cli import fast, invocation
from memtier.cli import run as run_typer
from memtier.cli.invocation import read_argv
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
    ["recall", "do", "you", "remember", "qdrant"],
    ["recall", "qdrant", "--max-chars", "500", "--json"],
    ["consolidate", "qdrant-move", "--plan"],
    ["consolidate", "qdrant-move", "--plan-id", "p-0123456789abcdef"],
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
    ["recall"],
    ["recall", "-"],
    ["consolidate", "--due"],
    ["consolidate", "x", "--summary", "text", "--plan-id", "p-1"],
    [],
]


def _typer_call(argv: list[str], monkeypatch: pytest.MonkeyPatch) -> Any:
    """The body and arguments typer's parse of *argv* hands to the bodies module, or
    None when typer refuses the line."""
    calls: list[tuple[str, dict[str, Any]]] = []
    for name in fast.BODY_NAMES:
        body = fast.body(name)

        def recorder(*args: Any, _name: str = name, _body: Any = body, **kwargs: Any) -> int:
            bound = inspect.signature(_body).bind(*args, **kwargs)
            bound.apply_defaults()
            calls.append((_name, dict(bound.arguments)))
            return 0

        monkeypatch.setattr(invocation, name, recorder)
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = run_typer(list(argv))
    if code != 0:
        return None
    assert len(calls) == 1, err.getvalue()
    name, kwargs = calls[0]
    return name, {k: list(v) if isinstance(v, tuple) else v for k, v in kwargs.items()}


@pytest.mark.parametrize("argv", ACCEPTED, ids=" ".join)
def test_fast_parse_matches_typer(argv: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    parsed = fast.parse(read_argv(argv))
    assert parsed is not None
    assert parsed == _typer_call(argv, monkeypatch)


@pytest.mark.parametrize("argv", DECLINED, ids=lambda a: " ".join(a) or "(none)")
def test_other_shapes_go_to_typer(argv: list[str]) -> None:
    assert fast.parse(read_argv(argv)) is None


def test_shared_options_are_taken_before_a_double_dash_only() -> None:
    read = read_argv(["buffer", "--json", "note", "--now=T", "x", "--root", "R"])
    assert (read.rest, read.root, read.now) == (["buffer", "note", "x"], "R", "T")
    assert read.as_json
    assert (read.path, read.args) == (["buffer", "note"], ["x"])
    tail = ["buffer", "note", "--", "--root", "R", "--json"]
    read = read_argv(tail)
    assert (read.rest, read.root, read.as_json) == (tail, None, False)


def test_the_command_path_stops_at_the_first_option() -> None:
    assert read_argv(["--root=/w", "stats"]).path == ["stats"]
    assert read_argv(["--bogus", "stats"]).path == []
    assert read_argv(["buffer", "note", "task", "x"]).path == ["buffer", "note"]
    assert read_argv(["search", "- a bullet"]).path == ["search"]
    assert read_argv([]).path == []


# Options of the hot commands that the fast path leaves to typer on purpose (rare,
# or converted by typer). A new option of a hot command fails the test below until
# it is either added to `fast.SHAPES` or named here.
LEFT_TO_TYPER: dict[tuple[str, ...], set[str]] = {
    ("session-start",): {"--max-chars"},
    ("consolidate",): {"--summary"},  # TEXT or `-` (standard input): typer's
}


def _click_command(path: tuple[str, ...]) -> Any:
    """The click command of *path*, from the one the CLI builds for it (built once)."""
    from memtier.cli._app import _command_for

    command: Any = _command_for(())
    for name in path:
        command = command.commands[name]
    return command


def test_every_shape_names_a_body_of_the_bodies_module() -> None:
    assert {shape[0] for shape in fast.SHAPES.values()} == set(fast.BODY_NAMES)
    for name in fast.BODY_NAMES:
        assert fast.body(name) is getattr(invocation, name)


@pytest.mark.parametrize("path", list(fast.SHAPES), ids=" ".join)
def test_the_fast_table_is_the_typer_command(path: tuple[str, ...]) -> None:
    body, names, flags = fast.SHAPES[path]
    command = _click_command(path)
    params = [p for p in command.params if p.param_type_name in ("argument", "option")]
    arguments = [p for p in params if p.param_type_name == "argument"]
    assert [a.name for a in arguments] == [n.rstrip("*") for n in names]
    assert [a.nargs == -1 for a in arguments] == [n.endswith("*") for n in names]
    options = {
        name: p
        for p in params
        if p.param_type_name == "option"
        for name in p.opts
        if name not in ("--help", "-h")
    }
    assert set(flags) | LEFT_TO_TYPER.get(path, set()) == set(options)
    for option, (param, kind) in flags.items():
        click_param = options[option]
        assert click_param.name == param
        assert click_param.is_flag == (kind == fast.FLAG)
        assert click_param.multiple == (kind == fast.MANY)
    # One definition of every default: the body's, which the typer command declares.
    declared = {p.name: p.default for p in params if p.param_type_name == "option"}
    for name, value in invocation.defaults(fast.body(body)).items():
        assert declared[name] in (value, () if value is None else value), name


_PLAIN = ["x", "two words", "error", "learning", "warm", "2026-11-29", "3", ""]
_ODD = ["-1", "- a bullet", "--- rule", "-", "--", "--bogus", "-x", "--help", "--json"]
_VALUES = ["3", "+2", "x", "-1", "many", "warm", "2026-11-29", ""]


@st.composite
def _command_lines(draw: st.DrawFn) -> list[str]:
    """A hot command's path, its positional words in the right number, its options
    with values in both spellings between them, and now and then an odd token or
    a word too many: most lines are ones the fast path accepts."""
    path = draw(st.sampled_from(list(fast.SHAPES)))
    _, positional, flags = fast.SHAPES[path]
    names = [*flags, *LEFT_TO_TYPER.get(path, ())]
    count = len(positional) + (draw(st.integers(0, 2)) if positional[-1:] == ("text*",) else 0)
    pieces: list[list[str]] = [[draw(st.sampled_from(_PLAIN))] for _ in range(count)]
    for _ in range(draw(st.integers(0, 3)) if names else 0):
        name = draw(st.sampled_from(names))
        value = draw(st.sampled_from(_VALUES))
        if flags.get(name, ("", fast.VALUE))[1] == fast.FLAG:
            pieces.append([name])
        elif draw(st.booleans()):
            pieces.append([f"{name}={value}"])
        else:
            pieces.append([name, value])
    if draw(st.integers(0, 4)) == 0:
        pieces.append([draw(st.sampled_from(_ODD + _PLAIN))])
    order = draw(st.permutations(range(len(pieces))))
    return [*path, *(word for i in order for word in pieces[i])]


@settings(max_examples=300)
@given(_command_lines())
def test_both_parses_agree_on_drawn_command_lines(argv: list[str]) -> None:
    """Whenever the fast path accepts a line, typer's parse of it hands the same
    body the same arguments."""
    parsed = fast.parse(read_argv(argv))
    if parsed is None:
        return
    with pytest.MonkeyPatch.context() as monkeypatch:
        assert _typer_call(argv, monkeypatch) == parsed


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
    argv: list[str], root: Path, typer_cli: CliRunner
) -> None:
    args = ["--root", str(root), "--now", NOW_TEXT, *argv]
    proc = run_memtier(*args)
    typer_run = typer_cli(*args)
    assert (proc.returncode, proc.stdout, proc.stderr) == (
        typer_run.exit_code,
        typer_run.stdout,
        typer_run.stderr,
    )
