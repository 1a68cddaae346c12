"""`memtier import` under a hostile tester (PROTOCOL §12 v3): exit 2, never exit 3.

Each repro is a source a user can hand to the command: a 100,000-deep JSON, a
5,000-digit number, a ``createdAt`` that is a superscript digit, an export entry
with a 300-character file name, a source past the size bound, and an export
carrying a broken config, an over-long MEMORY.md or a WARM file without its
header. And a dry run killed half-way leaves nothing behind, anywhere.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from memtier.formats.envelope import ExportedFile, build_envelope, dump_envelope
from tests.conftest import NOW_TEXT, memtier_in_process
from tests.reliability.reliability_support import wait_until_open

Snapshot = Callable[[Path], dict[str, bytes]]
DEEP = "[" * 100_000 + "]" * 100_000


def _import(root: Path, fmt: str, source: Path) -> subprocess.CompletedProcess[str]:
    return memtier_in_process(
        "--now", NOW_TEXT, "--root", str(root), "import", fmt, str(source), "--json"
    )  # fmt: skip


def _envelope(tmp_path: Path, files: list[ExportedFile]) -> Path:
    path = tmp_path / "export.json"
    path.write_text(dump_envelope(build_envelope(files, NOW_TEXT)))
    return path


@pytest.mark.parametrize("fmt", ["brain", "mcp-memory", "memtier"])
def test_a_deep_json_document_is_an_input_error(
    fmt: str, root: Path, tmp_path: Path, snapshot: Snapshot
) -> None:
    source = tmp_path / "deep.json"
    source.write_text(DEEP)
    before = snapshot(root)
    done = _import(root, fmt, source)
    assert done.returncode == 2, done.stderr
    assert "within bounds" in done.stderr or "nested deeper" in done.stderr
    assert "Traceback" not in done.stderr
    assert snapshot(root) == before


def test_a_deep_json_line_of_a_jsonl_source_is_skipped_with_its_reason(
    root: Path, tmp_path: Path
) -> None:
    source = tmp_path / "memory.jsonl"
    entity = {"type": "entity", "name": "nas01", "entityType": "device", "observations": ["ok"]}
    source.write_text(json.dumps(entity) + "\n" + DEEP + "\n")
    done = _import(root, "mcp-memory", source)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["imported"] == 1
    reasons = [o["reason"] for o in report["outcomes"] if o["status"] == "skipped"]
    assert reasons == ["invalid: not JSON within bounds (nested deeper than 64 levels)"]


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ('{"text": "power cut", "createdAt": ' + "9" * 5000 + "}", "not JSON within bounds"),
        ('{"text": "power cut", "createdAt": "' + "9" * 5000 + '"}', "'createdAt' is not a date"),
        ('{"text": "power cut", "createdAt": "\u00b2"}', "'createdAt' is not a date"),
        ('{"text": "power cut", "createdAt": 1e999999}', "'createdAt' is not a date"),
    ],
)
def test_hostile_numbers_and_dates_are_invalid_items(
    root: Path, tmp_path: Path, line: str, reason: str
) -> None:
    source = tmp_path / "brain.jsonl"
    source.write_text('{"text": "a good line", "createdAt": "2026-11-01"}\n' + line + "\n")
    done = _import(root, "brain", source)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["imported"] == 1
    skipped = next(o["reason"] for o in report["outcomes"] if o["status"] == "skipped")
    assert skipped.startswith(f"invalid: {reason}")


def test_an_export_entry_with_a_300_character_name_is_reported_before_any_write(
    root: Path, tmp_path: Path
) -> None:
    long_name = "memory/semantic/" + "x" * 300 + ".md"
    source = _envelope(
        tmp_path,
        [
            ExportedFile("memory/episodic/2026-11-01.md", "cold", "# 2026-11-01\n\n- one\n"),
            ExportedFile(long_name, "warm", "# X\n#tags: memory\n> last_verified: 2026-11-30\n"),
        ],
    )
    done = _import(root, "memtier", source)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert [o["status"] for o in report["outcomes"]] == ["imported", "skipped"]
    assert report["outcomes"][1]["reason"] == "invalid: a file name longer than 255 bytes"
    assert (root / "memory/episodic/2026-11-01.md").is_file()


def _config_then_health(root: Path) -> subprocess.CompletedProcess[str]:
    return memtier_in_process("--now", NOW_TEXT, "--root", str(root), "health-check")


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("this is [not toml\n", "not valid TOML"),
        ("vocabulary = []\n", "'vocabulary' is empty"),
        ("hot_max_lines = " + "9" * 5000 + "\n", "memory/memtier.toml"),
    ],
)
def test_import_memtier_checks_the_config_before_it_replaces_anything(
    root: Path, tmp_path: Path, snapshot: Snapshot, text: str, reason: str
) -> None:
    before = snapshot(root)
    source = _envelope(tmp_path, [ExportedFile("memory/memtier.toml", "config", text)])
    done = _import(root, "memtier", source)
    assert done.returncode == 0, done.stderr
    outcome = json.loads(done.stdout)["outcomes"][0]
    assert outcome["status"] == "skipped" and outcome["reason"].startswith("refused: ")
    assert reason in outcome["reason"]
    assert snapshot(root) == before
    assert _config_then_health(root).returncode == 0


def test_import_memtier_refuses_memory_md_past_the_cap_and_a_headless_warm_file(
    root: Path, tmp_path: Path, snapshot: Snapshot
) -> None:
    hot = "# Agent Memory\n#tags: memory\nlast_verified: 2026-11-30\nlast_updated: 2026-11-30\n"
    hot += "".join(f"- fact {n}\n" for n in range(201))
    source = _envelope(
        tmp_path,
        [
            ExportedFile("MEMORY.md", "hot", hot),
            ExportedFile("memory/semantic/notes.md", "warm", "# Notes\nno tags line\n"),
        ],
    )
    before = snapshot(root)
    done = _import(root, "memtier", source)
    assert done.returncode == 0, done.stderr
    reasons = [o["reason"] for o in json.loads(done.stdout)["outcomes"]]
    assert reasons[0].startswith("refused: MEMORY.md would have 205 lines, over the 60-line")
    assert reasons[1].startswith("refused: ") and "#tags" in reasons[1]
    assert snapshot(root) == before


def test_a_killed_dry_run_leaves_no_copy_of_the_memory_anywhere(
    root: Path, tmp_path: Path, snapshot: Snapshot
) -> None:
    """SIGTERM half-way through `import --dry-run`: the temp folder stays empty (no
    copy of the workspace, no typed password in it) and no byte of the memory moved."""
    secret = "PASSWORD=correct-horse-battery-staple"
    (root / "memory/working-buffer.md").write_text(
        (root / "memory/working-buffer.md").read_text() + f"- {secret}\n"
    )
    lines = [
        json.dumps({"text": f"event number {n} on docker01", "createdAt": "2026-11-01T08:00:00Z"})
        for n in range(60_000)
    ]
    source = tmp_path / "big.jsonl"
    source.write_text("\n".join(lines) + "\n")
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    before = snapshot(root)
    env = {**os.environ, "TMPDIR": str(scratch)}
    argv = [sys.executable, "-m", "memtier", "--now", NOW_TEXT, "--root", str(root),
            "import", "brain", str(source), "--dry-run"]  # fmt: skip
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wait_until_open(proc, source, limit=60)  # half-way: reading its source, still running
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=60)
    assert list(scratch.iterdir()) == []
    assert snapshot(root) == before
    leftovers = [p for p in Path(os.environ.get("TMPDIR", "/tmp")).glob("memtier-dry-run-*")]
    assert not [p for p in leftovers if secret.encode() in _all_bytes(p)]


def _all_bytes(folder: Path) -> bytes:
    return b"".join(p.read_bytes() for p in folder.rglob("*") if p.is_file())


def _import_process(root: Path, fmt: str, source: Path, *extra: str) -> tuple[int, str, str]:
    """A real process, bounded: a read that waits on a FIFO fails the test, not the run."""
    argv = [sys.executable, "-m", "memtier", "--now", NOW_TEXT, "--root", str(root),
            "import", fmt, str(source), "--json", *extra]  # fmt: skip
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail(f"import {fmt} waited on a FIFO")
    return done.returncode, done.stdout, done.stderr


@pytest.mark.parametrize("dry_run", [False, True], ids=["import", "dry-run"])
@pytest.mark.parametrize("where", ["memory/2026-03-02.md", "memory/topics.md", "MEMORY.md"])
def test_a_fifo_in_an_openclaw_source_is_skipped_with_its_reason(
    root: Path, tmp_path: Path, where: str, dry_run: bool
) -> None:
    """PROTOCOL §12, §3 v2: no read waits forever. A FIFO where a note or the index
    of an OpenClaw workspace belongs is skipped, said why; the rest is imported."""
    source = tmp_path / "claw"
    (source / "memory").mkdir(parents=True)
    (source / "memory/2026-03-01.md").write_text("# 2026-03-01\n\n- moved qdrant to hostb\n")
    os.mkfifo(source / where)
    code, out, err = _import_process(root, "openclaw", source, *(["--dry-run"] if dry_run else []))
    assert code == 0, err
    report = json.loads(out)
    skipped = json.dumps(report)
    assert where.removeprefix("memory/") in skipped and "FIFO" in skipped
    assert report["imported"] >= 1 or report.get("would_import", 0) >= 1 or "qdrant" in out


def test_a_fifo_named_as_a_one_file_source_is_refused_at_once(root: Path, tmp_path: Path) -> None:
    fifo = tmp_path / "brain.jsonl"
    os.mkfifo(fifo)
    code, _out, err = _import_process(root, "brain", fifo)
    assert code == 2
    assert "FIFO" in err
