"""Core fact commands (PROTOCOL §10): remember, replace, retire, verify, get."""

from __future__ import annotations

from datetime import date, timedelta
from pathlib import Path

import pytest

from memtier.commands.facts.remember import (
    ROUTING_NOTE,
    DuplicateFactError,
    MatchError,
    get_lines,
    remember,
    replace_fact,
    retire_fact,
    verify_files,
)
from memtier.errors import ConfinementError, InputError, RefusedError
from memtier.workspace import Workspace
from tests.conftest import CliRunner

INFRA = "memory/semantic/infrastructure.md"


def lines_of(root: Path, rel: str) -> list[str]:
    return (root / rel).read_text(encoding="utf-8").split("\n")


def later(ws: Workspace, days: int) -> Workspace:
    return Workspace(ws.root, ws.now + timedelta(days=days), ws.config)


# -- remember ----------------------------------------------------------------


def test_remember_kind_appends_one_line_and_refreshes_last_verified(ws: Workspace) -> None:
    ws2 = later(ws, 3)
    result = remember(ws2, "qdrant runs on 10.0.0.7:6334", kind="infrastructure")
    lines = lines_of(ws.root, INFRA)
    assert result.file == INFRA
    assert lines[result.line - 1] == "- qdrant runs on 10.0.0.7:6334"
    assert lines[2] == "> last_verified: 2026-12-03"
    assert result.to_json()["line"] == result.line


def test_remember_leading_bullet_is_not_doubled(ws: Workspace) -> None:
    result = remember(ws, "- nas01 runs Ubuntu", kind="infrastructure")
    assert result.text == "- nas01 runs Ubuntu"


@pytest.mark.parametrize(
    ("kind", "home"),
    [
        ("preference", "memory/semantic/preferences.md"),
        ("project", "memory/semantic/projects.md"),
        ("decision", "memory/semantic/decisions.md"),
        ("lesson", "memory/procedural/lessons-learned.md"),
        ("hot", "MEMORY.md"),
    ],
)
def test_every_kind_has_its_home(ws: Workspace, kind: str, home: str) -> None:
    result = remember(ws, f"a fact of kind {kind} zebra", kind=kind)
    assert result.file == home
    assert f"- a fact of kind {kind} zebra" in lines_of(ws.root, home)


def test_remember_hot_refreshes_both_dates(ws: Workspace) -> None:
    remember(later(ws, 2), "deploys need a ticket", kind="hot")
    lines = lines_of(ws.root, "MEMORY.md")
    assert lines[2:4] == ["last_verified: 2026-12-02", "last_updated: 2026-12-02"]


def test_remember_section_is_created_then_reused(ws: Workspace) -> None:
    remember(ws, "nas01 at 10.0.0.2", kind="infrastructure", section="Hosts")
    remember(ws, "qdrant on port 6334", kind="infrastructure", section="Services")
    result = remember(ws, "router at 10.0.0.1", kind="infrastructure", section="hosts")
    lines = lines_of(ws.root, INFRA)
    hosts = lines.index("## Hosts")
    assert lines[hosts + 1 : hosts + 3] == ["- nas01 at 10.0.0.2", "- router at 10.0.0.1"]
    assert result.line == hosts + 3
    assert lines.index("## Services") > hosts


def test_howto_block_keeps_fences_and_creates_a_valid_warm_file(ws: Workspace) -> None:
    block = "Restore a snapshot:\n```bash\nrestic -r /srv/backup restore latest --target /\n```\n"
    result = remember(ws, block, kind="howto:restic", tags=["backup"])
    text = (ws.root / "memory/procedural/restic.md").read_text(encoding="utf-8")
    assert result.created
    assert text.startswith("# Restic\n#tags: backup\n> last_verified: 2026-11-30\n")
    assert "```bash\nrestic -r /srv/backup restore latest --target /\n```\n" in text
    from memtier.health.report import run_health_check as run_health

    report = run_health(ws)
    assert report.ok, [c.message for c in report.checks if c.status == "fail"]


