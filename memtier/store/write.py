"""Atomic writes, moves, the removal of the protocol's own residue (PROTOCOL §3,
§7) and the named crash points of every write (`checkpoint`). Part of
`memtier.store`, which re-exports every public name."""

from __future__ import annotations

import os
import stat
from contextlib import suppress
from pathlib import Path

from memtier.errors import CHANGING_MESSAGE, ConcurrentEdit, InputError, WriteFailed
from memtier.store.read import Document, _display, confine, file_stamp
from memtier.workspace import exists_or_link, real_root

TEMP_SUFFIX = ".memtier-tmp"


_NAME_MAX = 255


def temp_name(name: str) -> str:
    """``.<name>.<8 hex>.memtier-tmp``, the name cut short so the whole stays within
    the 255 bytes a file name may have: a 250-byte note can still be replaced."""
    tail = f".{os.urandom(4).hex()}{TEMP_SUFFIX}"
    room = _NAME_MAX - 1 - len(tail.encode())
    # Cut on a character boundary (a cut UTF-8 sequence is dropped whole).
    kept = os.fsencode(name)[:room].decode("utf-8", "ignore")
    return f".{kept}{tail}"


def _refuse_secret_name(path: Path, root: Path) -> None:
    from memtier.secrets import refuse_secret_in_name

    refuse_secret_in_name(_display(path, Path(real_root(root))))


def is_temp_file(path: Path) -> bool:
    """True for a temporary file left by an interrupted atomic write."""
    return path.name.startswith(".") and path.name.endswith(TEMP_SUFFIX)


# ---------------------------------------------------------------------------
# atomic writes


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return  # not every filesystem lets a folder be opened; the rename is done
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _failed(action: str, shown: str, exc: OSError) -> WriteFailed:
    reason = exc.strerror or str(exc)
    return WriteFailed(f"cannot {action} {shown}: {reason}")


def _new_file_mode() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def write_bytes(
    path: Path,
    data: bytes,
    *,
    root: Path,
    expect: tuple[int, int, int] | None = None,
    read_from: str | None = None,
) -> Path:
    """Atomically replace *path* (confined to *root*) with *data*; returns the real path.
    A file whose stamp is no longer *expect* (as read) is refused: `ConcurrentEdit`.
    With *read_from* (the real path *expect* was read at), *expect* holds only when
    *path* still leads to that file."""
    target = confine(root, path)
    if read_from is not None and read_from != str(target):
        expect = None  # another file than the one read: nothing to compare
    _refuse_secret_name(target, root)
    shown = _display(target, Path(real_root(root)))
    if target.is_dir():
        raise InputError(f"{shown}: is a directory, expected a file", path=target)
    folder = target.parent
    if not folder.is_dir():
        make_dirs(folder, root=root)
    try:
        mode = stat.S_IMODE(target.stat().st_mode)
    except FileNotFoundError:
        mode = _new_file_mode()
    except OSError as exc:
        raise _failed("write", shown, exc) from None
    temp = folder / temp_name(target.name)
    try:
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except OSError as exc:
        raise _failed("write", shown, exc) from None
    try:
        try:
            view = memoryview(data)
            while view:
                written = os.write(fd, view)
                view = view[written:]
            os.fchmod(fd, mode)
            os.fsync(fd)
        finally:
            os.close(fd)
        checkpoint("store.temp-written")
        if expect is not None:
            _refuse_if_changed(target, expect, shown)
        os.replace(temp, target)
    except OSError as exc:
        _discard(temp)
        raise _failed("write", shown, exc) from None
    except BaseException:
        _discard(temp)
        raise
    checkpoint("store.replaced")
    _fsync_dir(folder)
    return target


def _refuse_if_changed(target: Path, expect: tuple[int, int, int], shown: str) -> None:
    """Compare, just before the replace, the file with the stamp taken when it was read."""
    try:
        now = file_stamp(os.stat(target))
    except FileNotFoundError:
        now = None
    if now != expect:
        raise ConcurrentEdit(f"{shown}: {CHANGING_MESSAGE}", path=target)


def _discard(temp: Path) -> None:
    with suppress(OSError):
        temp.unlink()


def write_text(path: Path, text: str, *, root: Path, like: Document | None = None) -> Path:
    """Atomically write *text*, ending it with a newline (PROTOCOL §2).

    *like* is the document as read before the change: its CRLF line endings and
    byte-order mark are kept, so a person's file conventions survive.
    """
    if text and not text.endswith("\n"):
        text += "\n"
    data = (like or Document(text="")).encode(text)
    if like is None or like.source is None:
        return write_bytes(path, data, root=root)
    # The same file as read must not have changed since (write_bytes compares it
    # once it has confined the path: one lookup).
    return write_bytes(path, data, root=root, expect=like.stamp, read_from=like.source)


