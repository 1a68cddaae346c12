"""From scored sections to hits: the line that answers (PROTOCOL §9 v3 `search`).

Sections are what BM25 scores (see `rank`); a hit is what a person or an agent
reads. Three rules turn one into the other, per file:

- Matching lines that stand within `GROUP_GAP` lines of each other are one hit,
  never several hits side by side (a list of five items that each name the
  query's words is one hit, so the next file gets its place). The hit scores
  as its best section. A section of the group that holds a query term the
  group's better sections lack is another answer, not a repeat (a list of
  hosts: "port" on every line, "synapse" on one), and stays a hit of its own.
- Its *line* is its best line: among the matching lines of its best-scoring
  section and of the sections it absorbs, the line carrying the most of the
  query's idf (each distinct term once, a word that merely starts with the
  term at its `tokens.exactness`); on a tie the first such line. In a chat
  (`speakers`, PROTOCOL §9 v4) the turns beside a line count for it too and a
  turn of a speaker the query names is preferred (`best_line`). The excerpt
  shows that line and ``--context`` lines around it, since the answer is often
  the neighbour of the line the question's words are on.
- A note's frame lines, its ``# YYYY-MM-DD`` title and its ``Updated:`` (or
  ``last_verified:``, ``created:``…) line, say which day a note is, not what it
  says: a match there still scores (a date query finds its note by them), but
  the hit shows the note's best content line instead. A note whose only
  matches are frame lines is shown at its first content line (the day's first
  entry), with the frame's score.
"""

from __future__ import annotations

import re

from memtier.search.hits import Scored
from memtier.search.sections import Section, is_heading
from memtier.search.speakers import speaker

GROUP_GAP = 2  # matching lines at most this far apart are one hit (one line between)

_DATE_TITLE_RE = re.compile(r"^#\s+\d{4}-\d\d-\d\d\s*$")
_FRAME_RE = re.compile(
    r"^\s*(?:>\s*)?(?:updated|last_verified|last_updated|created|last_active):[ \t]*\S*[ \t]*$",
    re.IGNORECASE,
)

# A scored section (score, tier, path, section, matches, lines), as `rank` builds it;
# a grouped hit has the best line's number in the section's place.
ScoredSection = tuple[float, str, str, Section, list[Scored], list[str]]
Grouped = tuple[float, str, str, int, list[Scored], list[str]]


def is_frame(number: int, lines: list[str]) -> bool:
    """Whether line *number* (1-based) is a frame line of its file (see the module text)."""
    text = lines[number - 1]
    if number == 1 and _DATE_TITLE_RE.match(text):
        return True
    return bool(_FRAME_RE.match(text))


def first_content_line(lines: list[str], labelled: frozenset[int] = frozenset()) -> int | None:
    """The first line that is neither blank, a heading, the tags line, a frame line nor
    one of the lines *labelled* (whole-line labels, `metadata`); None: the file has none."""
    for number, text in enumerate(lines, start=1):
        if not text.strip() or is_heading(text) or text.startswith("#tags:"):
            continue
        if number not in labelled and not is_frame(number, lines):
            return number
    return None


# PROTOCOL §9 v4, a chat's turns (`speakers`): a turn takes this share of its neighbouring
# turns' evidence when the hit's line is chosen, and a turn whose speaker the query names
# is worth this many times its evidence.
NEIGHBOUR_SHARE = 0.5
SPEAKER_PREFERENCE = 1.5


def best_line(matches: list[Scored], idf: dict[str, float], lines: list[str]) -> int:
    """The line that answers: the matching line with the most idf (frame lines only
    when nothing else matched), each distinct term once; on a tie the first.

    In a chat (`speakers`): a speaker's name on a label is who speaks, never
    evidence; a turn also counts `NEIGHBOUR_SHARE` of the better turn beside it,
    and the turn after a question counts the question's whole evidence (a reply
    often repeats none of the question's words, and the question is not the
    answer), so a turn next to a matching one is a candidate too; a turn of a
    speaker the query names counts `SPEAKER_PREFERENCE` times."""
    per_line: dict[int, dict[str, float]] = {}
    named: set[str] = set()
    for line, column, _, term, exact in matches:
        terms = per_line.setdefault(line, {})
        label = speaker(lines[line - 1])
        if label is not None and column < label[1]:
            named.add(label[0])
            continue
        terms[term] = max(terms.get(term, 0.0), exact)
    content = [n for n in per_line if not is_frame(n, lines)] or list(per_line)
    own = {n: sum(idf.get(t, 0.0) * e for t, e in per_line[n].items()) for n in content}
    candidates = set(content)
    for number in content:
        if _turn(number, lines):
            candidates.update(n for n in (number - 1, number + 1) if _turn(n, lines))

    def worth(number: int) -> tuple[float, int]:
        value = own.get(number, 0.0)
        label = speaker(lines[number - 1])
        if label is not None:
            near = (n for n in (number - 1, number + 1) if _turn(n, lines))
            share = NEIGHBOUR_SHARE * max((own.get(n, 0.0) for n in near), default=0.0)
            if _asks(number - 1, lines):
                share = max(share, own.get(number - 1, 0.0))  # the reply to a question
            value += share
            if label[0] in named:
                value *= SPEAKER_PREFERENCE
        return (value, -number)

    return max(candidates, key=worth)


