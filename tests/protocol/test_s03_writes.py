"""PROTOCOL §3, writes: permission bits kept, no credential written or echoed,
confinement of writes and reads, text arguments, bad input without a traceback.

Each redaction case here was a deviation found by a conformance audit; the fix lives
in the module that owns the rule (named in each test's docstring)."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import NOW_TEXT, CliRunner, memtier_in_process, run_memtier
from tests.protocol.s13_support import note, run
from tests.protocol.support import BUF, LOG, PROJECTS, mt, remember

# -- atomic replace --------------------------------------------------------------------


@pytest.mark.parametrize(
    "command", [("buffer", "task", "x"), ("buffer", "heartbeat"), ("session-start",)]
)
def test_rewrites_keep_permission_bits(
    root: Path, cli: CliRunner, command: tuple[str, ...]
) -> None:
    (root / BUF).chmod(0o640)
    assert mt(cli, root, *command).exit_code == 0
    assert (root / BUF).stat().st_mode & 0o777 == 0o640


# -- no credentials --------------------------------------------------------------------

TOKEN = "gh" + "p_" + "a1B2" * 9
SPLIT = "password:\nhunter2hunter2xyz"  # a credential that only shows once folded
SECRET_PARTS = ("a1B2a1B2", "hunter2hunter2")


def leaks(*texts: str) -> bool:
    return any(part in text for text in texts for part in SECRET_PARTS)


def files_holding_a_secret(root: Path) -> list[str]:
    return [
        path.relative_to(root).as_posix()
        for path in sorted(root.rglob("*"))
        if path.is_file() and leaks(path.read_text(errors="replace"))
    ]


def test_a_section_heading_is_redacted_before_and_after_folding(cli: CliRunner, root: Path) -> None:
    """commands/facts.remember: --section is text written to disk (§3, §10)."""
    for section in (SPLIT, TOKEN):
        result = mt(
            cli, root, "remember", f"fact under {section[:4]}", "--kind", "project",
            "--section", section, "--json",
        )  # fmt: skip
        assert result.exit_code == 0, result.stderr
        assert not leaks(result.stdout, result.stderr)
        data = json.loads(result.stdout)
        assert "[REDACTED:" in data["section"] and "\n" not in data["section"]
        assert data["redacted"], data
        assert "memtier: redacted 1 secret(s):" in result.stderr
    text = (root / "memory/semantic/projects.md").read_text()
    assert "## password: [REDACTED:PASSWORD_ASSIGNMENT]\n" in text
    assert "## [REDACTED:GITHUB_TOKEN]\n" in text
    assert files_holding_a_secret(root) == []


def test_the_same_section_is_found_again_once_redacted(cli: CliRunner, root: Path) -> None:
    args = ("--kind", "project", "--section", TOKEN)
    assert mt(cli, root, "remember", "first fact here", *args).exit_code == 0
    assert mt(cli, root, "remember", "second fact there", *args).exit_code == 0
    text = (root / "memory/semantic/projects.md").read_text()
    assert text.count("## [REDACTED:GITHUB_TOKEN]") == 1
    assert "- first fact here\n- second fact there\n" in text


def test_a_capture_channel_is_folded_and_redacted(cli: CliRunner, root: Path) -> None:
    """commands/transfer/capture: the channel is echoed and labels the note (§3 v2, §12)."""
    message = "remember this: the decision is to move the gateway tonight"
    result = mt(cli, root, "capture", "--channel", SPLIT, "--json", message)
    assert result.exit_code == 0, result.stderr
    assert not leaks(result.stdout, result.stderr)
    data = json.loads(result.stdout)
    assert data["kept"] is True
    assert data["channel"] == "password: [REDACTED:PASSWORD_ASSIGNMENT]"
    assert data["redacted"] == {"PASSWORD_ASSIGNMENT": 1}
    assert files_holding_a_secret(root) == []


def test_the_search_log_never_keeps_a_split_credential(cli: CliRunner, root: Path) -> None:
    """search/log.record_search: the log is printed back (§3 v2 names it)."""
    assert mt(cli, root, "search", SPLIT).exit_code == 0
    log = (root / "memory/.searches.jsonl").read_text()
    assert not leaks(log)
    assert "[REDACTED:PASSWORD_ASSIGNMENT]" in log
    for args in (("recent-searches",), ("recent-searches", "--json")):
        shown = mt(cli, root, *args)
        assert shown.exit_code == 0, shown.stderr
        assert not leaks(shown.stdout, shown.stderr)


def test_a_tag_that_is_a_credential_is_refused(cli: CliRunner, root: Path) -> None:
    """commands/tags.add_tags: a tag goes to memtier.toml and into every report."""
    before = (root / "memory/memtier.toml").read_bytes()
    result = mt(cli, root, "tags", "--add", TOKEN)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr == (
        "memtier: error: --add: refusing a tag that holds a secret (GITHUB_TOKEN)\n"
    )
    assert (root / "memory/memtier.toml").read_bytes() == before


@pytest.fixture
def secret_in_a_file(root: Path) -> Callable[[str], Path]:
    """A credential someone typed into a WARM file by hand (health-check flags it)."""

    def put(rel: str) -> Path:
        path = root / rel
        with path.open("a") as handle:
            handle.write(f"- deploy token {TOKEN} for ci\n")
        return path

    return put


@pytest.mark.parametrize(
    ("command", "verb"),
    [
        (("retire", "deploy token", "--reason", "leaked"), "retired"),
        (("replace", "deploy token", "deploy token rotated, kept in the vault"), "replaced"),
    ],
)
def test_retiring_a_line_does_not_copy_its_credential_into_the_archive(
    cli: CliRunner,
    root: Path,
    secret_in_a_file: Callable[[str], Path],
    command: tuple[str, ...],
    verb: str,
) -> None:
    """commands/facts/files.log_retirement and facts/edits: the archive is not scanned by
    health-check, so a credential copied there would be hidden, not removed (§3, §10)."""
    rel = "memory/semantic/projects.md"
    secret_in_a_file(rel)
    human = mt(cli, root, *command, "--in", rel)
    assert human.exit_code == 0, human.stderr
    assert not leaks(human.stdout, human.stderr)
    assert "memtier: redacted 1 secret(s): GITHUB_TOKEN" in human.stderr
    log = (root / "memory/archive/retired.md").read_text().splitlines()
    assert log[-1].startswith(
        f"- 2026-11-30 {rel}:6 {verb}: deploy token [REDACTED:GITHUB_TOKEN] for ci — "
    )
    assert files_holding_a_secret(root) == []


def test_retire_json_echoes_the_old_line_redacted(
    cli: CliRunner, root: Path, secret_in_a_file: Callable[[str], Path]
) -> None:
    rel = "memory/semantic/infrastructure.md"
    secret_in_a_file(rel)
    result = mt(cli, root, "retire", "deploy", "--in", rel, "--reason", "gone", "--json")
    data = json.loads(result.stdout)
    assert data["old"] == "- deploy token [REDACTED:GITHUB_TOKEN] for ci"
    assert data["redacted"] == {"GITHUB_TOKEN": 1}


# -- confinement of writes and reads ---------------------------------------------------


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
    proc = memtier_in_process(
        "--root", str(root), "--now", NOW_TEXT, *args, input=stdin, cwd=elsewhere
    )
    assert proc.returncode == 0, proc.stderr
    assert (root / rel).is_file() and not (elsewhere / rel).exists()
    inside = memtier_in_process(
        "--root", str(root), "atomic-write", "sub.md", input="x\n", cwd=root / "memory"
    )
    assert inside.returncode == 0 and (root / "memory" / "sub.md").read_text() == "x\n"
    escape = memtier_in_process(
        "--root", str(root), "atomic-write", "../x.md", input="x\n", cwd=elsewhere
    )
    assert escape.returncode == 2 and not (tmp_path / "x.md").exists()


@pytest.mark.parametrize(
    "args",
    [
        ("get", "/etc/hostname"),
        ("get", "../outside.md"),
        ("verify", "../outside.md"),
    ],
)
def test_a_confined_read_is_refused_without_claiming_a_write(
    cli: CliRunner, root: Path, args: tuple[str, ...]
) -> None:
    """store.confine: reads are confined too (§3 v2); the message fits both."""
    result = mt(cli, root, *args)
    assert result.exit_code == 2
    assert result.stderr.startswith("memtier: error: ")
    assert "outside the workspace root" in result.stderr
    assert "refusing to write" not in result.stderr


def test_memory_md_pointing_outside_is_reported_and_never_printed(
    cli: CliRunner, root: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "elsewhere.md"
    outside.write_text((root / "MEMORY.md").read_text() + "- OUTSIDE-ONLY line\n")
    (root / "MEMORY.md").unlink()
    (root / "MEMORY.md").symlink_to(outside)
    before = outside.read_bytes()
    report = json.loads(mt(cli, root, "health-check", "--json").stdout)
    found = [(c["id"], c["status"], c["message"]) for c in report["checks"]]
    assert any(s == "fail" and m == "MEMORY.md — points outside the workspace" for _, s, m in found)
    assert report["ok"] is False
    for args in (("session-start",), ("search", "OUTSIDE-ONLY"), ("get", "MEMORY.md"), ("stats",)):
        result = mt(cli, root, *args)
        assert "OUTSIDE-ONLY line" not in result.stdout + result.stderr, args
    refused = mt(cli, root, "remember", "a hot fact", "--kind", "hot")
    assert refused.exit_code == 2
    assert outside.read_bytes() == before


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_a_fifo_where_a_memory_file_belongs_never_blocks(root: Path) -> None:
    projects = root / "memory/semantic/projects.md"
    projects.unlink()
    os.mkfifo(projects)
    env = {"MEMTIER_NOW": NOW_TEXT, "MEMTIER_ROOT": str(root)}
    health = run_memtier("health-check", env=env, timeout=20)
    assert health.returncode == 1
    assert "memory/semantic/projects.md — a FIFO (named pipe), not a regular file" in health.stdout
    for args in (("search", "anything"), ("get", "memory/semantic/projects.md"), ("export",)):
        proc = run_memtier(*args, env=env, timeout=20)
        assert "Traceback" not in proc.stderr, args
        assert proc.returncode in (0, 2), (args, proc.stderr)


def test_a_note_linked_out_of_the_workspace_is_never_read(
    cli: CliRunner, root: Path, tmp_path: Path
) -> None:
    """PROTOCOL §3 (v2): reads are confined; an outside file never becomes a topic date."""
    outside = tmp_path / "outside.md"
    outside.write_text("# 2026-04-03\n\n- qdrant secret plans\n")
    (root / "memory/episodic/2026-04-03.md").symlink_to(outside)
    note(root, "2026-04-04", "- qdrant on nas01")
    code, payload, _ = run(
        cli, root, "index", "add", "q", "--category", "projects", "--match", "qdrant"
    )
    assert code == 0 and payload["topics"][0]["dates"] == ["2026-04-04"]


# -- user text is never echoed unredacted ----------------------------------------------


def test_init_never_creates_a_folder_named_after_a_credential(
    cli: CliRunner, tmp_path: Path
) -> None:
    """commands/init.init_workspace: a folder name is named by §3 v2."""
    target = tmp_path / TOKEN
    result = cli("--now", NOW_TEXT, "init", "--root", str(target))
    assert result.exit_code == 2
    assert not leaks(result.stdout, result.stderr)
    assert result.stderr.startswith("memtier: error: ")
    assert result.stderr.count("\n") == 1
    assert not target.exists()


@pytest.mark.parametrize(
    "args",
    [
        ("buffer", "done", TOKEN),
        ("get", f"memory/{TOKEN}.md"),
        ("replace", TOKEN, "x", "--in", "memory/semantic/projects.md"),
        ("retire", "w0", "--in", "memory/semantic/projects.md", "--reason", SPLIT),
        ("remember", "x", "--kind", f"howto:{TOKEN}"),
        ("remember", "x", "--to", f"memory/semantic/{TOKEN}.md"),
        ("episodic", "append", "x", "--date", TOKEN),
        ("import", "brain", f"/nonexistent/{TOKEN}.jsonl"),
        ("export", "--tier", TOKEN),
        ("capture", "--channel", TOKEN, "short"),
        ("learn", "bogus", TOKEN),
        ("archive", "--days", TOKEN),
    ],
)
def test_user_text_in_a_refusal_or_usage_error_is_redacted(
    cli: CliRunner, root: Path, args: tuple[str, ...]
) -> None:
    result = mt(cli, root, *args)
    assert not leaks(result.stdout, result.stderr), (result.stdout, result.stderr)
    assert files_holding_a_secret(root) == []


# -- text arguments --------------------------------------------------------------------


@pytest.mark.parametrize("command", ["replace", "retire"])
def test_old_text_may_come_from_stdin_or_start_with_a_dash(
    cli: CliRunner, root: Path, command: str
) -> None:
    """OLD is a TEXT argument (§3 v2): '-' reads it, the pipe's line break aside."""
    assert remember(cli, root, "- ceph has three mons", "--kind", "project").exit_code == 0
    new = ("ceph has five mons now",) if command == "replace" else ()
    where = ("--in", PROJECTS, "--reason", "r")
    piped = mt(cli, root, command, "-", *new, *where, input="ceph has three\n")
    assert piped.exit_code == 0, piped.stderr
    assert remember(cli, root, "- redis is a cache", "--kind", "project").exit_code == 0
    other = ("redis is gone now",) if new else ()
    dashed = mt(cli, root, command, "- redis", *other, *where)
    assert dashed.exit_code == 0, dashed.stderr
    entries = (root / LOG).read_text()
    assert "ceph has three mons — r" in entries and "redis is a cache — r" in entries


# -- bad input -------------------------------------------------------------------------


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
