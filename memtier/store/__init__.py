"""The store: the only code in memtier that writes to disk (PROTOCOL §3).

- `write_text` / `write_bytes`: atomic replace. The new content goes whole into a
  temporary file in the target's folder, is flushed and fsynced, renamed over the
  target with `os.replace`, and the folder is fsynced. The target's permission
  bits are kept. A failed write removes its temporary file.
- `workspace_lock`: the OS-level lock on ``memory/.memtier.lock`` that every
  command holds for its whole read-modify-write. Re-entrant within a thread;
  another thread of the same process waits for it as another process does.
- `confine`: a path that resolves (symlinks followed) outside the root is refused.
- `move_file`: a rename that never overwrites (archive moves).
- `remove_residue`: deletes only the protocol's own residue (rotation marker,
  ``.pending`` snapshot, our temporary files). There is no function that deletes a
  memory file.
- `read_document`: reads text the way every writer must (confined, regular files
  only, stamped against in-place saves; CRLF and a byte-order mark survive).
"""

from __future__ import annotations

import errno
import os
import stat
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Protocol

from memtier.errors import (
    CHANGING_MESSAGE,
    ConcurrentEdit,
    ConfinementError,
    InputError,
    LockTimeout,
    WriteFailed,
)
from memtier.faults import checkpoint
from memtier.workspace import inside_root, special_file_kind

TEMP_SUFFIX = ".memtier-tmp"
LOCK_TIMEOUT_SECONDS = 60.0
_BOM = "\ufeff"


# ---------------------------------------------------------------------------
# paths


def _display(path: Path, root: Path | None) -> str:
    if root is not None:
        try:
            return path.relative_to(root).as_posix()
        except ValueError:
            pass
    return str(path)


def confine(root: Path, path: Path) -> Path:
    """The real path of *path* (relative paths are taken from *root*) if it stays inside.

    Symlinks are followed, so a link pointing outside is refused like ``../x``.
    Raises `ConfinementError` (exit 2) otherwise.
    """
    real_root = Path(os.path.realpath(root))
    if "\0" in str(path):
        raise InputError("a path cannot hold a NUL byte")
    candidate = path if path.is_absolute() else root / path
    try:
        real = Path(os.path.realpath(candidate, strict=False))
        # realpath gives up silently on a loop; resolve(strict) names it.
        if candidate.is_symlink() or any(p.is_symlink() for p in candidate.parents):
            candidate.resolve(strict=False)
    except (RuntimeError, OSError) as exc:
        if isinstance(exc, OSError) and exc.errno != errno.ELOOP:
            raise InputError(f"{path}: cannot be resolved ({exc.strerror})") from None
        raise InputError(f"{path}: symlink loop") from None
    if not inside_root(real_root, real):
        raise ConfinementError(
            f"{path}: resolves outside the workspace root {real_root}; not read or written",
            path=path,
        )
    return real


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

    refuse_secret_in_name(_display(path, Path(os.path.realpath(root))))


def is_temp_file(path: Path) -> bool:
    """True for a temporary file left by an interrupted atomic write."""
    return path.name.startswith(".") and path.name.endswith(TEMP_SUFFIX)


# ---------------------------------------------------------------------------
# reading


@dataclass(frozen=True)
class Document:
    """A text file as read: newline-normalised text plus how to write it back."""

    text: str
    crlf: bool = False
    bom: bool = False
    # (inode, size, mtime in ns) of the file as read: `write_text` refuses to
    # replace a file whose stamp changed since (an editor saved it in place).
    stamp: tuple[int, int, int] | None = None
    source: str | None = None  # the real path the stamp belongs to

    def encode(self, text: str) -> bytes:
        """*text* (with ``\\n`` newlines) in this document's on-disk conventions."""
        if self.crlf:
            text = text.replace("\r\n", "\n").replace("\n", "\r\n")
        if self.bom:
            text = _BOM + text
        return text.encode("utf-8")


OUTSIDE_MESSAGE = "points outside the workspace"


def read_regular_bytes(path: Path, *, root: Path | None = None, shown: str | None = None) -> bytes:
    return read_stamped(path, root=root, shown=shown)[0]


