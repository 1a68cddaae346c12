"""memtier.errors: one hierarchy, each error an exit code and the matching built-in."""

from __future__ import annotations

from pathlib import Path

import pytest

from memtier.errors import (
    EXIT_INPUT,
    EXIT_REFUSED,
    CheckFailed,
    ConcurrentEdit,
    ConfigError,
    ConfinementError,
    InputError,
    LockTimeout,
    MemtierError,
    RefusedError,
    WorkspaceNotFound,
    WriteFailed,
)


@pytest.mark.parametrize(
    ("error", "builtin", "code"),
    [
        (InputError("x"), ValueError, EXIT_INPUT),
        (ConfigError("x"), ValueError, EXIT_INPUT),
        (ConfinementError("x"), PermissionError, EXIT_INPUT),
        (WorkspaceNotFound(), FileNotFoundError, EXIT_INPUT),
        (LockTimeout("x"), TimeoutError, EXIT_REFUSED),
        (WriteFailed("x"), OSError, EXIT_REFUSED),
        (ConcurrentEdit("x"), RefusedError, EXIT_REFUSED),
        (CheckFailed("x"), MemtierError, EXIT_REFUSED),
    ],
)
def test_each_error_is_its_builtin_and_carries_its_exit_code(
    error: MemtierError, builtin: type[BaseException], code: int
) -> None:
    assert isinstance(error, MemtierError) and isinstance(error, builtin)
    assert error.exit_code == code


def test_the_message_is_the_whole_text_and_the_path_a_path() -> None:
    error = InputError("notes.md: no such file", path="memory/notes.md")
    assert str(error) == "notes.md: no such file"
    assert error.path == Path("memory/notes.md")
    assert InputError("x").path is None


def test_a_write_failure_reads_as_its_message_not_as_an_oserror() -> None:
    # OSError's own __str__ would print "[Errno …]" forms; the message wins.
    assert str(WriteFailed("cannot write a.md: disk full")) == "cannot write a.md: disk full"


def test_check_failed_says_whether_its_report_was_shown() -> None:
    assert CheckFailed("x").shown is False
    assert CheckFailed("x", shown=True).shown is True
    assert "MEMORY.md and memory/" in str(WorkspaceNotFound())
