"""The export envelope of `memtier export` / `memtier import memtier` (PROTOCOL §12): pure.

``{"format": "memtier-export", "version": 1, "exported_at": ISO, "files": [{"path",
"tier", "sha256", "text"}]}``. ``text`` is the file's whole content as decoded
UTF-8, byte-order mark and CRLF line endings included, so writing ``text``
back as UTF-8 gives the same bytes; ``sha256`` is taken over those bytes, and an
import refuses a file whose text no longer matches it.

`shift_dates` moves every calendar date of an envelope by a number of days (the
demo's dates follow the day it is installed on).
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, replace
from datetime import date, timedelta
from typing import Any

from memtier.formats.routing import Invalid
from memtier.results import Record
from memtier.workspace import EPISODIC_DIR, MEMORY_DIR

FORMAT = "memtier-export"
VERSION = 1
_NOTE_PATH = re.compile(rf"{MEMORY_DIR}/{EPISODIC_DIR}/(\d{{4}}-\d\d-\d\d)\.md")
_DATE = re.compile(r"(?<!\d)(\d{4})-(\d\d)-(\d\d)(?!\d)")


class EnvelopeError(ValueError):
    """The document is not a memtier export at all."""


@dataclass(frozen=True)
class ExportedFile(Record):
    path: str  # relative to the workspace root, forward slashes
    tier: str
    text: str

    @property
    def data(self) -> bytes:
        return self.text.encode("utf-8")

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.data).hexdigest()

    def json_extra(self) -> dict[str, str]:
        return {"sha256": self.sha256}


def build_envelope(files: list[ExportedFile], exported_at: str) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "version": VERSION,
        "exported_at": exported_at,
        "files": [f.to_json() for f in files],
    }


def dump_envelope(envelope: dict[str, Any]) -> str:
    return json.dumps(envelope, ensure_ascii=False, indent=2) + "\n"


def _exported_file(ref: str, raw: object) -> ExportedFile | Invalid:
    if not isinstance(raw, dict):
        return Invalid(ref, "not a JSON object")
    path, tier, text, sha = (raw.get(k) for k in ("path", "tier", "text", "sha256"))
    if not isinstance(path, str) or not path:
        return Invalid(ref, "no 'path'")
    ref = path
    if not isinstance(text, str):
        return Invalid(ref, "no 'text'")
    if not isinstance(tier, str):
        return Invalid(ref, "no 'tier'")
    parts = path.split("/")
    if path.startswith("/") or "\\" in path or any(p in ("", ".", "..") for p in parts):
        return Invalid(ref, "path is not a plain relative path")
    exported = ExportedFile(path=path, tier=tier, text=text)
    if sha is not None and sha != exported.sha256:
        return Invalid(ref, "sha256 does not match the text")
    return exported


def parse_envelope(text: str) -> tuple[list[ExportedFile], list[Invalid]]:
    """The files of an export; `EnvelopeError` when *text* is not an export document."""
    from memtier.formats.sources_json import load_json

    try:
        document = load_json(text)  # bounded depth and numbers (PROTOCOL §12 v3)
    except json.JSONDecodeError as exc:
        raise EnvelopeError(f"not JSON ({exc.msg} at line {exc.lineno})") from None
    except ValueError as exc:
        raise EnvelopeError(f"not JSON within bounds ({exc})") from None
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise EnvelopeError(f'not a memtier export (expected "format": "{FORMAT}")')
    if document.get("version") != VERSION or isinstance(document.get("version"), bool):
        shown = repr(document.get("version"))[:40]
        raise EnvelopeError(f"unsupported export version {shown}")
    raw_files = document.get("files")
    if not isinstance(raw_files, list):
        raise EnvelopeError("'files' is not a list")
    files: list[ExportedFile] = []
    invalid: list[Invalid] = []
    seen: set[str] = set()
    for number, raw in enumerate(raw_files, start=1):
        found = _exported_file(f"file {number}", raw)
        if isinstance(found, ExportedFile) and found.path in seen:
            found = Invalid(found.path, "listed twice")
        if isinstance(found, Invalid):
            invalid.append(found)
        else:
            seen.add(found.path)
            files.append(found)
    return files, invalid


def _shift_text(text: str, days: int) -> str:
    def moved(match: re.Match[str]) -> str:
        try:
            day = date(int(match.group(1)), int(match.group(2)), int(match.group(3)))
        except ValueError:
            return match.group(0)
        return (day + timedelta(days=days)).isoformat()

    return _DATE.sub(moved, text)


def shift_dates(files: list[ExportedFile], days: int) -> list[ExportedFile]:
    """Every calendar date in the paths and texts of *files*, moved by *days*."""
    if days == 0:
        return list(files)
    return [
        replace(f, path=_shift_text(f.path, days), text=_shift_text(f.text, days)) for f in files
    ]


def newest_note_day(files: list[ExportedFile]) -> date | None:
    """The date of the newest episodic note in *files*."""
    days = []
    for f in files:
        found = _NOTE_PATH.fullmatch(f.path)
        if found:
            days.append(date.fromisoformat(found.group(1)))
    return max(days, default=None)
