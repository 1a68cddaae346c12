"""health-check reads each file once (PROTOCOL §6 v4): one listing of the COLD folder,
one read of each note, shared by every check that needs its bytes."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterator
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pytest

from memtier.commands.topics.index import index_add
from memtier.health import secrets_scan
from memtier.health.report import FAIL, run_health_check
from memtier.store import reading as health_reading
from memtier.workspace import Workspace

NOTES = 250  # above secrets_scan.RG_MIN_NOTES: ripgrep names the candidates, if installed


def _notes(ws: Workspace) -> list[Path]:
    made = []
    for n in range(NOTES):
        day = date(2026, 1, 1) + timedelta(days=n)
        path = ws.episodic_dir / f"{day.isoformat()}.md"
        body = f"# {day}\n- restarted the proxy\n"
        if n == 7:
            body += "<<<<<<< ours\n- a conflict left behind\n"
        if n == 11:
            body += "- key AKIAQ3EGUSKXJ7W5MZ2P in a note\n"
        body += f"\nUpdated: {day}\nDecisions: none\nSignal: none\nOpen: none\n"
        path.write_text(body, encoding="utf-8")
        made.append(path)
    return made


@pytest.mark.parametrize("rg", [True, False], ids=["ripgrep", "python"])
def test_every_note_is_listed_once_and_read_once(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch, rg: bool
) -> None:
    notes = _notes(ws)
    index_add(ws, "proxy", "projects")  # a topic in every note: index.fresh reads them all
    if not rg:
        monkeypatch.setattr(secrets_scan, "_ripgrep", lambda: None)
    reads: Counter[str] = Counter()
    listings: Counter[str] = Counter()
    read = health_reading._read
    scandir = os.scandir

    def counted_read(path: str) -> bytes | OSError:
        reads[os.path.realpath(path)] += 1
        return read(path)

    def counted_scandir(path: Any = ".") -> Iterator[os.DirEntry[str]]:
        if not isinstance(path, int):  # (a descriptor: shutil's, not ours)
            listings[os.path.realpath(path)] += 1
        return scandir(path)

    monkeypatch.setattr(health_reading, "_read", counted_read)
    monkeypatch.setattr(os, "scandir", counted_scandir)
    report = run_health_check(ws)
    failed = {(c.id, c.path) for c in report.checks if c.status == FAIL}
    assert ("sync.markers", "memory/episodic/2026-01-08.md") in failed
    assert ("secrets", "memory/episodic/2026-01-12.md") in failed
    assert any(c.id == "index.fresh" for c in report.checks)
    assert listings[os.path.realpath(ws.episodic_dir)] == 1
    assert {reads[os.path.realpath(p)] for p in notes} == {1}
    assert max(reads.values()) == 1  # no other file twice either


def _count_reads(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """How often health's one-read cache reads each file (by real path), from now on."""
    reads: Counter[str] = Counter()
    read = health_reading._read

    def counted_read(path: str) -> bytes | OSError:
        reads[os.path.realpath(path)] += 1
        return read(path)

    monkeypatch.setattr(health_reading, "_read", counted_read)
    return reads


def _quiet_notes(ws: Workspace) -> dict[str, Path]:
    """NOTES clean notes, and four that each hold what one check looks for."""
    made: dict[str, Path] = {}
    for n in range(NOTES):
        day = date(2026, 1, 1) + timedelta(days=n)
        path = ws.episodic_dir / f"{day.isoformat()}.md"
        body = f"# {day}\n- restarted the proxy at 12:00\n"
        closure = f"\nUpdated: {day}\nDecisions: none\nSignal: none\nOpen: none\n"
        kind = {3: "stray", 7: "marker", 11: "secret", 13: "latin-1"}.get(n)
        if kind == "stray":  # a text merge left a block above the last one
            body += closure + "- more work\n"
        elif kind == "marker":
            body += ">>>>>>> theirs\n"
        elif kind == "secret":
            body += "- key AKIAQ3EGUSKXJ7W5MZ2P in a note\n"
        data = (body + closure).encode("utf-8")
        if kind == "latin-1":  # two blocks around a byte that is not UTF-8
            data = (body + closure + "- caf\xe9\n" + closure).encode("latin-1")
        path.write_bytes(data)
        if kind:
            made[kind] = path
    return made


