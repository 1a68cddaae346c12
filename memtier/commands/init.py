"""`memtier init`: lay out a workspace from the templates (PROTOCOL §1, §9).

Creates every missing folder and file of the layout, never overwrites anything
that exists (a hand-written MEMORY.md is kept byte for byte), and reports what
it created. Running it twice changes nothing the second time.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from memtier import store
from memtier.config import Config, load_config
from memtier.errors import InputError, RefusedError, Term
from memtier.formats.templates import render_template, template_paths
from memtier.results import Result
from memtier.store import checkpoint
from memtier.workspace import CONFIG_FILE, LAYOUT_FOLDERS, Workspace, exists_or_link


@dataclass(frozen=True)
class InitResult(Result):
    root: Path
    created: tuple[str, ...] = field(default_factory=tuple)
    existing: tuple[str, ...] = field(default_factory=tuple)
    demo: tuple[str, ...] | None = None  # files of the sample memory, with --demo
    demo_shift_days: int = 0

    JSON_OMIT = frozenset({"demo", "demo_shift_days"})

    def json_extra(self) -> Mapping[str, Any]:
        if self.demo is None:
            return {}
        return {"demo": {"files": list(self.demo), "shift_days": self.demo_shift_days}}

    def text_lines(self) -> Iterable[str]:
        for name in self.created:
            yield f"created {name}"
        if not self.created:
            yield f"nothing to create: {self.root} is already a complete workspace"
        else:
            yield f"✅ Workspace ready at {self.root} ({len(self.created)} created)"
        if self.demo is not None:
            yield (
                f"✅ Sample memory installed: {len(self.demo)} files of a home-lab agent's "
                "two weeks, the newest note dated today"
            )


def init_workspace(root: Path, now: datetime, config: Config | None = None) -> InitResult:
    """Create whatever part of the layout is missing under *root*."""
    from memtier.secrets import refuse_secret_in_name

    root = root.absolute()
    # The root is printed by init and named in later messages: a folder named
    # after a credential is never created or reported (PROTOCOL §3 v2).
    refuse_secret_in_name(str(root))
    if root.exists() and not root.is_dir():
        raise InputError(f"{root}: exists and is not a folder; cannot initialise a workspace there")
    created: list[str] = []
    existing: list[str] = []
    if store.make_dirs(root / "memory", root=root):
        created.append("memory/")
    cfg = config if config is not None else load_config(root, CONFIG_FILE)
    ws = Workspace(root=root, now=now, config=cfg)
    with store.workspace_lock(ws.lock_file):
        for folder in LAYOUT_FOLDERS[1:]:
            if store.make_dirs(root / folder, root=root):
                created.append(folder + "/")
        for rel in template_paths():
            target = root / rel
            name = rel.as_posix()
            if exists_or_link(target):
                existing.append(name)
                continue
            store.write_text(target, render_template(rel, now, cfg), root=root)
            created.append(name)
            checkpoint("init.file-written")
    return InitResult(root=root, created=tuple(created), existing=tuple(existing))


def init_demo(root: Path, now: datetime, config: Config | None = None) -> InitResult:
    """`init --demo`: a new workspace holding the packaged sample memory (PROTOCOL §12),
    its dates moved so that the newest note is today's."""
    from dataclasses import replace

    from memtier.commands.transfer.importers.files import apply_files
    from memtier.demo import DEMO_EXPORT
    from memtier.formats.envelope import newest_note_day, parse_envelope, shift_dates
    from memtier.workspace import is_workspace

    root = root.absolute()
    if is_workspace(root) or (root / "memory").exists():
        raise RefusedError(
            (
                f"{root} already holds a workspace; ",
                Term("demo"),
                " installs the sample memory only into a new one (try an empty folder)",
            )
        )
    files, invalid = parse_envelope(DEMO_EXPORT.read_text(encoding="utf-8"))
    assert not invalid, invalid
    result = init_workspace(root, now, config)
    ws = Workspace.open(root, now)
    newest = newest_note_day(files)
    shift = (ws.today - newest).days if newest is not None else 0
    with store.workspace_lock(ws.lock_file):
        outcomes, _redacted = apply_files(ws, shift_dates(files, shift), [])
    placed = tuple(o.item for o in outcomes if o.status == "imported")
    return replace(result, demo=placed + _demo_topic(ws), demo_shift_days=shift)


def _demo_topic(ws: Workspace) -> tuple[str, ...]:
    """The demo's topic and its first generation (PROTOCOL §13), written by memtier."""
    from memtier.commands.topics.consolidate import consolidate
    from memtier.commands.topics.index import index_add
    from memtier.demo import DEMO_TOPIC

    slug, category, match = DEMO_TOPIC
    index_add(ws, slug, category, match)
    written = consolidate(ws, slug)
    return (ws.relative(ws.index_file), *(plan.path for plan in written.plans))
