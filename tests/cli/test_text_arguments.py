"""TEXT arguments (PROTOCOL §3 v2): '-' reads stdin, text may start with '-', a bullet
is not doubled, undecodable bytes never crash, and a hostile argument never
produces a traceback in any command."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import click
import pytest
import typer

from memtier.cli import app
from memtier.formats.buffer import parse_buffer
from tests.conftest import NOW_TEXT, CliRunner, memtier_command

PEM = (
    "-----"
    + "BEGIN RSA PRIVATE KEY-----\n"
    + "\n".join(["MIIEowIBAAKCAQEA" + "q1W2e3R4t5Y6" * 4] * 3)
    + "\nZm9vYmFy==\n-----"
    + "END RSA PRIVATE KEY-----"
)
PEM_BODY_LINE = "MIIEowIBAAKCAQEA" + "q1W2e3R4t5Y6" * 4
TOKEN = "gh" + "p_" + "a1B2" * 9


def _in(root: Path, *args: str) -> list[str]:
    return [*args, "--root", str(root), "--now", NOW_TEXT]


def _notes(root: Path) -> str:
    return (root / "memory/working-buffer.md").read_text()


def test_a_markdown_bullet_is_text_and_is_not_doubled(cli: CliRunner, root: Path) -> None:
    result = cli(*_in(root, "buffer", "note", "- nas01 runs Ubuntu"))
    assert result.exit_code == 0, result.stderr
    assert "- nas01 runs Ubuntu\n" in _notes(root)
    assert "- - nas01" not in _notes(root)


@pytest.mark.parametrize(
    "args",
    [
        ["buffer", "note", "--- rule", "--json"],
        ["buffer", "note", "--json", "--- rule"],
        ["buffer", "note", "--json", "--", "--- rule"],
        ["buffer", "note", "--", "--- rule"],
    ],
    ids=["option-after", "option-before", "double-dash-after-option", "double-dash"],
)
def test_options_before_or_after_the_text_and_double_dash_still_work(
    cli: CliRunner, root: Path, args: list[str]
) -> None:
    where = ["--root", str(root), "--now", NOW_TEXT]
    at = args.index("--") if "--" in args else len(args)
    result = cli(*args[:at], *where, *args[at:])  # after "--" everything is text
    assert result.exit_code == 0, result.stderr
    assert "- --- rule\n" in _notes(root)


def test_a_mistyped_option_is_still_an_option(cli: CliRunner, root: Path) -> None:
    before = _notes(root)
    result = cli(*_in(root, "buffer", "note", "--jsno", "text"))
    assert result.exit_code == 2
    assert "No such option" in result.stderr
    assert _notes(root) == before


def test_a_key_block_as_the_argument_is_redacted(cli: CliRunner, root: Path) -> None:
    result = cli(*_in(root, "episodic", "append", PEM))
    assert result.exit_code == 0, result.stderr
    note = (root / "memory/episodic/2026-11-30.md").read_text()
    assert "[REDACTED:PRIVATE_KEY]" in note
    assert PEM_BODY_LINE not in note + result.stdout + result.stderr


def test_learn_and_done_do_not_double_a_bullet_and_a_checkbox_stays_sensible(
    cli: CliRunner, root: Path
) -> None:
    assert cli(*_in(root, "learn", "learning", "- pin the base image")).exit_code == 0
    learnings = (root / ".learnings/LEARNINGS.md").read_text()
    assert "- 2026-11-30 pin the base image\n" in learnings
    assert cli(*_in(root, "buffer", "task", "- [ ] rebuild the gateway")).exit_code == 0
    assert parse_buffer(_notes(root)).active_tasks == ["[ ] rebuild the gateway"]
    done = cli(*_in(root, "buffer", "done", "- [ ] rebuild the gateway"))
    assert done.exit_code == 0, done.stderr
    assert "- [done] rebuild the gateway\n" in _notes(root)


def test_dash_reads_several_lines_from_stdin(cli: CliRunner, root: Path) -> None:
    result = cli(*_in(root, "buffer", "note", "-"), input="first line\n  second line\n")
    assert result.exit_code == 0, result.stderr
    assert "- first line second line\n" in _notes(root)
    closed = cli(
        *_in(root, "episodic", "close", "--decisions", "-", "--signal", "s", "--open", "none"),
        input="- kept the mirror\n",
    )
    assert closed.exit_code == 0, closed.stderr
    assert "Decisions: - kept the mirror" in (root / "memory/episodic/2026-11-30.md").read_text()


@pytest.mark.slow  # a huge input: ~2 s of secret scanning over 3.5 MB in the process
def test_dash_reads_a_few_megabytes_from_a_real_pipe(root: Path) -> None:
    text = "".join(f"line {n} of a long paste\n" for n in range(150_000))  # ~3.5 MB
    done = subprocess.run(
        [*memtier_command(), "learn", "learning", "-", "--root", str(root), "--now", NOW_TEXT],
        input=text.encode(),
        capture_output=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    entry = (root / ".learnings/LEARNINGS.md").read_text().splitlines()[-1]
    assert entry.startswith("- 2026-11-30 line 0 of a long paste line 1 ")
    assert entry.endswith("line 149999 of a long paste")


def test_search_reads_its_query_from_stdin(cli: CliRunner, root: Path) -> None:
    cli(*_in(root, "buffer", "note", "the zebra mirror"))
    result = cli(*_in(root, "search", "-"), input="zebra\n")
    assert result.exit_code == 0, result.stderr
    assert "zebra" in result.stdout


def test_undecodable_bytes_in_an_argument_are_replaced_not_a_traceback(root: Path) -> None:
    argv = [*memtier_command(), "buffer", "note", "--root", str(root), "--now", NOW_TEXT]
    done = subprocess.run(
        [os.fsencode(a) for a in argv] + [b"caf\xff\xfe bytes"], capture_output=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert b"Traceback" not in done.stderr
    text = (root / "memory/working-buffer.md").read_bytes().decode("utf-8")  # still UTF-8
    assert "- caf\ufffd\ufffd bytes\n" in text


def test_invalid_utf8_on_stdin_is_replaced(cli: CliRunner, root: Path) -> None:
    result = cli(*_in(root, "buffer", "note", "-"), input=b"bad \xff byte\n")
    assert result.exit_code == 0, result.stderr
    assert "- bad \ufffd byte\n" in _notes(root)


def _paths(group: click.Group, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    found: list[tuple[str, ...]] = []
    for name, command in sorted(group.commands.items()):
        if isinstance(command, click.Group):
            found += _paths(command, (*prefix, name))
        else:
            found.append((*prefix, name))
    return found


# Commands that would reach outside the test's folder (a crontab, a server on stdin).
_SKIPPED = {("cron",), ("mcp",)}
ALL_LEAVES = [p for p in _paths(typer.main.get_command(app)) if p not in _SKIPPED]  # type: ignore[arg-type]
HOSTILE: dict[str, list[str]] = {
    "dash-text": ["- a bullet"],
    "stdin": ["-"],
    "double-dash": ["--", "-x", "--json"],
    "key-block": [PEM],
    "token": [TOKEN],
    "undecodable": [b"\xff\xfe".decode("utf-8", "surrogateescape")],
    "unknown-option": ["--bogus", TOKEN],
    "nul": ["a\0b"],
    "huge": ["x" * 20_000],
    "no-root": ["--root", "/nonexistent/memtier-root"],
    "year-one": ["--now", "0001-01-01T00:00:00"],
}


# "huge" runs every command over 20,000 characters (about 2.5 s): a huge input, in
# the slow step; the other shapes run in the default one.
_SHAPES = [
    pytest.param(name, marks=pytest.mark.slow) if name == "huge" else name for name in HOSTILE
]


@pytest.mark.parametrize("hostile", _SHAPES, ids=list(HOSTILE))
def test_every_command_survives_hostile_arguments(cli: CliRunner, root: Path, hostile: str) -> None:
    for path in ALL_LEAVES:
        args = [*path, *HOSTILE[hostile]]
        if "--root" not in args:
            args += ["--root", str(root)]
        result = cli(*args, input=PEM + "\n" + TOKEN + "\n")
        shown = f"{' '.join(path)} with {hostile}: {result.stderr}"
        # 3 is a bug's code, and an unreachable remote's (`sync init` given the text).
        unreachable = result.exit_code == 3 and "could not be reached" in result.stderr
        assert result.exit_code in (0, 1, 2) or unreachable, shown
        assert "Traceback" not in result.stderr, shown
        assert "internal error" not in result.stderr, shown
        assert TOKEN not in result.stdout + result.stderr, shown
        assert PEM_BODY_LINE not in result.stdout + result.stderr, shown
        for line in result.stderr.splitlines():
            assert line.startswith("memtier: ") or not line.strip(), shown
