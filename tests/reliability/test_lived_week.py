"""A week as an agent lives it, then 40 days away, once through the CLI and once through
the tool server's real stdio client (issue 21; PROTOCOL §4, §5, §8 v3).

Each sitting runs at one moment (the tool server's clock is fixed per process, so
every sitting is one server). The agent's lines carry a token (``W01`` …); at the
end every token is looked up in the files and by search, and the account says,
line by line, where it was written, where it stands and whether search found it.
Every line must stand in the note of the day it was written; health must pass
after every session-start, except where the protocol itself says WARM files are
stale (the return after 40 days), and then only `warm.fresh` may fail.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import memtier_command, run_memtier

pytestmark = pytest.mark.slow

Step = tuple[Any, ...]
TOKEN = re.compile(r"\bW\d\d\b")


@dataclass
class Sitting:
    when: str  # ISO time, +01:00
    steps: list[Step]
    who: str = "agent"  # "agent" | "cron" | "person"


def at(day: str, hm: str) -> str:
    return f"2027-{day}T{hm}:00+01:00"


PS_LINE = "PS: W28 the restic key is in the safe"

WEEK: list[Sitting] = [
    # Monday 1 March: init, then the cron review ten minutes later: a fresh buffer
    # is no session (§8 step 2 v3), and there is nothing to do.
    Sitting(at("03-01", "08:50"), [("init",)], "cron"),
    Sitting(at("03-01", "09:00"), [("review", "no-changes")], "cron"),
    Sitting(
        at("03-01", "09:10"),
        [
            ("start",),
            ("task", "W01 upgrade grafana"),
            ("note", "W02 grafana 11 needs the new datasource plugin"),
            ("task", "W03 watch tonight's backup"),
            ("task", "W11 renew the DNS token"),
            ("task", "W12 check the smart values"),  # a fourth task: oversized
        ],
    ),
    # The oversized buffer is rotated mid-session; the tasks stay in hand (§5 step 5 v3).
    Sitting(
        at("03-01", "11:00"),
        [("rotate",), ("done", "W01 upgrade grafana"), ("note", "W13 plugin installed")],
    ),
    Sitting(
        at("03-01", "17:00"),
        [
            ("end",),
            (
                "close",
                "W14 grafana upgraded to 11",
                "W15 install the plugin first",
                "W03 watch tonight's backup (sftp timeout)",
            ),
        ],
    ),
    Sitting(
        at("03-02", "09:00"),
        [
            ("start",),
            ("task", "W16 tidy the dashboards"),
            ("note", "W17 two panels were broken"),
            ("append", "W18 nas01 rebooted for the kernel"),
        ],
    ),
    Sitting(at("03-02", "17:30"), [("end",), ("close", "W19 dashboards tidied", "none", "none")]),
    Sitting(at("03-03", "09:00"), [("start",), ("note", "W20 the backup ran in 14 minutes")]),
    # --replace: the block exactly as given (the task of the day is done).
    Sitting(
        at("03-03", "17:00"),
        [("end",), ("close", "W21 backups verified", "W22 sftp is fine again", "none", None, True)],
    ),
    Sitting(
        at("03-04", "09:00"),
        [
            ("start",),
            ("task", "W23 plan the restic move"),
            ("note", "W24 restic wants a repository password file"),
        ],
    ),
    Sitting(
        at("03-04", "17:00"),
        [("end",), ("close", "W25 restic planned", "none", "W23 plan the restic move")],
    ),
    # The evening session dies at 21:05: no session-end (issue 21's night crash).
    Sitting(at("03-04", "20:00"), [("start",), ("task", "W26 migrate the backup to restic")]),
    Sitting(at("03-04", "21:05"), [("note", "W27 restic init done on nas01")]),
    # The next morning: recovered into 4 March's note, not 5 March's (§4 step 5 v3).
    Sitting(at("03-05", "08:30"), [("start",)]),
    # A person adds a PS line after yesterday's closure block.
    Sitting(at("03-05", "09:30"), [("person_ps", "2027-03-04", PS_LINE)], "person"),
    Sitting(
        at("03-05", "10:00"),
        [
            ("health", False),  # names the case, the line and the fix
            ("close", "none", "none", "none", "2027-03-04"),  # the fix: merges, moves the PS
            ("health", True),
            ("task", "W29 move the restic key"),
            ("note", "W30 the key is on the nas now"),
        ],
    ),
    Sitting(at("03-05", "17:00"), [("end",), ("close", "W31 key moved", "none", "none")]),
    Sitting(at("03-06", "10:00"), [("start",), ("note", "W32 quiet saturday")]),
    Sitting(
        at("03-06", "12:00"),
        [
            ("end",),
            (
                "close",
                "W33 last work before the trip",
                "W34 nas fans are loud",
                "W35 upgrade the nas firmware",
            ),
        ],
    ),
    # 40 days away; cron reviews every Monday. Freshness does not block (§8 step 4 v3).
    Sitting(at("03-08", "09:00"), [("review", "no-changes")], "cron"),
    Sitting(at("03-15", "09:00"), [("review", "no-changes")], "cron"),
    Sitting(at("03-22", "09:00"), [("review", "no-changes")], "cron"),
    Sitting(at("03-29", "09:00"), [("review", "no-changes")], "cron"),
    Sitting(at("04-05", "09:00"), [("review", "done")], "cron"),
    Sitting(at("04-12", "09:00"), [("review", "done")], "cron"),
    # The return: the whole last closure block, with its date (§4 step 7 v3).
    Sitting(
        at("04-15", "09:00"),
        [("start", "absence"), ("verify",), ("health", True), ("note", "W36 back from the trip")],
    ),
    Sitting(at("04-15", "12:00"), [("end",), ("close", "W37 caught up", "none", "none")]),
]


@dataclass
class Log:
    """What each step returned, in order: (sitting time, step name, result)."""

    entries: list[tuple[str, str, dict[str, Any]]] = field(default_factory=list)

    def of(self, name: str) -> list[tuple[str, dict[str, Any]]]:
        return [(when, result) for when, n, result in self.entries if n == name]


# ---------------------------------------------------------------------------
# the CLI face


def _cli(root: Path, when: str, *args: str) -> tuple[int, str, str]:
    proc = run_memtier("--root", str(root), "--now", when, *args)
    assert proc.returncode in (0, 1), (args, proc.stderr)
    return proc.returncode, proc.stdout, proc.stderr


def run_cli(root: Path, week: list[Sitting]) -> Log:
    log = Log()
    for sitting in week:
        for step in sitting.steps:
            log.entries.append((sitting.when, step[0], _cli_step(root, sitting.when, step)))
    return log


def _cli_step(root: Path, when: str, step: Step) -> dict[str, Any]:
    name, *args = step
    if name == "init":
        root.mkdir(parents=True)
        code, out, err = _cli(root, when, "init")
        return {"code": code}
    if name == "review":
        code, out, _err = _cli(root, when, "weekly-review", "--json")
        return {"code": code, "status": json.loads(out)["status"], "data": json.loads(out)}
    if name == "person_ps":
        return _person_ps(root, *args)
    if name == "start":
        code, context, _err = _cli(root, when, "session-start")
        _code, out, _err = _cli(root, when, "health-check", "--json")
        checks = json.loads(out)["checks"]
        failed = sorted({c["id"] for c in checks if c["status"] == "fail"})
        return {"ok": not failed, "failed": failed, "text": context}
    if name == "health":
        code, out, _err = _cli(root, when, "health-check")
        return {"ok": code == 0, "text": out}
    if name == "verify":
        code, out, _err = _cli(root, when, "verify", "--stale")
        return {"code": code}
    simple = {
        "task": ("buffer", "task"),
        "note": ("buffer", "note"),
        "done": ("buffer", "done"),
        "append": ("episodic", "append"),
        "rotate": ("rotate",),
        "end": ("session-end",),
    }
    if name in simple:
        code, out, err = _cli(root, when, *simple[name], *args)
        return {"code": code, "text": out + err}
    if name == "close":
        decisions, signal, open_items, *rest = args
        day = rest[0] if rest else None
        replace = len(rest) > 1 and rest[1]
        extra = (["--date", day] if day else []) + (["--replace"] if replace else [])
        code, out, err = _cli(
            root, when, "episodic", "close", "--decisions", decisions, "--signal", signal,
            "--open", open_items, *extra,
        )  # fmt: skip
        return {"code": code, "text": out}
    if name == "search":
        code, out, _err = _cli(root, when, "search", args[0], "--all", "--json")
        return {"paths": [hit["path"] for hit in json.loads(out)["results"]]}
    raise AssertionError(name)


def _person_ps(root: Path, day: str, line: str) -> dict[str, Any]:
    note = root / "memory/episodic" / f"{day}.md"
    with note.open("a", encoding="utf-8") as handle:
        handle.write(line + "\n")
    return {"code": 0}


# ---------------------------------------------------------------------------
# the tool server face (real stdio client, one server per sitting)


def run_mcp(root: Path, week: list[Sitting]) -> Log:
    import anyio

    log = Log()
    for sitting in week:
        if sitting.who != "agent":
            # cron and the person use the shell and the files, not the tools
            for step in sitting.steps:
                log.entries.append((sitting.when, step[0], _cli_step(root, sitting.when, step)))
            continue
        anyio.run(_mcp_sitting, root, sitting, log)
    return log


async def _mcp_sitting(root: Path, sitting: Sitting, log: Log) -> None:
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    command = memtier_command()
    params = StdioServerParameters(
        command=command[0],
        args=[*command[1:], "mcp"],
        env={"MEMTIER_ROOT": str(root), "MEMTIER_NOW": sitting.when, "NO_COLOR": "1"},
        cwd=str(root.parent),
    )
    async with Client(params) as client:

        async def call(tool: str, **arguments: Any) -> dict[str, Any]:
            result = await client.call_tool(tool, arguments)
            # PROTOCOL §11 v4: an answer is one text block, nothing structured beside it.
            assert result.structured_content is None
            text = "\n".join(b.text for b in result.content if b.type == "text")
            return {"error": result.is_error, "text": text}

        for step in sitting.steps:
            name, *args = step
            if name == "start":
                got = await call("memory_session_start", max_chars=20000)
                verdict = got["text"].rstrip("\n").split("\n")[-1]
                failed = re.search(r"Some required checks failed \(([^)]*)\)", verdict)
                entry = {
                    "ok": failed is None and verdict.startswith("health-check: "),
                    "failed": failed.group(1).split(", ") if failed else [],
                    "text": got["text"],
                }
            elif name == "task":
                entry = await call("memory_task", action="add", task=args[0])
            elif name == "done":
                entry = await call("memory_task", action="done", task=args[0])
            elif name == "note":
                entry = await call("memory_note", text=args[0])
            elif name == "append":
                entry = await call("memory_note", text=args[0], to="today")
            elif name == "rotate":
                entry = await call("memory_rotate")
            elif name == "end":
                entry = await call("memory_session_end")
            elif name == "close":
                decisions, signal, open_items, *rest = args
                arguments: dict[str, Any] = {"decisions": decisions, "signal": signal}
                arguments["open"] = open_items
                if rest and rest[0]:
                    arguments["date"] = rest[0]
                if len(rest) > 1 and rest[1]:
                    arguments["replace"] = True
                entry = await call("memory_close_day", **arguments)
            elif name == "health":
                got = await call("memory_health")
                entry = {"ok": "All required checks passed" in got["text"], "text": got["text"]}
            elif name == "verify":
                entry = await call("memory_verify", stale=True)
            elif name == "search":
                tiers = ["hot", "warm", "buffer", "scratch", "cold", "archive"]
                got = await call("memory_search", query=args[0], tiers=tiers)
                # Each result starts "path:line  TIER  score …" (the search's own lines).
                hits = re.findall(r"^(\S+):\d+  [A-Z]+  score ", got["text"], re.MULTILINE)
                entry = {"paths": hits}
            else:
                raise AssertionError(name)
            entry.setdefault("code", 1 if entry.get("error") else 0)
            log.entries.append((sitting.when, name, entry))


# ---------------------------------------------------------------------------
# the account


@dataclass(frozen=True)
class Account:
    token: str
    written: str  # the day of the sitting that wrote it
    where: tuple[str, ...]  # files (relative) holding it outside closure fields
    closure: tuple[str, ...]  # files whose closure block names it
    found: bool  # search found it

    @property
    def in_its_day(self) -> bool:
        files = self.where or self.closure
        return bool(files) and all(Path(f).name.startswith(self.written) for f in files)


def written_tokens(week: list[Sitting]) -> dict[str, str]:
    """Each agent's or person's token and the day it was written."""
    found: dict[str, str] = {}
    for sitting in week:
        for step in sitting.steps:
            # A person's line belongs to the note the person wrote it into.
            day = step[1] if step[0] == "person_ps" else sitting.when[:10]
            if step[0] in ("task", "note", "append", "close", "person_ps"):
                for text in step[1:]:
                    for token in TOKEN.findall(str(text)):
                        found.setdefault(token, day)
    return found


def account(root: Path, week: list[Sitting], search: Callable[[str], list[str]]) -> list[Account]:
    files = {
        p.relative_to(root).as_posix(): p.read_text(encoding="utf-8")
        for p in sorted((root / "memory").rglob("*.md"))
    }
    closure_fields = ("Updated:", "Decisions:", "Signal:", "Open:")
    rows: list[Account] = []
    for token, day in written_tokens(week).items():
        where, closure = [], []
        for rel, text in files.items():
            for line in text.split("\n"):
                if re.search(rf"\b{token}\b", line):
                    (closure if line.startswith(closure_fields) else where).append(rel)
        hits = search(token)
        rows.append(
            Account(
                token, day, tuple(dict.fromkeys(where)), tuple(dict.fromkeys(closure)), bool(hits)
            )
        )
    return rows


def print_account(face: str, rows: list[Account]) -> None:
    print(f"\n=== lived week account ({face}): token, written, where, found by search ===")
    for row in rows:
        files = ", ".join(row.where or row.closure)
        mark = "ok" if row.in_its_day else "WRONG DAY"
        print(f"{row.token}  written {row.written}  in {files}  search={row.found}  {mark}")
    print(
        f"{face}: {len(rows)} lines written, {sum(bool(r.where or r.closure) for r in rows)} "
        f"found in files, {sum(r.in_its_day for r in rows)} in their day, "
        f"{sum(r.found for r in rows)} found by search"
    )


# ---------------------------------------------------------------------------
# the checks both faces must pass


def check_week(root: Path, log: Log, rows: list[Account]) -> None:
    # Every line in the day it was written, none lost, all found by search.
    assert all(row.where or row.closure for row in rows), [r.token for r in rows if not r.where]
    assert [r.token for r in rows if not r.in_its_day] == []
    assert [r.token for r in rows if not r.found] == []
    # Health after every session-start; after 40 days only warm.fresh (§8 step 4 v3).
    for when, result in log.of("start"):
        if when.startswith("2027-04-15"):
            assert set(result["failed"]) <= {"warm.fresh"}, (when, result["failed"])
        else:
            assert result["ok"], (when, result["failed"])
    # Ten minutes after init: no deferral, no `Open: weekly review` (§8 step 2 v3).
    reviews = log.of("review")
    assert [r["status"] for _w, r in reviews] == [
        "no-changes", "no-changes", "no-changes", "no-changes", "no-changes", "done", "done",
    ]  # fmt: skip
    assert all(r["code"] == 0 for _w, r in reviews)
    april5 = reviews[5][1]["data"]["closure"]
    assert "archived 5 episodic notes" in april5["decisions"]
    assert "verify memory/semantic/infrastructure.md" in april5["open"]
    # March's notes are archived; the review notes stand.
    live = sorted(p.name for p in (root / "memory/episodic").glob("*.md"))
    assert live == ["2027-04-05.md", "2027-04-12.md", "2027-04-15.md"]
    # The mid-session rotation kept the tasks: `done` worked (exit 0, no tool error).
    assert all(r["code"] == 0 and not r.get("error") for _w, r in log.of("done"))
    monday = (root / "memory/archive/2027/03/2027-03-01.md").read_text()
    open_line = monday.rstrip("\n").split("\n")[-1]
    # No near-duplicate, and the task done after the mid-session rotation left Open:.
    assert open_line == (
        "Open: W03 watch tonight's backup (sftp timeout); W11 renew the DNS token; "
        "W12 check the smart values"
    )
    assert "#### Notes" in monday and "\n## Notes" not in monday  # headings nest
    # The night crash went to 4 March, with the PS line moved before the repaired block.
    thursday = (root / "memory/archive/2027/03/2027-03-04.md").read_text()
    assert "[RECOVERED: STALE] 2027-03-04T21:05:00+01:00 (r-" in thursday
    assert thursday.index(PS_LINE) < thursday.index("Updated: ")
    assert thursday.count("Updated: ") == 1
    assert thursday.rstrip("\n").split("\n")[-1] == (
        "Open: W23 plan the restic move; W26 migrate the backup to restic"
    )
    # The health check named the displaced block with its line and the fix.
    broken = log.of("health")[0][1]
    assert broken["ok"] is False
    assert "2027-03-04.md — text after the closure block" in broken["text"]
    assert (
        "episodic close --date 2027-03-04" in broken["text"]
        or "memory_close_day" in (broken["text"])
    )
    # After 40 days: the whole last closure block with its date.
    back = next(r for w, r in log.of("start") if w.startswith("2027-04-15"))["text"]
    assert "last closed note: 2027-03-06 (40 days ago)" in back
    # §2 (v4): the rotation's placeholder gave way to the day's decisions.
    assert "\nUpdated: 2027-03-06\nDecisions: W33 last work before" in back
    assert "Signal: W34 nas fans are loud" in back
    assert "Open: W35 upgrade the nas firmware" in back
    assert "weekly review" not in back.split("last closed note")[1].split("=====")[1]


def _search_cli(root: Path) -> Callable[[str], list[str]]:
    def search(token: str) -> list[str]:
        return _cli_step(root, "2027-04-15T12:30:00+01:00", ("search", token))["paths"]

    return search


def _memory_files(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted((root / "memory").rglob("*.md"))
    }


def test_a_lived_week_through_the_cli_and_the_tool_server(tmp_path: Path) -> None:
    cli_root = tmp_path / "cli" / "ws"
    log = run_cli(cli_root, WEEK)
    rows = account(cli_root, WEEK, _search_cli(cli_root))
    print_account("CLI", rows)
    check_week(cli_root, log, rows)

    pytest.importorskip("mcp")
    anyio = pytest.importorskip("anyio")
    root = tmp_path / "mcp" / "ws"
    log = run_mcp(root, WEEK)
    tokens = list(written_tokens(WEEK))
    searched = Log()
    last = Sitting("2027-04-15T12:30:00+01:00", [("search", t) for t in tokens])
    anyio.run(_mcp_sitting, root, last, searched)
    found = {tokens[i]: r["paths"] for i, (_w, _n, r) in enumerate(searched.entries)}
    rows = account(root, WEEK, lambda token: found[token])
    print_account("tool server", rows)
    check_week(root, log, rows)
    # Two faces, one core: the same week leaves the same memory, byte for byte.
    cli_files, mcp_files = _memory_files(cli_root), _memory_files(root)
    assert list(cli_files) == list(mcp_files)
    assert [f for f in cli_files if cli_files[f] != mcp_files[f]] == []
    print(f"both faces: {len(cli_files)} memory files, byte-identical")
