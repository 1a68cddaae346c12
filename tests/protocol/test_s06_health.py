"""PROTOCOL §6, the health check: usage, the human and JSON output, every check's id,
status and exact message, what is and is not checked, and that it never writes."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import CliRunner
from tests.protocol.support import BUF, HOT_OK, WARM, buffer_text, health, mt, not_passing

ALL_PASSED = "✅ All required checks passed"
SOME_FAILED = "⚠️  Some required checks failed — review above"


# -- exit codes and output -------------------------------------------------------------


def test_health_usage_error_is_exit_2(root: Path, cli: CliRunner) -> None:
    result = mt(cli, root, "health-check", "--strict")
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.startswith("memtier: error:")


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


def test_json_shape_and_statuses(root: Path, cli: CliRunner) -> None:
    code, report = health(cli, root)
    assert code == 0
    assert set(report) == {"ok", "checks"}
    for check in report["checks"]:
        assert set(check) == {"id", "status", "path", "message"}
        assert check["status"] in {"pass", "fail", "warn"}


# -- the checks ------------------------------------------------------------------------


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


def test_plain_last_verified_anywhere_in_the_file(root: Path, cli: CliRunner) -> None:
    text = (
        "# Infra\n#tags: docker\n\nintro\n\nlast_verified: 2026-11-01\nlast_verified: 2020-01-01\n"
    )
    (root / WARM).write_text(text)
    assert health(cli, root)[0] == 0


def test_an_old_unclosed_note_is_not_checked(root: Path, cli: CliRunner) -> None:
    (root / "memory" / "episodic" / "2026-11-28.md").write_text("open day\n")
    assert health(cli, root)[0] == 0


def test_archive_is_scanned_for_secrets(root: Path, cli: CliRunner) -> None:
    # v4: the secrets check scans every file health-check reads, the archive too.
    old = root / "memory" / "archive" / "2026" / "01" / "2026-01-01.md"
    old.parent.mkdir(parents=True)
    old.write_text("password=hunter2hunter2\n")
    code, report = health(cli, root)
    assert code == 1
    assert ("secrets", "fail", "memory/archive/2026/01/2026-01-01.md:1 — credential found "
            "(PASSWORD_ASSIGNMENT)") in not_passing(report)  # fmt: skip
    assert "hunter2hunter2" not in str(report)


def test_health_check_never_writes(
    root: Path, cli: CliRunner, snapshot: Callable[[Path], dict[str, bytes]]
) -> None:
    (root / BUF).write_text(buffer_text("2026-11-29T09:00:00+01:00", "old"))
    (root / (BUF + ".lock")).write_text("")
    before = snapshot(root)
    assert mt(cli, root, "health-check").exit_code == 1
    assert snapshot(root) == before
