"""Hostile input: every case ends in one clear line, the right exit code, nothing changed.

PROTOCOL §3 "bad input never produces a traceback": a refused write is one
``memtier: error:`` line on stderr and exit 2 (input) or 1 (the operating system
refused the write), and no file of the workspace changes. Input memtier can
work with (a BOM, CRLF, a huge note) is kept as found.

The tests run as root in CI containers, and root ignores permission bits. A
read-only file or folder is therefore made with ``chattr +i`` (immutable, which
binds root too) when the filesystem allows it; the in-process variants make
the system call itself fail with the errno a read-only file, a read-only
folder, a full disk or a denied read would give.
"""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from memtier.formats.buffer import Buffer
from tests.conftest import NOW_TEXT, CliResult, CliRunner, run_memtier
from tests.reliability.reliability_support import (
    TODAY,
    TOKEN,
    closure,
    copies_of,
    populate,
    residue,
    token_counts,
)

Snapshot = Callable[[Path], dict[str, bytes]]
NOTE = f"memory/episodic/{TODAY}.md"
BUFFER = "memory/working-buffer.md"
WARM = "memory/semantic/projects.md"


@pytest.fixture
def ws_root(tmp_path: Path) -> Path:
    return populate(tmp_path / "ws")


def _args(root: Path, *args: str) -> tuple[str, ...]:
    return (*args, "--root", str(root), "--now", NOW_TEXT)


def one_error(result: CliResult | subprocess.CompletedProcess[str], code: int) -> str:
    """The single ``memtier: error:`` line of a refused command (and its exit code)."""
    stderr = result.stderr
    returncode = result.exit_code if isinstance(result, CliResult) else result.returncode
    assert returncode == code, stderr
    assert "Traceback" not in stderr
    errors = [line for line in stderr.splitlines() if line.startswith("memtier: error:")]
    assert len(errors) == 1, stderr
    return errors[0]


def no_traceback(result: CliResult, code: int = 0) -> None:
    assert result.exit_code == code, result.stderr
    assert "Traceback" not in result.stderr


# ---------------------------------------------------------------------------
# size


