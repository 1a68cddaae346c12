"""The checks of PROTOCOL §6 as plain functions, with the fixed clock of conftest."""

from __future__ import annotations

import os
from collections.abc import Callable
from datetime import date, timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memtier.health.report import FAIL, PASS, WARN, HealthReport, run_health_check
from memtier.workspace import Workspace
from tests.conftest import NOW

TODAY = NOW.date()
YESTERDAY = TODAY - timedelta(days=1)
CLOSURE = "Updated: {day}\nDecisions: moved qdrant\nSignal: mirror is slow\nOpen: none\n"
BUFFER_HEAD = "# Working Buffer\ncreated: {created}\nlast_active: {active}\n\n## Active Task:\n"


def check(root: Path) -> HealthReport:
    return run_health_check(Workspace.open(root, NOW))


def failures(report: HealthReport) -> list[str]:
    return [c.message for c in report.failed]


def warnings(report: HealthReport) -> list[str]:
    return [c.message for c in report.warned]


def write(root: Path, rel: str, text: str | bytes) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def note(day: date, body: str = "- met about qdrant\n") -> str:
    return f"# {day}\n\n{body}\n" + CLOSURE.format(day=day)


def hot(tags: str = "memory, workflow", body_lines: int = 0, **lines: str) -> str:
    head = [
        lines.get("line1", "# Agent Memory"),
        lines.get("line2", f"#tags: {tags}"),
        lines.get("line3", f"last_verified: {TODAY}"),
        lines.get("line4", f"last_updated: {TODAY}"),
    ]
    return "\n".join(head + [f"- fact {n}" for n in range(body_lines)]) + "\n"


def warm(tags: str = "docker", verified: str = f"> last_verified: {TODAY}") -> str:
    return f"# Docker hosts\n#tags: {tags}\n{verified}\n\nhost a runs qdrant\n"


# -- a healthy workspace ---------------------------------------------------------------


def test_fresh_workspace_passes_every_required_check(root: Path) -> None:
    report = check(root)
    assert report.ok
    assert failures(report) == []
    assert warnings(report) == []
    ids = {c.id for c in report.checks}
    assert {"hot.header", "hot.size", "tags", "warm.fresh", "buffer.header", "buffer.size"} <= ids
    assert {"buffer.residue", "episodic.closure", "scratch.present", "secrets"} <= ids
    assert "residue.tmp" in ids
    assert report.checked_at == NOW


def test_health_check_never_writes(
    root: Path, snapshot: Callable[[Path], dict[str, bytes]]
) -> None:
    write(root, "MEMORY.md", "broken\n")
    write(root, "memory/working-buffer.md.pending", "x\n")
    write(root, f"memory/episodic/{TODAY}.md", "no closure\n")
    before = snapshot(root)
    mtimes = {p: p.stat().st_mtime_ns for p in root.rglob("*")}
    assert not check(root).ok
    assert snapshot(root) == before
    assert {p: p.stat().st_mtime_ns for p in root.rglob("*")} == mtimes


def test_json_has_exactly_the_protocol_keys(root: Path) -> None:
    write(root, "memory/working-buffer.md.lock", "")
    data = check(root).to_json()
    assert set(data) == {"ok", "checks"}
    assert data["ok"] is False
    for item in data["checks"]:
        assert set(item) == {"id", "status", "path", "message"}
        assert item["status"] in {PASS, FAIL, WARN}
    assert {"id": "buffer.residue", "status": "fail", "path": "memory/working-buffer.md.lock",
            "message": "rotation lock file present"} in data["checks"]  # fmt: skip


# -- HOT ---------------------------------------------------------------------------------


def test_memory_md_missing(root: Path) -> None:
    (root / "MEMORY.md").unlink()
    assert failures(check(root)) == ["MEMORY.md missing"]