def test_unknown_tag_is_refused_listing_the_allowed_ones(ws: Workspace) -> None:
    with pytest.raises(InputError) as err:
        remember(ws, "restic prune weekly", kind="howto:restic", tags=["restic"])
    assert "restic" in err.value.message and "backup" in err.value.message
    assert not (ws.root / "memory/procedural/restic.md").exists()


def test_no_kind_no_to_goes_to_todays_note_with_a_routing_note(ws: Workspace) -> None:
    result = remember(ws, "the printer jams on duplex")
    note = lines_of(ws.root, "memory/episodic/2026-11-30.md")
    assert result.routing_note
    assert note[0] == "# 2026-11-30"
    at = note.index("- the printer jams on duplex")
    # PROTOCOL §2 (v4): a paragraph of that list item, never run into its text.
    assert note[at + 1 : at + 3] == ["", "  " + ROUTING_NOTE]
    from memtier.formats.episodic import closure_problem

    assert closure_problem("\n".join(note)) is None


def test_event_goes_to_todays_note(ws: Workspace) -> None:
    result = remember(ws, "moved qdrant to host b", kind="event")
    assert result.file == "memory/episodic/2026-11-30.md"
    assert not result.routing_note


def test_kind_and_to_together_is_an_input_error(ws: Workspace) -> None:
    with pytest.raises(InputError):
        remember(ws, "x y z", kind="hot", to="MEMORY.md")


def test_to_outside_the_workspace_is_refused(ws: Workspace, tmp_path: Path) -> None:
    with pytest.raises(ConfinementError):
        remember(ws, "x y z", to=tmp_path / "elsewhere.md")
    with pytest.raises(InputError):
        remember(ws, "x y z", to="memory/episodic/2026-11-30.md")


def test_secrets_are_redacted_before_anything_is_written(ws: Workspace) -> None:
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    result = remember(ws, f"deploy token is {token}", kind="infrastructure")
    assert token not in (ws.root / INFRA).read_text(encoding="utf-8")
    assert result.redacted


# -- duplicates ----------------------------------------------------------------


def test_exact_duplicate_after_normalisation_is_refused_naming_file_line(ws: Workspace) -> None:
    first = remember(ws, "qdrant runs on 10.0.0.7:6334", kind="infrastructure")
    with pytest.raises(DuplicateFactError) as err:
        remember(ws, "Qdrant runs on 10.0.0.7 6334!", kind="hot")
    assert f"{INFRA}:{first.line}" in err.value.message
    assert "memtier replace" in err.value.message
    assert err.value.exit_code == 1


def test_near_duplicate_is_refused_across_tiers(ws: Workspace) -> None:
    remember(ws, "the nightly backup runs at 02:00 on nas01 with restic to b2", kind="hot")
    with pytest.raises(DuplicateFactError) as err:
        remember(ws, "nightly backup runs at 02:00 on nas01 with restic to b2", kind="decision")
    assert err.value.file == "MEMORY.md"
    assert err.value.score >= 0.85


def test_different_fact_sharing_words_is_accepted(ws: Workspace) -> None:
    remember(ws, "qdrant runs on 10.0.0.7:6334", kind="infrastructure")
    remember(ws, "qdrant runs on 10.0.0.8:6334", kind="infrastructure")


# -- HOT cap --------------------------------------------------------------------


def test_hot_cap_is_refused_with_count_and_advice(ws: Workspace) -> None:
    count = len(lines_of(ws.root, "MEMORY.md")) - 1
    for n in range(ws.config.hot_max_lines - count):
        remember(ws, f"hot fact number {n} about topic{n}", kind="hot")
    before = (ws.root / "MEMORY.md").read_bytes()
    with pytest.raises(RefusedError) as err:
        remember(ws, "one fact too many for the hot file", kind="hot")
    assert "61 lines" in err.value.message and "60" in err.value.message
    assert "memtier retire" in err.value.message and "WARM" in err.value.message
    assert (ws.root / "MEMORY.md").read_bytes() == before


