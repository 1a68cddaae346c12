"""Moving many files at once: an archive pass (PROTOCOL §7), through `store`'s rules.

Part of the store, the one package that writes (PROTOCOL §3), kept apart from its
core (`memtier.store`) only for size: every move here is `store.move_file`'s
single ``rename`` into a free name inside the root, and every path is confined
by `store.confine` as there.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping, Sequence
from pathlib import Path

from memtier.store.read import _display, confine
from memtier.store.write import _failed, _fsync_dir, _refuse_secret_name, checkpoint, make_dirs

__all__ = ["move_batches", "move_files"]


def move_files(sources: Sequence[str | Path], folder: Path, *, root: Path) -> list[Path]:
    """`move_file` for a batch of files going into one *folder*; same guarantees."""
    names = move_batches({folder: sources}, root=root)[folder]
    real_folder = confine(root, folder)
    return [real_folder / name for name in names]


def move_batches(
    batches: Mapping[Path, Sequence[str | Path]], *, root: Path
) -> dict[Path, list[str]]:
    """`move_file` for files going into several folders (an archive pass: one batch
    per month folder); same guarantees, each file one ``rename`` that never overwrites.
    Returns each folder's new file names, in the order of its sources.

    Paid once per folder rather than once per file: the confinement checks (once
    per parent for the destinations, see `_prepare`), the listing of names
    already taken, and the folder fsyncs, which run together at the end (the
    renames are already atomic; the fsyncs make them durable, and a journaling
    filesystem commits concurrent ones together: 10,000 notes into 328 month
    folders went from 984 sequential fsyncs to one wait; starting each folder's
    fsync as soon as it is filled measured slower, 340-420 ms against 270-300 ms
    for the pass, as each forced its own commit). A source that is a symlink is
    confined on its own (its target is what moves).
    """
    moved: dict[Path, list[str]] = {}
    changed: set[Path] = set()  # folders whose entries changed, fsynced at the end
    real_parents: dict[str, str] = {}  # the sources' folders, fsynced at the end
    real_folders: dict[str, str] = {}  # the destinations' parents (an archive's years)
    try:
        for folder, sources in batches.items():
            moved[folder] = []
            if not sources:
                continue
            into, created = _prepare(folder, root, real_folders, changed)
            real_folder = Path(into)
            if created:
                changed.add(real_folder.parent)
            taken = set(os.listdir(into))
            done = moved[folder]
            for source in sources:
                # Plain strings in this loop: pathlib costs more than the rename itself.
                # (os.path.join and split cost a tenth of the rename.)
                text = os.fspath(source)
                head, _, name = text.rpartition(os.sep)
                if not head and text.startswith(os.sep):
                    head = os.sep  # a file at "/" (split's answer; outside unless the root is /)
                if os.path.islink(text):
                    src = str(confine(root, Path(text)))
                else:
                    parent = real_parents.get(head)
                    if parent is None:
                        parent = real_parents[head] = str(confine(root, Path(head)))
                    src = parent + os.sep + name
                free = _free_name(name, taken)
                dest = into + os.sep + free
                checkpoint("store.before-move")
                try:
                    os.rename(src, dest)
                except OSError as exc:
                    raise _failed("move", _display(Path(src), root), exc) from None
                checkpoint("store.moved")
                taken.add(free)
                done.append(free)
            changed.add(real_folder)
    finally:
        _fsync_dirs(changed | {Path(p) for p in real_parents.values()})
    return moved


def _prepare(
    folder: Path, root: Path, real_parents: dict[str, str], changed: set[Path]
) -> tuple[str, bool]:
    """`make_dirs` then `confine` for *folder*: its real path, and whether it was made.

    The parent is confined (and made) once for all its children, so an archive
    pass pays one realpath per year, not per month: a child that `os.mkdir`
    just made in a confined real folder, or that `lstat` shows to be a plain
    folder there, is inside the root. Anything else (a symlink, a file in the
    way) takes the general path, with its checks and messages.
    """
    if folder.name in ("", ".", ".."):
        return _prepare_checked(folder, root)
    head = os.fspath(folder.parent)
    parent = real_parents.get(head)
    if parent is None:
        made = make_dirs(folder.parent, root=root, sync=False)
        real_parent = confine(root, folder.parent)
        if made:
            changed.add(real_parent.parent)
        parent = real_parents[head] = str(real_parent)
    real = os.path.join(parent, folder.name)
    _refuse_secret_name(Path(real), root)
    try:
        os.mkdir(real)
    except FileExistsError:
        if stat.S_ISDIR(os.lstat(real).st_mode):
            return real, False
    except OSError:
        pass
    else:
        return real, True
    return _prepare_checked(folder, root)


def _prepare_checked(folder: Path, root: Path) -> tuple[str, bool]:
    created = make_dirs(folder, root=root, sync=False)
    return str(confine(root, folder)), created


def _free_name(name: str, taken: set[str]) -> str:
    """`free_destination` against a listing already made."""
    stem, suffix = os.path.splitext(name)
    candidate, n = name, 0
    while candidate in taken:
        n += 1
        candidate = f"{stem}.{n}{suffix}"
    return candidate


def _fsync_dirs(folders: set[Path]) -> None:
    """fsync every folder, several at once when there are many (they wait on the disk)."""
    if len(folders) <= 2:
        for folder in sorted(folders):
            _fsync_dir(folder)
        return
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=min(16, len(folders))) as pool:
        list(pool.map(_fsync_dir, sorted(folders)))
