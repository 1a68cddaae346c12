"""Ranking: BM25 over sections, with the boosts PROTOCOL §9's `search` promises.

score(section) = tier_weight × recency × cover × phrase × bm25
bm25 = Σ_t idf(t) · w_t·(k1+1) / (w_t + k1·(1 − b + b·dl/avgdl))

- ``w_t``: weighted count of term *t* in the section. A match on a heading line,
  on a file's title (line 1) or on its ``#tags:`` line counts `TITLE_WEIGHT`; a
  match in the heading the section sits under (outside it) adds
  `HEADING_CONTEXT`; a match on the file's tags line outside the section adds
  `TAGS_CONTEXT`; in a chat (`speakers`), a section that is one turn adds
  `TURN_CONTEXT` for each match in the turn just before and just after it (`speakers.beside`: a
  reply answers the question's words in the turn it replies to). A longer word
  that merely starts with the term (``restarted`` for ``restart``) counts
  `tokens.exactness` (0.7) instead of 1. An other form
  of a query word (``went`` for ``go``, `tokens.Term.form_of`) counts as that
  word: one term, the word's idf, never a second term beside it.
- ``idf(t) = √(idf_files(t) · idf_sections(t))`` (v4), each
  ``ln(1 + (N − df + 0.5) / (df + 0.5))``: over files, N the number of files
  searched and df the number of files where *t* matched (the scan reports every
  matching file for free; counting sections everywhere would mean reading the
  whole corpus); over sections, N and df counted in the sections of the files
  the ranking reads (a sample, like ``avgdl``, but at the unit that ranks: in a
  chat of a few long notes a word in every note but one turn of fifty has
  nearly no file idf). `_blend_section_idf`.
- ``dl``: the section's length in words; ``avgdl``: the mean section length over
  the files the ranking reads (the files with a match). Approximation, for the
  same reason: a sample of the corpus instead of all of it.
- ``tier_weight``: `TIER_WEIGHTS`, HOT and WARM above BUFFER and SCRATCH above
  COLD above archive (PROTOCOL §1 order of trust).
- ``recency`` for dated notes (COLD and archive, named ``YYYY-MM-DD``):
  ``1 + RECENCY_BONUS · 0.5^(age_days / RECENCY_HALF_LIFE)``; 1 elsewhere. Kept
  small enough that a note of today stays below BUFFER and SCRATCH. A query
  asking for the newest ("last", "latest", "recent"…, see `tokens.RECENT_WORDS`)
  uses `RECENT_QUERY_BONUS` instead: then the newest note should win.
- ``cover = 1 + COVER_BONUS · (idf of the query terms in the section / idf of
  all query terms)²`` rewards sections holding the query's terms together, the
  rare ones most (a term found nowhere counts with the largest idf).
- ``phrase = (1 + SAME_LINE_BONUS · l²) · (1 + PHRASE_BONUS · p)``: *l* is the
  largest idf share (as in *cover*) found on a single line of the section, *p* is
  1 when all the query's terms stand next to each other, in order, on a line.

A query matching many files is ranked in two steps: a cheap per-file score from
the scan alone (the same formula with file-level counts, no length
normalisation; see `pick`) picks the best `max(MIN_CANDIDATES, 5 × limit)`
files, and only those are read and cut into sections. Approximation: a section
in a file left unread is never ranked, even if it would have scored above a
section of a file read. For a word query the file-level counts are occurrences
of each term's text in the file's lowercased matches (a term inside a longer
matched term counts for both), and files with equal counts in one tier are
scored as a group (`pick.pick_counted`, which picks exactly the files a score
of every file would). ``total_matched`` counts sections in the files read, plus
an estimate for the files left unread (their matches times the
sections-per-match ratio of the files read, at least one each): broad queries
only.
"""

from __future__ import annotations

import heapq
import re
from bisect import bisect_right
from collections.abc import Iterable
from datetime import date
from itertools import pairwise
from pathlib import Path

