"""Hostile exports, reads and numbers (PROTOCOL §3, §10, §12).

A memory file, a FIFO, a device or a folder as ``export --output``; an export
killed after its temporary file was written; ``get`` on a file that is not
memory; 5,000-digit numbers wherever a number is typed or configured. Each
must end with exit 2 and no byte changed, never exit 3, never a hang.

Commands run in-process through the script's entry point; what could hang (a FIFO),
is killed, or reads its environment at start runs as a real process.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import NOW_TEXT, memtier_in_process, run_memtier

Snapshot = Callable[[Path], dict[str, bytes]]
HUGE = "9" * 5000


def mt(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    # From inside the workspace: a relative path never lands in the checkout.
    return memtier_in_process("--root", str(root), "--now", NOW_TEXT, *args, cwd=root)


def _everything(root: Path) -> dict[str, tuple[int, bytes]]:
    """Every entry under *root* with its kind: a FIFO replaced by a file shows."""
    found: dict[str, tuple[int, bytes]] = {}
    for path in sorted(root.rglob("*")):
        info = path.lstat()
        data = path.read_bytes() if stat.S_ISREG(info.st_mode) else b""
        if path.name != ".memtier.lock":
            found[path.relative_to(root).as_posix()] = (stat.S_IFMT(info.st_mode), data)
    return found


# -- export --output (PROTOCOL §12 v3) ---------------------------------------------


@pytest.mark.parametrize(
    "target",
    [
        "MEMORY.md",
        "memory/semantic/infrastructure.md",
        "memory/working-buffer.md",
        "memory/episodic/2026-11-30.md",
        ".learnings/ERRORS.md",
        "memory/memtier.toml",
        "memory/archive/retired.md",
        "memory/INDEX.md",
        "memory/consolidated/blog.md",
        "memory/new-file.json",
        "memory",
    ],
)
def test_export_never_replaces_a_memory_file(root: Path, target: str) -> None:
    (root / "memory/consolidated").mkdir(exist_ok=True)
    (root / "memory/INDEX.md").write_text("# Memory Index\n")
    before = _everything(root)
    done = mt(root, "export", "--output", target)
    assert done.returncode == 2, done.stderr
    assert "memory" in done.stderr and "Traceback" not in done.stderr
    assert _everything(root) == before


def test_export_through_a_link_into_the_memory_is_refused(root: Path, tmp_path: Path) -> None:
    (root / "backup.json").symlink_to(root / "MEMORY.md")
    before = _everything(root)
    done = mt(root, "export", "--output", "backup.json")
    assert done.returncode == 2
    assert _everything(root) == before


def test_export_onto_a_fifo_is_refused_without_blocking(root: Path) -> None:
    fifo = root / "backup.json"
    os.mkfifo(fifo)
    before = _everything(root)
    # A real process with a time limit: an open() that blocked would hang this test.
    done = run_memtier(
        "--root", str(root), "--now", NOW_TEXT, "export", "--output", str(fifo), cwd=root,
        timeout=30,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert "FIFO" in done.stderr
    assert stat.S_ISFIFO(fifo.lstat().st_mode)
    assert _everything(root) == before


def test_export_onto_a_folder_is_refused(root: Path) -> None:
    (root / "exports").mkdir()
    done = mt(root, "export", "--output", "exports")
    assert done.returncode == 2 and "directory" in done.stderr
    assert list((root / "exports").iterdir()) == []


def test_export_onto_a_device_is_refused(root: Path) -> None:
    device = root / "full"
    try:
        os.mknod(device, 0o666 | stat.S_IFCHR, os.makedev(1, 7))  # what /dev/full is
    except (PermissionError, OSError):
        device.symlink_to("/dev/full")  # a link out: refused as well
    done = mt(root, "export", "--output", "full")
    assert done.returncode == 2, done.stderr
    assert not device.resolve().is_file()
    assert stat.S_ISCHR(os.stat("/dev/full").st_mode)
    direct = mt(root, "export", "--output", "/dev/full")
    assert direct.returncode == 2
    assert stat.S_ISCHR(os.stat("/dev/full").st_mode)


def test_export_outside_the_workspace_is_a_backup_written_whole(root: Path, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere.json"
    done = mt(root, "export", "--output", str(outside))
    assert done.returncode == 0, done.stderr
    document = json.loads(outside.read_text())
    assert "MEMORY.md" in [f["path"] for f in document["files"]]
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".memtier-tmp")] == []


def test_export_to_a_file_beside_the_memory_is_written(root: Path) -> None:
    done = mt(root, "export", "--output", "backup.json")
    assert done.returncode == 0, done.stderr
    document = json.loads((root / "backup.json").read_text())
    assert "MEMORY.md" in [f["path"] for f in document["files"]]


def test_a_killed_export_leaves_no_temporary_file_after_session_start(root: Path) -> None:
    killed = run_memtier(
        "--root", str(root), "--now", NOW_TEXT, "export", "--output", "backup.json",
        env={"MEMTIER_FAULT": "store.temp-written"}, cwd=root,
    )  # fmt: skip
    assert killed.returncode == -9
    assert not (root / "backup.json").exists()
    left = [p.name for p in root.iterdir() if p.name.endswith(".memtier-tmp")]
    assert len(left) == 1 and left[0].startswith(".backup.json.")
    health = mt(root, "health-check", "--json")
    assert "leftover" in health.stdout.lower() or "temporary" in health.stdout.lower()
    assert mt(root, "session-start").returncode == 0
    assert [p for p in root.rglob("*") if p.name.endswith(".memtier-tmp")] == []


# -- get reads memory files only (PROTOCOL §10, §3) -------------------------------


NOT_MEMORY = [".netrc", ".docker/config.json", "memory/scripts/x.sh", "notes.md"]


@pytest.mark.parametrize("name", NOT_MEMORY)
def test_get_reads_memory_files_only(root: Path, name: str) -> None:
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("machine example.org login me password hunter2\n")
    done = mt(root, "get", name)
    assert done.returncode == 2, done.stdout
    assert "not a memory file" in done.stderr and "hunter2" not in done.stdout


def test_get_still_reads_every_kind_of_memory_file(root: Path) -> None:
    (root / "memory/archive").mkdir(exist_ok=True)
    (root / "memory/archive/retired.md").write_text("# Retired\n- old fact\n")
    (root / "memory/INDEX.md").write_text("# Memory Index\n")
    kinds = ("MEMORY.md", "memory/memtier.toml", "memory/archive/retired.md", "memory/INDEX.md")
    for name in kinds:
        done = mt(root, "get", name)
        assert done.returncode == 0, (name, done.stderr)


# -- 5,000-digit numbers (PROTOCOL §3 bad input) -----------------------------------


def test_huge_task_number_is_exit_2(root: Path, snapshot: Snapshot) -> None:
    assert mt(root, "buffer", "task", "rack the nas").returncode == 0
    before = snapshot(root)
    done = mt(root, "buffer", "done", HUGE)
    assert done.returncode == 2 and "too large" in done.stderr, done.stderr
    assert HUGE not in done.stderr
    assert snapshot(root) == before


def test_huge_line_number_is_exit_2(root: Path) -> None:
    done = mt(root, "get", f"MEMORY.md:{HUGE}")
    assert done.returncode == 2 and "too large" in done.stderr, done.stderr
    done = mt(root, "get", f"MEMORY.md:1-{HUGE}")
    assert done.returncode == 2 and "too large" in done.stderr, done.stderr


def test_huge_candidate_number_is_exit_2(root: Path, snapshot: Snapshot) -> None:
    before = snapshot(root)
    done = mt(root, "promote", HUGE, "--to", "memory/procedural/lessons-learned.md", "--yes")
    assert done.returncode == 2 and "too large" in done.stderr, done.stderr
    assert snapshot(root) == before


def test_huge_number_in_the_configuration_is_exit_2_for_every_command(root: Path) -> None:
    (root / "memory/memtier.toml").write_text(f"hot_max_lines = {HUGE}\n")
    for args in (("stats",), ("health-check",), ("search", "nas")):
        done = mt(root, *args)
        assert done.returncode == 2, (args, done.stderr)
        assert "too many digits" in done.stderr


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_memory_get_reads_memory_files_only(root: Path, anyio_backend: str) -> None:
    pytest.importorskip("mcp")
    from mcp import Client

    from memtier.mcp.runtime import ToolRuntime
    from memtier.mcp.server import build_server

    (root / ".docker").mkdir()
    (root / ".docker/config.json").write_text('{"auths": {"x": {"auth": "aHVudGVyMg=="}}}\n')
    server = build_server(ToolRuntime(root=str(root), now=NOW_TEXT))
    async with Client(server, raise_exceptions=True) as client:
        result = await client.call_tool("memory_get", {"path": ".docker/config.json"})
    text = "\n".join(block.text for block in result.content if block.type == "text")
    assert result.is_error and "not a memory file" in text
    assert "aHVudGVyMg" not in text


# -- agent-level fixes (issue Build 7) ---------------------------------------------


def test_capture_explain_changes_no_byte_and_a_hook_keeps_it_once(
    root: Path, snapshot: Snapshot
) -> None:
    message = "remember this: the NAS backup runs at 02:00"
    before = snapshot(root)
    explained = mt(root, "capture", "--explain", message)
    assert explained.returncode == 0 and "would be captured" in explained.stdout
    assert "+0.4 explicit" in explained.stdout
    assert snapshot(root) == before
    assert mt(root, "capture", message).returncode == 0
    buffer = (root / "memory/working-buffer.md").read_text()
    assert buffer.count("the NAS backup runs at 02:00") == 1


def test_init_honours_memtier_root(tmp_path: Path) -> None:
    here, there = tmp_path / "here", tmp_path / "there"
    here.mkdir()
    done = memtier_in_process("init", cwd=here, env={"MEMTIER_ROOT": str(there)})
    assert done.returncode == 0, done.stderr
    assert (there / "MEMORY.md").is_file() and (there / "memory").is_dir()
    assert list(here.iterdir()) == []


@pytest.mark.parametrize("form", [("--root=",), ("--root", ""), ("--now=",)])
def test_an_empty_root_or_now_is_a_usage_error(root: Path, form: tuple[str, ...]) -> None:
    done = memtier_in_process(*form, "stats", cwd=root)
    assert done.returncode == 2 and "non-empty" in done.stderr, done.stderr


@pytest.mark.parametrize("advice", [None, "use the second apt mirror when the first times out"])
def test_a_promoted_lesson_is_never_flagged_again(tmp_path: Path, advice: str | None) -> None:
    root = tmp_path / "ws"
    made = memtier_in_process("--now", "2026-11-23T10:00:00+01:00", "init", "--root", str(root))
    assert made.returncode == 0
    errors = root / ".learnings/ERRORS.md"
    errors.write_text(errors.read_text() + "".join(
        f"- 2026-11-2{d} apt mirror timed out\n" for d in (1, 2, 3)
    ))  # fmt: skip
    week = ["2026-12-07", "2026-12-14", "2026-12-21"]

    def at(day: str, *args: str) -> subprocess.CompletedProcess[str]:
        return memtier_in_process(
            "--root", str(root), "--now", f"{day}T10:00:00+01:00", *args, cwd=root
        )  # fmt: skip

    assert "flagged 1" in at(week[0], "weekly-review").stdout
    extra = ("--as", advice) if advice else ()
    to = ("--to", "memory/procedural/lessons-learned.md")
    promoted = at(week[0], "promote", "1", *to, *extra, "--yes")
    assert promoted.returncode == 0, promoted.stderr
    errors.write_text(errors.read_text() + "- 2026-12-08 apt mirror timed out\n")
    for day in week[1:]:
        at(day, "weekly-review")
        listed = at(day, "candidates", "--json")
        assert json.loads(listed.stdout)["candidates"] == [], listed.stdout
    assert "[PROMOTE-CANDIDATE]" not in errors.read_text()


def test_a_hanging_ripgrep_gives_way_to_the_built_in_scanner(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A program that never answers, as $MEMTIER_RG: after the time limit (made short
    here) it is killed, with what it started, and the built-in scanner answers."""
    from memtier.search import scanner
    from memtier.search.scanner import scan

    started = tmp_path / "started"
    hang = tmp_path / "rg-that-hangs"
    hang.write_text(f"#!/bin/sh\necho $$ > {started}\nsleep 600 &\necho $! >> {started}\nwait\n")
    hang.chmod(0o755)
    (root / "memory/semantic/infrastructure.md").write_text(
        "# Infrastructure\n#tags: networking\n> last_verified: 2026-11-30\n\n- nas01 is 10.0.0.5\n"
    )
    monkeypatch.setattr(scanner, "RG_TIME_LIMIT_SECONDS", 0.5)
    result = scan(root, ("warm",), "nas01", ignore_case=True, rg=str(hang), literals=["nas01"])
    assert result.scanner == "python" and result.files_searched > 0
    assert any("no answer within 0.5 s" in w and "built-in scanner" in w for w in result.warnings)
    for pid in (int(p) for p in started.read_text().split()):
        assert _gone_soon(pid), pid


