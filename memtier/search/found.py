"""What a scan found, in the forms the ranking reads (see `scanner`, `pick`).

- `TermCounts`: for a word query, how often each query term occurs in each
  matching file, files grouped by tier and counts (the ranking scores a group
  at once). Both scanners count the same way: occurrences of the term's text in
  the lowercased matches, a term inside a longer matched term counted for both.
- `FileHits`: for ``--regex`` (and a term of digits only), the raw matches of
  one file, kept as ripgrep printed them until someone asks.

`parse_blocks` files ripgrep's printed blocks into a `ScanResult`, a few at a
time while ripgrep still searches (`processes.Followed`).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Collection, Sequence

from memtier.search.phrases import phrase_words
from memtier.search.tokens import has_cjk, normalise_bytes
from memtier.search.wordcount import overlapping
from memtier.workspace import EPISODIC_PREFIX, tier_of

__all__ = [
    "FileHits",
    "Match",
    "ScanResult",
    "TermCounts",
    "all_notes",
    "count_words",
    "counting_words",
    "file_counted",
    "parse_blocks",
    "split_tagged",
    "texts_of",
]


class TermCounts:
    """Per file, the count of each query term, files grouped by (tier, counts).

    *words* are the query terms (lowercase); a count tuple follows their order.
    """

    __slots__ = ("encoded", "groups", "known", "repeating", "waiting", "words")

    def __init__(self, words: Sequence[str]) -> None:
        self.words = tuple(words)
        self.encoded = tuple(word.encode("utf-8") for word in self.words)
        self.groups: dict[tuple[str, tuple[int, ...]], list[str]] = {}
        # Each distinct block of matched texts the scan met, counted once (`count_words`):
        # its counts (None: nothing left to count) and whether a tag line matched in it.
        self.known: dict[bytes, tuple[tuple[int, ...] | None, bool]] = {}
        # The printed paths of each count, not filed under their tiers yet (`file_counted`).
        self.waiting: dict[tuple[int, ...], list[bytes]] = {}
        # A CJK term that can overlap itself (哈哈): counted with its overlaps (`count_in`).
        self.repeating = frozenset(
            i for i, word in enumerate(self.words) if has_cjk(word) and _self_overlapping(word)
        )

    def count_in(self, lowered: bytes) -> tuple[int, ...]:
        """Each word's count in a file's matched texts (normalised): one C-level count
        per word; a CJK word counts its overlapping occurrences (`tokens.cjk_runs`)."""
        found = tuple(map(lowered.count, self.encoded))
        if not self.repeating:
            return found
        return tuple(
            overlapping(lowered, self.encoded[i]) if i in self.repeating else n
            for i, n in enumerate(found)
        )

    def add(self, rel: str, tier: str, counts: tuple[int, ...]) -> None:
        group = self.groups.get((tier, counts))
        if group is None:
            self.groups[(tier, counts)] = [rel]
        else:
            group.append(rel)

    def file_count(self) -> int:
        return sum(len(files) for files in self.groups.values())

    def paths(self) -> list[str]:
        return sorted(rel for files in self.groups.values() for rel in files)

    def document_frequency(self) -> dict[str, int]:
        """How many files each term occurs in (terms found nowhere left out)."""
        df: dict[str, int] = {}
        for (_, counts), files in self.groups.items():
            for word, n in zip(self.words, counts, strict=True):
                if n:
                    df[word] = df.get(word, 0) + len(files)
        return df

    def match_total(self) -> int:
        return sum(sum(counts) * len(files) for (_, counts), files in self.groups.items())


# One match: 1-based line, 1-based byte column, the matched text. A plain tuple,
# not a dataclass: a broad query yields tens of thousands of them.
Match = tuple[int, int, str]

_FULL_RE = re.compile(rb"^(\d+):(\d+):(.*)$", re.MULTILINE)
_TEXT_RE = re.compile(rb"^\d+:\d+:(.*)$", re.MULTILINE)
_NON_EMPTY_RE = re.compile(rb"^\d+:\d+:.", re.MULTILINE)  # a match with text (``matches``)


class FileHits:
    """The matches in one file, kept as ripgrep printed them until someone asks
    (the Python scanner hands over its matches or counts directly), and the file's
    *tier*, which the scan knew when it kept the file."""

    __slots__ = ("_counted", "_list", "_plain", "_raw", "_texts", "tier")

    def __init__(
        self,
        raw: bytes = b"",
        found: list[Match] | None = None,
        counted: dict[str, int] | None = None,
        tier: str | None = None,
        plain: bool = False,
    ) -> None:
        self._raw = raw
        self._list = found
        self._counted = counted
        self._texts: list[bytes] | None = None
        self.tier = tier
        # True: *raw* holds the matched texts only, never positions (a ``--regex``
        # scan's, `scanner.locate` finds their positions); False: told from *raw*.
        self._plain = plain

    def counts(self) -> dict[str, int]:
        """How many times each matched text occurs (lowercase)."""
        if self._counted is not None:
            return self._counted
        if self._list is not None:
            return dict(Counter(text for _, _, text in self._list))
        # A file holds a few matches: a dict counts them faster than a Counter.
        counted: dict[str, int] = {}
        for text in self.raw_texts() or ():
            if text:
                key = text.decode("utf-8", "replace")
                counted[key] = counted.get(key, 0) + 1
        return counted

    def raw_texts(self) -> list[bytes] | None:
        """The matched texts as ripgrep printed them, in order, or None when the scan
        handed over its matches or counts instead (`counts` reads those). ripgrep
        prints empty matches (a pattern like ``^``): they are in the list, and match
        no text."""
        if self._counted is not None or self._list is not None:
            return None
        texts = self._texts
        if texts is None:
            # Kept: the scan splits them while ripgrep still searches (`keep_raw`).
            self._texts = texts = texts_of(self._raw, self._plain)
        return texts

    def match_count(self) -> int:
        if self._counted is not None:
            return sum(self._counted.values())
        if self._list is not None:
            return len(self._list)
        if not self._plain and _FULL_RE.match(self._raw):  # positions, maybe empty matches
            return len(_NON_EMPTY_RE.findall(self._raw))
        return self._raw.count(b"\n") + 1

    def matches(self) -> list[Match]:
        if self._list is None:
            self._list = [
                (int(line), int(column), text.decode("utf-8", "replace"))
                for line, column, text in _FULL_RE.findall(self._raw)
                if text
            ]
        return self._list


def texts_of(raw: bytes, plain: bool) -> list[bytes]:
    """The matched texts of a file's block as ripgrep printed it: with positions, the
    texts alone (without a match object each); *plain*: the block holds texts only."""
    if not raw:
        return []
    if not plain and _FULL_RE.match(raw):
        return _TEXT_RE.findall(raw)
    return raw.split(b"\n")


def _self_overlapping(word: str) -> bool:
    """Whether two occurrences of *word* can overlap (a proper prefix is also a suffix)."""
    return any(word[:k] == word[-k:] for k in range(1, len(word)))


def split_tagged(body: bytes) -> tuple[bytes, bool]:
    """A file's matched texts without those of the tag pattern (`scanner.tag_pattern`),
    and whether there were any. A query term never holds ``#``; a tag match always does."""
    if b"#" not in body:
        return body, False
    lines = body.split(b"\n")
    kept = [line for line in lines if b"#" not in line]
    return b"\n".join(kept), len(kept) != len(lines)


