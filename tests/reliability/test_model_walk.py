"""A model-based test: a seeded random walk of sessions, checked against a reference model.

The walk plays an agent over random days: sessions of buffer tasks, notes,
done items and episodic lines drawn from a *small* pool of texts (the same
routine lines come back every day), rotations, abandoned sessions that go
stale, a person editing the buffer by hand, weekly reviews and archive runs
from cron, and crashes: a forked memtier process killed by SIGKILL at a fault
point, every point in turn. The reference model is a multiset of lines: how
often each exact line must stand across the buffer and every note (archive
included). After each `session-start` the files must hold every line exactly
as often as the model says, and health-check must pass.

A killed command may or may not have written its one line; after recovery
the model takes what the files show, if it is one of the two allowed counts,
and holds the files to that from then on. Nothing else is ever allowed to
change a count: a lost or duplicated line fails the walk at the next check.
"""

from __future__ import annotations

import os
import random
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from memtier.commands.init import init_workspace
from memtier.formats.buffer import parse_buffer
from memtier.health.report import run_health_check
from memtier.store.write import LIFECYCLE_CHECKPOINTS as CHECKPOINTS
from memtier.workspace import Workspace
from tests.reliability.forked import run_forked, run_here

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork"),
]

SEED = int(os.environ.get("MEMTIER_WALK_SEED", "20261130"))
SESSIONS = int(os.environ.get("MEMTIER_WALK_SESSIONS", "200"))
TEXTS = ("check backups", "backups ok", "renew the DNS token", "restart the gateway", "apt is slow")
ZONE = timezone(timedelta(hours=1))
START = datetime(2026, 11, 2, 8, 0, tzinfo=ZONE)
CONFIG = "warm_max_age_days = 400\nepisodic_ttl_days = 6\n"
REVIEW_POINTS = (
    "review.lock-removed",
    "review.before-note",
    "review.note-written",
    "review.before-flag",
    "review.flagged",
    "review.before-closure",
    "review.closure-written",
)
STORE_POINTS = ("store.temp-written", "store.replaced", "store.before-move", "store.moved")
ARCHIVE_POINTS = ("archive.before-move", "archive.moved")
# Points the walk never reaches: MEMORY.md and the buffer are never deleted,
# and a .pending is never corrupted (tests/reliability/test_crash_matrix.py has them).
NOT_IN_WALK = {
    "session_start.hot-created",
    "session_start.buffer-created",
    "session_start.failure-logged",
}


def _commands_for(point: str) -> list[tuple[str, ...]]:
    """Commands that pass *point* in some state of the walk."""
    family = point.split(".")[0]
    text = "check backups"
    return {
        "rotate": [("rotate",), ("session-end",)],
        "session_start": [("session-start",)],
        "buffer": [("buffer", "task", text), ("buffer", "note", text)],
        "episodic": [("episodic", "append", text)],
        "review": [("weekly-review",)],
        "archive": [("archive", "--days", "1")],
    }.get(family, [("buffer", "task", text), ("rotate",), ("weekly-review",), ("archive",)])


def counted(ws: Workspace) -> Counter[str]:
    """Every line of the buffer's body and of every note, archive included."""
    lines: list[str] = []
    if ws.buffer.is_file():
        lines += parse_buffer(ws.buffer.read_text()).body.split("\n")
    notes = [*ws.episodic_dir.glob("*.md"), *ws.archive_dir.glob("[0-9]*/*/*.md")]
    for path in notes:
        lines += path.read_text().split("\n")
    keys = {f"- {t}" for t in TEXTS} | {f"- [done] {t}" for t in TEXTS} | set(TEXTS)
    return Counter(line for line in lines if line in keys)