def create_exclusive(path: Path, text: str, *, root: Path) -> bool:
    """Create *path* only if it does not exist (the rotation marker); False if it did."""
    target = confine(root, path)
    try:
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, _new_file_mode())
    except FileExistsError:
        return False
    except OSError as exc:
        raise _failed("create", _display(target, root), exc) from None
    try:
        try:
            os.write(fd, text.encode("utf-8"))
            os.fsync(fd)
        finally:
            os.close(fd)
    except OSError as exc:
        # A full disk: the file we just made is ours and holds nothing; take it back.
        _discard(target)
        raise _failed("create", _display(target, root), exc) from None
    _fsync_dir(target.parent)
    return True


def make_dirs(path: Path, *, root: Path, sync: bool = True) -> bool:
    """Create a folder (and its parents) inside *root*; True if it was created.
    With *sync* False the caller fsyncs the new folder's parent itself."""
    target = confine(root, path)
    _refuse_secret_name(target, root)
    if target.is_dir():
        return False
    try:
        target.mkdir(parents=True, exist_ok=False)
    except (FileExistsError, NotADirectoryError):
        if target.is_dir():
            return False
        # A file stands where a folder of the layout belongs: name it (input error).
        blocker = next(
            (p for p in (target, *target.parents) if p.exists() and not p.is_dir()), target
        )
        raise InputError(f"{_display(blocker, root)}: exists and is not a folder") from None
    except OSError as exc:
        raise _failed("create folder", _display(target, root), exc) from None
    if sync:
        _fsync_dir(target.parent)
    return True


# ---------------------------------------------------------------------------
# moving and removing


def free_destination(folder: Path, name: str) -> Path:
    """*folder*/*name*, or ``<stem>.1<suffix>``, ``<stem>.2<suffix>`` … if taken."""
    candidate = folder / name
    stem, suffix = os.path.splitext(name)
    n = 0
    while exists_or_link(candidate):
        n += 1
        candidate = folder / f"{stem}.{n}{suffix}"
    return candidate


def move_file(source: Path, folder: Path, *, root: Path) -> Path:
    """Move *source* into *folder* under a free name; never overwrites.

    A single ``rename`` on one filesystem: after a crash the file is either
    still at its old place or already at its new one, never in both or neither.
    Callers hold the workspace lock, so the free name cannot be taken meanwhile.
    (Many files at once: `store.moves.move_batches`, same rules.)
    """
    make_dirs(folder, root=root)
    real_folder = confine(root, folder)
    src = confine(root, source) if source.is_symlink() else confine(root, source.parent)
    if not source.is_symlink():
        src = src / source.name
    dest = free_destination(real_folder, source.name)
    checkpoint("store.before-move")
    try:
        os.rename(src, dest)
    except OSError as exc:
        raise _failed("move", _display(src, root), exc) from None
    checkpoint("store.moved")
    _fsync_dir(real_folder)
    _fsync_dir(src.parent)
    return dest


_RESIDUE_SUFFIXES = (".md.lock", ".md.pending")


def remove_residue(path: Path, *, root: Path) -> bool:
    """Delete the protocol's own residue; True if something was removed.

    Only the rotation marker (``*.md.lock``), a ``*.md.pending`` snapshot and our
    temporary files qualify; anything else is a programming error.
    """
    target = confine(root, path)
    if not (target.name.endswith(_RESIDUE_SUFFIXES) or is_temp_file(target)):
        raise ValueError(f"refusing to delete {target}: not protocol residue")
    try:
        target.unlink()
    except FileNotFoundError:
        return False
    except OSError as exc:
        raise _failed("remove", _display(target, root), exc) from None
    _fsync_dir(target.parent)
    return True


# ---------------------------------------------------------------------------
# Named crash points of the writes, for crash tests (no effect unless switched on).
#
# Writers call `checkpoint` with a ``<module>.<step>`` name at every step
# boundary. The CLI switches points on (`enable_faults`) from ``$MEMTIER_FAULT``
# (a comma-separated list of names); when the running process reaches a
# switched-on point it kills itself with SIGKILL, exactly as a power cut or an
# OOM kill would stop it. Every name passed
# to `checkpoint` is recorded in `SEEN` so tests can list the points a command
# went through.
#
# A name may carry an occurrence, ``store.temp-written@3``: the process then dies
# the third time it passes that point, so a crash test can stop a command that
# writes several files between any two of them. ``$MEMTIER_FAULT_TRACE_ALL``
# names a file that every point passed is appended to (whether or not it is
# switched on), so a test can list the points a real process went through.
#
# Both trace files are confined to the system's temporary folder (where tests
# keep theirs) and must be regular files if they exist: an environment variable
# must not make memtier append to any file it can reach (PROTOCOL §3 confinement).

