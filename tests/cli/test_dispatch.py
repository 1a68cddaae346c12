"""The dispatcher and the one handler: shared options, messages, exit codes, help,
and the terminal views."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from memtier.errors import EXIT_BUG, CheckFailed, MemtierError, RefusedError, WriteFailed
from tests.conftest import NOW, NOW_TEXT, CliRunner


@pytest.mark.parametrize(
    "args",
    [
        ["--root", "{root}", "--now", NOW_TEXT, "stats", "--json"],
        ["stats", "--root", "{root}", "--json", "--now", NOW_TEXT],
        ["stats", "--json", "--root={root}", f"--now={NOW_TEXT}"],
        ["--json", "buffer", "--root", "{root}", "show"],
    ],
)
def test_shared_options_before_or_after_the_command(
    args: list[str], root: Path, cli: CliRunner
) -> None:
    result = cli(*(a.format(root=root) for a in args))
    assert result.exit_code == 0, result.stderr
    assert isinstance(json.loads(result.stdout), dict)


def test_a_shared_option_without_its_value_is_a_usage_error(cli: CliRunner) -> None:
    result = cli("stats", "--root")
    assert (result.exit_code, result.stderr) == (
        2,
        "memtier: error: Option '--root' requires an argument.\n",
    )


def test_text_after_a_double_dash_keeps_option_lookalikes(root: Path, cli: CliRunner) -> None:
    result = cli("--root", str(root), "buffer", "note", "--", "--json")
    assert result.exit_code == 0, result.stderr
    assert "- --json" in (root / "memory" / "working-buffer.md").read_text()


def test_an_unexpected_exception_is_one_bug_line_exit_3(
    root: Path, cli: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memtier.commands import stats

    def broken(ws: object) -> object:
        raise ZeroDivisionError("division by zero")

    monkeypatch.setattr(stats, "collect_stats", broken)
    result = cli("--root", str(root), "stats")
    assert result.exit_code == EXIT_BUG == 3
    assert result.stderr.count("\n") == 1
    assert result.stderr.startswith("memtier: error: unexpected error (ZeroDivisionError: ")
    assert "this is a bug in memtier" in result.stderr and "report it" in result.stderr
    assert "Traceback" not in result.stderr
    monkeypatch.setenv("MEMTIER_TRACEBACK", "1")
    traced = cli("--root", str(root), "stats", "--json")
    assert traced.exit_code == 3 and "Traceback" in traced.stderr
    assert json.loads(traced.stdout)["ok"] is False


def test_error_classes_carry_their_exit_codes() -> None:
    assert WriteFailed("disk full").exit_code == 1 and isinstance(WriteFailed("x"), OSError)
    assert CheckFailed("x").exit_code == RefusedError("x").exit_code == 1
    assert MemtierError("x").exit_code == 2


def test_a_failed_health_check_exits_through_check_failed(root: Path, cli: CliRunner) -> None:
    from memtier.health.report import run_health_check
    from memtier.workspace import Workspace

    (root / "memory" / "working-buffer.md.lock").write_text("")
    report = run_health_check(Workspace.open(root, NOW))
    assert isinstance(report.failure, CheckFailed) and report.failure.shown
    result = cli("--root", str(root), "health-check", "--json")
    assert result.exit_code == 1
    assert json.loads(result.stdout)["ok"] is False  # the report, not an error object
    assert result.stderr == ""


def test_a_mistyped_command_is_suggested_once(cli: CliRunner) -> None:
    result = cli("buffer", "nte", "x")
    assert result.exit_code == 2
    assert result.stderr.count("Did you mean") == 1
    assert "'note'" in result.stderr


def test_help_shows_no_stray_escapes(cli: CliRunner) -> None:
    for path in (["search"], ["buffer", "note"], ["learn"], ["recent-searches"]):
        text = cli(*path, "--help").stdout
        assert "\\[" not in text, path
    search = cli("search", "--help").stdout
    assert "[default: 10]" in search and "[required]" in search
    assert "--json" in search  # the shared options are named in every command's help


def test_messages_travel_with_the_result(root: Path, cli: CliRunner) -> None:
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    result = cli("--root", str(root), "buffer", "note", f"token {token}", "--json")
    assert result.exit_code == 0
    assert result.stderr == "memtier: redacted 1 secret(s): GITHUB_TOKEN\n"
    assert token not in result.stdout


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("command", ["health-check", "stats"])
def test_on_a_terminal_reports_are_tables(
    command: str, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memtier.cli import run

    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm")
    out = _Terminal()
    monkeypatch.setattr(sys, "stdout", out)
    assert run(["--root", str(root), "--now", NOW_TEXT, command]) == 0
    text = out.getvalue()
    assert "┃" in text or "│" in text  # drawn by rich
    if command == "health-check":
        assert "=== Memory Health Check (2026-11-30 10:00) ===" in text
        assert "hot.header" in text


def test_no_color_keeps_the_plain_compat_lines_on_a_terminal(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memtier.cli import run

    monkeypatch.setenv("NO_COLOR", "1")
    out = _Terminal()
    monkeypatch.setattr(sys, "stdout", out)
    assert run(["--root", str(root), "--now", NOW_TEXT, "health-check"]) == 0
    lines = out.getvalue().splitlines()
    assert lines[0] == "=== Memory Health Check (2026-11-30 10:00) ==="
    assert lines[-1] == "✅ All required checks passed"


def test_rich_is_not_imported_when_piped(root: Path) -> None:
    code = (
        "import sys; from memtier.__main__ import main; "
        f"main(['--root', {str(root)!r}, 'health-check']); "
        f"main(['--root', {str(root)!r}, 'stats']); "
        "sys.stderr.write(str(any(m == 'rich' or m.startswith('rich.') for m in sys.modules)))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
    )
    assert proc.stderr.endswith("False"), proc.stderr


def test_version_loads_no_memtier_module_but_the_entry() -> None:
    # Shims ask for the version often: it must not pay for the option pass or pathlib.
    code = (
        "import sys; from memtier.__main__ import main; main(['--version']); "
        "sys.stderr.write(' '.join(sorted(m for m in sys.modules "
        "if m.startswith('memtier') or m in ('pathlib', 'typer', 'click'))))"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.stdout.startswith("memtier "), proc.stderr
    assert proc.stderr.split() == ["memtier", "memtier.__main__", "memtier.cli", "memtier.cli.fast"]