from memtier.errors import InputError
from memtier.search.accents import lowered_re
from memtier.search.boilerplate import WEAK_ALONE, boilerplate, held_alone, weak_terms
from memtier.search.copies import discount_copies
from memtier.search.dates import DateHint
from memtier.search.exact import precise_matches
from memtier.search.group import Grouped, group_file
from memtier.search.hits import Hit, Scored, make_hit
from memtier.search.scanner import FileHits, ScanResult
from memtier.search.scoring import (
    COVER_BONUS,
    EVIDENCE_WEIGHTS,
    HEADING_CONTEXT,
    K1,
    MIN_CANDIDATES,
    PHRASE_BONUS,
    PHRASE_GAP,
    RECENCY_BONUS,
    RECENT_QUERY_BONUS,
    SAME_LINE_BONUS,
    TAGS_CONTEXT,
    TIER_WEIGHTS,
    TITLE_WEIGHT,
    TURN_CONTEXT,
    B,
    idf,
    recency,
)
from memtier.search.sections import Section, inline_tags, is_heading, split_sections, tag_line_tags
from memtier.search.shapes import SHAPES
from memtier.search.speakers import beside, turn_evidence
from memtier.search.tokens import (
    FRAME_WEIGHT,
    FRAME_WORDS,
    Term,
    folds_to_ascii,
    length_in_words,
    precise_re,
)
from memtier.values import NamedTuple
from memtier.workspace import TIERS

_NO_HITS = FileHits()  # a file of a word query: `precise_matches` finds its matches itself


_TIER_INDEX = {tier: i for i, tier in enumerate(TIERS)}
# A scored section, its hit not built yet: score, tier, path, section, matches, lines.
_Scored = tuple[float, str, str, Section, list[Scored], list[str]]
# A hit not built yet (`group`): score, tier, path, its best line, matches, lines.
_Hit = Grouped


class Ranked(NamedTuple):
    hits: tuple[Hit, ...]
    total_matched: int
    warnings: tuple[str, ...]


def _saturate(weight: float, norm: float) -> float:
    return weight * (K1 + 1.0) / (weight + K1 * norm)


class _Context:
    """What scoring needs to know about the query and the corpus (one per search)."""

    def __init__(
        self,
        terms: tuple[Term, ...],
        regex: bool,
        today: date,
        tags: frozenset[str],
        context: int,
    ) -> None:
        self.terms = terms
        self.regex = regex
        self.today = today
        self.tags = tags
        self.context = context
        self.idf: dict[str, float] = {}
        self.recency_bonus = RECENCY_BONUS
        self.max_idf = 0.0
        self.total_idf = 0.0
        self.precise: re.Pattern[str] | None = None
        # A line with accents is matched folded, with `precise` (`tokens.folds_to_ascii`).
        self.folds = False
        self.lowered: re.Pattern[str] | None = None
        self.dates = DateHint("")
        self.weak: frozenset[str] = frozenset()
        self.compounds = frozenset(t.text for t in terms if t.compound)
        self.phrase_length = sum(1 for t in terms if not t.compound)
        self.cjk = any(t.cjk for t in terms)
        # An ASCII file is matched whole (`exact`) unless a term takes a shape,
        # whose form may span white space ("two weeks ago"), so a line break too.
        self.whole_text = not any(t.text in SHAPES and not t.compound for t in terms)
        # Other forms of a query word (met for meet) count as that word (`tokens`).
        said = {t.text for t in terms if not t.form_of}
        self.heads = {t.text: t.form_of for t in terms if t.form_of and t.text not in said}
        # Each matched text, read once (`exact`).
        self.read: dict[str, tuple[Term | None, str, float]] = {}


