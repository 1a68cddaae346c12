"""`memtier search`: ranked search over the plain memory files, no index (PROTOCOL §9).

The scan (`scanner`) finds every matching line with ripgrep, or with a pure
Python scanner when no ``rg`` binary is found; the ranking (`rank`) cuts the
matching files into sections and scores them with BM25 and the boosts
documented there. Each search is then written to the search log (`log`)
unless the configuration turns it off. The scan and the ranking take no lock:
they never wait for a writer, and every writer replaces files atomically; only
the search log's one appended line is written under the workspace lock (`log`).
"""

from __future__ import annotations

from collections.abc import Iterable

from memtier import errors
from memtier.errors import InputError
from memtier.results import Result
from memtier.search.hits import Hit
from memtier.search.scanner import find_rg
from memtier.values import Fields, field
from memtier.workspace import TIERS, Workspace, find_day_note

# Not typing's: importing it costs a search 3-4 ms. Type checkers read this as true.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from memtier.search.dates import DateHint, NotedMonths
    from memtier.search.rank import Ranked
    from memtier.search.tokens import Term

__all__ = ["SearchReport", "SearchRequest", "find_rg", "resolve_tiers", "search"]

# Every tier but the archive, which only --all or --tier archive searches.
DEFAULT_TIERS: tuple[str, ...] = tuple(t for t in TIERS if t != "archive")


class SearchRequest(Fields):
    """What to search for and where. *rg* is the ripgrep binary (None: Python scanner)."""

    query: str
    tiers: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    limit: int = 10
    regex: bool = False
    context: int = 1
    all_tiers: bool = False
    rg: str | None = None
    # False: the search is not written to the search log (the tool server's
    # memory_search is read-only in fact, PROTOCOL §11 v3).
    log: bool = True


class SearchReport(Result, Fields):
    query: str
    tiers: tuple[str, ...]
    total_matched: int
    hits: tuple[Hit, ...]
    warnings: tuple[str, ...] = ()
    redacted: dict[str, int] = field(default_factory=dict)
    colour: bool = False
    notices: tuple[str, ...] = ()
    redacted_in = "search log"  # where the redactions happened, for their notices

    def to_json(self) -> dict[str, object]:
        from memtier.secrets import redact

        return {
            "query": self.query,
            "tiers": list(self.tiers),
            "total_matched": self.total_matched,
            "results": [hit.to_json() for hit in self.hits],
            # A warning names a file: a credential in the name is shown redacted (§3 v4).
            "warnings": [redact(warning).text for warning in self.warnings],
        }

    def text_lines(self) -> Iterable[str]:
        from memtier.search.hits import hit_lines

        searched = ", ".join(t.upper() for t in self.tiers)
        if not self.hits:
            yield f"no matches for {self.query!r} in {searched}"
            if "archive" not in self.tiers:
                yield "hint: add --all to search the archive too"
            return
        for number, hit in enumerate(self.hits):
            if number:
                yield ""
            yield from hit_lines(hit, self.colour)
        shown = len(self.hits)
        yield ""
        yield f"{shown} of {self.total_matched} matching sections in {searched}"


def resolve_tiers(names: Iterable[str], all_tiers: bool) -> tuple[str, ...]:
    """Chosen tiers in protocol order; archive only when named or with --all."""
    chosen: set[str] = set()
    for name in names:
        tier = name.strip().lower()
        if tier not in TIERS:
            raise InputError(f"unknown tier {name!r} (expected {', '.join(TIERS[:-1])} or archive)")
        chosen.add(tier)
    if not chosen:
        chosen = set(TIERS) if all_tiers else set(DEFAULT_TIERS)
    elif all_tiers:
        chosen.add("archive")
    return tuple(t for t in TIERS if t in chosen)


