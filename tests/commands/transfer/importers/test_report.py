"""importers.report: every item ends as one outcome (PROTOCOL §12)."""

from __future__ import annotations

from memtier.commands.transfer.importers.report import DUPLICATE, ImportResult, imported, skipped


def _result(dry_run: bool) -> ImportResult:
    return ImportResult(
        "brain",
        "store.jsonl",
        dry_run,
        (
            imported("line 1", "memory/semantic/infrastructure.md", "infrastructure (tag 'x')"),
            imported("line 2", "memory/semantic/infrastructure.md"),
            skipped("line 3", DUPLICATE),
            skipped("line 4", "invalid: no 'text'"),
            skipped("line 5", "invalid: not JSON"),
        ),
    )


def test_counts_reasons_and_homes() -> None:
    result = _result(dry_run=False)
    assert (result.imported_count, result.skipped_count) == (2, 3)
    assert result.reasons() == {"duplicate": 1, "invalid": 2}
    assert result.homes() == {"memory/semantic/infrastructure.md": 2}
    payload = result.to_json()
    assert (payload["items"], payload["imported"], payload["skipped"]) == (5, 2, 3)
    assert payload["outcomes"][2] == {
        "item": "line 3",
        "status": "skipped",
        "home": None,
        "reason": "duplicate",
        "route": None,
    }


def test_a_real_run_names_the_skips_and_sums_the_homes() -> None:
    lines = list(_result(dry_run=False).text_lines())
    assert "  - line 4: skipped (invalid: no 'text')" in lines
    assert not any(line.startswith("  + ") for line in lines)
    assert "memory/semantic/infrastructure.md: 2 item(s)" in lines
    assert lines[-1] == ("imported 2 of 5 item(s) from brain; skipped 3 (1 duplicate, 2 invalid)")


def test_a_dry_run_prints_the_whole_plan() -> None:
    lines = list(_result(dry_run=True).text_lines())
    assert lines[0] == ("  + line 1 → memory/semantic/infrastructure.md [infrastructure (tag 'x')]")
    assert lines[-1].startswith("dry run: nothing written; would import 2 of 5")