def rank(
    root: Path,
    scanned: ScanResult,
    *,
    terms: tuple[Term, ...],
    regex: bool,
    today: date,
    limit: int,
    tags: tuple[str, ...],
    context: int,
    recent: bool = False,
    dates: DateHint | None = None,
    light: frozenset[str] = frozenset(),
) -> Ranked:
    """Rank the scan's matches. *light*: terms weighed as question-frame words are
    (a date's month name, PROTOCOL §9 v4)."""
    from memtier.search import pick

    warnings = list(scanned.warnings)
    wanted = frozenset(t.lower().lstrip("#") for t in tags)
    ctx = _Context(terms, regex, today, wanted, context)
    ctx.dates = dates or DateHint("")
    if recent:
        ctx.recency_bonus = RECENT_QUERY_BONUS
    if not regex and terms:
        ctx.precise = precise_re(terms, ascii_text=True)
        ctx.folds = folds_to_ascii(terms)
        ctx.lowered = lowered_re(ctx.precise)
    counts = scanned.counted
    raw = pick.RawCounts({}, {}, {}, {})
    if counts is not None:
        df = counts.document_frequency()
        matched = counts.file_count()
    else:
        # Notes with the same texts are counted together (`found.keep_raw`); a CJK
        # term's texts are counted file by file (`FileHits.counts`).
        cjk = any(t.cjk for t in terms)
        by_texts = {} if cjk else scanned.by_texts
        raw = pick.raw_counts(scanned.matches if cjk else scanned.kept(), terms, regex,
                              by_texts, scanned.plain)  # fmt: skip
        df = raw.df
        matched = raw.file_count()
    n = max(scanned.files_searched, matched)
    # A question-frame word weighs a share of its idf (`tokens.FRAME_WORDS`).
    frame = {
        t.text: FRAME_WEIGHT if t.text in FRAME_WORDS or t.text in light else 1.0 for t in terms
    }
    # One idf per distinct count: a broad --regex has thousands of texts, most in one file.
    by_count = {count: idf(count, n) for count in set(df.values())}
    ctx.idf = {t: by_count[count] * frame.get(t, 1.0) for t, count in df.items()}
    ctx.max_idf = idf(0, n)  # a query term found nowhere weighs as a term found once
    for term in terms:
        if term.text in SHAPES and term.text not in ctx.idf:
            # Its word found nowhere, a shape word still matches its shape (`tokens`).
            ctx.idf[term.text] = ctx.max_idf * frame[term.text]
    if not regex:
        # A frame word or a common plain word beside a rarer one (`boilerplate`).
        ctx.weak = weak_terms(terms, df, n)
    # A word and its other forms are one term: their matches count together as the
    # word's (`exact.precise_matches`), with the word's idf (its largest where it is found nowhere).
    for head in set(ctx.heads.values()):
        ctx.idf.setdefault(head, ctx.max_idf * frame.get(head, 1.0))
    ctx.total_idf = _idf_mass(ctx, frame)

    scoring = pick.Scoring(
        terms, regex, ctx.idf, ctx.total_idf, today, ctx.recency_bonus, ctx.dates
    )
    # With --tag the scan kept only tagged files (`scanner.keep_tagged`): the usual cap.
    cap = max(MIN_CANDIDATES, 5 * limit)
    if counts is not None:
        picked = pick.pick_counted(counts, scoring, cap)
    else:
        picked = pick.pick_raw(raw, scoring, cap)

    files: list[tuple[str, str, int, list[str], list[Section]]] = []
    for rel, tier, found in picked.files:
        lines = _read_lines(root, rel, warnings)
        if lines is not None:
            files.append((rel, tier, found, lines, split_sections(lines)))
    # Words never span lines: one count over each file's text is the sum over its lines.
    length = sum(length_in_words("\n".join(lines)) for *_, lines, _ in files)
    count = sum(len(sections) for *_, sections in files)
    avgdl = length / count if count and length else 1.0

    if scanned.locate is not None:
        # A --regex's positions, in the files read only (`scanner.locate`).
        held = scanned.locate([(rel, lines) for rel, _, _, lines, _ in files])
    elif regex:
        held = scanned.matches
    else:
        held = {}
    found_in = [
        _by_section(_counted_matches(rel, lines, held.get(rel, _NO_HITS), ctx), sections)
        for rel, _, _, lines, sections in files
    ]
    if not regex and terms:
        _blend_section_idf(found_in, count, ctx, frame)
    scored: list[_Hit] = []
    labelled: set[int] = set()  # hits found by their file's or heading's labels alone
    for (rel, tier, _, lines, sections), matches in zip(files, found_in, strict=True):
        in_file, quiet, labelled_lines = _score_file(
            rel, tier, lines, sections, matches, avgdl, ctx
        )
        for hit in group_file(_aggregate(in_file), ctx.idf, quiet, labelled_lines):
            if quiet and all((m[0], m[1]) in quiet for m in hit[4]):
                labelled.add(len(scored))
            scored.append(hit)
    discount_copies(scored)
    _weak_below_strong(scored, ctx.weak, ctx.compounds)
    # PROTOCOL §9 v4: a hit found by labels alone ranks below every content match.
    _scale_below(scored, labelled)
    total = len(scored)
    if picked.unread_files:
        # Estimate: sections per match in the files read, times matches in the rest.
        read = sum(found for _, _, found, _, _ in files) or 1
        total += max(picked.unread_files, round(picked.unread_matches * len(scored) / read))
    # Best first: score, then tier order, path and line; only the hits shown are built.
    best = heapq.nsmallest(limit, scored, key=lambda s: (-s[0], _TIER_INDEX[s[1]], s[2], s[3]))
    hits = tuple(
        make_hit(rel, tier, lines, line, matches, score, ctx.context, ctx.terms, ctx.regex)
        for score, tier, rel, line, matches, lines in best
    )
    return Ranked(hits, total, tuple(warnings))