def search(ws: Workspace, request: SearchRequest, *, colour: bool = False) -> SearchReport:
    """Scan, rank, and record the search in the search log."""
    from memtier.search.dates import DateHint, parse_dates
    from memtier.search.tokens import Term, query_terms, scan_pattern
    from memtier.secrets import redact

    # PROTOCOL §3 v2: the query is echoed (report, --json, the log, the tool server);
    # a credential in it never is. Memory holds only placeholders, so the redacted
    # query still finds them.
    query_redaction = redact(request.query)
    request = request.copy_with(query=query_redaction.text)
    notices = tuple(
        f"redacted {count} secret(s) in the query: {rule}"
        for rule, count in sorted(query_redaction.counts.items())
    )

    if request.limit < 1:
        raise InputError((errors.Term("limit"), " must be at least 1"))
    if request.context < 0:
        raise InputError((errors.Term("context"), " must be 0 or more"))
    tiers = resolve_tiers(request.tiers, request.all_tiers)
    if request.regex:
        if not request.query:
            raise InputError((errors.Term("regex"), " needs a non-empty pattern"))
        terms: tuple[Term, ...] = ()
        light: frozenset[str] = frozenset()
        pattern, literals = request.query, []
        dates = DateHint(request.query)
        phrases: tuple[str, ...] = ()
    else:
        from memtier.search.phrases import phrase_pattern, phrase_terms, quoted

        # A quoted phrase is scanned as the phrase (`phrases`); the rest as words.
        asked = quoted(request.query)
        # Dates are said in words ("on 9 November", "yesterday"); they are searched
        # for as the ISO date of the notes' names and titles (see `dates`).
        dates = parse_dates(asked.rest, ws.today, _noted(ws))
        words = query_terms(dates.rest)
        extra = tuple(Term(iso) for iso in dates.terms(not words) if Term(iso) not in words)
        # A day said with no note of its own is told in the next day's note (v4).
        extra += tuple(
            Term(after, compound=True, form_of=day)
            for after, day in dates.told_days(lambda day: find_day_note(ws, day) is not None)
            if Term(after) not in extra
        )
        if words:
            # A week said is one term, found in the title of each of its days' notes (v4).
            extra += tuple(
                Term(day, compound=True, form_of="" if day == monday else monday)
                for day, monday in dates.week_days()
                if Term(day) not in extra
            )
        # PROTOCOL §9 v4: the date's words are searched for too (a month's name), looked
        # for and weighed lightly, never required: the day's note is found by its date.
        known = {t.text for t in words}
        said = tuple(
            Term(t.text, compound=True)
            for t in query_terms(dates.words())
            if t.text not in known and not t.cjk
        )
        light = frozenset(t.text for t in said)
        terms = words + said + extra
        phrased = tuple(t for t in phrase_terms(asked.phrases) if t not in terms)
        phrases = tuple(phrase_pattern(phrase) for phrase in asked.phrases)
        patterns = [scan_pattern(terms), *phrases] if terms else list(phrases)
        terms += phrased
        if not terms:
            raise InputError(f"nothing to search for in {request.query!r} (no words)")
        pattern, literals = "|".join(patterns), [t.text for t in terms]
    ranked = _scan_and_rank(ws, request, tiers, terms, pattern, literals, dates, light, phrases)
    if not ranked.hits and not request.regex:
        retried = _retry_with_typos(ws, request, tiers, terms, dates)
        if retried is not None:
            ranked = retried
    if _archive_too(ws, request, tiers, terms, ranked.hits):
        # PROTOCOL §9 v4: the live tiers gave nothing good; the archive is searched too.
        tiers = (*tiers, "archive")
        wider = _scan_and_rank(ws, request, tiers, terms, pattern, literals, dates, light, phrases)
        if wider.hits or not ranked.hits:
            note = "the live tiers gave no good hit: searched the archive too"
            ranked = wider._replace(warnings=(note, *wider.warnings))
    warnings = list(ranked.warnings)
    redacted: dict[str, int] = {}
    if ws.config.search_log and request.log:
        from memtier.search.log import record_search

        logged = record_search(ws, request.query, tiers, ranked.total_matched)
        warnings.extend(logged.warnings)
        redacted = logged.redacted
    return SearchReport(
        query=request.query,
        tiers=tiers,
        total_matched=ranked.total_matched,
        hits=ranked.hits,
        warnings=tuple(warnings),
        redacted=redacted,
        colour=colour,
        notices=notices,
    )


def _noted(ws: Workspace) -> NotedMonths:
    """The months of the workspace's dated notes, listed once, when a query first
    names a month or day without its year (`dates.parse_dates`)."""
    from functools import cache

    from memtier.search.dates import noted_months

    return cache(lambda: noted_months(str(ws.episodic_dir), str(ws.archive_dir)))


# A live hit is weak when it holds less than this share of the query's words (DECISIONS).
STRONG_SHARE = 0.5


