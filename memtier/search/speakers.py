"""Who says a line: the speaker labels of a chat written as a list (PROTOCOL §9 v4).

A chat kept in memory is usually one list item per turn, ``- Name: what was
said`` (a diary of talks, an imported conversation). The name there says who
speaks, not what is said: a query naming the person asks about that person's
own words, so a line whose speaker is named in the query is preferred as the
hit's line (`group`), and the label itself is never the line's evidence.

A label is a list marker, then one to three words each capitalised (a first name,
"Dr. Smith", "Anna-Lena") and a colon. Closure-block labels (``Decisions:``…)
have no list marker and are `metadata`'s.
"""

from __future__ import annotations

import re

_SPEAKER_RE = re.compile(
    r"^\s*[-*+]\s+(?:\*\*)?([^\W\d_][\w.'’-]*(?: [^\W\d_][\w.'’-]*){0,2})(?:\*\*)?:\s"
)


def speaker(text: str) -> tuple[str, int] | None:
    """The speaker named by a line's label (lowercased) and the 1-based byte column
    just after the label; None when the line has no speaker label."""
    if not text or text.lstrip()[:1] not in ("-", "*", "+"):
        return None  # the common case, decided on the first character
    found = _SPEAKER_RE.match(text)
    if found is None or not all(word[0].isupper() for word in found.group(1).split()):
        return None
    return found.group(1).lower(), len(text[: found.end(1)].encode("utf-8")) + 1