@pytest.mark.parametrize(
    "lines",
    [
        {"line1": "# Agent memory"},
        {"line1": "# Agent Memory "},
        {"line2": "tags: memory"},
        {"line3": "last_verified: 2026-11-3"},
        {"line3": "last_verified 2026-11-30"},
        {"line3": "last_verified: 2026-02-30"},
        {"line4": "last_updated: yesterday"},
        {"line4": "last_updated: 2026-13-01"},
        {"line3": f"last_updated: {TODAY}", "line4": f"last_verified: {TODAY}"},
    ],
)
def test_memory_md_header_invalid(root: Path, lines: dict[str, str]) -> None:
    write(root, "MEMORY.md", hot(**lines))
    report = check(root)
    header = [c for c in report.failed if c.id == "hot.header"]
    assert [c.message for c in header] == ["MEMORY.md header invalid"]
    assert header[0].detail[0].startswith("line1=")
    assert header[0].detail[3].startswith("line4=")
    for key, value in lines.items():
        assert f"{key}={value}" in header[0].detail


def test_memory_md_header_detail_shows_the_four_lines(root: Path) -> None:
    write(root, "MEMORY.md", "# Agent Memory\n")
    (c,) = [c for c in check(root).failed if c.id == "hot.header"]
    assert c.detail == ("line1=# Agent Memory", "line2=", "line3=", "line4=")


def test_memory_md_60_lines_pass_61_fail(root: Path) -> None:
    write(root, "MEMORY.md", hot(body_lines=56))
    assert check(root).ok
    write(root, "MEMORY.md", hot(body_lines=57))
    assert failures(check(root)) == ["MEMORY.md — 61 lines — exceeds 60 line limit"]


def test_memory_md_limit_comes_from_the_config(root: Path) -> None:
    write(root, "memory/memtier.toml", "hot_max_lines = 10\n")
    write(root, "MEMORY.md", hot(body_lines=7))
    assert failures(check(root)) == ["MEMORY.md — 11 lines — exceeds 10 line limit"]


@pytest.mark.parametrize(
    "data, why",
    [
        (b"# Agent Memory\n#tags: memory\n\xff\xfe\n", "not UTF-8"),
        (b"# Agent Memory\x00\n", "binary"),
    ],
)
def test_memory_md_unreadable_is_a_failure_line(root: Path, data: bytes, why: str) -> None:
    write(root, "MEMORY.md", data)
    report = check(root)
    (c,) = [c for c in report.failed if c.id == "hot.header"]
    assert c.message.startswith("MEMORY.md — unreadable: ")
    assert why in c.message


def test_memory_md_directory_is_a_failure_line(root: Path) -> None:
    (root / "MEMORY.md").unlink()
    (root / "MEMORY.md").mkdir()
    assert failures(check(root)) == ["MEMORY.md — unreadable: is a directory, expected a file"]


def test_crlf_and_bom_memory_md_passes(root: Path) -> None:
    write(root, "MEMORY.md", ("\ufeff" + hot()).replace("\n", "\r\n").encode("utf-8"))
    assert check(root).ok


# -- tags --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "tags", ["memory,workflow", "memory workflow", "memory|workflow", " memory ,| workflow ,"]
)
def test_tags_split_on_commas_spaces_and_bars(root: Path, tags: str) -> None:
    write(root, "MEMORY.md", hot(tags=tags))
    report = check(root)
    assert report.ok
    (c,) = [c for c in report.checks if c.id == "tags" and c.path == "MEMORY.md"]
    assert c.message == "MEMORY.md — tags: memory, workflow"


def test_tag_in_another_case_is_invalid(root: Path) -> None:
    write(root, "memory/semantic/hosts.md", warm(tags="docker, Docker, SSH"))
    assert failures(check(root)) == ["memory/semantic/hosts.md — invalid tag(s): Docker, SSH"]


def test_unknown_tag_on_memory_md(root: Path) -> None:
    write(root, "MEMORY.md", hot(tags="memory, kubernetes|kubernetes"))
    assert failures(check(root)) == ["MEMORY.md — invalid tag(s): kubernetes"]


def test_missing_tags_line_on_a_warm_file(root: Path) -> None:
    write(root, "memory/procedural/deploy.md", f"# Deploy\n> last_verified: {TODAY}\n")
    report = check(root)
    assert failures(report) == ["memory/procedural/deploy.md — missing #tags:"]
    (c,) = report.failed
    assert c.detail == (f"line 2: > last_verified: {TODAY}",)


def test_empty_tag_list_passes_with_a_warning(root: Path) -> None:
    write(root, "memory/semantic/hosts.md", warm(tags=" , "))
    report = check(root)
    assert report.ok
    assert warnings(report) == ["memory/semantic/hosts.md — #tags: line has no tags"]


