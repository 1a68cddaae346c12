"""The ``secrets`` check of PROTOCOL §6: no credential may stand in a memory file.

It scans HOT, WARM, BUFFER, every ``.learnings/*.md`` and the non-archived COLD
notes (``memory/episodic/*.md``); the archive is left alone.

COLD is the large tier: years of daily notes. For a large set of notes the
secrets prefilter (`memtier.secrets.prefilter_pattern`, valid for Python and
ripgrep alike) runs through the ``rg`` binary, which reads the files in
parallel and names the few that hold a candidate line; only those are read and
confirmed with `memtier.secrets.detect`. Without ``rg``, or when it reports an
error, every file is scanned in Python, with the same findings.

A file that is not UTF-8, or binary, does not stop the scan: it is read with the
undecodable bytes replaced, scanned, and reported as a warning, because a
credential in a Latin-1 note is still a credential.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path

from memtier.health import FAIL, PASS, WARN, Check
from memtier.workspace import Workspace

# Below this many COLD notes, starting rg costs more than scanning in Python.
RG_MIN_NOTES = 200
RG_TIMEOUT_SECONDS = 120.0


def _ripgrep() -> str | None:
    """The ``rg`` next to the running Python (a venv with the ripgrep wheel), else on PATH."""
    beside = Path(sys.executable).parent / "rg"
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    return shutil.which("rg")


def _notes(folder: Path) -> list[Path]:
    """``*.md`` regular files directly in *folder* (symlinks followed), sorted."""
    try:
        with os.scandir(folder) as entries:
            names = [e.name for e in entries if e.name.endswith(".md") and e.is_file()]
    except OSError:
        return []
    return [folder / name for name in sorted(names)]


def _rg_candidates(rg: str, folder: Path) -> set[Path] | None:
    """Notes in *folder* with a prefilter hit, or None when rg could not answer."""
    from memtier.secrets import prefilter_pattern

    command = [
        rg,
        "--no-config",
        "--files-with-matches",
        "--null",
        "--no-ignore",
        "--hidden",
        "--follow",
        "--text",
        "--max-depth",
        "1",
        "--glob",
        "*.md",
        "--regexp",
        prefilter_pattern(),
        "--",
        str(folder),
    ]
    try:
        done = subprocess.run(command, capture_output=True, timeout=RG_TIMEOUT_SECONDS, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode == 1:
        return set()
    if done.returncode != 0:
        return None  # an error (e.g. an unreadable note): let Python look at every file
    names = done.stdout.split(b"\0")
    return {Path(os.fsdecode(name)) for name in names if name}


def _decode(data: bytes) -> tuple[str, str | None]:
    """The text to scan and, when it is not clean UTF-8 text, why."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("utf-8", errors="replace"), "not UTF-8 text"
    if "\x00" in text:
        return text, "binary file (NUL bytes)"
    return text, None


def _scan(ws: Workspace, paths: Iterable[Path]) -> list[Check]:
    from memtier.secrets import detect

    checks: list[Check] = []
    for path in paths:
        rel = ws.relative(path)
        try:
            data = path.read_bytes()
        except OSError as exc:
            message = f"{rel} — not scanned for credentials: {exc.strerror or exc}"
            checks.append(Check("secrets", WARN, rel, message))
            continue
        text, oddity = _decode(data)
        if oddity is not None:
            message = f"{rel} — {oddity}; scanned for credentials with bad bytes replaced"
            checks.append(Check("secrets", WARN, rel, message))
        for finding in detect(text):
            message = f"{rel}:{finding.line} — credential found ({finding.rule})"
            why = (
                f"line {finding.line} matches the {finding.rule} rule",
                "remove the secret from the file (the check never prints it)",
            )
            checks.append(Check("secrets", FAIL, rel, message, why))
    return checks


def _small_tiers(ws: Workspace) -> list[Path]:
    from memtier.health_checks import warm_paths

    paths = [ws.hot, *warm_paths(ws), ws.buffer, *_notes(ws.learnings_dir)]
    return [p for p in paths if p.is_file()]


def secrets_checks(ws: Workspace) -> list[Check]:
    """PROTOCOL §6 ``secrets``: one failure per credential found, never the credential."""
    small = _small_tiers(ws)
    notes = _notes(ws.episodic_dir)
    candidates: Iterable[Path] = notes
    if len(notes) >= RG_MIN_NOTES:
        rg = _ripgrep()
        found = _rg_candidates(rg, ws.episodic_dir) if rg else None
        if found is not None:
            candidates = [p for p in notes if p in found]
    checks = _scan(ws, [*small, *candidates])
    if not any(c.status == FAIL for c in checks):
        scanned = len(small) + len(notes)
        message = f"no credentials found ({scanned} files scanned)"
        checks.append(Check("secrets", PASS, None, message))
    return checks
