"""The file checks of PROTOCOL §6, one function per group, each returning `Check`s.

Every function only reads. A file that cannot be read as text (a directory in
its place, no permission, not UTF-8, binary) fails the check that needed it
with ``<file> — unreadable: <why>`` instead of raising.
"""

from __future__ import annotations

import os
import re
from contextlib import nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memtier import store
from memtier.clock import parse_day
from memtier.errors import InputError, Term
from memtier.formats.tags import is_tag_line, parse_tag_line
from memtier.health.verdict import FAIL, PASS, WARN, Check, Fix
from memtier.workspace import WARM_DIRS, Workspace, is_workspace

if TYPE_CHECKING:
    from memtier.store.reading import Reading

HOT_TITLE = "# Agent Memory"
_HOT_DATE_LINE = {3: "last_verified: ", 4: "last_updated: "}
# PROTOCOL §2 (compat): the first line anywhere that matches, quoted or plain.
_LAST_VERIFIED = re.compile(r"^(> )?last_verified:(.*)$")
SKIP_DIRS = frozenset({".git"})


def exists(path: Path) -> bool:
    return os.path.lexists(path)


def load(ws: Workspace, path: Path) -> tuple[str | None, str | None]:
    """(text, None) when readable; (None, why) when not; (None, None) when absent."""
    if not exists(path):
        return None, None
    shown = ws.relative(path)
    try:
        return store.read_text(path, root=ws.root), None
    except InputError as exc:
        reason = exc.message
        if reason.startswith(shown + ": "):
            reason = reason[len(shown) + 2 :]
        return None, reason


def _numbered(lines: list[str], first: int) -> tuple[str, ...]:
    return tuple(f"line {n}: {text}" for n, text in enumerate(lines, start=first))


# -- HOT (PROTOCOL §6 hot.header, hot.size, tags) ------------------------------


def hot_header_ok(lines: list[str]) -> bool:
    if lines[0] != HOT_TITLE or not is_tag_line(lines[1]):
        return False
    for number, prefix in _HOT_DATE_LINE.items():
        line = lines[number - 1]
        if not line.startswith(prefix) or parse_day(line[len(prefix) :]) is None:
            return False
    return True


def hot_checks(ws: Workspace) -> list[Check]:
    from memtier.formats.buffer import count_lines

    rel = ws.relative(ws.hot)
    text, problem = load(ws, ws.hot)
    if problem is not None:
        return [Check("hot.header", FAIL, rel, f"{rel} — unreadable: {problem}")]
    if text is None:
        return [Check("hot.header", FAIL, rel, f"{rel} missing")]
    head = (text.split("\n", 4)[:4] + [""] * 4)[:4]
    checks: list[Check] = []
    if hot_header_ok(head):
        checks.append(Check("hot.header", PASS, rel, f"{rel} header valid"))
    else:
        detail = tuple(f"line{n}={line}" for n, line in enumerate(head, start=1))
        checks.append(Check("hot.header", FAIL, rel, f"{rel} header invalid", detail))
    limit = ws.config.hot_max_lines
    size = count_lines(text)
    if size > limit:
        message = f"{rel} — {size} lines — exceeds {limit} line limit"
        fix: Fix = (
            "fix: move facts to their WARM file (",
            Term("remember_warm"),
            "), then ",
            Term("retire", arg=rel),
            f", until at most {limit} lines",
        )
        checks.append(Check("hot.size", FAIL, rel, message, (f"at most {limit} lines",), fix))
    else:
        checks.append(Check("hot.size", PASS, rel, f"{rel} — {size} lines (limit {limit})"))
    checks.append(tags_check(ws, rel, text))
    return checks


