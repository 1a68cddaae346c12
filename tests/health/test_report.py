"""memtier.health.report: the health-check report, its sections and verdict (PROTOCOL §6)."""

from __future__ import annotations

from memtier.health.report import (
    HEADING,
    VERDICT_FAILED,
    VERDICT_OK,
    HealthReport,
    run_health_check,
    section_of,
)
from memtier.health.verdict import FAIL, PASS, WARN, Check
from memtier.workspace import Workspace
from tests.conftest import NOW


def test_section_of() -> None:
    assert section_of(Check("tags", PASS, "MEMORY.md", "")) == "hot"
    assert section_of(Check("tags", PASS, "memory/semantic/a.md", "")) == "warm"
    assert section_of(Check("episodic.today", PASS, None, "")) == "cold"
    assert section_of(Check("residue.temp", PASS, None, "")) == "residue"
    assert section_of(Check("buffer.header", PASS, None, "")) == "buffer"


def test_warnings_never_change_the_verdict() -> None:
    report = HealthReport((Check("hot.size", WARN, "MEMORY.md", "long"),), NOW)
    assert report.ok and report.failure is None
    assert report.warned == report.checks
    assert list(report.text_lines())[-1] == VERDICT_OK


def test_a_failure_ends_in_exit_1_with_the_report_already_shown() -> None:
    report = HealthReport(
        (Check("hot.header", FAIL, "MEMORY.md", "bad", fix=("memtier verify",)),), NOW
    )
    assert not report.ok
    failure = report.failure
    assert failure is not None and failure.shown and failure.exit_code == 1
    lines = list(report.text_lines())
    assert lines[0] == HEADING.format(moment="2026-11-30 10:00")
    assert "--- HOT: MEMORY.md ---" in lines
    assert "❌ bad" in lines and "     memtier verify" in lines
    assert lines[-1] == VERDICT_FAILED
    assert report.to_json() == {"ok": False, "checks": [report.checks[0].to_json()]}


def test_sections_follow_the_fixed_order_and_empty_ones_are_left_out() -> None:
    report = HealthReport(
        (Check("buffer.header", PASS, None, "b"), Check("hot.header", PASS, None, "h")), NOW
    )
    titles = [line for line in report.text_lines() if line.startswith("---")]
    assert titles == ["--- HOT: MEMORY.md ---", "--- BUFFER: memory/working-buffer.md ---"]


def test_a_fresh_workspace_passes(ws: Workspace) -> None:
    report = run_health_check(ws)
    assert report.ok, [c.message for c in report.failed]
    assert report.checked_at == NOW
    assert any(c.id == "secrets" and c.status == PASS for c in report.checks)