# -- replace / retire ------------------------------------------------------------


def test_replace_changes_the_one_line_and_logs_the_old(ws: Workspace) -> None:
    first = remember(ws, "qdrant runs on 10.0.0.7:6334", kind="infrastructure")
    ws2 = later(ws, 1)
    result = replace_fact(
        ws2, "10.0.0.7", "qdrant runs on 10.0.0.9:6334", in_file=INFRA, reason="moved host"
    )
    lines = lines_of(ws.root, INFRA)
    assert lines[first.line - 1] == "- qdrant runs on 10.0.0.9:6334"
    assert lines[2] == "> last_verified: 2026-12-01"
    log = (ws.root / "memory/archive/retired.md").read_text(encoding="utf-8")
    assert (
        f"- 2026-12-01 {INFRA}:{first.line} replaced: qdrant runs on 10.0.0.7:6334 — moved host"
        in log
    )
    assert result.line == first.line


def test_replace_with_zero_or_several_matches_lists_them(ws: Workspace) -> None:
    remember(ws, "qdrant runs on 10.0.0.7", kind="infrastructure")
    remember(ws, "synapse runs on 10.0.0.7 too", kind="infrastructure")
    with pytest.raises(MatchError) as err:
        replace_fact(ws, "10.0.0.7", "x", in_file=INFRA)
    assert len(err.value.matches) == 2 and err.value.exit_code == 1
    for number, _text in err.value.matches:
        assert f"{number}: " in err.value.message
    with pytest.raises(MatchError):
        retire_fact(ws, "no such text", in_file=INFRA, reason="r")


def test_header_lines_are_out_of_reach(ws: Workspace) -> None:
    before = (ws.root / INFRA).read_bytes()
    with pytest.raises(MatchError) as err:
        retire_fact(ws, "last_verified", in_file=INFRA, reason="r")
    assert "header" in err.value.message
    with pytest.raises(MatchError):
        replace_fact(ws, "#tags:", "x", in_file="MEMORY.md")
    assert (ws.root / INFRA).read_bytes() == before


def test_retire_removes_the_line_and_logs_it(ws: Workspace) -> None:
    first = remember(ws, "old vpn on port 1194", kind="infrastructure")
    result = retire_fact(ws, "old vpn", in_file=INFRA, reason="vpn decommissioned")
    assert "- old vpn on port 1194" not in lines_of(ws.root, INFRA)
    log = lines_of(ws.root, "memory/archive/retired.md")
    entry = f"- 2026-11-30 {INFRA}:{first.line} retired: old vpn on port 1194 — vpn decommissioned"
    assert entry in log
    assert result.old == "- old vpn on port 1194"


def test_replace_refuses_a_new_text_that_duplicates_another_line(ws: Workspace) -> None:
    remember(ws, "alpha service on port 1", kind="infrastructure")
    remember(ws, "beta service on port 2", kind="infrastructure")
    with pytest.raises(DuplicateFactError):
        replace_fact(ws, "beta", "alpha service on port 1", in_file=INFRA)
    # replacing a line by a corrected version of itself is not a duplicate of itself
    replace_fact(ws, "beta", "beta service on port 22", in_file=INFRA)


# -- verify ------------------------------------------------------------------------


def test_verify_stale_refreshes_only_stale_files_and_prints_previous(ws: Workspace) -> None:
    ws2 = later(ws, 40)
    remember(ws2, "a fresh project fact", kind="project")
    result = verify_files(ws2, stale=True)
    paths = [f.path for f in result.files]
    assert "memory/semantic/projects.md" not in paths
    assert INFRA in paths
    assert all(f.previous == "2026-11-30" for f in result.files)
    assert "was 2026-11-30" in "\n".join(result.text_lines())
    from memtier.health.report import run_health_check as run_health

    assert run_health(ws2).ok


