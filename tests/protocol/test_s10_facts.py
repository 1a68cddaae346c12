"""PROTOCOL §10 (facts), rule by rule through the command line: kinds and homes, the
retirement log's exact line, duplicates at the Jaccard boundary, the HOT cap at its
boundary, replace/retire matching, verify, and get's bounds.

Complements tests/cli/test_facts_cli.py and tests/commands/test_facts.py: the exact
forms and boundaries the contract states, as an outside reader of it would check them."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import CliRunner
from tests.protocol.support import LOG, PROJECTS, TODAY, mt, remember

# - YYYY-MM-DD <file>:<line> <retired|replaced>: <old text> — <reason>
LOG_LINE = re.compile(
    r"^- (?P<date>\d{4}-\d\d-\d\d) (?P<file>\S+):(?P<line>\d+) (?P<verb>retired|replaced): "
    r"(?P<old>.+) — (?P<reason>.+)$"
)


def health_ok(cli: CliRunner, root: Path) -> bool:
    result = mt(cli, root, "health-check", "--json")
    report: dict[str, Any] = json.loads(result.stdout)
    return bool(report["ok"]) and result.exit_code == 0


# -- kinds and homes -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "home"),
    [
        ("infrastructure", "memory/semantic/infrastructure.md"),
        ("preference", "memory/semantic/preferences.md"),
        ("project", "memory/semantic/projects.md"),
        ("decision", "memory/semantic/decisions.md"),
        ("lesson", "memory/procedural/lessons-learned.md"),
        ("howto:backups", "memory/procedural/backups.md"),
        ("hot", "MEMORY.md"),
        ("event", f"memory/episodic/{TODAY}.md"),
    ],
)
def test_every_kind_lands_in_its_one_home_as_one_line(
    cli: CliRunner, root: Path, kind: str, home: str
) -> None:
    result = mt(cli, root, "remember", "- qdrant listens on 6334", "--kind", kind, "--json")
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["file"] == home
    lines = (root / home).read_text().splitlines()
    assert lines[data["line"] - 1] == "- qdrant listens on 6334"  # the bullet is not doubled
    assert health_ok(cli, root)


def test_howto_file_is_created_with_a_warm_header_from_tag(cli: CliRunner, root: Path) -> None:
    result = remember(cli, root, "restic check weekly", "--kind", "howto:restic", "--tag", "backup")
    assert result.exit_code == 0, result.stderr
    lines = (root / "memory/procedural/restic.md").read_text().splitlines()
    assert lines[1] == "#tags: backup"
    assert lines[2] == f"> last_verified: {TODAY}"
    assert health_ok(cli, root)


def test_a_fact_refreshes_last_verified_and_hot_last_updated(cli: CliRunner, root: Path) -> None:
    later = "2026-12-20T10:00:00+01:00"
    assert remember(cli, root, "nas01 is the backup", "--kind", "hot", now=later).exit_code == 0
    hot = (root / "MEMORY.md").read_text().splitlines()
    assert hot[2:4] == ["last_verified: 2026-12-20", "last_updated: 2026-12-20"]
    assert remember(cli, root, "borg runs nightly", "--kind", "project", now=later).exit_code == 0
    assert (root / PROJECTS).read_text().splitlines()[2] == "> last_verified: 2026-12-20"


def test_the_reported_line_is_the_facts_own_when_last_verified_is_added(
    cli: CliRunner, root: Path
) -> None:
    (root / PROJECTS).write_text("# Projects\n#tags: tasks\n\nbody\n")
    result = mt(cli, root, "remember", "a project fact", "--kind", "project", "--json")
    data = json.loads(result.stdout)
    lines = (root / PROJECTS).read_text().splitlines()
    assert lines[2] == f"> last_verified: {TODAY}"
    assert lines[data["line"] - 1] == "- a project fact"


@pytest.mark.parametrize(
    "args",
    [
        ("remember", "a project fact", "--kind", "project"),
        ("replace", "body", "new body text", "--in", PROJECTS),
        ("retire", "body", "--in", PROJECTS, "--reason", "r"),
        ("verify", PROJECTS),
    ],
)
def test_a_warm_file_with_a_malformed_header_is_bad_input_and_unchanged(
    cli: CliRunner, root: Path, args: tuple[str, ...]
) -> None:
    """§3: a malformed header ends with one error line, exit 2, no file changed; §10:
    the facts commands touch a header only for its dates, they never repair it."""
    path = root / PROJECTS
    path.write_text("just some text\nno tags line\n- body line\n")
    before = path.read_bytes()
    result = mt(cli, root, *args)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.startswith("memtier: error: ") and result.stderr.count("\n") == 1
    assert path.read_bytes() == before
    assert not (root / LOG).exists()


# -- replace, retire and the retirement log --------------------------------------------


def test_replace_matches_case_sensitively_and_lists_several(cli: CliRunner, root: Path) -> None:
    assert remember(cli, root, "nas01 serves smb", "--kind", "project").exit_code == 0
    assert remember(cli, root, "nas01 runs zfs", "--kind", "project").exit_code == 0
    before = (root / PROJECTS).read_bytes()
    none = mt(cli, root, "replace", "NAS01", "x y", "--in", PROJECTS)
    assert none.exit_code == 1 and none.stderr.startswith("memtier: error: ")
    several = mt(cli, root, "retire", "nas01", "--in", PROJECTS, "--reason", "r")
    assert several.exit_code == 1
    assert "6: - nas01 serves smb" in several.stderr and "7: - nas01 runs zfs" in several.stderr
    header = mt(cli, root, "retire", "last_verified", "--in", PROJECTS, "--reason", "r")
    assert header.exit_code == 1
    assert (root / PROJECTS).read_bytes() == before
    assert not (root / LOG).exists()


def test_retirement_log_lines_have_the_exact_form(cli: CliRunner, root: Path) -> None:
    assert remember(cli, root, "grafana on port 3000", "--kind", "project").exit_code == 0
    assert remember(cli, root, "loki keeps 14 days", "--kind", "project").exit_code == 0
    replaced = mt(cli, root, "replace", "port 3000", "grafana on port 3001", "--in", PROJECTS,
                  "--reason", "moved")  # fmt: skip
    assert replaced.exit_code == 0, replaced.stderr
    retired = mt(cli, root, "retire", "loki", "--in", PROJECTS, "--reason", "dropped loki")
    assert retired.exit_code == 0, retired.stderr
    entries = [line for line in (root / LOG).read_text().splitlines() if line.startswith("- ")]
    found = [LOG_LINE.match(line) for line in entries]
    assert all(found), entries
    got = [m.groupdict() for m in found if m]
    assert got == [
        {"date": TODAY, "file": PROJECTS, "line": "6", "verb": "replaced",
         "old": "grafana on port 3000", "reason": "moved"},
        {"date": TODAY, "file": PROJECTS, "line": "7", "verb": "retired",
         "old": "loki keeps 14 days", "reason": "dropped loki"},
    ]  # fmt: skip
    text = (root / PROJECTS).read_text()
    assert "- grafana on port 3001\n" in text and "loki" not in text


# -- verify, get -----------------------------------------------------------------------


def test_verify_prints_the_previous_date_and_refuses_other_files(
    cli: CliRunner, root: Path
) -> None:
    later = "2027-01-15T09:00:00+01:00"
    done = mt(cli, root, "verify", PROJECTS, "--json", now=later)
    assert done.exit_code == 0, done.stderr
    assert json.loads(done.stdout)["files"] == [
        {"path": PROJECTS, "previous": TODAY, "verified": "2027-01-15"}
    ]
    assert (root / PROJECTS).read_text().splitlines()[2] == "> last_verified: 2027-01-15"
    human = mt(cli, root, "verify", "memory/semantic/decisions.md", now=later)
    assert TODAY in human.stdout and "2027-01-15" in human.stdout
    other = mt(cli, root, "verify", f"memory/episodic/{TODAY}.md", now=later)
    assert other.exit_code == 2 and other.stderr.startswith("memtier: error: ")


def test_get_is_bounded_at_200_lines_and_names_the_next_range(cli: CliRunner, root: Path) -> None:
    body = "".join(f"- fact number {n}\n" for n in range(1, 400))
    path = root / PROJECTS
    path.write_text(path.read_text() + body)
    total = len(path.read_text().splitlines())
    result = mt(cli, root, "get", PROJECTS)
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 201
    assert lines[0].split()[0] == "1" and lines[199].split()[0] == "200"
    assert lines[-1] == f"truncated; next: {PROJECTS}:201-400"
    tail = mt(cli, root, "get", f"{PROJECTS}:{total - 1}-{total + 50}")
    assert [line.split()[0] for line in tail.stdout.splitlines()] == [str(total - 1), str(total)]
    small = mt(cli, root, "get", f"{PROJECTS}:10-30", "--max-lines", "5", "--json")
    data = json.loads(small.stdout)
    assert [entry["line"] for entry in data["lines"]] == [10, 11, 12, 13, 14]
    assert data["truncated"] is True and data["next"] == f"{PROJECTS}:15-19"


def test_get_date_reads_an_archived_day(cli: CliRunner, root: Path) -> None:
    old = root / "memory/archive/2026/09/2026-09-03.md"
    old.parent.mkdir(parents=True)
    old.write_text("# 2026-09-03\n\nmoved the rack\n")
    result = mt(cli, root, "get", "--date", "2026-09-03")
    assert result.exit_code == 0, result.stderr
    assert "moved the rack" in result.stdout
    missing = mt(cli, root, "get", "--date", "2026-09-04")
    assert missing.exit_code == 2 and missing.stderr.startswith("memtier: error: ")


# -- no duplicates ---------------------------------------------------------------------


def words(prefix: str, count: int) -> str:
    return " ".join(f"{prefix}{i}" for i in range(count))


def test_near_duplicate_at_jaccard_0_85_is_refused_naming_file_line(
    cli: CliRunner, root: Path
) -> None:
    assert remember(cli, root, words("w", 17), "--kind", "project").exit_code == 0
    before = (root / "memory/semantic/decisions.md").read_bytes()
    refused = remember(cli, root, words("w", 20), "--kind", "decision")  # 17/20 = 0.85
    assert refused.exit_code == 1
    assert refused.stdout == ""
    assert refused.stderr.startswith("memtier: error: ") and refused.stderr.count("\n") == 1
    assert f"{PROJECTS}:6" in refused.stderr and "memtier replace" in refused.stderr
    assert (root / "memory/semantic/decisions.md").read_bytes() == before


def test_below_jaccard_0_85_is_a_new_fact(cli: CliRunner, root: Path) -> None:
    assert remember(cli, root, words("v", 21), "--kind", "project").exit_code == 0
    accepted = remember(cli, root, words("v", 25), "--kind", "project")  # 21/25 = 0.84
    assert accepted.exit_code == 0, accepted.stderr


def test_a_restated_fact_is_a_near_duplicate_naming_the_line(cli: CliRunner, root: Path) -> None:
    """PROTOCOL §10 (v4): every normalised word of the new fact stands in one line."""
    infra = root / "memory/semantic/infrastructure.md"
    long = "nas01: Synology DS920+, 192.168.1.10, 4x8TB SHR-2, DSM 7.2"
    assert remember(cli, root, long, "--kind", "infrastructure").exit_code == 0
    number = infra.read_text().splitlines().index(f"- {long}") + 1
    before = infra.read_bytes()
    refused = remember(cli, root, "nas01: Synology DS920+, 192.168.1.10", "--kind", "hot")
    assert refused.exit_code == 1, refused.stderr
    assert f"memory/semantic/infrastructure.md:{number}" in refused.stderr
    assert "near-duplicate" in refused.stderr and "--force" in refused.stderr
    assert infra.read_bytes() == before
    # Punctuation and case do not make it new; nor does another home.
    again = remember(cli, root, "NAS01 synology ds920+ 192.168.1.10", "--kind", "infrastructure")
    assert again.exit_code == 1
    # --force keeps it, once.
    kept = remember(cli, root, "nas01: Synology DS920+, 192.168.1.10", "--kind", "hot", "--force")
    assert kept.exit_code == 0, kept.stderr
    assert "- nas01: Synology DS920+, 192.168.1.10" in (root / "MEMORY.md").read_text()
    twice = remember(cli, root, "nas01: Synology DS920+, 192.168.1.10", "--kind", "hot", "--force")
    assert twice.exit_code == 1  # the same fact is never forced in twice


def test_a_fact_with_a_word_of_its_own_is_new(cli: CliRunner, root: Path) -> None:
    long = "nas01: Synology DS920+, 192.168.1.10, 4x8TB SHR-2, DSM 7.2"
    assert remember(cli, root, long, "--kind", "infrastructure").exit_code == 0
    added = remember(cli, root, "nas01 backs up to b2 nightly", "--kind", "infrastructure")
    assert added.exit_code == 0, added.stderr


def test_normalised_duplicate_across_hot_and_warm_is_refused(cli: CliRunner, root: Path) -> None:
    assert remember(cli, root, "Gateway runs on 10.0.0.1", "--kind", "hot").exit_code == 0
    refused = remember(cli, root, "gateway   RUNS on 10.0.0.1!", "--kind", "infrastructure")
    assert refused.exit_code == 1
    assert "MEMORY.md:" in refused.stderr and "replace" in refused.stderr


# -- the HOT cap -----------------------------------------------------------------------


def test_hot_cap_allows_the_last_line_and_refuses_the_next(cli: CliRunner, root: Path) -> None:
    (root / "memory/memtier.toml").write_text("hot_max_lines = 10\n")
    count = len((root / "MEMORY.md").read_text().splitlines())
    for n in range(count, 10):
        assert remember(cli, root, f"hot fact {n} alpha{n}", "--kind", "hot").exit_code == 0
    assert len((root / "MEMORY.md").read_text().splitlines()) == 10
    before = (root / "MEMORY.md").read_bytes()
    refused = remember(cli, root, "one fact too many", "--kind", "hot")
    assert refused.exit_code == 1
    assert refused.stderr.startswith("memtier: error: ") and refused.stderr.count("\n") == 1
    assert "11 lines" in refused.stderr and "10" in refused.stderr
    assert "retire" in refused.stderr and "WARM" in refused.stderr
    assert (root / "MEMORY.md").read_bytes() == before
