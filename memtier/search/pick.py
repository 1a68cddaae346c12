"""Which matching files the ranking reads: the file-level score (PROTOCOL §9 `search`).

A broad query matches nearly every file. Reading them all and cutting them into
sections would cost far more than the scan, so each matching file first gets
the section formula of `rank` computed with its whole-file counts and no length
normalisation, and only the best *cap* files are read.

The scan reports its counts in one of two forms:

- `TermCounts`, for query words (the common case): how often each query term
  occurs in each file, with the files grouped by tier and counts. Files of one
  group share their score up to their recency, so each group is scored once;
  its files are scored one by one only while the group's best possible score
  (full recency bonus) can still reach the *cap* best files found so far. A
  three-term query over 100,000 notes forms a few hundred groups and scores a
  small share of the files. The files picked are exactly those the loop over
  every file would pick: a group is passed over only when every file in it
  scores strictly below *cap* files already found.
- raw matched texts per file (`found.FileHits`), for ``--regex`` and for
  queries with a term made of digits only: one loop over every matching file,
  but the episodic notes ripgrep printed the same texts for are counted and
  scored once for all of them (`found.ScanResult.by_texts`), and their recency
  looked up only while they can still reach the *cap* best files.
"""

from __future__ import annotations

import heapq
from datetime import date

from memtier.search.dates import DateHint
from memtier.search.found import FileHits, TermCounts, texts_of
from memtier.search.scoring import COVER_BONUS, K1, TIER_WEIGHTS, recency_of
from memtier.search.tokens import Term, has_cjk, term_of
from memtier.search.wordcount import overlapping
from memtier.values import NamedTuple
from memtier.workspace import TIERS

_ORDER = {tier: i for i, tier in enumerate(TIERS)}


class Scoring(NamedTuple):
    """What the file-level score needs from the query and the corpus."""

    terms: tuple[Term, ...]
    regex: bool
    idf: dict[str, float]
    total_idf: float
    today: date
    recency_bonus: float
    dates: DateHint = DateHint("")


class Picked(NamedTuple):
    """The files to read, best first, as (path, tier, matches); and what is left unread."""

    files: list[tuple[str, str, int]]
    unread_files: int
    unread_matches: int


def pick_counted(counts: TermCounts, scoring: Scoring, cap: int) -> Picked:
    """The *cap* best files by file-level score, scoring as few files as it can."""
    weights = [scoring.idf.get(word, 0.0) for word in counts.words]
    total_idf = scoring.total_idf or 1.0
    graded = len(scoring.terms) > 1
    bonus = scoring.recency_bonus
    today = scoring.today.toordinal()
    groups: list[tuple[float, float, float, str, list[str], int, bool]] = []
    dated = scoring.dates
    most = dated.most()
    # Only a file whose name starts with a date the query names can be boosted: a
    # group holding none is bounded without the boost, and its files score without
    # looking at their dates again (a dated query over 10,000 notes: 12 -> 1 ms).
    prefixes = dated.name_prefixes() if most > 1.0 else ()
    for (tier, found), files in counts.groups.items():
        base = 0.0
        share = 0.0
        for weight, count in zip(weights, found, strict=True):
            if count:
                base += weight * count * (K1 + 1.0) / (count + K1)
                share += weight
        top = base * TIER_WEIGHTS[tier]
        cover = 1.0
        if graded:
            share /= total_idf
            cover = 1.0 + COVER_BONUS * share * share
        # Recency is at most 1 + bonus: no file of the group can score above this. Its
        # files named for a date said are boosted, in a group of their own: the others
        # stay bounded without the boost, and score without looking at their dates.
        bound = top * (1.0 + bonus) * cover
        if prefixes:
            named = [rel for rel in files if rel[rel.rfind("/") + 1 :].startswith(prefixes)]
            if named:
                groups.append((bound * most, top, cover, tier, named, sum(found), True))
                if len(named) < len(files):
                    kept = set(named)
                    files = [rel for rel in files if rel not in kept]
                else:
                    continue
        groups.append((bound, top, cover, tier, files, sum(found), False))
    groups.sort(key=lambda g: -g[0])
    best: list[float] = []  # a min-heap of the cap best scores so far
    entries: list[tuple[float, int, str, int]] = []
    for bound, top, cover, tier, files, matches, boosted in groups:
        if len(best) >= cap and bound < best[0]:
            break  # this group and every later one score below cap files found
        order = _ORDER[tier]
        for rel in files:
            score = top * recency_of(rel, today, bonus) * cover
            if boosted:
                score *= dated.boost(rel[rel.rfind("/") + 1 :])
            entries.append((-score, order, rel, matches))
            if len(best) < cap:
                heapq.heappush(best, score)
            elif score > best[0]:
                heapq.heapreplace(best, score)
    chosen = heapq.nsmallest(cap, entries)
    files_total = counts.file_count()
    read_matches = sum(m for _, _, _, m in chosen)
    return Picked(
        [(rel, TIERS[order], m) for _, order, rel, m in chosen],
        files_total - len(chosen),
        counts.match_total() - read_matches,
    )


