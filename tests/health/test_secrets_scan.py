"""memtier.health.secrets_scan: the ``secrets`` check of PROTOCOL §6 (never prints a secret)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from memtier.health.secrets_scan import SecretsScan
from memtier.health.verdict import FAIL, PASS, WARN, Check
from memtier.workspace import Workspace
from tests.conftest import NOW_TEXT


def github_token() -> str:
    # Built from pieces at run time: the repository holds no literal secret.
    return "gh" + "p_" + "x1Y2" * 9


def test_a_clean_workspace_has_one_pass_counting_the_files(ws: Workspace) -> None:
    (check,) = _secrets_checks(ws)
    assert check.status == PASS
    assert check.message.startswith("no credentials found (") and "files scanned)" in check.message


def test_a_credential_fails_with_its_line_and_rule_but_not_its_text(ws: Workspace) -> None:
    token = github_token()
    (ws.episodic_dir / "2026-11-01.md").write_text(f"# notes\n\npushed with {token}\n")
    (check,) = _secrets_checks(ws)
    assert (check.status, check.path) == (FAIL, "memory/episodic/2026-11-01.md")
    assert check.message == "memory/episodic/2026-11-01.md:3 — credential found (GITHUB_TOKEN)"
    assert token not in repr(check)


def test_a_binary_or_non_utf8_file_is_a_warning_and_still_scanned(ws: Workspace) -> None:
    token = github_token()
    (ws.learnings_dir / "odd.md").write_bytes(b"caf\xe9 " + token.encode() + b"\n")
    checks = _secrets_checks(ws)
    assert [(c.status, c.path) for c in checks] == [
        (WARN, ".learnings/odd.md"),
        (FAIL, ".learnings/odd.md"),
    ]
    assert (
        checks[0].message == ".learnings/odd.md — not UTF-8 text (scanned for credentials anyway)"
    )


def test_the_archive_is_scanned(ws: Workspace) -> None:
    # PROTOCOL §6 v4: every file health-check reads is scanned, the archive included.
    folder = ws.archive_dir / "2025" / "01"
    folder.mkdir(parents=True)
    (folder / "2025-01-01.md").write_text(github_token() + "\n")
    (check,) = _secrets_checks(ws)
    assert (
        check.message == "memory/archive/2025/01/2025-01-01.md:1 — credential found (GITHUB_TOKEN)"
    )


@pytest.mark.parametrize("engine", ["python", "ripgrep"])
def test_the_archive_and_file_names_on_either_engine(
    ws: Workspace, engine: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memtier.health import secrets_scan

    if engine == "ripgrep":
        if secrets_scan._ripgrep() is None:
            pytest.skip("ripgrep not installed")
        monkeypatch.setattr(secrets_scan, "RG_MIN_NOTES", 1)
    token = github_token()
    folder = ws.archive_dir / "2024" / "12"
    folder.mkdir(parents=True)
    (folder / "2024-12-01.md").write_text(f"# 2024-12-01\n\n- {token}\n")
    (ws.episodic_dir / "2026-11-02.md").write_text("# 2026-11-02\n\n- quiet day\n")
    # Clean contents (rg passes over it), a credential in its name.
    (ws.episodic_dir / f"{token}.md").write_text("# notes\n")
    checks = [c for c in _secrets_checks(ws) if c.status == FAIL]
    assert [c.message for c in checks] == [
        "memory/episodic/[REDACTED:GITHUB_TOKEN].md — credential found in the file name"
        " (GITHUB_TOKEN)",
        "memory/archive/2024/12/2024-12-01.md:3 — credential found (GITHUB_TOKEN)",
    ]
    assert token not in repr(checks)


def test_a_symlink_in_the_archive_is_not_read(ws: Workspace, tmp_path: Path) -> None:
    outside = tmp_path / "outside.md"
    outside.write_text(github_token() + "\n")
    folder = ws.archive_dir / "2024" / "12"
    folder.mkdir(parents=True)
    (folder / "2024-12-02.md").symlink_to(outside)
    assert [c.status for c in _secrets_checks(ws)] == [PASS]


def _secrets_checks(ws: Workspace) -> list[Check]:
    """PROTOCOL §6 ``secrets`` on its own, as health-check runs it."""
    with SecretsScan(ws) as scan:
        return scan.finish()


class _CountedListing:
    """An ``os.scandir`` of one folder that counts the entries it has given."""

    def __init__(self, found: Any, given: list[int]) -> None:
        self._found, self._given = found, given

    def __enter__(self) -> _CountedListing:
        return self

    def __exit__(self, *exc: object) -> None:
        self._found.close()

    def __iter__(self) -> _CountedListing:
        return self

    def __next__(self) -> os.DirEntry[str]:
        entry: os.DirEntry[str] = next(self._found)
        self._given[0] += 1
        return entry

    def close(self) -> None:
        self._found.close()


def _write_notes(folder: Path, count: int, first: int = 0) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for n in range(first, first + count):
        (folder / f"2020-{1 + n // 28:02d}-{1 + n % 28:02d}.md").write_text(f"- note {n}\n")


def test_ripgrep_starts_before_the_cold_tier_is_listed_to_its_end(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    """rg is the longest part of a large health check: it starts once the first
    RG_MIN_NOTES entries of the COLD folder are counted, and the rest of that one
    listing is read while it runs."""
    from memtier import spawn
    from memtier.health import secrets_scan

    notes = secrets_scan.RG_MIN_NOTES + 50
    _write_notes(ws.episodic_dir, notes)
    given = [0]
    at_start: list[int] = []
    scandir = os.scandir

    def counted(path: Any = ".") -> Any:
        found = scandir(path)
        return _CountedListing(found, given) if path == ws.episodic_dir else found

    def start(argv: list[str]) -> spawn.Started:
        at_start.append(given[0])
        raise OSError("not started here: Python scans every note")

    monkeypatch.setattr(secrets_scan, "_ripgrep", lambda: None)
    python = _secrets_checks(ws)  # every note read in Python
    monkeypatch.setattr(os, "scandir", counted)
    monkeypatch.setattr(secrets_scan, "_ripgrep", lambda: "rg")
    monkeypatch.setattr(spawn, "start", start)
    assert _secrets_checks(ws) == python
    assert at_start == [secrets_scan.RG_MIN_NOTES]  # of the note folder's entries
    assert given[0] == notes  # listed to its end, in one listing


@pytest.mark.parametrize(("archived", "started"), [(2, True), (1, False)])
def test_the_archive_makes_up_the_count_of_a_small_cold_tier(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch, archived: int, started: bool
) -> None:
    from memtier import spawn
    from memtier.health import secrets_scan

    _write_notes(ws.episodic_dir, 3)
    _write_notes(ws.archive_dir / "2019" / "01", archived, first=3)
    calls: list[list[str]] = []

    def start(argv: list[str]) -> spawn.Started:
        calls.append(argv)
        raise OSError("not started here")

    monkeypatch.setattr(secrets_scan, "_ripgrep", lambda: None)
    python = _secrets_checks(ws)  # every note read in Python
    monkeypatch.setattr(secrets_scan, "RG_MIN_NOTES", 5)
    monkeypatch.setattr(secrets_scan, "_ripgrep", lambda: "rg")
    monkeypatch.setattr(spawn, "start", start)
    assert _secrets_checks(ws) == python
    assert bool(calls) is started


def test_ripgrep_starts_before_the_store_is_imported(root: Path) -> None:
    """In a fresh health-check the rg pass starts before `memtier.store` (and the
    threading and signal modules it brings) is imported: that import runs while
    rg does."""
    from memtier.health import secrets_scan

    if secrets_scan._ripgrep() is None:
        pytest.skip("no rg binary")
    _write_notes(root / "memory" / "episodic", secrets_scan.RG_MIN_NOTES)
    code = (
        "import sys; from memtier import spawn; seen = []\n"
        "def start(argv):\n"
        "    seen.append('memtier.store' in sys.modules)\n"
        "    raise OSError('not started here')\n"
        "spawn.start = start\n"
        "from memtier.__main__ import main\n"
        f"code = main(['--root', {str(root)!r}, '--now', {NOW_TEXT!r}, 'health-check'])\n"
        "sys.stderr.write(f'{code} {seen}')\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.stderr.split()[-2:] == ["0", "[False]"], proc.stderr


def test_the_topic_passes_start_with_the_secrets_pass(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With a topic index, index.fresh's ripgrep pass starts right after the secrets
    pass, before the COLD tier is listed to its end (both run while Python lists)."""
    from memtier import spawn
    from memtier.commands.topics import notes
    from memtier.commands.topics.index import index_add
    from memtier.health import secrets_scan
    from memtier.health.report import run_health_check

    notes_count = secrets_scan.RG_MIN_NOTES + 50
    _write_notes(ws.episodic_dir, notes_count)
    index_add(ws, "note", "projects")
    monkeypatch.setattr(secrets_scan, "_ripgrep", lambda: None)
    monkeypatch.setattr(notes, "ripgrep", lambda: None)
    python = run_health_check(ws)  # every note read in Python
    given = [0]
    at_start: list[tuple[str, int]] = []
    scandir = os.scandir

    def counted(path: Any = ".") -> Any:
        found = scandir(path)
        return _CountedListing(found, given) if path == ws.episodic_dir else found

    def start(argv: list[str]) -> spawn.Started:
        at_start.append(("topic" if "--fixed-strings" in argv else "secrets", given[0]))
        raise OSError("not started here: Python reads every note")

    monkeypatch.setattr(os, "scandir", counted)
    monkeypatch.setattr(secrets_scan, "_ripgrep", lambda: "rg")
    monkeypatch.setattr(notes, "ripgrep", lambda: "rg")
    monkeypatch.setattr(spawn, "start", start)
    assert run_health_check(ws) == python
    first = secrets_scan.RG_MIN_NOTES
    # (a pass that could not start is tried again when its answer is needed)
    assert at_start[:2] == [("secrets", first), ("topic", first)]
    assert given[0] == notes_count  # one listing, read to its end