def _weak_below_strong(scored: list[_Hit], weak: frozenset[str], compounds: frozenset[str]) -> None:
    """A hit holding one weak word alone (`boilerplate.held_alone`) ranks below every
    other hit: their scores are scaled under the lowest of those, in order."""
    if not weak:
        return
    alone = {
        i for i, hit in enumerate(scored) if held_alone((m[3] for m in hit[4]), weak, compounds)
    }
    _scale_below(scored, alone)


def _scale_below(scored: list[_Hit], alone: set[int]) -> None:
    """Scale the scores of the hits *alone* under the lowest score of the others."""
    strong = [hit[0] for i, hit in enumerate(scored) if i not in alone]
    if not alone or not strong:
        return
    floor = min(strong)
    top = max(scored[i][0] for i in alone)
    if top < floor:
        return
    scale = 0.99 * floor / top
    for i in alone:
        score, *rest = scored[i]
        scored[i] = (score * scale, *rest)  # type: ignore[assignment]


def _aggregate(sections: list[_Scored]) -> list[_Scored]:
    """A file's best section carries the file's other evidence too: its score becomes
    best + ½·second + ¼·third (`EVIDENCE_WEIGHTS`), so a note holding several relevant
    lines outranks a one-line turn that merely names the same person. Only a section
    that brings a query term the better ones lack counts as more evidence: twenty
    turns naming one person are no more than one. The hit still shows the best
    section's lines; the other sections keep their own scores."""
    if len(sections) < 2:
        return sections
    order = sorted(range(len(sections)), key=lambda i: -sections[i][0])
    best = sections[order[0]]
    seen = {m[3] for m in best[4]}
    extra = 0.0
    weights = iter(EVIDENCE_WEIGHTS)
    for i in order[1:]:
        terms = {m[3] for m in sections[i][4]}
        if terms <= seen:
            continue
        weight = next(weights, None)
        if weight is None:
            break
        extra += weight * sections[i][0]
        seen |= terms
    sections[order[0]] = (best[0] + extra, *best[1:])
    return sections


# The work per file is bounded: a memory file is a few hundred lines, and a file of a
# million lines (a log pasted into MEMORY.md) must not cost seconds and a gigabyte.
MAX_FILE_LINES = 20_000


