"""`memtier tags`: the ``#tags:`` line of HOT and WARM files (PROTOCOL §2, §9).

For MEMORY.md and every WARM file: the tags on line 2, how often each tag is
used, and the tokens outside the configured vocabulary (compared
case-sensitively, as health-check does). A file without a ``#tags:`` line is
listed as missing one. Unreadable files, and symlinks that lead out of the
workspace, are skipped with a warning.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from memtier.errors import InputError, Term
from memtier.formats.tags import parse_tag_line
from memtier.results import Record, Result
from memtier.workspace import Workspace


@dataclass(frozen=True)
class FileTags(Record):
    path: str
    tags: tuple[str, ...]
    invalid: tuple[str, ...]
    missing: bool


@dataclass(frozen=True)
class TagsReport(Result):
    files: tuple[FileTags, ...]
    warnings: tuple[str, ...] = ()
    vocabulary: tuple[str, ...] = ()  # the configured tags (memtier.toml or the default)

    @property
    def counts(self) -> list[tuple[str, int]]:
        """Tag → number of files carrying it, most used first, then by name."""
        counter = Counter(tag for f in self.files for tag in dict.fromkeys(f.tags))
        return sorted(counter.items(), key=lambda item: (-item[1], item[0]))

    @property
    def invalid(self) -> list[str]:
        return sorted({token for f in self.files for token in f.invalid})

    JSON_OMIT = frozenset({"warnings"})

    def json_extra(self) -> dict[str, Any]:
        return {"counts": dict(self.counts), "invalid": self.invalid}

    def text_lines(self) -> Iterable[str]:
        if not self.files:
            yield "no HOT or WARM files found"
            return
        width = max(len(f.path) for f in self.files)
        for f in self.files:
            shown = ", ".join(f.tags) if f.tags else "(empty)"
            if f.missing:
                shown = "(no #tags: line)"
            yield f"{f.path:<{width}}  {shown}"
        yield ""
        counts = self.counts
        if counts:
            yield "tags: " + ", ".join(f"{tag} ({n})" for tag, n in counts)
        invalid = self.invalid
        if invalid:
            yield "outside the vocabulary: " + ", ".join(invalid)
        else:
            yield "every tag is in the vocabulary"


def collect_tags(ws: Workspace) -> TagsReport:
    """The tags of MEMORY.md and of every WARM file, in that order."""
    from memtier import store

    files: list[FileTags] = []
    warnings: list[str] = []
    paths = ([ws.hot] if ws.hot.exists() else []) + ws.warm_files()
    for path in paths:
        rel = ws.relative(path)
        if not ws.resolves_inside(path):
            warnings.append(f"skipped {rel}: symlink pointing outside the workspace")
            continue
        try:
            text = store.read_text(path, root=ws.root)
        except InputError as exc:
            warnings.append(f"skipped {exc.message}")
            continue
        lines = text.split("\n")
        tags = parse_tag_line(lines[1]) if len(lines) > 1 else None
        if tags is None:
            files.append(FileTags(rel, (), (), missing=True))
            continue
        invalid = tuple(dict.fromkeys(t for t in tags if not ws.config.in_vocabulary(t)))
        files.append(FileTags(rel, tags, invalid, missing=False))
    return TagsReport(tuple(files), tuple(warnings), ws.config.vocabulary)


# ---------------------------------------------------------------------------
# tags --add: the vocabulary in memory/memtier.toml (PROTOCOL §1)


@dataclass(frozen=True)
class TagsAddResult(Result):
    added: tuple[str, ...]
    present: tuple[str, ...]
    config: str

    def text_lines(self) -> Iterable[str]:
        for tag in self.added:
            yield f"added {tag} to the vocabulary in {self.config}"
        for tag in self.present:
            yield f"{tag} is already in the vocabulary"


def add_tags(ws: Workspace, tags: Sequence[str]) -> TagsAddResult:
    """Append *tags* to ``vocabulary`` in memtier.toml, keeping the file's comments."""
    from memtier import store
    from memtier.config import Config, add_vocabulary_text, parse_config
    from memtier.formats.fact_text import TAG_RE
    from memtier.secrets import detect

    # A tag is echoed, written to memtier.toml and shown by every health check:
    # never a credential (PROTOCOL §3 v2). The message names the rule only.
    rules = sorted({finding.rule for tag in tags for finding in detect(tag)})
    if rules:
        raise InputError(
            (Term("add"), f": refusing a tag that holds a secret ({', '.join(rules)})")
        )
    bad = [t for t in tags if not TAG_RE.match(t)]
    if bad or not tags:
        raise InputError(
            (
                Term("add"),
                f": not a tag: {', '.join(repr(t) for t in bad) or 'nothing given'} "
                "(no spaces, commas, '|', quotes, '#' or brackets)",
            )
        )
    path = ws.config_file
    rel = ws.relative(path)
    with store.workspace_lock(ws.lock_file):
        # Re-read under the lock: the vocabulary in ws.config may be older than the file.
        doc = (
            store.read_document(path, root=ws.root)
            if os.path.lexists(path)
            else store.Document(text="")
        )
        where = path.relative_to(ws.root)
        vocabulary = (parse_config(doc.text, where) if doc.text else Config()).vocabulary
        new = tuple(dict.fromkeys(t for t in tags if t not in vocabulary))
        present = tuple(dict.fromkeys(t for t in tags if t in vocabulary))
        if new:
            text = add_vocabulary_text(doc.text, vocabulary, new)
            check = parse_config(text, where)
            if check.vocabulary != (*vocabulary, *new):
                raise InputError(f"{rel}: could not add to its vocabulary safely; edit it by hand")
            store.write_text(path, text, root=ws.root, like=doc)
    return TagsAddResult(new, present, rel)
