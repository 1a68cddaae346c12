"""Terminal views: rich tables for a person looking at a terminal.

`memtier.render.show` calls these only when stdout is a terminal and colour is
allowed (no ``NO_COLOR``, no ``TERM=dumb``); piped output keeps the plain lines
(for health-check the original script's shape, PROTOCOL §6) and ``--json`` never
changes. rich is imported here, inside each view, so no other call pays for it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from memtier.commands.stats import StatsReport
    from memtier.health.report import HealthReport

_STATUS_STYLE = {"pass": ("✅", "green"), "fail": ("❌", "bold red"), "warn": ("⚠️", "yellow")}


def _console(out: TextIO) -> Any:
    from rich.console import Console

    return Console(file=out, highlight=False, soft_wrap=False)


def health_table(report: HealthReport, out: TextIO) -> None:
    """One row per check, grouped by section, the verdict below (PROTOCOL §6)."""
    from rich.table import Table

    from memtier.health.report import HEADING, SECTIONS, VERDICT_FAILED, VERDICT_OK, section_of

    moment = report.checked_at.strftime("%Y-%m-%d %H:%M")
    table = Table(title=HEADING.format(moment=moment), title_justify="left", expand=False)
    table.add_column("", no_wrap=True)
    table.add_column("check", style="cyan", no_wrap=True)
    table.add_column("message")
    for key, title in SECTIONS:
        shown = [c for c in report.checks if section_of(c) == key]
        if not shown:
            continue
        table.add_section()
        table.add_row("", "", f"[bold]{_escape(title)}[/]")
        for check in shown:
            mark, style = _STATUS_STYLE.get(check.status, ("", ""))
            message = _escape(check.message)
            under = check.under(verbose=report.verbose)
            message += "".join(f"\n[dim]{_escape(line)}[/]" for line in under)
            table.add_row(mark, check.id, f"[{style}]{message}[/]" if style else message)
    console = _console(out)
    console.print(table)
    if report.ok:
        console.print(f"[green]{VERDICT_OK}[/]")
    else:
        console.print(f"[bold red]{VERDICT_FAILED}[/]")


def stats_table(report: StatsReport, out: TextIO) -> None:
    """Files, lines and bytes per tier as a table, then the buffer, tags and notes."""
    from rich.table import Table

    from memtier.workspace import TIERS

    table = Table(title="memtier stats", title_justify="left")
    table.add_column("tier", style="cyan")
    for name in ("files", "lines", "bytes"):
        table.add_column(name, justify="right")
    for name in TIERS:
        tier = report.tiers[name]
        table.add_row(name.upper(), str(tier.files), str(tier.lines), str(tier.bytes))
    total = report.total
    table.add_section()
    table.add_row("total", str(total.files), str(total.lines), str(total.bytes), style="bold")
    console = _console(out)
    console.print(table)
    for line in list(report.text_lines())[len(TIERS) + 3 :]:
        console.print(_escape(line))


def _escape(text: str) -> str:
    from rich.markup import escape

    return escape(text)
