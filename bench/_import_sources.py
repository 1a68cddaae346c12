"""Sources of every import format (PROTOCOL §12), N items each, for bench/import.

Deterministic (a fixed seed per format). Each writes its source under a folder
and returns the path `memtier import FORMAT PATH` takes.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Callable
from datetime import date, timedelta
from pathlib import Path

HOSTS = ["nas01", "docker01", "pi-gw", "backup01", "media01", "vm-lab", "router", "ap-garage"]
SERVICES = ["qdrant", "grafana", "jellyfin", "pihole", "restic", "caddy", "synapse", "nut"]
VERBS = ["restarted", "upgraded", "checked", "moved", "rebuilt", "pinned", "backed up", "tuned"]
WORDS = [
    "alpha",
    "bravo",
    "cedar",
    "delta",
    "ember",
    "fjord",
    "gale",
    "harbor",
    "iris",
    "juniper",
    "kestrel",
    "larch",
    "maple",
    "nimbus",
    "onyx",
    "pine",
    "quartz",
    "raven",
    "sorrel",
    "tundra",
    "umber",
    "vesper",
    "willow",
    "yarrow",
    "zephyr",
]
START = date(2025, 1, 1)


def _sentence(rng: random.Random, n: int) -> str:
    extra = " ".join(rng.sample(WORDS, 3))
    return (
        f"{rng.choice(VERBS)} {rng.choice(SERVICES)} on {rng.choice(HOSTS)} for job {n} ({extra})"
    )


def _day(n: int) -> date:
    return START + timedelta(days=n)


def memtier_export(folder: Path, count: int) -> Path:
    rng = random.Random(31)
    files = []
    for n in range(count):
        day = _day(n)
        text = f"# {day}\n\n- {_sentence(rng, n)}\n"
        files.append(
            {
                "path": f"memory/episodic/{day}.md",
                "tier": "cold",
                "sha256": hashlib.sha256(text.encode()).hexdigest(),
                "text": text,
            }
        )
    doc = {"format": "memtier-export", "version": 1, "exported_at": "2026-11-30T10:00:00+01:00"}
    path = folder / "export.json"
    path.write_text(json.dumps({**doc, "files": files}), encoding="utf-8")
    return path


def indexed(folder: Path, count: int) -> Path:
    rng = random.Random(37)
    root = folder / "indexed"
    root.mkdir(parents=True)
    for n in range(count):
        day = _day(n % 600)
        ident = f"{n:08x}"
        head = [
            "---",
            f"id: mem_{day}_{ident}",
            f"created: {day}T08:00:00Z",
            f"updated: {day}T08:00:00Z",
            f"tags: [{rng.choice(SERVICES)}, homelab]",
            "source: session",
            "score: 0.5",
            "---",
        ]
        body = ["", f"# Job {n}", "", f"- {_sentence(rng, n)}", ""]
        (root / f"{day}-job-{n}-{ident}.md").write_text("\n".join(head + body), encoding="utf-8")
    return root


def structured(folder: Path, count: int) -> Path:
    rng = random.Random(41)
    root = folder / "structured"
    kinds = ["user", "feedback", "project", "reference", "knowledge", "event", "custom"]
    for kind in kinds:
        (root / kind).mkdir(parents=True)
    for n in range(count):
        kind = kinds[n % len(kinds)]
        millis = 1735725600000 + n * 3_600_000
        head = [
            "---",
            f"id: {n:08x}-1234-5678-9012-abcdef123456",
            f"type: {kind}",
            f"title: Job {n}",
            f"createdAt: {millis}",
            "importance: 0.5",
            f"tags: ['{rng.choice(SERVICES)}']",
            "---",
        ]
        text = f"{_sentence(rng, n).capitalize()}."
        (root / kind / f"job-{n}.md").write_text("\n".join([*head, text, ""]), encoding="utf-8")
    return root


def brain(folder: Path, count: int) -> Path:
    rng = random.Random(16)
    lines = []
    for n in range(count):
        day = _day(n % 600)
        kind, tags = ("decision", ["brain"]) if n % 10 == 0 else ("note", ["brain"])
        item = {
            "id": f"{n:08x}-0000-4000-8000-000000000000",
            "kind": kind,
            "text": _sentence(rng, n),
            "createdAt": f"{day}T08:{n % 60:02d}:00.000Z",
            "tags": tags,
        }
        lines.append(json.dumps(item))
    path = folder / "brain.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def openclaw(folder: Path, count: int) -> Path:
    rng = random.Random(43)
    root = folder / "openclaw"
    (root / "memory").mkdir(parents=True)
    (root / "MEMORY.md").write_text("# MEMORY.md\n\n## Infrastructure\n- nas01 is the NAS\n")
    for n in range(count):
        day = _day(n)
        text = f"# {day}\n\n## Morning\n- {_sentence(rng, n)}\n"
        (root / "memory" / f"{day}.md").write_text(text, encoding="utf-8")
    return root


def claude(folder: Path, count: int) -> Path:
    rng = random.Random(47)
    root = folder / "claude"
    root.mkdir(parents=True)
    index = []
    kinds = ["user", "feedback", "project", "reference"]
    for n in range(count):
        name = f"{kinds[n % 4]}_job_{n}.md"
        head = ["---", f"name: Job {n}", f"description: job {n}", f"type: {kinds[n % 4]}", "---"]
        (root / name).write_text("\n".join([*head, "", _sentence(rng, n), ""]), encoding="utf-8")
        index.append(f"- [Job {n}]({name}) — job {n}")
    (root / "MEMORY.md").write_text("\n".join(index) + "\n", encoding="utf-8")
    return root


def mcp_memory(folder: Path, count: int) -> Path:
    """*count* entities (three observations each) and one relation per entity."""
    rng = random.Random(23)
    kinds = ["person", "organization", "device", "project", "event", "service"]
    lines = []
    for n in range(count):
        kind = kinds[n % len(kinds)]
        observations = [f"{kind}-{n:05d} {_sentence(rng, n)} step {k}" for k in range(3)]
        entity = {
            "type": "entity",
            "name": f"{kind}-{n:05d}",
            "entityType": kind,
            "observations": observations,
        }
        lines.append(json.dumps(entity))
    for n in range(count):
        other = (n * 7 + 1) % count
        relation = {
            "type": "relation",
            "from": f"{kinds[n % 6]}-{n:05d}",
            "to": f"{kinds[other % 6]}-{other:05d}",
            "relationType": "depends_on",
        }
        lines.append(json.dumps(relation))
    path = folder / "memory.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


FORMATS: dict[str, Callable[[Path, int], Path]] = {
    "memtier": memtier_export,
    "indexed": indexed,
    "structured": structured,
    "brain": brain,
    "openclaw": openclaw,
    "claude": claude,
    "mcp-memory": mcp_memory,
}