@pytest.mark.slow
def test_fifty_megabyte_note_is_appended_to_and_checked(cli: CliRunner, ws_root: Path) -> None:
    note = ws_root / NOTE
    line = "- routine log line with nothing to find in it, padded to a fair length\n"
    big = f"# {TODAY}\n" + line * (50 * 1024 * 1024 // len(line)) + closure(TODAY)
    note.write_text(big)
    appended = cli(*_args(ws_root, "episodic", "append", "needle N001 at the end"))
    no_traceback(appended)
    text = note.read_text()
    assert len(text) > 50 * 1024 * 1024
    # PROTOCOL §2 (v4): its own paragraph, a blank line before the block.
    assert text.endswith("\n\nneedle N001 at the end\n\n" + closure(TODAY))
    no_traceback(cli(*_args(ws_root, "health-check")))
    no_traceback(cli(*_args(ws_root, "session-start")))


@pytest.mark.slow  # a huge input
def test_one_megabyte_single_line_in_a_warm_file(cli: CliRunner, ws_root: Path) -> None:
    warm = ws_root / WARM
    warm.write_text(warm.read_text() + "- " + "x" * (1024 * 1024) + " zebra\n")
    no_traceback(cli(*_args(ws_root, "health-check")))
    found = cli(*_args(ws_root, "search", "zebra", "--json"))
    no_traceback(found)
    assert WARM in found.stdout


def test_hundred_kilobyte_argument_is_one_line(cli: CliRunner, ws_root: Path) -> None:
    text = "word " * 20_000 + "N001"
    result = cli(*_args(ws_root, "buffer", "note", text))
    no_traceback(result)
    buffer = (ws_root / BUFFER).read_text()
    assert buffer.count("N001") == 1
    assert next(line for line in buffer.splitlines() if "N001" in line).startswith("- word word")
    no_traceback(cli(*_args(ws_root, "health-check")))


# ---------------------------------------------------------------------------
# bytes memtier cannot read: refused, nothing changed


@pytest.mark.parametrize(
    ("data", "what"),
    [
        (b"# day\n- a \x00 b\n", "NUL bytes"),
        (b"# day\n- caf\xe9 latin-1\n", "not UTF-8"),
    ],
)
@pytest.mark.parametrize(
    "command",
    [
        ("episodic", "append", "N001 event"),
        ("episodic", "close", "--decisions", "d", "--signal", "s", "--open", "o"),
        ("rotate",),
    ],
    ids=["append", "close", "rotate"],
)
def test_unreadable_note_refuses_every_write(
    cli: CliRunner,
    ws_root: Path,
    snapshot: Snapshot,
    data: bytes,
    what: str,
    command: tuple[str, ...],
) -> None:
    (ws_root / NOTE).write_bytes(data)
    before = snapshot(ws_root)
    line = one_error(cli(*_args(ws_root, *command)), 2)
    assert NOTE in line
    assert snapshot(ws_root) == before


@pytest.mark.parametrize("data", [b"x\x00y\n", b"\xff\xfe broken\n"], ids=["nul", "latin"])
def test_unreadable_buffer_refuses_buffer_writes(
    cli: CliRunner, ws_root: Path, snapshot: Snapshot, data: bytes
) -> None:
    (ws_root / BUFFER).write_bytes(data)
    before = snapshot(ws_root)
    for command in (("buffer", "note", "N001"), ("buffer", "task", "N001"), ("session-end",)):
        one_error(cli(*_args(ws_root, *command)), 2)
    assert snapshot(ws_root) == before


def test_binary_warm_file_is_refused_by_promote_and_reported_by_health(
    cli: CliRunner, ws_root: Path, snapshot: Snapshot
) -> None:
    (ws_root / "memory/semantic/decisions.md").write_bytes(b"# Decisions\x00\n")
    before = snapshot(ws_root)
    refused = cli(
        *_args(
            ws_root,
            "promote",
            "always pin the K301 base image",
            "--to",
            "memory/semantic/decisions.md",
            "--yes",
        )
    )
    assert "decisions.md" in one_error(refused, 2)
    assert snapshot(ws_root) == before
    health = cli(*_args(ws_root, "health-check"))
    assert "Traceback" not in health.stderr
    assert health.exit_code in (0, 1)


def test_non_utf8_stdin_for_atomic_write(cli: CliRunner, ws_root: Path, snapshot: Snapshot) -> None:
    before = snapshot(ws_root)
    one_error(cli(*_args(ws_root, "atomic-write", WARM), input=b"caf\xe9\n"), 2)
    assert snapshot(ws_root) == before


# ---------------------------------------------------------------------------
# conventions kept as found


def test_bom_and_crlf_of_a_note_survive_an_append_and_a_close(
    cli: CliRunner, ws_root: Path
) -> None:
    note = ws_root / NOTE
    text = f"# {TODAY}\n- event K001\n" + closure(TODAY)
    note.write_bytes(b"\xef\xbb\xbf" + text.replace("\n", "\r\n").encode())
    no_traceback(cli(*_args(ws_root, "episodic", "append", "N001 first")))
    no_traceback(
        cli(
            *_args(ws_root, "episodic", "close", "--decisions", "d", "--signal", "s", "--open", "o")
        )
    )
    data = note.read_bytes()
    assert data.startswith(b"\xef\xbb\xbf# ")
    assert data.count(b"\n") == data.count(b"\r\n")
    assert b"N001 first\r\n" in data
    assert data.endswith(b"Open: o\r\n")
    no_traceback(cli(*_args(ws_root, "health-check")))


def test_crlf_buffer_keeps_crlf_through_every_buffer_command(cli: CliRunner, ws_root: Path) -> None:
    buffer = ws_root / BUFFER
    buffer.write_bytes(buffer.read_bytes().replace(b"\n", b"\r\n"))
    for command in (
        ("buffer", "task", "N001 task"),
        ("buffer", "note", "N002 note"),
        ("buffer", "done", "N001"),
        ("buffer", "heartbeat"),
        ("session-start",),
    ):
        no_traceback(cli(*_args(ws_root, *command)))
        data = buffer.read_bytes()
        assert data.count(b"\n") == data.count(b"\r\n"), command
    assert b"- [done] N001 task\r\n" in buffer.read_bytes()
    no_traceback(cli(*_args(ws_root, "health-check")))


def test_bom_buffer_is_kept_and_still_parsed(cli: CliRunner, ws_root: Path) -> None:
    buffer = ws_root / BUFFER
    buffer.write_bytes(b"\xef\xbb\xbf" + buffer.read_bytes())
    no_traceback(cli(*_args(ws_root, "buffer", "note", "N001 with a bom")))
    data = buffer.read_bytes()
    assert data.startswith(b"\xef\xbb\xbf# Working Buffer\n")
    assert b"- N001 with a bom\n" in data


# ---------------------------------------------------------------------------
# wrong kinds of file, links


def test_note_that_is_a_directory(cli: CliRunner, ws_root: Path, snapshot: Snapshot) -> None:
    (ws_root / NOTE).unlink()
    (ws_root / NOTE).mkdir()
    before = snapshot(ws_root)
    assert "is a directory" in one_error(cli(*_args(ws_root, "episodic", "append", "N001")), 2)
    assert "is a directory" in one_error(cli(*_args(ws_root, "rotate")), 2)
    assert snapshot(ws_root) == before
    for command in (("health-check",), ("search", "event"), ("stats",), ("archive", "--dry-run")):
        result = cli(*_args(ws_root, *command))
        assert "Traceback" not in result.stderr, command
        assert result.exit_code in (0, 1), (command, result.stderr)


def test_buffer_that_is_a_directory(cli: CliRunner, ws_root: Path, snapshot: Snapshot) -> None:
    (ws_root / BUFFER).unlink()
    (ws_root / BUFFER).mkdir()
    before = snapshot(ws_root)
    for command in (("buffer", "note", "N001"), ("rotate",), ("session-end",)):
        one_error(cli(*_args(ws_root, *command)), 2)
    assert snapshot(ws_root) == before
    health = cli(*_args(ws_root, "health-check"))
    assert health.exit_code == 1 and "Traceback" not in health.stderr


def test_symlink_loop(cli: CliRunner, ws_root: Path, snapshot: Snapshot) -> None:
    loop = ws_root / "memory/semantic/loop.md"
    loop.symlink_to(loop)
    before = snapshot(ws_root)
    line = one_error(cli(*_args(ws_root, "atomic-write", str(loop)), input="x\n"), 2)
    assert "symlink loop" in line
    promote = cli(
        *_args(
            ws_root,
            "promote",
            "always pin the K301 base image",
            "--to",
            "memory/semantic/loop.md",
            "--yes",
        )
    )
    one_error(promote, 2)
    assert snapshot(ws_root) == before
    for command in (("health-check",), ("search", "event"), ("tags",), ("stats",)):
        result = cli(*_args(ws_root, *command))
        assert "Traceback" not in result.stderr, command
        assert result.exit_code in (0, 1), (command, result.stderr)


def test_symlink_out_of_the_root(
    cli: CliRunner, ws_root: Path, tmp_path: Path, snapshot: Snapshot
) -> None:
    outside = tmp_path / "outside.md"
    outside.write_text("# Outside\n#tags: memory\n> last_verified: 2026-11-30\n- secret plans\n")
    (ws_root / "memory/semantic/escape.md").symlink_to(outside)
    before = snapshot(ws_root)
    line = one_error(
        cli(
            *_args(ws_root, "atomic-write", str(ws_root / "memory/semantic/escape.md")), input="x\n"
        ),
        2,
    )
    assert "outside the workspace" in line
    promote = cli(
        *_args(
            ws_root,
            "promote",
            "always pin the K301 base image",
            "--to",
            "memory/semantic/escape.md",
            "--yes",
        )
    )
    one_error(promote, 2)
    assert snapshot(ws_root) == before
    assert outside.read_text().endswith("- secret plans\n")


def test_episodic_folder_linked_out_of_the_root(
    cli: CliRunner, ws_root: Path, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere"
    shutil.move(ws_root / "memory/episodic", elsewhere)
    (ws_root / "memory/episodic").symlink_to(elsewhere)
    before = {p.name: p.read_bytes() for p in elsewhere.iterdir()}
    line = one_error(cli(*_args(ws_root, "episodic", "append", "N001")), 2)
    assert "outside the workspace" in line
    assert {p.name: p.read_bytes() for p in elsewhere.iterdir()} == before


# ---------------------------------------------------------------------------
# the operating system refuses the write


@contextmanager
def immutable(path: Path) -> Iterator[None]:
    """``chattr +i``: neither root nor anyone may replace it (or write inside a folder)."""
    if shutil.which("chattr") is None:
        pytest.skip("chattr is not available")
    made = subprocess.run(["chattr", "+i", str(path)], capture_output=True)
    if made.returncode != 0:
        pytest.skip(f"this filesystem has no immutable flag: {made.stderr.decode().strip()}")
    try:
        yield
    finally:
        subprocess.run(["chattr", "-i", str(path)], check=True)


def test_read_only_file_real_process(ws_root: Path, snapshot: Snapshot) -> None:
    before = snapshot(ws_root)
    with immutable(ws_root / BUFFER):
        result = run_memtier(*_args(ws_root, "buffer", "note", "N001 refused"))
    line = one_error(result, 1)
    assert "working-buffer.md" in line
    assert snapshot(ws_root) == before
    assert residue(ws_root) == []


def test_read_only_folder_real_process(ws_root: Path, snapshot: Snapshot) -> None:
    before = snapshot(ws_root)
    with immutable(ws_root / "memory/episodic"):
        result = run_memtier(*_args(ws_root, "episodic", "append", "N001 refused"))
    assert "2026-11-30.md" in one_error(result, 1)
    assert snapshot(ws_root) == before
    assert residue(ws_root) == []


def _fail_on(
    monkeypatch: pytest.MonkeyPatch, name: str, code: int, when: Callable[..., bool]
) -> None:
    real = getattr(os, name)

    def fake(*args: object, **kwargs: object) -> object:
        if when(*args):
            raise OSError(code, os.strerror(code))
        return real(*args, **kwargs)

    monkeypatch.setattr(os, name, fake)


WRITERS = [
    ("buffer", "note", "N001 text"),
    ("episodic", "append", "N001 text"),
    ("learn", "error", "N001 text"),
    ("rotate",),
    ("weekly-review",),
    # PROTOCOL §10: the fact writers (replace and retire write the log first).
    ("remember", "N001 text", "--kind", "decision"),
    ("replace", "K501", "N001 text", "--in", "memory/semantic/projects.md"),
    ("retire", "K501", "--in", "memory/semantic/projects.md", "--reason", "r"),
    ("verify", "memory/semantic/projects.md"),
    ("tags", "--add", "nginx"),
]


@pytest.mark.parametrize(
    "command", WRITERS, ids=lambda c: c[0] + ("-" + c[1] if len(c) > 1 else "")
)
@pytest.mark.parametrize(
    ("call", "code"),
    [
        ("write", errno.ENOSPC),  # full disk, while the temporary file fills
        ("replace", errno.EPERM),  # read-only target (immutable)
        ("open", errno.EACCES),  # read-only folder: the temporary file cannot be made
    ],
    ids=["enospc", "read-only-file", "read-only-folder"],
)
def test_refused_writes_change_nothing(
    cli: CliRunner,
    tmp_path: Path,
    snapshot: Snapshot,
    monkeypatch: pytest.MonkeyPatch,
    command: tuple[str, ...],
    call: str,
    code: int,
) -> None:
    ws_root = populate(
        tmp_path / "ws",
        last_active=(
            "2026-11-30T04:00:00+01:00"
            if command[0] == "weekly-review"
            else "2026-11-30T09:40:00+01:00"
        ),
    )
    before = snapshot(ws_root)
    if call == "open":
        # Only new files fail (temporary files and markers are made with O_EXCL): the
        # lock file, which already exists, still opens, as it does in a read-only folder.
        _fail_on(monkeypatch, "open", code, lambda path, flags, *a: bool(flags & os.O_EXCL))
    elif call == "write":
        _fail_on(monkeypatch, "write", code, lambda fd, data: len(data) > 0)
    else:
        _fail_on(monkeypatch, "replace", code, lambda *a: True)
    result = cli(*_args(ws_root, *command))
    monkeypatch.undo()
    line = one_error(result, 1)
    assert os.strerror(code) in line
    assert residue(ws_root) == []
    if command[0] != "weekly-review":
        assert snapshot(ws_root) == before
        return
    # The review is several steps: archive moves done before the refused write stay
    # done (each whole); session-start then leaves every line where it belongs.
    no_traceback(cli(*_args(ws_root, "session-start")))
    assert _tokens(ws_root) == _tokens_of(before)
    for rel, data in before.items():
        if rel.startswith("memory/episodic/2026-09"):
            assert len(copies_of(ws_root, data)) == 1, rel


def _tokens(root: Path) -> list[str]:
    return sorted(token_counts(root).elements())


def _tokens_of(files: dict[str, bytes]) -> list[str]:
    found: list[str] = []
    for rel, data in files.items():
        if rel.endswith(".md"):
            found += TOKEN.findall(data.decode("utf-8", "replace"))
    return sorted(found)


def test_permission_denied_on_read(
    cli: CliRunner, ws_root: Path, snapshot: Snapshot, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = os.open
    target = (ws_root / NOTE).resolve()

    def denied(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        if Path(path).resolve() == target:
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(path))
        return real(path, flags, *args, **kwargs)

    before = snapshot(ws_root)
    monkeypatch.setattr(os, "open", denied)
    result = cli(*_args(ws_root, "episodic", "append", "N001"))
    monkeypatch.undo()
    assert "permission denied" in one_error(result, 2)
    assert snapshot(ws_root) == before


# ---------------------------------------------------------------------------
# configuration and clock


@pytest.mark.parametrize(
    "toml",
    [
        b"\x00\x01\x02 binary",
        b"vocabulary = [",
        b"hot_max_lines = 'sixty'",
        b"unknown_key = 1",
        b"stale_hours = -5\n" * 2,
        b"[section]\nx = 1",
    ],
    ids=["binary", "truncated", "wrong-type", "unknown", "duplicate", "table"],
)
def test_garbage_configuration(
    cli: CliRunner, ws_root: Path, snapshot: Snapshot, toml: bytes
) -> None:
    (ws_root / "memory/memtier.toml").write_bytes(toml)
    before = snapshot(ws_root)
    for command in (
        ("session-start",),
        ("buffer", "note", "N001"),
        ("health-check",),
        ("weekly-review",),
    ):
        line = one_error(cli(*_args(ws_root, *command)), 2)
        assert "memtier.toml" in line, line
    assert snapshot(ws_root) == before


@pytest.mark.parametrize(
    "moment", ["yesterday", "2026-13-40T99:00:00", "1e309", "", "2026-11-30T10:00:00+25:00"]
)
def test_garbage_clock(
    cli: CliRunner, ws_root: Path, snapshot: Snapshot, monkeypatch: pytest.MonkeyPatch, moment: str
) -> None:
    before = snapshot(ws_root)
    monkeypatch.setenv("MEMTIER_NOW", moment)
    for command in (("buffer", "note", "N001"), ("session-start",), ("health-check",)):
        result = cli(*command, "--root", str(ws_root))
        if moment == "":
            # An empty variable is the same as none: the system clock is used.
            assert "Traceback" not in result.stderr
            continue
        assert "MEMTIER_NOW" in one_error(result, 2) or moment in result.stderr
    if moment:
        assert snapshot(ws_root) == before
        line = one_error(cli("buffer", "note", "N001", "--root", str(ws_root), "--now", moment), 2)
        assert "--now" in line or moment in line


# ---------------------------------------------------------------------------
# a buffer whose header is wrong in every field


BROKEN_HEADER = "# Work Buffer\nmade: 2026-11-30\nlast_active: when I felt like it\nnot blank\n"


def test_buffer_header_wrong_in_every_field(
    cli: CliRunner, ws_root: Path, snapshot: Snapshot
) -> None:
    (ws_root / BUFFER).write_text(BROKEN_HEADER + "## Active Task:\n- task K101\n")
    before = snapshot(ws_root)
    for command in (
        ("buffer", "note", "N001"),
        ("buffer", "task", "N001"),
        ("buffer", "done", "1"),
        ("buffer", "heartbeat"),
        ("rotate",),
        ("session-end",),
    ):
        line = one_error(cli(*_args(ws_root, *command)), 2)
        assert "working-buffer.md" in line and "line 1" in line, (command, line)
    assert snapshot(ws_root) == before
    health = cli(*_args(ws_root, "health-check"))
    assert health.exit_code == 1
    assert "working-buffer.md — line 1 must be '# Working Buffer'" in health.stdout
    review = cli(*_args(ws_root, "weekly-review"))
    assert review.exit_code == 1 and "Traceback" not in review.stderr
    assert snapshot(ws_root) == before
    # session-start keeps the person's buffer and says why (a documented warning).
    start = cli(*_args(ws_root, "session-start"))
    no_traceback(start)
    assert "memtier: warning:" in start.stderr
    assert (ws_root / BUFFER).read_bytes() == before[BUFFER]


# ---------------------------------------------------------------------------
# text arguments that imitate structure


def test_text_imitating_a_closure_block_stays_inside_the_note(
    cli: CliRunner, ws_root: Path
) -> None:
    fake = "Updated: 2031-01-01\nDecisions: forged\nSignal: forged\nOpen: forged"
    no_traceback(cli(*_args(ws_root, "episodic", "append", fake)))
    text = (ws_root / NOTE).read_text()
    assert text.endswith(closure(TODAY))
    assert "Updated: 2031-01-01 Decisions: forged Signal: forged Open: forged" in text
    no_traceback(cli(*_args(ws_root, "health-check")))


def test_text_imitating_a_buffer_header_stays_one_line(cli: CliRunner, ws_root: Path) -> None:
    fake = Buffer(
        "2020-01-01T00:00:00+00:00", "2020-01-01T00:00:00+00:00", "## Active Task:\n- x\n"
    ).render()
    for command in (("buffer", "note", fake), ("buffer", "task", fake)):
        no_traceback(cli(*_args(ws_root, *command)))
    text = (ws_root / BUFFER).read_text()
    assert text.count("# Working Buffer") == 3
    assert text.startswith("# Working Buffer\ncreated: ")
    assert text.count("\n## Active Task:\n") == 1
    no_traceback(cli(*_args(ws_root, "health-check")))


def test_newlines_in_every_text_argument_are_folded(cli: CliRunner, ws_root: Path) -> None:
    for command in (
        ("buffer", "task", "first\nsecond N001"),
        ("buffer", "note", "first\r\nsecond N002"),
        ("episodic", "append", "first\n\n## Heading\nsecond N003"),
        ("learn", "learning", "first\nsecond N004"),
        ("episodic", "close", "--decisions", "a\nb", "--signal", "c\nd", "--open", "e\nN005"),
    ):
        no_traceback(cli(*_args(ws_root, *command)))
    everything = "".join(p.read_text() for p in ws_root.rglob("*.md"))
    for n in range(1, 6):
        line = next(line for line in everything.splitlines() if f"N00{n}" in line)
        assert "first" in line or "e N005" in line, line
    assert "Open: e N005" in everything
    no_traceback(cli(*_args(ws_root, "health-check")))


# ---------------------------------------------------------------------------
# a folder where a file belongs, and the other way round


def _file_for_folder(root: Path, rel: str) -> None:
    shutil.rmtree(root / rel)
    (root / rel).write_text("not a folder\n")


def _folder_for_file(root: Path, rel: str) -> None:
    (root / rel).unlink(missing_ok=True)
    (root / rel).mkdir()


@pytest.mark.parametrize(
    ("swap", "command", "code"),
    [
        (lambda r: _file_for_folder(r, ".learnings"), ("learn", "error", "N001"), 2),
        (lambda r: _file_for_folder(r, "memory/episodic"), ("episodic", "append", "N001"), 2),
        (lambda r: _file_for_folder(r, "memory/episodic"), ("rotate",), 2),
        (lambda r: _folder_for_file(r, "memory/.memtier.lock"), ("buffer", "note", "N001"), 1),
        (lambda r: _folder_for_file(r, "memory/working-buffer.md.lock"), ("weekly-review",), 1),
        (lambda r: (r / BUFFER).write_text(""), ("buffer", "note", "N001"), 2),
    ],
    ids=[
        "learnings-is-a-file",
        "episodic-is-a-file-append",
        "episodic-is-a-file-rotate",
        "lock-file-is-a-folder",
        "marker-is-a-folder",
        "empty-buffer",
    ],
)
def test_wrong_kind_of_file_is_one_error_and_changes_nothing(
    cli: CliRunner,
    ws_root: Path,
    snapshot: Snapshot,
    swap: Callable[[Path], object],
    command: tuple[str, ...],
    code: int,
) -> None:
    swap(ws_root)
    before = snapshot(ws_root)
    one_error(cli(*_args(ws_root, *command)), code)
    assert snapshot(ws_root) == before
    for reader in (("health-check",), ("search", "event"), ("stats",), ("tags",)):
        result = cli(*_args(ws_root, *reader))
        assert "Traceback" not in result.stderr, reader
        assert result.exit_code in (0, 1), (reader, result.stderr)


def test_pending_snapshot_that_is_a_folder(
    cli: CliRunner, ws_root: Path, snapshot: Snapshot
) -> None:
    """session-start refuses (exit 1) before changing anything: one error, stable.

    (v1 logged a failed recovery and carried on; the folder itself cannot be
    recovered or discarded, so the agent must hear of it, PROTOCOL §4 step 4.)
    """
    _folder_for_file(ws_root, "memory/working-buffer.md.pending")
    before = snapshot(ws_root)
    line = one_error(cli(*_args(ws_root, "session-start")), 1)
    assert line == (
        "memtier: error: memory/working-buffer.md.pending is a folder, not a file: "
        "move it aside, then run memtier session-start again"
    )
    assert snapshot(ws_root) == before
    one_error(cli(*_args(ws_root, "session-start")), 1)
    assert snapshot(ws_root) == before


# ---------------------------------------------------------------------------
# a process that holds the workspace lock and never lets go


def test_a_stuck_lock_holder_is_one_error_and_changes_nothing(
    cli: CliRunner, ws_root: Path, snapshot: Snapshot, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sys

    from memtier import store
    from memtier.search import log as searchlog

    lock = ws_root / "memory/.memtier.lock"
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import fcntl, os, sys, time\n"
            f"fd = os.open({str(lock)!r}, os.O_RDWR | os.O_CREAT)\n"
            "fcntl.flock(fd, fcntl.LOCK_EX)\n"
            "print('locked', flush=True)\n"
            "sys.stdin.read()\n",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == b"locked\n"
        # Wait 0.05 s instead of the 60 s default before giving up.
        wrapped = store.workspace_lock.__wrapped__  # type: ignore[attr-defined]
        monkeypatch.setattr(wrapped, "__kwdefaults__", {"timeout": 0.05})
        monkeypatch.setattr(searchlog, "LOCK_TIMEOUT_SECONDS", 0.05)
        before = snapshot(ws_root)
        for command in (("buffer", "note", "N001"), ("rotate",), ("learn", "error", "N001")):
            line = one_error(cli(*_args(ws_root, *command)), 1)
            assert "locked by another memtier process" in line
        assert snapshot(ws_root) == before
        # A search still answers; only its log entry is skipped, with a warning.
        found = cli(*_args(ws_root, "search", "deploy"))
        assert found.exit_code == 0
        assert "memtier: warning: search not logged" in found.stderr
    finally:
        holder.communicate(b"", timeout=10)
