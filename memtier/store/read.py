"""Reading memory files the way every writer must (PROTOCOL §3): confined to the
root, regular files only, stamped against a person's in-place save, CRLF and a
byte-order mark kept. Part of `memtier.store`, which re-exports every public name."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from memtier.errors import CHANGING_MESSAGE, ConcurrentEdit, ConfinementError, InputError
from memtier.values import Fields
from memtier.workspace import (
    FD_NAMES,
    O_PATH,
    exists_or_link,
    inside_root,
    kernel_real_target,
    real_root,
    special_file_kind,
)

_BOM = "\ufeff"


# ---------------------------------------------------------------------------
# paths


def _display(path: Path, root: Path | None) -> str:
    if root is not None:
        # The common case by the strings' prefix (a search reads 50 files: pathlib's
        # relative_to took a fifth of each read); ``/``, ``.`` and ``//`` roots and
        # paths are left to pathlib, whose answer this one is.
        shown, base = str(path), str(root)
        if shown.startswith(base + "/") and base not in ("/", ".") and shown[:2] != "//":
            return shown[len(base) + 1 :]
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
    if "\0" in str(path):
        raise InputError("a path cannot hold a NUL byte")
    root_real = Path(real_root(root))
    candidate = path if path.is_absolute() else root / path
    looked_up = kernel_real_target(candidate)
    real = Path(looked_up) if looked_up is not None else _walk(candidate, path)
    if not inside_root(root_real, real):
        raise ConfinementError(
            f"{path}: resolves outside the workspace root {root_real}; not read or written",
            path=path,
        )
    return real


def _walk(candidate: Path, path: Path) -> Path:
    """*candidate*'s real path found by a walk (where the kernel cannot name it)."""
    try:
        try:
            # An existing path (every read): one pass, and a loop raises ELOOP.
            real = Path(os.path.realpath(candidate, strict=True))
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise
            real = Path(os.path.realpath(candidate, strict=False))
            # realpath gives up silently on a loop; resolve(strict) names it.
            if candidate.is_symlink() or any(p.is_symlink() for p in candidate.parents):
                candidate.resolve(strict=False)
    except (RuntimeError, OSError) as exc:
        if isinstance(exc, OSError) and exc.errno != errno.ELOOP:
            raise InputError(f"{path}: cannot be resolved ({exc.strerror})") from None
        raise InputError(f"{path}: symlink loop") from None
    return real


# ---------------------------------------------------------------------------
# reading


class Document(Fields):
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
    data, stamp, _ = _read_real(path, root, shown or _display(path, root), resolve=False)
    return data, stamp


# Where the kernel names the file an open descriptor refers to (Linux).


def _open_inside(path: Path, root: Path, shown: str) -> tuple[int, str] | None:
    """*path* opened for reading and its real path, when it is a regular file inside
    *root*; None when the kernel cannot tell (no ``O_PATH`` or ``/proc``) or the
    path does not open (then `confine` and its messages decide).

    The file is looked up once (``O_PATH``: no device is opened, no FIFO waited on),
    the kernel names what it found, and that same file is then opened through its
    descriptor: what is checked is what is read, in four system calls where
    `confine` walks every folder of the path in Python.
    """
    if not O_PATH or "\0" in str(path):
        return None
    candidate = path if path.is_absolute() else root / path
    try:
        found = os.open(candidate, O_PATH | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        try:
            real = os.readlink(f"{FD_NAMES}/{found}")
            root_real = real_root(root)
        except OSError:
            return None
        if not real.startswith("/") or real.endswith(" (deleted)"):
            return None
        if not inside_root(root_real, real):
            raise ConfinementError(f"{shown}: {OUTSIDE_MESSAGE}; not read", path=path)
        _refuse_unless_regular(os.fstat(found).st_mode, shown, path)
        try:
            fd = os.open(f"{FD_NAMES}/{found}", os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        except PermissionError:
            raise InputError(f"{shown}: permission denied", path=path) from None
        except OSError:
            return None
        return fd, real
    finally:
        os.close(found)


def _refuse_unless_regular(mode: int, shown: str, path: Path) -> None:
    if stat.S_ISDIR(mode):
        raise InputError(f"{shown}: is a directory, expected a file", path=path)
    if not stat.S_ISREG(mode):
        raise InputError(f"{shown}: {special_file_kind(mode)}, not a regular file", path=path)


def _open_confined(
    path: Path, root: Path | None, shown: str, resolve: bool = True
) -> tuple[int, str]:
    """*path* opened for reading (confined to *root* when given) and its real path
    (``""`` for a path read without a root when *resolve* is false: nobody asked)."""
    if root is not None:
        opened = _open_inside(path, root, shown)
        if opened is not None:
            return opened
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
    # `confine` gave the real path already; a path read without a root is resolved here
    if root is not None:
        return fd, str(target)
    return fd, os.path.realpath(target) if resolve else ""


def _read_real(
    path: Path, root: Path | None, shown: str, resolve: bool = True
) -> tuple[bytes, tuple[int, int, int], str]:
    """`read_stamped`, and the real path of the file read (see `_open_confined`)."""
    fd, real = _open_confined(path, root, shown, resolve)
    try:
        _refuse_unless_regular(os.fstat(fd).st_mode, shown, path)
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
                return data, after, real
            time.sleep(0.005)
        raise ConcurrentEdit(f"{shown}: {CHANGING_MESSAGE}", path=path)
    except OSError as exc:
        raise InputError(f"{shown}: cannot be read ({exc.strerror})", path=path) from None
    finally:
        os.close(fd)


def read_document(path: Path, *, root: Path | None = None) -> Document:
    """Read a UTF-8 text file; bad input becomes an `InputError` naming the file."""
    shown = _display(path, root)
    data, stamp, source = _read_real(path, root, shown)
    return decode_document(data, shown, path, stamp=stamp, source=source)


def decode_document(
    data: bytes,
    shown: str,
    path: Path | None = None,
    *,
    stamp: tuple[int, int, int] | None = None,
    source: str | None = None,
) -> Document:
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
    return Document(text=text, crlf=crlf, bom=bom, stamp=stamp, source=source)


def read_text(path: Path, *, root: Path | None = None) -> str:
    """The newline-normalised text of a UTF-8 file (see `read_document`)."""
    return read_document(path, root=root).text


def read_text_or_none(path: Path, *, root: Path | None = None) -> str | None:
    """Like `read_text`, but None when the file does not exist."""
    if not exists_or_link(path):
        return None
    return read_text(path, root=root)