def test_vocabulary_comes_from_the_config(root: Path) -> None:
    write(root, "memory/memtier.toml", 'vocabulary = ["memory", "workflow", "kubernetes"]\n')
    write(root, "MEMORY.md", hot(tags="memory, kubernetes"))
    for path in (root / "memory" / "semantic").glob("*.md"):
        path.unlink()
    (root / "memory" / "procedural" / "lessons-learned.md").unlink()
    assert check(root).ok


# -- WARM freshness ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "line", [f"> last_verified: {TODAY}", f"last_verified: {TODAY}", f"last_verified:{TODAY}"]
)
def test_quoted_and_plain_last_verified_are_accepted(root: Path, line: str) -> None:
    write(root, "memory/semantic/hosts.md", warm(verified=line))
    assert check(root).ok


def test_last_verified_is_read_anywhere_in_the_file(root: Path) -> None:
    text = f"# Hosts\n#tags: docker\n\nsome text\n\n> last_verified: {TODAY}\n"
    write(root, "memory/semantic/hosts.md", text)
    assert check(root).ok


def test_29_days_old_passes_30_days_old_fails(root: Path) -> None:
    write(
        root, "memory/semantic/hosts.md", warm(verified=f"> last_verified: {TODAY - timedelta(29)}")
    )
    assert check(root).ok
    write(
        root, "memory/semantic/hosts.md", warm(verified=f"> last_verified: {TODAY - timedelta(30)}")
    )
    report = check(root)
    assert failures(report) == ["memory/semantic/hosts.md — last_verified stale or invalid"]
    assert "30 days old" in report.failed[0].detail[1]


@pytest.mark.parametrize("value", ["2026-11-31", "30/11/2026", "soon", ""])
def test_unparsable_last_verified_fails(root: Path, value: str) -> None:
    write(root, "memory/semantic/hosts.md", warm(verified=f"> last_verified: {value}"))
    assert failures(check(root)) == ["memory/semantic/hosts.md — last_verified stale or invalid"]


def test_missing_last_verified(root: Path) -> None:
    write(root, "memory/semantic/hosts.md", "# Hosts\n#tags: docker\n\nverified: yes\n")
    assert failures(check(root)) == ["memory/semantic/hosts.md — missing last_verified"]


def test_warm_file_that_is_a_directory_or_not_utf8(root: Path) -> None:
    (root / "memory/semantic/odd.md").mkdir()
    write(root, "memory/procedural/latin1.md", "# Caf\xe9\n#tags: docker\n".encode("latin-1"))
    messages = failures(check(root))
    assert "memory/semantic/odd.md — unreadable: is a directory, expected a file" in messages
    assert any(
        m.startswith("memory/procedural/latin1.md — unreadable: not UTF-8") for m in messages
    )
    assert len(messages) == 2


# -- BUFFER ------------------------------------------------------------------------------

GOOD_TS = "2026-11-30T09:00:00+01:00"


@pytest.mark.parametrize(
    "text, message",
    [
        ("# Working buffer\n", "line 1 must be '# Working Buffer'"),
        ("", "line 1 must be '# Working Buffer'"),
        (f"# Working Buffer\ncreated:{GOOD_TS}\n", "line 2 must start with 'created: '"),
        ("# Working Buffer\ncreated: 2026-11-30T09:00+01:00\n", "created timestamp invalid"),
        ("# Working Buffer\ncreated: 2026-11-30T09:00:00+0530\n", "created timestamp invalid"),
        ("# Working Buffer\ncreated: 2026-11-30 09:00:00+01:00\n", "created timestamp invalid"),
        (
            f"# Working Buffer\ncreated: {GOOD_TS}\nactive: x\n",
            "line 3 must start with 'last_active: '",
        ),
        (
            f"# Working Buffer\ncreated: {GOOD_TS}\nlast_active: now\n",
            "last_active timestamp invalid",
        ),
        (
            f"# Working Buffer\ncreated: {GOOD_TS}\nlast_active: {GOOD_TS}\nx\n",
            "line 4 must be blank",
        ),
    ],
)
def test_buffer_header_first_error(root: Path, text: str, message: str) -> None:
    write(root, "memory/working-buffer.md", text)
    report = check(root)
    assert failures(report) == [f"working-buffer.md — {message}"]
    assert report.failed[0].detail[0].startswith("line1=")