# Episodic notes with the same matched texts (`found.ScanResult.by_texts`): their
# counts by term, each one's number of matches, and their paths.
Group = tuple[dict[str, int], int, list[str]]


class RawCounts(NamedTuple):
    """What `raw_counts` found: each file's counts by term, each term's document
    frequency, each file's number of matches (whatever term they are of) and its
    tier (the scan's); the notes kept together by their texts in *groups* (COLD)."""

    counted: dict[str, dict[str, int]]
    df: dict[str, int]
    matches: dict[str, int]
    tiers: dict[str, str]
    groups: tuple[Group, ...] = ()

    def file_count(self) -> int:
        return len(self.counted) + sum(len(paths) for _, _, paths in self.groups)


def raw_counts(
    matches: dict[str, FileHits],
    scoring_terms: tuple[Term, ...],
    regex: bool,
    by_texts: dict[bytes, list[str]] | None = None,
    plain: bool = False,
) -> RawCounts:
    """Each file's counts by term, and the document frequency of each term, from raw
    matched texts (several texts may stand for one term: ``Docker``, ``dockers``).
    The notes of *by_texts* (printed texts -> paths; *plain*: texts without
    positions) are counted once for each distinct texts, not once a file."""
    keys: dict[str, str | None] = {}

    def key_of(text: str) -> str | None:
        key = keys.get(text, "")
        if key == "":
            if regex:
                key = text.lower()
            else:
                term = term_of(text, scoring_terms)
                key = term.text if term is not None else None
            keys[text] = key
        return key

    # The key of each matched text as ripgrep printed it: a broad --regex at 100,000
    # notes has ~50,000 files of a few matches each, and their texts repeat, so each
    # text is decoded and keyed once, and a file's matches are counted in one loop.
    printed: dict[bytes, str | None] = {}

    def count_printed(raw: list[bytes], texts: dict[str, int]) -> int:
        """Count the printed texts *raw* into *texts* by key; return how many have a
        text (an empty match matches no text)."""
        total = 0
        for data in raw:
            if not data:
                continue
            total += 1
            key = printed.get(data, "")
            if key == "":
                key = printed[data] = key_of(data.decode("utf-8", "replace"))
            if key is not None:
                texts[key] = texts.get(key, 0) + 1
        return total

    counted: dict[str, dict[str, int]] = {}
    df: dict[str, int] = {}
    totals: dict[str, int] = {}
    tiers: dict[str, str] = {}
    cjk = [] if regex else [t.text for t in scoring_terms if t.cjk]
    for rel, hits in matches.items():
        tiers[rel] = hits.tier or "cold"
        texts: dict[str, int] = {}
        raw = None if cjk else hits.raw_texts()
        if raw is None:
            found = hits.counts()
            # The matches with a text: what `FileHits.match_count` counts, without a
            # second pass over ripgrep's output of every file.
            totals[rel] = sum(found.values())
            for text, n in found.items():
                if cjk and has_cjk(text):
                    # A run of the query's CJK characters holds each of its pairs
                    # (`tokens.cjk_runs`), overlaps counted.
                    for pair in cjk:
                        if times := overlapping(text, pair):
                            texts[pair] = texts.get(pair, 0) + n * times
                    continue
                key = key_of(text)
                if key is not None:
                    texts[key] = texts.get(key, 0) + n
        else:
            totals[rel] = count_printed(raw, texts)
        counted[rel] = texts
        for key in texts:
            df[key] = df.get(key, 0) + 1
    groups: list[Group] = []
    for body, paths in (by_texts or {}).items():
        texts = {}
        if regex and plain:
            # A --regex's texts alone, one a line: each key is its text lowercased,
            # decoded and lowercased for the whole body at once and counted in one
            # loop, not a call per text: a broad --regex has thousands of
            # distinct bodies of a few texts each. (A line break ends a bad UTF-8
            # sequence and is no cased letter, so decoding and lowercasing the whole
            # body gives what they give line by line.)
            total = 0
            for key in body.decode("utf-8", "replace").lower().split("\n"):
                if key:
                    total += 1
                    texts[key] = texts.get(key, 0) + 1
        else:
            # As one file's texts are read above (`FileHits.raw_texts`).
            total = count_printed(texts_of(body.lower(), plain), texts)
        groups.append((texts, total, paths))
        for key in texts:
            df[key] = df.get(key, 0) + len(paths)
    return RawCounts(counted, df, totals, tiers, tuple(groups))


