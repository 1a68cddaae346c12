"""CLI wiring of remember, replace, retire, verify and get (PROTOCOL §10)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import CliRunner

INFRA = "memory/semantic/infrastructure.md"


def test_remember_replace_retire_round_trip(cli: CliRunner, root: Path) -> None:
    base = ("--root", str(root), "--now", "2026-11-30T10:00:00+01:00")
    done = cli(*base, "remember", "qdrant on 10.0.0.7:6334", "--kind", "infrastructure", "--json")
    assert done.exit_code == 0, done.stderr
    payload = json.loads(done.stdout)
    assert payload["file"] == INFRA and isinstance(payload["line"], int)
    dup = cli(*base, "remember", "Qdrant on 10.0.0.7:6334.", "--kind", "hot")
    assert dup.exit_code == 1
    assert dup.stderr.startswith("memtier: error: ")
    assert f"{INFRA}:{payload['line']}" in dup.stderr and "replace" in dup.stderr
    rep = cli(*base, "replace", "10.0.0.7", "-", "--in", INFRA, input="qdrant on 10.0.0.9\n")
    assert rep.exit_code == 0, rep.stderr
    ret = cli(*base, "retire", "10.0.0.9", "--in", INFRA, "--reason", "host gone")
    assert ret.exit_code == 0, ret.stderr
    found = cli(*base, "search", "--all", "10.0.0.9", "--json")
    assert "memory/archive/retired.md" in found.stdout


def test_replace_ambiguous_exit_1_lists_lines(cli: CliRunner, root: Path) -> None:
    base = ("--root", str(root))
    cli(*base, "remember", "alpha on port 80", "--kind", "infrastructure")
    cli(*base, "remember", "beta on port 80 too", "--kind", "infrastructure")
    result = cli(*base, "replace", "port 80", "x", "--in", INFRA)
    assert result.exit_code == 1
    assert "6: - alpha on port 80" in result.stderr and "7: - beta on port 80 too" in result.stderr


def test_remember_howto_block_from_stdin(cli: CliRunner, root: Path) -> None:
    block = "Check a unit:\n```\nsystemctl status nginx\n```\n"
    result = cli("--root", str(root), "remember", "-", "--kind", "howto:systemd", input=block)
    assert result.exit_code == 0, result.stderr
    text = (root / "memory/procedural/systemd.md").read_text(encoding="utf-8")
    assert text.endswith("Check a unit:\n```\nsystemctl status nginx\n```\n")


def test_unknown_tag_lists_the_vocabulary(cli: CliRunner, root: Path) -> None:
    result = cli("--root", str(root), "remember", "x y", "--kind", "howto:web", "--tag", "nginx")
    assert result.exit_code == 2
    assert "nginx" in result.stderr and "docker" in result.stderr


def test_verify_and_get(cli: CliRunner, root: Path) -> None:
    late = ("--root", str(root), "--now", "2027-01-15T09:00:00+01:00")
    assert cli(*late, "health-check").exit_code == 1
    verified = cli(*late, "verify", "--stale")
    assert verified.exit_code == 0
    assert f"verified {INFRA}: last_verified 2027-01-15 (was 2026-11-30)" in verified.stdout
    assert cli(*late, "health-check").exit_code == 0
    got = cli(*late, "get", f"{INFRA}:1-2")
    assert got.stdout.splitlines() == ["1  # Infrastructure", "2  #tags: networking, ssh"]
    cut = cli(*late, "get", "MEMORY.md", "--max-lines", "2")
    assert cut.stdout.splitlines()[-1].startswith("truncated; next: MEMORY.md:3-")
    assert cli(*late, "get").exit_code == 2
    assert cli(*late, "get", "--date", "2020-01-01").exit_code == 2


@pytest.mark.parametrize(
    "command",
    [
        ("remember", "zeta service on port 4242", "--kind", "infrastructure"),
        ("remember", "an unrouted zeta fact"),
        ("verify", "--stale"),
        ("verify", INFRA),
        ("get", "MEMORY.md:1-2"),
        ("get", "--date", "2026-11-30"),
        ("tags", "--add", "nginx"),
    ],
    ids=" ".join,
)
def test_json_is_one_object_on_stdout(cli: CliRunner, root: Path, command: tuple[str, ...]) -> None:
    if command[0] == "get" and command[1] == "--date":
        cli("--root", str(root), "--now", "2026-11-30T10:00:00+01:00", "remember", "zeta event",
            "--kind", "event")  # fmt: skip
    result = cli("--root", str(root), "--now", "2026-11-30T10:00:00+01:00", *command, "--json")
    assert result.exit_code == 0, result.stderr
    assert isinstance(json.loads(result.stdout), dict)


def test_bad_input_is_one_line_exit_2(cli: CliRunner, root: Path) -> None:
    for args in (
        ("remember", "x y", "--kind", "nonsense"),
        ("remember", "x y", "--kind", "hot", "--to", "MEMORY.md"),
        ("remember", "x y", "--to", "memory/working-buffer.md"),
        ("remember", "x y", "--kind", "howto:../escape"),
        ("replace", "a", "b", "--in", "memory/semantic/nope.md"),
        ("get", "memory/semantic/nope.md"),
        ("get", "MEMORY.md:9-3"),
        ("verify",),
    ):
        result = cli("--root", str(root), *args)
        assert result.exit_code == 2, (args, result.stderr)
        assert result.stderr.startswith("memtier: error:") and result.stderr.count("\n") == 1


def test_verify_is_the_way_out_of_stale_files(cli: CliRunner, root: Path) -> None:
    away = ("--root", str(root), "--now", "2027-01-11T08:00:00+01:00")  # a Monday, 42 days on
    # PROTOCOL §8 step 4 v3: freshness no longer locks the review out; it says so.
    first = cli(*away, "weekly-review")
    assert first.exit_code == 0
    assert "5 WARM files not verified recently (not blocking the review)" in first.stderr
    health = cli(*away, "health-check", "--verbose")
    assert "memtier verify memory/semantic/infrastructure.md" in health.stdout
    verified = cli(*away, "verify", "--stale", "--json")
    files = json.loads(verified.stdout)["files"]
    assert {f["previous"] for f in files} == {"2026-11-30"} and len(files) == 5
    review = cli(*away, "weekly-review")
    assert review.exit_code == 0, review.stdout + review.stderr
