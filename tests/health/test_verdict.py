"""memtier.health.verdict: one verdict of PROTOCOL §6 and what is shown under it."""

from __future__ import annotations

from memtier.health.verdict import FAIL, PASS, WARN, Check


def test_a_pass_shows_nothing_under_it_even_verbose() -> None:
    check = Check("hot.header", PASS, "MEMORY.md", "ok", detail=("d",), hint="memtier verify")
    assert check.under(verbose=True) == ()
    assert check.to_json(verbose=True)["detail"] == []


def test_a_failure_shows_its_hint_and_with_verbose_its_detail_first() -> None:
    check = Check("warm.stale", FAIL, "a.md", "stale", detail=("d1", "d2"), hint="memtier verify")
    assert check.under(verbose=False) == ("memtier verify",)
    assert check.under(verbose=True) == ("d1", "d2", "memtier verify")
    warning = Check("x", WARN, None, "w", detail=("d",))
    assert warning.under(verbose=False) == ()
    assert warning.under(verbose=True) == ("d",)


def test_json_keys_are_pinned_and_detail_only_when_verbose() -> None:
    check = Check("secrets", FAIL, "a.md", "a.md:3 — credential found (X)", detail=("why",))
    assert check.to_json() == {
        "id": "secrets",
        "status": "fail",
        "path": "a.md",
        "message": "a.md:3 — credential found (X)",
    }
    assert check.to_json(verbose=True)["detail"] == ["why"]
