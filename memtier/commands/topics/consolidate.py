"""`memtier consolidate SLUG|--due [--plan] [--summary TEXT --plan-id ID]` (PROTOCOL §13).

The next generation of a topic is extractive and deterministic: the covered
days are its Dates after the current generation, today excluded; Decisions are
the matching closure ``Decisions:`` items, Open the matching items of the
newest covered day's ``Open:``, Evidence the matching lines (at most
`EVIDENCE_PER_DAY` a day), Carried forward what the previous generation
decided and left open that still stands. Every kept line cites its note line.
Nothing in the notes is changed or marked. A plan id is a hash of the sources
and the previous generation: a summary written against a plan whose sources
changed since is refused.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from memtier import store
from memtier.errors import InputError, RefusedError, Term
from memtier.formats.consolidated import (
    Cited,
    GenerationError,
    GenerationFile,
    evidence_text,
    generation_name,
    parse_generation,
    render_generation,
)
from memtier.formats.episodic import CLOSURE_FIELDS, ITEM_SEPARATOR, NONE, closure_problem
from memtier.formats.index import IndexEntry
from memtier.results import NO_REDACTIONS, Result
from memtier.store import checkpoint
from memtier.values import Fields, field
from memtier.workspace import Workspace

if TYPE_CHECKING:
    from memtier.commands.topics.notes import NoteFiles

EVIDENCE_PER_DAY = 20
# The parameters and the check the messages name; each face words them (§11 v3).
_TOPIC, _SUMMARY, _PLAN_ID, _HEALTH = (
    Term("topic"),
    Term("summary"),
    Term("plan_id"),
    Term("health"),
)


class Plan(Fields):
    generation: GenerationFile
    plan_id: str
    sources: tuple[str, ...]

    @property
    def path(self) -> str:
        return f"memory/consolidated/{self.generation.name}"


def _items(line: str, name: str) -> list[str]:
    value = line[len(name) :].strip()
    return [i.strip() for i in value.split(ITEM_SEPARATOR) if i.strip() and i.strip() != NONE]


def _closure_at(note: Any) -> int | None:
    """The 0-based index of the note's ``Updated:`` line when its closure block is valid."""
    text = "\n".join(note.lines) + "\n"
    return len(note.lines) - 4 if closure_problem(text) is None else None


def _previous(ws: Workspace, entry: IndexEntry) -> tuple[GenerationFile | None, str]:
    if entry.current is None:
        return None, ""
    try:
        text = store.read_text(ws.root / entry.current, root=ws.root)
        return parse_generation(text), text
    except (InputError, GenerationError) as exc:
        raise RefusedError(
            (f"{entry.current}: the current generation cannot be read ({exc}); run ", _HEALTH)
        ) from None


def plan_generation(ws: Workspace, entry: IndexEntry, notes: NoteFiles) -> Plan:
    """The generation consolidating *entry*'s new days now, and its plan id. Only
    the notes of those days are read."""
    from memtier.commands.topics.index import TopicMatcher, generations_on_disk, new_days
    from memtier.secrets import redact

    previous, previous_text = _previous(ws, entry)
    days = set(new_days(ws, entry))
    if not days:
        raise RefusedError(f"topic '{entry.slug}': no new day to consolidate (today is excluded)")
    covered = notes.of_days(days)
    matcher = TopicMatcher(entry)
    decisions: list[Cited] = []
    evidence: list[Cited] = []
    per_day: dict[str, int] = {}
    decided: set[str] = set()
    closures: list[tuple[Any, int]] = []
    for note in covered:
        at = _closure_at(note)
        for index, line in enumerate(note.lines):
            if matcher.matches(line) and per_day.get(note.day, 0) < EVIDENCE_PER_DAY:
                per_day[note.day] = per_day.get(note.day, 0) + 1
                evidence.append(Cited(evidence_text(redact(line).text), note.path, index + 1))
        if at is None:
            continue
        closures.append((note, at))
        for item in _items(note.lines[at + 1], CLOSURE_FIELDS[1]):
            if not matcher.matches(item):
                continue  # not the topic's: never shown, so never redacted
            text = redact(item).text
            if text not in decided:
                decided.add(text)  # a decision repeated on later days is cited once
                decisions.append(Cited(text, note.path, at + 2))
    open_items: list[Cited] = []
    if closures:
        newest_day = max(n.day for n, _ in closures)
        for note, at in closures:
            if note.day != newest_day:
                continue
            for item in _items(note.lines[at + 3], CLOSURE_FIELDS[3]):
                if matcher.matches(item):
                    open_items.append(Cited(redact(item).text, note.path, at + 4))
    carried = _carried(previous, decisions, open_items, closures)
    disk = generations_on_disk(ws).get(entry.slug, [])
    number = disk[-1].number + 1 if disk else 1
    generation = GenerationFile(
        slug=entry.slug,
        number=number,
        created=ws.today.isoformat(),
        covers=tuple(sorted({c.day for c in evidence})),
        previous=disk[-1].path if disk else None,
        summary=None,
        decisions=tuple(decisions),
        open=tuple(open_items),
        evidence=tuple(evidence),
        carried=carried,
    )
    digest = hashlib.sha256()
    for part in (entry.slug, *entry.terms, entry.current or "", previous_text):
        digest.update(part.encode("utf-8") + b"\0")
    for note in covered:
        digest.update(f"{note.path}\0{note.sha256}\0".encode())
    plan_id = plan_mark(entry.slug) + digest.hexdigest()[:12]
    return Plan(generation, plan_id, tuple(n.path for n in covered))


