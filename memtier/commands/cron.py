"""`memtier cron`: schedule the weekly review, Monday 09:00 (PROTOCOL §8, §9), and the
daily flush, every day at 11:00 (PROTOCOL §13, v3).

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

from memtier.errors import InputError, RefusedError
from memtier.results import Result, fixed
from memtier.workspace import Workspace

SCHEDULE = "0 9 * * 1"
LOG_NAME = "weekly-review.log"
UNIT_NAME = "memtier-weekly-review"
# PROTOCOL §13 (v3): the daily flush beside the weekly review.
FLUSH_SCHEDULE = "0 11 * * *"
FLUSH_LOG_NAME = "daily-flush.log"
FLUSH_UNIT_NAME = "memtier-daily-flush"


def _review_args(ws: Workspace) -> str:
    return f"--root {shlex.quote(str(ws.root))} weekly-review"


def _flush_args(ws: Workspace) -> str:
    return f"--root {shlex.quote(str(ws.root))} flush"


def _refuse_line_breaks(ws: Workspace, command: str) -> None:
    """A crontab entry and a unit's ExecStart are one line each: a line break in the
    root or the command would end the entry and start another (a second, foreign
    crontab line). No quoting can carry it, so it is refused."""
    for what, text in (("workspace path", str(ws.root)), ("memtier command", command)):
        if any(ch in text for ch in "\n\r") or any(ord(ch) < 0x20 for ch in text):
            raise InputError(
                f"the {what} holds a line break or control character; a schedule line "
                "cannot carry it (move or rename the folder); nothing installed"
            )


def _cron_escape(text: str) -> str:
    """cron turns an unescaped ``%`` into a line break of the command's stdin."""
    return text.replace("%", "\\%")


def review_command(ws: Workspace, command: str) -> str:
    """The shell command the schedule runs, with its output appended to the log."""
    log = shlex.quote(str(ws.memory_dir / LOG_NAME))
    return f"{command} {_review_args(ws)} >> {log} 2>&1"


def flush_command(ws: Workspace, command: str) -> str:
    log = shlex.quote(str(ws.memory_dir / FLUSH_LOG_NAME))
    return f"{command} {_flush_args(ws)} >> {log} 2>&1"


def flush_cron_line(ws: Workspace, command: str) -> str:
    """``0 11 * * * <memtier> --root <root> flush >> <root>/memory/daily-flush.log 2>&1``."""
    _refuse_line_breaks(ws, command)
    return f"{FLUSH_SCHEDULE} {_cron_escape(flush_command(ws, command))}"


def cron_line(ws: Workspace, command: str) -> str:
    """``0 9 * * 1 <memtier> --root <root> weekly-review >> <root>/memory/… 2>&1``."""
    _refuse_line_breaks(ws, command)
    return f"{SCHEDULE} {_cron_escape(review_command(ws, command))}"


def systemd_units(ws: Workspace, command: str) -> dict[str, str]:
    """User timer + service pairs doing what the crontab lines do."""
    _refuse_line_breaks(ws, command)
    units = _units(
        ws, UNIT_NAME, "weekly review", review_command(ws, command), "Mon *-*-* 09:00:00"
    )
    daily = _units(ws, FLUSH_UNIT_NAME, "daily flush", flush_command(ws, command), "*-*-* 11:00:00")
    return {**units, **daily}


def _units(ws: Workspace, unit: str, what: str, shell: str, calendar: str) -> dict[str, str]:
    description = f"memtier {what} of {ws.root}".replace("%", "%%")
    service = (
        "[Unit]\n"
        f"Description={description}\n\n"
        "[Service]\n"
        "Type=oneshot\n"
        # systemd expands "%" specifiers in unit files: "%%" is a literal one.
        f"ExecStart=/bin/sh -c {shlex.quote(shell).replace('%', '%%')}\n"
    )
    timer = (
        "[Unit]\n"
        f"Description={description}\n\n"
        "[Timer]\n"
        f"OnCalendar={calendar}\n"
        "Persistent=true\n\n"
        "[Install]\n"
        "WantedBy=timers.target\n"
    )
    return {f"{unit}.service": service, f"{unit}.timer": timer}


def removal_hint(ws: Workspace) -> str:
    pattern = shlex.quote(_cron_escape(_review_args(ws)))
    flush = shlex.quote(_cron_escape(_flush_args(ws)))
    return f"crontab -l | grep -vF -e {pattern} -e {flush} | crontab -"


@dataclass(frozen=True)
class CronResult(Result):
    line: str
    crontab: bool
    install: bool
    installed: bool = False
    already_installed: bool = False
    existing: str | None = None
    systemd: dict[str, str] | None = None
    remove: str | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)
    flush_line: str = ""  # PROTOCOL §13: the daily flush, beside the weekly line

    @property
    def notices(self) -> tuple[str, ...]:
        return self.notes

    # "text": the crontab line ("line" is a line number in every command).
    JSON_NAMES = fixed(line="text", flush_line="flush")
    JSON_OMIT = frozenset({"install", "notes", "systemd"})

    def json_extra(self) -> dict[str, Any]:
        return {"systemd": dict(self.systemd) if self.systemd else None}

    def text_lines(self) -> Iterable[str]:
        yield self.line
        if self.flush_line:
            yield self.flush_line
        if self.installed:
            yield "✅ Installed in your crontab (Monday 09:00; daily flush 11:00)."
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
                f"{UNIT_NAME}.timer {FLUSH_UNIT_NAME}.timer"
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
    """Print, or install once, the weekly-review and daily-flush schedule."""
    line = cron_line(ws, command)
    daily = flush_cron_line(ws, command)
    if crontab is None:
        return CronResult(
            line=line,
            crontab=False,
            install=install,
            systemd=systemd_units(ws, command),
            flush_line=daily,
        )
    hint = removal_hint(ws)
    if not install:
        return CronResult(
            line=line,
            crontab=True,
            install=False,
            notes=("install it with: memtier cron --install",),
            flush_line=daily,
        )
    current = read_crontab(crontab)
    wanted = [
        (line, _cron_escape(_review_args(ws))),
        (daily, _cron_escape(_flush_args(ws))),
    ]
    live = [e for e in current.splitlines() if not e.lstrip().startswith("#")]
    found = {entry: next((e for e in live if marker in e), None) for entry, marker in wanted}
    missing = [entry for entry, existing in found.items() if existing is None]
    if not missing:
        return CronResult(
            line=line,
            crontab=True,
            install=True,
            already_installed=True,
            existing=found[line],
            remove=hint,
            flush_line=daily,
        )
    new = current if not current or current.endswith("\n") else current + "\n"
    done = _run([crontab, "-"], stdin=new + "".join(entry + "\n" for entry in missing))
    if done.returncode != 0:
        reason = (done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[0]
        raise RefusedError(f"crontab refused the new table ({reason})")
    return CronResult(
        line=line, crontab=True, install=True, installed=True, remove=hint, flush_line=daily
    )