def tags_check(ws: Workspace, rel: str, text: str) -> Check:
    """Line 2 of a HOT or WARM file against the vocabulary (PROTOCOL §2, compat)."""
    lines = text.split("\n", 2)
    line2 = lines[1] if len(lines) > 1 else ""
    tokens = parse_tag_line(line2)
    if tokens is None:
        fix: Fix = (
            "fix: line 2 must start with '#tags:' (edit it by hand; ",
            Term("tags_list"),
            " lists the tags)",
        )
        return Check("tags", FAIL, rel, f"{rel} — missing #tags:", (f"line 2: {line2}",), fix)
    invalid = list(dict.fromkeys(t for t in tokens if not ws.config.in_vocabulary(t)))
    if invalid:
        detail = (f"line 2: {line2}", "allowed tags: see 'vocabulary' in memory/memtier.toml")
        fix = (
            "fix: use tags of the vocabulary (",
            Term("tags_list"),
            "); a new tag is the person's choice: ",
            Term("tags_add_tag", arg=invalid[0]),
        )
        message = f"{rel} — invalid tag(s): {', '.join(invalid)}"
        return Check("tags", FAIL, rel, message, detail, fix)
    if not tokens:
        # PROTOCOL §2: an empty tag list passes (compat) but is worth a warning.
        return Check("tags", WARN, rel, f"{rel} — #tags: line has no tags", (f"line 2: {line2}",))
    return Check("tags", PASS, rel, f"{rel} — tags: {', '.join(tokens)}")


# -- WARM (PROTOCOL §6 tags, warm.fresh) ---------------------------------------


def warm_paths(ws: Workspace) -> list[Path]:
    """Every ``*.md`` entry of the WARM folders, directories included (they fail)."""
    found: list[Path] = []
    for name in WARM_DIRS:
        folder = ws.memory_dir / name
        if folder.is_dir():
            found.extend(sorted(folder.glob("*.md")))
    return found


def fresh_check(ws: Workspace, rel: str, text: str) -> Check:
    limit = ws.config.warm_max_age_days
    for number, line in enumerate(text.split("\n"), start=1):
        match = _LAST_VERIFIED.match(line)
        if match is None:
            continue
        day = parse_day(match.group(2).strip())
        where = f"line {number}: {line}"
        if day is None:
            message = f"{rel} — last_verified stale or invalid"
            detail = (where, "not a YYYY-MM-DD date")
            return Check("warm.fresh", FAIL, rel, message, detail, verify_hint(rel))
        age = (ws.today - day).days
        if age >= limit:
            message = f"{rel} — last_verified stale or invalid"
            why = f"{age} days old; re-verify at least every {limit} day{'' if limit == 1 else 's'}"
            return Check("warm.fresh", FAIL, rel, message, (where, why), verify_hint(rel))
        ago = f"{age} day{'' if age == 1 else 's'} ago"
        return Check("warm.fresh", PASS, rel, f"{rel} — last_verified {day} ({ago})")
    message = f"{rel} — missing last_verified"
    return Check("warm.fresh", FAIL, rel, message, fix=verify_hint(rel))


def verify_hint(rel: str) -> Fix:
    """The way out of a stale file (PROTOCOL §6 v4, §10), kept apart from the compat
    message: a stale file is verified when its facts are used, not a reason to stop."""
    return (
        "fix: when you use its facts, check them (",
        Term("get", arg=rel),
        "), then ",
        Term("verify", arg=rel),
    )


def warm_checks(ws: Workspace) -> list[Check]:
    checks: list[Check] = []
    for path in warm_paths(ws):
        rel = ws.relative(path)
        text, problem = load(ws, path)
        if text is None:
            checks.append(Check("tags", FAIL, rel, f"{rel} — unreadable: {problem or 'gone'}"))
            continue
        checks.append(tags_check(ws, rel, text))
        checks.append(fresh_check(ws, rel, text))
    return checks


# -- BUFFER (PROTOCOL §6 buffer.header, buffer.size, buffer.missing, buffer.residue) --