def test_opened_leaves_short_bounds_escaped_braces_and_classes_alone() -> None:
    from memtier.health.secrets_scan import _opened

    given = r"a{3,256}\{3,99}[{3,99}]b{1,2}c{40}[]{3,99}]d{0,33}[^]x{1,99}\]]e{2,32}"
    assert _opened(given) == r"a{3,}\{3,99}[{3,99}]b{1,2}c{40}[]{3,99}]d{0,}[^]x{1,99}\]]e{2,32}"


def test_the_pattern_rg_is_given_matches_every_line_the_prefilter_matches() -> None:
    """The secrets pass gives rg the prefilter with its long repetitions opened
    (cheaper to compile): a superset, never a line less."""
    import re

    from memtier.health.secrets_scan import _opened, _rg_command
    from memtier.secrets import prefilter_pattern
    from tests.secrets_corpus import NEAR_MISSES, SHAPES
    from tests.test_secrets import CASES, EXTRA

    prefilter = re.compile(prefilter_pattern())
    opened = re.compile(_opened(prefilter_pattern()))
    command = _rg_command("rg", [Path("notes")])
    assert opened.pattern in command and prefilter.pattern not in command
    assert not [b for b in re.findall(r"\{[0-9]+,([0-9]+)\}", opened.pattern) if int(b) > 32]
    lines = [s.text for s in SHAPES] + [text for _, text in NEAR_MISSES]
    lines += [line for text, _, _ in CASES.values() for line in text.splitlines()]
    lines += [text for _, text, _ in EXTRA]
    # a run longer than its bound: the prefilter passes over it, the opened one not
    lines.append('password = "' + "x y " * 80 + '"')
    matched = [line for line in lines if prefilter.search(line)]
    assert len(matched) > 100
    assert all(opened.search(line) for line in matched)
    assert [line for line in lines if opened.search(line) and not prefilter.search(line)]
