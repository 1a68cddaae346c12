"""Reading a source for `memtier import` (PROTOCOL §12): files in, parsed items out.

Each format names what its SOURCE is (a file or a folder) and which files of it
are items; the pure parsers of `memtier.formats` do the rest. A source that does
not exist, or is a file where a folder is expected, is an input error (exit 2);
a single file of a folder that cannot be read (not UTF-8, binary) is an invalid
item, so the rest of the source still comes in.
"""

from __future__ import annotations

from pathlib import Path

from memtier import store
from memtier.errors import InputError
from memtier.formats.envelope import EnvelopeError, ExportedFile, parse_envelope
from memtier.formats.routing import Invalid, Parsed
from memtier.formats.sources_json import parse_brain, parse_mcp_memory
from memtier.formats.sources_markdown import (
    STRUCTURED_TYPES,
    Files,
    parse_claude,
    parse_indexed,
    parse_openclaw,
    parse_structured,
)

FORMATS: tuple[str, ...] = (
    "memtier", "indexed", "structured", "brain", "openclaw", "claude", "mcp-memory",
)  # fmt: skip


def _read_source_file(path: Path) -> str:
    if path.is_dir():
        raise InputError(f"{path}: is a folder; this format reads one file", path=path)
    if not path.is_file():
        raise InputError(f"{path}: no such file", path=path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(f"{path}: cannot be read ({exc.strerror})", path=path) from None
    return store.decode_document(data, str(path), path).text


def _md_files(folder: Path, base: Path, invalid: list[Invalid], *, deep: bool) -> Files:
    """``(name relative to base, text)`` of the markdown files in *folder*, sorted."""
    found: Files = []
    pattern = "**/*.md" if deep else "*.md"
    for path in sorted(folder.glob(pattern)):
        if path.is_symlink() or not path.is_file():
            continue
        name = path.relative_to(base).as_posix()
        try:
            found.append((name, store.decode_document(path.read_bytes(), name, path).text))
        except (InputError, OSError) as exc:
            invalid.append(Invalid(name, str(exc).removeprefix(f"{name}: ")))
    return found


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


def read_items(fmt: str, source: Path, text: str | None = None) -> Parsed:
    """The items of a source in any format but ``memtier``."""
    if fmt == "brain":
        return parse_brain(text if text is not None else _read_source_file(source))
    if fmt == "mcp-memory":
        return parse_mcp_memory(text if text is not None else _read_source_file(source))
    if text is not None:
        raise InputError(f"the '{fmt}' format reads a folder, not standard input")
    folder = _folder(source, fmt)
    invalid: list[Invalid] = []
    if fmt == "indexed":
        # The plugin keeps its files in an indexed/ folder; accept the folder above it too.
        inner = folder / "indexed"
        base = inner if inner.is_dir() and not any(folder.glob("*.md")) else folder
        return _with_invalid(parse_indexed(_md_files(base, base, invalid, deep=False)), invalid)
    if fmt == "structured":
        files: Files = []
        for kind in STRUCTURED_TYPES:
            if (folder / kind).is_dir():
                files.extend(_md_files(folder / kind, folder, invalid, deep=True))
        return _with_invalid(parse_structured(files), invalid)
    if fmt == "openclaw":
        memory_md = _optional_text(folder / "MEMORY.md", invalid)
        dailies = _md_files(folder / "memory", folder, invalid, deep=False)
        if memory_md is None and not dailies and not invalid:
            raise InputError(f"{source}: no MEMORY.md and no memory/*.md daily notes")
        return _with_invalid(parse_openclaw(memory_md, dailies), invalid)
    if fmt == "claude":
        index = _optional_text(folder / "MEMORY.md", invalid)
        topics = [f for f in _md_files(folder, folder, invalid, deep=False) if f[0] != "MEMORY.md"]
        return _with_invalid(parse_claude(index, topics), invalid)
    raise InputError(f"unknown import format '{fmt}' (one of: {', '.join(FORMATS)})")


def _optional_text(path: Path, invalid: list[Invalid]) -> str | None:
    if not path.is_file():
        return None
    try:
        return store.decode_document(path.read_bytes(), path.name, path).text
    except InputError as exc:
        invalid.append(Invalid(path.name, str(exc).removeprefix(f"{path.name}: ")))
        return None