def test_verify_named_file(ws: Workspace) -> None:
    result = verify_files(later(ws, 5), [INFRA])
    assert result.files[0].previous == "2026-11-30"
    assert lines_of(ws.root, INFRA)[2] == "> last_verified: 2026-12-05"
    with pytest.raises(InputError):
        verify_files(ws)


# -- get ---------------------------------------------------------------------------


def test_get_is_bounded_and_says_where_to_go_next(ws: Workspace) -> None:
    body = "\n".join(f"line {n}" for n in range(1, 501)) + "\n"
    (ws.root / "memory/semantic/big.md").write_text(body, encoding="utf-8")
    result = get_lines(ws, "memory/semantic/big.md")
    assert len(result.lines) == 200 and result.truncated
    assert result.next == "memory/semantic/big.md:201-400"
    assert list(result.text_lines())[-1] == "truncated; next: memory/semantic/big.md:201-400"
    part = get_lines(ws, "memory/semantic/big.md", from_line=450, to_line=460, max_lines=5)
    assert part.lines[0] == "line 450" and part.next == "memory/semantic/big.md:455-459"
    last = get_lines(ws, "memory/semantic/big.md", from_line=498)
    assert not last.truncated and last.lines == ("line 498", "line 499", "line 500")


def test_get_date_finds_an_archived_day(ws: Workspace) -> None:
    folder = ws.root / "memory/archive/2026/09"
    folder.mkdir(parents=True)
    (folder / "2026-09-01.md").write_text("# 2026-09-01\n\nold day\n", encoding="utf-8")
    result = get_lines(ws, "", date=date(2026, 9, 1))
    assert result.path == "memory/archive/2026/09/2026-09-01.md"
    assert result.archived and result.lines[2] == "old day"
    with pytest.raises(InputError):
        get_lines(ws, "", date=date(2026, 9, 2))


def test_get_is_confined(ws: Workspace, tmp_path: Path) -> None:
    (tmp_path / "secret.md").write_text("x\n", encoding="utf-8")
    with pytest.raises(ConfinementError):
        get_lines(ws, str(tmp_path / "secret.md"))
    import os

    os.mkfifo(ws.root / "memory/semantic/fifo.md")
    with pytest.raises(InputError):
        get_lines(ws, "memory/semantic/fifo.md")


def test_results_are_frozen() -> None:
    from dataclasses import FrozenInstanceError

    from memtier.commands.facts.remember import RememberResult

    result = RememberResult(file="f", line=1, text="t", kind=None)
    with pytest.raises(FrozenInstanceError):
        result.line = 2  # type: ignore[misc]


def test_episodic_show_of_an_archived_day_says_where_it_went(cli: CliRunner, root: Path) -> None:
    folder = root / "memory/archive/2026/09"
    folder.mkdir(parents=True)
    (folder / "2026-09-01.md").write_text("# 2026-09-01\n\nold day\n", encoding="utf-8")
    shown = cli("--root", str(root), "episodic", "show", "--date", "2026-09-01")
    assert shown.exit_code == 0
    assert "old day" in shown.stdout
    assert "memory/archive/2026/09/2026-09-01.md" in shown.stderr
    missing = cli("--root", str(root), "episodic", "show", "--date", "2026-09-02")
    assert missing.exit_code == 2 and "no episodic note" in missing.stderr


# -- facts compared as people read them (issue 19) -----------------------------


