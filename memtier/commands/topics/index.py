"""The topic index (PROTOCOL §13, v3): `memtier index show|add|set|rebuild`.

memtier re-renders INDEX.md in the one form of §13 from what the notes and the
generation files derive (`memtier.commands.topics.state`), and keeps every entry
and what people wrote in Match and Status.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from memtier import store
from memtier.commands.topics.state import (
    DayNote,
    IndexState,
    TopicMatcher,
    generations_on_disk,
    is_due,
    last_covered,
    new_days,
    read_index,
)
from memtier.errors import CheckFailed, InputError, RefusedError, Term
from memtier.formats.index import (
    CATEGORIES,
    SLUG_RE,
    STATUSES,
    IndexEntry,
    ParsedIndex,
    split_terms,
)
from memtier.results import Result
from memtier.values import Fields
from memtier.workspace import Workspace

SHOW_MAX_LINES = 200  # as `memtier get` (PROTOCOL §10)

__all__ = [
    "DayNote",
    "IndexState",
    "TopicMatcher",
    "generations_on_disk",
    "index_add",
    "index_rebuild",
    "index_set",
    "index_show",
    "is_due",
    "last_covered",
    "new_days",
    "read_index",
]


def refuse_unparsed(state: IndexState) -> None:
    if state.parsed.problems:
        first = state.parsed.problems[0]
        raise RefusedError(
            f"memory/INDEX.md line {first.line}: {first.message}; fix it by hand "
            "(memtier rewrites only an index it can read whole)"
        )


class IndexReport(Result, Fields):
    action: str
    path: str
    entries: tuple[IndexEntry, ...]
    due: tuple[str, ...]
    changed: bool = False
    slug: str | None = None
    failure: CheckFailed | None = None
    shown: tuple[str, ...] | None = None  # show: the file's lines, bounded like `get`
    more: str | None = None  # show: where the rest is, when cut

    def to_json(self) -> dict[str, Any]:
        return {
            "action": self.action,
            "path": self.path,
            "changed": self.changed,
            "slug": self.slug,
            "topics": [_entry_json(e, e.slug in self.due) for e in self.entries],
        }

    stale: bool = False  # show: a rebuild would change the file

    def text_lines(self) -> Iterable[str]:
        return self.worded_lines(str)

    def worded_lines(self, words: Callable[[Term], str]) -> Iterable[str]:
        """The report, each operation it names worded by the asking face (§11 v4)."""
        verb = {"add": "added", "set": "changed", "rebuild": "rebuilt", "check": "checked"}
        if self.action == "check":
            stale = f"out of date; run: {words(Term('index_rebuild'))}"
            yield f"{self.path} is {stale if self.changed else 'up to date'}"
        elif self.action in verb:
            what = self.slug or self.path
            yield f"{what}: {verb[self.action]}" + ("" if self.changed else " (no change)")
        if self.shown is not None:
            if not self.shown:
                yield f"no topic index yet; add a topic: {words(Term('index_add'))}"
            yield from self.shown
            if self.stale:
                yield f"(out of date: {words(Term('index_rebuild'))})"
            if self.more:
                yield f"truncated; next: {words(Term('get', self.more))}"
            if self.due:
                due = ", ".join(self.due)
                yield f"due for consolidation: {due} ({words(Term('consolidate_due'))})"
            return
        for entry in self.entries:
            mark = " (due)" if entry.slug in self.due else ""
            current = entry.current or "no generation"
            yield f"- {entry.slug} [{entry.status}] {len(entry.dates)} date(s); {current}{mark}"


def _entry_json(entry: IndexEntry, due: bool) -> dict[str, Any]:
    return {
        "slug": entry.slug,
        "category": entry.category,
        "match": list(entry.terms),
        "status": entry.status,
        "dates": list(entry.dates),
        "current": entry.current,
        "generations": len(entry.consolidations),
        "due": due,
    }


def _report(ws: Workspace, action: str, entries: tuple[IndexEntry, ...], **kw: Any) -> IndexReport:
    due = tuple(e.slug for e in entries if is_due(ws, e))
    return IndexReport(action, ws.relative(ws.index_file), entries, due, **kw)


def write_index(ws: Workspace, state: IndexState, text: str) -> bool:
    if state.text == text:
        return False
    store.make_dirs(ws.memory_dir, root=ws.root)
    store.write_text(ws.index_file, text, root=ws.root, like=state.document)
    # The state now stands for what was written: a second write in the same command
    # (flush, consolidate) compares against this one, not the file read before.
    state.document = store.read_document(ws.index_file, root=ws.root)
    state.text = state.document.text
    return True


def _clean_terms(ws: Workspace, terms: Iterable[str]) -> tuple[str, ...]:
    from memtier.secrets import redact_folded

    out: list[str] = []
    for raw in terms:
        term = redact_folded(" ".join(raw.split())).text
        if not term or "," in term:
            raise InputError((Term("match"), ": a term is one non-empty phrase without commas"))
        out.append(term)
    return tuple(dict.fromkeys(out))


def _check_status(status: str | None) -> None:
    if status is not None and status not in STATUSES:
        raise InputError((Term("status"), f": one of {', '.join(STATUSES)} (got {status!r})"))


def index_rebuild(ws: Workspace, check: bool = False) -> IndexReport:
    """Re-derive Dates, Consolidations and Current; ``check``: change nothing."""
    if check:
        state = read_index(ws)
        refuse_unparsed(state)
        failure = None
        if state.stale:
            # The report's first line says it (shown): exit 1, no second message.
            failure = CheckFailed("memory/INDEX.md is out of date", shown=True)
        return _report(ws, "check", state.rebuilt, changed=state.stale, failure=failure)
    with store.workspace_lock(ws.lock_file):
        state = read_index(ws)
        refuse_unparsed(state)
        changed = write_index(ws, state, state.rendered())
    return _report(ws, "rebuild", state.rebuilt, changed=changed)


def index_show(ws: Workspace, max_lines: int = SHOW_MAX_LINES) -> IndexReport:
    """PROTOCOL §13 `index show`: INDEX.md as it stands, bounded like `get` (§10)."""
    if max_lines < 1:
        raise InputError((Term("max_lines"), ": must be at least 1"))
    state = read_index(ws)
    entries = state.rebuilt if not state.parsed.problems else state.parsed.entries
    if state.text is None:
        return _report(ws, "show", entries, shown=())
    lines = state.text.rstrip("\n").split("\n")
    more = None
    if len(lines) > max_lines:
        end = min(len(lines), 2 * max_lines)
        more = f"{ws.relative(ws.index_file)}:{max_lines + 1}-{end}"
    shown = tuple(lines[:max_lines])
    return _report(ws, "show", entries, shown=shown, more=more, stale=state.stale)


def index_add(
    ws: Workspace, slug: str, category: str, match: Iterable[str] = (), status: str | None = None
) -> IndexReport:
    if not SLUG_RE.match(slug):
        raise InputError(
            (Term("slug"), f" must be lowercase letters, digits and '-' (got {slug!r})")
        )
    if category not in CATEGORIES:
        raise InputError((Term("category"), f": one of {', '.join(CATEGORIES)} (got {category!r})"))
    _check_status(status)
    terms = _clean_terms(ws, match)
    with store.workspace_lock(ws.lock_file):
        state = read_index(ws)
        refuse_unparsed(state)
        if state.parsed.find(slug) is not None:
            raise RefusedError(
                (f"topic '{slug}' is already in the index (", Term("index_set"), ")")
            )
        entry = IndexEntry(slug, category, terms, status or "active")
        state.parsed = ParsedIndex((*state.parsed.entries, entry), ())
        changed = write_index(ws, state, state.rendered())
    return _report(ws, "add", state.rebuilt, changed=changed, slug=slug)


def index_set(
    ws: Workspace, slug: str, match: Iterable[str] = (), status: str | None = None
) -> IndexReport:
    _check_status(status)
    terms = _clean_terms(ws, match)
    with store.workspace_lock(ws.lock_file):
        state = read_index(ws)
        refuse_unparsed(state)
        if state.parsed.find(slug) is None:
            raise InputError((f"no topic '{slug}' in the index (", Term("index_add"), ")"))
        entries = tuple(
            e.copy_with(
                match=terms or e.match,
                status=status or e.status,
            )
            if e.slug == slug
            else e
            for e in state.parsed.entries
        )
        state.parsed = ParsedIndex(entries, ())
        changed = write_index(ws, state, state.rendered())
    return _report(ws, "set", state.rebuilt, changed=changed, slug=slug)


def split_match(values: Iterable[str]) -> tuple[str, ...]:
    """``--match "a, b"`` and ``--match a --match b`` alike."""
    return tuple(t for v in values for t in split_terms(v))
