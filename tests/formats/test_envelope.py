"""memtier.formats.envelope: the export document (PROTOCOL §12): build, parse, shift dates."""

from __future__ import annotations

from datetime import date

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memtier.formats.envelope import (
    EnvelopeError,
    ExportedFile,
    build_envelope,
    dump_envelope,
    newest_note_day,
    parse_envelope,
    shift_dates,
)


def test_envelope_rejects_what_is_not_an_export() -> None:
    for text in ("nope", "[]", '{"format": "other"}', '{"format": "memtier-export", "version": 9}'):
        with pytest.raises(EnvelopeError):
            parse_envelope(text)


def test_shift_dates_moves_paths_and_text_and_keeps_impossible_dates() -> None:
    files = [ExportedFile("memory/episodic/2026-11-29.md", "cold", "# 2026-11-29\n2026-13-01\n")]
    (moved,) = shift_dates(files, 2)
    assert moved.path == "memory/episodic/2026-12-01.md"
    assert moved.text == "# 2026-12-01\n2026-13-01\n"


texts = st.text(st.characters(codec="utf-8", exclude_characters="\x00"), max_size=80)


@settings(max_examples=30, derandomize=True)
@given(st.lists(st.tuples(st.from_regex(r"[a-z]{1,8}\.md", fullmatch=True), texts), max_size=4))
def test_envelope_round_trip_keeps_every_character(pairs: list[tuple[str, str]]) -> None:
    files = [ExportedFile(f"memory/semantic/{n}", "warm", "\ufeff" + t + "\r\n") for n, t in pairs]
    unique = list({f.path: f for f in files}.values())
    parsed, invalid = parse_envelope(dump_envelope(build_envelope(unique, "2026-11-30")))
    assert not invalid
    assert [(f.path, f.data) for f in parsed] == [(f.path, f.data) for f in unique]


def test_envelope_reports_bad_entries_and_keeps_good_ones() -> None:
    good = ExportedFile("MEMORY.md", "hot", "# M\n")
    envelope = build_envelope([good], "2026-11-30")
    envelope["files"] += [
        {"path": "../escape.md", "tier": "hot", "text": "x"},
        {"path": "a.md", "tier": "warm", "text": "x", "sha256": "0" * 64},
        {"path": "MEMORY.md", "tier": "hot", "text": "# M\n"},
        "not an object",
    ]
    files, invalid = parse_envelope(dump_envelope(envelope))
    assert files == [good]
    assert [(i.ref, i.why) for i in invalid] == [
        ("../escape.md", "path is not a plain relative path"),
        ("a.md", "sha256 does not match the text"),
        ("MEMORY.md", "listed twice"),
        ("file 5", "not a JSON object"),
    ]


def test_a_boolean_version_is_not_version_1() -> None:
    with pytest.raises(EnvelopeError, match="unsupported export version"):
        parse_envelope('{"format": "memtier-export", "version": true, "files": []}')


def test_newest_note_day_looks_at_episodic_notes_only() -> None:
    files = [
        ExportedFile("memory/episodic/2026-11-01.md", "cold", ""),
        ExportedFile("memory/episodic/2026-11-20.md", "cold", ""),
        ExportedFile("memory/archive/2026/12/2026-12-31.md", "archive", ""),
    ]
    assert newest_note_day(files) == date(2026, 11, 20)
    assert newest_note_day([]) is None
    assert shift_dates(files, 0) == files