@pytest.mark.parametrize("rg", [True, False], ids=["ripgrep", "python"])
def test_the_notes_no_check_looks_into_are_read_by_ripgrep_alone(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch, rg: bool
) -> None:
    """Issue 37: ripgrep reads every note for the secrets check, and Python read
    every note again for the closure and marker checks. One ripgrep pass now looks
    for what each of them needs; Python reads only the notes it names, and the
    report is the same as when Python reads every note."""
    if rg and secrets_scan._ripgrep() is None:
        pytest.skip("ripgrep not installed")
    if not rg:
        monkeypatch.setattr(secrets_scan, "_ripgrep", lambda: None)
    special = _quiet_notes(ws)
    reads = _count_reads(monkeypatch)
    report = run_health_check(ws)
    failed = sorted((c.id, c.path) for c in report.checks if c.status == FAIL)
    assert failed == [
        ("episodic.closure.unique", "memory/episodic/2026-01-04.md"),
        ("episodic.closure.unique", "memory/episodic/2026-01-14.md"),
        ("secrets", "memory/episodic/2026-01-12.md"),
        ("sync.markers", "memory/episodic/2026-01-08.md"),
    ]
    episodic = os.path.realpath(ws.episodic_dir)
    read_notes = {p for p in reads if os.path.dirname(p) == episodic}
    if rg:
        assert read_notes == {os.path.realpath(p) for p in special.values()}
    else:
        assert len(read_notes) == NOTES
    assert max(reads.values()) == 1


def test_index_md_is_read_once(ws: Workspace) -> None:
    """Issue 37: health-check read INDEX.md twice, once for index.fresh's rebuild
    and once more for index.format and index.refs."""
    from memtier.store import read as store_read

    _quiet_notes(ws)
    index_add(ws, "proxy", "projects")
    index_reads: list[Path] = []
    read_real = store_read._read_real

    def counted(path: Path, *args: Any, **kwargs: Any) -> Any:
        if path == ws.index_file:
            index_reads.append(path)
        return read_real(path, *args, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(store_read, "_read_real", counted)
        report = run_health_check(ws)
    assert [c.status for c in report.checks if c.id.startswith("index.")] == ["pass"] * 3
    assert len(index_reads) == 1


def test_without_an_archive_folder_ripgrep_still_answers(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A memory with no archive yet: ripgrep was asked to search a folder that is
    not there, failed, and Python read every note."""
    import shutil

    if secrets_scan._ripgrep() is None:
        pytest.skip("ripgrep not installed")
    special = _quiet_notes(ws)
    shutil.rmtree(ws.archive_dir, ignore_errors=True)
    reads = _count_reads(monkeypatch)
    run_health_check(ws)
    episodic = os.path.realpath(ws.episodic_dir)
    read_notes = {p for p in reads if os.path.dirname(p) == episodic}
    assert read_notes == {os.path.realpath(p) for p in special.values()}


@pytest.mark.parametrize("rg", [True, False], ids=["ripgrep", "python"])
def test_an_open_sync_conflict_is_found_by_the_pass_too(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch, rg: bool
) -> None:
    """The pass looks for an open conflict item as well: the note holding one is
    read and warned about, on either path, with nothing else in it to find."""
    if rg and secrets_scan._ripgrep() is None:
        pytest.skip("ripgrep not installed")
    if not rg:
        monkeypatch.setattr(secrets_scan, "_ripgrep", lambda: None)
    _quiet_notes(ws)
    (ws.sync_git_dir).mkdir(parents=True, exist_ok=True)
    (ws.sync_git_dir / "HEAD").write_text("ref: refs/heads/main\n", encoding="utf-8")
    note = ws.episodic_dir / "2026-02-01.md"
    note.write_bytes(
        note.read_bytes().replace(b"Open: none", b"Open: settle sync conflict s-0a1b2c3d")
    )
    report = run_health_check(ws)
    found = [c.message for c in report.checks if c.id == "sync.conflicts"]
    assert found == ["sync conflict still open (2026-02-01.md: s-0a1b2c3d)"]


class _GoneEntry:
    """A listed entry whose kind the listing did not say, deleted since."""

    name = "gone.md"

    def is_file(self, *, follow_symlinks: bool = True) -> bool:
        raise FileNotFoundError(2, "No such file or directory", self.name)


def test_the_entries_that_are_not_plain_files(tmp_path: Path) -> None:
    """One helper tells them for health's folder checks and the topic note listing:
    links, folders and special files, from the listing; an entry that cannot be
    asked any more counts as not plain."""
    (tmp_path / "a.md").write_text("plain\n")
    (tmp_path / "b.md").symlink_to(tmp_path / "a.md")
    (tmp_path / "c.md").mkdir()
    os.mkfifo(tmp_path / "d.md")
    (tmp_path / "e.md").write_text("plain\n")
    entries = health_reading.Reading().listing(tmp_path)
    odd = health_reading.not_plain_files(entries)
    assert [e.name for e in odd] == ["b.md", "c.md", "d.md"]
    assert [health_reading.is_plain_file(e) for e in entries] == [True, False, False, False, True]
    gone: Any = _GoneEntry()
    asked = health_reading.not_plain_files([*entries, gone])  # each asked on its own
    assert [e.name for e in asked] == ["b.md", "c.md", "d.md", "gone.md"]
    assert health_reading.is_plain_file(gone) is False
