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


def test_a_cut_part_names_the_lines_to_read_next_and_short_parts_still_show() -> None:
    fitted = fit_context(["head"], _parts(), ["", "tail"], 1000)
    text = "\n".join(fitted.lines)
    assert len(text) <= 1000
    cut = fitted.cuts[0]
    assert cut.path == "MEMORY.md" and 0 < cut.shown < 100 == cut.total
    assert cut.more == f"memtier get MEMORY.md:{cut.shown + 1}-100"
    assert f"[cut: {cut.shown} of 100 lines shown; the rest: {cut.more}]" in text
    assert "- task" in text and "Open: x" in text
    assert fitted.lines[-1] == "tail"


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
