"""The store: the only code in memtier that writes to disk (PROTOCOL §3).

Three private-by-layout modules, every public name re-exported here (filelock's
layout): `memtier.store.read`, `memtier.store.write` (and `moves`, batch moves),
`memtier.store.lock`.

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
- `checkpoint`: a named crash point of the fault-injection harness (crash tests
  switch points on with ``$MEMTIER_FAULT``; no effect otherwise).
- `read_document`: reads text the way every writer must (confined, regular files
  only, stamped against in-place saves; CRLF and a byte-order mark survive).
"""

from __future__ import annotations

from memtier.errors import ConcurrentEdit, InputError
from memtier.store.lock import LOCK_TIMEOUT_SECONDS, workspace_lock
from memtier.store.read import (
    OUTSIDE_MESSAGE,
    Document,
    confine,
    decode_document,
    file_stamp,
    read_document,
    read_regular_bytes,
    read_stamped,
    read_text,
    read_text_or_none,
)
from memtier.store.write import (
    FAULT_ENV_VAR,
    TEMP_SUFFIX,
    TRACE_ALL_ENV_VAR,
    TRACE_ENV_VAR,
    checkpoint,
    create_exclusive,
    enable_faults,
    free_destination,
    is_temp_file,
    make_dirs,
    move_file,
    remove_residue,
    temp_name,
    write_bytes,
    write_text,
)

__all__ = [
    "FAULT_ENV_VAR",
    "LOCK_TIMEOUT_SECONDS",
    "OUTSIDE_MESSAGE",
    "TEMP_SUFFIX",
    "TRACE_ALL_ENV_VAR",
    "TRACE_ENV_VAR",
    "ConcurrentEdit",
    "Document",
    "InputError",
    "checkpoint",
    "confine",
    "create_exclusive",
    "decode_document",
    "enable_faults",
    "file_stamp",
    "free_destination",
    "is_temp_file",
    "make_dirs",
    "move_file",
    "read_document",
    "read_regular_bytes",
    "read_stamped",
    "read_text",
    "read_text_or_none",
    "remove_residue",
    "temp_name",
    "workspace_lock",
    "write_bytes",
    "write_text",
]
