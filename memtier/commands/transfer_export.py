"""`memtier export [--tier T]… [--output FILE]`: the memory as one document (PROTOCOL §12).

Every file of the live tiers (HOT, WARM, BUFFER, SCRATCH, COLD) and the
workspace's ``memory/memtier.toml``, found the way search finds them (symlinks
never followed inside a tier, links leading out never read); the archive only
when asked for with ``--tier archive``. A file's text is its exact content, so the
export is lossless; a credential that stands in a file (health-check names it)
is redacted on the way out, as everything memtier writes is.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memtier import store
from memtier.clock import format_timestamp
from memtier.config import CONFIG_RELPATH
from memtier.errors import InputError
from memtier.formats.envelope import ExportedFile, build_envelope, dump_envelope
from memtier.workspace import TIERS, Workspace

# PROTOCOL §12: every tier but the archive, in the one tier table's order.
LIVE_TIERS: tuple[str, ...] = tuple(t for t in TIERS if t != "archive")


@dataclass(frozen=True)
class ExportResult:
    document: str  # the JSON text of the envelope
    files: tuple[str, ...]
    output: str | None = None  # the file written, or None for standard output
    redacted: dict[str, int] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()

    @property
    def notices(self) -> tuple[str, ...]:
        if self.output is None:
            return ()
        return (f"exported {len(self.files)} file(s) to {self.output}",)

    def to_json(self) -> dict[str, Any]:
        return {
            "output": self.output,
            "files": list(self.files),
            "count": len(self.files),
            "redacted": dict(self.redacted),
            "warnings": list(self.warnings),
        }

    def text_lines(self) -> Iterable[str]:
        yield f"exported {len(self.files)} file(s) to {self.output}"


def chosen_tiers(tiers: Iterable[str]) -> tuple[str, ...]:
    wanted = tuple(t.lower() for t in tiers)
    for tier in wanted:
        if tier not in TIERS:
            raise InputError(f"--tier: unknown tier '{tier}' (one of: {', '.join(TIERS)})")
    return wanted or LIVE_TIERS


def collect_files(ws: Workspace, tiers: tuple[str, ...]) -> tuple[list[ExportedFile], list[str]]:
    """The files of *tiers*, in tier order, as exported; and warnings about skipped ones."""
    from memtier.search.paths import tier_file_pairs

    warnings: list[str] = []
    pairs = list(tier_file_pairs(ws.root, tiers, warnings))
    if tiers == LIVE_TIERS and (ws.root / CONFIG_RELPATH).is_file():
        pairs.append((CONFIG_RELPATH.as_posix(), "config"))
    files: list[ExportedFile] = []
    for rel, tier in pairs:
        path = ws.root / rel
        try:
            data = store.confine(ws.root, path).read_bytes()
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            warnings.append(f"skipped {rel}: not UTF-8 text")
            continue
        except (OSError, InputError) as exc:
            warnings.append(f"skipped {rel}: {getattr(exc, 'strerror', None) or exc}")
            continue
        if "\x00" in text:
            warnings.append(f"skipped {rel}: binary file")
            continue
        files.append(ExportedFile(path=rel, tier=tier, text=text))
    return files, warnings


def export_memory(
    ws: Workspace, tiers: Iterable[str] = (), output: Path | None = None
) -> ExportResult:
    """Build the envelope; write it to *output* (atomically) when given."""
    from memtier.secrets import add_counts, redact

    chosen = chosen_tiers(tiers)
    with store.workspace_lock(ws.lock_file):
        files, warnings = collect_files(ws, chosen)
    redacted: dict[str, int] = {}
    clean: list[ExportedFile] = []
    for exported in files:
        redaction = redact(exported.text)
        add_counts(redacted, redaction.counts)
        clean.append(ExportedFile(exported.path, exported.tier, redaction.text))
    document = dump_envelope(build_envelope(clean, format_timestamp(ws.now)))
    written: str | None = None
    if output is not None:
        target = output.absolute()
        if not target.parent.is_dir():
            raise InputError(f"--output {output}: folder {target.parent} does not exist")
        store.write_bytes(target, document.encode("utf-8"), root=target.parent)
        written = str(output)
    return ExportResult(
        document=document,
        files=tuple(f.path for f in clean),
        output=written,
        redacted=redacted,
        warnings=tuple(warnings),
    )
