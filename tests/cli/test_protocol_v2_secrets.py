"""PROTOCOL §3 (v2), checked through the command line: user text is never echoed or
written unredacted, in any output, file, folder name or the search log; a credential
that already stands in a file is not copied elsewhere; confined reads say so.

Each case here was a deviation found by a conformance audit; the fix lives in the
module that owns the rule (named in each test's docstring).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import NOW_TEXT, CliResult, CliRunner

TOKEN = "gh" + "p_" + "a1B2" * 9
SPLIT = "password:\nhunter2hunter2xyz"  # a credential that only shows once folded
SECRET_PARTS = ("a1B2a1B2", "hunter2hunter2")


def mt(cli: CliRunner, root: Path, *args: str, input: str = "") -> CliResult:
    return cli("--root", str(root), "--now", NOW_TEXT, *args, input=input)


def leaks(*texts: str) -> bool:
    return any(part in text for text in texts for part in SECRET_PARTS)


def files_holding_a_secret(root: Path) -> list[str]:
    return [
        path.relative_to(root).as_posix()
        for path in sorted(root.rglob("*"))
        if path.is_file() and leaks(path.read_text(errors="replace"))
    ]


def test_a_section_heading_is_redacted_before_and_after_folding(cli: CliRunner, root: Path) -> None:
    """commands/facts.remember: --section is text written to disk (§3, §10)."""
    for section in (SPLIT, TOKEN):
        result = mt(
            cli, root, "remember", f"fact under {section[:4]}", "--kind", "project",
            "--section", section, "--json",
        )  # fmt: skip
        assert result.exit_code == 0, result.stderr
        assert not leaks(result.stdout, result.stderr)
        data = json.loads(result.stdout)
        assert "[REDACTED:" in data["section"] and "\n" not in data["section"]
        assert data["redacted"], data
        assert "memtier: redacted 1 secret(s):" in result.stderr
    text = (root / "memory/semantic/projects.md").read_text()
    assert "## password: [REDACTED:PASSWORD_ASSIGNMENT]\n" in text
    assert "## [REDACTED:GITHUB_TOKEN]\n" in text
    assert files_holding_a_secret(root) == []


def test_the_same_section_is_found_again_once_redacted(cli: CliRunner, root: Path) -> None:
    args = ("--kind", "project", "--section", TOKEN)
    assert mt(cli, root, "remember", "first fact here", *args).exit_code == 0
    assert mt(cli, root, "remember", "second fact there", *args).exit_code == 0
    text = (root / "memory/semantic/projects.md").read_text()
    assert text.count("## [REDACTED:GITHUB_TOKEN]") == 1
    assert "- first fact here\n- second fact there\n" in text


def test_a_capture_channel_is_folded_and_redacted(cli: CliRunner, root: Path) -> None:
    """commands/transfer_capture: the channel is echoed and labels the note (§3 v2, §12)."""
    message = "remember this: the decision is to move the gateway tonight"
    result = mt(cli, root, "capture", "--channel", SPLIT, "--json", message)
    assert result.exit_code == 0, result.stderr
    assert not leaks(result.stdout, result.stderr)
    data = json.loads(result.stdout)
    assert data["kept"] is True
    assert data["channel"] == "password: [REDACTED:PASSWORD_ASSIGNMENT]"
    assert data["redacted"] == {"PASSWORD_ASSIGNMENT": 1}
    assert files_holding_a_secret(root) == []


def test_the_search_log_never_keeps_a_split_credential(cli: CliRunner, root: Path) -> None:
    """search/log.record_search: the log is printed back (§3 v2 names it)."""
    assert mt(cli, root, "search", SPLIT).exit_code == 0
    log = (root / "memory/.searches.jsonl").read_text()
    assert not leaks(log)
    assert "[REDACTED:PASSWORD_ASSIGNMENT]" in log
    for args in (("recent-searches",), ("recent-searches", "--json")):
        shown = mt(cli, root, *args)
        assert shown.exit_code == 0, shown.stderr
        assert not leaks(shown.stdout, shown.stderr)


def test_a_tag_that_is_a_credential_is_refused(cli: CliRunner, root: Path) -> None:
    """commands/tags.add_tags: a tag goes to memtier.toml and into every report."""
    before = (root / "memory/memtier.toml").read_bytes()
    result = mt(cli, root, "tags", "--add", TOKEN)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr == (
        "memtier: error: --add: refusing a tag that holds a secret (GITHUB_TOKEN)\n"
    )
    assert (root / "memory/memtier.toml").read_bytes() == before


def test_init_never_creates_a_folder_named_after_a_credential(
    cli: CliRunner, tmp_path: Path
) -> None:
    """commands/init.init_workspace: a folder name is named by §3 v2."""
    target = tmp_path / TOKEN
    result = cli("--now", NOW_TEXT, "init", "--root", str(target))
    assert result.exit_code == 2
    assert not leaks(result.stdout, result.stderr)
    assert result.stderr.startswith("memtier: error: ")
    assert result.stderr.count("\n") == 1
    assert not target.exists()


@pytest.fixture
def secret_in_a_file(root: Path) -> Callable[[str], Path]:
    """A credential someone typed into a WARM file by hand (health-check flags it)."""

    def put(rel: str) -> Path:
        path = root / rel
        with path.open("a") as handle:
            handle.write(f"- deploy token {TOKEN} for ci\n")
        return path

    return put


@pytest.mark.parametrize(
    ("command", "verb"),
    [
        (("retire", "deploy token", "--reason", "leaked"), "retired"),
        (("replace", "deploy token", "deploy token rotated, kept in the vault"), "replaced"),
    ],
)
def test_retiring_a_line_does_not_copy_its_credential_into_the_archive(
    cli: CliRunner,
    root: Path,
    secret_in_a_file: Callable[[str], Path],
    command: tuple[str, ...],
    verb: str,
) -> None:
    """commands/fact_files.log_retirement and fact_edits: the archive is not scanned by
    health-check, so a credential copied there would be hidden, not removed (§3, §10)."""
    rel = "memory/semantic/projects.md"
    secret_in_a_file(rel)
    human = mt(cli, root, *command, "--in", rel)
    assert human.exit_code == 0, human.stderr
    assert not leaks(human.stdout, human.stderr)
    assert "memtier: redacted 1 secret(s): GITHUB_TOKEN" in human.stderr
    log = (root / "memory/archive/retired.md").read_text().splitlines()
    assert log[-1].startswith(
        f"- 2026-11-30 {rel}:6 {verb}: deploy token [REDACTED:GITHUB_TOKEN] for ci — "
    )
    assert files_holding_a_secret(root) == []


def test_retire_json_echoes_the_old_line_redacted(
    cli: CliRunner, root: Path, secret_in_a_file: Callable[[str], Path]
) -> None:
    rel = "memory/semantic/infrastructure.md"
    secret_in_a_file(rel)
    result = mt(cli, root, "retire", "deploy", "--in", rel, "--reason", "gone", "--json")
    data = json.loads(result.stdout)
    assert data["old"] == "- deploy token [REDACTED:GITHUB_TOKEN] for ci"
    assert data["redacted"] == {"GITHUB_TOKEN": 1}


@pytest.mark.parametrize(
    "args",
    [
        ("get", "/etc/hostname"),
        ("get", "../outside.md"),
        ("verify", "../outside.md"),
    ],
)
def test_a_confined_read_is_refused_without_claiming_a_write(
    cli: CliRunner, root: Path, args: tuple[str, ...]
) -> None:
    """store.confine: reads are confined too (§3 v2); the message fits both."""
    result = mt(cli, root, *args)
    assert result.exit_code == 2
    assert result.stderr.startswith("memtier: error: ")
    assert "outside the workspace root" in result.stderr
    assert "refusing to write" not in result.stderr


@pytest.mark.parametrize(
    "args",
    [
        ("buffer", "done", TOKEN),
        ("get", f"memory/{TOKEN}.md"),
        ("replace", TOKEN, "x", "--in", "memory/semantic/projects.md"),
        ("retire", "w0", "--in", "memory/semantic/projects.md", "--reason", SPLIT),
        ("remember", "x", "--kind", f"howto:{TOKEN}"),
        ("remember", "x", "--to", f"memory/semantic/{TOKEN}.md"),
        ("episodic", "append", "x", "--date", TOKEN),
        ("import", "brain", f"/nonexistent/{TOKEN}.jsonl"),
        ("export", "--tier", TOKEN),
        ("capture", "--channel", TOKEN, "short"),
        ("learn", "bogus", TOKEN),
        ("archive", "--days", TOKEN),
    ],
)
def test_user_text_in_a_refusal_or_usage_error_is_redacted(
    cli: CliRunner, root: Path, args: tuple[str, ...]
) -> None:
    result = mt(cli, root, *args)
    assert not leaks(result.stdout, result.stderr), (result.stdout, result.stderr)
    assert files_holding_a_secret(root) == []
