"""The one way an import writes a fact: the facts path of PROTOCOL §10.

`remember` here has the signature of ``memtier.commands.facts.remember`` and
keeps its rules (the home of each kind, no duplicate or near-duplicate of a HOT
or WARM line, the HOT cap, redaction, ``last_verified`` refreshed); `Remembered`
is the part of its result an import reports.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from memtier import store
from memtier.errors import InputError, RefusedError
from memtier.workspace import Workspace

_HOMES = {
    "infrastructure": "memory/semantic/infrastructure.md",
    "preference": "memory/semantic/preferences.md",
    "project": "memory/semantic/projects.md",
    "decision": "memory/semantic/decisions.md",
    "lesson": "memory/procedural/lessons-learned.md",
    "hot": "MEMORY.md",
}
_VERIFIED = re.compile(r"^(> )?last_verified:")
NEAR_DUPLICATE = 0.85


@dataclass(frozen=True)
class Remembered:
    path: str
    redacted: dict[str, int] = field(default_factory=dict)


def _normal(text: str) -> str:
    text = re.sub(r"^\s*[-*+]\s+", "", text.lower())
    return " ".join(re.sub(r"[^\w\s]", " ", text).split())


def _similar(a: set[str], b: set[str]) -> bool:
    return bool(a and b) and len(a & b) / len(a | b) >= NEAR_DUPLICATE


def _home(ws: Workspace, kind: str | None, to: str | None) -> str:
    if to is not None:
        return to
    if kind in _HOMES:
        return _HOMES[kind]
    if kind and kind.startswith("howto:") and re.fullmatch(r"[a-z0-9][a-z0-9-]*", kind[6:]):
        return f"memory/procedural/{kind[6:]}.md"
    raise InputError(f"--kind: not a fact kind: {kind!r}")


def _check_duplicate(ws: Workspace, wanted: str) -> None:
    words = set(wanted.split())
    for path in (ws.hot, *ws.warm_files()):
        if not path.is_file():
            continue
        for number, line in enumerate(store.read_text(path, root=ws.root).split("\n"), 1):
            if not line.lstrip().startswith(("- ", "* ")):
                continue
            have = _normal(line)
            if have == wanted or _similar(words, set(have.split())):
                raise RefusedError(
                    f"duplicate: already stands in {ws.relative(path)}:{number}; "
                    "use memtier replace to change it"
                )


def _new_file(ws: Workspace, rel: str, tags: Iterable[str]) -> str:
    topic = rel.rsplit("/", 1)[-1].removesuffix(".md")
    kept = [t for t in tags if ws.config.in_vocabulary(t)]
    tags_line = "#tags: " + ", ".join(kept) if kept else "#tags:"
    title = topic.replace("-", " ").capitalize()
    return f"# {title}\n{tags_line}\n> last_verified: {ws.today.isoformat()}\n\n"


def _refresh(lines: list[str], today: str) -> None:
    for index, line in enumerate(lines):
        found = _VERIFIED.match(line)
        if found:
            lines[index] = f"{found.group(1) or ''}last_verified: {today}"
        elif line.startswith("last_updated:"):
            lines[index] = f"last_updated: {today}"


def remember(
    ws: Workspace,
    text: str,
    *,
    kind: str | None = None,
    to: str | None = None,
    section: str | None = None,
    tags: Iterable[str] = (),
) -> Remembered:
    """Add *text* as ``- text`` to its home (PROTOCOL §10)."""
    from memtier.commands.lifecycle import clean_text

    clean = clean_text(text, "remember")
    line = clean.text
    for marker in ("- ", "* "):
        line = line.removeprefix(marker)
    rel = _home(ws, kind, to)
    path = ws.root / rel
    with store.workspace_lock(ws.lock_file):
        _check_duplicate(ws, _normal(line))
        doc = store.read_document(path, root=ws.root) if path.exists() else None
        body = doc.text if doc else _new_file(ws, rel, tags)
        lines = body.rstrip("\n").split("\n")
        if rel == "MEMORY.md" and len(lines) + 1 > ws.config.hot_max_lines:
            raise RefusedError(
                f"MEMORY.md would have {len(lines) + 1} lines, over the "
                f"{ws.config.hot_max_lines}-line cap; retire a line or keep the fact in WARM"
            )
        if section:
            heading = f"## {section}"
            if heading not in lines:
                lines += ["", heading]
        lines.append(f"- {line}")
        _refresh(lines, ws.today.isoformat())
        store.write_text(path, "\n".join(lines) + "\n", root=ws.root, like=doc)
    return Remembered(path=rel, redacted=dict(clean.redacted))