class ScanResult:
    """What a scan found: files searched, warnings, and per matching file either the
    count of each query word (*counted*, a word query) or the raw matches (*matches*).
    *tagged*: with ``--tag`` on a word query, the files a tag line matched in the
    same scan (None when the scan did not look for tags)."""

    def __init__(self, scanner: str = "python", words: list[str] | None = None) -> None:
        self.tagged: set[str] | None = None
        self.files_searched = 0
        self._matches: dict[str, FileHits] = {}
        # Raw matches of notes of the episodic folder, files with the same printed
        # texts together: texts -> paths (`keep_raw`). `matches` holds them too.
        self.by_texts: dict[bytes, list[str]] = {}
        # Whether the printed texts come without positions (a ``--regex``'s scan: then
        # `locate` finds the positions in the files the ranking reads).
        self.plain = False
        self.locate: Callable[[list[tuple[str, list[str]]]], dict[str, FileHits]] | None = None
        self.counted: TermCounts | None = TermCounts(words) if words else None
        self.warnings: list[str] = []
        self.scanner = scanner

    @property
    def matches(self) -> dict[str, FileHits]:
        """Every file's raw matches; the files kept together by their texts
        (`by_texts`) get their own entry once someone asks for this."""
        if self.by_texts:
            self._matches.update(self._grouped_entries(None))
            self.by_texts = {}
        return self._matches

    @matches.setter
    def matches(self, matches: dict[str, FileHits]) -> None:
        self.by_texts = {}
        self._matches = matches

    def printed(self, rels: Collection[str]) -> dict[str, FileHits]:
        """The raw matches of the files *rels* alone: `matches` without an entry made
        for every file kept together by its texts (a broad --regex has thousands)."""
        wanted = set(rels)
        found = {rel: hits for rel in wanted if (hits := self._matches.get(rel)) is not None}
        if len(found) < len(wanted):
            found.update(self._grouped_entries(wanted))
        return found

    def _grouped_entries(self, wanted: set[str] | None) -> dict[str, FileHits]:
        """An entry of its own for each note of `by_texts` (of *wanted* alone, when
        given): the texts printed for it, lowercased, in the episodic tier."""
        entries: dict[str, FileHits] = {}
        for body, paths in self.by_texts.items():
            if wanted is not None and wanted.isdisjoint(paths):
                continue
            lowered = body.lower()
            for rel in paths:
                if wanted is None or rel in wanted:
                    entries[rel] = FileHits(lowered, None, None, "cold", self.plain)
        return entries

    def kept(self) -> dict[str, FileHits]:
        """The files with their own entry in `matches`, those of `by_texts` left out."""
        return self._matches


