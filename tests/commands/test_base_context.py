"""The base context fitted to a budget, most useful first (PROTOCOL §4 step 7, §11)."""

from __future__ import annotations

from pathlib import Path

from memtier.commands.base_context import ContextPart, fit_context, last_open
from memtier.workspace import Workspace

CLOSED = "Updated: {d}\nDecisions: d\nSignal: s\nOpen: {o}\n"


def _parts() -> list[ContextPart]:
    return [
        ContextPart("MEMORY.md", "MEMORY.md", "".join(f"- hot {n}\n" for n in range(100))),
        ContextPart("buffer", "memory/working-buffer.md", "- task\n"),
        ContextPart("open", "memory/episodic/2026-11-27.md", "Open: x", None, heading=False),
    ]


def test_no_budget_shows_everything_in_order() -> None:
    fitted = fit_context(["head"], _parts(), ["", "tail"], None)
    assert not fitted.truncated
    assert fitted.lines[0] == "head" and fitted.lines[-1] == "tail"
    assert fitted.lines.index("===== MEMORY.md =====") < fitted.lines.index("===== buffer =====")


def test_a_cut_part_names_the_lines_to_read_next_and_what_ranks_after_it_is_left_out() -> None:
    """The part the budget ends in is cut; the parts after it are named, not squeezed in
    beside it (MEMORY.md is cut last, PROTOCOL §11 v4)."""
    fitted = fit_context(["head"], _parts(), ["", "tail"], 1000)
    text = "\n".join(fitted.lines)
    assert len(text) <= 1000
    cut = fitted.cuts[0]
    assert cut.path == "MEMORY.md" and 0 < cut.shown < 100 == cut.total
    assert cut.more == f"memtier get MEMORY.md:{cut.shown + 1}-100"
    assert f"[cut: {cut.shown} of 100 lines shown; the rest: {cut.more}]" in text
    assert "- task" not in text and "Open: x" not in text
    names = "memory/working-buffer.md, memory/episodic/2026-11-27.md"
    assert f"[not shown, over the 1000-character budget: {names}]" in text
    assert fitted.lines[-1] == "tail"


def test_the_least_needed_part_is_cut_first_whatever_its_place() -> None:
    """Ranks, not places, decide the cut: here the buffer (rank 2) gives way before the
    Open: line (rank 1) shown after it, and MEMORY.md (rank 0) keeps every line."""
    parts = [
        ContextPart("MEMORY.md", "MEMORY.md", "".join(f"- hot {n}\n" for n in range(10)), rank=0),
        ContextPart("buffer", "memory/working-buffer.md", "- note\n" * 200, rank=2),
        ContextPart(
            "open", "memory/episodic/2026-11-27.md", "Open: x", None, heading=False, rank=1
        ),
    ]
    fitted = fit_context([], parts, [], 1000)
    text = "\n".join(fitted.lines)
    assert "- hot 9" in text and "Open: x" in text
    assert [(c.path, c.shown > 0) for c in fitted.cuts] == [("memory/working-buffer.md", True)]
    assert text.index("===== buffer") < text.index("Open: x")  # shown in its place


def test_a_file_two_parts_show_is_named_once() -> None:
    parts = [
        ContextPart("MEMORY.md", "MEMORY.md", "- hot\n" * 300),
        ContextPart(
            "open", "memory/episodic/2026-11-30.md", "Open: " + "x" * 500, None, heading=False
        ),
        ContextPart("today", "memory/episodic/2026-11-30.md", "- a\n" * 50),
    ]
    fitted = fit_context([], parts, [], 800)
    assert fitted.lines[-1].endswith("budget: memory/episodic/2026-11-30.md]")


def test_parts_that_do_not_fit_at_all_are_named() -> None:
    parts = [ContextPart(f"f{n}", f"f{n}.md", "x" * 300 + "\n") for n in range(6)]
    fitted = fit_context([], parts, [], 900)
    assert len("\n".join(fitted.lines)) <= 900
    left_out = [c.path for c in fitted.cuts if c.shown == 0]
    assert left_out and fitted.lines[-1].startswith("[not shown, over the 900-character budget: ")
    assert all(name in fitted.lines[-1] for name in left_out)


def test_last_open_is_the_newest_closed_note_up_to_today(ws: Workspace, root: Path) -> None:
    episodic = root / "memory/episodic"
    (episodic / "2026-11-02.md").write_text(CLOSED.format(d="2026-11-02", o="old"))
    (episodic / "2026-11-21.md").write_text(CLOSED.format(d="2026-11-21", o="renew cert"))
    (episodic / "2026-11-25.md").write_text("# 2026-11-25\n- no closure yet\n")
    (episodic / "2026-12-05.md").write_text(CLOSED.format(d="2026-12-05", o="future"))
    found = last_open(ws)
    assert found is not None
    assert (found.day, found.open) == ("2026-11-21", "renew cert")
    assert found.path == "memory/episodic/2026-11-21.md"


def test_last_open_without_notes(ws: Workspace) -> None:
    assert last_open(ws) is None


def test_after_an_absence_the_last_sessions_block_comes_from_the_archive(
    ws: Workspace, root: Path
) -> None:
    """Issue 21: after 40 days the context held only an Open: line. PROTOCOL §4 step 7
    v3: the newest note's whole block with its date, also when the review archived it
    and wrote notes of its own meanwhile."""
    from memtier.commands.session_start import session_start

    archived = root / "memory/archive/2026/10"
    archived.mkdir(parents=True)
    (archived / "2026-10-20.md").write_text(
        "# 2026-10-20\nUpdated: 2026-10-20\nDecisions: moved qdrant to host b\n"
        "Signal: apt mirror is slow\nOpen: upgrade grafana\n"
    )
    (root / "memory/episodic/2026-11-23.md").write_text(
        "# 2026-11-23\nUpdated: 2026-11-23\nDecisions: weekly review performed: archived 3 "
        "episodic notes\nSignal: s\nOpen: none\n"
    )
    found = last_open(ws)
    assert found is not None and found.day == "2026-10-20"
    assert found.path == "memory/archive/2026/10/2026-10-20.md"
    text = "\n".join(session_start(ws).text_lines())
    title = "===== last closed note: 2026-10-20 (41 days ago), memory/archive/2026/10/2026-10-20.md"
    assert title in text
    block = "Updated: 2026-10-20\nDecisions: moved qdrant to host b\n"
    assert block + "Signal: apt mirror is slow\nOpen: upgrade grafana\n" in text


def test_one_day_is_said_in_the_singular(ws: Workspace, root: Path) -> None:
    from datetime import date

    (root / "memory/episodic/2026-11-28.md").write_text(CLOSED.format(d="2026-11-28", o="x"))
    found = last_open(ws)
    assert found is not None
    assert "(2 days ago)" in found.title(date(2026, 11, 30))
    assert "(1 day ago)" in found.title(date(2026, 11, 29))
