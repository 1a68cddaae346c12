"""The learnings loop: normalisation, learn, candidates, promote (PROTOCOL §2, §9)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memtier.commands.learnings import learn, normalise_lesson, promote
from memtier.commands.recurrence import find_candidates
from memtier.errors import InputError, RefusedError
from memtier.workspace import Workspace
from tests.conftest import NOW, CliRunner

Snapshot = Callable[[Path], dict[str, bytes]]


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("- 2026-11-30 Docker restart loop", "docker restart loop"),
        ("- 2026-11-30T09:15:00+01:00 Docker  restart\tloop", "docker restart loop"),
        ("-   2026-01-02   DOCKER restart loop [PROMOTE-CANDIDATE]", "docker restart loop"),
        ("- docker restart loop #pinned", "docker restart loop"),
        ("- docker restart loop [PROMOTE-CANDIDATE] #pinned", "docker restart loop"),
        ("- docker restart loop #pinned [PROMOTE-CANDIDATE]", "docker restart loop"),
        ("- 2026-11-30", ""),
        ("- 2026-11-30x is not a date", "2026 11 30x is not a date"),
        ("- uses #pinned: in the middle", "uses pinned in the middle"),
        # PROTOCOL §10: punctuation folds like the duplicate check's, so these meet.
        ("- 2026-11-30 rate limit !", "rate limit"),
        ("- 2026-11-30 Rate-limit", "rate limit"),
    ],
)
def test_normalise_lesson(line: str, expected: str) -> None:
    assert normalise_lesson(line) == expected


@given(st.text(alphabet="abc XYZ\t#[]-", max_size=30))
def test_normalise_ignores_date_flags_case_and_spacing(text: str) -> None:
    base = normalise_lesson(f"- 2026-11-30 {text}")
    assert normalise_lesson(f"-  2025-01-01T08:00:00Z  {text.upper()}  [PROMOTE-CANDIDATE]") == (
        normalise_lesson(f"- 2025-01-01 {text.upper()}")
    )
    assert normalise_lesson(f"- 2026-11-30 {text} [PROMOTE-CANDIDATE]") == base
    assert "  " not in base and base == base.lower()


def test_learn_appends_a_dated_line(ws: Workspace) -> None:
    result = learn(ws, "error", "apt mirror\ntimed out", pin=True)
    text = ws.errors_file.read_text()
    assert text.endswith("- 2026-11-30 apt mirror timed out #pinned\n")
    assert result.line == text.count("\n")
    assert result.file == ".learnings/ERRORS.md"


def test_learn_refuses_a_lesson_standing_in_another_file(ws: Workspace) -> None:
    learn(ws, "learning", "Always pin the base image")
    before = ws.errors_file.read_bytes()
    with pytest.raises(RefusedError) as caught:
        learn(ws, "error", "always  PIN the base image [PROMOTE-CANDIDATE]")
    assert ".learnings/LEARNINGS.md:2" in caught.value.message
    assert ws.errors_file.read_bytes() == before


def test_learn_allows_a_repeat_in_the_same_file(ws: Workspace) -> None:
    learn(ws, "error", "apt mirror slow")
    second = learn(ws, "error", "Apt mirror slow")
    assert second.occurrences == 2
    assert ws.errors_file.read_text().count("irror slow") == 2


def test_learn_redacts_secrets_and_says_which_rule(cli: CliRunner, root: Path) -> None:
    secret = "ghp_" + "a1B2c3D4e5" * 4
    result = cli("learn", "feature", "token", "leaked:", secret, "--root", str(root))
    assert result.exit_code == 0
    text = (root / ".learnings/FEATURE_REQUESTS.md").read_text()
    assert secret not in text and "[REDACTED:GITHUB_TOKEN]" in text
    assert "GITHUB_TOKEN" in result.stderr and secret not in result.stderr + result.stdout


def test_learn_keeps_crlf_and_creates_a_missing_file(ws: Workspace) -> None:
    ws.errors_file.write_bytes(b"# Errors\r\n- 2026-01-01 old\r\n")
    learn(ws, "error", "new")
    assert ws.errors_file.read_bytes() == b"# Errors\r\n- 2026-01-01 old\r\n- 2026-11-30 new\r\n"
    (ws.learnings_dir / "LEARNINGS.md").unlink()
    learn(ws, "learning", "fresh")
    assert (ws.learnings_dir / "LEARNINGS.md").read_text().endswith("- 2026-11-30 fresh\n")


@pytest.mark.parametrize(
    ("kind", "text"), [("mistake", "x"), ("error", "   "), ("error", "#pinned")]
)
def test_learn_bad_input(ws: Workspace, kind: str, text: str) -> None:
    with pytest.raises(InputError):
        learn(ws, kind, text)


def test_cli_learn_cross_file_duplicate_is_exit_1(cli: CliRunner, root: Path) -> None:
    assert cli("learn", "error", "disk full", "--root", str(root)).exit_code == 0
    result = cli("learn", "learning", "Disk full", "--root", str(root))
    assert result.exit_code == 1
    assert ".learnings/ERRORS.md:2" in result.stderr


def flagged_workspace(ws: Workspace) -> None:
    ws.errors_file.write_text(
        "# Errors\n"
        "- 2026-11-01 Restart coturn after cert renewal [PROMOTE-CANDIDATE]\n"
        "- 2026-11-02 restart coturn after cert renewal\n"
        "- 2026-11-03 keep this one #pinned\n"
    )
    (ws.learnings_dir / "LEARNINGS.md").write_text(
        "# Learnings\n- 2026-11-04 Back up qdrant first [PROMOTE-CANDIDATE] #pinned\n"
    )


def test_candidates_lists_file_and_line(ws: Workspace) -> None:
    flagged_workspace(ws)
    result = find_candidates(ws)
    assert [(c.file, c.line) for c in result.candidates] == [
        (".learnings/ERRORS.md", 2),
        (".learnings/LEARNINGS.md", 2),
    ]
    assert result.candidates[1].lesson == "Back up qdrant first"
    payload = result.to_json()
    assert set(payload) == {"count", "candidates"}
    assert set(payload["candidates"][0]) == {"number", "file", "line", "text", "lesson"}


def test_cli_candidates(cli: CliRunner, root: Path) -> None:
    none = cli("candidates", "--root", str(root))
    assert none.stdout == "No promotion candidates\n"
    flagged_workspace(Workspace.open(root, NOW))
    shown = cli("candidates", "--json", "--root", str(root))
    assert json.loads(shown.stdout)["count"] == 2


def test_promote_dry_run_changes_nothing(ws: Workspace, root: Path, snapshot: Snapshot) -> None:
    flagged_workspace(ws)
    before = snapshot(root)
    target = ws.procedural_dir / "lessons-learned.md"
    plan = promote(ws, "restart coturn after cert renewal", target)
    assert snapshot(root) == before
    assert not plan.applied and plan.flag_removed and plan.source_line == 2
    assert "Run again with --yes" in "\n".join(plan.text_lines())


def test_promote_yes_appends_refreshes_and_removes_the_flag(ws: Workspace) -> None:
    flagged_workspace(ws)
    target = ws.procedural_dir / "lessons-learned.md"
    target.write_text(target.read_text().replace("2026-11-30", "2026-10-01"))
    result = promote(ws, "Restart COTURN after cert renewal", target, yes=True)
    assert result.applied
    text = target.read_text()
    assert "> last_verified: 2026-11-30\n" in text
    assert text.endswith("- Restart coturn after cert renewal\n")
    errors = ws.errors_file.read_text().split("\n")
    # The flag gives way to [PROMOTED]: the review never flags the lesson again.
    assert errors[1] == "- 2026-11-01 Restart coturn after cert renewal [PROMOTED]"
    assert "[PROMOTE-CANDIDATE]" not in ws.errors_file.read_text()
    # Again: already there, not duplicated.
    again = promote(ws, "restart coturn after cert renewal", target, yes=True)
    assert again.already_present and target.read_text().count("Restart coturn") == 1


def test_promote_keeps_pinned_last_when_removing_the_flag(ws: Workspace) -> None:
    flagged_workspace(ws)
    promote(ws, "back up qdrant first", ws.semantic_dir / "decisions.md", yes=True)
    assert (
        (ws.learnings_dir / "LEARNINGS.md")
        .read_text()
        .endswith("- 2026-11-04 Back up qdrant first [PROMOTED] #pinned\n")
    )


def test_promote_refuses_a_second_home(ws: Workspace, root: Path, snapshot: Snapshot) -> None:
    flagged_workspace(ws)
    decisions = ws.semantic_dir / "decisions.md"
    decisions.write_text(decisions.read_text() + "- restart coturn after  cert renewal\n")
    before = snapshot(root)
    with pytest.raises(RefusedError) as caught:
        promote(ws, "restart coturn after cert renewal", ws.procedural_dir / "coturn.md", yes=True)
    assert "memory/semantic/decisions.md:6" in caught.value.message
    assert snapshot(root) == before


def test_promote_creates_a_procedural_file_with_a_valid_header(ws: Workspace) -> None:
    flagged_workspace(ws)
    target = ws.procedural_dir / "coturn-troubleshooting.md"
    result = promote(ws, "restart coturn after cert renewal", target, yes=True)
    assert result.created
    lines = target.read_text().split("\n")
    assert lines[:3] == [
        "# Coturn troubleshooting",
        "#tags: coturn, troubleshooting",
        "> last_verified: 2026-11-30",
    ]


@pytest.mark.parametrize(
    "target",
    [
        "../outside.md",
        "MEMORY.md",
        "memory/episodic/2026-11-30.md",
        "memory/semantic/new-file.md",
        "memory/semantic/sub/deep.md",
        "memory/procedural/notes.txt",
    ],
)
def test_promote_target_must_be_a_warm_file(ws: Workspace, target: str) -> None:
    flagged_workspace(ws)
    with pytest.raises(InputError):
        promote(ws, "restart coturn after cert renewal", ws.root / target, yes=True)


def test_promote_unknown_lesson_is_an_input_error(ws: Workspace) -> None:
    flagged_workspace(ws)
    with pytest.raises(InputError):
        promote(ws, "never written down", ws.semantic_dir / "decisions.md")


def test_cli_promote_relative_to_root_and_yes(cli: CliRunner, root: Path) -> None:
    flagged_workspace(Workspace.open(root, NOW))
    args = ("--to", "memory/semantic/decisions.md", "--root", str(root), "--now", NOW.isoformat())
    plan = cli("promote", "back up qdrant first", *args)
    assert plan.exit_code == 0 and plan.stdout.startswith("Would promote: Back up qdrant first")
    done = cli("promote", "back", "up", "qdrant", "first", *args, "--yes", "--json")
    assert done.exit_code == 0
    payload = json.loads(done.stdout)
    assert payload["applied"] is True and payload["flag_removed"] is True
    assert set(payload) == {
        "applied", "lesson", "source", "target", "created", "already_present", "flag_removed",
    }  # fmt: skip
    assert payload["target"] == "memory/semantic/decisions.md"