@pytest.mark.parametrize(
    "stamp", ["2026-11-30T09:00:00Z", "2026-11-30T09:00:00+05:30", "2026-11-30T09:00:00.123-03:00"]
)
def test_buffer_timestamps_with_z_and_offsets_are_valid(root: Path, stamp: str) -> None:
    write(root, "memory/working-buffer.md", BUFFER_HEAD.format(created=stamp, active=stamp))
    assert check(root).ok


def test_buffer_80_lines_pass_81_fail(root: Path) -> None:
    head = BUFFER_HEAD.format(created=GOOD_TS, active=GOOD_TS)  # 5 lines
    write(root, "memory/working-buffer.md", head + "".join(f"note {n}\n" for n in range(75)))
    assert check(root).ok
    write(root, "memory/working-buffer.md", head + "".join(f"note {n}\n" for n in range(76)))
    assert failures(check(root)) == ["81 lines — exceeds 80 line limit"]


def test_missing_buffer_is_a_warning(root: Path) -> None:
    (root / "memory/working-buffer.md").unlink()
    report = check(root)
    assert report.ok
    assert warnings(report) == ["working-buffer.md not found"]


def test_buffer_that_is_a_directory(root: Path) -> None:
    (root / "memory/working-buffer.md").unlink()
    (root / "memory/working-buffer.md").mkdir()
    msg = "working-buffer.md — unreadable: is a directory, expected a file"
    assert failures(check(root)) == [msg]


@pytest.mark.parametrize(
    "name, message",
    [
        ("working-buffer.md.pending", "pending rotation file present"),
        ("working-buffer.md.lock", "rotation lock file present"),
    ],
)
def test_rotation_residue_fails(root: Path, name: str, message: str) -> None:
    write(root, f"memory/{name}", "")
    report = check(root)
    assert failures(report) == [message]
    assert report.failed[0].path == f"memory/{name}"


def test_workspace_lock_file_is_not_residue(root: Path) -> None:
    write(root, "memory/.memtier.lock", "")
    report = check(root)
    assert report.ok
    assert warnings(report) == []


# -- COLD --------------------------------------------------------------------------------


def test_closed_notes_of_today_and_yesterday_pass(root: Path) -> None:
    write(root, f"memory/episodic/{TODAY}.md", note(TODAY))
    write(root, f"memory/episodic/{YESTERDAY}.md", note(YESTERDAY))
    report = check(root)
    assert report.ok
    closures = [c.message for c in report.checks if c.id == "episodic.closure"]
    assert closures == [
        f"{TODAY}.md — closure block valid",
        f"{YESTERDAY}.md — closure block valid",
    ]


@pytest.mark.parametrize(
    "text",
    [
        "# today\n\n- did things\n",
        note(TODAY) + "\n",
        note(TODAY).replace("Signal: mirror is slow", "Signal:"),
        note(TODAY).replace("Open: none", "Next: none"),
        "",
    ],
)
def test_bad_closure_block_today(root: Path, text: str) -> None:
    write(root, f"memory/episodic/{TODAY}.md", text)
    report = check(root)
    assert failures(report) == [f"{TODAY}.md — closure block missing or malformed"]
    assert report.failed[0].path == f"memory/episodic/{TODAY}.md"


def test_bad_closure_detail_names_the_lines(root: Path) -> None:
    write(root, f"memory/episodic/{TODAY}.md", note(TODAY) + "\n")
    (c,) = check(root).failed
    assert c.detail[0] == "blank line after the closure block"
    assert c.detail[-1] == "line 9: "
    assert "line 8: Open: none" in c.detail


def test_yesterdays_note_is_checked_older_ones_are_not(root: Path) -> None:
    older = TODAY - timedelta(days=2)
    write(root, f"memory/episodic/{older}.md", "# no closure at all\n")
    assert check(root).ok
    write(root, f"memory/episodic/{YESTERDAY}.md", "# no closure at all\n")
    assert failures(check(root)) == [f"{YESTERDAY}.md — closure block missing or malformed"]