def _read_lines(root: Path, rel: str, warnings: list[str]) -> list[str] | None:
    from memtier.store import read_document

    try:
        text = read_document(root / rel, root=root).text
    except InputError as exc:
        warnings.append(f"skipped {exc.message}")
        return None
    if text.endswith("\n"):
        text = text[:-1]
    lines = text.split("\n", MAX_FILE_LINES)
    if len(lines) > MAX_FILE_LINES:
        del lines[MAX_FILE_LINES:]
        warnings.append(
            f"{rel}: only its first {MAX_FILE_LINES} lines were ranked (the file is longer)"
        )
    return lines


def _line_weight(line_no: int, lines: list[str]) -> float:
    if line_no == 1 or is_heading(lines[line_no - 1]):
        return TITLE_WEIGHT
    if line_no == 2 and lines[1].startswith("#tags:"):
        return TITLE_WEIGHT
    return 1.0


def _counted_matches(rel: str, lines: list[str], hits: FileHits, ctx: _Context) -> list[Scored]:
    """The file's matches that count (`exact.precise_matches`), init's description
    lines left out."""
    unranked = boilerplate(rel, lines)  # PROTOCOL §9 v3
    return [m for m in precise_matches(lines, hits, ctx) if m[0] not in unranked]


# A file's counted matches: all of them, by line, and by the index of the section
# holding each (those inside a section).
_Placed = tuple[list[Scored], dict[int, list[tuple[str, float]]], dict[int, list[Scored]]]


def _by_section(found: list[Scored], sections: list[Section]) -> _Placed:
    """*found*, by line and by section, each match placed once."""
    starts = [s.start for s in sections]
    per_line: dict[int, list[tuple[str, float]]] = {}
    per_section: dict[int, list[Scored]] = {}
    for match in found:
        line = match[0]
        per_line.setdefault(line, []).append((match[3], match[4]))
        index = bisect_right(starts, line) - 1
        if index >= 0 and sections[index].end >= line:
            per_section.setdefault(index, []).append(match)
    return found, per_line, per_section


def _blend_section_idf(
    found_in: list[_Placed],
    sections_read: int,
    ctx: _Context,
    frame: dict[str, float],
) -> None:
    """Each term's idf becomes the geometric mean of its idf over files (the scan's, the
    whole corpus) and its idf over the sections of the files read (a sample, but at the
    unit that ranks): in a few long notes of a chat, a word in every note but in one
    turn of fifty weighed nearly nothing by files alone (see the module text)."""
    df: dict[str, int] = {}
    for _found, _lines, per_section in found_in:
        for matches in per_section.values():
            for term in {match[3] for match in matches}:
                df[term] = df.get(term, 0) + 1
    for term, count in df.items():
        if term in ctx.idf:
            by_section = idf(count, max(1, sections_read)) * frame.get(term, 1.0)
            ctx.idf[term] = (ctx.idf[term] * by_section) ** 0.5
    ctx.total_idf = _idf_mass(ctx, frame)


def _idf_mass(ctx: _Context, frame: dict[str, float]) -> float:
    """The query's idf mass: each term's idf, the largest for one found nowhere; a
    compound made of two query words counts only where found; a word's other forms
    count as the word (their idf is its own)."""
    return sum(
        ctx.idf.get(t.text, 0.0 if t.compound else ctx.max_idf * frame.get(t.text, 1.0))
        for t in ctx.terms
        if t.text not in ctx.heads
    )