@pytest.mark.parametrize(
    "disguised",
    [
        "ｑdrant runs on 10.0.0.7:6334",  # fullwidth q
        "qdrant ru\u200bns on 10.0.0.7:6334",  # zero-width space
        "qdr\u0430nt runs \u043en 10.0.0.7:6334",  # Cyrillic a, o
        "qdrant runs on 10.0.0.7:6334\u200f",  # right-to-left mark
    ],
)
def test_a_disguised_fact_is_a_duplicate(ws: Workspace, disguised: str) -> None:
    remember(ws, "qdrant runs on 10.0.0.7:6334", kind="infrastructure")
    before = (ws.root / INFRA).read_bytes()
    with pytest.raises(DuplicateFactError) as refused:
        remember(ws, disguised, kind="hot")
    assert refused.value.score == 1.0
    assert (ws.root / INFRA).read_bytes() == before


def test_a_decomposed_accent_is_the_same_fact(ws: Workspace) -> None:
    import unicodedata

    remember(ws, "the café printer is at 10.0.0.9", kind="infrastructure")
    with pytest.raises(DuplicateFactError):
        remember(ws, unicodedata.normalize("NFD", "the café printer is at 10.0.0.9"), kind="hot")


def test_a_disguised_near_duplicate_is_refused_too(ws: Workspace) -> None:
    remember(ws, "nightly backup runs at 02:00 on nas01 with restic to b2", kind="decision")
    with pytest.raises(DuplicateFactError) as refused:
        remember(ws, "the nightly b\u0430ckup runs at 02:00 on n\u0430s01 with restic to b2",
                 kind="decision")  # fmt: skip
    assert 0.85 <= refused.value.score < 1.0


@pytest.mark.parametrize("text", ["---", "\u200b", "* * *", "- \u200d"])
def test_a_fact_must_hold_a_letter_or_digit(ws: Workspace, text: str) -> None:
    before = (ws.root / INFRA).read_bytes()
    for _ in range(2):
        with pytest.raises(InputError, match="letter or digit"):
            remember(ws, text, kind="infrastructure")
    assert (ws.root / INFRA).read_bytes() == before
    remember(ws, "router at 10.0.0.1", kind="infrastructure", section="Hosts")
    with pytest.raises(InputError, match="letter or digit"):
        replace_fact(ws, "router at", text, in_file=INFRA)


def test_replace_and_retire_never_match_a_heading(ws: Workspace) -> None:
    remember(ws, "keep it simple", kind="hot", section="Always true")
    hot = ws.root / "MEMORY.md"
    before = hot.read_bytes()
    with pytest.raises(MatchError, match="heading"):
        retire_fact(ws, "## Always true", in_file="MEMORY.md", reason="x")
    with pytest.raises(MatchError, match="heading"):
        replace_fact(ws, "Always true", "Sometimes true", in_file="MEMORY.md")
    assert hot.read_bytes() == before
    # "Always" stands on the heading and on a fact: only the fact matches.
    remember(ws, "Always ask before a reboot", kind="hot")
    done = retire_fact(ws, "Always", in_file="MEMORY.md", reason="obsolete")
    assert done.old == "- Always ask before a reboot"
    assert "## Always true" in hot.read_text(encoding="utf-8")


def test_every_face_refuses_a_disguised_duplicate(cli: CliRunner, root: Path) -> None:
    base = ("--root", str(root))
    assert cli(*base, "remember", "qdrant runs on 10.0.0.7:6334", "--kind", "hot").exit_code == 0
    again = cli(*base, "remember", "qdr\u0430nt runs on 10.0.0.7:6334", "--kind", "decision")
    assert again.exit_code == 1 and "already stands" in again.stderr
    empty = cli(*base, "remember", "\u200b", "--kind", "decision")
    assert empty.exit_code == 2 and "letter or digit" in empty.stderr
    kept = cli(*base, "remember", "keep it simple", "--kind", "hot", "--section", "Always true")
    assert kept.exit_code == 0
    heading = cli(*base, "retire", "## Always true", "--in", "MEMORY.md", "--reason", "x")
    assert heading.exit_code == 1 and "heading" in heading.stderr
    assert "## Always true" in (root / "MEMORY.md").read_text(encoding="utf-8")