def test_today_follows_the_offset_of_now(root: Path) -> None:
    # 23:30 at -05:00 is already the next day in UTC; "today" stays the local date.
    moment = NOW.fromisoformat("2026-11-30T23:30:00-05:00")
    write(root, "memory/episodic/2026-12-01.md", "# not closed\n")
    assert run_health_check(Workspace.open(root, moment)).ok


# -- SCRATCH, leftovers ------------------------------------------------------------------


def test_missing_learnings_is_a_warning(root: Path) -> None:
    for path in (root / ".learnings").iterdir():
        path.unlink()
    (root / ".learnings").rmdir()
    report = check(root)
    assert report.ok
    assert warnings(report) == [".learnings directory not found"]


def test_leftover_temporary_files_are_warnings_anywhere(root: Path) -> None:
    write(root, "memory/semantic/.hosts.md.1a2b3c4d.memtier-tmp", "half")
    write(root, "deep/er/.x.memtier-tmp", "half")
    write(root, "memory/semantic/hosts.memtier-tmp", "not ours: no leading dot")
    report = check(root)
    assert report.ok
    assert warnings(report) == [
        "deep/er/.x.memtier-tmp — leftover temporary file",
        "memory/semantic/.hosts.md.1a2b3c4d.memtier-tmp — leftover temporary file",
    ]


# -- the human view ----------------------------------------------------------------------


def test_text_lines_shape(root: Path) -> None:
    write(root, "MEMORY.md", hot(line1="# Memory"))
    (root / "memory/working-buffer.md").unlink()
    lines = list(check(root).text_lines())
    assert lines[0] == "=== Memory Health Check (2026-11-30 10:00) ==="
    assert "❌ MEMORY.md header invalid" in lines
    assert "⚠️  working-buffer.md not found" in lines
    assert "✅ .learnings directory present" in lines
    assert lines[-1] == "⚠️  Some required checks failed — review above"
    assert not any("line1=" in line for line in lines)
    verbose = list(check(root).text_lines(verbose=True))
    at = verbose.index("❌ MEMORY.md header invalid")
    assert verbose[at + 1].strip() == "line1=# Memory"
    assert verbose[at + 4].strip() == f"line4=last_updated: {TODAY}"


def test_text_lines_sections_and_verdict(root: Path) -> None:
    lines = list(check(root).text_lines())
    sections = [line for line in lines if line.startswith("--- ")]
    assert [s.split(":")[0] for s in sections] == [
        "--- HOT", "--- WARM", "--- BUFFER", "--- COLD", "--- SCRATCH", "--- Secrets",
        "--- Leftover files ---", "--- Sync",
    ]  # fmt: skip
    assert lines[-1] == "✅ All required checks passed"
    assert all("\033[" not in line for line in lines)


def test_colour_only_when_asked(root: Path) -> None:
    write(root, "memory/working-buffer.md.lock", "")
    lines = list(check(root).text_lines(colour=True))
    assert any(line.startswith("\033[31m❌ rotation lock file present") for line in lines)


# -- robustness --------------------------------------------------------------------------


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    hot_data=st.binary(max_size=200),
    buffer_data=st.binary(max_size=200),
    note_data=st.binary(max_size=200),
)
def test_no_file_content_crashes_the_check(
    root: Path, hot_data: bytes, buffer_data: bytes, note_data: bytes
) -> None:
    write(root, "MEMORY.md", hot_data)
    write(root, "memory/working-buffer.md", buffer_data)
    write(root, f"memory/episodic/{TODAY}.md", note_data)
    write(root, "memory/semantic/hosts.md", hot_data + buffer_data)
    report = check(root)
    assert all(c.status in {PASS, FAIL, WARN} for c in report.checks)
    assert report.ok == (not report.failed)


def test_unreadable_file_is_reported_not_raised(root: Path) -> None:
    if os.geteuid() == 0:
        pytest.skip("root reads every file")
    path = root / "memory/semantic/infrastructure.md"
    path.chmod(0)
    try:
        assert "memory/semantic/infrastructure.md — unreadable: permission denied" in failures(
            check(root)
        )
    finally:
        path.chmod(0o644)


# -- secrets -----------------------------------------------------------------------------


