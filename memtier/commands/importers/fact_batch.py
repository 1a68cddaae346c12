"""A chunk of imported facts into one HOT or WARM file (PROTOCOL §3, §10, §12 v3).

Under the workspace lock: the file is read afresh (header checked, as every fact
write does), each fact is judged against the one duplicate table of the import
(`FactTable`), the HOT cap is kept, the dates are refreshed once, and the file is
written once. A file that changed since the table last saw it is read into the
table again first, so a line a person or an agent added meanwhile still counts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from memtier import store
from memtier.commands.importers.facts_table import FactTable
from memtier.commands.importers.report import DUPLICATE, Outcome, imported, skipped
from memtier.errors import InputError, RefusedError
from memtier.secrets import add_counts
from memtier.workspace import Workspace

if TYPE_CHECKING:
    from memtier.commands.fact_files import FactFile
    from memtier.commands.importers.planned import Planned


def build_table(ws: Workspace) -> FactTable:
    """The table of every fact line of HOT and WARM as they stand now."""
    from memtier.commands.fact_files import fact_homes

    table = FactTable()
    for path, header in fact_homes(ws):
        try:
            body = store.read_text(path, root=ws.root)
        except InputError:
            continue  # health-check reports an unreadable file
        lines = body.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        rel = ws.relative(path)
        table.load(rel, lines, header)
        table.texts[rel] = body
    return table


class FactBatch:
    def __init__(
        self,
        ws: Workspace,
        rel: str,
        table: FactTable,
        redacted: dict[str, int],
        *,
        dry_run: bool = False,
    ) -> None:
        self.ws, self.rel, self.table = ws, rel, table
        self.redacted, self.dry_run = redacted, dry_run

    def apply(self, chunk: list[Planned]) -> list[Outcome]:
        if self.dry_run:
            return self._apply(chunk)
        with store.workspace_lock(self.ws.lock_file):
            return self._apply(chunk)

    def _open(self) -> tuple[FactFile, store.Document, bool]:
        from memtier.commands.fact_files import read_fact_file, resolve_fact_file
        from memtier.formats.fact_text import default_topic_tags, topic_title, warm_header

        target = resolve_fact_file(self.ws, self.rel, option="--kind")
        if target.exists:
            return target, read_fact_file(self.ws, target), False
        if target.tier == "hot" or not self.rel.startswith("memory/procedural/"):
            raise InputError(f"{self.rel}: no such file (memtier init creates it)")
        stem = target.path.stem
        tags = default_topic_tags(stem, self.ws.config.vocabulary)
        pending = self.table.texts.get(self.rel)
        text = pending or warm_header(topic_title(stem), tags, self.ws.today.isoformat())
        return target, store.Document(text=text), True

    def _apply(self, chunk: list[Planned]) -> list[Outcome]:
        from memtier.commands.fact_files import check_hot_cap, refresh_dates
        from memtier.formats.fact_text import end_insert_index

        try:
            target, doc, _created = self._open()
        except (InputError, RefusedError) as exc:
            why = f"refused: {exc.message}"
            return [skipped(e.ref, why, None, e.label) for e in chunk]
        text = doc.text
        if self.dry_run and self.rel in self.table.texts:
            text = self.table.texts[self.rel]  # what the earlier chunks would have written
        lines = text.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        header = target.header_lines
        if self.table.texts.get(self.rel) != text:
            self.table.load(self.rel, lines, header)  # changed meanwhile: read it again
        outcomes: list[Outcome] = []
        added = 0
        for entry in chunk:
            try:
                new = self._clean(entry)
            except InputError as exc:
                outcomes.append(skipped(entry.ref, f"invalid: {exc.message}", None, entry.label))
                continue
            if self._duplicate(new, entry):
                outcomes.append(skipped(entry.ref, DUPLICATE, None, entry.label))
                continue
            at = end_insert_index(lines, header)
            del lines[at:]
            if entry.item.block and at > 0 and lines[at - 1].strip():
                new = ["", *new]
            candidate = [*lines, *new]
            if target.tier == "hot":
                try:
                    check_hot_cap(self.ws, target, "\n".join(candidate) + "\n")
                except RefusedError as exc:
                    outcomes.append(
                        skipped(entry.ref, f"refused: {exc.message}", None, entry.label)
                    )
                    continue
            lines = candidate
            for offset, line in enumerate(new):
                self.table.add(self.rel, at + offset + 1, line)
            added += 1
            outcomes.append(imported(entry.ref, self.rel, entry.label))
        if not added:
            return outcomes
        refresh_dates(target, lines, self.ws.today.isoformat(), verified=True)
        new_text = "\n".join(lines) + "\n"
        self.table.texts[self.rel] = new_text
        if not self.dry_run:
            store.write_text(target.path, new_text, root=self.ws.root, like=doc)
        return outcomes

    def _clean(self, entry: Planned) -> list[str]:
        from memtier.commands.facts import clean_fact

        block = entry.item.block
        clean = clean_fact("\n".join(entry.lines), "imported item", block=block)
        add_counts(self.redacted, clean.redacted)
        return clean.text.split("\n") if block else [f"- {clean.text}"]

    def _duplicate(self, new: list[str], entry: Planned) -> bool:
        if entry.item.block:
            return self.table.has_all(new)
        return self.table.find(new[0]) is not None
