"""Shared pieces of the reliability tests: a busy workspace, and the invariants.

The workspace `populate` builds has something for every writing command to do
(a live buffer, closed notes for today and yesterday, old notes to archive, a
stray learnings file, a recurring lesson, a promotion candidate). Every line of
content carries a token ``K<nnn>`` that occurs in it and nowhere else, so
"no line lost, none duplicated" becomes "every token is counted as often as
before". Text a command adds carries an ``N<nnn>`` token instead.
"""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
import time
from collections import Counter
from contextlib import redirect_stderr, redirect_stdout
from datetime import timedelta
from pathlib import Path

from memtier.formats.buffer import Buffer
from memtier.store import is_temp_file
from tests.conftest import NOW, NOW_TEXT, new_workspace, run_memtier

TOKEN = re.compile(r"\b[KN]\d{3}\b")
CREATED = (NOW - timedelta(hours=1)).isoformat()
RECENT = (NOW - timedelta(minutes=20)).isoformat()
STALE = (NOW - timedelta(hours=5)).isoformat()
TODAY = NOW.date().isoformat()
YESTERDAY = (NOW.date() - timedelta(days=1)).isoformat()
OLD_NOTES = ("2026-09-01", "2026-09-02", "2026-10-15")
STRAY = ".learnings/old-notes.md"
CANDIDATE = "always pin the K301 base image"


def closure(day: str, decisions: str = "started") -> str:
    return f"Updated: {day}\nDecisions: {decisions}\nSignal: none\nOpen: none\n"


def buffer_text(last_active: str = RECENT, *, tasks: int = 2) -> str:
    active = "".join(f"- task K10{n}\n" for n in range(1, tasks + 1))
    body = f"## Active Task:\n{active}\n## Notes\n- note K109 checked the mirror\n"
    return Buffer(CREATED, last_active, body).render()


def populate(folder: Path, *, last_active: str = RECENT, tasks: int = 2) -> Path:
    """A workspace that passes health-check and gives every command work to do."""
    new_workspace(folder)
    episodic = folder / "memory/episodic"
    (episodic / f"{TODAY}.md").write_text(f"# {TODAY}\n- event K001 deploy\n" + closure(TODAY))
    (episodic / f"{YESTERDAY}.md").write_text(
        f"# {YESTERDAY}\n- event K002 review\n" + closure(YESTERDAY)
    )
    for n, day in enumerate(OLD_NOTES, start=11):
        (episodic / f"{day}.md").write_text(f"# {day}\n- event K0{n} on {day}\n" + closure(day))
    (folder / "memory/working-buffer.md").write_text(buffer_text(last_active, tasks=tasks))
    learnings = folder / ".learnings"
    lesson = "- 2026-11-{:02d} restart the K201 service after an upgrade\n"
    (learnings / "ERRORS.md").write_text(
        "# Errors\n\n"
        + "".join(lesson.format(d) for d in (20, 21, 22))
        + "- 2026-11-23 the K202 mirror is slow\n"
    )
    (learnings / "LEARNINGS.md").write_text(
        f"# Learnings\n\n- 2026-11-24 {CANDIDATE} [PROMOTE-CANDIDATE]\n"
    )
    stray = folder / STRAY
    stray.write_text("# old notes\n- K401 an old stray lesson\n")
    old = (NOW - timedelta(days=60)).timestamp()
    os.utime(stray, (old, old))
    projects = folder / "memory/semantic/projects.md"
    projects.write_text(projects.read_text() + "- project K501 qdrant migration\n")
    return folder


CLOSURE_PREFIXES = ("Updated:", "Decisions:", "Signal:", "Open:")


def content_lines(text: str) -> list[str]:
    """The lines of a memory file that hold content: closure fields left out.

    Since PROTOCOL v2 a rotation merges the open tasks it moves into ``Open:``;
    that field restates lines, it is not a line of its own.
    """
    return [line for line in text.split("\n") if not line.startswith(CLOSURE_PREFIXES)]


def note_lines(folder: Path) -> set[str]:
    """Every line of every episodic note (live or archived) under *folder*."""
    found: set[str] = set()
    for sub in ("memory/episodic", "memory/archive"):
        for path in (folder / sub).rglob("*.md"):
            if path.is_file() and not path.is_symlink():
                found.update(path.read_text(encoding="utf-8", errors="replace").split("\n"))
    return found


def uncarried_lines(buffer_text: str, in_notes: set[str]) -> list[str]:
    """The buffer's lines without the tasks a mid-session rotation carried.

    PROTOCOL §5 step 5 (v3): after `rotate` an active task stands in the note's
    block and, still in hand, in the fresh buffer (later perhaps as its
    ``- [done]`` line). Like a closure field restating a task, that copy is not
    a line of its own: a task line (or its done line) whose task stands in a
    note is left out.
    """
    from memtier.formats.buffer import DONE_PREFIX, active_task_lines

    tasks = set(active_task_lines(buffer_text))
    kept: list[str] = []
    for line in content_lines(buffer_text):
        task = "- " + line[len(DONE_PREFIX) :] if line.startswith(DONE_PREFIX) else line
        if (line in tasks or line.startswith(DONE_PREFIX)) and task in in_notes:
            continue
        kept.append(line)
    return kept


