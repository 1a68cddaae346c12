"""No credential reaches disk through any command that writes a person's text (PROTOCOL §3).

For each writing command: a token in its text is replaced by
``[REDACTED:<RULE>]`` in the file, the secret stands in no file of the
workspace, and the command's output (stdout and stderr) names the rule and
never the secret. The token is glued together at run time so that this file
holds none.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import NOW_TEXT, CliResult, CliRunner
from tests.reliability.reliability_support import TODAY, populate

SECRET = "gh" + "p_" + "a1B2" * 9
RULE = "GITHUB_TOKEN"
PLACEHOLDER = f"[REDACTED:{RULE}]"
NOTE = f"memory/episodic/{TODAY}.md"


@pytest.fixture
def ws_root(tmp_path: Path) -> Path:
    return populate(tmp_path / "ws")


def _run(cli: CliRunner, root: Path, *args: str, input: bytes = b"") -> CliResult:
    result = cli(*args, "--root", str(root), "--now", NOW_TEXT, input=input)
    assert result.exit_code == 0, result.stderr
    return result


def assert_redacted(root: Path, result: CliResult, *files: str) -> None:
    """The secret is nowhere on disk or in the output; the rule is named; *files* hold it."""
    for path in root.rglob("*"):
        if path.is_file():
            assert SECRET.encode() not in path.read_bytes(), path
    for rel in files:
        assert PLACEHOLDER in (root / rel).read_text(), rel
    assert SECRET not in result.stdout + result.stderr
    assert RULE in result.stderr


@pytest.mark.parametrize(
    ("args", "file"),
    [
        (("buffer", "task", f"rotate the token {SECRET} tonight"), "memory/working-buffer.md"),
        (("buffer", "note", f"token was {SECRET}"), "memory/working-buffer.md"),
        (("episodic", "append", f"leaked {SECRET} in a log"), NOTE),
        (
            (
                "episodic",
                "close",
                "--decisions",
                f"revoked {SECRET}",
                "--signal",
                "s",
                "--open",
                "o",
            ),
            NOTE,
        ),
        (
            ("episodic", "append", f"multi\nline {SECRET}\ntext", "--date", "2026-11-28"),
            "memory/episodic/2026-11-28.md",
        ),
        (("learn", "error", f"pushed {SECRET} to the repo"), ".learnings/ERRORS.md"),
        (
            ("learn", "feature", f"detect {SECRET} earlier", "--pin"),
            ".learnings/FEATURE_REQUESTS.md",
        ),
    ],
    ids=[
        "buffer-task",
        "buffer-note",
        "episodic-append",
        "episodic-close",
        "append-other-day",
        "learn",
        "learn-pin",
    ],
)
def test_text_argument_is_redacted(
    cli: CliRunner, ws_root: Path, args: tuple[str, ...], file: str
) -> None:
    assert_redacted(ws_root, _run(cli, ws_root, *args), file)


def test_json_output_names_the_rule_not_the_secret(cli: CliRunner, ws_root: Path) -> None:
    result = _run(cli, ws_root, "buffer", "note", f"token {SECRET}", "--json")
    payload = json.loads(result.stdout)
    assert payload["redacted"] == {RULE: 1}
    assert_redacted(ws_root, result, "memory/working-buffer.md")


def test_atomic_write_stdin_is_redacted(cli: CliRunner, ws_root: Path) -> None:
    target = ws_root / "memory/semantic/infrastructure.md"
    text = target.read_text() + f"- deploy key {SECRET}\n"
    result = _run(cli, ws_root, "atomic-write", str(target), input=text.encode())
    assert_redacted(ws_root, result, "memory/semantic/infrastructure.md")


def test_buffer_done_keeps_the_redacted_task(cli: CliRunner, ws_root: Path) -> None:
    _run(cli, ws_root, "buffer", "task", f"revoke {SECRET}")
    result = _run(cli, ws_root, "buffer", "done", "revoke")
    buffer = (ws_root / "memory/working-buffer.md").read_text()
    assert f"- [done] revoke {PLACEHOLDER}" in buffer
    assert SECRET not in result.stdout + result.stderr + buffer


def test_promote_redacts_a_secret_a_person_left_in_scratch(cli: CliRunner, ws_root: Path) -> None:
    learnings = ws_root / ".learnings/LEARNINGS.md"
    learnings.write_text(
        learnings.read_text()
        + f"- 2026-11-25 use the token {SECRET} for the mirror [PROMOTE-CANDIDATE]\n"
    )
    lesson = f"use the token {SECRET} for the mirror"
    result = cli(
        "promote",
        lesson,
        "--to",
        "memory/procedural/mirrors.md",
        "--yes",
        "--root",
        str(ws_root),
        "--now",
        NOW_TEXT,
    )
    assert result.exit_code == 0, result.stderr
    target = (ws_root / "memory/procedural/mirrors.md").read_text()
    assert f"use the token {PLACEHOLDER} for the mirror" in target
    assert SECRET not in target
    # The argument itself carried the secret; the output never repeats it.
    assert SECRET not in result.stdout + result.stderr


def test_search_query_is_redacted_in_the_log(cli: CliRunner, ws_root: Path) -> None:
    result = _run(cli, ws_root, "search", f"mirror {SECRET}")
    log = ws_root / "memory/.searches.jsonl"
    assert PLACEHOLDER in log.read_text()
    assert_redacted(ws_root, result)


def test_rotation_moves_a_redacted_buffer_without_adding_secrets(
    cli: CliRunner, ws_root: Path
) -> None:
    _run(cli, ws_root, "buffer", "note", f"token {SECRET}")
    _run(cli, ws_root, "rotate")
    assert PLACEHOLDER in (ws_root / NOTE).read_text()
    for path in ws_root.rglob("*.md"):
        assert SECRET not in path.read_text(), path


def test_every_rule_is_redacted_through_a_real_write(cli: CliRunner, ws_root: Path) -> None:
    from tests.test_secrets import CASES

    for rule, (text, secret, _expected) in CASES.items():
        # "--" ends the options: a private key block starts with dashes.
        result = cli("episodic", "append", "--root", str(ws_root), "--now", NOW_TEXT, "--", text)
        assert result.exit_code == 0, result.stderr
        note = (ws_root / NOTE).read_text()
        assert secret not in note, rule
        assert f"[REDACTED:{rule}]" in note, rule
        assert rule in result.stderr, rule
        assert secret not in result.stdout + result.stderr, rule


@pytest.mark.parametrize(
    "args",
    [
        ("buffer", "done", f"the task {SECRET}"),
        ("episodic", "append", f"-{SECRET}"),
        ("learn", "nonsense", f"text {SECRET}"),
        ("promote", f"no such lesson {SECRET}", "--to", "memory/semantic/decisions.md"),
    ],
    ids=["no-match", "unknown-option", "bad-kind", "promote-unknown"],
)
def test_error_messages_never_repeat_a_secret(
    cli: CliRunner, ws_root: Path, args: tuple[str, ...]
) -> None:
    result = cli(*args, "--root", str(ws_root), "--now", NOW_TEXT)
    assert result.exit_code != 0
    assert result.stderr.startswith("memtier: error:")
    assert SECRET not in result.stdout + result.stderr
