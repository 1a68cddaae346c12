"""A scripted month of agent use through the CLI (issue 13, PROTOCOL §10).

Thirty days, each with a fixed clock: session-start, health-check, buffer work,
facts remembered in their homes, corrections with replace, retirements,
lessons learned and one promoted, a weekly review every Monday, the day closed
and the session ended. The agent never runs atomic-write and the test never
edits a file: every change goes through a fact command. Health passes after
every session-start and at the end of every day; each Monday review runs (it
is neither deferred nor refused). Run with ``-s`` to see the figures.
"""

from __future__ import annotations

import json
from collections import Counter
from datetime import date, timedelta
from pathlib import Path

import pytest

from tests.conftest import CliRunner

START = date(2026, 12, 1)  # a Tuesday; the workspace is created the day before
DAYS = 30
INFRA = "memory/semantic/infrastructure.md"
PROJECTS = "memory/semantic/projects.md"
LESSONS = "memory/procedural/lessons-learned.md"
PIP_ERRORS = (
    "pip install failed: wrong index url",
    "pip install failed - wrong index URL!",
    "Pip install failed, wrong index url.",
)


def at(day: date, clock: str) -> str:
    return f"{day.isoformat()}T{clock}:00+01:00"


@pytest.mark.slow
def test_a_month_of_facts_needs_no_atomic_write_and_no_hand_edit(
    tmp_path: Path, cli: CliRunner
) -> None:
    root = tmp_path / "ws"
    figures: Counter[str] = Counter()
    assert (
        cli("init", "--root", str(root), "--now", at(START - timedelta(days=1), "08:00")).exit_code
        == 0
    )

    def memtier(day: date, clock: str, *args: str, input: str = "", expect: int = 0) -> str:
        result = cli("--root", str(root), "--now", at(day, clock), *args, input=input)
        assert result.exit_code == expect, (day, args, result.stdout, result.stderr)
        assert "Traceback" not in result.stderr
        return result.stdout

    def healthy(day: date, clock: str) -> None:
        out = memtier(day, clock, "health-check", "--json")
        assert json.loads(out)["ok"], (day, out)
        figures["health checks passed"] += 1

    for offset in range(DAYS):
        day = START + timedelta(days=offset)
        n = offset + 1
        if day.weekday() == 0:
            review = memtier(day, "08:00", "weekly-review", "--json")
            assert json.loads(review)["status"] in ("done", "no-changes"), review
            figures["weekly reviews"] += 1
        memtier(day, "09:00", "session-start")
        healthy(day, "09:01")
        memtier(day, "09:05", "buffer", "task", f"day {n}: look after host srv{n:02d}")
        memtier(day, "09:10", "buffer", "note", f"srv{n:02d} checked before the change")

        memtier(day, "09:20", "remember", f"host srv{n:02d} serves app{n} on port {8000 + n}",
                "--kind", "infrastructure", "--section", "Hosts")  # fmt: skip
        figures["facts remembered"] += 1
        if n % 3 == 0:
            memtier(day, "09:30", "remember", f"project p{n} ships in week {n // 7 + 1}",
                    "--kind", "project")  # fmt: skip
            memtier(day, "09:31", "remember", f"chose sqlite for tool{n}: one file, no server",
                    "--kind", "decision")  # fmt: skip
            figures["facts remembered"] += 2
        if n % 5 == 0:
            block = f"Restart app{n}:\n```sh\nsystemctl restart app{n}\n```\n"
            memtier(day, "09:40", "remember", "-", "--kind", f"howto:app{n}", "--tag",
                    "systemd", input=block)  # fmt: skip
            memtier(day, "09:41", "remember", f"user prefers terse reports, style {n}",
                    "--kind", "preference")  # fmt: skip
            figures["facts remembered"] += 2
        if n % 10 == 0:
            memtier(
                day, "09:45", "remember", f"on-call rota changes every {n} days", "--kind", "hot"
            )
            figures["facts remembered"] += 1
        memtier(day, "09:50", "remember", f"deployed app{n} build {n}", "--kind", "event")
        figures["events remembered"] += 1
        if n == 4:
            memtier(day, "09:55", "remember", "the lab printer sits in room 4")
            figures["unrouted facts"] += 1

        # The agent repeats a fact it already stored: refused, and it corrects instead.
        if n % 4 == 0:
            prior = n - 1
            memtier(day, "10:00", "remember", f"Host srv{prior:02d} serves app{prior} on port "
                    f"{8000 + prior}.", "--kind", "hot", expect=1)  # fmt: skip
            figures["duplicates refused"] += 1
            memtier(day, "10:01", "replace", f"srv{prior:02d} serves",
                    f"host srv{prior:02d} serves app{prior} on port {9000 + prior}",
                    "--in", INFRA, "--reason", "port moved")  # fmt: skip
            figures["facts replaced"] += 1
        if n % 7 == 0:
            memtier(day, "10:10", "retire", f"host srv{n - 5:02d} ", "--in", INFRA,
                    "--reason", "host decommissioned")  # fmt: skip
            figures["facts retired"] += 1

        if n in (3, 10, 17):
            learned = json.loads(memtier(day, "11:00", "learn", "error",
                                         PIP_ERRORS[(n - 3) // 7], "--json"))  # fmt: skip
            figures["lessons learned"] += 1
            if n == 17:
                assert learned["flagged"], learned
                listed = json.loads(memtier(day, "11:01", "candidates", "--json"))
                number = str(listed["candidates"][0]["number"])
                memtier(day, "11:02", "promote", number, "--to", LESSONS, "--as",
                        "pin the pip index url in pip.conf before installing", "--yes")  # fmt: skip
                figures["lessons promoted"] += 1

        # Monday: every WARM file older than three weeks is read and re-verified.
        if day.weekday() == 0:
            for path in sorted((root / "memory").glob("*/*.md")):
                rel = path.relative_to(root).as_posix()
                if not rel.startswith(("memory/semantic/", "memory/procedural/")):
                    continue
                head = json.loads(memtier(day, "12:00", "get", f"{rel}:1-3", "--json"))
                stamp = head["lines"][2]["text"].split(":", 1)[1].strip()
                if (day - date.fromisoformat(stamp)).days >= 21:
                    memtier(day, "12:01", "get", rel)  # the agent reads the facts first
                    memtier(day, "12:02", "verify", rel)
                    figures["files verified"] += 1

        memtier(day, "17:00", "buffer", "done", "1")
        memtier(day, "17:30", "episodic", "close", "--decisions", f"srv{n:02d} done",
                "--signal", "none", "--open", "none")  # fmt: skip
        memtier(day, "18:00", "session-end")
        healthy(day, "18:05")

    retired = (root / "memory/archive/retired.md").read_text(encoding="utf-8")
    assert retired.count(" retired: ") == figures["facts retired"]
    assert retired.count(" replaced: ") == figures["facts replaced"]
    found = json.loads(memtier(START + timedelta(days=DAYS - 1), "19:00", "search", "--all",
                               "decommissioned", "--json"))  # fmt: skip
    assert any(r["path"] == "memory/archive/retired.md" for r in found["results"]), found
    hot = (root / "MEMORY.md").read_text(encoding="utf-8").count("\n")
    figures["MEMORY.md lines"] = hot
    assert figures["weekly reviews"] == 4 and figures["files verified"] > 0
    print("\nmonth of facts:", ", ".join(f"{k}: {v}" for k, v in figures.items()))
