"""`memtier cron`: schedule the weekly review, Monday 09:00 (PROTOCOL §8, §9).

The line runs the absolute memtier command for this workspace's absolute root
and appends its output to ``memory/weekly-review.log``. ``--install`` adds it to
the user's crontab through ``crontab -l`` / ``crontab -`` once: a line that
already runs the weekly review for this root counts as installed. Where no
``crontab`` program exists, the line and an equivalent systemd user timer are
printed instead, so the person can choose.

The CLI finds the memtier command and the ``crontab`` program (this module
never reads the environment) and passes them in.
"""

from __future__ import annotations

import shlex
import subprocess
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from memtier.errors import RefusedError
from memtier.workspace import Workspace

SCHEDULE = "0 9 * * 1"
LOG_NAME = "weekly-review.log"
UNIT_NAME = "memtier-weekly-review"


def _review_args(ws: Workspace) -> str:
    return f"--root {shlex.quote(str(ws.root))} weekly-review"


def review_command(ws: Workspace, command: str) -> str:
    """The shell command the schedule runs, with its output appended to the log."""
    log = shlex.quote(str(ws.memory_dir / LOG_NAME))
    return f"{command} {_review_args(ws)} >> {log} 2>&1"


def cron_line(ws: Workspace, command: str) -> str:
    """``0 9 * * 1 <memtier> --root <root> weekly-review >> <root>/memory/… 2>&1``."""
    return f"{SCHEDULE} {review_command(ws, command)}"


def systemd_units(ws: Workspace, command: str) -> dict[str, str]:
    """A user timer + service pair doing what the crontab line does."""
    description = f"memtier weekly review of {ws.root}"
    service = (
        "[Unit]\n"
        f"Description={description}\n\n"
        "[Service]\n"
        "Type=oneshot\n"
        f"ExecStart=/bin/sh -c {shlex.quote(review_command(ws, command))}\n"
    )
    timer = (
        "[Unit]\n"
        f"Description={description}\n\n"
        "[Timer]\n"
        "OnCalendar=Mon *-*-* 09:00:00\n"
        "Persistent=true\n\n"
        "[Install]\n"
        "WantedBy=timers.target\n"
    )
    return {f"{UNIT_NAME}.service": service, f"{UNIT_NAME}.timer": timer}


def removal_hint(ws: Workspace) -> str:
    pattern = shlex.quote(_review_args(ws))
    return f"crontab -l | grep -vF -- {pattern} | crontab -"


@dataclass(frozen=True)
class CronResult:
    line: str
    crontab: bool
    install: bool
    installed: bool = False
    already_installed: bool = False
    existing: str | None = None
    systemd: dict[str, str] | None = None
    remove: str | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def notices(self) -> tuple[str, ...]:
        return self.notes

    def to_json(self) -> dict[str, Any]:
        return {
            # "text": the crontab line ("line" is a line number in every command).
            "text": self.line,
            "crontab": self.crontab,
            "installed": self.installed,
            "already_installed": self.already_installed,
            "existing": self.existing,
            "systemd": dict(self.systemd) if self.systemd else None,
            "remove": self.remove,
        }

    def text_lines(self) -> Iterable[str]:
        yield self.line
        if self.installed:
            yield "✅ Installed in your crontab (Monday 09:00)."
        elif self.already_installed:
            yield "Already in your crontab; nothing changed."
            if self.existing and self.existing != self.line:
                yield f"  existing line: {self.existing}"
        if self.remove and (self.installed or self.already_installed):
            yield f"To remove it: {self.remove}"
        if self.systemd:
            yield ""
            yield "No crontab program found. A systemd user timer does the same:"
            for name, text in self.systemd.items():
                yield f"# ~/.config/systemd/user/{name}"
                yield from text.rstrip("\n").split("\n")
                yield ""
            yield "Then: systemctl --user daemon-reload && systemctl --user enable --now " + (
                f"{UNIT_NAME}.timer"
            )


def _run(args: list[str], stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(
            args, input=stdin, capture_output=True, text=True, timeout=30, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise RefusedError(f"cannot run {args[0]}: {exc}; nothing installed") from None


def read_crontab(crontab: str) -> str:
    """The user's crontab; empty when they have none. Any other failure refuses."""
    done = _run([crontab, "-l"])
    if done.returncode == 0:
        return done.stdout
    if "no crontab" in done.stderr.lower():
        return ""
    reason = (done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[0]
    # Installing after a failed read would replace the person's crontab with ours.
    raise RefusedError(f"crontab -l failed ({reason}); nothing installed")


def schedule_review(
    ws: Workspace, command: str, crontab: str | None, install: bool = False
) -> CronResult:
    """Print, or install once, the weekly-review schedule."""
    line = cron_line(ws, command)
    if crontab is None:
        return CronResult(
            line=line, crontab=False, install=install, systemd=systemd_units(ws, command)
        )
    hint = removal_hint(ws)
    if not install:
        return CronResult(
            line=line,
            crontab=True,
            install=False,
            notes=("install it with: memtier cron --install",),
        )
    current = read_crontab(crontab)
    marker = _review_args(ws)
    for existing in current.splitlines():
        if not existing.lstrip().startswith("#") and marker in existing:
            return CronResult(
                line=line,
                crontab=True,
                install=True,
                already_installed=True,
                existing=existing,
                remove=hint,
            )
    new = current if not current or current.endswith("\n") else current + "\n"
    done = _run([crontab, "-"], stdin=new + line + "\n")
    if done.returncode != 0:
        reason = (done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[0]
        raise RefusedError(f"crontab refused the new table ({reason})")
    return CronResult(line=line, crontab=True, install=True, installed=True, remove=hint)
