"""consolidate's rules as plain functions, fixed clock (PROTOCOL §13): what a generation
keeps, what it carries forward, the summary's limits, the arguments, never rewriting."""

from __future__ import annotations

from datetime import timedelta

import pytest

from memtier.commands.topics.consolidate import (
    EVIDENCE_PER_DAY,
    Plan,
    clean_summary,
    consolidate,
    write_generation,
)
from memtier.commands.topics.index import index_add
from memtier.errors import InputError, RefusedError
from memtier.workspace import Workspace
from tests.conftest import NOW
from tests.protocol.s13_support import note


def _nas(ws: Workspace) -> None:
    index_add(ws, "nas", "projects", ["nas01"])


def _later(ws: Workspace, days: int) -> Workspace:
    return Workspace.open(ws.root, NOW + timedelta(days=days))


def test_evidence_is_capped_per_day_not_per_generation(ws: Workspace) -> None:
    many = [f"- nas01 check {n}" for n in range(EVIDENCE_PER_DAY + 5)]
    note(ws.root, "2026-11-20", *many)
    note(ws.root, "2026-11-21", "- nas01 rebooted")
    _nas(ws)
    gen = consolidate(ws, "nas", plan_only=True).plans[0].generation
    per_day = [c.path for c in gen.evidence]
    assert per_day.count("memory/episodic/2026-11-20.md") == EVIDENCE_PER_DAY
    assert per_day.count("memory/episodic/2026-11-21.md") == 1
    assert [c.line for c in gen.evidence][:2] == [3, 4]  # each cites its note line


def test_a_decision_repeated_on_later_days_is_cited_once_at_its_first(ws: Workspace) -> None:
    note(ws.root, "2026-11-20", "- nas01 a", closure="nas01 gets zfs; buy milk|none")
    note(ws.root, "2026-11-22", "- nas01 b", closure="nas01 gets zfs|none")
    _nas(ws)
    gen = consolidate(ws, "nas", plan_only=True).plans[0].generation
    assert [(c.text, c.path) for c in gen.decisions] == [
        ("nas01 gets zfs", "memory/episodic/2026-11-20.md")
    ]


def test_a_note_without_a_valid_closure_gives_evidence_but_no_decision(ws: Workspace) -> None:
    path = note(ws.root, "2026-11-20", "- nas01 a", closure="nas01 gets zfs|nas01 test")
    path.write_text(path.read_text() + "text after the block\n")
    _nas(ws)
    gen = consolidate(ws, "nas", plan_only=True).plans[0].generation
    assert (gen.decisions, gen.open) == ((), ())
    assert [c.text for c in gen.evidence] == [
        "nas01 a",  # its bullet dropped: the Evidence line is an item already (§2 v4)
        "Decisions: nas01 gets zfs",
        "Open: nas01 test",
    ]


def test_carried_forward_keeps_old_decisions_and_drops_open_items_closed_later(
    ws: Workspace,
) -> None:
    note(ws.root, "2026-11-20", "- nas01 a", closure="nas01 gets zfs|nas01 scrub; nas01 fan")
    _nas(ws)
    consolidate(ws, "nas")
    later = _later(ws, 3)
    # "nas01 fan" is left off the later Open: closed; "nas01 scrub" stays open there.
    note(ws.root, "2026-11-30", "- nas01 c", closure="none|nas01 scrub")
    gen = consolidate(later, "nas", plan_only=True).plans[0].generation
    carried = [(c.kind, c.text) for c in gen.carried]
    assert carried == [("decision", "nas01 gets zfs")]
    assert [c.text for c in gen.open] == ["nas01 scrub"]
    assert gen.number == 2 and gen.previous == "memory/consolidated/nas-gen1-2026-11-30.md"


def test_nothing_new_is_refused_today_excluded(ws: Workspace) -> None:
    note(ws.root, "2026-11-30", "- nas01 today")  # today's note is still changing
    _nas(ws)
    with pytest.raises(RefusedError, match="no new day to consolidate"):
        consolidate(ws, "nas")