def _asks(number: int, lines: list[str]) -> bool:
    """Whether line *number* is a chat turn that asks (ends with a question mark)."""
    return _turn(number, lines) and lines[number - 1].rstrip().endswith("?")


def _turn(number: int, lines: list[str]) -> bool:
    """Whether line *number* (1-based) exists and is a chat turn (`speakers`)."""
    return 1 <= number <= len(lines) and speaker(lines[number - 1]) is not None


def _quiet(match: Scored, quiet: frozenset[tuple[int, int]], lines: list[str]) -> bool:
    return (match[0], match[1]) in quiet or is_frame(match[0], lines)


def _answers(cluster: list[ScoredSection]) -> list[tuple[ScoredSection, list[Scored]]]:
    """The distinct answers of one group of neighbouring sections, best first: each
    with the matches it absorbs (sections that bring no query term of their own)."""
    order = sorted(cluster, key=lambda s: (-s[0], s[3].start))
    kept: list[tuple[ScoredSection, list[Scored]]] = []
    seen: set[str] = set()
    for scored in order:
        terms = {m[3] for m in scored[4]}
        if kept and terms <= seen:
            kept[0][1].extend(scored[4])
            continue
        kept.append((scored, list(scored[4])))
        seen |= terms
    return kept


def group_file(
    sections: list[ScoredSection],
    idf: dict[str, float],
    quiet: frozenset[tuple[int, int]] = frozenset(),
    labelled: frozenset[int] = frozenset(),
) -> list[Grouped]:
    """The hits of one file from its scored sections (see the module text). *quiet*:
    the (line, column) of matches on labels (`metadata`, PROTOCOL §9 v4), which are
    frame matches: never a hit's line; *labelled*: the lines that are labels whole."""
    if not sections:
        return []
    lines = sections[0][5]
    frame_score = 0.0
    frame_matches: list[Scored] = []
    content: list[ScoredSection] = []
    for scored in sections:
        if all(_quiet(m, quiet, lines) for m in scored[4]):
            frame_score = max(frame_score, scored[0])
            frame_matches.extend(scored[4])
        else:
            content.append(scored)
    clusters: list[list[ScoredSection]] = []
    last = -GROUP_GAP - 1
    for scored in sorted(content, key=lambda s: s[3].start):
        numbers = [m[0] for m in scored[4] if not _quiet(m, quiet, lines)]
        low, high = min(numbers), max(numbers)
        if clusters and low - last <= GROUP_GAP:
            clusters[-1].append(scored)
            last = max(last, high)
        else:
            clusters.append([scored])
            last = high
    hits: list[Grouped] = []
    shown_at: dict[int, int] = {}  # a line shown -> the index of its hit
    for cluster in clusters:
        for top, absorbed in _answers(cluster):
            shown = [m for m in absorbed if not _quiet(m, quiet, lines)]
            line = best_line(shown, idf, lines)
            if line in shown_at:
                # Two answers that show the same line are one hit (a turn chosen for
                # its neighbours' evidence), never the same line twice.
                kept = hits[shown_at[line]]
                hits[shown_at[line]] = (*kept[:4], kept[4] + absorbed, lines)
                continue
            shown_at[line] = len(hits)
            hits.append((top[0], top[1], top[2], line, absorbed, lines))
    if frame_matches:
        if hits:
            # The frame gives way: the file's best content hit shows, at the frame's score
            # when that is higher (the date found the note, the content line answers).
            top_i = max(range(len(hits)), key=lambda i: hits[i][0])
            score, tier, rel, line, matches, _ = hits[top_i]
            hits[top_i] = (max(score, frame_score), tier, rel, line, matches + frame_matches, lines)
        elif (first := first_content_line(lines, labelled)) is not None:
            tier, rel = sections[0][1], sections[0][2]
            hits.append((frame_score, tier, rel, first, frame_matches, lines))
    return hits
