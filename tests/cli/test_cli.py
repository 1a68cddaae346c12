"""CLI wiring: version, help everywhere, the error handler, atomic-write end to end."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import click
import pytest
import typer

from memtier import __version__
from memtier.cli import app
from tests.conftest import REPO, CliRunner, run_memtier


def _commands(group: click.Group, prefix: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    for name, command in sorted(group.commands.items()):
        yield (*prefix, name)
        if isinstance(command, click.Group):
            yield from _commands(command, (*prefix, name))


ALL_COMMANDS = list(_commands(typer.main.get_command(app)))  # type: ignore[arg-type]


def test_version_in_process_and_as_module(cli: CliRunner) -> None:
    assert cli("--version").stdout == f"memtier {__version__}\n"
    proc = subprocess.run(
        [sys.executable, "-m", "memtier", "--version"], capture_output=True, text=True
    )
    assert proc.returncode == 0 and proc.stdout == f"memtier {__version__}\n"


def test_help_lists_every_top_level_command(cli: CliRunner) -> None:
    result = cli("--help")
    assert result.exit_code == 0
    for path in ALL_COMMANDS:
        if len(path) == 1:
            assert path[0] in result.stdout


@pytest.mark.parametrize("path", ALL_COMMANDS, ids=" ".join)
def test_every_command_has_help(cli: CliRunner, path: tuple[str, ...]) -> None:
    result = cli(*path, "--help")
    assert result.exit_code == 0, result.stderr
    assert "Usage: memtier " + " ".join(path) in result.stdout
    assert result.stdout.startswith("Usage: memtier")
    lines = [line for line in result.stdout.splitlines() if line.strip()]
    assert len(lines) >= 3  # usage, a description, options
    assert len(result.stdout.split("\n")) > 4


def test_readme_names_every_command() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    for path in ALL_COMMANDS:
        assert f"memtier {' '.join(path)}" in readme, path


def test_usage_errors_are_one_line_exit_2(cli: CliRunner) -> None:
    for args in (["--bogus"], ["atomic-write"], ["no-such-command"]):
        result = cli(*args)
        assert result.exit_code == 2, args
        assert result.stderr.startswith("memtier: error: ")
        assert result.stderr.count("\n") == 1, result.stderr


def test_no_arguments_shows_help(cli: CliRunner) -> None:
    result = cli()
    assert result.exit_code == 0
    assert "Usage: memtier" in result.stdout


def test_atomic_write_real_process(root: Path) -> None:
    warm = "# New\n#tags: docker\n> last_verified: 2026-11-30\nbody"
    proc = run_memtier("atomic-write", "memory/semantic/new.md", input=warm, cwd=root)
    assert proc.returncode == 0, proc.stderr
    assert (root / "memory/semantic/new.md").read_text() == warm + "\n"
    proc = run_memtier("atomic-write", "n.md", "--json", input="x\n", cwd=root / "memory")
    assert json.loads(proc.stdout)["path"] == "memory/n.md"


@pytest.mark.parametrize("kind", ["parent", "absolute", "symlink"])
def test_atomic_write_refuses_paths_outside(
    tmp_path: Path, root: Path, kind: str, snapshot: Callable[[Path], dict[str, bytes]]
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (root / "escape").symlink_to(outside)
    target = {
        "parent": "../outside/x.md",
        "absolute": str(outside / "x.md"),
        "symlink": "escape/x.md",
    }[kind]
    before = snapshot(tmp_path)
    proc = run_memtier("atomic-write", target, input="secret plans\n", cwd=root)
    assert proc.returncode == 2
    assert proc.stderr.startswith("memtier: error: ") and proc.stderr.count("\n") == 1
    assert "outside the workspace" in proc.stderr
    assert snapshot(tmp_path) == before


def test_atomic_write_through_symlink_to_outside_file(tmp_path: Path, root: Path) -> None:
    victim = tmp_path / "victim.md"
    victim.write_text("untouched\n")
    (root / "memory" / "alias.md").symlink_to(victim)
    proc = run_memtier("atomic-write", "memory/alias.md", input="overwrite\n", cwd=root)
    assert proc.returncode == 2
    assert victim.read_text() == "untouched\n"


@pytest.mark.parametrize(
    ("data", "message"),
    [(b"a\x00b", "binary"), (b"\xff\xfe broken", "not UTF-8")],
)
def test_atomic_write_refuses_bad_stdin(
    root: Path, cli: CliRunner, data: bytes, message: str
) -> None:
    result = cli("--root", str(root), "atomic-write", str(root / "MEMORY.md"), input=data)
    assert result.exit_code == 2 and message in result.stderr
    assert (root / "MEMORY.md").read_text().startswith("# Agent Memory")


def test_atomic_write_into_a_directory_is_refused(root: Path, cli: CliRunner) -> None:
    result = cli("--root", str(root), "atomic-write", str(root / "memory"), input="x")
    assert result.exit_code == 2 and "is a directory" in result.stderr


def test_atomic_write_redacts_secrets(root: Path, cli: CliRunner) -> None:
    token = "gh" + "p_" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb7d"
    result = cli(
        "--root", str(root), "atomic-write", str(root / "notes.md"), input=f"token {token}\n"
    )
    assert result.exit_code == 0, result.stderr
    on_disk = (root / "notes.md").read_text()
    assert token not in on_disk and re.search(r"\[REDACTED:[A-Z_]+\]", on_disk)
    assert token not in result.stderr + result.stdout
    assert "redacted 1 secret" in result.stderr


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["health-check", "--json"], ["health-check"]),
        (["--root", "/w", "--now", "2026-01-01", "buffer", "note", "x"], ["buffer", "note"]),
        (["--root=/w", "stats"], ["stats"]),
        (["--help"], []),
        (["--version"], []),
        (["--bogus", "stats"], []),
        (["buffer", "note", "task"], ["buffer", "note"]),
        ([], []),
    ],
)
def test_the_command_path_skips_global_options(args: list[str], expected: list[str]) -> None:
    from memtier.cli.invocation import read_argv

    assert read_argv(args).path == expected


def test_narrowed_application_holds_only_the_asked_command() -> None:
    from memtier.cli._app import _narrowed
    from memtier.cli.invocation import read_argv

    def app_for(args: list[str]) -> typer.Typer:
        return _narrowed(app, read_argv(args).path)

    narrowed = app_for(["--root", "/w", "buffer", "note", "x"])
    assert [g.name for g in narrowed.registered_groups] == ["buffer"]
    assert narrowed.registered_commands == []
    inner = narrowed.registered_groups[0].typer_instance
    assert inner is not None and [c.name for c in inner.registered_commands] == ["note"]
    whole = app_for(["buffer", "--help"]).registered_groups[0].typer_instance
    assert whole is not None and len(whole.registered_commands) == 5  # help lists them all
    assert app_for(["no-such-command"]) is app  # so click can say "No such command"
    assert len(app.registered_commands) > 10  # the full application is untouched


def test_a_command_built_once_keeps_no_option_of_an_earlier_call(
    root: Path, typer_cli: CliRunner
) -> None:
    """The click command for a command is built once per process and reused, whatever
    the caller's text; each call parses its own options, so an option one call gave
    is gone in the next."""
    from memtier.cli._app import _command_for, _command_words

    for n in range(3):  # three notes, so three hits (lines of one note could be one)
        (root / f"memory/semantic/backup-{n}.md").write_text(f"# Backup {n}\n\nrestic check {n}\n")
    at = ("--root", str(root), "--json", "search")
    hits = _command_for.cache_info().hits
    narrow = typer_cli(*at, "restic", "--limit", "1")
    wide = typer_cli(*at, "restic")
    again = typer_cli(*at, "check", "--limit", "2")
    assert narrow.exit_code == wide.exit_code == again.exit_code == 0, wide.stderr
    counts = [len(json.loads(r.stdout)["results"]) for r in (narrow, wide, again)]
    assert counts == [1, 3, 2]
    assert _command_for.cache_info().hits >= hits + 2  # the last two reused the first's
    assert _command_words(app, ["remember", "nas01 is 10.0.0.4"]) == ("remember",)
    assert _command_words(app, ["buffer", "note"]) == ("buffer", "note")
    assert _command_words(app, ["no-such-command", "x"]) == ()
