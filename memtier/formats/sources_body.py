"""The body of an imported memory, kept as its writer meant it (PROTOCOL §12 v3): pure.

- A body that is a flat list is one fact per bullet; a sub-bullet stays with its
  parent (``parent — child; child``).
- A body that is one paragraph is one fact, led by its title.
- Anything else (headings, code fences, several paragraphs, a list with prose) is
  a block, kept line for line: a line starting with ``#`` is a heading or, inside a
  fence, code, and is never dropped.
- Nothing here folds a line break away (PROTOCOL §3 v4): a paragraph or a wrapped
  bullet keeps its breaks, and the writer's one folding function
  (`memtier.secrets.fold_line`) folds them only after it has seen the halves of a
  hard-wrapped token together, as it does for every other writer.
- ``---`` rules and "last updated" lines say nothing about the world: not facts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_BULLET = re.compile(r"^([-*+]|\d+[.)])\s+(?=\S)")
_RULE = re.compile(r"^\s*([-*_])(\s*\1){2,}\s*$")
_LAST_UPDATED = re.compile(r"^[\s_*>]*(last[ _-]?(updated|modified|edited)|updated)\b", re.I)


@dataclass(frozen=True)
class Body:
    facts: tuple[str, ...]  # one fact each; for a block, its lines
    block: bool = False


def is_noise(line: str) -> bool:
    """A ``---`` rule or a "_Last updated: …_" line: no fact (PROTOCOL §12 v3)."""
    return bool(_RULE.match(line) or _LAST_UPDATED.match(line.strip()))


def is_fence_line(line: str) -> bool:
    stripped = line.lstrip()
    return stripped.startswith("```") or stripped.startswith("~~~")


def bullet_text(line: str) -> str | None:
    """The text of a top-level bullet line, or None when *line* is not one."""
    if line[:1].isspace():
        return None
    found = _BULLET.match(line)
    return line[found.end() :].strip() if found else None


def grouped_bullets(lines: list[str]) -> list[str] | None:
    """Each top-level bullet with its sub-bullets folded in, or None when *lines*
    (no blank ones) are not a list."""
    facts: list[tuple[str, list[str]]] = []
    for line in lines:
        top = bullet_text(line)
        if top is not None:
            facts.append((top, []))
            continue
        inner = line.strip()
        if not facts or not line[:1].isspace():
            return None
        if not _BULLET.match(inner):  # a wrapped line continues what stands above it
            parent, children = facts[-1]
            if children:
                children[-1] += f"\n{inner}"
            else:
                facts[-1] = (f"{parent}\n{inner}", children)
            continue
        facts[-1][1].append(_BULLET.sub("", inner).strip())
    return [join_children(parent, children) for parent, children in facts]


def join_children(parent: str, children: list[str]) -> str:
    if not children:
        return parent
    return f"{parent} — {'; '.join(children)}"


def _trimmed(lines: list[str]) -> list[str]:
    lines = [line.rstrip() for line in lines]
    while lines and not lines[0].strip():
        lines.pop(0)
    while lines and not lines[-1].strip():
        lines.pop()
    return lines


def split_body(title: str, body: str) -> Body:
    """The facts of a memory file's body (module docstring)."""
    lines = _trimmed([line for line in body.split("\n") if not is_noise(line)])
    content = [line for line in lines if line.strip()]
    if not content:
        return Body((title,) if title else ())
    structured = any(line.lstrip().startswith("#") or is_fence_line(line) for line in content)
    paragraphs = sum(
        1 for i, line in enumerate(lines) if line.strip() and (i == 0 or not lines[i - 1].strip())
    )
    if not structured and paragraphs == 1:
        listed = grouped_bullets(content)
        if listed is not None:
            return Body(tuple(listed))
        if not any(_BULLET.match(line.lstrip()) for line in content):
            prose = "\n".join(line.strip() for line in content)
            if title and not prose.lower().startswith(title.lower()):
                prose = f"{title}: {prose}"
            return Body((prose,))
    head = [title, ""] if title else []
    return Body(tuple(_trimmed(head + lines)), block=True)
