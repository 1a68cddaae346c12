"""End-to-end conformance with PROTOCOL.md: each rule checked through the `memtier` command.

The unit tests of each module cover the rules one function at a time; these run
the command line the way an agent, a person or cron does, and compare its exact
messages, exit codes, JSON keys and file contents with the protocol's text.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from memtier.formats.episodic import rotation_id
from tests.conftest import NOW_TEXT, CliResult, CliRunner, run_memtier

TODAY = NOW_TEXT[:10]
NOT_FOUND = (
    "memtier: error: workspace root not found "
    "(expected MEMORY.md and memory/ in an ancestor directory)\n"
)
LOCK_REFUSAL = (
    "memtier: error: rotation lock file present: another rotation is running "
    "or one crashed; run memtier session-start\n"
)
ALL_PASSED = "✅ All required checks passed"
SOME_FAILED = "⚠️  Some required checks failed — review above"


def mt(cli: CliRunner, root: Path, *args: str, now: str = NOW_TEXT, **kw: Any) -> CliResult:
    """memtier with the global options before the command name."""
    return cli("--root", str(root), "--now", now, *args, **kw)


def buffer_text(last_active: str, *tasks: str, created: str = "2026-11-30T09:00:00+01:00") -> str:
    body = "".join(f"- {t}\n" for t in tasks)
    return (
        f"# Working Buffer\ncreated: {created}\nlast_active: {last_active}\n\n"
        f"## Active Task:\n{body}"
    )


def health(cli: CliRunner, root: Path, now: str = NOW_TEXT) -> tuple[int, dict[str, Any]]:
    result = mt(cli, root, "health-check", "--json", now=now)
    return result.exit_code, json.loads(result.stdout)


def not_passing(report: dict[str, Any]) -> list[tuple[str, str, str]]:
    return [(c["id"], c["status"], c["message"]) for c in report["checks"] if c["status"] != "pass"]


# -- §1 root discovery, clock, configuration -----------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ("health-check",),
        ("session-start",),
        ("stats", "--json"),
        ("buffer", "show"),
        ("archive", "episodic", "--days", "45"),
        ("weekly-review",),
    ],
)
def test_no_workspace_is_exit_2_with_the_exact_text(
    tmp_path: Path, cli: CliRunner, args: tuple[str, ...]
) -> None:
    result = cli(*args, cwd=tmp_path)
    # With --json the error is also one JSON object on stdout (beside the stderr line).
    error = NOT_FOUND.removeprefix("memtier: error: ").rstrip("\n")
    shown = json.loads(result.stdout) if "--json" in args else result.stdout
    expected = {"ok": False, "error": error} if "--json" in args else ""
    assert (result.exit_code, result.stderr, shown) == (2, NOT_FOUND, expected)


def test_no_workspace_exact_text_from_a_real_process(tmp_path: Path) -> None:
    proc = run_memtier("health-check", cwd=tmp_path)
    assert (proc.returncode, proc.stderr) == (2, NOT_FOUND)


def test_root_from_the_environment(root: Path, tmp_path: Path) -> None:
    proc = run_memtier(
        "health-check", cwd=tmp_path, env={"MEMTIER_ROOT": str(root), "MEMTIER_NOW": NOW_TEXT}
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[0] == "=== Memory Health Check (2026-11-30 10:00) ==="


def test_explicit_root_needs_the_memory_folder(tmp_path: Path, cli: CliRunner) -> None:
    (tmp_path / "MEMORY.md").write_text(HOT_OK)
    result = cli("--root", str(tmp_path), "--now", NOW_TEXT, "health-check")
    assert (result.exit_code, result.stderr) == (2, NOT_FOUND)
    (tmp_path / "MEMORY.md").unlink()
    (tmp_path / "memory").mkdir()
    missing = cli("--root", str(tmp_path), "--now", NOW_TEXT, "health-check")
    assert missing.exit_code == 1 and "❌ MEMORY.md missing" in missing.stdout.splitlines()


@pytest.mark.parametrize(
    "command",
    [
        ("health-check",),
        ("stats",),
        ("tags",),
        ("candidates",),
        ("buffer", "show"),
        ("buffer", "heartbeat"),
        ("session-end",),
        ("archive", "all"),
        ("search", "hot"),
        ("episodic", "append", "seen"),
    ],
)
@pytest.mark.parametrize("placement", ["before", "after"])
def test_root_and_now_before_or_after_the_command(
    root: Path, cli: CliRunner, tmp_path: Path, command: tuple[str, ...], placement: str
) -> None:
    opts = ("--root", str(root), "--now", "2026-12-01T07:05:00+01:00")
    args = (*opts, *command) if placement == "before" else (*command, *opts)
    result = cli(*args, "--json", cwd=tmp_path)
    assert result.exit_code == 0, result.stderr
    json.loads(result.stdout)
    if command[0] == "episodic":
        assert (root / "memory" / "episodic" / "2026-12-01.md").is_file()


@pytest.mark.parametrize("placement", ["before", "after"])
def test_init_root_before_or_after(tmp_path: Path, cli: CliRunner, placement: str) -> None:
    target = tmp_path / "fresh"
    opts = ("--root", str(target), "--now", NOW_TEXT)
    result = cli(*opts, "init") if placement == "before" else cli("init", *opts)
    assert result.exit_code == 0, result.stderr
    assert (target / "MEMORY.md").read_text().splitlines()[2:4] == [
        f"last_verified: {TODAY}",
        f"last_updated: {TODAY}",
    ]
    code, report = health(cli, target)
    assert code == 0 and report["ok"] is True


def test_init_uses_the_current_folder_without_root(tmp_path: Path, cli: CliRunner) -> None:
    result = cli("init", "--now", NOW_TEXT, cwd=tmp_path)
    assert result.exit_code == 0
    warm = {
        "semantic/infrastructure.md",
        "semantic/preferences.md",
        "semantic/projects.md",
        "semantic/decisions.md",
        "procedural/lessons-learned.md",
    }
    for rel in warm:
        assert (tmp_path / "memory" / rel).is_file(), rel
    for name in ("ERRORS.md", "LEARNINGS.md", "FEATURE_REQUESTS.md"):
        assert (tmp_path / ".learnings" / name).is_file()
    for folder in ("episodic", "archive", "scripts"):
        assert (tmp_path / "memory" / folder).is_dir()
    again = cli("init", "--now", NOW_TEXT, cwd=tmp_path)
    assert again.exit_code == 0 and "created" not in again.stdout.replace("nothing to create", "")


def test_init_never_overwrites(root: Path, cli: CliRunner) -> None:
    hot = root / "MEMORY.md"
    hot.write_text("# Agent Memory\n#tags: memory\nlast_verified: 2026-01-01\nlast_updated: x\n")
    before = hot.read_bytes()
    assert mt(cli, root, "init").exit_code == 0
    assert hot.read_bytes() == before


@pytest.mark.parametrize(
    ("moment", "heading"),
    [
        ("2026-11-30T23:30:00-05:00", "2026-11-30 23:30"),
        ("2026-12-01T04:30:00Z", "2026-12-01 04:30"),
        ("2026-11-30T08:15:00.250+05:30", "2026-11-30 08:15"),
    ],
)
def test_today_is_the_date_in_nows_own_offset(
    root: Path, cli: CliRunner, moment: str, heading: str
) -> None:
    result = mt(cli, root, "health-check", now=moment)
    assert result.stdout.splitlines()[0] == f"=== Memory Health Check ({heading}) ==="
    mt(cli, root, "episodic", "append", "x", now=moment)
    assert (root / "memory" / "episodic" / f"{heading[:10]}.md").is_file()


def test_now_from_the_environment(root: Path, cli: CliRunner, monkeypatch: Any) -> None:
    monkeypatch.setenv("MEMTIER_NOW", "2026-12-24T18:00:00+01:00")
    result = cli("--root", str(root), "health-check")
    assert result.stdout.startswith("=== Memory Health Check (2026-12-24 18:00) ===\n")


@pytest.mark.parametrize(
    ("toml", "key"),
    [
        ("colour = true\n", "colour"),
        ("hot_max_lines = 'sixty'\n", "hot_max_lines"),
        ("stale_hours = [2]\n", "stale_hours"),
        ("vocabulary = 'docker'\n", "vocabulary"),
        ("recurrence_threshold = 2.5\n", "recurrence_threshold"),
        ("episodic_ttl_days = true\n", "episodic_ttl_days"),
    ],
)
@pytest.mark.parametrize("command", [("health-check",), ("buffer", "task", "x"), ("stats",)])
def test_config_unknown_key_or_wrong_type_is_exit_2_naming_the_key(
    root: Path,
    cli: CliRunner,
    snapshot: Callable[[Path], dict[str, bytes]],
    toml: str,
    key: str,
    command: tuple[str, ...],
) -> None:
    (root / "memory" / "memtier.toml").write_text(toml)
    before = snapshot(root)
    result = mt(cli, root, *command)
    assert result.exit_code == 2
    assert result.stderr.startswith("memtier: error:") and key in result.stderr
    assert result.stderr.count("\n") == 1
    assert snapshot(root) == before


def test_config_values_drive_the_limits(root: Path, cli: CliRunner) -> None:
    (root / "memory" / "memtier.toml").write_text(
        "hot_max_lines = 5\nbuffer_max_lines = 4\nvocabulary = ['memory']\n"
    )
    code, report = health(cli, root)
    assert code == 1
    found = not_passing(report)
    assert ("hot.size", "fail", "MEMORY.md — 8 lines — exceeds 5 line limit") in found
    assert ("buffer.size", "fail", "5 lines — exceeds 4 line limit") in found
    assert ("tags", "fail", "MEMORY.md — invalid tag(s): workflow") in found


# -- §6 health check -------------------------------------------------------------------

HOT_OK = (
    "# Agent Memory\n#tags: memory, workflow\nlast_verified: 2026-11-30\nlast_updated: 2026-11-30\n"
)


def _write(rel: str, text: str) -> Callable[[Path], None]:
    def apply(root: Path) -> None:
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)

    return apply


def _remove(rel: str) -> Callable[[Path], None]:
    def apply(root: Path) -> None:
        path = root / rel
        if path.is_dir():
            for child in sorted(path.rglob("*"), reverse=True):
                child.rmdir() if child.is_dir() else child.unlink()
            path.rmdir()
        else:
            path.unlink()

    return apply


WARM = "memory/semantic/infrastructure.md"
BUF = "memory/working-buffer.md"
BUFFER_FAILS = [
    ("# Working buffer\ncreated: 2026-11-30T09:00:00+01:00\n", "line 1 must be '# Working Buffer'"),
    ("# Working Buffer\ncreated:2026-11-30T09:00:00+01:00\n", "line 2 must start with 'created: '"),
    (
        "# Working Buffer\nlast_active: 2026-11-30T09:00:00+01:00\n",
        "line 2 must start with 'created: '",
    ),
    ("# Working Buffer\ncreated: 2026-11-30 09:00\n", "created timestamp invalid"),
    ("# Working Buffer\ncreated: 2026-11-30T09:00:00+0100\n", "created timestamp invalid"),
    (
        "# Working Buffer\ncreated: 2026-11-30T09:00:00Z\nlast active: x\n\n",
        "line 3 must start with 'last_active: '",
    ),
    (
        "# Working Buffer\ncreated: 2026-11-30T09:00:00Z\nlast_active: yesterday\n\n",
        "last_active timestamp invalid",
    ),
    (
        "# Working Buffer\ncreated: 2026-11-30T09:00:00Z\nlast_active: 2026-11-30T09:00:00Z\n"
        "## Active Task:\n",
        "line 4 must be blank",
    ),
]

HEALTH_CASES: list[tuple[str, Callable[[Path], None], str, str, str]] = [
    ("hot missing", _remove("MEMORY.md"), "hot.header", "fail", "MEMORY.md missing"),
    *[
        (
            f"hot header {n}",
            _write("MEMORY.md", text),
            "hot.header",
            "fail",
            "MEMORY.md header invalid",
        )
        for n, text in enumerate(
            [
                HOT_OK.replace("# Agent Memory", "# Agent memory"),
                HOT_OK.replace("#tags: memory, workflow", "tags: memory"),
                HOT_OK.replace("last_verified: 2026-11-30", "last_verified: 2026-02-30"),
                HOT_OK.replace("last_verified: 2026-11-30", "verified: 2026-11-30"),
                HOT_OK.replace("last_updated: 2026-11-30", "last_updated: 30.11.2026"),
                HOT_OK.replace("last_updated: 2026-11-30", "last_updated: 2026-13-01"),
            ]
        )
    ],
    (
        "hot size",
        _write("MEMORY.md", HOT_OK + "x\n" * 57),
        "hot.size",
        "fail",
        "MEMORY.md — 61 lines — exceeds 60 line limit",
    ),
    (
        "hot tags outside",
        _write("MEMORY.md", HOT_OK.replace("memory, workflow", "memory|Docker  ssh,,bogus")),
        "tags",
        "fail",
        "MEMORY.md — invalid tag(s): Docker, bogus",
    ),
    (
        "warm tags missing",
        _write(WARM, "# Infra\ntags: docker\n> last_verified: 2026-11-30\n"),
        "tags",
        "fail",
        f"{WARM} — missing #tags:",
    ),
    (
        "warm tags empty",
        _write(WARM, "# Infra\n#tags:  , |\n> last_verified: 2026-11-30\n"),
        "tags",
        "warn",
        f"{WARM} — #tags: line has no tags",
    ),
    (
        "warm no last_verified",
        _write(WARM, "# Infra\n#tags: docker\nverified: 2026-11-30\n"),
        "warm.fresh",
        "fail",
        f"{WARM} — missing last_verified",
    ),
    (
        "warm stale at exactly 30 days",
        _write(WARM, "# Infra\n#tags: docker\n> last_verified: 2026-10-31\n"),
        "warm.fresh",
        "fail",
        f"{WARM} — last_verified stale or invalid",
    ),
    (
        "warm unparsable",
        _write(WARM, "# Infra\n#tags: docker\nlast_verified: soon\n"),
        "warm.fresh",
        "fail",
        f"{WARM} — last_verified stale or invalid",
    ),
    *[
        (
            f"buffer header {n}",
            _write(BUF, text),
            "buffer.header",
            "fail",
            f"working-buffer.md — {msg}",
        )
        for n, (text, msg) in enumerate(BUFFER_FAILS)
    ],
    (
        "buffer size",
        _write(BUF, buffer_text("2026-11-30T09:00:00+01:00") + "x\n" * 76),
        "buffer.size",
        "fail",
        "81 lines — exceeds 80 line limit",
    ),
    ("buffer missing", _remove(BUF), "buffer.missing", "warn", "working-buffer.md not found"),
    (
        "pending",
        _write(BUF + ".pending", "x\n"),
        "buffer.residue",
        "fail",
        "pending rotation file present",
    ),
    ("lock", _write(BUF + ".lock", ""), "buffer.residue", "fail", "rotation lock file present"),
    *[
        (
            f"closure {n}",
            _write(f"memory/episodic/{day}.md", text),
            "episodic.closure",
            "fail",
            f"{day}.md — closure block missing or malformed",
        )
        for n, (day, text) in enumerate(
            [
                ("2026-11-30", "# day\nno block\n"),
                ("2026-11-29", "# day\nUpdated: 2026-11-29\nDecisions: x\nSignal: y\nOpen: z\n\n"),
                ("2026-11-30", "Updated: 2026-11-30\nDecisions: x\nSignal: \nOpen: z\n"),
                ("2026-11-30", "Updated: 2026-11-30\nSignal: y\nDecisions: x\nOpen: z\n"),
                ("2026-11-29", "Updated: 2026-11-29\nDecisions: x\nSignal: y\nOpen:\n"),
            ]
        )
    ],
    (
        "scratch absent",
        _remove(".learnings"),
        "scratch.present",
        "warn",
        ".learnings directory not found",
    ),
    (
        "secret in scratch",
        _write(".learnings/ERRORS.md", "# Errors\n- 2026-11-30 db password=hunter2hunter2\n"),
        "secrets",
        "fail",
        ".learnings/ERRORS.md:2 — credential found (PASSWORD_ASSIGNMENT)",
    ),
    (
        "temp residue",
        _write("memory/semantic/.decisions.md.0001.memtier-tmp", "half"),
        "residue.tmp",
        "warn",
        "memory/semantic/.decisions.md.0001.memtier-tmp — leftover temporary file",
    ),
]


@pytest.mark.parametrize(
    ("mutate", "check_id", "status", "message"),
    [case[1:] for case in HEALTH_CASES],
    ids=[case[0] for case in HEALTH_CASES],
)
def test_each_check_id_status_and_exact_message(
    root: Path,
    cli: CliRunner,
    mutate: Callable[[Path], None],
    check_id: str,
    status: str,
    message: str,
) -> None:
    mutate(root)
    code, report = health(cli, root)
    assert (check_id, status, message) in not_passing(report), not_passing(report)
    failed = any(c["status"] == "fail" for c in report["checks"])
    assert report["ok"] is (not failed)
    assert code == (1 if failed else 0)
    assert failed is (status == "fail")
    human = mt(cli, root, "health-check")
    assert human.exit_code == code
    mark = "❌ " if status == "fail" else "⚠️  "
    assert mark + message in human.stdout.splitlines()
    assert human.stdout.splitlines()[-1] == (SOME_FAILED if failed else ALL_PASSED)


def test_json_shape_and_statuses(root: Path, cli: CliRunner) -> None:
    code, report = health(cli, root)
    assert code == 0
    assert set(report) == {"ok", "checks"}
    for check in report["checks"]:
        assert set(check) == {"id", "status", "path", "message"}
        assert check["status"] in {"pass", "fail", "warn"}


def test_an_old_unclosed_note_is_not_checked(root: Path, cli: CliRunner) -> None:
    (root / "memory" / "episodic" / "2026-11-28.md").write_text("open day\n")
    assert health(cli, root)[0] == 0


def test_plain_last_verified_anywhere_in_the_file(root: Path, cli: CliRunner) -> None:
    text = (
        "# Infra\n#tags: docker\n\nintro\n\nlast_verified: 2026-11-01\nlast_verified: 2020-01-01\n"
    )
    (root / WARM).write_text(text)
    assert health(cli, root)[0] == 0


def test_archive_is_not_scanned_for_secrets(root: Path, cli: CliRunner) -> None:
    old = root / "memory" / "archive" / "2026" / "01" / "2026-01-01.md"
    old.parent.mkdir(parents=True)
    old.write_text("password=hunter2hunter2\n")
    assert health(cli, root)[0] == 0


def test_verbose_shows_the_four_header_lines(root: Path, cli: CliRunner) -> None:
    (root / "MEMORY.md").write_text(HOT_OK.replace("# Agent Memory", "# Memory"))
    result = mt(cli, root, "health-check", "--verbose")
    lines = [line.strip() for line in result.stdout.splitlines()]
    at = lines.index("❌ MEMORY.md header invalid")
    assert lines[at + 1 : at + 5] == [
        "line1=# Memory",
        "line2=#tags: memory, workflow",
        "line3=last_verified: 2026-11-30",
        "line4=last_updated: 2026-11-30",
    ]
    plain = mt(cli, root, "health-check")
    assert "line1=# Memory" not in plain.stdout


def test_health_check_never_writes(
    root: Path, cli: CliRunner, snapshot: Callable[[Path], dict[str, bytes]]
) -> None:
    (root / BUF).write_text(buffer_text("2026-11-29T09:00:00+01:00", "old"))
    (root / (BUF + ".lock")).write_text("")
    before = snapshot(root)
    assert mt(cli, root, "health-check").exit_code == 1
    assert snapshot(root) == before


def test_health_usage_error_is_exit_2(root: Path, cli: CliRunner) -> None:
    result = mt(cli, root, "health-check", "--strict")
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.startswith("memtier: error:")


# -- §4 session-start ------------------------------------------------------------------


def session_start(cli: CliRunner, root: Path, now: str = NOW_TEXT) -> dict[str, Any]:
    result = mt(cli, root, "session-start", "--json", now=now)
    assert result.exit_code == 0, result.stderr
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def test_session_start_json_keys(root: Path, cli: CliRunner) -> None:
    data = session_start(cli, root)
    assert set(data) == {"actions", "hot", "buffer", "episodic", "learnings", "health"}
    assert set(data["health"]) == {"ok", "failed"}
    assert isinstance(data["actions"], list) and data["hot"].startswith("# Agent Memory\n")
    assert data["buffer"].startswith("# Working Buffer\n")


def test_step_1_recreates_memory_md_under_an_explicit_root(root: Path, cli: CliRunner) -> None:
    (root / "MEMORY.md").unlink()
    data = session_start(cli, root)
    assert (root / "MEMORY.md").read_text() == (
        "# Agent Memory\n#tags: memory\nlast_verified: 2026-11-30\nlast_updated: 2026-11-30\n"
    )
    assert data["health"]["ok"] is True


def test_step_2_creates_the_buffer(root: Path, cli: CliRunner) -> None:
    (root / BUF).unlink()
    session_start(cli, root)
    assert (root / BUF).read_text() == buffer_text(NOW_TEXT, created=NOW_TEXT)


def test_step_3_removes_the_lock(root: Path, cli: CliRunner) -> None:
    (root / (BUF + ".lock")).write_text("")
    session_start(cli, root)
    assert not (root / (BUF + ".lock")).exists()


@pytest.mark.parametrize(
    ("pending", "fragment"),
    [
        ("", "empty"),
        ("  \n\t\n", "whitespace"),
        (
            "# Working Buffer\nlast_active: 2026-11-30T09:00:00Z\n"
            "created: 2026-11-30T09:00:00Z\n\n",
            "",
        ),
        (
            "# Working Buffer\ncreated: 2026-11-30T09:00:00Z\nlast_active: 2026-11-30T9:00:00Z\n\n",
            "",
        ),
        (
            "# Working Buffer\ncreated: 2026-11-30T09:00:00Z\n"
            "last_active: 2026-11-30T09:00:00Z\nx\n",
            "",
        ),
        (
            "Working Buffer\ncreated: 2026-11-30T09:00:00Z\nlast_active: 2026-11-30T09:00:00Z\n\n",
            "",
        ),
    ],
)
def test_step_4_failed_recovery(root: Path, cli: CliRunner, pending: str, fragment: str) -> None:
    (root / (BUF + ".pending")).write_text(pending)
    result = mt(cli, root, "session-start")
    assert result.exit_code == 0
    assert "pending" in result.stderr  # the person is told
    errors = (root / ".learnings" / "ERRORS.md").read_text().splitlines()
    prefix = f"- {TODAY} working-buffer.md.pending failed recovery: "
    assert errors[-1].startswith(prefix) and len(errors[-1]) > len(prefix)
    assert fragment in errors[-1]
    assert not (root / (BUF + ".pending")).exists()
    assert (root / BUF).read_text() == buffer_text(NOW_TEXT, created=NOW_TEXT)


def test_step_4_pending_already_in_a_note_is_discarded(root: Path, cli: CliRunner) -> None:
    pending = buffer_text("2026-11-30T09:50:00+01:00", "ship it")
    note = root / "memory" / "episodic" / f"{TODAY}.md"
    # PROTOCOL §4 step 4 (v2): the finished rotation is known by its id, not its text.
    heading = f"### 09:50 working buffer ({rotation_id(pending)})\n"
    note.write_text(
        heading
        + "## Active Task:\n- ship it\nUpdated: 2026-11-30\nDecisions: a\nSignal: b\nOpen: c\n"
    )
    current = buffer_text("2026-11-30T09:55:00+01:00", "next thing")
    (root / BUF).write_text(current)
    (root / (BUF + ".pending")).write_text(pending)
    session_start(cli, root)
    assert not (root / (BUF + ".pending")).exists()
    assert (root / BUF).read_text() == current.replace("09:55:00+01:00\n", "10:00:00+01:00\n", 1)
    assert note.read_text().count("- ship it") == 1


def test_step_4_restores_a_live_pending(root: Path, cli: CliRunner) -> None:
    (root / (BUF + ".pending")).write_text(buffer_text("2026-11-30T09:30:00+01:00", "live"))
    session_start(cli, root)
    assert (root / BUF).read_text() == buffer_text(NOW_TEXT, "live")
    assert not (root / (BUF + ".pending")).exists()


@pytest.mark.parametrize("tasks", [(), ("late",)])
def test_step_4_stale_or_taskless_pending_goes_to_today(
    root: Path, cli: CliRunner, tasks: tuple[str, ...]
) -> None:
    last = "2026-11-30T07:00:00+01:00" if tasks else "2026-11-30T09:59:00+01:00"
    pending = buffer_text(last, *tasks) + "\nnotes kept\n"
    (root / (BUF + ".pending")).write_text(pending)
    session_start(cli, root)
    lines = (root / "memory" / "episodic" / f"{TODAY}.md").read_text().splitlines()
    # PROTOCOL §4 step 4 (v2): the marker carries the snapshot's id.
    assert f"[RECOVERED: STALE] {last} ({rotation_id(pending)})" in lines
    assert "notes kept" in lines
    assert [line.split(":")[0] for line in lines[-4:]] == ["Updated", "Decisions", "Signal", "Open"]
    assert (root / BUF).read_text() == buffer_text(NOW_TEXT, created=NOW_TEXT)


def test_step_4_oversized_pending_is_rotated(root: Path, cli: CliRunner) -> None:
    (root / (BUF + ".pending")).write_text(buffer_text("2026-11-30T09:30:00+01:00", *"abcd"))
    session_start(cli, root)
    note = (root / "memory" / "episodic" / f"{TODAY}.md").read_text()
    assert note.endswith("Open: a; b; c; d\n")
    # A mid-session rotation keeps the active tasks in the fresh buffer (§5 step 5 v3).
    assert (root / BUF).read_text() == buffer_text(NOW_TEXT, *"abcd", created=NOW_TEXT)


def test_step_5_stale_buffer_goes_to_today_with_the_closure_block_last(
    root: Path, cli: CliRunner
) -> None:
    note = root / "memory" / "episodic" / f"{TODAY}.md"
    note.write_text("# day\nUpdated: 2026-11-30\nDecisions: a\nSignal: b\nOpen: c\n")
    (root / BUF).write_text(buffer_text("2026-11-30T07:59:59+01:00", "abandoned"))
    rid = rotation_id((root / BUF).read_text())
    session_start(cli, root)
    # PROTOCOL §4 step 5 and §2 (v2): the marker names the snapshot; the block is merged.
    assert note.read_text() == (
        f"# day\n[RECOVERED: STALE] 2026-11-30T07:59:59+01:00 ({rid})\n"
        "## Active Task:\n- abandoned\n"
        "Updated: 2026-11-30\nDecisions: a; stale working buffer recovered\nSignal: b\n"
        "Open: c; abandoned\n"
    )


@pytest.mark.parametrize(
    ("last_active", "recovered"),
    [("2026-11-30T08:00:00+01:00", False), ("2026-11-30T07:59:59+01:00", True)],
)
def test_step_5_stale_means_more_than_stale_hours(
    root: Path, cli: CliRunner, last_active: str, recovered: bool
) -> None:
    (root / BUF).write_text(buffer_text(last_active, "task"))
    session_start(cli, root)
    assert (root / "memory" / "episodic" / f"{TODAY}.md").exists() is recovered
    assert ("- task" in (root / BUF).read_text()) is not recovered


def test_step_5_an_empty_stale_buffer_is_not_appended(root: Path, cli: CliRunner) -> None:
    (root / BUF).write_text(buffer_text("2026-11-29T07:00:00+01:00"))
    session_start(cli, root)
    assert not (root / "memory" / "episodic" / f"{TODAY}.md").exists()


def test_step_6_heartbeat(root: Path, cli: CliRunner) -> None:
    (root / BUF).write_text(buffer_text("2026-11-30T09:00:00+01:00", "keep"))
    session_start(cli, root, now="2026-11-30T10:30:00+01:00")
    assert (root / BUF).read_text() == buffer_text("2026-11-30T10:30:00+01:00", "keep")


def test_step_7_context_and_verdict(root: Path, cli: CliRunner) -> None:
    (root / "memory" / "episodic" / "2026-11-29.md").write_text("yesterday's note\n")
    (root / "memory" / "episodic" / "2026-11-28.md").write_text("older note\n")
    errors = root / ".learnings" / "ERRORS.md"
    errors.write_text("".join(f"- 2026-11-30 e{n}\n" for n in range(30)))
    data = session_start(cli, root)
    assert list(data["episodic"]) == ["2026-11-29"]
    assert data["learnings"]["ERRORS.md"].splitlines() == [
        f"- 2026-11-30 e{n}" for n in range(10, 30)
    ]
    assert data["health"] == {"ok": False, "failed": ["episodic.closure"]}
    text = mt(cli, root, "session-start")
    assert text.exit_code == 0  # a failing verdict is reported, not an error
    assert "yesterday's note" in text.stdout and "older note" not in text.stdout
    verdict = text.stdout.splitlines()[-1]
    assert "Some required checks failed" in verdict and "episodic.closure" in verdict


# -- §4 buffer, session-end, episodic -------------------------------------------------


def test_buffer_commands(root: Path, cli: CliRunner) -> None:
    assert mt(cli, root, "buffer", "task", "first").exit_code == 0
    mt(cli, root, "buffer", "task", "second")
    mt(cli, root, "buffer", "note", "a remark")
    assert mt(cli, root, "buffer", "done", "2").exit_code == 0
    mt(cli, root, "buffer", "task", "third", now="2026-11-30T10:20:00+01:00")
    assert mt(cli, root, "buffer", "done", "first", now="2026-11-30T10:21:00+01:00").exit_code == 0
    text = (root / BUF).read_text()
    head, _, rest = text.partition("## Active Task:\n")
    assert head == (
        "# Working Buffer\ncreated: 2026-11-30T10:00:00+01:00\n"
        "last_active: 2026-11-30T10:21:00+01:00\n\n"
    )
    active, _, body = rest.partition("\n## ")
    assert active.strip().splitlines() == ["- third"]
    assert {"- a remark", "- [done] second", "- [done] first"} <= set(body.splitlines())
    shown = mt(cli, root, "buffer", "show")
    assert shown.exit_code == 0 and shown.stdout.count("- third") == 1


def test_buffer_heartbeat_changes_only_last_active(root: Path, cli: CliRunner) -> None:
    before = buffer_text("2026-11-30T09:00:00+01:00", "x") + "\nbody\n"
    (root / BUF).write_text(before)
    assert mt(cli, root, "buffer", "heartbeat").exit_code == 0
    assert (root / BUF).read_text() == before.replace(
        "last_active: 2026-11-30T09:00", "last_active: 2026-11-30T10:00"
    )


@pytest.mark.parametrize("args", [("buffer", "done", "9"), ("buffer", "done", "nothing like it")])
def test_buffer_done_without_a_match_is_an_input_error(
    root: Path, cli: CliRunner, args: tuple[str, ...]
) -> None:
    mt(cli, root, "buffer", "task", "only")
    result = mt(cli, root, *args)
    assert result.exit_code == 2 and result.stderr.startswith("memtier: error:")


def test_oversized_buffer_write_succeeds_with_a_warning(root: Path, cli: CliRunner) -> None:
    for name in "abc":
        assert "warning" not in mt(cli, root, "buffer", "task", name).stderr
    result = mt(cli, root, "buffer", "task", "d")
    assert result.exit_code == 0
    assert "rotation is due at session end" in result.stderr
    assert "- d\n" in (root / BUF).read_text()


def test_session_end_without_tasks(
    root: Path, cli: CliRunner, snapshot: Callable[[Path], dict[str, bytes]]
) -> None:
    before = snapshot(root)
    result = mt(cli, root, "session-end")
    assert (result.exit_code, result.stdout) == (0, "nothing to rotate\n")
    assert snapshot(root) == before


def test_session_end_rotates_into_a_fresh_closure_block(root: Path, cli: CliRunner) -> None:
    mt(cli, root, "buffer", "task", "migrate qdrant")
    mt(cli, root, "buffer", "task", "check mirror")
    result = mt(cli, root, "session-end", now="2026-11-30T11:00:00+01:00")
    assert result.exit_code == 0
    note = (root / "memory" / "episodic" / f"{TODAY}.md").read_text()
    assert note.endswith(
        "- migrate qdrant\n- check mirror\nUpdated: 2026-11-30\n"
        "Decisions: working buffer rotated\nSignal: none\nOpen: migrate qdrant; check mirror\n"
    )
    fresh = "2026-11-30T11:00:00+01:00"
    assert (root / BUF).read_text() == buffer_text(fresh, created=fresh)
    assert not (root / (BUF + ".pending")).exists() and not (root / (BUF + ".lock")).exists()


def test_rotation_inserts_before_an_existing_closure_block(root: Path, cli: CliRunner) -> None:
    note = root / "memory" / "episodic" / f"{TODAY}.md"
    block = "Updated: 2026-11-30\nDecisions: kept\nSignal: kept\nOpen: kept\n"
    note.write_text("# day\nearlier\n" + block)
    mt(cli, root, "buffer", "task", "t1")
    rid = rotation_id((root / BUF).read_text())
    assert mt(cli, root, "rotate").exit_code == 0
    merged = "Updated: 2026-11-30\nDecisions: kept; working buffer rotated\nSignal: kept\n"
    merged += "Open: kept; t1\n"
    assert note.read_text() == (
        f"# day\nearlier\n### 10:00 working buffer ({rid})\n#### Active Task:\n- t1\n" + merged
    )
    # PROTOCOL §4 step 4 (v2): a later buffer with the same line is another rotation
    # (the task stayed in the buffer: a mid-session rotation keeps it, §5 step 5 v3).
    later = "2026-11-30T10:30:00+01:00"
    mt(cli, root, "buffer", "heartbeat", now=later)
    assert mt(cli, root, "rotate", now=later).exit_code == 0
    assert note.read_text().count("- t1\n") == 2
    assert note.read_text().endswith("Open: kept; t1\n")


@pytest.mark.parametrize("command", ["rotate", "session-end"])
def test_rotation_lock_refusal_exact_message(
    root: Path, cli: CliRunner, snapshot: Callable[[Path], dict[str, bytes]], command: str
) -> None:
    mt(cli, root, "buffer", "task", "t1")
    (root / (BUF + ".lock")).write_text("")
    before = snapshot(root)
    result = mt(cli, root, command)
    assert (result.exit_code, result.stderr, result.stdout) == (1, LOCK_REFUSAL, "")
    assert snapshot(root) == before


def test_rotation_lock_refusal_real_process(root: Path) -> None:
    (root / (BUF + ".lock")).write_text("")
    proc = run_memtier("--root", str(root), "--now", NOW_TEXT, "rotate")
    assert (proc.returncode, proc.stderr) == (1, LOCK_REFUSAL)


def test_episodic_commands(root: Path, cli: CliRunner) -> None:
    note = root / "memory" / "episodic" / "2026-11-20.md"
    assert mt(cli, root, "episodic", "append", "first", "--date", "2026-11-20").exit_code == 0
    close = ("episodic", "close", "--decisions", "D1", "--signal", "S1", "--open", "none")
    assert mt(cli, root, *close, "--date", "2026-11-20").exit_code == 0
    mt(cli, root, "episodic", "append", "second", "--date", "2026-11-20")
    again = ("episodic", "close", "--decisions", "D2", "--signal", "S2", "--open", "O2")
    mt(cli, root, *again, "--date", "2026-11-20")
    lines = note.read_text().splitlines()
    # PROTOCOL §4 v3: merged with the block already there.
    assert lines[-6:] == [
        "first",
        "second",
        "Updated: 2026-11-30",
        "Decisions: D1; D2",
        "Signal: S1; S2",
        "Open: O2",
    ]
    mt(cli, root, *again, "--date", "2026-11-20", "--replace")
    assert note.read_text().splitlines()[-3:] == ["Decisions: D2", "Signal: S2", "Open: O2"]
    shown = mt(cli, root, "episodic", "show", "--date", "2026-11-20")
    assert shown.exit_code == 0 and "Decisions: D2" in shown.stdout
    mt(cli, root, "episodic", "append", "today's line")
    assert (root / "memory" / "episodic" / f"{TODAY}.md").read_text() == (
        f"# {TODAY}\n\ntoday's line\n"
        "Updated: 2026-11-30\nDecisions: none\nSignal: none\nOpen: none\n"
    )
    assert "today's line" in mt(cli, root, "episodic", "show").stdout


@pytest.mark.parametrize(
    "args",
    [
        ("episodic", "close", "--decisions", "", "--signal", "s", "--open", "o"),
        ("episodic", "close", "--decisions", "d", "--signal", "  ", "--open", "o"),
        ("episodic", "append", "x", "--date", "2026-02-30"),
        ("episodic", "append", "x", "--date", "30/11/2026"),
    ],
)
def test_episodic_bad_input_is_exit_2_and_writes_nothing(
    root: Path, cli: CliRunner, snapshot: Callable[[Path], dict[str, bytes]], args: tuple[str, ...]
) -> None:
    before = snapshot(root)
    result = mt(cli, root, *args)
    assert result.exit_code == 2 and result.stderr.startswith("memtier: error:")
    assert snapshot(root) == before


# -- §7 archive ---------------------------------------------------------------------


def _age(path: Path, days: int) -> None:
    moment = 1_796_029_200 - days * 86_400  # 2026-11-30T09:00Z minus days
    os.utime(path, (moment, moment))


def test_archive_output_lines_and_destinations(root: Path, cli: CliRunner) -> None:
    episodic = root / "memory" / "episodic"
    for day in ("2026-10-30", "2026-10-31", "2026-09-15"):
        (episodic / f"{day}.md").write_text(f"{day}\n")
    taken = root / "memory" / "archive" / "2026" / "09" / "2026-09-15.md"
    taken.parent.mkdir(parents=True)
    taken.write_text("already here\n")
    result = mt(cli, root, "archive", "episodic")
    assert result.exit_code == 0
    assert result.stdout.splitlines() == [
        "  Archive: 2026-09-15.md → 2026/09/",
        "  Archive: 2026-10-30.md → 2026/10/",
        "✅ Archived: 2 files (> 30 days old)",
    ]
    assert taken.read_text() == "already here\n"
    assert (taken.parent / "2026-09-15.1.md").read_text() == "2026-09-15\n"
    assert (episodic / "2026-10-31.md").exists()  # exactly 30 days: not "more than"


def test_archive_days_option_and_non_date_names(root: Path, cli: CliRunner) -> None:
    episodic = root / "memory" / "episodic"
    (episodic / "2026-10-01.md").write_text("x\n")
    (episodic / "2026-10-20.md").write_text("y\n")
    (episodic / "notes.md").write_text("z\n")
    result = mt(cli, root, "archive", "episodic", "--days", "45")
    assert result.stdout.splitlines() == [
        "  Archive: 2026-10-01.md → 2026/10/",
        "✅ Archived: 1 files (> 45 days old)",
    ]
    assert "notes.md" in result.stderr and (episodic / "notes.md").exists()


def test_archive_learnings_rules(root: Path, cli: CliRunner) -> None:
    learn = root / ".learnings"
    (learn / "old.md").write_text("- 2026-08-01 old\n")
    (learn / "pinned.md").write_text("- 2026-08-01 keep #pinned\n")
    (learn / "recent.md").write_text("- 2026-11-20 recent\n")
    _age(learn / "old.md", 60)
    _age(learn / "pinned.md", 60)
    _age(learn / "recent.md", 5)
    _age(learn / "ERRORS.md", 90)
    result = mt(cli, root, "archive", "learnings")
    assert result.exit_code == 0
    assert result.stdout.splitlines()[-1] == "✅ Archived: 1 files (> 30 days old)"
    assert "  Archive: old.md → 2026/10/" in result.stdout.splitlines()
    moved = root / "memory" / "archive" / "learnings" / "2026" / "10" / "old.md"
    assert moved.read_text() == "- 2026-08-01 old\n"
    assert {p.name for p in learn.iterdir()} == {
        "ERRORS.md",
        "LEARNINGS.md",
        "FEATURE_REQUESTS.md",
        "pinned.md",
        "recent.md",
    }


def test_archive_dry_run_moves_nothing(
    root: Path, cli: CliRunner, snapshot: Callable[[Path], dict[str, bytes]]
) -> None:
    (root / "memory" / "episodic" / "2026-01-01.md").write_text("x\n")
    before = snapshot(root)
    result = mt(cli, root, "archive", "--dry-run")
    assert "  Archive: 2026-01-01.md → 2026/01/" in result.stdout.splitlines()
    assert snapshot(root) == before


@pytest.mark.parametrize("args", [("archive", "everything"), ("archive", "--days", "-3")])
def test_archive_usage_errors(root: Path, cli: CliRunner, args: tuple[str, ...]) -> None:
    result = mt(cli, root, *args)
    assert result.exit_code == 2 and result.stderr.startswith("memtier: error:")


# -- §8 weekly review -----------------------------------------------------------------


def test_review_session_gate(root: Path, cli: CliRunner) -> None:
    (root / (BUF + ".lock")).write_text("")
    mt(cli, root, "buffer", "task", "in hand")  # a fresh buffer is no session (§8 v3)
    result = mt(cli, root, "weekly-review", now="2026-11-30T11:59:00+01:00")
    assert result.exit_code == 0
    note = (root / "memory" / "episodic" / f"{TODAY}.md").read_text()
    assert "Active session detected; weekly review deferred\n" in note
    assert not (root / (BUF + ".lock")).exists()  # step 1 ran first


def test_review_size_gate(root: Path, cli: CliRunner) -> None:
    (root / BUF).write_text(buffer_text("2026-11-30T07:00:00+01:00", *"abcd"))
    result = mt(cli, root, "weekly-review")
    assert result.exit_code == 0
    note = (root / "memory" / "episodic" / f"{TODAY}.md").read_text()
    assert "Buffer oversized; deferring weekly review until session-end rotation\n" in note
    assert (root / BUF).read_text().count("\n- ") == 4


def test_review_health_failure_exits_1_and_changes_nothing(
    root: Path, cli: CliRunner, snapshot: Callable[[Path], dict[str, bytes]]
) -> None:
    (root / "MEMORY.md").write_text(HOT_OK.replace("# Agent Memory", "# Memory"))
    (root / "memory" / "episodic" / "2026-01-01.md").write_text("old\n")
    before = snapshot(root)
    result = mt(cli, root, "weekly-review", now="2026-11-30T13:00:00+01:00")
    assert result.exit_code == 1
    assert "MEMORY.md header invalid" in result.stdout
    assert snapshot(root) == before


def test_review_no_changes(
    root: Path, cli: CliRunner, snapshot: Callable[[Path], dict[str, bytes]]
) -> None:
    before = snapshot(root)
    result = mt(cli, root, "weekly-review", now="2026-11-30T13:00:00+01:00")
    assert (result.exit_code, result.stdout) == (0, "No meaningful changes\n")
    assert snapshot(root) == before


def test_review_archives_flags_once_and_closes_today(root: Path, cli: CliRunner) -> None:
    later = "2026-11-30T13:00:00+01:00"
    (root / "memory" / "episodic" / "2026-09-01.md").write_text("old\n")
    note = root / "memory" / "episodic" / f"{TODAY}.md"
    note.write_text("# day\nUpdated: 2026-11-30\nDecisions: a\nSignal: b\nOpen: c\n")
    errors = root / ".learnings" / "ERRORS.md"
    errors.write_text(
        "# Errors\n- 2026-11-01 Restart the  daemon\n- 2026-11-02 restart the daemon\n"
    )
    (root / ".learnings" / "LEARNINGS.md").write_text(
        "# L\n- 2026-11-03T08:00:00Z restart THE daemon\n"
    )
    result = mt(cli, root, "weekly-review", now=later)
    assert result.exit_code == 0, result.stderr
    assert (
        errors.read_text().splitlines()[1] == "- 2026-11-01 Restart the  daemon [PROMOTE-CANDIDATE]"
    )
    assert errors.read_text().count("[PROMOTE-CANDIDATE]") == 1
    lines = note.read_text().splitlines()
    assert lines[0:1] == ["# day"] and len(lines) == 5  # the final block replaced in place
    assert lines[1] == "Updated: 2026-11-30"
    assert lines[2].startswith("Decisions: ") and lines[3].startswith("Signal: ")
    assert lines[4].startswith("Open: ")
    assert (root / "memory" / "archive" / "2026" / "09" / "2026-09-01.md").exists()
    rerun = mt(cli, root, "weekly-review", now=later)
    assert rerun.stdout == "No meaningful changes\n"
    assert errors.read_text().count("[PROMOTE-CANDIDATE]") == 1


# -- §9 other commands ----------------------------------------------------------------


def test_learn_appends_and_refuses_a_lesson_from_another_file(root: Path, cli: CliRunner) -> None:
    assert mt(cli, root, "learn", "error", "apt mirror is slow").exit_code == 0
    assert mt(cli, root, "learn", "feature", "want a dashboard", "--pin").exit_code == 0
    errors = (root / ".learnings" / "ERRORS.md").read_text().splitlines()
    assert errors[-1] == f"- {TODAY} apt mirror is slow"
    features = (root / ".learnings" / "FEATURE_REQUESTS.md").read_text().splitlines()
    assert features[-1] == f"- {TODAY} want a dashboard #pinned"
    refused = mt(cli, root, "learn", "learning", "APT  mirror is slow")
    assert refused.exit_code == 1 and refused.stderr.startswith("memtier: error:")
    assert "apt" not in (root / ".learnings" / "LEARNINGS.md").read_text().lower()


def test_learn_redacts_and_says_which_rule(root: Path, cli: CliRunner) -> None:
    secret = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    result = mt(cli, root, "learn", "error", f"token {secret} leaked")
    assert result.exit_code == 0
    assert secret not in result.stdout + result.stderr
    text = (root / ".learnings" / "ERRORS.md").read_text()
    assert secret not in text and "[REDACTED:" in text
    assert "redacted 1 secret(s)" in result.stderr


def test_candidates_and_promote(root: Path, cli: CliRunner) -> None:
    errors = root / ".learnings" / "ERRORS.md"
    errors.write_text("# Errors\n- 2026-11-01 pin the apt mirror [PROMOTE-CANDIDATE]\n")
    listed = mt(cli, root, "candidates", "--json")
    assert json.loads(listed.stdout)["candidates"][0]["line"] == 2
    target = root / "memory" / "procedural" / "lessons-learned.md"
    before = target.read_bytes()
    dry = mt(
        cli,
        root,
        "promote",
        "pin the apt mirror",
        "--to",
        str(target),
        now="2026-12-03T09:00:00+01:00",
    )
    assert dry.exit_code == 0 and target.read_bytes() == before
    done = mt(
        cli,
        root,
        "promote",
        "pin the apt mirror",
        "--to",
        str(target),
        "--yes",
        now="2026-12-03T09:00:00+01:00",
    )
    assert done.exit_code == 0, done.stderr
    text = target.read_text()
    assert "pin the apt mirror" in text and "> last_verified: 2026-12-03" in text
    assert "[PROMOTE-CANDIDATE]" not in errors.read_text()
    assert "[PROMOTE-CANDIDATE]" not in text


def test_promote_outside_the_workspace_is_refused(
    root: Path, cli: CliRunner, tmp_path: Path, snapshot: Callable[[Path], dict[str, bytes]]
) -> None:
    (root / ".learnings" / "ERRORS.md").write_text("# E\n- 2026-11-01 lesson [PROMOTE-CANDIDATE]\n")
    outside = tmp_path / "elsewhere.md"
    before = snapshot(root)
    result = mt(cli, root, "promote", "lesson", "--to", str(outside), "--yes")
    assert result.exit_code == 2 and not outside.exists()
    assert snapshot(root) == before


@pytest.mark.parametrize("tier", ["WARM", "warm", "Warm"])
def test_search_tier_any_case(root: Path, cli: CliRunner, tier: str) -> None:
    (root / WARM).write_text(
        "# Infra\n#tags: docker\n> last_verified: 2026-11-30\nqdrant on host b\n"
    )
    (root / ".learnings" / "ERRORS.md").write_text("# E\n- 2026-11-30 qdrant crashed\n")
    result = mt(cli, root, "search", "qdrant", "--tier", tier, "--json")
    assert result.exit_code == 0
    hits = json.loads(result.stdout)["results"]
    assert hits and {h["tier"] for h in hits} == {"warm"}


def test_search_zero_hits_names_the_tiers(root: Path, cli: CliRunner) -> None:
    result = mt(cli, root, "search", "zyxwvut")
    assert result.exit_code == 0
    assert "HOT, WARM, INDEX, BUFFER, SCRATCH, COLD" in result.stdout


def test_search_archive_only_on_request(root: Path, cli: CliRunner) -> None:
    old = root / "memory" / "archive" / "2026" / "01" / "2026-01-01.md"
    old.parent.mkdir(parents=True)
    old.write_text("flamingo migration\n")
    assert json.loads(mt(cli, root, "search", "flamingo", "--json").stdout)["results"] == []
    for extra in (("--all",), ("--tier", "archive")):
        hits = json.loads(mt(cli, root, "search", "flamingo", *extra, "--json").stdout)["results"]
        assert [h["tier"] for h in hits] == ["archive"]


def test_tags_reports_tokens_outside_the_vocabulary(root: Path, cli: CliRunner) -> None:
    (root / WARM).write_text("# Infra\n#tags: docker|Bogus\n> last_verified: 2026-11-30\n")
    result = mt(cli, root, "tags", "--json")
    assert result.exit_code == 0
    entry = next(f for f in json.loads(result.stdout)["files"] if f["path"] == WARM)
    assert entry["tags"] == ["docker", "Bogus"] and entry["invalid"] == ["Bogus"]


def test_stats_counts_lines_like_wc(root: Path, cli: CliRunner) -> None:
    (root / "MEMORY.md").write_text(HOT_OK + "no final newline")
    data = json.loads(mt(cli, root, "stats", "--json").stdout)
    assert data["tiers"]["hot"]["lines"] == 4
    assert data["tiers"]["hot"]["files"] == 1


def test_cron_prints_the_weekly_line(root: Path, cli: CliRunner) -> None:
    result = mt(cli, root, "cron", "--json")
    assert result.exit_code == 0
    line = json.loads(result.stdout)["text"]
    assert line.startswith("0 9 * * 1 ") and "weekly-review" in line


def test_cron_install_is_idempotent(root: Path, tmp_path: Path) -> None:
    store = tmp_path / "crontab.txt"
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "crontab"
    fake.write_text(
        "#!/bin/sh\n"
        f'F="{store}"\n'
        'if [ "$1" = "-l" ]; then [ -f "$F" ] && exec cat "$F"; echo "no crontab" >&2; exit 1; fi\n'
        'if [ "$1" = "-" ]; then cat > "$F"; else cat "$1" > "$F"; fi\n'
    )
    fake.chmod(0o755)
    env = {"PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    for _ in range(2):
        proc = run_memtier("cron", "--install", "--root", str(root), env=env)
        assert proc.returncode == 0, proc.stderr
    lines = [line for line in store.read_text().splitlines() if "weekly-review" in line]
    assert len(lines) == 1 and lines[0].startswith("0 9 * * 1 ")


def test_install_scripts_writes_the_four_shims(root: Path, cli: CliRunner) -> None:
    from memtier import __version__

    assert mt(cli, root, "install-scripts").exit_code == 0
    names = {
        "health-check.sh",
        "atomic-write.sh",
        "archive-old-episodic.sh",
        "archive-old-learnings.sh",
    }
    scripts = root / "memory" / "scripts"
    assert names <= {p.name for p in scripts.iterdir()}
    for name in names:
        assert __version__ in (scripts / name).read_text()
        assert os.access(scripts / name, os.X_OK)
    assert health(cli, root)[0] == 0


def test_atomic_write_and_confinement(root: Path, cli: CliRunner, tmp_path: Path) -> None:
    target = root / "memory" / "new.md"
    result = mt(cli, root, "atomic-write", str(target), input="hello")
    assert result.exit_code == 0 and target.read_text() == "hello\n"
    outside = tmp_path / "outside.md"
    refused = mt(cli, root, "atomic-write", str(outside), input="x\n")
    assert refused.exit_code == 2 and not outside.exists()
    link = root / "memory" / "semantic" / "out"
    link.symlink_to(tmp_path)
    through = mt(cli, root, "atomic-write", str(link / "x.md"), input="x\n")
    assert through.exit_code == 2 and not (tmp_path / "x.md").exists()


# Every command answers --help: tests/test_cli.py::test_every_command_has_help, over the
# command tree read from the application itself, so no list here can fall behind.


REPORTS = [
    ("health-check",),
    ("session-start",),
    ("session-end",),
    ("rotate",),
    ("buffer", "show"),
    ("buffer", "task", "x"),
    ("episodic", "append", "x"),
    ("archive",),
    ("weekly-review",),
    ("search", "memory"),
    ("tags",),
    ("learn", "error", "something new"),
    ("candidates",),
    ("install-scripts",),
    ("stats",),
    ("init",),
]


@pytest.mark.parametrize("command", REPORTS, ids=" ".join)
def test_json_is_one_object_on_stdout(root: Path, cli: CliRunner, command: tuple[str, ...]) -> None:
    result = mt(cli, root, *command, "--json")
    assert result.exit_code == 0, result.stderr
    assert isinstance(json.loads(result.stdout), dict)


@pytest.mark.parametrize(
    "args",
    [("stats", "--bogus"), ("buffer", "task"), ("learn", "error"), ("search",), ("nosuchcommand",)],
)
def test_usage_errors_are_one_line_exit_2(
    root: Path, cli: CliRunner, args: tuple[str, ...]
) -> None:
    result = mt(cli, root, *args)
    assert result.exit_code == 2
    assert result.stderr.startswith("memtier: error:") and result.stderr.count("\n") == 1
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(
    ("rel", "data"),
    [
        ("MEMORY.md", b"\xff\xfe\x00bad"),
        (BUF, b"# Working Buffer\n\xc3\x28\n"),
    ],
)
@pytest.mark.parametrize("command", [("buffer", "task", "x"), ("stats",), ("session-start",)])
def test_bad_bytes_never_give_a_traceback(
    root: Path, cli: CliRunner, rel: str, data: bytes, command: tuple[str, ...]
) -> None:
    (root / rel).write_bytes(data)
    result = mt(cli, root, *command)
    assert "Traceback" not in result.stderr
    assert result.exit_code in (0, 1, 2)
    if result.exit_code == 2:
        assert result.stderr.startswith("memtier: error:")
    assert (root / rel).read_bytes() == data


@pytest.mark.parametrize("command", ["atomic-write", "promote"])
def test_relative_path_from_outside_the_workspace_means_from_its_root(
    root: Path, tmp_path: Path, command: str
) -> None:
    """§3 confinement judges where a path resolves; a relative path typed with --root from
    another folder names a file of that workspace, the same for every command."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    rel = "memory/procedural/new-topic.md"
    if command == "atomic-write":
        args: tuple[str, ...] = ("atomic-write", rel)
        stdin = "# New topic\n#tags: docker\n> last_verified: 2026-11-30\n"
    else:
        (root / ".learnings" / "ERRORS.md").write_text("# E\n- 2026-11-01 pin the mirror\n")
        args = ("promote", "pin the mirror", "--to", rel, "--yes")
        stdin = ""
    proc = run_memtier("--root", str(root), "--now", NOW_TEXT, *args, input=stdin, cwd=elsewhere)
    assert proc.returncode == 0, proc.stderr
    assert (root / rel).is_file() and not (elsewhere / rel).exists()
    inside = run_memtier(
        "--root", str(root), "atomic-write", "sub.md", input="x\n", cwd=root / "memory"
    )
    assert inside.returncode == 0 and (root / "memory" / "sub.md").read_text() == "x\n"
    escape = run_memtier("--root", str(root), "atomic-write", "../x.md", input="x\n", cwd=elsewhere)
    assert escape.returncode == 2 and not (tmp_path / "x.md").exists()


