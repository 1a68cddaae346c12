"""Secret detection and redaction for everything memtier writes or checks.

How it works
------------
Detection is driven by one ordered table of named rules (``_RULES``), kept in
`memtier.secrets_tokens` (provider tokens), `memtier.secrets_rules` (syntax) and
`memtier.secrets_tokens` (a random value known by the name it is assigned to, v4):
regular expressions valid for Python's ``re`` and ripgrep alike, each with the
literal anchors that find its candidate lines. When a rule has capturing
groups, the first group that took part is the secret (the ``password=`` key,
the ``Bearer`` word and the user/host of a database URL stay readable);
otherwise the whole match is.

All rules apply to a single line, except ``PRIVATE_KEY``, which starts on a
``-----BEGIN ... PRIVATE KEY-----`` line and runs through the matching END
line (or, when no END line exists, through the base64 lines that follow).

Speed: nothing is compiled at import time; the rules are compiled once, on
first use.  ``prefilter_pattern()`` is the single alternation of all rules
(word boundaries dropped, a private key reduced to its BEGIN line): hand it to
``rg -e`` to find candidate files and lines of a large workspace.  Python's
``re`` has no literal-set acceleration, so that alternation costs about
0.4-0.9 s per 2 MB in process; ``detect`` therefore finds candidate lines with
``str.find`` on a few literal anchors per rule (``sk-``, ``AKIA``,
``password``, ...; lower-cased text for case-insensitive rules) and runs only
the anchored rules on those lines -- roughly 0.1 s per 2 MB of prose.

Overlap policy
--------------
The table is ordered from most to least specific.  Candidate spans that
overlap (even partly) are merged into one span, which is replaced as a whole,
so no fragment of a secret survives; that span is reported once, under the
rule that comes first in the table.  Hence ``sk-ant-...`` is ANTHROPIC_KEY,
never OPENAI_KEY, and a JWT sent as ``Bearer eyJ...`` is reported as JWT (the
BEARER_TOKEN rule only names bearer tokens of other shapes).  A provider rule
always wins over PASSWORD_ASSIGNMENT and DATABASE_URL.

Placeholders and idempotency
----------------------------
A secret is replaced by ``[REDACTED:<RULE>]``.  A candidate that overlaps an
existing placeholder is ignored, and ``redact`` repeats its pass until the
text holds nothing more to redact, so ``redact`` is idempotent and
``detect(redact(t).text)`` is empty.  Neither function returns, logs or
raises anything that contains matched text: a ``Finding`` only carries the
rule name and the 1-based line number.

Why our own table rather than a library
---------------------------------------
The obvious candidate, ``detect-secrets`` (1.5.0 on PyPI, last released in
May 2024), was rejected: importing it and loading its plugins costs about
0.2 s, paid on every write command; its entropy-based detectors flag a lot of
ordinary prose and identifiers in markdown notes; and its rules cannot be
turned into a single ripgrep-compatible prefilter.  A small table of precise,
prefix-anchored patterns is fast, predictable and easy to audit.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from contextlib import suppress
from functools import cache, lru_cache

from memtier.secrets_rules import (
    PRIVATE_KEY,
    SYNTAX,
    Rule,
    name_may_hold_secret,
    secret_group,
)
from memtier.secrets_tokens import KEYED, TOKENS
from memtier.values import Fields, field


class Finding(Fields):
    """One secret occurrence: which rule matched and on which line (1-based)."""

    rule: str
    line: int


class Redaction(Fields):
    """Result of ``redact``: the cleaned text and replacements per rule."""

    text: str
    counts: dict[str, int]

    @property
    def changed(self) -> bool:
        """True when at least one secret was replaced."""
        return bool(self.counts)


# The whole table: a provider rule wins over a generic one where spans overlap, and a
# secret known only by its name (`memtier.secrets_tokens`, v4) comes last.
_RULES: tuple[Rule, ...] = (PRIVATE_KEY, *TOKENS, *SYNTAX, *KEYED)

RULE_NAMES: tuple[str, ...] = tuple(rule.name for rule in _RULES)

_PLACEHOLDER_PREFIX = "[REDACTED:"
_MAX_PASSES = 16


def _placeholder(rule: str) -> str:
    return f"{_PLACEHOLDER_PREFIX}{rule}]"


def prefilter_pattern() -> str:
    """One regex matching every line that could hold a secret.

    It is the alternation of every rule (for a private key, its BEGIN line)
    with word boundaries dropped, so it matches a superset of what the rules
    match.  Valid for Python ``re`` and ripgrep's default engine; pass it to
    ``rg`` with ``-e`` since it may start with ``-``.
    """
    return "|".join(
        "(?:" + (rule.block[0] if rule.block else rule.pattern).replace(r"\b", "") + ")"
        for rule in _RULES
    )


_Block = tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]


@cache
def _rule_regex(index: int) -> re.Pattern[str] | _Block:
    """One rule's compiled pattern, on first need: most texts hold none of a rule's
    anchors, and compiling all of them costs about 20 ms in every writing process."""
    rule = _RULES[index]
    if rule.block:
        return (re.compile(rule.block[0]), re.compile(rule.block[1]), re.compile(rule.block[2]))
    return re.compile(rule.pattern)


@lru_cache(maxsize=1)
def _placeholder_regex() -> tuple[re.Pattern[str], int]:
    """The placeholder pattern and the width of the longest placeholder."""
    names = "|".join(RULE_NAMES)
    pattern = re.compile(re.escape(_PLACEHOLDER_PREFIX) + f"(?:{names})\\]")
    return pattern, max(len(_placeholder(name)) for name in RULE_NAMES)


def _line_starts(
    text: str, lowered: str | None, rule: Rule, anchors: Sequence[str] | None = None
) -> list[int]:
    """Offsets of the lines holding one of the rule's anchors (of *anchors*, those
    of them known to stand in the text, when given)."""
    starts: list[int] = []
    for anchor in rule.anchors if anchors is None else anchors:
        if not rule.folded or lowered is not None:
            hay = lowered if rule.folded and lowered is not None else text
            pos = hay.find(anchor)
            while pos >= 0:
                starts.append(text.rfind("\n", 0, pos) + 1)
                pos = text.find("\n", pos)
                pos = -1 if pos < 0 else hay.find(anchor, pos)
        else:  # text.lower() changed lengths: fall back to a regex search
            for hit in re.finditer(re.escape(anchor), text, re.IGNORECASE):
                starts.append(text.rfind("\n", 0, hit.start()) + 1)
    return starts


def _anchor_hits(
    text: str, lowered: str | None, rule: Rule, anchors: Sequence[str] | None = None
) -> dict[int, set[int]]:
    """Every offset where one of the rule's anchors (of *anchors*, when given)
    stands, with the lengths of the anchors found there (`Rule.followed` tries its
    rest after those only)."""
    hits: dict[int, set[int]] = {}
    for anchor in rule.anchors if anchors is None else anchors:
        if not rule.folded or lowered is not None:
            hay = lowered if rule.folded and lowered is not None else text
            size = len(anchor)
            pos = hay.find(anchor)
            while pos >= 0:
                hits.setdefault(pos, set()).add(size)
                pos = hay.find(anchor, pos + 1)
        else:  # text.lower() changed lengths: fall back to a regex search
            for hit in re.finditer(re.escape(anchor), text, re.IGNORECASE):
                hits.setdefault(hit.start(), set()).add(hit.end() - hit.start())
    return hits


def _matches_near_anchors(
    text: str, compiled: re.Pattern[str], hits: list[int], lead: int
) -> list[re.Match[str]]:
    """A rule whose every match starts at most *lead* characters before one of its
    anchors is tried only there, anchored (`Rule.lead`): a long alternation of
    keywords costs nothing on the rest of the line."""
    found: list[re.Match[str]] = []
    tried: set[int] = set()
    for hit in hits:
        line_start = text.rfind("\n", 0, hit) + 1
        end = _line_end(text, hit)
        for pos in range(max(line_start, hit - lead), hit + 1):
            if pos in tried:
                continue
            tried.add(pos)
            match = compiled.match(text, pos, end)
            if match is not None:
                found.append(match)
    return found


def _line_end(text: str, line_start: int) -> int:
    end = text.find("\n", line_start)
    return len(text) if end < 0 else end


def _block_spans(text: str, lines: list[int], block: _Block) -> list[tuple[int, int]]:
    """Spans of a multi-line rule whose first line is one of ``lines``."""
    start_rx, stop_rx, body_rx = block
    spans: list[tuple[int, int]] = []
    stop: re.Match[str] | None = None
    searched = False
    for line_start in lines:
        for begin in start_rx.finditer(text, line_start, _line_end(text, line_start)):
            if spans and begin.start() < spans[-1][1]:
                continue  # inside the previous block
            # One forward search for the closing line serves every opening
            # line before it, so many unclosed blocks stay linear in time.
            if not searched or (stop is not None and stop.start() < begin.end()):
                stop = stop_rx.search(text, begin.end())
                searched = True
            body = body_rx.match(text, begin.end())
            end = stop.end() if stop else body.end() if body else begin.end()
            spans.append((begin.start(), end))
    return spans


@cache
def _anchor_table() -> tuple[tuple[tuple[str, int], ...], tuple[tuple[str, int], ...]]:
    """Every rule's anchors as (anchor, rule index): the folded ones, then the others."""
    folded = tuple((a, i) for i, rule in enumerate(_RULES) if rule.folded for a in rule.anchors)
    exact = tuple((a, i) for i, rule in enumerate(_RULES) if not rule.folded for a in rule.anchors)
    return folded, exact