def github_token() -> str:
    # Built from pieces at run time: the repository holds no literal secret.
    return "gh" + "p_" + "x1Y2" * 9


def aws_key() -> str:
    return "AK" + "IA" + "Q7" * 8


def test_credential_in_an_old_note_fails_without_showing_it(root: Path) -> None:
    token = github_token()
    write(root, "memory/episodic/2026-01-05.md", f"# notes\n\nused {token} for the push\n")
    report = check(root)
    assert failures(report) == ["memory/episodic/2026-01-05.md:3 — credential found (GITHUB_TOKEN)"]
    (c,) = report.failed
    assert c.id == "secrets"
    assert c.path == "memory/episodic/2026-01-05.md"
    rendered = "\n".join(report.text_lines(verbose=True)) + repr(report.to_json())
    assert token not in rendered
    assert token[8:20] not in rendered


def test_every_scanned_tier_is_checked_the_archive_too(root: Path) -> None:
    # PROTOCOL §6 v4: the archive is read by health-check, so it is scanned too.
    key = aws_key()
    write(root, "MEMORY.md", hot() + f"- deploy key {key}\n")
    write(root, ".learnings/ERRORS.md", f"# Errors\n- 2026-11-30 leaked {key}\n")
    write(root, ".learnings/old-notes.md", f"{key}\n")
    write(root, "memory/working-buffer.md", BUFFER_HEAD.format(created=GOOD_TS, active=GOOD_TS)
          + f"- push with {github_token()}\n")  # fmt: skip
    write(root, "memory/archive/2025/01/2025-01-01.md", f"{key}\n")
    write(root, "memory/semantic/infrastructure.md", warm() + f"aws {key}\n")
    assert failures(check(root)) == [
        "MEMORY.md:5 — credential found (AWS_ACCESS_KEY_ID)",
        "memory/semantic/infrastructure.md:6 — credential found (AWS_ACCESS_KEY_ID)",
        "memory/working-buffer.md:6 — credential found (GITHUB_TOKEN)",
        ".learnings/ERRORS.md:2 — credential found (AWS_ACCESS_KEY_ID)",
        ".learnings/old-notes.md:1 — credential found (AWS_ACCESS_KEY_ID)",
        "memory/archive/2025/01/2025-01-01.md:1 — credential found (AWS_ACCESS_KEY_ID)",
    ]


def test_redacted_placeholders_are_not_credentials(root: Path) -> None:
    write(root, "memory/episodic/2026-01-05.md", "token [REDACTED:GITHUB_TOKEN] rotated\n")
    assert check(root).ok


def test_non_utf8_and_binary_notes_warn_and_are_still_scanned(root: Path) -> None:
    write(root, "memory/episodic/2026-01-05.md", "caf\xe9 on host b\n".encode("latin-1"))
    write(root, "memory/episodic/2026-01-06.md", f"caf\xe9 {aws_key()}\n".encode("latin-1"))
    write(root, "memory/episodic/2026-01-07.md", b"\x00\x01binary\n")
    report = check(root)
    assert failures(report) == [
        "memory/episodic/2026-01-06.md:1 — credential found (AWS_ACCESS_KEY_ID)"
    ]
    assert warnings(report) == [
        "memory/episodic/2026-01-05.md — not UTF-8 text (scanned for credentials anyway)",
        "memory/episodic/2026-01-06.md — not UTF-8 text (scanned for credentials anyway)",
        "memory/episodic/2026-01-07.md — binary file (scanned for credentials anyway)",
    ]


def _many_notes(root: Path, secret_days: dict[int, str]) -> None:
    for n in range(30):
        day = date(2025, 1, 1) + timedelta(days=n)
        extra = secret_days.get(n, "")
        write(root, f"memory/episodic/{day}.md", note(day, body=f"- rebuilt qdrant {extra}\n"))


