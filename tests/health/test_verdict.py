"""memtier.health.verdict: one verdict of PROTOCOL §6 and what is shown under it."""

from __future__ import annotations

from memtier.errors import Term
from memtier.health.verdict import FAIL, PASS, WARN, Check

VERIFY = ("fix: ", Term("verify", arg="a.md"))


def test_a_pass_shows_nothing_under_it_even_verbose() -> None:
    check = Check("hot.header", PASS, "MEMORY.md", "ok", detail=("d",), fix=VERIFY)
    assert check.under(verbose=True) == ()
    assert check.to_json(verbose=True)["detail"] == []


def test_a_failure_shows_its_fix_and_with_verbose_its_detail_first() -> None:
    check = Check("warm.stale", FAIL, "a.md", "stale", detail=("d1", "d2"), fix=VERIFY)
    assert check.under(verbose=False) == ("fix: memtier verify a.md",)
    assert check.under(verbose=True) == ("d1", "d2", "fix: memtier verify a.md")
    warning = Check("x", WARN, None, "w", detail=("d",))
    assert warning.under(verbose=False) == ()
    assert warning.under(verbose=True) == ("d",)


def test_the_fix_is_named_once_and_worded_by_the_face() -> None:
    """PROTOCOL §6 (v4): the core names the operation; each face words it."""
    from memtier.mcp.words import tool_words

    check = Check("warm.fresh", FAIL, "a.md", "stale", fix=VERIFY)
    assert check.fix_text() == "fix: memtier verify a.md"
    assert check.fix_text(tool_words) == "fix: memory_verify(files=['a.md'])"
    assert check.under(verbose=False, words=tool_words) == ("fix: memory_verify(files=['a.md'])",)


def test_json_keys_are_pinned_and_detail_only_when_verbose() -> None:
    check = Check("secrets", FAIL, "a.md", "a.md:3 — credential found (X)", detail=("why",))
    assert check.to_json() == {
        "id": "secrets",
        "status": "fail",
        "path": "a.md",
        "message": "a.md:3 — credential found (X)",
    }
    assert check.to_json(verbose=True)["detail"] == ["why"]
