"""The one error hierarchy of memtier.

Every failure a user can cause is a `MemtierError`. The CLI has a single
handler that prints ``memtier: error: <message>`` on stderr and exits with the
error's ``exit_code``: 2 for usage and input errors, 1 for protocol refusals,
failed writes and failed checks. Anything else that escapes is a bug: the
handler says so in one line and exits `EXIT_BUG` (3).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from memtier.values import Fields

EXIT_OK = 0
EXIT_REFUSED = 1
EXIT_INPUT = 2
EXIT_BUG = 3


class Term(Fields):
    """A parameter at fault, or an operation that fixes it, named in a message.

    The core says *what* (``Term("kind")``: the parameter ``kind`` of the core
    function; ``Term("replace", arg=rel)``: correcting a fact of *rel*); each
    face words it: the CLI as ``--kind`` or ``memtier replace OLD NEW --in rel``,
    the tool server as ``kind`` or ``memory_replace(...)`` (PROTOCOL §11 v3).
    *arg* is what the operation acts on (a file, a topic), when the message knows.
    """

    name: str
    arg: str | None = None

    def __str__(self) -> str:
        """The plain wording, the command line's (the tool server has its own)."""
        if self.name in _COMMANDS:
            return _COMMANDS[self.name].format(arg=self.arg or "FILE")
        return _OPTIONS.get(self.name, self.name)


# How the command line names the parameters of the core functions (PROTOCOL §9, §10).
_OPTIONS = {
    "kind": "--kind",
    "to": "--to",
    "in_file": "--in",
    "date": "--date",
    "section": "--section",
    "tags": "--tag",
    "stale": "--stale",
    "path": "PATH",
    "as_text": "--as",
    "reason": "--reason",
    "force": "--force",
    # the topic commands (PROTOCOL §13)
    "topic": "SLUG",
    "slug": "SLUG",
    "due": "--due",
    "plan_id": "--plan-id",
    "summary": "--summary",
    "max_chars": "--max-chars",
    "summary_max_chars": "summary_max_chars",
    "max_lines": "--max-lines",
    "match": "--match",
    "status": "--status",
    "category": "--category",
    # search (PROTOCOL §9) and the day's closure block (PROTOCOL §4)
    "limit": "--limit",
    "context": "--context",
    "regex": "--regex",
    "decisions": "--decisions",
    "signal": "--signal",
    "open": "--open",
    # commands no tool has (archive, init, tags, export)
    "days": "--days",
    "demo": "--demo",
    "add": "--add",
    "tier": "--tier",
    "output": "--output",
}
_COMMANDS = {
    "replace": "memtier replace OLD NEW --in {arg}",
    "retire": "memtier retire OLD --in {arg} --reason R",
    "remember_warm": "memtier remember TEXT --kind K",
    "tags_add": "memtier tags --add TAG",
    "session-start": "memtier session-start",
    "health-verbose": "memtier health-check --verbose",
    "candidates": "memtier candidates",
    "health": "memtier health-check",
    "consolidate_plan": "memtier consolidate {arg} --plan",
    "index_add": "memtier index add SLUG --category C",
    "index_set": "memtier index set SLUG",
    "index_rebuild": "memtier index rebuild",
    "consolidate_due": "memtier consolidate --due",
    "init": "memtier init",
    "sync": "memtier sync",
    "sync_init": "memtier sync init REMOTE",
    # named in results (PROTOCOL §13): a generation to write, a source to read whole
    "consolidate_write": "memtier consolidate {arg}",
    "consolidate_summary": "--plan-id {arg} --summary TEXT",
    "get": "memtier get {arg}",
    # the fixes health names (PROTOCOL §6 v4: one fix per failure, each face's words)
    "verify": "memtier verify {arg}",
    "rotate": "memtier rotate",
    "session-end": "memtier session-end",
    "close_day": "memtier episodic close --date {arg} --decisions … --signal … --open …",
    "close_day_none": (
        "memtier episodic close --date {arg} --decisions none --signal none --open none"
    ),
    "close_replace": "memtier episodic close --replace",
    "close_drop": "memtier episodic close --drop {arg}",
    "on_date": " --date {arg}",
    "install_scripts": "memtier install-scripts",
    "tags_list": "memtier tags",
    "tags_add_tag": "memtier tags --add {arg}",
}


Message = str | tuple[str | Term, ...]


class MemtierError(Exception):
    """Base class: a message written for the person reading it, and an exit code.

    The message may name parameters and operations as `Term`s; ``message`` is the
    plain wording, `worded` the wording of one face.
    """

    exit_code: int = EXIT_INPUT
    shown: bool = False  # see `CheckFailed`

    def __init__(self, message: Message, *, path: Path | str | None = None) -> None:
        self.parts: tuple[str | Term, ...] = (message,) if isinstance(message, str) else message
        self.message = self.worded()
        super().__init__(self.message)
        self.path = Path(path) if path is not None else None

    def worded(self, words: Callable[[Term], str] = str) -> str:
        return "".join(part if isinstance(part, str) else words(part) for part in self.parts)

    def __str__(self) -> str:
        return self.message


class InputError(MemtierError, ValueError):
    """Bad input: an option, a file's content, a path, the configuration (exit 2)."""

    exit_code = EXIT_INPUT


class WorkspaceNotFound(InputError, FileNotFoundError):
    """No workspace root could be found (PROTOCOL §1)."""

    def __init__(self) -> None:
        super().__init__(
            "workspace root not found (expected MEMORY.md and memory/ in an ancestor directory)"
        )


class ConfigError(InputError):
    """`memory/memtier.toml` is unreadable, has an unknown key or a wrong type."""


class ConfinementError(InputError, PermissionError):
    """A path resolves outside the workspace root (PROTOCOL §3)."""


class RefusedError(MemtierError):
    """The protocol refuses the operation (exit 1), e.g. a rotation lock is present."""

    exit_code = EXIT_REFUSED


class LockTimeout(RefusedError, TimeoutError):
    """Another memtier process held the workspace lock for too long."""


class WriteFailed(MemtierError, OSError):
    """The operating system refused a write (full disk, read-only, permissions): exit 1."""

    exit_code = EXIT_REFUSED


class CheckFailed(MemtierError):
    """A required check failed (exit 1).

    ``shown`` is true when the report that names the failure has already been
    printed (health-check's verdict line): the handler then adds no error line.
    """

    exit_code = EXIT_REFUSED

    def __init__(self, message: str, *, shown: bool = False) -> None:
        super().__init__(message)
        self.shown = shown


CHANGING_MESSAGE = (
    "another program changed it while memtier was updating it (an editor saving in "
    "place?); nothing was written: run the command again"
)


class ConcurrentEdit(RefusedError):
    """A file changed between memtier's read and its replace (PROTOCOL §3): exit 1,
    nothing written."""