@dataclass
class Walk:
    root: Path
    rng: random.Random
    now: datetime = START
    model: Counter[str] = field(default_factory=Counter)
    todo: list[str] = field(default_factory=list)
    crashed_at: Counter[str] = field(default_factory=Counter)
    sessions: int = 0
    checks: int = 0
    lines_checked: int = 0
    person_edits: int = 0
    reviews: int = 0

    @property
    def ws(self) -> Workspace:
        return Workspace.open(self.root, self.now)

    def run(self, *args: str) -> int:
        return run_here(self.root, self.now.isoformat(), *args)

    def tick(self, minutes: float) -> None:
        self.now += timedelta(minutes=minutes)

    # -- what a command adds to the model ---------------------------------

    def _effect(self, args: tuple[str, ...]) -> tuple[Counter[str], Counter[str]]:
        """(lines a successful *args* adds, lines it removes)."""
        adds: Counter[str] = Counter()
        removes: Counter[str] = Counter()
        if args[:2] in (("buffer", "task"), ("buffer", "note")):
            adds[f"- {args[2]}"] += 1
        elif args[:2] == ("buffer", "done"):
            removes[f"- {args[2]}"] += 1
            adds[f"- [done] {args[2]}"] += 1
        elif args[:2] == ("episodic", "append"):
            adds[args[2]] += 1
        return adds, removes

    def apply(self, *args: str) -> int:
        code = self.run(*args)
        if code == 0:
            adds, removes = self._effect(args)
            self.model.update(adds)
            self.model.subtract(removes)
        return code

    # -- the checks ---------------------------------------------------------

    def check(self, where: str) -> None:
        found = counted(self.ws)
        want = +self.model
        assert +found == want, (where, self.now, +found - want, want - +found)
        report = run_health_check(self.ws)
        assert report.ok, (where, [c.message for c in report.failed])
        self.checks += 1
        self.lines_checked += sum(want.values())

    def session_start(self, where: str) -> None:
        assert self.run("session-start") == 0, where
        self.check(where)

    # -- a crash ----------------------------------------------------------

    def crash(self, prefer: str = "") -> None:
        if not self.todo:
            self.todo = self.points()
        preferred = [p for p in self.todo if prefer and p.startswith(prefer)]
        point = self.rng.choice(preferred or self.todo)
        args = self.rng.choice(_commands_for(point))
        if point in ("review.before-flag", "review.flagged"):
            # `learn` flags a lesson the moment it recurs (as the weekly review does).
            lesson = f"lesson {self.rng.randint(1, 10**6)} keeps coming back"
            for _ in range(2):
                self.run("learn", "error", lesson)
            args = ("learn", "error", lesson)
        elif point.startswith(("store.before-move", "store.moved")):
            args = ("archive", "--days", "1")
        before: Counter[str] = Counter()
        if point.startswith("session_start.") and self.rng.random() < 0.5:
            # Recovery points need a crashed rotation to recover from, sometimes
            # with a line a person added after it.
            self.apply("buffer", "task", self.rng.choice(TEXTS))
            before = self.active_lines()  # what finishing that rotation carries
            state = self.rng.choice(("rotate.pending-written", "rotate.note-written"))
            assert run_forked(self.root, self.now.isoformat(), "rotate", point=state)[0]
            if self.rng.random() < 0.5:
                self.person_edit()
        adds, removes = self._effect(args)
        occurrence = self.rng.choice((1, 1, 2)) if point.startswith("store.") else 1
        killed, code = run_forked(
            self.root, self.now.isoformat(), *args, point=f"{point}@{occurrence}"
        )
        if not killed:
            # The state did not lead there: the command simply ran (or refused); a
            # session-start may have finished the rotation killed above.
            if code == 0:
                self.model.update(adds)
                self.model.subtract(removes)
            if args == ("session-start",):
                self.reconcile(Counter(), f"a session-start that ran past {point}", before)
            return
        self.todo.remove(point)
        self.crashed_at[point] += 1
        # What a rotation killed after its fresh buffer was written has carried.
        carried = self.active_lines()
        if self.rng.random() < 0.5:
            self.person_edit()  # a person touches the buffer before anyone recovers
        self.tick(self.rng.choice((1, 5, 200)))
        # The recovery itself may be killed too, at one of its own points.
        recovering = [p for p in self.todo if p.startswith("session_start.")]
        if recovering and self.rng.random() < 0.8:
            again = self.rng.choice(recovering)
            if run_forked(self.root, self.now.isoformat(), "session-start", point=again)[0]:
                self.todo.remove(again)
                self.crashed_at[again] += 1
        assert self.run("session-start") == 0
        self.sessions += 1
        self.reconcile(adds, point, carried)
        self.check(f"after a crash at {point} of {args}")

    def active_lines(self) -> Counter[str]:
        return Counter(f"- {t}" for t in parse_buffer(self.ws.buffer.read_text()).active_tasks)

    def reconcile(
        self, adds: Counter[str], where: str, carried: Counter[str] | None = None
    ) -> None:
        """After a recovery: the killed command's own line (*adds*) written or not,
        never twice. A rotation the recovery finished mid-session carries the active
        tasks into the fresh buffer (PROTOCOL §5 step 5 v3): each such line may also
        stand once more, in the note's block, and never more than once more: tasks
        in the buffer now, or in the one the killed command left (*carried*)."""
        carried = (carried or Counter()) | self.active_lines()
        found = counted(self.ws)
        for line in {*adds, *carried}:
            low, high = self.model[line], self.model[line] + adds[line] + carried[line]
            assert low <= found[line] <= high, (where, line, found[line], low, high)
            self.model[line] = found[line]

    def points(self) -> list[str]:
        every = (*CHECKPOINTS, *REVIEW_POINTS, *ARCHIVE_POINTS, *STORE_POINTS)
        wanted = [p for p in every if p not in NOT_IN_WALK]
        self.rng.shuffle(wanted)
        return wanted

    # -- the other actors -----------------------------------------------------

    def person_edit(self) -> None:
        """A line typed into the buffer with an editor: no memtier, no lock."""
        text = self.ws.buffer.read_text()
        line = f"- {self.rng.choice(TEXTS)}"
        if self.rng.random() < 0.5 and "## Active Task:\n" in text:
            text = text.replace("## Active Task:\n", f"## Active Task:\n{line}\n", 1)
        else:
            text += ("" if "\n## Notes\n" in text else "\n## Notes\n") + line + "\n"
        self.ws.buffer.write_text(text)
        self.model[line] += 1
        self.person_edits += 1

    def cron(self) -> None:
        self.reviews += 1
        self.run("weekly-review")
        if self.rng.random() < 0.5:
            self.run("archive", "--days", str(self.rng.choice((6, 9))))

    # -- one session --------------------------------------------------------

    def session(self) -> None:
        self.sessions += 1
        self.session_start(f"session {self.sessions}")
        for _ in range(self.rng.randint(1, 7)):
            self.tick(self.rng.uniform(1, 20))
            self.step()
        self.tick(self.rng.uniform(1, 10))
        if self.rng.random() < 0.8 or self.ws.buffer.read_text().count("\n") > 50:
            self.run("session-end")
        # Then time passes: a coffee, an afternoon, a night, a weekend; cron and
        # crashes also strike while nobody works (an idle buffer, a stale one).
        self.tick(self.rng.choice((10, 45, 150, 60 * 14, 60 * 50)))
        if self.rng.random() < 0.3:
            self.cron()
        if self.rng.random() < 0.4:
            # A buffer left with content is recovered by the next session-start.
            left = parse_buffer(self.ws.buffer.read_text()).has_content
            self.crash("session_start." if left else self.rng.choice(("review.", "archive.")))

    def step(self) -> None:
        text = self.rng.choice(TEXTS)
        roll = self.rng.random()
        if roll < 0.25:
            self.apply("buffer", "task", text)
        elif roll < 0.40:
            self.apply("buffer", "note", text)
        elif roll < 0.50:
            tasks = parse_buffer(self.ws.buffer.read_text()).active_tasks
            if tasks:
                self.apply("buffer", "done", self.rng.choice(tasks))
        elif roll < 0.62:
            self.apply("episodic", "append", text)
        elif roll < 0.66:
            self.run("episodic", "close", "--decisions", "d", "--signal", "s", "--open", "none")
        elif roll < 0.72:
            # A mid-session rotation moves the buffer into the note and keeps the
            # active tasks in the fresh buffer: each then stands twice (PROTOCOL §5 v3).
            before = parse_buffer(self.ws.buffer.read_text())
            if self.run("rotate") == 0 and before.has_content:
                self.model.update(f"- {t}" for t in before.active_tasks)
        elif roll < 0.76:
            # Lessons recur, so weekly reviews have candidates to flag.
            self.run("learn", "error", f"{text} (case {self.rng.randint(1, 3)})")
        elif roll < 0.80:
            self.person_edit()
        elif roll < 0.82:
            self.cron()
        else:
            self.crash()


def test_random_sessions_match_the_model(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    init_workspace(root, START)
    (root / "memory/memtier.toml").write_text(CONFIG)
    walk = Walk(root, random.Random(SEED))
    for _ in range(SESSIONS):
        walk.session()
    walk.session_start("the end")
    crashes = sum(walk.crashed_at.values())
    reached = set(walk.crashed_at)
    every = {*CHECKPOINTS, *REVIEW_POINTS, *ARCHIVE_POINTS, *STORE_POINTS}
    print(
        f"\nmodel walk (seed {SEED}): {walk.sessions} sessions over "
        f"{(walk.now - START).days} days, {crashes} crashes at {len(reached)} points, "
        f"{walk.person_edits} person edits, {walk.reviews} cron runs, {walk.checks} checks, "
        f"{walk.lines_checked} lines checked, 0 lost / 0 duplicated"
    )
    print(f"not reached: {sorted(every - NOT_IN_WALK - reached)}")
    assert every - NOT_IN_WALK - reached == set()
