"""memtier.commands.recurrence: a lesson seen `recurrence_threshold` times is flagged
once, on its first line (PROTOCOL §8 step 7), and listed as a candidate."""

from __future__ import annotations

from memtier.commands.recurrence import find_candidates, flag_recurring, scratch_paths
from memtier.workspace import Workspace


def _append(ws: Workspace, name: str, *lines: str) -> None:
    path = ws.learnings_dir / name
    path.write_text(path.read_text() + "".join(f"{line}\n" for line in lines))


def _line(ws: Workspace, name: str, number: int) -> str:
    return (ws.learnings_dir / name).read_text().split("\n")[number - 1]


def test_the_third_occurrence_across_both_files_flags_the_first(ws: Workspace) -> None:
    _append(ws, "ERRORS.md", "- 2026-11-28 Rate limit hit!")
    _append(ws, "LEARNINGS.md", "- 2026-11-29 rate-limit hit", "- rate limit HIT")
    first = len((ws.learnings_dir / "ERRORS.md").read_text().split("\n")) - 1
    (flag,) = flag_recurring(ws)
    assert (flag.file, flag.line, flag.count) == (".learnings/ERRORS.md", first, 3)
    assert flag.text == "Rate limit hit!"
    assert _line(ws, "ERRORS.md", first) == "- 2026-11-28 Rate limit hit! [PROMOTE-CANDIDATE]"
    # Once flagged, never again.
    assert flag_recurring(ws) == ()
    assert _line(ws, "ERRORS.md", first).count("[PROMOTE-CANDIDATE]") == 1


def test_below_the_threshold_nothing_changes(ws: Workspace) -> None:
    _append(ws, "ERRORS.md", "- rate limit", "- rate limit")
    before = (ws.learnings_dir / "ERRORS.md").read_bytes()
    assert flag_recurring(ws) == ()
    assert (ws.learnings_dir / "ERRORS.md").read_bytes() == before


def test_a_lesson_already_in_warm_memory_is_not_flagged(ws: Workspace) -> None:
    warm = ws.memory_dir / "procedural" / "lessons-learned.md"
    warm.write_text(warm.read_text() + "- rate limit\n")
    _append(ws, "ERRORS.md", "- rate limit", "- rate limit", "- rate limit")
    assert flag_recurring(ws) == ()


def test_other_scratch_files_do_not_count_toward_recurrence(ws: Workspace) -> None:
    _append(ws, "FEATURE_REQUESTS.md", "- rate limit", "- rate limit", "- rate limit")
    assert flag_recurring(ws) == ()


def test_candidates_are_numbered_in_file_order_with_hand_set_flags(ws: Workspace) -> None:
    (ws.learnings_dir / "zz-extra.md").write_text("# x\n- typed by hand [PROMOTE-CANDIDATE]\n")
    _append(ws, "ERRORS.md", "- 2026-11-30 restart first [PROMOTE-CANDIDATE] #pinned")
    result = find_candidates(ws)
    assert [(c.number, c.file, c.lesson) for c in result.candidates] == [
        (1, ".learnings/ERRORS.md", "restart first"),
        (2, ".learnings/zz-extra.md", "typed by hand"),
    ]
    assert result.to_json()["candidates"][0]["text"].endswith("#pinned")
    assert [p.name for p in scratch_paths(ws)][-1] == "zz-extra.md"


def test_an_unreadable_scratch_file_is_a_warning(ws: Workspace) -> None:
    (ws.learnings_dir / "bad.md").write_bytes(b"caf\xe9\n")
    result = find_candidates(ws)
    assert result.candidates == ()
    assert len(result.warnings) == 1 and "bad.md: not UTF-8" in result.warnings[0]
    assert list(result.text_lines()) == ["No promotion candidates"]