def shown_id(plan_id: str) -> str:
    """A plan id as a message quotes it: shortened (it is the caller's input)."""
    return plan_id if len(plan_id) <= 40 else plan_id[:40] + "…"


def plan_mark(slug: str) -> str:
    """The start every plan id of *slug* shares: ``p-`` and 4 hex digits of the slug's
    hash. An id without it was never a plan of this topic (unknown, not stale)."""
    return "p-" + hashlib.sha256(slug.encode("utf-8")).hexdigest()[:4]


def _carried(
    previous: GenerationFile | None,
    decisions: list[Cited],
    open_items: list[Cited],
    closures: list[tuple[Any, int]],
) -> tuple[Cited, ...]:
    """The previous generation's decisions, and its open items no later ``Open:`` left off."""
    if previous is None:
        return ()
    now_decided = {c.text for c in decisions}
    now_open = {c.text for c in open_items}
    later_open = [set(_items(n.lines[at + 3], CLOSURE_FIELDS[3])) for n, at in closures]
    out: list[Cited] = []
    old_decisions = [*previous.decisions, *(c for c in previous.carried if c.kind == "decision")]
    for item in old_decisions:
        if item.text not in now_decided:
            out.append(item.copy_with(kind="decision"))
    old_open = [*previous.open, *(c for c in previous.carried if c.kind == "open")]
    for item in old_open:
        closed = any(item.text not in items for items in later_open)
        if not closed and item.text not in now_open:
            out.append(item.copy_with(kind="open"))
    return tuple(dict.fromkeys(out))


def clean_summary(ws: Workspace, text: str) -> tuple[str, Mapping[str, int]]:
    """PROTOCOL §13: redacted, at most ``summary_max_chars``, no headings or closure lines."""
    from memtier.secrets_lines import redact_lines

    kept = [line.rstrip() for line in text.replace("\r\n", "\n").split("\n")]
    shown, counts = redact_lines([line for line in kept if line.strip()])
    lines = [line for line in shown if line.strip()]
    joined = "\n".join(lines)
    if not joined:
        raise InputError((_SUMMARY, ": the summary is empty"))
    limit = ws.config.summary_max_chars
    if len(joined) > limit:
        raise InputError(
            (
                _SUMMARY,
                f": {len(joined)} characters, at most {limit} (",
                Term("summary_max_chars"),
                ")",
            )
        )
    for line in lines:
        if line.lstrip().startswith("#"):
            raise InputError((_SUMMARY, ": no headings (lines starting with '#')"))
        if any(line.startswith(name) for name in CLOSURE_FIELDS):
            raise InputError(
                (_SUMMARY, ": no closure lines (Updated:, Decisions:, Signal:, Open:)")
            )
    return joined, counts