def _score_file(
    rel: str,
    tier: str,
    lines: list[str],
    sections: list[Section],
    found: _Placed,
    avgdl: float,
    ctx: _Context,
) -> tuple[list[_Scored], frozenset[tuple[int, int]], frozenset[int]]:
    """The file's scored sections, the (line, column) of its matches on labels
    (`metadata`): those still score, as the file's or the section's, but are never
    a hit's line (`group`), and the lines that are labels whole."""
    from memtier.search.metadata import WHOLE_LINE, labels, on_label

    matches_in, per_line, per_section = found
    meta = labels(rel, lines)
    quiet: set[tuple[int, int]] = set()
    if meta:
        for line, column, *_ in matches_in:
            if on_label(line, column, meta) is not None:
                quiet.add((line, column))
    file_tags = {t.lower() for t in tag_line_tags(lines[1])} if len(lines) > 1 else set()
    tags_line = 2 if len(lines) > 1 and lines[1].startswith("#tags:") else None
    weight = TIER_WEIGHTS[tier] * recency(rel, ctx.today, ctx.recency_bonus)
    weight *= ctx.dates.boost(rel[rel.rfind("/") + 1 :])
    per_turn = turn_evidence(matches_in, lines)
    hits: list[_Scored] = []
    for index, matches in sorted(per_section.items()):
        section = sections[index]
        text = "\n".join(lines[section.start - 1 : section.end])
        if ctx.tags and not (ctx.tags & (file_tags | inline_tags(text))):
            continue
        counts: dict[str, float] = {}
        for line, _, _, term, exact in matches:
            counts[term] = counts.get(term, 0.0) + exact * _line_weight(line, lines)
        direct = set(counts)
        outside = [(section.heading, HEADING_CONTEXT), (tags_line, TAGS_CONTEXT)]
        for line_no, share in outside:
            if line_no is None or section.start <= line_no <= section.end:
                continue
            for term, exact in per_line.get(line_no, []):
                counts[term] = counts.get(term, 0.0) + share * exact
        for term, exact in beside(section, lines, per_turn):
            counts[term] = counts.get(term, 0.0) + TURN_CONTEXT * exact
        dl = max(1, length_in_words(text))
        norm = 1.0 - B + B * dl / avgdl
        base = sum(ctx.idf.get(t, 0.0) * _saturate(w, norm) for t, w in counts.items())
        score = base * weight * _cover(direct, ctx) * _phrase(matches, ctx)
        if held_alone(direct, ctx.weak, ctx.compounds):
            score *= WEAK_ALONE
        hits.append((score, tier, rel, section, matches, lines))
    whole = frozenset(n for n, label in meta.items() if label.end == WHOLE_LINE)
    return hits, frozenset(quiet), whole


def _cover(direct: set[str], ctx: _Context) -> float:
    if ctx.regex or len(ctx.terms) < 2:
        return 1.0
    return 1.0 + COVER_BONUS * _covered(direct, ctx) ** 2


def _covered(present: Iterable[str], ctx: _Context) -> float:
    """The share of the query's idf mass that *present* terms carry (0..1)."""
    found = sum(ctx.idf.get(t, 0.0) for t in set(present))
    return found / ctx.total_idf if ctx.total_idf else 0.0


def _phrase(matches: list[Scored], ctx: _Context) -> float:
    """Reward terms standing close: on one line (by idf share), and as the query's phrase."""
    if ctx.regex or len(ctx.terms) < 2:
        return 1.0
    # A word's place among the query's words: its other forms take it (their matches
    # carry the word's key, `exact.precise_matches`), a compound has none (it sits between words).
    words = [t.text for t in ctx.terms if not t.compound]
    order = {text: i for i, text in enumerate(words)}
    by_line: dict[int, list[tuple[int, int, int, str]]] = {}
    for line, column, text, term, _ in matches:
        width = len(text.encode("utf-8"))
        by_line.setdefault(line, []).append((column, width, order.get(term, -2), term))
    best_line = 0.0
    phrase = False
    for items in by_line.values():
        items.sort()
        best_line = max(best_line, _covered((term for *_, term in items), ctx))
        run = 1
        for (col, width, i, _), (next_col, _, j, _) in pairwise(items):
            adjacent = j == i + 1 and 0 <= next_col - (col + width) <= PHRASE_GAP
            run = run + 1 if adjacent else 1
            phrase = phrase or run == ctx.phrase_length
    return (1.0 + SAME_LINE_BONUS * best_line**2) * (1.0 + PHRASE_BONUS * phrase)