def test_archive_all_with_different_ttls_prints_one_summary_per_kind(
    root: Path, cli: CliRunner
) -> None:
    (root / "memory" / "memtier.toml").write_text(
        "episodic_ttl_days = 10\nlearnings_ttl_days = 20\n"
    )
    (root / "memory" / "episodic" / "2026-11-01.md").write_text("x\n")
    stray = root / ".learnings" / "stray.md"
    stray.write_text("- 2026-10-01 stray\n")
    _age(stray, 25)
    result = mt(cli, root, "archive")
    assert result.stdout.splitlines() == [
        "  Archive: 2026-11-01.md → 2026/11/",
        "✅ Archived: 1 files (> 10 days old)",
        "  Archive: stray.md → 2026/11/",
        "✅ Archived: 1 files (> 20 days old)",
    ]


@pytest.mark.parametrize(
    ("now", "deferred"),
    [("2026-11-30T09:59:59+01:00", True), ("2026-11-30T10:00:00+01:00", False)],
)
def test_review_session_gate_is_less_than_stale_hours(
    root: Path, cli: CliRunner, now: str, deferred: bool
) -> None:
    (root / BUF).write_text(buffer_text("2026-11-30T08:00:00+01:00", "work"))
    result = mt(cli, root, "weekly-review", now=now)
    assert result.exit_code == 0
    expected = "Active session detected; weekly review deferred\n"
    assert (result.stdout == expected) is deferred
    assert (root / "memory" / "episodic" / f"{TODAY}.md").exists() is deferred