class ConsolidateReport(Result, Fields):
    plans: tuple[Plan, ...]
    written: bool
    redacted: Mapping[str, int] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        payload: dict[str, Any] = {
            "action": "write" if self.written else "plan",
            "generations": [
                {
                    "slug": p.generation.slug,
                    "number": p.generation.number,
                    "path": p.path,
                    "covers": list(p.generation.covers),
                    "plan_id": p.plan_id,
                }
                for p in self.plans
            ],
            "plan_id": self.plans[0].plan_id if len(self.plans) == 1 else None,
            "redacted": dict(self.redacted),
            # The planned generation's text (one plan): what a summary is written against.
            "text": None,
        }
        if not self.written and len(self.plans) == 1:
            payload["text"] = render_generation(self.plans[0].generation)
        return payload

    def text_lines(self) -> Iterable[str]:
        return self.worded_lines(str)

    def worded_lines(self, words: Callable[[Term], str]) -> Iterable[str]:
        if not self.plans:
            yield "no topic is due for consolidation"
            return
        for plan in self.plans:
            gen = plan.generation
            if self.written:
                yield f"wrote {plan.path} ({len(gen.covers)} day(s): {', '.join(gen.covers)})"
                continue
            yield from render_generation(gen).rstrip("\n").split("\n")
            yield ""
            yield f"plan id: {plan.plan_id} (nothing written)"
            write = words(Term("consolidate_write", gen.slug))
            with_summary = words(Term("consolidate_summary", plan.plan_id))
            yield f"write it: {write}; with a summary: {write} {with_summary}"


def write_generation(ws: Workspace, plan: Plan) -> None:
    """Write the generation file, whole or not at all; a taken name is never overwritten.

    The caller holds the workspace lock, so no memtier writer takes the name
    between the check and the atomic replace (PROTOCOL §3): a crash leaves no
    half-written generation for the next one to chain onto.
    """
    import os

    store.make_dirs(ws.consolidated_dir, root=ws.root)
    path = ws.consolidated_dir / generation_name(
        plan.generation.slug, plan.generation.number, plan.generation.created
    )
    if os.path.lexists(path):
        raise RefusedError(f"{plan.path} already exists; generations are never rewritten")
    store.write_text(path, render_generation(plan.generation), root=ws.root)
    checkpoint("consolidate.generation-written")


def consolidate(
    ws: Workspace,
    slug: str | None,
    *,
    due: bool = False,
    plan_only: bool = False,
    summary: str | None = None,
    plan_id: str | None = None,
) -> ConsolidateReport:
    """Write (or with *plan_only* only plan) the next generation of *slug* or of every due topic."""
    from memtier.commands.topics.index import is_due, read_index, refuse_unparsed, write_index

    if (slug is None) == (not due):
        raise InputError(("give a topic ", _TOPIC, " or ", Term("due"), " (not both)"))
    if (summary is not None or plan_id is not None) and slug is None:
        raise InputError((_SUMMARY, " and ", _PLAN_ID, " need a topic ", _TOPIC))
    if summary is not None and plan_id is None:
        raise InputError(
            (
                _SUMMARY,
                " needs the ",
                _PLAN_ID,
                " of the current plan (",
                Term("consolidate_plan", arg="SLUG"),
                ")",
            )
        )
    counts: Mapping[str, int] = NO_REDACTIONS
    text = None
    if summary is not None:
        text, counts = clean_summary(ws, summary)
    with store.workspace_lock(ws.lock_file):
        state = read_index(ws)
        refuse_unparsed(state)
        if slug is not None:
            found = state.parsed.find(slug)
            if found is None:
                raise InputError((f"no topic '{slug}' in the index (", Term("index_add"), ")"))
            entries = [state.derived(found)]
        else:
            entries = [e for e in state.rebuilt if is_due(ws, e)]
        plans = [plan_generation(ws, e, state.notes) for e in entries]
        if plan_id is not None and slug is not None and not plan_id.startswith(plan_mark(slug)):
            raise InputError(
                (
                    f"plan {shown_id(plan_id)} is unknown: no plan of topic '{slug}' has this "
                    "id; read ",
                    Term("consolidate_plan", arg=slug),
                    " for the current plan and its id",
                )
            )
        if plan_id is not None and plans[0].plan_id != plan_id:
            raise RefusedError(
                (
                    f"plan {shown_id(plan_id)} is stale: a source or the previous generation "
                    f"changed since (current plan: {plans[0].plan_id}); read ",
                    Term("consolidate_plan", arg=slug),
                    " again",
                )
            )
        if text is not None:
            plans[0] = plans[0].copy_with(generation=plans[0].generation.copy_with(summary=text))
        if plan_only or not plans:
            return ConsolidateReport(tuple(plans), False, counts)
        for plan in plans:
            write_generation(ws, plan)
        state.generations_written()
        write_index(ws, state, state.rendered())
    return ConsolidateReport(tuple(plans), True, counts)