def counting_words(literals: list[str]) -> list[str] | None:
    """The query words to count per file, or None when the raw matches are needed.

    A term of digits only keeps the raw path: counted inside the matched texts it
    would also be found inside a longer number, an address or a version.
    """
    if not literals or any(word.isdigit() for word in literals):
        return None
    return literals


_NOTE_PREFIX = EPISODIC_PREFIX.encode("utf-8")


def all_notes(joined: bytes, count: int) -> bool:
    """Whether each of the *count* NUL-separated paths in *joined* is a file directly
    in the episodic folder: each starts with its prefix (the first, and one after
    every NUL), and there are no slashes but the prefix's two in each. Three
    C-level passes instead of two calls per path (measured: 28 against 11 ms of
    CPU on the 100,000 paths of a broad query)."""
    return (
        joined.startswith(_NOTE_PREFIX)
        and joined.count(b"\0" + _NOTE_PREFIX) == count - 1
        and joined.count(b"/") == _NOTE_PREFIX.count(b"/") * count
    )


def count_words(
    same_texts: dict[bytes, list[bytes]], counted: TermCounts, tagged: set[str] | None
) -> None:
    """Count each query word in each distinct sequence of matched texts, and keep the
    paths that printed it under its counts (`file_counted` files them). A sequence
    met before in the same scan (ripgrep's output comes a few blocks at a time) is
    not counted again."""
    known = counted.known
    waiting = counted.waiting
    for body, paths in same_texts.items():
        seen = known.get(body)
        if seen is None:
            text, has_tag = split_tagged(body) if tagged is not None else (body, False)
            # ASCII lowercase, as the Python scanner's bytes path; one C-level count per
            # word: the matched texts hold no line prefix a word could straddle. With
            # tags, a block of tag lines only has nothing left to count.
            empty = tagged is not None and not text
            found = None if empty else counted.count_in(normalise_bytes(text))
            seen = known[body] = (found, has_tag)
        found, has_tag = seen
        if has_tag and tagged is not None:
            tagged.update(
                name.decode("utf-8", "surrogateescape").removeprefix("./") for name in paths
            )
        if found is None:
            continue
        kept = waiting.get(found)
        if kept is None:
            waiting[found] = paths
        else:
            kept.extend(paths)