_ACTIVE: frozenset[str] = frozenset()
_TRACE: str | None = None
SEEN: list[str] = []
FAULT_ENV_VAR = "MEMTIER_FAULT"
TRACE_ENV_VAR = "MEMTIER_FAULT_TRACE"
TRACE_ALL_ENV_VAR = "MEMTIER_FAULT_TRACE_ALL"
_TRACE_ALL: str | None = None
_PASSES: dict[str, int] = {}


def enable_faults(
    names: str | None, trace: str | None = None, trace_all: str | None = None
) -> None:
    """Switch on the points named in a comma-separated string (None: none).

    *trace*, when given, is a file that a dying process appends the point's
    name to, so a test can tell that the process really reached it.
    *trace_all* is a file that every point passed is appended to.
    """
    global _ACTIVE, _TRACE, _TRACE_ALL
    _ACTIVE = frozenset(n.strip() for n in (names or "").split(",") if n.strip())
    _TRACE = _confined(TRACE_ENV_VAR, trace) if trace else None
    _TRACE_ALL = _confined(TRACE_ALL_ENV_VAR, trace_all) if trace_all else None
    _PASSES.clear()


def _confined(variable: str, path: str) -> str:
    """*path* if it lies in the temporary folder (symlinks followed) and is a regular
    file or does not exist yet; else an `InputError` naming *variable*."""
    import stat
    import tempfile

    from memtier.errors import InputError
    from memtier.workspace import inside_root

    real = os.path.realpath(path)
    folder = os.path.realpath(tempfile.gettempdir())
    if not inside_root(folder, real) or real == folder:
        raise InputError(f"{variable}: a trace file must lie in {folder}, not {path}")
    try:
        mode = os.stat(real).st_mode
    except FileNotFoundError:
        return real
    except OSError as exc:
        raise InputError(f"{variable}: {path}: cannot be checked ({exc.strerror})") from None
    if not stat.S_ISREG(mode):
        raise InputError(f"{variable}: {path} is not a regular file")
    return real


def checkpoint(name: str) -> None:
    """Die here, by SIGKILL, if the point *name* (or this pass of it) is switched on."""
    SEEN.append(name)
    if _TRACE_ALL:
        _append(_TRACE_ALL, name)
    if not _ACTIVE:
        return
    count = _PASSES[name] = _PASSES.get(name, 0) + 1
    if name in _ACTIVE or f"{name}@{count}" in _ACTIVE:
        if _TRACE:
            _append(_TRACE, name)
        import signal  # here only: its enums cost every command ~0.7 ms at import

        os.kill(os.getpid(), signal.SIGKILL)


def _append(path: str, name: str) -> None:
    # Never through a link planted after the check, never blocking on a FIFO.
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(path, flags | getattr(os, "O_NONBLOCK", 0), 0o600)
    try:
        os.write(fd, (name + "\n").encode("utf-8"))
    finally:
        os.close(fd)


# -- the named points of the session lifecycle (PROTOCOL §4, §5), for crash tests
# that walk them all; kept here so that listing them imports no command.

SESSION_START_CHECKPOINTS: tuple[str, ...] = (
    "session_start.hot-created",  # step 1
    "session_start.buffer-created",  # step 2
    "session_start.lock-removed",  # step 3
    "session_start.failure-logged",  # step 4, failed recovery: ERRORS.md line written
    "session_start.pending-merged",  # step 4: live-only buffer lines written into .pending
    "session_start.pending-discarded",  # step 4: .pending removed
    "session_start.stale-snapshot",  # step 5: the stale buffer's snapshot in .pending
    "session_start.recovered-appended",  # step 4 or 5: [RECOVERED: STALE] body in the note
    "session_start.buffer-reset",  # step 4 or 5: fresh buffer written
    "session_start.buffer-restored",  # step 4: buffer restored from .pending
    "session_start.heartbeat",  # step 6
)
ROTATE_CHECKPOINTS: tuple[str, ...] = (
    "rotate.locked",  # step 2 done: the .lock marker exists
    "rotate.pending-written",  # step 3 done: the .pending snapshot is on disk
    "rotate.note-written",  # step 4 done: the body stands in today's note
    "rotate.buffer-reset",  # step 5 done: a fresh buffer replaced the old one
    "rotate.pending-removed",  # step 6, first half
    "rotate.unlocked",  # step 6 done
)
BUFFER_CHECKPOINTS: tuple[str, ...] = ("buffer.read", "buffer.written")
EPISODIC_CHECKPOINTS: tuple[str, ...] = ("episodic.read", "episodic.written")
LIFECYCLE_CHECKPOINTS: tuple[str, ...] = (
    *SESSION_START_CHECKPOINTS,
    *BUFFER_CHECKPOINTS,
    *ROTATE_CHECKPOINTS,
    *EPISODIC_CHECKPOINTS,
)