def _archive_too(
    ws: Workspace,
    request: SearchRequest,
    tiers: tuple[str, ...],
    terms: tuple[Term, ...],
    hits: tuple[Hit, ...],
) -> bool:
    """Whether the archive is searched besides the live tiers (PROTOCOL §9 v4): the
    tiers were not chosen, the archive holds a note, and no hit holds at least
    `STRONG_SHARE` of the query's words (its other forms and compounds aside)."""
    if request.regex or request.tiers or "archive" in tiers or request.tags:
        return False
    words = {t.shown() for t in terms if not t.compound}
    if hits and words:
        best = max(len(words & set(hit.matched_terms)) for hit in hits)
        if best >= STRONG_SHARE * len(words):
            return False
    archive = ws.archive_dir
    return archive.is_dir() and any(archive.rglob("*.md"))


def _scan_and_rank(
    ws: Workspace,
    request: SearchRequest,
    tiers: tuple[str, ...],
    terms: tuple[Term, ...],
    pattern: str,
    literals: list[str],
    dates: DateHint,
    light: frozenset[str] = frozenset(),
    phrases: tuple[str, ...] = (),
) -> Ranked:
    from memtier.search.scanner import scan
    from memtier.search.tokens import wants_recent

    scanned = scan(
        ws.root,
        tiers,
        pattern,
        ignore_case=not request.regex,
        rg=request.rg,
        literals=literals,
        tags=request.tags,
        phrases=phrases,
        meanwhile=lambda: _prepare(
            terms, regex=request.regex, log=ws.config.search_log and request.log
        ),
    )
    from memtier.search.rank import rank

    return rank(
        ws.root,
        scanned,
        terms=terms,
        regex=request.regex,
        today=ws.today,
        limit=request.limit,
        tags=request.tags,
        context=request.context,
        recent=not request.regex and wants_recent(dates.rest),
        dates=dates,
        light=light,
    )


def _prepare(terms: tuple[Term, ...], *, regex: bool, log: bool) -> None:
    """What the ranking and the search log will need, loaded while ripgrep searches
    (`scanner.scan`): their modules, the terms' compiled pattern, and for a --regex
    the engine that finds its positions (`scanner.locate`). Nothing here changes a
    result; it only moves work into the time spent waiting."""
    # rank's own imports, and the two it makes when it runs (`pick`, `metadata`)
    import memtier.search.metadata
    import memtier.search.pick
    import memtier.search.rank
    from memtier.search.accents import lowered_re
    from memtier.search.tokens import folds_to_ascii, precise_re

    if terms:
        lowered_re(precise_re(terms, ascii_text=True))
        # The form for a line that is not ASCII (an accent, a curly quote, a dash),
        # unless that line is matched folded (`tokens.folds_to_ascii`): most notes
        # hold one, and its accent classes take milliseconds to compile, which the
        # ranking would otherwise spend after ripgrep has ended.
        if not folds_to_ascii(terms):
            precise_re(terms)
    if regex:
        from memtier.search.engine import linear_engine

        linear_engine()
    if log:
        import memtier.search.log  # noqa: F401 (its modules, loaded ahead)


def _retry_with_typos(
    ws: Workspace,
    request: SearchRequest,
    tiers: tuple[str, ...],
    terms: tuple[Term, ...],
    dates: DateHint,
) -> Ranked | None:
    """The ranking of the query within one typo, or None when no word has a neighbour."""
    from collections import Counter

    from memtier.search.scanner import scan
    from memtier.search.tokens import Term, scan_pattern
    from memtier.search.typos import corrections, fuzzy_pattern

    fuzzy = fuzzy_pattern(terms)
    if fuzzy is None:
        return None
    scanned = scan(ws.root, tiers, fuzzy, ignore_case=True, rg=request.rg, literals=[])
    seen: Counter[str] = Counter()
    for hits in scanned.matches.values():
        seen.update(hits.counts())
    fixed = corrections(seen, terms)
    if not fixed:
        return None
    new_terms = tuple(Term(fixed[t.text]) if t.text in fixed else t for t in terms)
    ranked = _scan_and_rank(
        ws, request, tiers, new_terms, scan_pattern(new_terms), [t.text for t in new_terms], dates
    )
    shown = " ".join(t.shown() for t in new_terms if not t.compound)
    note = f"no exact match; showing results for {shown!r}"
    return ranked._replace(warnings=(note, *ranked.warnings))