def file_stamp(info: os.stat_result) -> tuple[int, int, int]:
    return (info.st_ino, info.st_size, info.st_mtime_ns)


# A file saved within this many ns that is empty or cut mid-line may be half written.
_QUIET_NS = 50_000_000
_TORN_WAIT_SECONDS = 2.0


def read_stamped(
    path: Path, *, root: Path | None = None, shown: str | None = None
) -> tuple[bytes, tuple[int, int, int]]:
    """A regular file's bytes and stamp, read as every memory file is (PROTOCOL §3 v2):
    never through a link out of *root* (an outside file must not reach the agent's
    context), never blocking (a FIFO), never a FIFO, socket or device (``/dev/zero``
    as a note would never end). Errors are `InputError` naming the file."""
    shown = shown or _display(path, root)
    target = path
    if root is not None:
        try:
            target = confine(root, path)
        except ConfinementError:
            raise ConfinementError(f"{shown}: {OUTSIDE_MESSAGE}; not read", path=path) from None
    try:
        fd = os.open(target, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise InputError(f"{shown}: no such file", path=path) from None
    except IsADirectoryError:
        raise InputError(f"{shown}: is a directory, expected a file", path=path) from None
    except PermissionError:
        raise InputError(f"{shown}: permission denied", path=path) from None
    except OSError as exc:
        raise InputError(f"{shown}: cannot be read ({exc.strerror})", path=path) from None
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise InputError(f"{shown}: is a directory, expected a file", path=path)
        if not stat.S_ISREG(mode):
            raise InputError(f"{shown}: {special_file_kind(mode)}, not a regular file", path=path)
        import time

        # An editor saving in place truncates the file and writes it again: a read
        # in between sees a torn file. The stamp before and after the read must
        # agree with the bytes read; a file cut off mid-line (or emptied) a moment
        # ago is read again once it has been quiet for a while (bounded).
        deadline = time.monotonic() + _TORN_WAIT_SECONDS
        while time.monotonic() < deadline:
            before = file_stamp(os.fstat(fd))
            os.lseek(fd, 0, os.SEEK_SET)
            data = b"".join(iter(lambda: os.read(fd, 1 << 20), b""))
            after = file_stamp(os.fstat(fd))
            if before != after or after[1] != len(data):
                continue
            recent = time.time_ns() - after[2] < _QUIET_NS
            if not (recent and not data.endswith(b"\n")):
                return data, after
            time.sleep(0.005)
        raise ConcurrentEdit(f"{shown}: {CHANGING_MESSAGE}", path=path)
    except OSError as exc:
        raise InputError(f"{shown}: cannot be read ({exc.strerror})", path=path) from None
    finally:
        os.close(fd)


def read_document(path: Path, *, root: Path | None = None) -> Document:
    """Read a UTF-8 text file; bad input becomes an `InputError` naming the file."""
    shown = _display(path, root)
    data, stamp = read_stamped(path, root=root, shown=shown)
    source = os.path.realpath(path)
    return replace(decode_document(data, shown, path), stamp=stamp, source=source)


def decode_document(data: bytes, shown: str, path: Path | None = None) -> Document:
    if b"\x00" in data:
        raise InputError(f"{shown}: binary file (contains NUL bytes)", path=path)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(
            f"{shown}: not UTF-8 text (invalid byte at offset {exc.start})", path=path
        ) from None
    bom = text.startswith(_BOM)
    if bom:
        text = text[1:]
    crlf = "\r\n" in text
    if crlf:
        text = text.replace("\r\n", "\n")
    return Document(text=text, crlf=crlf, bom=bom)


def read_text(path: Path, *, root: Path | None = None) -> str:
    """The newline-normalised text of a UTF-8 file (see `read_document`)."""
    return read_document(path, root=root).text


def read_text_or_none(path: Path, *, root: Path | None = None) -> str | None:
    """Like `read_text`, but None when the file does not exist."""
    if not path.exists() and not path.is_symlink():
        return None
    return read_text(path, root=root)


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
    path: Path, data: bytes, *, root: Path, expect: tuple[int, int, int] | None = None
) -> Path:
    """Atomically replace *path* (confined to *root*) with *data*; returns the real path.
    A file whose stamp is no longer *expect* (as read) is refused: `ConcurrentEdit`."""
    target = confine(root, path)
    _refuse_secret_name(target, root)
    shown = _display(target, Path(os.path.realpath(root)))
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
    expect = None
    if like is not None and like.source is not None and like.source == os.path.realpath(path):
        expect = like.stamp  # the same file as read: it must not have changed since
    return write_bytes(path, data, root=root, expect=expect)


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
    while candidate.exists() or candidate.is_symlink():
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
# the workspace lock