def buffer_checks(ws: Workspace) -> list[Check]:
    from memtier.formats.buffer import count_lines, header_problem

    rel = ws.relative(ws.buffer)
    name = ws.buffer.name
    checks: list[Check] = []
    text, problem = load(ws, ws.buffer)
    if problem is not None:
        checks.append(Check("buffer.header", FAIL, rel, f"{name} — unreadable: {problem}"))
    elif text is None:
        checks.append(Check("buffer.missing", WARN, rel, f"{name} not found"))
    else:
        head = (text.split("\n", 4)[:4] + [""] * 4)[:4]
        detail = tuple(f"line{n}={line}" for n, line in enumerate(head, start=1))
        trouble = header_problem(text)
        if trouble is not None:
            checks.append(Check("buffer.header", FAIL, rel, f"{name} — {trouble}", detail))
        else:
            checks.append(Check("buffer.header", PASS, rel, f"{name} header valid"))
        limit = ws.config.buffer_max_lines
        size = count_lines(text)
        if size > limit:
            message = f"{size} lines — exceeds {limit} line limit"
            rotate: Fix = (
                "fix: rotation is due at session end (",
                Term("session-end"),
                "), or rotate now at a natural break (",
                Term("rotate"),
                ")",
            )
            checks.append(Check("buffer.size", FAIL, rel, message, fix=rotate))
        else:
            checks.append(Check("buffer.size", PASS, rel, f"{name} — {size} lines (limit {limit})"))
    residue = [
        (ws.buffer_pending, "pending rotation file present"),
        (ws.buffer_lock, "rotation lock file present"),
    ]
    fix: Fix = ("fix: ", Term("session-start"), " (finishes or undoes the interrupted rotation)")
    present = [(p, m) for p, m in residue if exists(p)]
    for path, message in present:
        checks.append(Check("buffer.residue", FAIL, ws.relative(path), message, fix=fix))
    if not present:
        checks.append(Check("buffer.residue", PASS, None, "no rotation residue (.pending, .lock)"))
    return checks


# -- COLD (PROTOCOL §6 episodic.closure) -----------------------------------------


def episodic_checks(ws: Workspace) -> list[Check]:
    """Only today's and yesterday's notes must be closed (compat)."""
    from memtier.formats.episodic import closure_problem

    checks: list[Check] = []
    for day in (ws.today, ws.yesterday):
        path = ws.episodic_note(day)
        rel = ws.relative(path)
        text, problem = load(ws, path)
        if problem is not None:
            checks.append(
                Check("episodic.closure", FAIL, rel, f"{path.name} — unreadable: {problem}")
            )
            continue
        if text is None:
            continue
        trouble = closure_problem(text)
        if trouble is None:
            checks.append(
                Check("episodic.closure", PASS, rel, f"{path.name} — closure block valid")
            )
            continue
        checks.append(_closure_failure(path.name, rel, text, trouble))
    if not checks:
        days = f"{ws.today.isoformat()} or {ws.yesterday.isoformat()}"
        checks.append(Check("episodic.closure", PASS, None, f"no note for {days} to check"))
    return checks


def _closure_failure(name: str, rel: str, text: str, trouble: str) -> Check:
    """The compat message of §6, the right line, and the command that fixes it.

    A valid block that text follows (a person's line after it) is its own case
    (PROTOCOL §4 v3): `episodic close` moves that text before the block and
    merges; with ``none`` fields it adds nothing else.
    """
    from memtier.formats.episodic import displaced_closure, shorten

    day = name.removesuffix(".md")
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    message = f"{name} — closure block missing or malformed"
    displaced = displaced_closure(text)
    if displaced is not None:
        number, line = displaced
        case = f"line {number}: {shorten(line)!r}: text after the closure block"
        return Check(
            "episodic.closure",
            FAIL,
            rel,
            message,
            (case, *_numbered(lines[number - 1 :], number)),
            (
                f"{name} — text after the closure block; fix: ",
                Term("close_day_none", arg=day),
                " (merges, and moves that text before the block)",
            ),
        )
    first = max(len(lines) - 4, 0) + 1
    detail = (trouble, *_numbered(lines[first - 1 :], first))
    fix: Fix = ("fix: ", Term("close_day", arg=day))
    return Check("episodic.closure", FAIL, rel, message, detail, fix)


# -- SCRATCH (PROTOCOL §6 scratch.present) -----------------------------------------


