"""memtier.commands.facts.edits: replace, retire and verify one fact file (PROTOCOL §10)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from memtier.commands.facts.edits import replace_fact, retire_fact, stale_files, verify_files
from memtier.commands.facts.files import RETIRED_LOG, DuplicateFactError, MatchError
from memtier.errors import InputError
from memtier.workspace import Workspace
from tests.conftest import NOW

INFRA = "memory/semantic/infrastructure.md"


def _infra(ws: Workspace, *facts: str, verified: str = "2026-11-01") -> None:
    head = f"# Infrastructure\n#tags: networking, ssh\n> last_verified: {verified}\n\n"
    (ws.root / INFRA).write_text(head + "".join(f"{f}\n" for f in facts))


def _lines(ws: Workspace) -> list[str]:
    return (ws.root / INFRA).read_text().split("\n")


def test_replace_keeps_the_bullet_refreshes_the_date_and_logs_the_old_line(ws: Workspace) -> None:
    _infra(ws, "  - [ ] nas01 at 10.0.0.5", "- router at 10.0.0.1")
    result = replace_fact(ws, "10.0.0.5", "nas01 at 10.0.0.9", in_file=INFRA)
    assert (result.line, result.old, result.new) == (
        5,
        "- [ ] nas01 at 10.0.0.5",
        "- [ ] nas01 at 10.0.0.9",
    )
    assert _lines(ws)[4] == "  - [ ] nas01 at 10.0.0.9"
    assert _lines(ws)[2] == "> last_verified: 2026-11-30"
    log = (ws.root / RETIRED_LOG).read_text()
    assert f"- 2026-11-30 {INFRA}:5 replaced: [ ] nas01 at 10.0.0.5 — now: nas01 at 10.0.0.9" in log


def test_replace_refuses_a_new_text_that_already_stands_elsewhere(ws: Workspace) -> None:
    _infra(ws, "- nas01 at 10.0.0.5", "- router at 10.0.0.1 in the rack")
    before = (ws.root / INFRA).read_bytes()
    with pytest.raises(DuplicateFactError):
        replace_fact(ws, "nas01", "router at 10.0.0.1 in the rack", in_file=INFRA)
    assert (ws.root / INFRA).read_bytes() == before
    assert not (ws.root / RETIRED_LOG).exists()


def test_replacing_a_line_with_its_own_text_is_not_a_duplicate_of_itself(ws: Workspace) -> None:
    _infra(ws, "- nas01 at 10.0.0.5")
    replace_fact(ws, "nas01", "nas01 at 10.0.0.5", in_file=INFRA, reason="checked")
    assert _lines(ws)[4] == "- nas01 at 10.0.0.5"


def test_retire_removes_the_line_and_keeps_the_verified_date(ws: Workspace) -> None:
    _infra(ws, "- nas01 at 10.0.0.5", "- router")
    result = retire_fact(ws, "nas01", in_file=INFRA, reason="sold")
    assert result.line == 5
    assert "- nas01 at 10.0.0.5" not in _lines(ws) and "- router" in _lines(ws)
    assert _lines(ws)[2] == "> last_verified: 2026-11-01"
    assert (
        (ws.root / RETIRED_LOG).read_text().rstrip().endswith("retired: nas01 at 10.0.0.5 — sold")
    )


def test_an_ambiguous_or_missing_old_changes_nothing(ws: Workspace) -> None:
    _infra(ws, "- nas01", "- nas02")
    before = (ws.root / INFRA).read_bytes()
    with pytest.raises(MatchError, match="matches 2 lines"):
        retire_fact(ws, "nas", in_file=INFRA, reason="x")
    with pytest.raises(InputError, match="no such file"):
        retire_fact(ws, "x", in_file="memory/semantic/missing.md", reason="x")
    assert (ws.root / INFRA).read_bytes() == before


def test_verify_stale_sets_today_on_the_stale_files_only(ws: Workspace) -> None:
    old = (NOW - timedelta(days=ws.config.warm_max_age_days + 5)).date().isoformat()
    _infra(ws, "- nas01", verified=old)
    assert [ws.relative(p) for p in stale_files(ws)] == [INFRA]
    result = verify_files(ws, stale=True)
    assert [(f.path, f.previous, f.verified) for f in result.files] == [(INFRA, old, "2026-11-30")]
    assert stale_files(ws) == []
    assert list(verify_files(ws, stale=True).text_lines()) == ["no stale WARM file"]


def test_verify_hot_sets_both_dates_and_needs_a_target(ws: Workspace) -> None:
    result = verify_files(ws, ["MEMORY.md", "MEMORY.md"])
    assert len(result.files) == 1
    head = ws.hot.read_text().split("\n")[2:4]
    assert head == ["last_verified: 2026-11-30", "last_updated: 2026-11-30"]
    with pytest.raises(InputError, match="name the files checked"):
        verify_files(ws)