class _Lock(Protocol):
    def release(self) -> None: ...


class _FlockLock:
    """``flock`` on the lock file, polled until *timeout*: what filelock does on POSIX.

    Called directly because importing filelock costs about 20 ms (it pulls in
    logging, secrets, decimal, inspect), paid by every write an agent makes;
    the lock is interoperable with filelock's, both being ``flock`` on one file.
    """

    def __init__(self, path: Path, timeout: float) -> None:
        import fcntl
        import time

        # Never through a link, never blocking on a FIFO, only a regular file.
        flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
        fd = os.open(path, flags, 0o644)
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            raise OSError(errno.EINVAL, "not a regular file")
        deadline = time.monotonic() + timeout
        pause = 0.001
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    os.close(fd)
                    raise TimeoutError(str(path)) from None
                time.sleep(pause)
                pause = min(pause * 2, 0.025)
            except OSError:
                os.close(fd)
                raise
        self._fd = fd

    def release(self) -> None:
        import fcntl

        try:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
        finally:
            os.close(self._fd)


class _PortableLock:
    """filelock, where the platform has no ``fcntl`` (Windows)."""

    def __init__(self, path: Path, timeout: float) -> None:
        from filelock import FileLock, Timeout

        self._lock = FileLock(str(path), timeout=timeout)
        try:
            self._lock.acquire()
        except Timeout:
            raise TimeoutError(str(path)) from None

    def release(self) -> None:
        self._lock.release()


_held = threading.local()  # per thread: {lock file: (lock, how deeply entered)}


@contextmanager
def workspace_lock(lock_path: Path, *, timeout: float = LOCK_TIMEOUT_SECONDS) -> Iterator[None]:
    """Hold the OS-level lock on *lock_path* (``memory/.memtier.lock``).

    Re-entrant within one thread, so a command that calls another core function
    (session-start calling rotate) keeps the one lock it has. Another thread (the
    tool server's workers) opens the file itself and waits as another process
    does: ``flock`` excludes two open files of one process too.
    """
    key = str(lock_path.absolute())
    held_here: dict[str, tuple[_Lock, int]] = _held.__dict__.setdefault("locks", {})
    if key in held_here:
        held, depth = held_here[key]
        held_here[key] = (held, depth + 1)
        try:
            yield
        finally:
            held_here[key] = (held, held_here[key][1] - 1)
        return
    # PROTOCOL §3 v2: the lock is memory/.memtier.lock; neither memory/ nor the
    # lock file may lead out of the workspace (a link would create a file outside).
    root = lock_path.parent.parent
    for part in (lock_path.parent, lock_path):
        if os.path.lexists(part):
            try:
                confine(root, part)
            except ConfinementError:
                shown = _display(part, root)
                raise ConfinementError(f"{shown}: {OUTSIDE_MESSAGE}", path=part) from None
    try:
        lock_path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise _failed("create", str(lock_path.parent), exc) from None
    kind: type[_FlockLock | _PortableLock] = _FlockLock if os.name == "posix" else _PortableLock
    try:
        lock: _Lock = kind(lock_path, timeout)
    except TimeoutError:
        raise LockTimeout(
            f"the workspace is locked by another memtier process (waited {timeout:g} s)"
        ) from None
    except OSError as exc:
        raise _failed("lock", str(lock_path), exc) from None
    held_here[key] = (lock, 1)
    try:
        yield
    finally:
        del held_here[key]
        lock.release()