def _anchors_present(text: str, lowered: str | None) -> dict[int, list[str]]:
    """Per rule, the anchors of it that stand in *text* (rules with none are left
    out): one ``in`` per anchor, so that the many rules a text gives no footing
    cost nothing more, and a rule then looks only for the anchors it has. A folded
    rule whose text changed length when lowered keeps all its anchors:
    `_line_starts` then searches it case-blind itself."""
    folded, exact = _anchor_table()
    found: dict[int, list[str]] = {}
    for anchor, index in exact:
        if anchor in text:
            found.setdefault(index, []).append(anchor)
    for anchor, index in folded:
        if lowered is None or anchor in lowered:
            found.setdefault(index, []).append(anchor)
    return found


def _candidates(text: str, exhaustive: bool) -> list[tuple[int, int, int]]:
    """Raw (start, end, rule index) spans found on the anchored lines.

    ``exhaustive`` runs every rule on every line instead (used by tests to
    check that the anchors never hide a match).
    """
    found: list[tuple[int, int, int]] = []
    lowered: str | None = text.lower()
    if lowered is not None and len(lowered) != len(text):
        lowered = None
    every_line = [0] + [i + 1 for i, ch in enumerate(text) if ch == "\n"] if exhaustive else []
    # A rule none of whose anchors stands in the text finds nothing below.
    present = {} if exhaustive else _anchors_present(text, lowered)
    for index, rule in enumerate(_RULES):
        anchors = present.get(index)
        if not exhaustive and anchors is None:
            continue
        if rule.lead is not None:
            hits = (
                list(range(len(text)))
                if exhaustive
                else rule.followed(text, _anchor_hits(text, lowered, rule, anchors))
            )
            if not hits:
                continue
            compiled = _rule_regex(index)
            assert not isinstance(compiled, tuple)
            matches = _matches_near_anchors(text, compiled, hits, 0 if exhaustive else rule.lead)
        else:
            lines = sorted(set(every_line or _line_starts(text, lowered, rule, anchors)))
            if not lines:
                continue
            compiled = _rule_regex(index)
            if isinstance(compiled, tuple):
                found.extend((s, e, index) for s, e in _block_spans(text, lines, compiled))
                continue
            matches = [
                match
                for line_start in lines
                for match in compiled.finditer(text, line_start, _line_end(text, line_start))
            ]
        for match in matches:
            if rule.plausible is not None and not rule.plausible(match):
                continue
            start, end = match.span(secret_group(match))
            if end > start:
                found.append((start, end, index))
    return found


