"""`memtier atomic-write PATH`: standard input to a file, atomically (PROTOCOL §3).

The text passes through secret redaction first: memtier never puts a credential
on disk on anyone's behalf. The path must resolve inside the workspace.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memtier import store
from memtier.workspace import Workspace


@dataclass(frozen=True)
class WriteResult:
    path: str
    bytes_written: int
    redacted: dict[str, int] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "bytes": self.bytes_written, "redacted": dict(self.redacted)}

    def text_lines(self) -> Iterable[str]:
        yield f"wrote {self.path} ({self.bytes_written} bytes)"


def atomic_write(ws: Workspace, path: Path, data: bytes) -> WriteResult:
    """Replace *path* with *data* (UTF-8 text) under the workspace lock."""
    from memtier.secrets import redact

    target = store.confine(ws.root, path)
    shown = ws.relative(target)
    # The input's own conventions (CRLF, BOM) are kept: this writes what it is given.
    given = store.decode_document(data, "standard input")
    redaction = redact(given.text)
    with store.workspace_lock(ws.lock_file):
        written = store.write_text(target, redaction.text, root=ws.root, like=given)
    return WriteResult(
        path=ws.relative(written) if shown else str(written),
        bytes_written=written.stat().st_size,
        redacted=dict(redaction.counts),
    )
