"""A scripted two months of a home-lab agent with three topics (PROTOCOL §13).

Support for the topic tests and ``bench/topics``: every note is written by
memtier's own writers (``episodic append``, ``episodic close``) at the moment
the agent would write it, the daily flush runs each morning as cron would, and
TTL archival moves the old notes, so generations cite live and archived notes.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta
from pathlib import Path

from memtier.commands.archive import archive
from memtier.commands.episodic_writes import episodic_append, episodic_close
from memtier.commands.topics.flush import flush
from memtier.commands.topics.index import index_add
from memtier.workspace import Workspace

START = date(2026, 9, 1)
DAYS = 61  # September and October
OFFSET = "+02:00"


@dataclass(frozen=True)
class Topic:
    slug: str
    category: str
    match: tuple[str, ...]
    steps: tuple[str, ...]
    decisions: tuple[str, ...]
    open_items: tuple[str, ...]


TOPICS: tuple[Topic, ...] = (
    Topic(
        "qdrant-migration",
        "projects",
        ("qdrant",),
        (
            "snapshotted the qdrant collections on docker01 ({n} GB)",
            "copied qdrant snapshot {n} to nas01 over the tailnet",
            "qdrant on nas01 answers on port 6333, {n} collections restored",
            "pointed the embedding worker at the new qdrant host, {n} queries replayed",
        ),
        (
            "qdrant moves to nas01 because docker01's SSD is full",
            "keep qdrant snapshots for 14 days",
            "qdrant runs as a systemd unit on nas01, not in docker",
        ),
        ("test a qdrant restore from snapshot", "retire the qdrant container on docker01"),
    ),
    Topic(
        "restic-backup",
        "projects",
        ("restic", "backup"),
        (
            "restic backup of docker01 took {n} min",
            "pruned restic snapshots, {n} kept",
            "restic check found {n} packs to repair",
            "tested a restic restore of /etc from snapshot {n}",
        ),
        (
            "restic replaces Hyper Backup for docker01",
            "backup window moves to 02:30",
            "restic repository keeps 7 daily and 4 weekly snapshots",
        ),
        ("script the restic restore drill", "alert when a backup is older than 2 days"),
    ),
    Topic(
        "matrix-synapse",
        "projects",
        ("synapse", "matrix"),
        (
            "synapse upgraded to 1.1{n}0",
            "matrix federation tester green after coturn fix {n}",
            "synapse database vacuum freed {n} GB",
            "bridged {n} rooms to the matrix space",
        ),
        (
            "synapse stays on postgres 16",
            "matrix media retention is 90 days",
        ),
        ("move synapse media to nas01",),
    ),
)
NOISE = (
    "apt mirror slow again, {n} min for updates",
    "pi-gw rebooted after a power cut",
    "renewed the wildcard certificate",
    "cleaned {n} old docker images",
)


def topics_on(day_number: int) -> list[Topic]:
    """Which topics a day touches: a fixed rhythm, so the story is the same every run."""
    chosen = [t for i, t in enumerate(TOPICS) if (day_number + i) % (i + 2) == 0]
    return chosen


def moment(day: date, hour: int) -> datetime:
    return datetime.fromisoformat(f"{day.isoformat()}T{hour:02d}:00:00{OFFSET}")


def build(root: Path) -> dict[str, list[str]]:
    """Write the two months into the workspace at *root*; returns topic → days written."""
    days: dict[str, list[str]] = {t.slug: [] for t in TOPICS}
    first = Workspace.open(root, moment(START, 8))
    for topic in TOPICS:
        index_add(first, topic.slug, topic.category, topic.match)
    for number in range(DAYS):
        day = START + timedelta(days=number)
        morning = Workspace.open(root, moment(day, 11))
        flush(morning, consolidate_due=True)  # the daily cron line, 11:00
        if number % 7 == 0:
            archive(morning, "episodic", None, False)  # the weekly review's archival
        chosen = topics_on(number)
        if not chosen and number % 3:
            continue  # a quiet day without a note
        evening = Workspace.open(root, moment(day, 20))
        episodic_append(evening, NOISE[number % len(NOISE)].format(n=number % 9 + 1), day)
        decided: list[str] = []
        opened: list[str] = []
        for topic in chosen:
            days[topic.slug].append(day.isoformat())
            step = topic.steps[number % len(topic.steps)].format(n=number % 7 + 2)
            episodic_append(evening, step, day)
            if number % 4 == 0:
                decided.append(topic.decisions[number % len(topic.decisions)])
            opened.append(topic.open_items[number % len(topic.open_items)])
        if number % 5 == 1 and chosen:
            episodic_append(evening, f"#topic:{chosen[0].slug} follow-up tomorrow", day)
        episodic_close(
            evening,
            "; ".join(decided) or "none",
            "routine day" if chosen else "none",
            "; ".join(opened) or "none",
            day,
        )
    return days


def end_of_scenario() -> datetime:
    return moment(START + timedelta(days=DAYS), 12)


def cited_source(ws: Workspace, path: str, day: str) -> list[str] | None:
    """The lines of a cited note: at its path, or where TTL archival moved it since."""
    from memtier.workspace import find_day_note

    target = ws.root / path
    if not target.is_file():
        found = find_day_note(ws, date.fromisoformat(day))
        if found is None:
            return None
        target = found
    return target.read_text(encoding="utf-8").split("\n")


def check_citations(ws: Workspace) -> tuple[int, list[str]]:
    """(lines checked, lines not found verbatim at their cited place) over every generation."""
    from memtier.formats.consolidated import parse_generation
    from memtier.secrets import redact

    checked, wrong = 0, []
    for gen_path in sorted(ws.consolidated_dir.glob("*.md")):
        gen = parse_generation(gen_path.read_text(encoding="utf-8"))
        kept = [(c, True) for c in gen.evidence]
        kept += [(c, False) for c in (*gen.decisions, *gen.open, *gen.carried)]
        for cited, whole_line in kept:
            checked += 1
            lines = cited_source(ws, cited.path, cited.day)
            line = lines[cited.line - 1] if lines and cited.line <= len(lines) else None
            ok = line is not None and (
                redact(line).text == cited.text if whole_line else cited.text in line
            )
            if not ok:
                wrong.append(f"{gen_path.name}: {cited.render()}")
    return checked, wrong


def recall_figures(ws: Workspace, max_chars: int = 8000) -> dict[str, dict[str, int]]:
    """Per topic: characters recall returns, and characters of the topic's notes read whole."""
    from memtier.commands.topics.index import read_index
    from memtier.commands.topics.recall import recall
    from memtier.workspace import find_day_note

    state = read_index(ws)
    figures: dict[str, dict[str, int]] = {}
    for entry in state.rebuilt:
        report = recall(ws, f"do you remember {entry.slug}", max_chars)
        whole = 0
        for day in entry.dates:
            found = find_day_note(ws, date.fromisoformat(day))
            whole += len(found.read_text(encoding="utf-8")) if found else 0
        figures[entry.slug] = {
            "recall_chars": report.chars,
            "notes_chars": whole,
            "notes": len(entry.dates),
            "generations": len(entry.consolidations),
        }
    return figures
