"""PROTOCOL §9, the other commands (init aside, §1): learn, candidates and promote,
search, tags, stats, cron, install-scripts, atomic-write, and --json everywhere."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import CliRunner, run_memtier
from tests.protocol.support import BUF, HOT_OK, PROJECTS, TODAY, WARM, health, mt

# -- learn, candidates, promote --------------------------------------------------------


def test_learn_appends_and_refuses_a_lesson_from_another_file(root: Path, cli: CliRunner) -> None:
    assert mt(cli, root, "learn", "error", "apt mirror is slow").exit_code == 0
    assert mt(cli, root, "learn", "feature", "want a dashboard", "--pin").exit_code == 0
    errors = (root / ".learnings" / "ERRORS.md").read_text().splitlines()
    assert errors[-1] == f"- {TODAY} apt mirror is slow"
    features = (root / ".learnings" / "FEATURE_REQUESTS.md").read_text().splitlines()
    assert features[-1] == f"- {TODAY} want a dashboard #pinned"
    refused = mt(cli, root, "learn", "learning", "APT  mirror is slow")
    assert refused.exit_code == 1 and refused.stderr.startswith("memtier: error:")
    assert "apt" not in (root / ".learnings" / "LEARNINGS.md").read_text().lower()


def test_learn_redacts_and_says_which_rule(root: Path, cli: CliRunner) -> None:
    secret = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    result = mt(cli, root, "learn", "error", f"token {secret} leaked")
    assert result.exit_code == 0
    assert secret not in result.stdout + result.stderr
    text = (root / ".learnings" / "ERRORS.md").read_text()
    assert secret not in text and "[REDACTED:" in text
    assert "redacted 1 secret(s)" in result.stderr


def test_candidates_and_promote(root: Path, cli: CliRunner) -> None:
    errors = root / ".learnings" / "ERRORS.md"
    errors.write_text("# Errors\n- 2026-11-01 pin the apt mirror [PROMOTE-CANDIDATE]\n")
    listed = mt(cli, root, "candidates", "--json")
    assert json.loads(listed.stdout)["candidates"][0]["line"] == 2
    target = root / "memory" / "procedural" / "lessons-learned.md"
    before = target.read_bytes()
    dry = mt(
        cli,
        root,
        "promote",
        "pin the apt mirror",
        "--to",
        str(target),
        now="2026-12-03T09:00:00+01:00",
    )
    assert dry.exit_code == 0 and target.read_bytes() == before
    done = mt(
        cli,
        root,
        "promote",
        "pin the apt mirror",
        "--to",
        str(target),
        "--yes",
        now="2026-12-03T09:00:00+01:00",
    )
    assert done.exit_code == 0, done.stderr
    text = target.read_text()
    assert "pin the apt mirror" in text and "> last_verified: 2026-12-03" in text
    assert "[PROMOTE-CANDIDATE]" not in errors.read_text()
    assert "[PROMOTE-CANDIDATE]" not in text


def test_promote_outside_the_workspace_is_refused(
    root: Path, cli: CliRunner, tmp_path: Path, snapshot: Callable[[Path], dict[str, bytes]]
) -> None:
    (root / ".learnings" / "ERRORS.md").write_text("# E\n- 2026-11-01 lesson [PROMOTE-CANDIDATE]\n")
    outside = tmp_path / "elsewhere.md"
    before = snapshot(root)
    result = mt(cli, root, "promote", "lesson", "--to", str(outside), "--yes")
    assert result.exit_code == 2 and not outside.exists()
    assert snapshot(root) == before


def test_promote_into_a_warm_file_with_a_malformed_header_is_refused(
    cli: CliRunner, root: Path
) -> None:
    learnings = root / ".learnings/LEARNINGS.md"
    learnings.write_text(
        learnings.read_text() + "- 2026-11-29 pin apt mirrors [PROMOTE-CANDIDATE]\n"
    )
    path = root / PROJECTS
    path.write_text("just some text\n")
    before = {p: p.read_bytes() for p in (path, learnings)}
    for confirm in ((), ("--yes",)):
        result = mt(cli, root, "promote", "pin apt mirrors", "--to", PROJECTS, *confirm)
        assert result.exit_code == 2, result.stdout
        assert result.stderr.startswith("memtier: error: ") and result.stderr.count("\n") == 1
    assert {p: p.read_bytes() for p in before} == before


# -- search ----------------------------------------------------------------------------


def hits(cli: CliRunner, root: Path, *args: str) -> dict[str, Any]:
    result = mt(cli, root, "search", *args, "--json")
    assert result.exit_code == 0, result.stderr
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def test_each_hit_names_path_line_tier_and_score(root: Path, cli: CliRunner) -> None:
    mt(cli, root, "buffer", "note", "qdrant in the buffer")
    mt(cli, root, "learn", "error", "qdrant crashed")
    mt(cli, root, "episodic", "append", "qdrant moved")
    data = hits(cli, root, "qdrant")
    assert data["tiers"] == ["hot", "warm", "index", "buffer", "scratch", "cold"]
    found = {(h["tier"], h["path"]) for h in data["results"]}
    assert found == {
        ("buffer", BUF),
        ("scratch", ".learnings/ERRORS.md"),
        ("cold", f"memory/episodic/{TODAY}.md"),
    }
    for hit in data["results"]:
        assert isinstance(hit["line"], int) and isinstance(hit["score"], float)
        assert "qdrant" in (root / hit["path"]).read_text().splitlines()[hit["line"] - 1]


def test_tiers_are_searched_in_protocol_order_whatever_the_order_given(
    root: Path, cli: CliRunner
) -> None:
    data = hits(cli, root, "zzzq", "--tier", "COLD", "--tier", "Hot", "--tier", "archive")
    assert data["tiers"] == ["hot", "cold", "archive"]
    text = mt(cli, root, "search", "zzzq", "--tier", "cold", "--tier", "warm")
    assert text.exit_code == 0 and "WARM, COLD" in text.stdout and "HOT" not in text.stdout


@pytest.mark.parametrize("tier", ["WARM", "warm", "Warm"])
def test_search_tier_any_case(root: Path, cli: CliRunner, tier: str) -> None:
    (root / WARM).write_text(
        "# Infra\n#tags: docker\n> last_verified: 2026-11-30\nqdrant on host b\n"
    )
    (root / ".learnings" / "ERRORS.md").write_text("# E\n- 2026-11-30 qdrant crashed\n")
    result = mt(cli, root, "search", "qdrant", "--tier", tier, "--json")
    assert result.exit_code == 0
    hits = json.loads(result.stdout)["results"]
    assert hits and {h["tier"] for h in hits} == {"warm"}


def test_search_archive_on_request_or_when_the_live_tiers_have_nothing(
    root: Path, cli: CliRunner
) -> None:
    old = root / "memory" / "archive" / "2026" / "01" / "2026-01-01.md"
    old.parent.mkdir(parents=True)
    old.write_text("flamingo migration\n")
    live = root / "memory" / "episodic" / "2026-11-20.md"
    live.write_text("# 2026-11-20\n\n- flamingo migration planned\n")
    found = json.loads(mt(cli, root, "search", "flamingo", "--json").stdout)["results"]
    assert [h["tier"] for h in found] == ["cold"]  # a good live hit: the archive stays out
    live.unlink()
    # v4: no live hit, so the archive is searched too, and the output says so.
    payload = json.loads(mt(cli, root, "search", "flamingo", "--json").stdout)
    assert [h["tier"] for h in payload["results"]] == ["archive"]
    assert any("searched the archive too" in w for w in payload["warnings"])
    for extra in (("--all",), ("--tier", "archive")):
        hits = json.loads(mt(cli, root, "search", "flamingo", *extra, "--json").stdout)["results"]
        assert [h["tier"] for h in hits] == ["archive"]


def test_all_adds_the_archive_after_the_live_tiers(root: Path, cli: CliRunner) -> None:
    data = hits(cli, root, "zzzq", "--all")
    assert data["tiers"] == ["hot", "warm", "index", "buffer", "scratch", "cold", "archive"]
    text = mt(cli, root, "search", "zzzq", "--all").stdout
    assert "HOT, WARM, INDEX, BUFFER, SCRATCH, COLD, ARCHIVE" in text


def test_search_limit_and_tag(root: Path, cli: CliRunner) -> None:
    infra = root / "memory" / "semantic" / "infrastructure.md"
    infra.write_text("# I\n#tags: docker\n> last_verified: 2026-11-30\nqdrant one\n")
    prefs = root / "memory" / "semantic" / "preferences.md"
    prefs.write_text("# P\n#tags: rules\n> last_verified: 2026-11-30\nqdrant two\n")
    assert len(hits(cli, root, "qdrant", "--limit", "1")["results"]) == 1
    tagged = hits(cli, root, "qdrant", "--tag", "docker")["results"]
    assert [h["path"] for h in tagged] == ["memory/semantic/infrastructure.md"]


def test_search_zero_hits_names_the_tiers(root: Path, cli: CliRunner) -> None:
    result = mt(cli, root, "search", "zyxwvut")
    assert result.exit_code == 0
    assert "HOT, WARM, INDEX, BUFFER, SCRATCH, COLD" in result.stdout


@pytest.mark.parametrize(
    "args",
    [
        ("--tier", "bogus"),
        ("--regex", "--limit", "3", "("),
        ("--limit", "0"),
        ("--context", "-1"),
    ],
)
def test_search_bad_options_are_one_line_exit_2(
    root: Path, cli: CliRunner, args: tuple[str, ...]
) -> None:
    query = () if "(" in args else ("qdrant",)
    result = mt(cli, root, "search", *query, *args)
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.startswith("memtier: error:") and result.stderr.count("\n") == 1


# -- tags, stats, cron, install-scripts, atomic-write ----------------------------------


def test_tags_reports_tokens_outside_the_vocabulary(root: Path, cli: CliRunner) -> None:
    (root / WARM).write_text("# Infra\n#tags: docker|Bogus\n> last_verified: 2026-11-30\n")
    result = mt(cli, root, "tags", "--json")
    assert result.exit_code == 0
    entry = next(f for f in json.loads(result.stdout)["files"] if f["path"] == WARM)
    assert entry["tags"] == ["docker", "Bogus"] and entry["invalid"] == ["Bogus"]


def test_stats_counts_lines_like_wc(root: Path, cli: CliRunner) -> None:
    (root / "MEMORY.md").write_text(HOT_OK + "no final newline")
    data = json.loads(mt(cli, root, "stats", "--json").stdout)
    assert data["tiers"]["hot"]["lines"] == 4
    assert data["tiers"]["hot"]["files"] == 1


def test_cron_prints_the_weekly_line(root: Path, cli: CliRunner) -> None:
    result = mt(cli, root, "cron", "--json")
    assert result.exit_code == 0
    line = json.loads(result.stdout)["text"]
    assert line.startswith("0 9 * * 1 ") and "weekly-review" in line


def test_cron_install_is_idempotent(root: Path, tmp_path: Path) -> None:
    store = tmp_path / "crontab.txt"
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "crontab"
    fake.write_text(
        "#!/bin/sh\n"
        f'F="{store}"\n'
        'if [ "$1" = "-l" ]; then [ -f "$F" ] && exec cat "$F"; echo "no crontab" >&2; exit 1; fi\n'
        'if [ "$1" = "-" ]; then cat > "$F"; else cat "$1" > "$F"; fi\n'
    )
    fake.chmod(0o755)
    env = {"PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    for _ in range(2):
        proc = run_memtier("cron", "--install", "--root", str(root), env=env)
        assert proc.returncode == 0, proc.stderr
    lines = [line for line in store.read_text().splitlines() if "weekly-review" in line]
    assert len(lines) == 1 and lines[0].startswith("0 9 * * 1 ")


def test_install_scripts_writes_the_four_shims(root: Path, cli: CliRunner) -> None:
    from memtier import __version__

    assert mt(cli, root, "install-scripts").exit_code == 0
    names = {
        "health-check.sh",
        "atomic-write.sh",
        "archive-old-episodic.sh",
        "archive-old-learnings.sh",
    }
    scripts = root / "memory" / "scripts"
    assert names <= {p.name for p in scripts.iterdir()}
    for name in names:
        assert __version__ in (scripts / name).read_text()
        assert os.access(scripts / name, os.X_OK)
    assert health(cli, root)[0] == 0


def test_atomic_write_and_confinement(root: Path, cli: CliRunner, tmp_path: Path) -> None:
    target = root / "memory" / "new.md"
    result = mt(cli, root, "atomic-write", str(target), input="hello")
    assert result.exit_code == 0 and target.read_text() == "hello\n"
    outside = tmp_path / "outside.md"
    refused = mt(cli, root, "atomic-write", str(outside), input="x\n")
    assert refused.exit_code == 2 and not outside.exists()
    link = root / "memory" / "semantic" / "out"
    link.symlink_to(tmp_path)
    through = mt(cli, root, "atomic-write", str(link / "x.md"), input="x\n")
    assert through.exit_code == 2 and not (tmp_path / "x.md").exists()


# -- every report command: --json ------------------------------------------------------


# Every command answers --help: tests/cli/test_cli.py::test_every_command_has_help, over the
# command tree read from the application itself, so no list here can fall behind.
REPORTS = [
    ("health-check",),
    ("session-start",),
    ("session-end",),
    ("rotate",),
    ("buffer", "show"),
    ("buffer", "task", "x"),
    ("episodic", "append", "x"),
    ("archive",),
    ("weekly-review",),
    ("search", "memory"),
    ("tags",),
    ("learn", "error", "something new"),
    ("candidates",),
    ("install-scripts",),
    ("stats",),
    ("init",),
]


@pytest.mark.parametrize("command", REPORTS, ids=" ".join)
def test_json_is_one_object_on_stdout(root: Path, cli: CliRunner, command: tuple[str, ...]) -> None:
    result = mt(cli, root, *command, "--json")
    assert result.exit_code == 0, result.stderr
    assert isinstance(json.loads(result.stdout), dict)


@pytest.mark.parametrize(
    "command",
    [
        ("session-end",),
        ("buffer", "show"),
        ("recent-searches",),
        ("candidates",),
        ("tags",),
        ("stats",),
        ("archive", "--dry-run"),
    ],
)
def test_report_commands_answer_json(root: Path, cli: CliRunner, command: tuple[str, ...]) -> None:
    result = mt(cli, root, *command, "--json")
    assert result.exit_code == 0, result.stderr
    assert isinstance(json.loads(result.stdout), dict)
