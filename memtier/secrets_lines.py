"""Redaction of a run of lines that keeps each line in its place (PROTOCOL §3 v2).

What a reader of lines needs (``get`` shows a window of a file, a generation keeps
a summary line by line): the passes of `memtier.secrets.redact_folded`, but every
line a secret touches keeps what stands outside it, and the count of lines stays.
Only ``get`` and ``consolidate`` use it, so the writers' start-up never loads it.
"""

from __future__ import annotations

from collections.abc import Sequence

from memtier.secrets import RULE_NAMES, _cut, _scan, _seam_cuts, add_counts, redact

# How far around a window of lines `redact_lines_of` looks for a secret that
# runs into it: a private key block of 4,096 bits is about 50 lines long.
KEY_BLOCK_REACH = 200


def redact_lines(lines: Sequence[str]) -> tuple[tuple[str, ...], dict[str, int]]:
    """Redact *lines* as the one text they form, and give back as many lines.

    What a reader of lines needs (``get``, a summary kept line by line): the
    passes of `redact_folded`, in its order -- a token hard-wrapped in two, then
    key blocks and what stands on one line, then a value that a line break put
    after its key -- but each line a secret touches keeps what stands outside
    it, with one placeholder for the part inside; each secret counts once.
    """
    counts: dict[str, int] = {}
    text = "\n".join(lines)
    text = _cut(text, _seam_cuts(text, ""), counts)
    blocks = [(start, end, RULE_NAMES[index]) for start, end, index in _scan(text)]
    text = _cut(text, [cut for cut in blocks if "\n" in text[cut[0] : cut[1]]], counts)
    shown: list[str] = []
    for line in text.split("\n"):
        one = redact(line)
        shown.append(one.text)
        add_counts(counts, one.counts)
    text = "\n".join(shown)
    text = _cut(text, _seam_cuts(text, " ", crossing=False), counts)
    return tuple(text.split("\n")), counts


def redact_lines_of(
    lines: Sequence[str], first: int, last: int
) -> tuple[tuple[str, ...], dict[str, int]]:
    """Lines *first*..*last* (0-based, inclusive) of *lines*, redacted as
    `redact_lines` does, seen with `KEY_BLOCK_REACH` lines on each side so that
    a secret running into the window from outside it is still found."""
    lo = max(0, first - KEY_BLOCK_REACH)
    hi = min(len(lines), last + 1 + KEY_BLOCK_REACH)
    shown, counts = redact_lines(lines[lo:hi])
    return shown[first - lo : last + 1 - lo], counts
