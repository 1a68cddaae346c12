"""`memtier health-check` and `memtier install-scripts` through the command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import NOW_TEXT, CliRunner, exit_and_loaded, run_memtier

TODAY = NOW_TEXT[:10]


def test_healthy_workspace_exits_0_with_the_original_shape(root: Path, cli: CliRunner) -> None:
    result = cli("--root", str(root), "--now", NOW_TEXT, "health-check")
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "=== Memory Health Check (2026-11-30 10:00) ==="
    assert "✅ MEMORY.md header valid" in lines
    assert lines[-1] == "✅ All required checks passed"
    assert "\033[" not in result.stdout  # NO_COLOR is set by the test guard
    assert result.stderr == ""


def test_a_failure_exits_1_and_names_it(root: Path, cli: CliRunner) -> None:
    (root / "memory" / "working-buffer.md.pending").write_text("x\n")
    result = cli("health-check", "--root", str(root), "--now", NOW_TEXT)
    assert result.exit_code == 1
    assert "❌ pending rotation file present" in result.stdout.splitlines()
    assert result.stdout.splitlines()[-1] == "⚠️  Some required checks failed — review above"
    assert "memtier: error" not in result.stderr


def test_warnings_never_change_the_exit_code(root: Path, cli: CliRunner) -> None:
    (root / "memory" / "working-buffer.md").unlink()
    (root / "memory" / ".x.md.0000.memtier-tmp").write_text("half")
    result = cli("health-check", "--root", str(root), "--now", NOW_TEXT)
    assert result.exit_code == 0
    assert "⚠️  working-buffer.md not found" in result.stdout
    assert "⚠️  memory/.x.md.0000.memtier-tmp — leftover temporary file" in result.stdout


def test_json_is_one_object_and_nothing_else(root: Path, cli: CliRunner) -> None:
    (root / "MEMORY.md").write_text("# Agent Memory\n#tags: Memory\n")
    result = cli("health-check", "--json", "--verbose", "--root", str(root), "--now", NOW_TEXT)
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    assert set(data) == {"ok", "checks"}
    assert data["ok"] is False
    failed = [c for c in data["checks"] if c["status"] == "fail"]
    assert failed == [
        {"id": "hot.header", "status": "fail", "path": "MEMORY.md",
         "message": "MEMORY.md header invalid",
         "detail": ["line1=# Agent Memory", "line2=#tags: Memory", "line3=", "line4="]},
        {"id": "tags", "status": "fail", "path": "MEMORY.md",
         "message": "MEMORY.md — invalid tag(s): Memory",
         "detail": ["line 2: #tags: Memory",
                    "allowed tags: see 'vocabulary' in memory/memtier.toml",
                    # the fix line (issue 21: one for every failure that has one)
                    "fix: use tags of the vocabulary (memtier tags); a new tag is the "
                    "person's choice: memtier tags --add Memory"]},
    ]  # fmt: skip
    quiet = json.loads(cli("health-check", "--json", "--root", str(root)).stdout)
    assert all(set(c) == {"id", "status", "path", "message"} for c in quiet["checks"])


def test_verbose_shows_the_detail(root: Path, cli: CliRunner) -> None:
    (root / "MEMORY.md").write_text("# Agent Memory\n#tags: memory\nlast_verified: soon\n")
    plain = cli("health-check", "--root", str(root), "--now", NOW_TEXT)
    verbose = cli("health-check", "--verbose", "--root", str(root), "--now", NOW_TEXT)
    assert "line3=" not in plain.stdout
    assert "line3=last_verified: soon" in verbose.stdout
    assert "line4=" in verbose.stdout
    short = cli("health-check", "-v", "--root", str(root), "--now", NOW_TEXT)
    assert short.stdout == verbose.stdout


def test_a_stale_file_names_memtier_verify_without_verbose(root: Path, cli: CliRunner) -> None:
    rel = "memory/semantic/hosts.md"
    (root / rel).write_text("# Hosts\n#tags: docker\n> last_verified: 2026-10-01\n")
    plain = cli("health-check", "--root", str(root), "--now", NOW_TEXT)
    assert plain.exit_code == 1
    lines = plain.stdout.splitlines()
    failure = lines.index(f"❌ {rel} — last_verified stale or invalid")  # compat, unchanged
    # PROTOCOL §6 (v4): verified when its facts are used, not a reason to stop.
    hint = f"     fix: when you use its facts, check them (memtier get {rel}), then "
    hint += f"memtier verify {rel}"
    assert lines[failure + 1] == hint
    assert "days old" not in plain.stdout  # the rest of the detail stays behind --verbose
    verbose = cli("health-check", "--verbose", "--root", str(root), "--now", NOW_TEXT)
    assert verbose.stdout.count("memtier verify") == 1
    assert lines[-1] == "⚠️  Some required checks failed — review above"
    quiet = json.loads(cli("health-check", "--json", "--root", str(root), "--now", NOW_TEXT).stdout)
    stale = [c for c in quiet["checks"] if c["status"] == "fail"]
    assert stale == [
        {"id": "warm.fresh", "status": "fail", "path": rel,
         "message": f"{rel} — last_verified stale or invalid"},
    ]  # fmt: skip
    detailed = cli("health-check", "--json", "-v", "--root", str(root), "--now", NOW_TEXT)
    fresh = [c for c in json.loads(detailed.stdout)["checks"] if c["status"] == "fail"]
    assert fresh[0]["message"] == f"{rel} — last_verified stale or invalid"
    assert fresh[0]["detail"][-1] == hint.strip()


def test_heading_uses_now(root: Path, cli: CliRunner) -> None:
    result = cli("health-check", "--root", str(root), "--now", "2026-12-01T07:05:00+01:00")
    assert result.stdout.startswith("=== Memory Health Check (2026-12-01 07:05) ===\n")


def test_usage_error_exits_2(root: Path, cli: CliRunner) -> None:
    result = cli("health-check", "--root", str(root), "--bogus")
    assert result.exit_code == 2
    assert result.stderr.startswith("memtier: error:")
    assert result.stdout == ""


def test_no_workspace_exits_2(tmp_path: Path, cli: CliRunner) -> None:
    result = cli("health-check", cwd=tmp_path)
    assert result.exit_code == 2
    assert "workspace root not found" in result.stderr


def test_root_is_found_from_a_subfolder(root: Path, cli: CliRunner) -> None:
    result = cli("health-check", "--now", NOW_TEXT, cwd=root / "memory" / "semantic")
    assert result.exit_code == 0


@pytest.mark.parametrize("command", ["health-check", "install-scripts"])
def test_help(cli: CliRunner, command: str) -> None:
    result = cli(command, "--help")
    assert result.exit_code == 0
    assert "--root" in result.stdout
    assert "--json" in result.stdout
    if command == "health-check":
        assert "--verbose" in result.stdout


def test_install_scripts_json(root: Path, cli: CliRunner) -> None:
    first = cli("install-scripts", "--json", "--root", str(root))
    assert first.exit_code == 0, first.stderr
    data = json.loads(first.stdout)
    assert set(data) == {"scripts_dir", "version", "written", "unchanged"}
    assert data["scripts_dir"] == "memory/scripts"
    assert len(data["written"]) == 4
    again = json.loads(cli("install-scripts", "--json", "--root", str(root)).stdout)
    assert again["written"] == []
    assert again["unchanged"] == data["written"]


def test_install_scripts_text(root: Path, cli: CliRunner) -> None:
    result = cli("install-scripts", "--root", str(root))
    assert result.exit_code == 0
    assert "wrote memory/scripts/health-check.sh" in result.stdout
    assert result.stdout.splitlines()[-1].startswith("✅ Shims for memtier ")


def test_real_process_exit_codes(root: Path) -> None:
    ok = run_memtier("--root", str(root), "--now", NOW_TEXT, "health-check", "--json")
    assert ok.returncode == 0, ok.stderr
    assert json.loads(ok.stdout)["ok"] is True
    (root / "memory" / "working-buffer.md.lock").write_text("")
    bad = run_memtier("--root", str(root), "--now", NOW_TEXT, "health-check")
    assert bad.returncode == 1
    assert "❌ rotation lock file present" in bad.stdout
    # Not a terminal: no colour even without NO_COLOR.
    plain = run_memtier("--root", str(root), "health-check", env={"NO_COLOR": ""})
    assert "\033[" not in plain.stdout


def test_the_ripgrep_pass_starts_without_subprocess(root: Path) -> None:
    """`subprocess` (with `selectors` and `locale`) cost ~4 ms of every health-check:
    its one ripgrep pass is started by `memtier.spawn` instead."""

    from memtier.health import secrets_scan

    if secrets_scan._ripgrep() is None:
        pytest.skip("no rg binary")
    folder = root / "memory" / "episodic"
    for n in range(secrets_scan.RG_MIN_NOTES):
        day = f"2020-{1 + n // 28:02d}-{1 + n % 28:02d}"
        (folder / f"{day}.md").write_text(f"# {day}\n\n- a note\n", encoding="utf-8")
    loaded = exit_and_loaded(
        ["--root", str(root), "--now", NOW_TEXT, "health-check"], ("subprocess", "memtier.spawn")
    )
    assert loaded == ["0", "memtier.spawn"], loaded


def test_a_health_check_runs_and_exits_without_collecting_its_objects(root: Path) -> None:
    """Collecting the objects a large health check creates cost it ~5 ms of CPU, and
    its exit ~10 ms: the collector is off while it runs (on again after it), and they
    are frozen out of the interpreter's last collections at the exit only (a caller in
    the same process keeps its collector until then)."""
    import subprocess
    import sys

    code = (
        "import atexit, gc, sys\n"
        "from memtier.health import report\n"
        "run, seen = report.run_health_check, []\n"
        "def spy(ws):\n"
        "    seen.append(gc.isenabled())\n"
        "    return run(ws)\n"
        "report.run_health_check = spy\n"
        "from memtier.__main__ import main\n"
        f"status = main(['--root', {str(root)!r}, '--now', {NOW_TEXT!r}, 'health-check'])\n"
        "after = (gc.isenabled(), gc.get_freeze_count())\n"
        "atexit._run_exitfuncs()\n"
        "sys.stderr.write(f'{status} {seen} {after} {gc.get_freeze_count() > 0}')\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.stderr.split()[-5:] == ["0", "[False]", "(True,", "0)", "True"], proc.stderr
