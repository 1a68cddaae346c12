"""`memtier export [--tier T]… [--output FILE]`: the memory as one document (PROTOCOL §12).

By default a whole backup (§12 v3): every file of the tiers (HOT, WARM, BUFFER,
SCRATCH, COLD and the archive: old notes, ``retired.md``, archived learnings),
``memory/memtier.toml`` (tier ``config``) and ``memory/INDEX.md`` with
``memory/consolidated/`` (tier ``index``), found the way search finds them
(symlinks never followed inside a tier, links leading out never read). ``--tier``
narrows it to the tiers named. A file's text is its exact content, so the export
is lossless; a credential that stands in a file (health-check names it) is
redacted on the way out, as everything memtier writes is.

``--output`` is confined like a write (§3, §12 v3): inside the workspace, never in
the memory itself, never onto something that is not a regular file; written
atomically, so a killed export leaves only a temporary file of memtier's, which
the next session-start removes.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memtier import store
from memtier.clock import format_timestamp
from memtier.errors import InputError, Term
from memtier.formats.envelope import ExportedFile, build_envelope, dump_envelope
from memtier.results import Result
from memtier.workspace import CONFIG_FILE, CONFIG_KIND, TIERS, Workspace

# PROTOCOL §12 v3: what export takes by default, in this order: the tiers of the
# one tier table (the topic index among them, §13), then the configuration.
EXPORT_TIERS: tuple[str, ...] = (*TIERS, CONFIG_KIND)


@dataclass(frozen=True)
class ExportResult(Result):
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

    JSON_OMIT = frozenset({"document"})

    def json_extra(self) -> dict[str, Any]:
        return {"count": len(self.files)}

    def text_lines(self) -> Iterable[str]:
        yield f"exported {len(self.files)} file(s) to {self.output}"


def chosen_tiers(tiers: Iterable[str]) -> tuple[str, ...]:
    wanted = tuple(t.lower() for t in tiers)
    for tier in wanted:
        if tier not in EXPORT_TIERS:
            known = ", ".join(EXPORT_TIERS)
            raise InputError((Term("tier"), f": unknown tier '{tier}' (one of: {known})"))
    return tuple(t for t in EXPORT_TIERS if t in wanted) or EXPORT_TIERS


def collect_files(ws: Workspace, tiers: tuple[str, ...]) -> tuple[list[ExportedFile], list[str]]:
    """The files of *tiers*, in tier order, as exported; and warnings about skipped ones."""
    from memtier.tiers import tier_file_pairs

    warnings: list[str] = []
    pairs = list(tier_file_pairs(ws.root, tuple(t for t in tiers if t in TIERS), warnings))
    config = ws.root / CONFIG_FILE
    if CONFIG_KIND in tiers and config.is_file() and not config.is_symlink():
        pairs.append((CONFIG_FILE, CONFIG_KIND))
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


def output_target(ws: Workspace, output: Path) -> Path:
    """The file ``--output`` names, checked before anything is read or written
    (PROTOCOL §12 v3): checked like a write (symlinks followed to the file they
    name), never the memory itself, and a regular file if it exists. A backup may
    lie outside the workspace (that is where backups go); inside it, it lies
    beside the memory, never in it."""
    import os
    import stat

    from memtier.workspace import in_memory_area, inside_root, special_file_kind

    given = output if output.is_absolute() else ws.root / output
    shown = (Term("output"), f" {output}")
    real = Path(os.path.realpath(given))
    real_root = os.path.realpath(ws.root)
    if inside_root(real_root, real):
        rel = real.relative_to(real_root).as_posix()
        if rel == "." or in_memory_area(rel):
            raise InputError(
                (
                    *shown,
                    f": lies in the workspace's memory ({rel}); an export never "
                    "replaces a memory file (write it beside the memory, e.g. ",
                    Term("output"),
                    " backup.json)",
                )
            )
    try:
        mode = os.stat(real).st_mode
    except FileNotFoundError:
        mode = None
    except OSError as exc:
        raise InputError((*shown, f": cannot be checked ({exc.strerror})")) from None
    if mode is not None and stat.S_ISDIR(mode):
        raise InputError((*shown, ": is a directory, expected a file"))
    if mode is not None and not stat.S_ISREG(mode):
        raise InputError((*shown, f": is {special_file_kind(mode)}, not a regular file"))
    if not real.parent.is_dir():
        raise InputError((*shown, f": folder {ws.relative(real.parent)} does not exist"))
    return real


def export_memory(
    ws: Workspace, tiers: Iterable[str] = (), output: Path | None = None
) -> ExportResult:
    """Build the envelope; write it to *output* (atomically) when given."""
    import os

    from memtier.secrets import add_counts, redact
    from memtier.workspace import inside_root

    chosen = chosen_tiers(tiers)
    if output is not None:
        output_target(ws, output)  # refused before anything is read
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
        target = output_target(ws, output)  # again: it may have changed meanwhile
        # Confined to the folder it names: inside the workspace, the root.
        inside = inside_root(os.path.realpath(ws.root), target)
        home = ws.root if inside else target.parent
        store.write_bytes(target, document.encode("utf-8"), root=home)
        written = str(output)
    return ExportResult(
        document=document,
        files=tuple(f.path for f in clean),
        output=written,
        redacted=redacted,
        warnings=tuple(warnings),
    )