def pick_raw(raw: RawCounts, scoring: Scoring, cap: int) -> Picked:
    """`pick_counted` for raw matches: every matching file scored, one loop; its
    recency (a date read from its name) only while it can still reach the *cap*
    best files, as in `pick_counted`: the files picked are exactly the same."""
    counted, totals, tiers_of = raw.counted, raw.matches, raw.tiers
    idf_of = scoring.idf
    dated = scoring.dates if scoring.dates.most() > 1.0 else None
    total = scoring.total_idf or 1.0
    graded = not scoring.regex and len(scoring.terms) > 1
    today = scoring.today.toordinal()
    bonus = scoring.recency_bonus

    def top_and_cover(texts: dict[str, int], tier: str) -> tuple[float, float]:
        base = 0.0
        share = 0.0
        for key, count in texts.items():
            weight = idf_of[key]
            base += weight * count * (K1 + 1.0) / (count + K1)
            share += weight
        cover = 1.0
        if graded:
            share /= total
            cover = 1.0 + COVER_BONUS * share * share
        return base * TIER_WEIGHTS[tier], cover

    # Each file's score but its recency: (score before recency, the factors after).
    parts: list[tuple[float, float, float, str, str, int]] = []
    for rel, texts in counted.items():
        tier = tiers_of[rel]
        boost = 1.0 if dated is None else dated.boost(rel[rel.rfind("/") + 1 :])
        top, cover = top_and_cover(texts, tier)
        parts.append((top, boost, cover, tier, rel, totals[rel]))
    # The notes kept together by their texts: one score for all, but their recency.
    groups: list[tuple[float, float, list[str], int]] = []
    if dated is None and not graded:
        # A --regex's groups (thousands): `top_and_cover` inlined, the same sums in
        # the same order; no cover without several terms.
        weight = TIER_WEIGHTS[_GROUPED]
        saturated = K1 + 1.0
        for texts, found, paths in raw.groups:
            base = 0.0
            for key, count in texts.items():
                base += idf_of[key] * count * saturated / (count + K1)
            groups.append((base * weight, 1.0, paths, found))
    else:
        for texts, found, paths in raw.groups:
            top, cover = top_and_cover(texts, _GROUPED)
            if dated is None:
                groups.append((top, cover, paths, found))
            else:  # a date said in the query: each note's own boost
                for rel in paths:
                    boost = dated.boost(rel[rel.rfind("/") + 1 :])
                    parts.append((top, boost, cover, _GROUPED, rel, found))
    # Recency lies between 1 and 1 + bonus, and each product is rounded monotonically:
    # a file whose score with the full bonus stays below the cap-th best score
    # without any is below cap files whatever its date, and is passed over.
    floor = -1.0
    files_total = len(parts) + sum(len(paths) for _, _, paths, _ in groups)
    if files_total > cap and bonus >= 0.0:
        floor = _cap_th(
            [(top * boost * cover, 1) for top, boost, cover, *_ in parts]
            + [(top * cover, len(paths)) for top, cover, paths, _ in groups],
            cap,
        )
    most = 1.0 + bonus
    scored: list[tuple[float, int, str, int]] = []
    for top, boost, cover, tier, rel, found in parts:
        if top * most * boost * cover < floor:
            continue
        score = top * recency_of(rel, today, bonus) * boost * cover
        scored.append((-score, _ORDER[tier], rel, found))
    order = _ORDER[_GROUPED]
    for top, cover, paths, found in groups:  # (no date in the query: no boost)
        if top * most * cover < floor:
            continue
        for rel in paths:
            score = top * recency_of(rel, today, bonus) * cover
            scored.append((-score, order, rel, found))
    chosen = heapq.nsmallest(cap, scored)
    files = [(rel, TIERS[order], found) for _, order, rel, found in chosen]
    every = sum(part[5] for part in parts) + sum(n * len(paths) for _, _, paths, n in groups)
    rest = every - sum(found for _, _, found in files)
    return Picked(files, files_total - len(files), rest)


# The tier of the notes `raw_counts` keeps together (`found.keep_raw`: the episodic folder's).
_GROUPED = "cold"


def _cap_th(values: list[tuple[float, int]], cap: int) -> float:
    """The *cap*-th largest of the values, each counted as often as it says (at least
    once: so it is among the *cap* largest, which are all that is sorted; a broad
    --regex at 100,000 notes gives ~17,000 values)."""
    seen = 0
    for value, times in heapq.nlargest(cap, values):
        seen += times
        if seen >= cap:
            return value
    return -1.0