def file_counted(counted: TermCounts) -> None:
    """File the paths `count_words` kept under their tier and counts: all the paths
    of one count at once, once ripgrep has printed them all."""
    for found, paths in counted.waiting.items():
        # One decode for all the paths; NUL cannot occur in a path.
        joined = b"\0".join(paths)
        names = joined.decode("utf-8", "surrogateescape").split("\0")
        # The common case first: flat notes of the episodic folder (ripgrep's
        # ``--glob *.md`` already kept only markdown files), told for all the paths
        # at once when they all are, else path by path.
        if all_notes(joined, len(paths)):
            cold = names
        else:
            cold = [rel for rel in names if rel.startswith(EPISODIC_PREFIX) and rel.count("/") == 2]
        if cold:
            group = counted.groups.get(("cold", found))
            if group is None:
                counted.groups[("cold", found)] = cold
            else:
                group.extend(cold)
        if len(cold) == len(names):
            continue
        taken = set(cold)
        for name in names:
            if name in taken:
                continue
            rel = name.removeprefix("./")
            tier = tier_of(rel)
            if tier is not None:
                counted.add(rel, tier, found)
    counted.waiting = {}


STATS_RE = re.compile(rb"^(\d+) files searched$", re.MULTILINE)
_BINARY_RE = re.compile(rb"^(.*): binary file matches")


def parse_blocks(
    blocks: list[bytes],
    result: ScanResult,
    phrase: re.Pattern[str] | None = None,
    *,
    last: bool = True,
) -> None:
    """File blocks of ripgrep's ``--heading --null`` output (split at its blank
    lines): each is ``path NUL`` then its ``line:column:text`` lines, or a binary
    file's notice, or the statistics (last). Any run of consecutive blocks may be
    given at a time, in order; *last* with the final run (the counted paths are
    filed then, `file_counted`).

    For a word query the blocks are first gathered by their matched texts: the
    files of a broad query repeat a few thousand distinct sequences of the same
    few words, so the counting is done once per sequence, not once per file.
    """
    same_texts: dict[bytes, list[bytes]] = {}
    named: list[bytes] = []  # the raw matches' files (no counting): paths, bodies
    bodies: list[bytes] = []
    for block in blocks:
        path_bytes, sep, body = block.partition(b"\0")
        if sep:
            if result.counted is not None:
                paths = same_texts.get(body)
                if paths is None:
                    same_texts[body] = [path_bytes]
                else:
                    paths.append(path_bytes)
                continue
            named.append(path_bytes)
            bodies.append(body)
            continue
        binary = _BINARY_RE.match(block)
        if binary:
            rel = binary.group(1).decode("utf-8", "surrogateescape").removeprefix("./")
            result.warnings.append(f"skipped {rel}: binary file")
            continue
        stats = STATS_RE.search(block)
        if stats:
            result.files_searched = int(stats.group(1))
    if result.counted is not None:
        count_words(same_texts, result.counted, result.tagged)
        if last:
            file_counted(result.counted)
    elif named:
        keep_raw(named, bodies, result, phrase)


def keep_raw(
    named: list[bytes], bodies: list[bytes], result: ScanResult, phrase: re.Pattern[str] | None
) -> None:
    """Each tier file's raw matches (`FileHits`), from its printed path and block.

    The paths are decoded at once, and when all of them are notes of the episodic
    folder (a broad ``--regex``: ~50,000 files at 100,000 notes) their tier is told
    at once too (`all_notes`); else path by path (`tier_of`)."""
    joined = b"\0".join(named)
    names = joined.decode("utf-8", "surrogateescape").split("\0")
    if all_notes(joined, len(names)) and result.tagged is None and phrase is None:
        # Files with the same printed texts (positions aside, see `ScanResult.plain`)
        # are kept together: their counts are taken once (`pick.raw_counts`). A broad
        # --regex at 100,000 notes has ~49,000 files and ~17,000 distinct texts.
        same = result.by_texts
        for rel, body in zip(names, bodies, strict=True):
            paths = same.get(body)
            if paths is None:
                same[body] = [rel]
            else:
                paths.append(rel)
        return
    matches = result.matches
    plain = result.plain
    for name, body in zip(names, bodies, strict=True):
        rel = name.removeprefix("./")
        tier = tier_of(rel)
        if tier is None:
            continue
        if result.tagged is not None:
            body, tagged = split_tagged(body)
            if tagged:
                result.tagged.add(rel)
            if not body:
                continue
        if phrase is not None:
            body = phrase_words(body, phrase)
        hits = matches[rel] = FileHits(body.lower(), tier=tier, plain=plain)
        hits.raw_texts()
