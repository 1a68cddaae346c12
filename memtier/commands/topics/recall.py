"""`memtier recall TEXT [--max-chars N]` (PROTOCOL §13): a topic's story, read-only.

"Do you remember the qdrant move?" is answered from the index: the trigger
phrase (``recall_triggers``) is stripped, the topic found by its slug, the
slug's words, a Match term, or the closest slug (similarity at least
`SIMILARITY`); then, within the budget, its Current generation, its matching
lines of every day after it (newest first), and the matching WARM facts. No
topic found: the search of PROTOCOL §9, without writing the search log.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from memtier import store
from memtier.errors import InputError, Term
from memtier.formats.index import IndexEntry
from memtier.results import Result
from memtier.values import Fields
from memtier.workspace import Workspace

SIMILARITY = 0.75
DEFAULT_MAX_CHARS = 8000
MIN_MAX_CHARS = 200
_WORD = re.compile(r"[\w.+#-]+")
_FILLER = frozenset(
    ["the", "a", "an", "that", "this", "our", "my", "project", "topic", "about", "of", "on", "with"]
)


def strip_trigger(text: str, triggers: Iterable[str]) -> str:
    """*text* without its first recall phrase (the longest that occurs, as whole
    words: "recall" is not taken out of "recalled") and end punctuation."""
    from memtier.commands.topics.state import WORD_EDGE

    for phrase in sorted(triggers, key=len, reverse=True):
        found = re.search(
            rf"(?<!{WORD_EDGE}){re.escape(phrase)}(?!{WORD_EDGE})", text, re.IGNORECASE
        )
        if found is not None:
            text = text[: found.start()] + " " + text[found.end() :]
            break
    return text.strip(" \t\n,.:;!?？。，！、")


def _words(text: str) -> list[str]:
    return [w.casefold().strip(".-") for w in _WORD.findall(text) if w.strip(".-")]


def find_topic(rest: str, entries: Iterable[IndexEntry]) -> tuple[IndexEntry | None, str]:
    """(topic, how it was found: slug, words, match or similar), or (None, "")."""
    from memtier.commands.topics.index import TopicMatcher

    entries = [e for e in entries if e.status != "deprecated"] or list(entries)
    words = [w for w in _words(rest) if w not in _FILLER]
    joined = "-".join(words)
    for entry in entries:
        if entry.slug == joined or entry.slug in words or f"-{entry.slug}-" in f"-{joined}-":
            return entry, "slug"
    for entry in entries:
        parts = [p for p in entry.slug.split("-") if p]
        if parts and all(p in words for p in parts):
            return entry, "words"
    matched = [(e, len(TopicMatcher(e).term_re.findall(rest))) for e in entries]
    matched = [m for m in matched if m[1]]
    if matched:
        return max(matched, key=lambda m: m[1])[0], "match"
    from difflib import SequenceMatcher  # only when no topic is named: a few ms of a start

    best: tuple[float, IndexEntry | None] = (0.0, None)
    candidates = {joined, *words, *("-".join(words[i : i + 2]) for i in range(len(words) - 1))}
    for entry in entries:
        for candidate in candidates:
            ratio = SequenceMatcher(None, entry.slug, candidate).ratio()
            if ratio > best[0]:
                best = (ratio, entry)
    if best[1] is not None and best[0] >= SIMILARITY:
        return best[1], "similar"
    return None, ""


class RecallReport(Result, Fields):
    query: str
    topic: str | None
    found_by: str  # slug, words, match, similar, or search
    lines: tuple[str, ...]
    truncated: bool
    current: str | None = None
    newer_days: tuple[str, ...] = ()
    search: Any = None  # the SearchReport of the fallback
    max_chars: int = 0  # the budget the lines were cut to (its cut line names it)

    @property
    def chars(self) -> int:
        return sum(len(line) + 1 for line in self.text_lines())

    # the lines as one text; the fallback search and the budget are the text's
    JSON_OMIT = frozenset({"lines", "search", "max_chars"})

    def json_extra(self) -> Mapping[str, Any]:
        return {"chars": self.chars, "text": "\n".join(self.text_lines())}

    def text_lines(self) -> Iterable[str]:
        return self.worded_lines(str)

    def worded_lines(self, words: Callable[[Term], str]) -> Iterable[str]:
        yield from self.lines
        if self.truncated:
            reader = words(Term("get", "PATH"))
            yield f"[cut at {self.max_chars} characters; {reader} reads a source whole]"


def _bounded(parts: list[tuple[str, list[str]]], max_chars: int) -> tuple[list[str], bool]:
    out: list[str] = []
    used = 0
    room = max_chars - 120  # the line saying what was cut
    for title, lines in parts:
        if not lines:
            continue
        for line in [title, *lines]:
            if used + len(line) + 1 > room:
                return out, True  # the report's last line says where it was cut
            out.append(line)
            used += len(line) + 1
    return out, False


def recall(
    ws: Workspace, text: str, max_chars: int = DEFAULT_MAX_CHARS, rg: str | None = None
) -> RecallReport:
    """PROTOCOL §13 `recall`: reads only."""
    from memtier.commands.topics.index import TopicMatcher, last_covered, read_index
    from memtier.secrets import redact_folded

    if max_chars < MIN_MAX_CHARS:
        raise InputError((Term("max_chars"), f": at least {MIN_MAX_CHARS} (got {max_chars})"))
    query = redact_folded(text).text
    rest = strip_trigger(query, ws.config.recall_triggers)
    if not rest:
        raise InputError("recall: nothing to recall once the trigger phrase is taken off")
    state = read_index(ws)
    # Found by what a person wrote (slug, Match, Status); then only its own days
    # are derived and read.
    entry, how = find_topic(rest, state.parsed.entries)
    if entry is None:
        return _fallback(ws, query, rest, max_chars, rg)
    if not state.parsed.problems:
        entry = state.derived(entry)
    parts: list[tuple[str, list[str]]] = []
    if entry.current:
        body = store.read_text(ws.root / entry.current, root=ws.root)
        parts.append((f"== {entry.current}", body.rstrip("\n").split("\n")))
    after = last_covered(ws, entry.current) or ""
    matcher = TopicMatcher(entry)
    newer: list[str] = []
    days: list[str] = []
    for note in sorted(state.notes.matching(entry), key=lambda n: (n.day, n.path), reverse=True):
        if note.day <= after:
            continue
        found = [
            f"{note.path}:{number}: {line}"
            for number, line in enumerate(note.lines, start=1)
            if matcher.matches(line)
        ]
        if found:
            days.append(note.day)
            newer += found
    parts.append(("== newer notes (newest first)", newer))
    facts: list[str] = []
    for path in ws.warm_files():
        try:
            lines = store.read_text(path, root=ws.root).split("\n")
        except InputError:
            continue
        rel = ws.relative(path)
        facts += [f"{rel}:{n}: {ln}" for n, ln in enumerate(lines, 1) if matcher.matches(ln)]
    parts.append(("== WARM facts", facts))
    head = [f"topic: {entry.slug} [{entry.status}] (found by {how}); {len(entry.dates)} date(s)"]
    lines, cut = _bounded([("", head), *parts], max_chars)
    return RecallReport(
        query=query,
        topic=entry.slug,
        found_by=how,
        lines=tuple(line for line in lines if line != ""),
        truncated=cut,
        max_chars=max_chars,
        current=entry.current,
        newer_days=tuple(dict.fromkeys(days)),
    )


def _fallback(ws: Workspace, query: str, rest: str, max_chars: int, rg: str | None) -> RecallReport:
    from memtier.search import SearchRequest, search

    quiet = ws.copy_with(config=ws.config.copy_with(search_log=False))  # recall is read-only
    # PROTOCOL §13 v4: recall always reads archived notes too.
    report = search(quiet, SearchRequest(query=rest, rg=rg, all_tiers=True))
    head = ["no topic in the index matches; search results:"]
    lines, cut = _bounded([("", head), ("", list(report.text_lines()))], max_chars)
    return RecallReport(
        query=query,
        topic=None,
        found_by="search",
        lines=tuple(line for line in lines if line != "") or tuple(head),
        truncated=cut,
        max_chars=max_chars,
        search=report,
    )