def _touches_placeholder(text: str, start: int, end: int) -> bool:
    placeholder, width = _placeholder_regex()
    window = placeholder.finditer(text, max(0, start - width), end + width)
    return any(ph.start() < end and start < ph.end() for ph in window)


# The spans of the short texts scanned last: a command scans the same words again and
# again (a name at each check, a message where made and where printed), each scan ~340
# substring searches. At most `_SEEN_TEXTS` texts of `_SEEN_LENGTH` characters or less.
_SEEN: OrderedDict[str, tuple[tuple[int, int, int], ...]] = OrderedDict()
_SEEN_TEXTS = 512
_SEEN_LENGTH = 4096


def _scan(text: str, exhaustive: bool = False) -> list[tuple[int, int, int]]:
    """Merged, non-overlapping (start, end, rule index) spans in text order."""
    if exhaustive or len(text) > _SEEN_LENGTH:
        return _scan_once(text, exhaustive)
    spans = _SEEN.get(text)
    if spans is None:
        spans = tuple(_scan_once(text, exhaustive))
        _SEEN[text] = spans
        while len(_SEEN) > _SEEN_TEXTS:
            with suppress(KeyError):  # another thread emptied it meanwhile
                _SEEN.popitem(last=False)
    else:  # another thread may have dropped it meanwhile
        with suppress(KeyError):
            _SEEN.move_to_end(text)
    return list(spans)


