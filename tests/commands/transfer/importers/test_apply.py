"""importers.apply: the plan of an import, each fact with its home
(PROTOCOL §12 v3)."""

from __future__ import annotations

from datetime import date

from memtier.commands.facts.files import DuplicateFactError
from memtier.commands.transfer.importers.apply import plan, refusal_reason
from memtier.errors import InputError, RefusedError
from memtier.formats.routing import Parsed, SourceItem
from memtier.workspace import Workspace


def test_a_durable_fact_keeps_its_date_and_tags_in_its_text(ws: Workspace) -> None:
    item = SourceItem("line 1", ("NAS on UPS",), tags=("docker", "Home Lab"), day=date(2026, 5, 1))
    (entry,) = plan(ws, Parsed([item]))
    assert entry.target == "memory/semantic/infrastructure.md"
    assert entry.lines == ("NAS on UPS (2026-05-01) #docker #home-lab",)


def test_events_go_to_their_day_and_unrouted_items_to_today(ws: Workspace) -> None:
    event = SourceItem("line 1", ("met Ann",), kind="note", day=date(2026, 3, 4))
    stray = SourceItem("line 2", ("something",), kind="flatmate")
    first, second = plan(ws, Parsed([event, stray]))
    assert (first.target, first.lines) == ("note:2026-03-04", ("met Ann",))
    assert second.target == "note:2026-11-30"


def test_several_facts_of_one_item_are_numbered_and_a_howto_gets_its_file(ws: Workspace) -> None:
    item = SourceItem("notes.md", ("a", "b"), tags=("runbook", "Restic Backup"))
    entries = plan(ws, Parsed([item]))
    assert [(e.index, e.ref) for e in entries] == [(0, "notes.md #1"), (1, "notes.md #2")]
    assert {e.target for e in entries} == {"memory/procedural/restic-backup.md"}


def test_a_file_name_ref_is_redacted_but_memtiers_own_ref_is_not(ws: Workspace) -> None:
    token = "gh" + "p_" + "x1Y2" * 9
    entries = plan(ws, Parsed([SourceItem(f"{token}.md", ("x",), kind="user")]))
    assert token not in entries[0].ref


def test_refusal_reasons() -> None:
    dup = DuplicateFactError("x", file="a.md", line=1, existing="x", score=1.0)
    assert refusal_reason(dup) == "duplicate"
    assert refusal_reason(RefusedError("over the cap")) == "refused: over the cap"
    assert refusal_reason(InputError("empty")) == "invalid: empty"
