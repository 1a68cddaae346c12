"""The realistic corpus (tests/secrets_corpus.py): every credential shape is redacted
before it reaches disk and found by health-check; every prose near-miss is kept
(PROTOCOL §3, §6; issue 19). ``bench/secrets`` prints the same corpus as a table."""

from __future__ import annotations

import re
from datetime import UTC
from pathlib import Path

import pytest

from memtier.secrets import detect, redact, redact_folded
from tests.secrets_corpus import NEAR_MISSES, SHAPES, Shape


def _secret(shape: Shape) -> str:
    """The part that must vanish: given, else the longest word of the text."""
    return shape.secret or max(re.split(r"[\s\"']+", shape.text), key=len)


def test_the_corpus_is_large_enough() -> None:
    assert len(SHAPES) >= 60
    assert len(NEAR_MISSES) >= 40
    assert len({s.label for s in SHAPES}) == len(SHAPES)
    assert len({label for label, _ in NEAR_MISSES}) == len(NEAR_MISSES)


@pytest.mark.parametrize("shape", SHAPES, ids=[s.label for s in SHAPES])
def test_every_shape_is_redacted(shape: Shape) -> None:
    result = redact_folded(shape.text) if shape.folded else redact(shape.text)
    secret = _secret(shape)
    assert len(secret) >= 4
    assert result.counts, shape.label
    assert secret not in result.text, (shape.label, result.text)
    assert "[REDACTED:" in result.text


@pytest.mark.parametrize("shape", [s for s in SHAPES if not s.folded], ids=lambda s: s.label)
def test_every_unwrapped_shape_is_detected_where_it_stands(shape: Shape) -> None:
    # health-check's scan reads files as they are: the same rules must fire there.
    assert detect("# Notes\n\n- " + shape.text + "\n")


@pytest.mark.parametrize(("label", "text"), NEAR_MISSES, ids=[m[0] for m in NEAR_MISSES])
def test_every_near_miss_is_kept(label: str, text: str) -> None:
    assert redact(text).text == text, label
    assert redact_folded(text).counts == {}, label
    assert detect(text) == [], label


@pytest.mark.parametrize("engine", ["python", "ripgrep"])
def test_health_check_fails_on_every_shape(
    tmp_path: Path, engine: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The ``secrets`` check of health-check uses the very same rules (PROTOCOL §6),
    whether Python scans every note or ripgrep's prefilter picks them first."""
    from memtier.health import secrets_scan
    from memtier.health.secrets_scan import secrets_checks
    from memtier.workspace import Workspace

    if engine == "ripgrep":
        if secrets_scan._ripgrep() is None:
            pytest.skip("ripgrep not installed")
        monkeypatch.setattr(secrets_scan, "RG_MIN_NOTES", 1)

    note = tmp_path / "memory" / "episodic" / "2026-11-30.md"
    note.parent.mkdir(parents=True)
    shapes = [s for s in SHAPES if not s.folded]
    note.write_text("# 2026-11-30\n\n" + "\n".join(f"- {s.text}" for s in shapes) + "\n")
    (tmp_path / "memory" / "episodic" / "2026-11-29.md").write_text(
        "# 2026-11-29\n\n" + "\n".join(f"- {text}" for _, text in NEAR_MISSES) + "\n"
    )
    from datetime import datetime

    checks = secrets_checks(Workspace(tmp_path, datetime(2026, 11, 30, tzinfo=UTC)))
    failed_lines = {c.message.split(" — ")[0] for c in checks if c.status == "fail"}
    expected = {f"memory/episodic/2026-11-30.md:{n}" for n in range(3, 3 + len(shapes))}
    assert failed_lines == expected