def _scan_once(text: str, exhaustive: bool) -> list[tuple[int, int, int]]:
    found = _candidates(text, exhaustive)
    if not found:
        return []
    if _PLACEHOLDER_PREFIX in text:
        found = [c for c in found if not _touches_placeholder(text, c[0], c[1])]
    found.sort()
    merged: list[tuple[int, int, int]] = []
    for start, end, index in found:
        if merged and start < merged[-1][1]:
            last_start, last_end, last_index = merged[-1]
            merged[-1] = (last_start, max(last_end, end), min(last_index, index))
        else:
            merged.append((start, end, index))
    return merged


def detect(text: str) -> list[Finding]:
    """Return one Finding per secret in ``text``, sorted by line then rule."""
    findings: list[Finding] = []
    line = 1
    counted_to = 0
    for start, _end, index in _scan(text):
        line += text.count("\n", counted_to, start)
        counted_to = start
        findings.append(Finding(rule=RULE_NAMES[index], line=line))
    findings.sort(key=lambda f: (f.line, f.rule))
    return findings


def redact(text: str) -> Redaction:
    """Replace every secret in ``text`` with ``[REDACTED:<RULE>]``.

    Text without secrets is returned unchanged, with empty counts.
    """
    counts: dict[str, int] = {}
    current = text
    for _ in range(_MAX_PASSES):
        spans = _scan(current)
        if not spans:
            break
        parts: list[str] = []
        pos = 0
        for start, end, index in spans:
            name = RULE_NAMES[index]
            parts.append(current[pos:start])
            parts.append(_placeholder(name))
            counts[name] = counts.get(name, 0) + 1
            pos = end
        parts.append(current[pos:])
        current = "".join(parts)
    return Redaction(text=current, counts=counts)


def detect_in_name(name: str) -> list[Finding]:
    """The secrets in a file or folder name (PROTOCOL §3 v4: file names are scanned too)."""
    return detect(name) if name_may_hold_secret(name) else []


def redact_name(name: str) -> str:
    """*name* as it may be shown: a credential in it replaced by its placeholder."""
    return redact(name).text if name_may_hold_secret(name) else name


