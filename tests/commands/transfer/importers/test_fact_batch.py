"""memtier.commands.transfer.importers.fact_batch: a chunk of facts into one fact file, judged
against one table, written once (PROTOCOL §10, §12 v3 "Scale")."""

from __future__ import annotations

from memtier.commands.transfer.importers.fact_batch import FactBatch, build_table
from memtier.commands.transfer.importers.planned import Planned
from memtier.formats.routing import Route, SourceItem
from memtier.workspace import Workspace

INFRA = "memory/semantic/infrastructure.md"


def _entry(text: str, ref: str = "line 1") -> Planned:
    item = SourceItem(ref, (text,))
    return Planned(0, ref, item, Route("infrastructure", "tag 'nas'"), (text,), INFRA, clean=text)


def test_new_facts_are_added_once_and_a_repeat_in_the_chunk_is_a_duplicate(ws: Workspace) -> None:
    table = build_table(ws)
    batch = FactBatch(ws, INFRA, table, {})
    outcomes = batch.apply([_entry("nas01 on UPS", "a"), _entry("NAS01 on UPS!", "b")])
    assert [(o.item, o.status, o.reason) for o in outcomes] == [
        ("a", "imported", None),
        ("b", "skipped", "duplicate"),
    ]
    text = (ws.root / INFRA).read_text()
    assert text.count("nas01 on UPS") == 1 and text.endswith("- nas01 on UPS\n")
    assert text.split("\n")[2] == "> last_verified: 2026-11-30"


def test_a_file_changed_since_the_table_was_built_is_read_again(ws: Workspace) -> None:
    table = build_table(ws)
    path = ws.root / INFRA
    path.write_text(path.read_text() + "- router at 10.0.0.1\n")  # a person's edit meanwhile
    outcomes = FactBatch(ws, INFRA, table, {}).apply([_entry("router at 10.0.0.1")])
    assert [o.reason for o in outcomes] == ["duplicate"]
    assert path.read_text().count("router at 10.0.0.1") == 1


def test_a_dry_run_writes_nothing(ws: Workspace) -> None:
    before = (ws.root / INFRA).read_bytes()
    outcomes = FactBatch(ws, INFRA, build_table(ws), {}, dry_run=True).apply([_entry("new")])
    assert [o.status for o in outcomes] == ["imported"]
    assert (ws.root / INFRA).read_bytes() == before


def test_a_missing_semantic_file_refuses_the_chunk(ws: Workspace) -> None:
    rel = "memory/semantic/gone.md"
    outcomes = FactBatch(ws, rel, build_table(ws), {}).apply([_entry("x")])
    assert outcomes[0].reason is not None and outcomes[0].reason.startswith("refused: ")
    assert "no such file" in outcomes[0].reason


def test_a_new_procedural_file_gets_a_header(ws: Workspace) -> None:
    rel = "memory/procedural/restic-backup.md"
    FactBatch(ws, rel, build_table(ws), {}).apply([_entry("run restic check weekly")])
    lines = (ws.root / rel).read_text().split("\n")
    assert lines[0].startswith("# ") and lines[1].startswith("#tags:")
    assert lines[-2] == "- run restic check weekly"