def test_recurrence_counts_only_errors_and_learnings(root: Path, cli: CliRunner) -> None:
    features = root / ".learnings" / "FEATURE_REQUESTS.md"
    features.write_text("# F\n" + "".join(f"- 2026-11-2{n} want dark mode\n" for n in range(3)))
    before = features.read_bytes()
    result = mt(cli, root, "weekly-review", now="2026-11-30T13:00:00+01:00")
    assert result.stdout == "No meaningful changes\n"
    assert features.read_bytes() == before


@pytest.mark.parametrize(
    "command", [("buffer", "task", "x"), ("buffer", "heartbeat"), ("session-start",)]
)
def test_rewrites_keep_permission_bits(
    root: Path, cli: CliRunner, command: tuple[str, ...]
) -> None:
    (root / BUF).chmod(0o640)
    assert mt(cli, root, *command).exit_code == 0
    assert (root / BUF).stat().st_mode & 0o777 == 0o640


@pytest.mark.parametrize(
    ("note", "head", "old"),
    [
        (
            "# day\nUpdated: 2026-11-30\nDecisions: a\nSignal: b\nOpen: c\nlate line\n",
            "# day\nlate line\n",
            True,
        ),
        ("# day\nUpdated: 2026-11-30\nDecisions: a\nSignal: b\nOpen: c\n\n", "# day\n", True),
        ("# day\nno block, no final newline", "# day\nno block, no final newline\n", False),
    ],
    ids=["text-after-block", "blank-after-block", "no-block"],
)
def test_rotation_into_a_note_without_a_final_block(
    root: Path, cli: CliRunner, note: str, head: str, old: bool
) -> None:
    """§5 step 4, §4 v3: a block that text follows is put back last and merged (the
    text moves before it); a note without any block gets the body and a fresh one."""
    path = root / "memory" / "episodic" / f"{TODAY}.md"
    path.write_text(note)
    mt(cli, root, "buffer", "task", "t1")
    rid = rotation_id((root / BUF).read_text())
    assert mt(cli, root, "rotate").exit_code == 0
    block = (
        "Updated: 2026-11-30\nDecisions: a; working buffer rotated\nSignal: b\nOpen: c; t1\n"
        if old
        else "Updated: 2026-11-30\nDecisions: working buffer rotated\nSignal: none\nOpen: t1\n"
    )
    assert path.read_text() == (
        head + f"### 10:00 working buffer ({rid})\n#### Active Task:\n- t1\n" + block
    )
    assert health(cli, root)[0] == 0