@pytest.mark.parametrize(
    ("slug", "kw", "message"),
    [
        (None, {}, "give a topic SLUG or --due"),
        ("nas", {"due": True}, "give a topic SLUG or --due"),
        (None, {"due": True, "summary": "s", "plan_id": "p-1"}, "need a topic SLUG"),
        ("nas", {"summary": "s"}, "--summary needs the --plan-id"),
        ("nope", {}, "no topic 'nope' in the index"),
    ],
)
def test_arguments_that_do_not_fit_are_input_errors(
    ws: Workspace, slug: str | None, kw: dict[str, object], message: str
) -> None:
    _nas(ws)
    with pytest.raises(InputError, match=message):
        consolidate(ws, slug, **kw)


@pytest.mark.parametrize(
    ("summary", "message"),
    [
        ("  \n\n", "the summary is empty"),
        ("x" * 41, "41 characters, at most 40"),
        ("fine\n  # heading", "no headings"),
        ("fine\nSignal: loud", "no closure lines"),
    ],
)
def test_a_summary_is_refused_empty_long_or_shaped_like_a_note(
    ws: Workspace, summary: str, message: str
) -> None:
    (ws.root / "memory" / "memtier.toml").write_text("summary_max_chars = 40\n")
    small = Workspace.open(ws.root, NOW)
    with pytest.raises(InputError, match=message):
        clean_summary(small, summary)


def test_a_summary_drops_blank_lines_and_is_redacted(ws: Workspace) -> None:
    text, counts = clean_summary(ws, "We chose zfs.\r\n\r\napi password=hunter2hunter2xyz\n")
    assert text == "We chose zfs.\napi password=[REDACTED:PASSWORD_ASSIGNMENT]"
    assert counts == {"PASSWORD_ASSIGNMENT": 1}


def test_a_summary_with_a_credential_split_across_lines_is_redacted(ws: Workspace) -> None:
    """PROTOCOL §3 v2: redaction runs again after folding, so a split credential is caught."""
    text, counts = clean_summary(ws, "We chose zfs.\npassword:\nhunter2hunter2xyz\n")
    assert counts == {"PASSWORD_ASSIGNMENT": 1}  # found, and said so ...
    assert "hunter2hunter2" not in text  # ... but kept


def test_a_taken_generation_name_is_never_overwritten(ws: Workspace) -> None:
    note(ws.root, "2026-11-20", "- nas01 a")
    _nas(ws)
    plan: Plan = consolidate(ws, "nas", plan_only=True).plans[0]
    write_generation(ws, plan)
    before = (ws.root / plan.path).read_bytes()
    with pytest.raises(RefusedError, match="never rewritten"):
        write_generation(ws, plan)
    assert (ws.root / plan.path).read_bytes() == before


def test_no_due_topic_is_said_plainly(ws: Workspace) -> None:
    _nas(ws)
    report = consolidate(ws, None, due=True)
    assert (report.plans, report.written) == ((), False)
    assert list(report.text_lines()) == ["no topic is due for consolidation"]
    assert report.to_json()["plan_id"] is None


def test_only_what_a_generation_shows_is_redacted(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 37: a plan redacted every decision of every covered note, the topic's
    or not, and the redaction was most of a plan's time at 10,000 notes. Only the
    lines a generation keeps are redacted now (each once); the plan is the same."""
    from memtier import secrets

    note(ws.root, "2026-11-20", "- nas01 a", closure="nas01 gets zfs; buy milk; call bob|none")
    note(ws.root, "2026-11-22", "- nas01 b", "- other work", closure="water plants|none")
    _nas(ws)
    redacted: list[str] = []
    redact = secrets.redact

    def counted(text: str) -> secrets.Redaction:
        redacted.append(text)
        return redact(text)

    monkeypatch.setattr(secrets, "redact", counted)
    gen = consolidate(ws, "nas", plan_only=True).plans[0].generation
    assert [c.text for c in gen.decisions] == ["nas01 gets zfs"]
    decided = "Decisions: nas01 gets zfs; buy milk; call bob"  # evidence: it names nas01
    assert sorted(redacted) == ["- nas01 a", "- nas01 b", decided, "nas01 gets zfs"]