def refuse_secret_in_name(shown: str) -> None:
    """A file or folder is never named after a credential (PROTOCOL §3 v2): the name
    would show it in every listing. The message names the rule, never the path."""
    from memtier.errors import InputError

    found = detect(shown)
    if found:
        rules = ", ".join(sorted({finding.rule for finding in found}))
        raise InputError(f"refusing to create a path that holds a secret ({rules})")


def redact_folded(text: str) -> Redaction:
    """Redact *text*, fold it to one line, redact again (PROTOCOL §3 v2).

    A credential split by a line break (``password:`` on one line, the value on the
    next) is recognisable only once the halves meet, a key block only before its
    lines meet: both passes are needed. A token hard-wrapped in its middle would
    become two harmless words once folded (``ghp_abc… …xyz``), so first the halves
    are tried glued together, without the blank (`redact_wrapped`; issue 19). Line
    breaks and the blanks around them become one space. `fold_line` adds the
    cleaning of control characters for text that is written; error messages use
    this directly.
    """
    wrapped = redact_wrapped(text) if "\n" in text or "\r" in text else Redaction(text, {})
    first = redact(wrapped.text)
    lines = first.text.splitlines()
    if len(lines) <= 1:
        # Nothing to fold: the second pass would read the same line again.
        return Redaction(first.text.strip(), merge_counts(wrapped.counts, first.counts))
    parts = (part.strip() for part in lines)
    second = redact(" ".join(part for part in parts if part))
    return Redaction(second.text, merge_counts(wrapped.counts, first.counts, second.counts))


def one_line(message: str) -> str:
    """A message as one line that never repeats a credential, even one split across
    lines (PROTOCOL §3 v2): how every error is printed, by either face."""
    return redact_folded(message).text


def redact_wrapped(text: str) -> Redaction:
    """Redact the secrets that a line break cuts in two (PROTOCOL §3 v2, issue 19).

    The lines, stripped of their blanks, are glued without a separator; a secret
    found across a seam is replaced in *text* whole -- from its start on one line
    through its end on the next, the break included. Secrets that stand on one
    line are left to `redact`, which sees them as they are.
    """
    counts: dict[str, int] = {}
    return Redaction(_cut(text, _seam_cuts(text, ""), counts, keep_lines=False), counts)


def _starts_item(core: str) -> bool:
    """A markdown list item or heading: where no hard wrap of a token ends."""
    if core.startswith("#") or core[:2] in ("- ", "* ", "+ "):
        return True
    digits = len(core) - len(core.lstrip("0123456789"))
    return 0 < digits <= 3 and core[digits : digits + 2] in (". ", ") ")


def _seam_cuts(text: str, separator: str, crossing: bool = True) -> list[tuple[int, int, str]]:
    """The secrets of *text* once its lines, stripped of their blanks, are glued
    with *separator*: spans in *text* (start, end, rule), in order. With
    *crossing*, only those that take characters from both sides of a line break;
    without, also a value that stands alone on the line after its key."""
    lines = text.splitlines(keepends=True)
    glued: list[str] = []
    origin: list[int] = []  # offset in *text* of each glued character
    seams: list[int] = []  # glued offsets where a line break was taken out
    offset = 0
    for line in lines:
        body = line.rstrip("\r\n")
        lead = len(body) - len(body.lstrip())
        core = body.strip()
        if core:
            if glued and _starts_item(core):
                # A list item or a heading starts afresh: no hard wrap ends there.
                glued.append("\n")
                origin.append(origin[-1] + 1)
            elif glued:
                seams.append(len(glued))
                glued.extend(separator)
                origin.extend([origin[-1] + 1] * len(separator))
            glued.extend(core)
            origin.extend(range(offset + lead, offset + lead + len(core)))
        offset += len(line)
    if not seams:
        return []
    joined = "".join(glued)
    cuts: list[tuple[int, int, str]] = []
    for start, end, index in _scan(joined):
        if not crossing or any(start < seam and seam + len(separator) < end for seam in seams):
            cuts.append((origin[start], origin[end - 1] + 1, RULE_NAMES[index]))
    return cuts


