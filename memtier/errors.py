"""The one error hierarchy of memtier.

Every failure a user can cause is a `MemtierError`. The CLI has a single
handler that prints ``memtier: error: <message>`` on stderr and exits with the
error's ``exit_code``: 2 for usage and input errors, 1 for protocol refusals,
failed writes and failed checks. Anything else that escapes is a bug: the
handler says so in one line and exits `EXIT_BUG` (3).
"""

from __future__ import annotations

from pathlib import Path

EXIT_OK = 0
EXIT_REFUSED = 1
EXIT_INPUT = 2
EXIT_BUG = 3


class MemtierError(Exception):
    """Base class: a message written for the person reading it, and an exit code."""

    exit_code: int = EXIT_INPUT

    def __init__(self, message: str, *, path: Path | str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.path = Path(path) if path is not None else None

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
