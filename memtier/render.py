"""The one renderer: every report is printed as text or as one JSON object.

Core functions return small frozen dataclasses that implement `Report`
(``to_json`` gives the stable JSON contract, ``text_lines`` the human view);
the CLI hands them to `emit`. Colour is used only on a terminal and never when
``NO_COLOR`` is set.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterable
from typing import Any, Protocol, TextIO


class Report(Protocol):
    def to_json(self) -> dict[str, Any]: ...

    def text_lines(self) -> Iterable[str]: ...


def emit(report: Report, *, as_json: bool, stream: TextIO | None = None) -> None:
    out = stream or sys.stdout
    if as_json:
        out.write(json.dumps(report.to_json(), ensure_ascii=False, indent=2) + "\n")
        return
    for line in report.text_lines():
        out.write(line + "\n")


def emit_json(payload: dict[str, Any], stream: TextIO | None = None) -> None:
    (stream or sys.stdout).write(json.dumps(payload, ensure_ascii=False, indent=2) + "\n")


def warn(message: str) -> None:
    """A warning on stderr; warnings never change the exit code."""
    sys.stderr.write(f"memtier: warning: {message}\n")


def notice(message: str) -> None:
    """Information for the person on stderr (keeps stdout clean for --json)."""
    sys.stderr.write(f"memtier: {message}\n")


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