def _cut(
    text: str, cuts: list[tuple[int, int, str]], counts: dict[str, int], *, keep_lines: bool = True
) -> str:
    """*text* with each span of *cuts* (overlapping ones as one) replaced by its
    placeholder; each span is added to *counts* once. With *keep_lines*, line by
    line: every line a span touches keeps what stands outside it and gets one
    placeholder for the part inside, so no line is lost or merged."""
    pieces: list[str] = []
    pos = 0
    for start, end, name in _merged(cuts):
        pieces.append(text[pos:start])
        if keep_lines:
            inside = text[start:end].split("\n")
            pieces.append("\n".join(_placeholder(name) if p.strip() else p for p in inside))
        else:
            pieces.append(_placeholder(name))
        counts[name] = counts.get(name, 0) + 1
        pos = end
    pieces.append(text[pos:])
    return "".join(pieces)


def _merged(cuts: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """Overlapping spans as one, under the first one's rule, in order."""
    merged: list[tuple[int, int, str]] = []
    for start, end, name in sorted(cuts):
        if merged and start < merged[-1][1]:
            first_start, first_end, first_name = merged[-1]
            merged[-1] = (first_start, max(first_end, end), first_name)
        else:
            merged.append((start, end, name))
    return merged


def add_counts(total: dict[str, int], more: Mapping[str, int]) -> dict[str, int]:
    """Add the replacements per rule of *more* into *total*, in place; returns *total*
    (every writer sums the counts of its redactions for its one notice, PROTOCOL §3)."""
    for rule, count in more.items():
        total[rule] = total.get(rule, 0) + count
    return total


def merge_counts(*counts: Mapping[str, int]) -> dict[str, int]:
    """The replacements per rule of several redactions, summed into a new dict."""
    merged: dict[str, int] = {}
    for one in counts:
        add_counts(merged, one)
    return merged


# ---------------------------------------------------------------------------
# Text an agent or a person typed, made into one safe line of markdown (PROTOCOL §3).
#
# One home for line folding: every command that writes a TEXT argument as one
# line (buffer, episodic, learn, promote, remember, capture) calls `fold_line`,
# which is `redact_folded` after the cleaning of control characters.

# Control characters other than the tab make a file "binary" (NUL) or move a
# terminal's cursor when the line is printed back: each becomes a space.
# Line breaks are handled by `str.splitlines`, which knows every kind of them.
_CONTROLS = {code: " " for code in (*range(0x00, 0x09), *range(0x0E, 0x1C), 0x7F)}
_BULLETS = tuple(mark + blank for mark in "-*+" for blank in " \t")


class FoldedLine(Fields):
    """One line of text, its secrets replaced, and how many of each rule fired."""

    text: str
    redacted: dict[str, int] = field(default_factory=dict)


def replace_invalid(text: str) -> str:
    """*text* with every undecodable byte (a lone surrogate, as Python spells bytes of
    an argument that were not UTF-8) replaced by U+FFFD, so it can be written as UTF-8."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return "".join("\ufffd" if "\ud800" <= ch <= "\udfff" else ch for ch in text)
    return text


def fold_line(raw: str) -> FoldedLine:
    """Redact, fold to one line, redact again (PROTOCOL §3 v2).

    Line breaks and the blanks around them become one space; blanks inside a
    line are kept. The result may be empty: each caller says what empty means.
    """
    redaction = redact_folded(replace_invalid(raw).translate(_CONTROLS))
    return FoldedLine(redaction.text, redaction.counts)


def without_bullet(text: str) -> str:
    """*text* without one leading markdown bullet, for a writer that adds its own
    (PROTOCOL §3 v2): ``- nas01 runs Ubuntu`` is not stored as ``- - nas01 …``.
    A checkbox keeps its box: ``- [ ] x`` becomes ``[ ] x``, written ``- [ ] x``.
    The one bullet rule: `remember`'s facts and the retirement log use it too."""
    stripped = text.lstrip()
    for bullet in _BULLETS:
        if stripped.startswith(bullet):
            return stripped[len(bullet) :].lstrip()
    return text
