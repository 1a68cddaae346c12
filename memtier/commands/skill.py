"""`memtier skill`: the agent's instructions (SKILL.md), printed or installed.

The repository's root ``SKILL.md`` is the one source; a wheel carries a copy
as ``memtier/SKILL.md`` (a hatch force-include, like the templates), so an
installed memtier can print it, install it into an agent's skills folder as
``DIR/memtier/SKILL.md``, and serve it as an MCP resource.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memtier import store
from memtier.errors import InputError
from memtier.results import Result

SKILL_NAME = "memtier"
# Skill loaders show the description in a list; longer ones get cut (PROTOCOL §11).
DESCRIPTION_LIMIT = 160


def skill_path() -> Path:
    """``memtier/SKILL.md`` in an installed wheel, ``<repo>/SKILL.md`` in a checkout."""
    here = Path(__file__).resolve().parent.parent
    for candidate in (here / "SKILL.md", here.parent / "SKILL.md"):
        if candidate.is_file():
            return candidate
    raise InputError("SKILL.md is missing from this memtier installation (reinstall memtier)")


def skill_text() -> str:
    return skill_path().read_text(encoding="utf-8")


def front_matter(text: str) -> dict[str, str]:
    """The ``key: value`` lines between the opening and closing ``---``."""
    lines = text.split("\n")
    if not lines or lines[0].strip() != "---":
        return {}
    fields: dict[str, str] = {}
    for line in lines[1:]:
        if line.strip() == "---":
            break
        key, sep, value = line.partition(":")
        if sep:
            fields[key.strip()] = value.strip()
    return fields


@dataclass(frozen=True)
class SkillResult(Result):
    text: str
    installed: str | None = None
    created: bool = False

    JSON_OMIT = frozenset({"text"})  # the skill's text only when it was not installed

    def json_extra(self) -> Mapping[str, Any]:
        meta = front_matter(self.text)
        extra = {"name": meta.get("name"), "description": meta.get("description")}
        return extra if self.installed else {**extra, "text": self.text}

    def text_lines(self) -> Iterable[str]:
        if self.installed is None:
            yield from self.text.rstrip("\n").split("\n")
        else:
            verb = "installed" if self.created else "updated"
            yield f"{verb} {self.installed}"


def show_skill() -> SkillResult:
    return SkillResult(skill_text())


def install_skill(folder: Path) -> SkillResult:
    """Write ``folder/memtier/SKILL.md`` atomically, confined to *folder*."""
    if not folder.is_dir():
        raise InputError(f"{folder} is not a directory", path=folder)
    text = skill_text()
    target = folder / SKILL_NAME / "SKILL.md"
    existed = target.exists()
    store.make_dirs(target.parent, root=folder)
    store.write_text(target, text, root=folder)
    return SkillResult(text, installed=str(target), created=not existed)
