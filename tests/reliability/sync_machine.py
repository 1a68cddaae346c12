"""Three real hosts and one real remote, driven at random and judged by the model (§14).

`SyncMachine` is a Hypothesis state machine: its rules are memtier's writers on
real workspaces (facts remembered, replaced and retired, a person's hand edit of
a fact file, notes appended and closed, a buffer rotated, lessons learned, topic
entries added and changed, shims installed) and syncs through one real bare
repository, in any order. After a quiescent round (every host syncs twice in
turn) each host is compared with `tests.sync_model.SyncModel` and with the
others: the same tracked bytes, no conflict marker, health-check passing.

A quiescent step with nothing written anywhere since the last such check (no
writer ran, no hand edit, the day the same) would run the same syncs on the same
trees: instead every host syncs once more, which must find nothing to share and
leave every tracked byte as checked. The end of every sequence is the whole check.
"""

from __future__ import annotations

import re
import shutil
import tempfile
from collections import Counter
from datetime import datetime, timedelta
from pathlib import Path

from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, precondition, rule

from memtier.formats.fact_text import fact_lines, normalise_fact
from memtier.formats.index import CATEGORIES, STATUSES, parse_index
from tests.sync_model import SyncModel
from tests.sync_support import git, hosts, memtier

HOSTS = 3
START = datetime.fromisoformat("2026-12-01T09:00:00+01:00")
KINDS = {
    "infrastructure": "memory/semantic/infrastructure.md",
    "project": "memory/semantic/projects.md",
    "preference": "memory/semantic/preferences.md",
}
SECTIONS = (None, "Hosts", "Services")
WORDS = ("amber", "birch", "cobalt", "delta", "ember", "fjord", "garnet", "harbor", "indigo")
MARKER = re.compile(r"(?m)^(<<<<<<<|>>>>>>>) ")
WRITTEN = re.compile(r"^(host|hand)\d")  # the facts this test writes
host_ids = st.integers(0, HOSTS - 1)


def header_lines(rel: str) -> int:
    return 4 if rel == "MEMORY.md" else 3


def fact_files(ws: Path) -> list[str]:
    found = ["MEMORY.md"]
    for folder in ("memory/semantic", "memory/procedural"):
        found += sorted(f"{folder}/{p.name}" for p in (ws / folder).glob("*.md"))
    return found


def read_facts(ws: Path) -> dict[str, list[str]]:
    """Every fact file's facts by identity (§10's normalised text), in file order."""
    found: dict[str, list[str]] = {}
    for rel in fact_files(ws):
        lines = (ws / rel).read_text(encoding="utf-8").split("\n")
        facts = [normalise_fact(line) for _n, line in fact_lines(lines, header_lines(rel))]
        found[rel] = [f for f in facts if f]
    return found


def closure_items(text: str, name: str) -> list[str]:
    lines = text.rstrip("\n").split("\n")
    for line in lines[-4:]:
        if line.startswith(name):
            items = [i.strip() for i in line[len(name) :].split("; ") if i.strip()]
            return [i for i in items if i != "none"]
    return []


def count_words(text: str, phrase: str) -> int:
    return len(re.findall(rf"(?<![\w-]){re.escape(phrase)}(?![\w-])", text))


