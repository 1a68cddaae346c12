"""Text an agent or a person typed, made into one safe line of markdown (PROTOCOL §3).

One home for line folding: every command that writes a TEXT argument as one
line (buffer, episodic, learn, promote, and the commands to come) calls
`fold_line`. It redacts secrets on the text as given, folds it to one line,
then redacts again (PROTOCOL §3 v2): a credential split by a line break
(``password:`` on one line, the value on the next) is only recognisable once
the two halves meet, and a key block is only recognisable before its lines meet.

Pure text in, text out; nothing here reads or writes a file.
"""

from __future__ import annotations

from dataclasses import dataclass, field

# Control characters other than the tab make a file "binary" (NUL) or move a
# terminal's cursor when the line is printed back: each becomes a space.
# Line breaks are handled by `str.splitlines`, which knows every kind of them.
_CONTROLS = {code: " " for code in (*range(0x00, 0x09), *range(0x0E, 0x1C), 0x7F)}
_BULLETS = tuple(mark + blank for mark in "-*+" for blank in " \t")


@dataclass(frozen=True)
class FoldedLine:
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
    from memtier.secrets import redact_folded

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
