"""The one renderer: a result is printed as text or as one JSON object, its messages
on stderr, and `show` returns the exit code.

Core functions return small frozen results that implement `Report` (``to_json``
gives the stable JSON contract, ``text_lines`` the plain view). A result carries
its own messages, read here and nowhere else:

- ``warnings``: tuple of strings, printed as ``memtier: warning: …`` (never change
  the exit code);
- ``notices``: tuple of strings, printed as ``memtier: …``;
- ``redacted``: rule → count, printed as ``redacted N secret(s): RULE`` notices
  (PROTOCOL §3: the rules and counts, never the secret), prefixed with
  ``redacted_in`` when the result names where (search: ``search log``);
- ``failure``: a `MemtierError` (or None) the result ends with, e.g. a failed
  health check: it goes through `fail`, the one error handler, for its exit code.

Control and bidirectional characters are escaped in everything printed (a text
line as ``\u202e``, a JSON string with JSON's own ``\u202e`` escape, which reads
back as the same text): a note holding U+202E must not reorder what a person sees
on a terminal, nor a carriage return overwrite a line (PROTOCOL §3 v2, one line
per item). `escape_controls` is the one rule; the tool server uses it too.

On a terminal (and without ``NO_COLOR``) the caller may pass a ``terminal`` view,
which prints the result for a person (the CLI's rich tables, `memtier.cli.views`);
piped output is always the plain lines, and --json never changes.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable, Iterable, Mapping

from memtier.results import Result

# Not typing's: importing it costs a search 3-4 ms. Type checkers read this as true.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TextIO

    from memtier.errors import MemtierError


# C0 controls but tab and line feed, DEL, C1 controls, the line and paragraph
# separators, and the bidirectional marks, embeddings, overrides and isolates.
_BIDI = (0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A))
_UNSAFE_CODES = (
    *(c for c in range(0x20) if c not in (0x09, 0x0A)),
    *range(0x7F, 0xA0),
    0x2028,
    0x2029,
    *_BIDI,
)
_TEXT_ESCAPES = {c: (f"\\x{c:02x}" if c < 0x100 else f"\\u{c:04x}") for c in _UNSAFE_CODES}
_JSON_ESCAPES = {c: f"\\u{c:04x}" for c in _UNSAFE_CODES if c >= 0x7F}
# Our own colours (`paint`) stay colours. This pattern and `_LONG_NUMBER` are compiled
# on first use (re's own cache): most runs print neither a colour nor an error.
_SGR = "(\x1b\\[[0-9;]*m)"


def escape_controls(text: str) -> str:
    """*text* with every control and bidi character shown as an escape (``\\x0d``,
    ``\\u202e``); tabs, line feeds and memtier's own colour codes kept."""
    if text.isprintable():
        return text  # the common case: nothing to look at twice
    if "\x1b" not in text:
        return text.translate(_TEXT_ESCAPES)
    pieces = re.split(_SGR, text)
    return "".join(p if i % 2 else p.translate(_TEXT_ESCAPES) for i, p in enumerate(pieces))


# What `show` prints and reads (warnings, notices, redactions, a failure): the
# interface every command result has by deriving from `memtier.results.Result`.
Report = Result


def show(
    report: Report,
    *,
    as_json: bool,
    warnings: Iterable[str] = (),
    terminal: Callable[[TextIO], None] | None = None,
    body: bool = True,
) -> int:
    """Print *report* (unless not *body*: the caller printed its output), then its
    notices and warnings (and the caller's *warnings*); return the exit code: 0, or
    the code of the failure the report carries."""
    out = sys.stdout
    if not body:
        pass
    elif as_json:
        emit_json(report.to_json(), out)
    else:
        if terminal is not None and colour_enabled(out):
            terminal(out)
        else:
            for line in report.text_lines():
                out.write(escape_controls(line) + "\n")
    for message in redaction_notices(report.redacted, report.redacted_in):
        notice(message)
    for message in report.notices:
        notice(message)
    for message in (*warnings, *report.warnings):
        warn(message)
    failure = report.failure
    return 0 if failure is None else fail(failure, as_json=as_json)


def fail(error: MemtierError, *, as_json: bool) -> int:
    """The one error handler: ``memtier: error: …`` on stderr (with --json also
    ``{"ok": false, "error": …}`` on stdout) and the error's exit code.

    A failed check whose report is already printed (`CheckFailed.shown`) adds
    nothing: the report's verdict is its message.
    """
    if error.shown:
        return error.exit_code
    message = clean_message(error.message)
    sys.stderr.write(f"memtier: error: {escape_controls(message)}\n")
    if as_json:
        emit_json({"ok": False, "error": message})
    return error.exit_code


def clean_message(message: str) -> str:
    # A message may quote what was typed (an unknown option, a task to match):
    # it never repeats a credential, even one split across lines, and it stays one
    # line (PROTOCOL §3 v2). Loaded only when there is an error.
    from memtier.secrets import one_line

    return re.sub(_LONG_NUMBER, _cut_number, one_line(message))


# A number of thousands of digits typed where a count belongs (``--limit 999…``) is
# quoted by its first digits and its length, never echoed whole.
_LONG_NUMBER = r"\d{41,}"


def _cut_number(found: re.Match[str]) -> str:
    digits = found.group(0)
    return f"{digits[:20]}… ({len(digits)} digits)"


def redaction_notices(counts: Mapping[str, int], where: str = "") -> tuple[str, ...]:
    """``redacted N secret(s): RULE`` per rule, sorted (PROTOCOL §3)."""
    prefix = f"{where}: " if where else ""
    return tuple(
        f"{prefix}redacted {count} secret(s): {rule}" for rule, count in sorted(counts.items())
    )


def emit_json(payload: dict[str, Any], stream: TextIO | None = None) -> None:
    import json  # only with --json: most calls print text

    text = json.dumps(payload, ensure_ascii=False, indent=2)
    # json escapes C0 itself; DEL, C1, separators and bidi marks get its \\u form.
    (stream or sys.stdout).write(text.translate(_JSON_ESCAPES) + "\n")


def warn(message: str) -> None:
    """A warning on stderr; warnings never change the exit code. A warning may name a
    file (``skipped <path>: …``): a credential in the name is shown redacted (§3 v4)."""
    from memtier.secrets import redact

    sys.stderr.write(f"memtier: warning: {escape_controls(redact(message).text)}\n")


def notice(message: str) -> None:
    """Information for the person on stderr (keeps stdout clean for --json)."""
    sys.stderr.write(f"memtier: {escape_controls(message)}\n")


def colour_enabled(stream: TextIO | None = None) -> bool:
    out = stream or sys.stdout
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    try:
        return out.isatty()
    except (AttributeError, ValueError):
        return False


_CODES = {"red": "31", "green": "32", "yellow": "33", "bold": "1", "dim": "2", "cyan": "36"}


def paint(text: str, style: str, enabled: bool) -> str:
    """Wrap *text* in an ANSI colour when *enabled* (see `colour_enabled`)."""
    if not enabled or style not in _CODES:
        return text
    return f"\033[{_CODES[style]}m{text}\033[0m"