class SyncMachine(RuleBasedStateMachine):
    """See the module's docstring."""

    def __init__(self) -> None:
        super().__init__()
        self.folder = Path(tempfile.mkdtemp(prefix="memtier-model-"))
        _remote, self.spaces = hosts(self.folder, HOSTS)
        self.model = SyncModel(HOSTS)
        self.now = START
        self.number = 0
        self.baseline = read_facts(self.spaces[0])
        for rel, facts in self.baseline.items():
            for fact in facts:
                for host in range(HOSTS):
                    self.model.add_fact(host, (rel, fact))
        self.model.remote = self.model.everything()
        # The tracked files every host held at the last whole check; None once anything
        # may have changed since (a writer, a hand edit, another day).
        self.settled: dict[str, bytes] | None = None

    # -- helpers ----------------------------------------------------------------

    def fresh(self) -> int:
        self.number += 1
        return self.number

    def run(self, host: int, *args: str) -> tuple[int, str]:
        done = memtier(self.spaces[host], *args, now=self.now.isoformat())
        return done.returncode, done.stdout + done.stderr

    def ok(self, host: int, *args: str) -> str:
        """A writer of memtier on *host*, which must succeed."""
        self.settled = None
        code, said = self.run(host, *args)
        assert code == 0, (host, args, said)
        return said

    @property
    def today(self) -> str:
        return self.now.date().isoformat()

    def live_here(self, host: int) -> list[tuple[str, str]]:
        """Facts this test wrote that stand on the host and the model says it knows."""
        real = read_facts(self.spaces[host])
        known = self.model.known[host].live_facts()
        return sorted(
            (rel, fact)
            for rel, facts in real.items()
            for fact in facts
            if (rel, fact) in known and WRITTEN.match(fact)
        )

    # -- rules: facts -----------------------------------------------------------

    @initialize()
    def start(self) -> None:
        pass

    @rule(host=host_ids, kind=st.sampled_from(sorted(KINDS)), section=st.sampled_from(SECTIONS))
    def remember(self, host: int, kind: str, section: str | None) -> None:
        n = self.fresh()
        text = f"host{n} runs {WORDS[n % 9]}{n} beside {WORDS[(n + 4) % 9]}{n}"
        where = ("--section", section) if section else ()
        self.ok(host, "remember", text, "--kind", kind, *where)
        self.model.add_fact(host, (KINDS[kind], text))

    @rule(host=host_ids, pick=st.integers(0, 10**6), section=st.sampled_from(SECTIONS))
    def remember_what_another_host_did(self, host: int, pick: int, section: str | None) -> None:
        """The same fact learned on two hosts, maybe under another section (finding a)."""
        everything = self.model.everything()
        mine = self.model.known[host]
        real = read_facts(self.spaces[host])
        families_here = {
            self.model.origin.get((rel, f), (rel, f)) for rel, fs in real.items() for f in fs
        } | {self.model.origin.get(f, f) for f in mine.facts_added}
        choices = sorted(
            fact
            for fact in everything.live_facts()
            if self.model.origin.get(fact) == fact
            and fact not in everything.facts_removed
            and fact not in families_here
            and fact[1].startswith("host")
            and WRITTEN.match(fact[1])
        )
        if not choices:
            return
        rel, text = choices[pick % len(choices)]
        kind = next(k for k, v in KINDS.items() if v == rel)
        where = ("--section", section) if section else ()
        self.ok(host, "remember", text, "--kind", kind, *where)
        self.model.add_fact(host, (rel, text))

    @rule(host=host_ids, pick=st.integers(0, 10**6))
    def replace(self, host: int, pick: int) -> None:
        choices = self.live_here(host)
        if not choices:
            return
        rel, old = choices[pick % len(choices)]
        n = self.fresh()
        new = " ".join([*old.split()[:4], f"{WORDS[n % 9]}{n}"])
        self.ok(host, "replace", old, new, "--in", rel, "--reason", f"changed{n}")
        self.model.replace_fact(host, (rel, old), (rel, new))

    @rule(host=host_ids, pick=st.integers(0, 10**6))
    def retire(self, host: int, pick: int) -> None:
        choices = self.live_here(host)
        if not choices:
            return
        rel, old = choices[pick % len(choices)]
        n = self.fresh()
        self.ok(host, "retire", old, "--in", rel, "--reason", f"gone{n}")
        self.model.remove_fact(host, (rel, old))

    @rule(host=host_ids, kind=st.sampled_from(sorted(KINDS)), move=st.booleans())
    def hand_edit(self, host: int, kind: str, move: bool) -> None:
        """A person edits a fact file: adds a line at the end, or moves the last fact up."""
        rel = KINDS[kind]
        path = self.spaces[host] / rel
        self.settled = None
        lines = path.read_text(encoding="utf-8").split("\n")[:-1]
        if move:
            facts = fact_lines(lines, header_lines(rel))
            if len(facts) < 2:
                return
            (first, _), (last, text) = facts[0], facts[-1]
            del lines[last - 1]
            lines.insert(first - 1, text)
        else:
            n = self.fresh()
            text = f"hand{n} wrote {WORDS[n % 9]}{n} by {WORDS[(n + 2) % 9]}{n}"
            lines.append(f"- {text}")
            self.model.add_fact(host, (rel, text))
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")

    # -- rules: notes, learnings ------------------------------------------------

    @rule(host=host_ids)
    def append(self, host: int) -> None:
        text = f"event{self.fresh()} happened"
        self.ok(host, "episodic", "append", text)
        self.model.append_line(host, self.today, text)

    @rule(host=host_ids)
    def rotate(self, host: int) -> None:
        task = f"task{self.fresh()} pending"
        self.ok(host, "buffer", "task", task)
        self.ok(host, "session-end")
        self.model.open_item(host, self.today, task)

    @rule(host=host_ids, pick=st.integers(0, 10**6))
    def close_item(self, host: int, pick: int) -> None:
        note = self.spaces[host] / f"memory/episodic/{self.today}.md"
        if not note.exists():
            return
        text = note.read_text(encoding="utf-8")
        open_now = closure_items(text, "Open:")
        known = {i for d, i in self.model.known[host].open_items() if d == self.today}
        choices = sorted(i for i in open_now if i in known)
        if not choices:
            return
        item = choices[pick % len(choices)]
        rest = "; ".join(i for i in open_now if i != item) or "none"
        decisions = "; ".join(closure_items(text, "Decisions:")) or "none"
        signal = "; ".join(closure_items(text, "Signal:")) or "none"
        self.ok(
            host, "episodic", "close", "--decisions", decisions, "--signal", signal,
            "--open", rest, "--replace",
        )  # fmt: skip
        self.model.close_item(host, self.today, item)

    @rule(host=host_ids)
    def learn(self, host: int) -> None:
        text = f"failure{self.fresh()} seen"
        self.ok(host, "learn", "error", text)
        self.model.learn(host, text)

    # -- rules: topic entries -----------------------------------------------------

    @rule(
        host=host_ids,
        pick=st.integers(0, 10**6),
        category=st.sampled_from(sorted(CATEGORIES)),
        again=st.booleans(),
    )
    def index_add(self, host: int, pick: int, category: str, again: bool) -> None:
        """A new topic, or one another host added that this one has not seen yet."""
        others = sorted(self.model.everything().slugs - self.model.known[host].slugs)
        n = self.fresh()
        slug = others[pick % len(others)] if again and others else f"topic{n}"
        term = f"term{n}"
        self.ok(host, "index", "add", slug, "--category", category, "--match", term)
        self.model.write_field(host, slug, "category", category)
        self.model.write_field(host, slug, "match", term)
        self.model.write_field(host, slug, "status", "active")

    @rule(
        host=host_ids,
        pick=st.integers(0, 10**6),
        status=st.sampled_from(STATUSES),
        match=st.booleans(),
    )
    def index_set(self, host: int, pick: int, status: str, match: bool) -> None:
        slugs = sorted(self.model.known[host].slugs)
        if not slugs:
            return
        slug = slugs[pick % len(slugs)]
        if match:
            term = f"term{self.fresh()}"
            self.ok(host, "index", "set", slug, "--match", term)
            self.model.write_field(host, slug, "match", term)
        else:
            self.ok(host, "index", "set", slug, "--status", status)
            self.model.write_field(host, slug, "status", status)

    # -- rules: host-local files, time, sync ---------------------------------------

    @rule(host=host_ids)
    def install_scripts(self, host: int) -> None:
        """Shims name the installing host's memtier: each host has it elsewhere."""
        self.ok(host, "install-scripts")
        for script in (self.spaces[host] / "memory/scripts").glob("*.sh"):
            text = script.read_text(encoding="utf-8")
            script.write_text(re.sub(r"/\S*/bin/", f"/opt/host{host}/bin/", text))

    @precondition(lambda self: self.now < START + timedelta(days=3))
    @rule()
    def next_day(self) -> None:
        self.now += timedelta(days=1)
        self.settled = None

    @rule(host=host_ids)
    def sync(self, host: int) -> None:
        code, said = self.run(host, "sync")
        assert code == 0 or (code == 1 and "conflict(s) recorded" in said), (host, code, said)
        self.model.sync(host)

    @rule()
    def quiesce(self) -> None:
        if self.settled is None:
            self.settle_and_check()
        else:
            self.quiet_round(self.settled)

    def teardown(self) -> None:
        try:
            self.settle_and_check()
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)

    # -- the comparison -------------------------------------------------------------

    def settle_and_check(self) -> None:
        for turn in range(2):
            for host in range(HOSTS):
                code, said = self.run(host, "sync")
                if turn == 1:
                    assert code == 0, ("second round", host, said)
                else:
                    assert code in (0, 1), (host, said)
                self.model.sync(host)
        trees = [self.tracked(host) for host in range(HOSTS)]
        for host in range(1, HOSTS):
            differ = sorted(
                k for k in {*trees[0], *trees[host]} if trees[0].get(k) != trees[host].get(k)
            )
            assert not differ, (host, differ)
        tree = trees[0]
        for name, data in tree.items():
            assert not MARKER.search(data.decode("utf-8", "replace")), name
        assert not any(name.startswith("memory/scripts/") for name in tree), "shims tracked"
        self.check_facts(host=0)
        self.check_notes(tree)
        self.check_learnings(tree)
        self.check_index(tree)
        for host in range(HOSTS):
            code, said = self.run(host, "health-check")
            assert code == 0, (host, said)
        self.settled = tree

    def quiet_round(self, settled: dict[str, bytes]) -> None:
        """Nothing was written since the last whole check: one more sync on each host
        finds nothing to share, and every host still holds the bytes checked then."""
        for host in range(HOSTS):
            code, said = self.run(host, "sync")
            assert code == 0 and "nothing to merge; 0 local commit(s)" in said, (host, said)
            self.model.sync(host)
        for host in range(HOSTS):
            tree = self.tracked(host)
            differ = sorted(k for k in {*tree, *settled} if tree.get(k) != settled.get(k))
            assert not differ, ("a quiet sync changed", host, differ)

    def tracked(self, host: int) -> dict[str, bytes]:
        ws = self.spaces[host]
        names = git(ws, "ls-files", "-z").split("\0")
        return {n: (ws / n).read_bytes() for n in names if n and (ws / n).is_file()}

    def check_facts(self, host: int) -> None:
        real = read_facts(self.spaces[host])
        standing = {(rel, f) for rel, facts in real.items() for f in facts}
        for members in self.model.contested():
            kept = members & standing
            assert len(kept) == 1, ("a fact replaced on two hosts", sorted(members), kept)
        self.model.settle_contested(standing)
        expected = self.model.everything().live_facts()
        for rel, facts in real.items():
            twice = [f for f, c in Counter(facts).items() if c > 1]
            assert not twice, (rel, "stands twice", twice)
            want = {f for r, f in expected if r == rel}
            assert set(facts) == want, (rel, "lost", want - set(facts), "extra", set(facts) - want)
        retired = self.spaces[host] / "memory/archive/retired.md"
        log = retired.read_text(encoding="utf-8") if retired.exists() else ""
        folded = normalise_fact(log)
        for rel, fact in self.model.retired:
            assert f"{rel}:" in log and fact in folded, ("retired.md lacks", rel, fact)

    def check_notes(self, tree: dict[str, bytes]) -> None:
        total = self.model.everything()
        notes = {
            name.rsplit("/", 1)[-1][: -len(".md")]: data.decode()
            for name, data in tree.items()
            if name.startswith("memory/episodic/")
        }
        for day, text in total.note_lines:
            assert count_words(notes.get(day, ""), text) == 1, (day, text)
        for day, item in total.open_added:
            note = notes.get(day, "")
            is_open = (day, item) not in total.open_closed
            assert count_words(note, item) == 1 + is_open, (day, item, is_open)
        for day, note in notes.items():
            assert note.count("\nUpdated:") <= 1, day
            items = set(closure_items(note, "Open:"))
            want = {i for d, i in total.open_items() if d == day}
            assert want <= items, (day, "lost open items", want - items)
            extra = {i for i in items - want if not i.startswith("settle sync conflict")}
            assert not extra, (day, "items back open", extra)

    def check_learnings(self, tree: dict[str, bytes]) -> None:
        errors = tree.get(".learnings/ERRORS.md", b"").decode()
        for text in self.model.everything().learnings:
            assert count_words(errors, text) == 1, text

    def check_index(self, tree: dict[str, bytes]) -> None:
        slugs = self.model.everything().slugs
        if not slugs:
            return
        parsed = parse_index(tree["memory/INDEX.md"].decode())
        assert not parsed.problems, parsed.problems
        standing = {e.slug for e in parsed.entries}
        assert standing == slugs, ("topics lost", slugs - standing, "extra", standing - slugs)
        for entry in parsed.entries:
            for name, value in (
                ("category", entry.category),
                ("match", ", ".join(entry.match)),
                ("status", entry.status),
            ):
                allowed = self.model.field_values(entry.slug, name)
                assert value in allowed, (entry.slug, name, value, allowed)
