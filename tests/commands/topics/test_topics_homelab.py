"""Two months of a home-lab agent, three topics, consolidated by the daily flush (PROTOCOL §13)."""

from __future__ import annotations

from pathlib import Path

import pytest

from memtier.health.report import run_health_check
from memtier.workspace import Workspace
from tests.commands.topics import topics_homelab as homelab
from tests.conftest import new_workspace

pytestmark = pytest.mark.slow  # about 60 days of real writes, each fsynced


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> tuple[Workspace, dict[str, list[str]]]:
    root = new_workspace(tmp_path_factory.mktemp("lab") / "ws")
    days = homelab.build(root)
    return Workspace.open(root, homelab.end_of_scenario()), days


def _notes(root: Path) -> int:
    live = list((root / "memory/episodic").glob("*.md"))
    return len(live) + len(list((root / "memory/archive").rglob("20*.md")))


def test_two_months_become_chained_generations(lab: tuple[Workspace, dict[str, list[str]]]) -> None:
    ws, days = lab
    assert _notes(ws.root) >= 40 and list((ws.root / "memory/archive").rglob("20*.md"))
    names = sorted(p.name for p in ws.consolidated_dir.glob("*.md"))
    for slug in days:
        assert sum(name.startswith(f"{slug}-gen") for name in names) >= 2, slug
    report = run_health_check(ws)
    assert report.ok, [c.message for c in report.failed]


def test_every_kept_line_stands_verbatim_at_its_cited_place(
    lab: tuple[Workspace, dict[str, list[str]]],
) -> None:
    ws, _ = lab
    checked, wrong = homelab.check_citations(ws)
    assert checked > 100 and wrong == []


def test_recall_is_a_fraction_of_reading_the_notes(
    lab: tuple[Workspace, dict[str, list[str]]],
) -> None:
    ws, _ = lab
    figures = homelab.recall_figures(ws)
    assert set(figures) == {t.slug for t in homelab.TOPICS}
    for slug, row in figures.items():
        assert 0 < row["recall_chars"] <= 8000, slug
        assert row["recall_chars"] < row["notes_chars"], (slug, row)