def _gone_soon(pid: int) -> bool:
    """A killed process is gone once the kernel has torn it down, which on a loaded
    machine takes a moment after the signal: wait for that, up to 10 s."""
    import time

    for _ in range(1000):
        if _gone(pid):
            return True
        time.sleep(0.01)
    return _gone(pid)


def _gone(pid: int) -> bool:
    """No such process, or only its exit status left (a zombie nobody reaped yet)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return True
    state = next(line for line in status.splitlines() if line.startswith("State:"))
    return "Z" in state.split()[1]


def test_the_fault_trace_file_is_confined_to_the_temporary_folder(
    root: Path, tmp_path: Path
) -> None:
    inside = tmp_path / "trace.txt"
    done = run_memtier(
        "--root", str(root), "buffer", "note", "x", env={"MEMTIER_FAULT_TRACE_ALL": str(inside)}
    )
    assert done.returncode == 0 and "buffer.written" in inside.read_text()
    # Outside the temporary folder wherever the checkout lies (CI clones it under /tmp).
    outside = Path("/memtier-trace-that-must-not-be-written.txt")
    for target in (outside, Path("/etc/memtier-trace")):
        refused = run_memtier(
            "--root", str(root), "stats", env={"MEMTIER_FAULT_TRACE_ALL": str(target)}
        )
        assert refused.returncode == 2 and "MEMTIER_FAULT_TRACE_ALL" in refused.stderr
        assert not target.exists()
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    refused = run_memtier("--root", str(root), "stats", env={"MEMTIER_FAULT_TRACE": str(fifo)})
    assert refused.returncode == 2 and "not a regular file" in refused.stderr


@pytest.mark.parametrize("day", ["9999-12-31", "1899-12-31", "0001-01-01"])
def test_a_date_the_clock_refuses_is_refused_for_notes(root: Path, day: str) -> None:
    for args in (("episodic", "append", "far away", "--date", day),
                 ("episodic", "close", "--decisions", "d", "--signal", "s", "--open", "o",
                  "--date", day),
                 ("get", "--date", day)):  # fmt: skip
        done = mt(root, *args)
        assert done.returncode == 2 and "out of range" in done.stderr, (args, done.stderr)
    assert not list((root / "memory/episodic").glob(f"{day}*"))


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_the_tool_server_refuses_a_note_dated_9999(root: Path, anyio_backend: str) -> None:
    pytest.importorskip("mcp")
    from mcp import Client

    from memtier.mcp.runtime import ToolRuntime
    from memtier.mcp.server import build_server

    server = build_server(ToolRuntime(root=str(root), now=NOW_TEXT))
    async with Client(server, raise_exceptions=True) as client:
        result = await client.call_tool(
            "memory_note", {"text": "far away", "to": "today", "date": "9999-12-31"}
        )
    assert result.is_error
    assert not (root / "memory/episodic/9999-12-31.md").exists()


RLO = "\u202e"


def test_bidi_and_control_characters_are_escaped_in_output(root: Path) -> None:
    hot = root / "MEMORY.md"
    hot.write_text(hot.read_text() + f"- invoice {RLO}fdp.exe\r overwritten\x1b[2J\n")
    shown = mt(root, "get", "MEMORY.md")
    assert shown.returncode == 0
    assert RLO not in shown.stdout and "\x1b" not in shown.stdout and "\r" not in shown.stdout
    assert "\\u202efdp.exe\\x0d overwritten\\x1b[2J" in shown.stdout
    found = mt(root, "search", "invoice", "--json")
    assert RLO not in found.stdout and "\\u202e" in found.stdout
    assert RLO in json.dumps(json.loads(found.stdout), ensure_ascii=False)  # the data is kept
    plain = mt(root, "search", "invoice")
    assert RLO not in plain.stdout and "\\u202e" in plain.stdout


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_the_tool_server_escapes_bidi_characters(root: Path, anyio_backend: str) -> None:
    pytest.importorskip("mcp")
    from mcp import Client

    from memtier.mcp.runtime import ToolRuntime
    from memtier.mcp.server import build_server

    hot = root / "MEMORY.md"
    hot.write_text(hot.read_text() + f"- invoice {RLO}fdp.exe\n")
    server = build_server(ToolRuntime(root=str(root), now=NOW_TEXT))
    async with Client(server, raise_exceptions=True) as client:
        result = await client.call_tool("memory_get", {"path": "MEMORY.md"})
    text = "\n".join(block.text for block in result.content if block.type == "text")
    assert RLO not in text and "\\u202efdp.exe" in text


@pytest.mark.parametrize(
    "args", [("search", "nas", "--limit", HUGE), ("get", "MEMORY.md", "--max-lines", HUGE)]
)
def test_a_huge_option_value_is_exit_2_and_not_echoed_whole(
    root: Path, args: tuple[str, ...]
) -> None:
    done = mt(root, *args)
    assert done.returncode == 2, done.stderr
    assert HUGE not in done.stderr and "(5000 digits)" in done.stderr