def unrestated_lines(note: str, in_notes: set[str], seen_tasks: set[str]) -> list[str]:
    """A note's lines without the restatements of a carried task (PROTOCOL §5 step 5 v3).

    A task carried by a mid-session rotation stands in the next rotated block
    again (of that day's note or a later one), and once done as its ``- [done]``
    line: a task line already standing in an earlier active-task section
    (*seen_tasks*, shared across the notes), or a done line whose task
    stands in a note, restates it. (Tokens are unique per write in these tests,
    so a repeated line is a restatement, never a second write.)
    """
    from memtier.formats.buffer import DONE_PREFIX

    kept: list[str] = []
    in_tasks = False
    for line in content_lines(note):
        if line.startswith("#"):
            in_tasks = line.rstrip().endswith("Active Task:")
        elif in_tasks and line.startswith("- "):
            if line in seen_tasks:
                continue
            seen_tasks.add(line)
        if line.startswith(DONE_PREFIX) and "- " + line[len(DONE_PREFIX) :] in in_notes:
            continue
        kept.append(line)
    return kept


def counted_texts(folder: Path) -> list[str]:
    """The text of every markdown file under *folder* as the line counts see it:
    closure fields left out, and a task a mid-session rotation carried counted
    once (`uncarried_lines`, `unrestated_lines`)."""
    texts: list[str] = []
    in_notes = note_lines(folder)
    seen_tasks: set[str] = set()
    for path in sorted(folder.rglob("*.md"), key=lambda p: p.name):
        if path.is_file() and not path.is_symlink():
            text = path.read_text(encoding="utf-8", errors="replace")
            if path.name == "working-buffer.md":
                lines = uncarried_lines(text, in_notes)
            elif "episodic" in path.parts or "archive" in path.parts:
                lines = unrestated_lines(text, in_notes, seen_tasks)
            else:
                lines = content_lines(text)
            texts.append("\n".join(lines))
    return texts


def token_counts(folder: Path) -> Counter[str]:
    """How often each token occurs across every markdown file under *folder*
    (see `counted_texts`)."""
    counts: Counter[str] = Counter()
    for text in counted_texts(folder):
        counts.update(TOKEN.findall(text))
    return counts


def residue(folder: Path) -> list[str]:
    """Temporary files and protocol markers left anywhere under *folder*."""
    return sorted(
        p.relative_to(folder).as_posix()
        for p in folder.rglob("*")
        if is_temp_file(p) or p.name.endswith((".md.lock", ".md.pending"))
    )


def frozen_files(folder: Path) -> dict[str, bytes]:
    """Files no command rewrites (old notes, the stray lesson file): name → bytes."""
    found = {f"memory/episodic/{day}.md": b"" for day in OLD_NOTES} | {STRAY: b""}
    return {rel: (folder / rel).read_bytes() for rel in found if (folder / rel).is_file()}


def copies_of(folder: Path, data: bytes) -> list[str]:
    """Every file under *folder* whose bytes are exactly *data*."""
    return sorted(
        p.relative_to(folder).as_posix()
        for p in folder.rglob("*")
        if p.is_file()
        and not p.is_symlink()
        and p.stat().st_size == len(data)
        and p.read_bytes() == data
    )


def run_in_process(*args: str, input: bytes = b"") -> tuple[int, str, str]:
    """The memtier command line run in this process (the test's own thread only)."""
    from memtier.cli import run

    out, err = io.StringIO(), io.StringIO()
    saved = sys.stdin
    sys.stdin = io.TextIOWrapper(io.BytesIO(input), encoding="utf-8")
    try:
        with redirect_stdout(out), redirect_stderr(err):
            code = run(list(args))
    finally:
        sys.stdin = saved
    return code, out.getvalue(), err.getvalue()


def run_as_process(*args: str, input: bytes = b"") -> tuple[int, str, str]:
    """The memtier command line as a separate process (any thread may call it)."""
    proc = run_memtier(*args, input=input)
    return proc.returncode, proc.stdout, proc.stderr


def recover_and_check(folder: Path, *, separate: bool = False) -> list[str]:
    """`memtier session-start` then `memtier health-check`; the problems found.

    They run in this process through the CLI's entry point, or as *separate*
    processes.
    """
    runner = run_as_process if separate else run_in_process
    problems: list[str] = []
    code, _out, err = runner("session-start", "--root", str(folder), "--now", NOW_TEXT)
    if code != 0:
        problems.append(f"session-start exit {code}: {err.strip()}")
    code, out, err = runner("health-check", "--root", str(folder), "--now", NOW_TEXT)
    if code != 0:
        failed = [line for line in out.splitlines() if line.startswith("❌")]
        problems.append(f"health-check exit {code}: {failed} {err.strip()}")
    left = residue(folder)
    if left:
        problems.append(f"residue left: {left}")
    return problems


def wait_until_open(proc: subprocess.Popen[bytes], path: Path, *, limit: float = 30) -> None:
    """Return once *proc* has *path* open (polled in /proc every 2 ms): it is at work
    on it now (waiting for a lock file, reading a source). Fails if *proc* ends first,
    or has not opened it within *limit* seconds."""
    target = os.path.realpath(path)
    fds = Path(f"/proc/{proc.pid}/fd")
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        assert proc.poll() is None, (f"ended before it opened {path}", proc.communicate())
        try:
            if any(os.path.realpath(fd) == target for fd in fds.iterdir()):
                return
        except OSError:
            pass  # a descriptor closed while we looked
        time.sleep(0.002)
    raise AssertionError(f"the process never opened {path}")