def test_ripgrep_prefilter_finds_what_python_finds(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memtier import spawn
    from memtier.health import secrets_scan as health_secrets

    if health_secrets._ripgrep() is None:
        pytest.skip("no rg binary")
    _many_notes(root, {3: aws_key(), 17: github_token(), 29: "password=" + "hunter2" * 2})
    monkeypatch.setattr(health_secrets, "RG_MIN_NOTES", 10**9)
    python_only = failures(check(root))
    monkeypatch.setattr(health_secrets, "RG_MIN_NOTES", 1)
    started: list[list[str]] = []
    real_start = spawn.start

    def spy(command: list[str]) -> spawn.Started:
        started.append(command)
        return real_start(command)

    monkeypatch.setattr(spawn, "start", spy)
    with_rg = failures(check(root))
    assert started, "rg was not used"
    assert with_rg == python_only
    assert len(with_rg) == 3
    assert with_rg[0] == "memory/episodic/2025-01-04.md:3 — credential found (AWS_ACCESS_KEY_ID)"


def test_rg_error_or_absence_falls_back_to_python(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memtier.health import secrets_scan as health_secrets

    _many_notes(root, {5: aws_key()})
    monkeypatch.setattr(health_secrets, "RG_MIN_NOTES", 1)
    broken = tmp_path / "rg"
    broken.write_text("#!/bin/sh\nexit 2\n")
    broken.chmod(0o755)
    expected = ["memory/episodic/2025-01-06.md:3 — credential found (AWS_ACCESS_KEY_ID)"]
    monkeypatch.setattr(health_secrets, "_ripgrep", lambda: str(broken))
    assert failures(check(root)) == expected
    monkeypatch.setattr(health_secrets, "_ripgrep", lambda: None)
    assert failures(check(root)) == expected
    monkeypatch.setattr(health_secrets, "_ripgrep", lambda: str(tmp_path / "missing-rg"))
    assert failures(check(root)) == expected


def test_text_after_the_closure_block_is_named_with_its_line_and_fix(root: Path) -> None:
    """Issue 21: a person's "PS" after yesterday's block was reported as "expected a line
    starting with 'Updated:', found 'Decisions: … working b'": the wrong line, cut
    mid-word, no fix. PROTOCOL §4 v3 names the case and `episodic close` as the fix."""
    decisions = "Decisions: moved qdrant to host b; working buffer rotated"
    text = f"# {YESTERDAY}\n- work\nUpdated: {YESTERDAY}\n{decisions}\nSignal: s\nOpen: o\n"
    write(root, f"memory/episodic/{YESTERDAY}.md", text + "PS: grafana waits for the backup\n")
    (c,) = check(root).failed
    assert c.message == f"{YESTERDAY}.md — closure block missing or malformed"
    assert c.detail[0] == "line 7: 'PS: grafana waits for the backup': text after the closure block"
    assert c.fix_text() == (
        f"{YESTERDAY}.md — text after the closure block; fix: memtier episodic close "
        f"--date {YESTERDAY} --decisions none --signal none --open none "
        "(merges, and moves that text before the block)"
    )
    from memtier.commands.episodic_writes import episodic_close

    episodic_close(Workspace.open(root, NOW), "none", "none", "none", YESTERDAY)
    repaired = (root / f"memory/episodic/{YESTERDAY}.md").read_text()
    # §2 (v4): kept apart by blank lines; the rotation's placeholder gives way.
    assert repaired == (
        f"# {YESTERDAY}\n- work\n\nPS: grafana waits for the backup\n\nUpdated: {TODAY}\n"
        "Decisions: moved qdrant to host b\nSignal: s\nOpen: o\n"
    )
    assert check(root).ok


def test_a_malformed_block_names_its_line_whole_words_and_the_fix(root: Path) -> None:
    long = "Decisions: moved qdrant to host b and rebuilt the working buffer index"
    write(root, f"memory/episodic/{TODAY}.md", f"# t\n{long}\nSignal: s\nOpen: o\nmore\n")
    (c,) = check(root).failed
    assert (
        c.detail[0]
        == "line 2: expected 'Updated:', found 'Decisions: moved qdrant to host b and rebuilt…'"
    )
    assert c.fix_text().startswith(f"fix: memtier episodic close --date {TODAY} ")


def test_hot_size_failure_has_a_fix_line(root: Path) -> None:
    hot = root / "MEMORY.md"
    hot.write_text(hot.read_text() + "".join(f"- fact {n}\n" for n in range(70)))
    (c,) = check(root).failed
    assert c.id == "hot.size"
    assert c.fix_text().startswith("fix: move facts to their WARM file (memtier remember")
    assert c.under(verbose=False) == (c.fix_text(),)
