"""What the ranking leaves out or holds back (PROTOCOL §9 v3 `search`).

- Boilerplate: the description lines `init` wrote from the package's templates
  ("Hosts, IPs, ports and services. One line per fact; update in place.") say
  what a file is for, not what the memory holds. A line of a template file that
  still stands, unchanged, in the file `init` wrote from it is not ranked: its
  matches are dropped before the file's sections are scored. Headings, the
  ``#tags:`` line and lines with a placeholder (``$today``) are not boilerplate
  (a title still names its file's subject; dates are frame lines, see `group`).
  The scan's document frequency still counts those lines (one file each).
- Weak terms: a query term that is a question-frame word (`tokens.FRAME_WORDS`)
  or a plain word common in this workspace (in at least `COMMON_SHARE` of the
  files searched: "runs", "does" in a lived-in workspace; never a word with a
  digit, such as a host name) is weak when the query has
  a rarer term that is neither. A section that holds one weak word alone scores
  `WEAK_ALONE` of its score (so it adds little to its file's evidence either),
  and a hit holding one weak word alone ranks below every hit holding a rarer
  term: it cannot by itself outrank the line that holds one (`held_alone`).
  (v4) Two or more of the query's words together, weak ones too, are not one
  word alone: in a chat kept as a few long notes most words of a question are
  in a fifth of the notes ("dog", "park"), and a turn holding several of them
  lost to any turn holding one rarer word ("activity").
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache

from memtier.search.tokens import FRAME_WORDS, Term
from memtier.workspace import TIER_PATHS

COMMON_SHARE = 0.2
WEAK_ALONE = 0.25


@cache
def template_lines(rel: str) -> frozenset[str]:
    """The boilerplate lines of the template `init` writes at *rel* (empty if none)."""
    from memtier.formats.templates import templates_dir

    try:
        text = (templates_dir() / rel).read_text(encoding="utf-8")
    except (OSError, FileNotFoundError, ValueError):
        return frozenset()
    kept = set()
    for line in text.split("\n"):
        plain = line.strip()
        if not plain or plain.startswith("#") or "$" in plain:
            continue
        kept.add(plain)
    return frozenset(kept)


# The files `init` writes from a template, besides MEMORY.md: the WARM files and the buffer.
_TEMPLATE_HOMES = (*(f"{folder}/" for folder in TIER_PATHS["warm"]), *TIER_PATHS["buffer"])


def boilerplate(rel: str, lines: list[str]) -> set[int]:
    """The line numbers (1-based) of *rel* that still hold a template line unchanged."""
    if "/" in rel and not rel.startswith(_TEMPLATE_HOMES):
        return set()
    known = template_lines(rel)
    if not known:
        return set()
    return {n for n, text in enumerate(lines, start=1) if text.strip() in known}


def weak_terms(terms: tuple[Term, ...], df: dict[str, int], files: int) -> frozenset[str]:
    """The query's weak terms (see the module text), from each term's document frequency."""
    found = [t.text for t in terms if df.get(t.text)]
    # Only plain words: a name with digits (a host, a version) says what is asked about.
    common = {
        t for t in found if t in FRAME_WORDS or (t.isalpha() and df[t] >= COMMON_SHARE * files)
    }
    strong = [df[t] for t in found if t not in common and not _compound(t, terms)]
    if not strong:
        return frozenset()
    rarest = min(strong)
    return frozenset(t for t in common if t in FRAME_WORDS or df[t] > rarest)


def _compound(text: str, terms: tuple[Term, ...]) -> bool:
    return any(t.text == text and t.compound for t in terms)


def held_alone(found: Iterable[str], weak: frozenset[str], compounds: frozenset[str]) -> bool:
    """Whether the terms *found* in a section or hit are one weak word alone: all weak,
    and at most one of them a query word (a compound of the query's words, or a part
    of a hyphened one, is no word of its own: `home-assistant` and `home` are one)."""
    terms = set(found)
    return bool(weak) and terms <= weak and len(terms - compounds) < 2
