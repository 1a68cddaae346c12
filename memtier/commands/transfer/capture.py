"""`memtier capture [--channel C] [--explain] [TEXT|-]`: keep an inbound message or not.

PROTOCOL §12, after the memory-brain plugin's capture rules. A message shorter
than ``capture_min_chars`` is never kept. Otherwise it scores:

- +0.4 when it holds an explicit trigger phrase (``capture_triggers``: "remember
  this", "merke dir", …; case-insensitive substring, as the plugin matches);
- +0.2 when it holds a topic word (``capture_topics``: "decision", "entscheidung", …);
- +0.2 when it is long (at least ``capture_long_chars`` characters);
- +0.2 when it is structured (a list, several lines, or ``key: value`` pairs);

and is kept at ``capture_keep_score`` (0.4) or more: a trigger alone is enough, a
topic word needs length or structure with it. A kept message, its trigger phrase
stripped, redacted and folded like every buffer write, becomes a buffer note
tagged ``#captured``. The result says why either way.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from memtier.results import Record, Result, fixed
from memtier.workspace import Workspace

EXPLICIT, TOPIC, LONG, STRUCTURED = 0.4, 0.2, 0.2, 0.2
TAG = "#captured"
_KEY_VALUE = re.compile(r"^\s*[\w .-]{1,40}:\s+\S", re.MULTILINE)
_LIST_LINE = re.compile(r"^\s*([-*+]|\d+[.)])\s+\S", re.MULTILINE)


@dataclass(frozen=True)
class ScorePart(Record):
    rule: str  # explicit | topic | long | structured
    points: float
    because: str


@dataclass(frozen=True)
class CaptureResult(Result):
    kept: bool
    score: float
    threshold: float
    parts: tuple[ScorePart, ...]
    reason: str
    length: int
    channel: str | None = None
    line: str | None = None  # the buffer line written, when kept
    redacted: dict[str, int] = field(default_factory=dict)
    explain: bool = False
    line_number: int | None = None  # where that line stands in the buffer
    written: bool = True  # False for --explain: kept is what a capture would do

    # "line" is a line number and "text" the text, as in every command's JSON.
    JSON_NAMES = fixed(line_number="line", line="text")
    JSON_OMIT = frozenset({"explain", "written"})

    def text_lines(self) -> Iterable[str]:
        if self.kept and not self.written:
            yield f"would be captured: {self.reason}"
        elif self.kept:
            yield f"captured into the working buffer: {self.line}"
        else:
            yield f"not captured: {self.reason}"
        if self.explain:
            for part in self.parts:
                yield f"  +{part.points:.1f} {part.rule}: {part.because}"
            yield f"  score {self.score:.1f} (kept at {self.threshold:.1f} or more)"


def _found(text: str, phrases: Iterable[str]) -> str | None:
    lowered = text.lower()
    return next((p for p in phrases if p in lowered), None)


def _structured(text: str) -> str | None:
    if len(_LIST_LINE.findall(text)) >= 2:
        return "a list"
    if len([line for line in text.split("\n") if line.strip()]) >= 3:
        return "several lines"
    if _KEY_VALUE.search(text):
        return "key: value pairs"
    return None


def strip_trigger(text: str, trigger: str) -> str:
    """*text* without its trigger phrase and the punctuation that follows it."""
    at = text.lower().find(trigger)
    if at < 0:
        return text
    before, after = text[:at], text[at + len(trigger) :]
    after = re.sub(r"^[ \t]*[:,;.!–—-]?[ \t]*", "", after)
    before = re.sub(r"[\s,;:]*$", "", before)
    return f"{before} {after}".strip() if before else after.strip()


def score_message(ws: Workspace, text: str) -> tuple[float, list[ScorePart], str | None]:
    """The score's parts for *text*, and the trigger phrase it holds (if any)."""
    cfg = ws.config
    parts: list[ScorePart] = []
    trigger = _found(text, cfg.capture_triggers)
    if trigger:
        parts.append(ScorePart("explicit", EXPLICIT, f"trigger phrase '{trigger}'"))
    rest = strip_trigger(text, trigger) if trigger else text
    topic = _found(rest, cfg.capture_topics)
    if topic:
        parts.append(ScorePart("topic", TOPIC, f"topic word '{topic}'"))
    if len(text) >= cfg.capture_long_chars:
        parts.append(
            ScorePart("long", LONG, f"{len(text)} characters (≥ {cfg.capture_long_chars})")
        )
    shape = _structured(rest)
    if shape:
        parts.append(ScorePart("structured", STRUCTURED, shape))
    return round(sum(p.points for p in parts), 2), parts, trigger


def capture(
    ws: Workspace, text: str, *, channel: str | None = None, explain: bool = False
) -> CaptureResult:
    """Score one inbound message and keep it as a buffer note when it earns it."""
    from memtier.secrets import fold_line

    cfg = ws.config
    message = text.strip()
    score, parts, trigger = score_message(ws, message)
    threshold = cfg.capture_keep_score
    # The channel is echoed and becomes part of the note's label: one line,
    # redacted before and after folding like the message (PROTOCOL §3 v2).
    label_line = fold_line(channel) if channel else None
    base: dict[str, Any] = {
        "score": score,
        "threshold": threshold,
        "parts": tuple(parts),
        "length": len(message),
        "channel": (label_line.text.strip() or None) if label_line else None,
        "explain": explain,
    }
    if len(message) < cfg.capture_min_chars:
        why = f"too short ({len(message)} characters; at least {cfg.capture_min_chars})"
        return CaptureResult(kept=False, reason=why, **base)
    if score < threshold:
        why = f"score {score:.1f} is below {threshold:.1f}" + (
            "" if parts else " (nothing matched)"
        )
        return CaptureResult(kept=False, reason=why, **base)
    from memtier.commands.lifecycle import buffer_note
    from memtier.secrets import merge_counts

    kept = strip_trigger(message, trigger) if trigger else message
    label = f"[{base['channel']}] " if base["channel"] else ""
    why = f"score {score:.1f} reaches {threshold:.1f}"
    if explain:
        # PROTOCOL §12 v3: --explain changes no byte; it says it would keep it.
        why += "; not written (--explain changes nothing)"
        return CaptureResult(kept=True, reason=why, written=False, **base)
    written = buffer_note(ws, f"{label}{kept} {TAG}")
    return CaptureResult(
        kept=True,
        reason=why,
        line=written.line,
        redacted=merge_counts(dict(written.redacted), label_line.redacted if label_line else {}),
        line_number=written.line_number,
        **base,
    )
