"""Reading a source for `memtier import` (PROTOCOL §12): files in, parsed items out.

Each format names what its SOURCE is (a file or a folder) and which files of it
are items; the pure parsers of `memtier.formats` do the rest. A source that does
not exist, is a file where a folder is expected, is larger than `MAX_SOURCE_BYTES`
or holds nothing the format recognises is an input error (exit 2) saying what was
expected; a single file of a folder that cannot be read (not UTF-8, binary) is an
invalid item, and every other file or folder found is listed as skipped with its
reason (PROTOCOL §12 v3): nothing is ignored silently.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from memtier import store
from memtier.errors import InputError
from memtier.formats.envelope import EnvelopeError, ExportedFile, parse_envelope
from memtier.formats.routing import Invalid, Parsed
from memtier.formats.sources_json import JSONBoundError, parse_brain, parse_mcp_memory
from memtier.formats.sources_markdown import (
    STRUCTURED_TYPES,
    Files,
    is_day_name,
    parse_claude,
    parse_indexed,
    parse_openclaw,
    parse_structured,
)

FORMATS: tuple[str, ...] = (
    "memtier", "indexed", "structured", "brain", "openclaw", "claude", "mcp-memory",
)  # fmt: skip
MAX_SOURCE_BYTES = 256 * 1024 * 1024
MAX_SOURCE_FILES = 100_000
LAYOUTS: dict[str, str] = {
    "memtier": "an export file of `memtier export`",
    "indexed": "a folder of YYYY-MM-DD-slug-id.md files with front matter "
    "(<workspace>/memory/indexed/, or the workspace holding it)",
    "structured": "a folder with user/ feedback/ project/ reference/ knowledge/ event/ custom/ "
    "of front-matter files",
    "brain": 'a JSONL store ({"item": …} or {id, kind, text, createdAt} lines) '
    "or an export envelope {version, exportedAt, count, items}",
    "openclaw": "a workspace with MEMORY.md and memory/YYYY-MM-DD*.md daily notes",
    "claude": "a Claude Code memory folder (MEMORY.md and topic *.md files), "
    "or the project folder holding memory/",
    "mcp-memory": 'the MCP memory server\'s memory.jsonl ({"type": "entity"|"relation"} lines)',
}


def too_big(size: int, what: str) -> InputError:
    mib = 1024 * 1024
    limit = (
        f"{MAX_SOURCE_BYTES // mib} MiB" if mib <= MAX_SOURCE_BYTES else f"{MAX_SOURCE_BYTES} bytes"
    )
    return InputError(f"{what}: {size} bytes, larger than the import limit of {limit}")


def _decode(data: bytes, name: str, path: Path | None) -> str:
    return store.decode_document(data, name, path).text


def _read_bytes(path: Path, shown: str, limit: int) -> bytes:
    """The bytes of *path* when it is a regular file, read up to one byte past *limit*
    (the caller says what too big is). Opened without blocking and checked once open,
    so a FIFO, a device or a socket in a source is refused at once, never waited on
    (§3 v2, §12)."""
    import os
    import stat

    from memtier.workspace import special_file_kind

    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise InputError(f"{shown}: is a folder, not a file", path=path)
        if not stat.S_ISREG(mode):
            raise InputError(f"{shown}: {special_file_kind(mode)}, not a regular file", path=path)
        chunks: list[bytes] = []
        got = 0
        while got <= limit and (chunk := os.read(fd, min(1 << 20, limit + 1 - got))):
            chunks.append(chunk)
            got += len(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def _read_source_file(path: Path) -> str:
    if path.is_dir():
        raise InputError(f"{path}: is a folder; this format reads one file", path=path)
    if not path.exists():
        raise InputError(f"{path}: no such file", path=path)
    try:
        data = _read_bytes(path, str(path), MAX_SOURCE_BYTES)
    except OSError as exc:
        raise InputError(f"{path}: cannot be read ({exc.strerror})", path=path) from None
    if len(data) > MAX_SOURCE_BYTES:
        raise too_big(path.stat().st_size, str(path))
    return _decode(data, str(path), path)


class _Walk:
    """The files of a folder source, each read once, bounded in number and size."""

    def __init__(self, base: Path) -> None:
        self.base = base
        self.invalid: list[Invalid] = []
        self.total = 0

    def name(self, path: Path) -> str:
        return path.relative_to(self.base).as_posix()

    def read(self, path: Path) -> tuple[str, str] | None:
        name = self.name(path)
        try:
            data = _read_bytes(path, name, MAX_SOURCE_BYTES - self.total)
            self.total += len(data)
            if self.total > MAX_SOURCE_BYTES:
                raise too_big(self.total - len(data) + path.stat().st_size, str(self.base))
            return name, _decode(data, name, path)
        except OSError as exc:
            self.invalid.append(Invalid(name, f"cannot be read ({exc.strerror})"))
        except InputError as exc:
            if "import limit" in exc.message:
                raise
            self.invalid.append(Invalid(name, str(exc).removeprefix(f"{name}: ")))
        return None

    def md_files(self, folder: Path, *, deep: bool = False) -> Files:
        found: Files = []
        for path in self.listing(folder, deep=deep):
            if path.suffix == ".md" and path.is_file() and not path.is_symlink():
                got = self.read(path)
                if got is not None:
                    found.append(got)
        return found

    def listing(self, folder: Path, *, deep: bool = False) -> list[Path]:
        paths = sorted(folder.rglob("*") if deep else folder.iterdir())
        if len(paths) > MAX_SOURCE_FILES:
            raise InputError(f"{folder}: more than {MAX_SOURCE_FILES} files to import")
        return paths

    def skip(self, path: Path, why: str) -> None:
        self.invalid.append(Invalid(self.name(path), why, label="unrecognised"))


def _folder(source: Path, fmt: str) -> Path:
    if not source.exists():
        raise InputError(f"{source}: no such folder", path=source)
    if not source.is_dir():
        raise InputError(f"{source}: is a file; the '{fmt}' format reads a folder", path=source)
    return source


def _with_invalid(parsed: Parsed, invalid: list[Invalid]) -> Parsed:
    parsed.invalid[:0] = invalid
    return parsed


def read_export(source: Path, text: str | None) -> tuple[list[ExportedFile], list[Invalid]]:
    """The files of a memtier export (from *text* when given: standard input)."""
    shown = str(source)
    if text is None:
        text = _read_source_file(source)
    try:
        return parse_envelope(text.removeprefix("\ufeff"))
    except EnvelopeError as exc:
        raise InputError(f"{shown}: {exc}") from None


def _nothing(fmt: str, source: Path | str, parsed: Parsed) -> Parsed:
    if not parsed.items and not parsed.invalid:
        raise InputError(
            f"{source}: nothing to import as '{fmt}'; expected {LAYOUTS[fmt]}", path=None
        )
    return parsed


def read_items(
    fmt: str, source: Path, text: str | None = None, now: datetime | None = None
) -> Parsed:
    """The items of a source in any format but ``memtier``; *now* decides expiry."""
    shown = "standard input" if text is not None else str(source)
    if fmt in ("brain", "mcp-memory"):
        data = text if text is not None else _read_source_file(source)
        try:
            parsed = parse_brain(data, now) if fmt == "brain" else parse_mcp_memory(data)
        except JSONBoundError as exc:
            raise InputError(f"{shown}: not JSON within bounds ({exc})") from None
        if (
            not parsed.items
            and parsed.invalid
            and all(i.why.startswith("not JSON") for i in parsed.invalid)
        ):
            # Not one line is JSON: this is no JSONL source at all (a bad line among good
            # ones is that line's invalid outcome).
            first = parsed.invalid[0]
            raise InputError(f"{shown}: no line is JSON ({first.ref}: {first.why})")
        return _nothing(fmt, shown, parsed)
    if text is not None:
        raise InputError(f"the '{fmt}' format reads a folder, not standard input")
    folder = _folder(source, fmt)
    if fmt == "indexed":
        parsed = _indexed(folder)
    elif fmt == "structured":
        walk = _Walk(folder)
        files: Files = []
        for kind in STRUCTURED_TYPES:
            if (folder / kind).is_dir():
                files.extend(walk.md_files(folder / kind, deep=True))
        parsed = _with_invalid(parse_structured(files), walk.invalid)
    elif fmt == "openclaw":
        parsed = _openclaw(folder)
    elif fmt == "claude":
        parsed = _claude(folder)
    else:
        raise InputError(f"unknown import format '{fmt}' (one of: {', '.join(FORMATS)})")
    return _nothing(fmt, source, parsed)


def _indexed(folder: Path) -> Parsed:
    """PROTOCOL §12 v3: ``<workspace>/memory/indexed/`` beside OpenClaw's daily notes,
    the ``memory/`` folder, or the ``indexed/`` folder itself."""
    for memory in (folder / "memory", folder):
        inner = memory / "indexed"
        if inner.is_dir():
            walk = _Walk(memory)
            files = walk.md_files(inner)
            parsed = parse_indexed(files)
            notes = _daily_files(walk, memory)
            beside = parse_openclaw(None, notes)
            parsed.items.extend(beside.items)
            parsed.invalid.extend(beside.invalid)
            return _with_invalid(parsed, walk.invalid)
    walk = _Walk(folder)
    return _with_invalid(parse_indexed(walk.md_files(folder)), walk.invalid)


def _daily_files(walk: _Walk, memory: Path) -> Files:
    """The daily notes of a ``memory/`` folder; its other files are listed as skipped."""
    notes: Files = []
    for path in walk.listing(memory):
        if path.name == "indexed":
            continue
        if path.is_file() and path.suffix == ".md" and is_day_name(path.name):
            got = walk.read(path)
            if got is not None:
                notes.append(got)
        else:
            walk.skip(path, "not a daily note or an indexed memory")
    return notes


def _openclaw(folder: Path) -> Parsed:
    walk = _Walk(folder)
    memory_md = _optional(walk, folder / "MEMORY.md")
    user_md = _optional(walk, folder / "USER.md")
    memory = folder / "memory"
    dailies: Files = []
    topics: Files = []
    if memory.is_dir():
        for path in walk.listing(memory, deep=True):
            rel = path.relative_to(memory)
            if path.is_symlink():
                walk.skip(path, "a symbolic link (not followed)")
            elif path.is_dir():
                continue
            elif rel.parts[0] == "indexed":
                walk.skip(path, "an indexed-memory folder: import it with the 'indexed' format")
            elif path.suffix != ".md":
                why = "not markdown"
                if path.suffix == ".jsonl":
                    why += " (a JSONL store: import it with the 'brain' or 'mcp-memory' format)"
                walk.skip(path, why)
            elif is_day_name(path.name) and (len(rel.parts) == 1 or rel.parts[0] == "archive"):
                got = walk.read(path)
                if got is not None:
                    dailies.append(got)
            else:
                got = walk.read(path)
                if got is not None:
                    topics.append(got)
    if memory_md is None and user_md is None and not dailies and not topics and not walk.invalid:
        raise InputError(
            f"{folder}: nothing to import as 'openclaw'; expected {LAYOUTS['openclaw']}"
        )
    return _with_invalid(parse_openclaw(memory_md, dailies, topics, user_md), walk.invalid)


def _claude(folder: Path) -> Parsed:
    """A memory folder, or a project folder (``~/.claude/projects/<p>``) holding ``memory/``."""
    if not (folder / "MEMORY.md").is_file() and (folder / "memory").is_dir():
        folder = folder / "memory"
    walk = _Walk(folder)
    index = _optional(walk, folder / "MEMORY.md")
    topics = [f for f in walk.md_files(folder) if f[0] != "MEMORY.md"]
    for path in walk.listing(folder):
        if path.is_dir() or path.suffix != ".md":
            walk.skip(path, "not a topic file (*.md) of the memory folder")
    return _with_invalid(parse_claude(index, topics), walk.invalid)


def _optional(walk: _Walk, path: Path) -> str | None:
    if not path.exists() or path.is_dir():
        return None  # (a FIFO or a device in its place: read, refused, said why)
    got = walk.read(path)
    return got[1] if got is not None else None
