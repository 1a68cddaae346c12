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
from memtier.commands.transfer.importers.facts_table import FactTable
from memtier.commands.transfer.importers.report import DUPLICATE, Outcome, imported, skipped
from memtier.errors import InputError, RefusedError, Term
from memtier.workspace import Workspace

if TYPE_CHECKING:
    from memtier.commands.facts.files import FactFile
    from memtier.commands.transfer.importers.planned import Planned


def build_table(ws: Workspace) -> FactTable:
    """The table of every fact line of HOT and WARM as they stand now."""
    from memtier.commands.facts.files import fact_homes

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
        """Judge *chunk* outside the lock against the file as last seen; under the lock,
        judge again only when the file changed meanwhile, then write it once."""
        from memtier.commands.facts.files import resolve_fact_file

        try:
            target = resolve_fact_file(self.ws, self.rel, option=Term("kind"))
            seen = self.table.texts.get(self.rel)
            if self.dry_run:
                text = seen if seen is not None else self._read(target).text
                return self._decide(target, chunk, text)[0]
            if seen is not None:
                outcomes, new_text = self._decide(target, chunk, seen)
            with store.workspace_lock(self.ws.lock_file):
                doc = self._read(target)
                if seen is None or doc.text != seen:
                    outcomes, new_text = self._decide(target, chunk, doc.text)
                if new_text is not None:
                    store.write_text(target.path, new_text, root=self.ws.root, like=doc)
        except (InputError, RefusedError) as exc:
            why = f"refused: {exc.message}"
            return [skipped(e.ref, why, None, e.label) for e in chunk]
        return outcomes

    def _read(self, target: FactFile) -> store.Document:
        """The file as it stands (header checked), or a new procedural file's header."""
        from memtier.commands.facts.files import read_fact_file
        from memtier.formats.fact_text import default_topic_tags, topic_title, warm_header

        if target.exists:
            return read_fact_file(self.ws, target)
        if target.tier == "hot" or not self.rel.startswith("memory/procedural/"):
            raise InputError((f"{self.rel}: no such file (", Term("init"), " creates it)"))
        stem = target.path.stem
        tags = default_topic_tags(stem, self.ws.config.vocabulary)
        return store.Document(text=warm_header(topic_title(stem), tags, self.ws.today.isoformat()))

    def _decide(
        self, target: FactFile, chunk: list[Planned], text: str
    ) -> tuple[list[Outcome], str | None]:
        """Outcomes of *chunk* added to *text*, and the new text (None: nothing added)."""
        from memtier.commands.facts.files import check_hot_cap, refresh_dates
        from memtier.formats.fact_text import end_insert_index

        lines = text.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        header = target.header_lines
        if self.table.texts.get(self.rel) != text:
            self.table.load(self.rel, lines, header)  # changed meanwhile: read it again
            self.table.texts[self.rel] = text
        outcomes: list[Outcome] = []
        added = 0
        for entry in chunk:
            if entry.clean is None:
                outcomes.append(skipped(entry.ref, entry.problem or "invalid", None, entry.label))
                continue
            new = entry.clean.split("\n") if entry.item.block else [f"- {entry.clean}"]
            if self._duplicate(new, entry):
                outcomes.append(skipped(entry.ref, DUPLICATE, None, entry.label))
                continue
            at = end_insert_index(lines, header)
            if entry.item.block and at > 0 and lines[at - 1].strip():
                new = ["", *new]
            if target.tier == "hot":
                try:
                    check_hot_cap(self.ws, target, "\n".join([*lines[:at], *new]) + "\n")
                except RefusedError as exc:
                    why = f"refused: {exc.message}"
                    outcomes.append(skipped(entry.ref, why, None, entry.label))
                    continue
            del lines[at:]
            lines.extend(new)
            for offset, line in enumerate(new):
                self.table.add(self.rel, at + offset + 1, line)
            added += 1
            outcomes.append(imported(entry.ref, self.rel, entry.label))
        if not added:
            return outcomes, None
        refresh_dates(target, lines, self.ws.today.isoformat(), verified=True)
        new_text = "\n".join(lines) + "\n"
        self.table.texts[self.rel] = new_text
        return outcomes, new_text

    def _duplicate(self, new: list[str], entry: Planned) -> bool:
        if entry.item.block:
            return self.table.has_all(new)
        return self.table.find(new[0]) is not None