def scratch_checks(ws: Workspace) -> list[Check]:
    rel = ws.relative(ws.learnings_dir)
    if ws.learnings_dir.is_dir():
        return [Check("scratch.present", PASS, rel, ".learnings directory present")]
    fix: Fix = (
        "fix: ",
        Term("init"),
        " (creates the missing files and folders, overwrites nothing)",
    )
    return [Check("scratch.present", WARN, rel, ".learnings directory not found", fix=fix)]


# -- leftovers (PROTOCOL §6 residue.tmp) ---------------------------------------------


def temp_files(root: Path, reading: Reading | None = None) -> list[Path]:
    """Temporary files of interrupted writes anywhere under *root* (symlinks not
    followed); *reading*: the listings health-check's other checks share."""
    found: list[str] = []
    pending = [str(root)]
    suffix = store.TEMP_SUFFIX
    # The sync repository (PROTOCOL §14) holds git's objects, none of them ours.
    skipped = os.path.join(root, "memory", ".sync")
    while pending:
        folder = pending.pop()
        try:
            with _listed(folder, reading) as listed:
                # A folder of 10,000 notes: its folders and its temporary files are
                # picked out in one comprehension each, not a loop of ours per entry.
                entries = list(listed)
                folders = [e for e in entries if e.is_dir(follow_symlinks=False)]
                for entry in folders:
                    if (
                        entry.name not in SKIP_DIRS
                        and entry.path != skipped
                        # A nested workspace keeps its own temporary files: its
                        # own session-start judges them, not ours.
                        and not is_workspace(Path(entry.path))
                    ):
                        pending.append(entry.path)
                if suffix in "\n".join([e.name for e in entries]):  # rare: then each
                    found.extend(
                        e.path
                        for e in entries
                        if e.name.endswith(suffix)
                        and e.name.startswith(".")
                        and not e.is_dir(follow_symlinks=False)
                    )
        except OSError:
            continue  # an unreadable folder holds nothing we could have written
    return [Path(p) for p in sorted(found) if store.is_temp_file(Path(p))]


def _listed(folder: str, reading: Reading | None) -> Any:
    """*folder*'s entries as a context manager, from *reading* when given."""
    if reading is None:
        return os.scandir(folder)
    return nullcontext(reading.listing(folder))


def residue_checks(ws: Workspace, reading: Reading | None = None) -> list[Check]:
    found = temp_files(ws.root, reading)
    why = ("an interrupted write left it; the target file was not changed by it",)
    checks = [
        Check(
            "residue.tmp", WARN, ws.relative(p), f"{ws.relative(p)} — leftover temporary file", why
        )
        for p in found
    ]
    return checks or [Check("residue.tmp", PASS, None, "no leftover temporary files")]


# -- shims (PROTOCOL §9 install-scripts) ---------------------------------------------


def shim_checks(ws: Workspace) -> list[Check]:
    """A warning for each deployed shim that another memtier version wrote."""
    from memtier import __version__
    from memtier.formats.shims import SHIM_NAMES, shim_version

    checks: list[Check] = []
    seen = 0
    for name in SHIM_NAMES:
        path = ws.scripts_dir / name
        if not exists(path):
            continue
        seen += 1
        rel = ws.relative(path)
        fix: Fix = ("fix: refresh them with ", Term("install_scripts"))
        try:
            version = shim_version(path.read_bytes())
        except OSError as exc:
            message = f"{rel} — unreadable: {exc.strerror or exc}"
            checks.append(Check("shims.version", WARN, rel, message, fix=fix))
            continue
        if version is None:
            message = f"{rel} — not a memtier shim"
            checks.append(Check("shims.version", WARN, rel, message, fix=fix))
        elif version != __version__:
            message = f"{rel} — written by memtier {version}, running {__version__}"
            checks.append(Check("shims.version", WARN, rel, message, fix=fix))
    if seen and not checks:
        scripts = ws.relative(ws.scripts_dir)
        message = f"{seen} shim(s) match memtier {__version__}"
        checks.append(Check("shims.version", PASS, scripts, message))
    return checks
