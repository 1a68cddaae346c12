"""Maintenance commands: `archive`, `weekly-review`, `cron`, `learn`, `candidates`, `promote`."""

from __future__ import annotations

import shlex
import shutil
import sys
from pathlib import Path
from typing import Annotated

import typer

from memtier.cli import invocation
from memtier.cli._app import app, command
from memtier.cli._text import text_argument, text_option
from memtier.cli.invocation import open_workspace, show, user_path


@command(app, "archive")
def archive_command(
    kind: Annotated[
        str,
        typer.Argument(help="What to archive: episodic, learnings or all.", show_default=True),
    ] = "all",
    days: Annotated[
        int | None,
        typer.Option(
            "--days",
            help="Age limit in days (default: episodic_ttl_days / learnings_ttl_days, 30).",
            show_default=False,
        ),
    ] = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Print what would move; change nothing.")
    ] = False,
) -> int:
    """Move old daily notes and stray .learnings files to memory/archive/ (never deletes).

    Episodic notes age by the date in their name, learnings files by their
    modification time; a learnings file with a line ending in #pinned stays, and
    ERRORS.md, LEARNINGS.md and FEATURE_REQUESTS.md never move. A taken name in
    the archive is kept and the newcomer stored as <name>.1.md.
    """
    from memtier.commands.archive import archive

    return show(archive(open_workspace(), kind.lower(), days, dry_run))


@command(app, "learn")
def learn_command(
    kind: Annotated[str, typer.Argument(help="error, learning or feature.")],
    text: Annotated[list[str], text_argument("The lesson (several words are joined by spaces).")],
    pin: Annotated[
        bool, typer.Option("--pin", help="End the line with #pinned (exempt from archival).")
    ] = False,
) -> int:
    """Append '- YYYY-MM-DD TEXT' to ERRORS.md, LEARNINGS.md or FEATURE_REQUESTS.md.

    Newlines in TEXT are folded into spaces (an entry is one line) and secrets are
    redacted. A lesson already standing in another SCRATCH file is refused (exit 1);
    repeating it in the same file is allowed: that is how recurrence is counted.
    """
    return invocation.learn(kind, text, pin)


@command(app, "candidates")
def candidates_command() -> int:
    """List every [PROMOTE-CANDIDATE] line of .learnings/ with its file and line number."""
    from memtier.commands.recurrence import find_candidates

    return show(find_candidates(open_workspace()))


@command(app, "promote")
def promote_command(
    text: Annotated[
        list[str],
        text_argument(
            "The lesson: its number as 'memtier candidates' lists it, its text, "
            "or the start of exactly one lesson's text."
        ),
    ],
    to: Annotated[
        Path,
        typer.Option(
            "--to",
            help="WARM file to copy it into: memory/semantic/<name>.md or "
            "memory/procedural/<topic>.md (a new procedural file is created).",
            show_default=False,
        ),
    ],
    as_text: Annotated[
        str | None,
        text_option("--as", help="Write the lesson as this advice instead of the raw line."),
    ] = None,
    yes: Annotated[
        bool, typer.Option("--yes", help="Apply; without it only the plan is shown.")
    ] = False,
) -> int:
    """Copy an approved lesson into its one WARM home and clear its [PROMOTE-CANDIDATE] flag.

    TEXT is a candidate's number, or text compared after normalisation (date, case,
    punctuation, spacing and flags ignored); a unique start of a lesson is enough.
    With --yes the lesson is appended to the target, the target's last_verified
    becomes today and the flag leaves the source line. Refused (exit 1) when the
    same fact already stands in another WARM file.
    """
    from memtier.commands.learnings import promote

    ws = open_workspace()
    return show(promote(ws, " ".join(text), user_path(ws.root, to), yes, as_text))


def _memtier_command() -> str:
    """The absolute command that starts this memtier, for a schedule to run."""
    from memtier.binaries import find_binary

    found = find_binary("memtier")
    if found:
        return shlex.quote(str(Path(found).absolute()))
    return f"{shlex.quote(sys.executable)} -m memtier"


@command(app, "cron")
def cron_command(
    install: Annotated[
        bool,
        typer.Option(
            "--install", help="Add the lines to your crontab (once; reruns change nothing)."
        ),
    ] = False,
) -> int:
    """Print the crontab lines: the weekly review (Monday 09:00) and the daily flush (11:00).

    Output goes to memory/weekly-review.log and memory/daily-flush.log. Without a
    crontab program, prints the lines and equivalent systemd user timers instead.
    """
    from memtier.commands.cron import schedule_review

    ws = open_workspace()
    return show(schedule_review(ws, _memtier_command(), shutil.which("crontab"), install))


@command(app, "weekly-review")
def weekly_review_command() -> int:
    """Run the weekly maintenance: gates, health check, archival, recurrence, closure block.

    Non-interactive and safe beside a live session (it takes the workspace lock).
    A live or oversized working buffer defers the review (a line in today's note,
    exit 0); a failing health check stops it (exit 1, nothing changed). A week
    with nothing to do prints 'No meaningful changes' and changes nothing.
    """
    from memtier.commands.review import weekly_review

    return show(weekly_review(open_workspace()))
