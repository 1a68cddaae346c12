"""Property-based fuzzing: parsers on arbitrary text, commands on arbitrary files and
random command sequences under a clock that moves forward (PROTOCOL §3, §5).

- Every parser either returns or raises `InputError` (exit 2), whatever text it gets.
- Whatever bytes stand in a memory file, no command lets an exception out: it
  answers with exit 0, 1 or 2.
- A random session (buffer writes, notes, rotations, session starts, lessons,
  weekly reviews, archive runs, hours or days passing) never loses or doubles
  a line it acknowledged, and after the day's routine (rotate, close the
  notes, session-start) health-check passes.

The number of examples is bounded so the suite stays fast; `EXAMPLES` records
how many ran.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections import Counter
from datetime import date, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memtier.clock import format_timestamp, parse_day, parse_timestamp
from memtier.config import parse_config
from memtier.errors import InputError
from memtier.formats.buffer import active_task_lines, header_problem, parse_buffer
from memtier.formats.episodic import closure_problem, locate_closure, split_closure
from memtier.formats.lessons import (
    is_candidate_line,
    lesson_text,
    normalise_lesson,
    remove_candidate_flag,
)
from memtier.secrets import detect, redact
from memtier.store import decode_document
from tests.conftest import NOW
from tests.reliability.reliability_support import populate, run_in_process, token_counts

EXAMPLES: Counter[str] = Counter()
FAST = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SLOW = settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)

# Text that looks like memtier's own structure, mixed with anything at all.
STRUCTURE = st.sampled_from(
    [
        "# Working Buffer",
        "created: 2026-11-30T09:00:00+01:00",
        "last_active: 2026-11-30T09:00:00+01:00",
        "## Active Task:",
        "- task",
        "## Notes",
        "Updated: 2026-11-30",
        "Decisions: x",
        "Signal: y",
        "Open: none",
        "#tags: memory, docker",
        "> last_verified: 2026-11-30",
        "- 2026-11-30 lesson [PROMOTE-CANDIDATE] #pinned",
        'vocabulary = ["docker"]',
        "stale_hours = 2",
        "",
        "\r",
        "\ufeff",
    ]
)
LINES = st.lists(st.one_of(STRUCTURE, st.text(max_size=40)), max_size=12)
TEXT = st.one_of(st.text(max_size=300), LINES.map("\n".join))


@FAST
@given(TEXT)
def test_buffer_parser_returns_or_refuses(text: str) -> None:
    EXAMPLES["buffer parser"] += 1
    problem = header_problem(text)
    active_task_lines(text)
    try:
        buffer = parse_buffer(text)
    except InputError:
        assert problem is not None
        return
    assert problem is None
    assert parse_buffer(buffer.render()).body == buffer.body


@FAST
@given(TEXT)
def test_episodic_parsers_never_crash(text: str) -> None:
    EXAMPLES["episodic parser"] += 1
    problem = closure_problem(text)
    _before, block = split_closure(text)
    assert (problem is None) == (block is not None)
    located = locate_closure(text)
    if block is not None:
        assert located is not None
    if located is not None:
        # The three parts are whole lines of the note: nothing invented, nothing lost.
        assert sum(part.count("\n") for part in located) == len(text.splitlines()) or "\r" in text


@FAST
@given(TEXT)
def test_config_parser_returns_or_refuses(text: str) -> None:
    EXAMPLES["config parser"] += 1
    try:
        config = parse_config(text, Path("memory/memtier.toml"))
    except InputError as exc:
        assert "memtier.toml" in exc.message
        return
    assert isinstance(config.vocabulary, tuple | list | frozenset)


@FAST
@given(TEXT)
def test_secrets_detect_and_redact_agree(text: str) -> None:
    EXAMPLES["secrets"] += 1
    redaction = redact(text)
    assert detect(redaction.text) == []
    assert redaction.changed == bool(redaction.counts)


@FAST
@given(TEXT)
def test_learnings_normalisation_is_total_and_stable(text: str) -> None:
    EXAMPLES["learnings normalisation"] += 1
    for line in text.split("\n"):
        normalised = normalise_lesson(line)
        assert normalised == normalised.strip()
        assert "  " not in normalised
        assert normalise_lesson("- 2026-11-30 " + normalised) == normalise_lesson(
            "- 2026-11-30 " + normalise_lesson("- 2026-11-30 " + normalised)
        )
        lesson_text(line)
        assert not is_candidate_line(remove_candidate_flag(line)) or line.count("[PROMOTE") > 1


@FAST
@given(TEXT)
def test_search_tokeniser_never_crashes(text: str) -> None:
    import re

    from memtier.search.tokens import combined_pattern, python_pattern, query_terms, scan_pattern

    EXAMPLES["search tokeniser"] += 1
    terms = query_terms(text)
    if terms:
        re.compile(combined_pattern(terms))
        re.compile(python_pattern(scan_pattern(terms)))  # ripgrep's syntax, in Python's


@FAST
@given(st.one_of(st.text(max_size=40), st.datetimes().map(lambda d: d.isoformat())))
def test_clock_parsers_never_crash(text: str) -> None:
    EXAMPLES["clock parser"] += 1
    moment = parse_timestamp(text)
    if moment is not None:
        assert parse_timestamp(format_timestamp(moment)) == moment
    day = parse_day(text)
    assert day is None or isinstance(day, date)


@FAST
@given(st.binary(max_size=200))
def test_decoding_any_bytes_reads_or_refuses(data: bytes) -> None:
    EXAMPLES["decode"] += 1
    try:
        doc = decode_document(data, "note")
    except InputError as exc:
        assert exc.message.startswith("note: ")
        return
    assert doc.encode(doc.text) == data or data.count(b"\r\n") != data.count(b"\n")


# ---------------------------------------------------------------------------
# commands on arbitrary file content

TEMPLATE: dict[str, Path] = {}


def _fresh(tmp: Path) -> Path:
    """A copy of one populated workspace (init pays its fsyncs once per session)."""
    if "ws" not in TEMPLATE:
        TEMPLATE["ws"] = populate(Path(tempfile.mkdtemp(prefix="memtier-fuzz-")) / "ws")
    folder = tmp / "ws"
    shutil.copytree(TEMPLATE["ws"], folder, symlinks=True)
    return folder


TARGETS = [
    "MEMORY.md",
    "memory/working-buffer.md",
    "memory/episodic/2026-11-30.md",
    "memory/semantic/projects.md",
    ".learnings/ERRORS.md",
    "memory/memtier.toml",
    "memory/.searches.jsonl",
]
COMMANDS = [
    ("health-check", "--json"),
    ("session-start", "--json"),
    ("buffer", "note", "fuzz"),
    ("episodic", "append", "fuzz"),
    ("rotate",),
    ("weekly-review",),
    ("learn", "error", "fuzz lesson"),
    ("search", "fuzz"),
    ("stats", "--json"),
    ("tags",),
    ("candidates",),
]


@pytest.mark.slow
@SLOW
@given(
    target=st.sampled_from(TARGETS),
    content=st.one_of(TEXT.map(lambda t: t.encode("utf-8")), st.binary(max_size=300)),
)
def test_no_command_crashes_on_any_file_content(target: str, content: bytes) -> None:
    EXAMPLES["commands on arbitrary files"] += 1
    with tempfile.TemporaryDirectory() as tmp:
        root = _fresh(Path(tmp))
        (root / target).write_bytes(content)
        for command in COMMANDS:
            code, out, err = run_in_process(*command, "--root", str(root), "--now", NOW.isoformat())
            assert code in (0, 1, 2), (command, err)
            assert "Traceback" not in err
            if "--json" in command and code == 0:
                json.loads(out)


# ---------------------------------------------------------------------------
# random sessions

WORDS = st.lists(
    st.sampled_from(["qdrant", "mirror", "deploy", "host", "apt", "disk", "cron"]),
    min_size=1,
    max_size=4,
).map(" ".join)
STEP = st.one_of(
    st.tuples(st.sampled_from(["task", "note", "append", "learn"]), WORDS),
    st.tuples(st.just("task"), WORDS),
    st.tuples(st.just("note"), WORDS),
    st.tuples(st.just("done"), st.integers(1, 3)),
    st.tuples(st.just("append"), WORDS),
    st.tuples(st.just("close"), WORDS),
    st.tuples(st.just("learn"), WORDS),
    st.tuples(st.just("rotate"), st.none()),
    st.tuples(st.just("session-end"), st.none()),
    st.tuples(st.just("session-start"), st.none()),
    st.tuples(st.just("weekly-review"), st.none()),
    st.tuples(st.just("archive"), st.none()),
    st.tuples(st.just("heartbeat"), st.none()),
    st.tuples(st.just("wait"), st.integers(1, 36 * 60)),  # minutes
)


def _command(kind: str, arg: object, token: str) -> tuple[str, ...]:
    text = f"{arg} {token}"
    return {
        "task": ("buffer", "task", text),
        "note": ("buffer", "note", text),
        "done": ("buffer", "done", str(arg)),
        "append": ("episodic", "append", text),
        "close": ("episodic", "close", "--decisions", str(arg), "--signal", "s", "--open", "none"),
        "learn": ("learn", "learning", text),
        "heartbeat": ("buffer", "heartbeat"),
    }.get(kind, (kind,))


def _run_at(root: Path, now: datetime, *command: str) -> tuple[int, str, str]:
    code, out, err = run_in_process(*command, "--root", str(root), "--now", now.isoformat())
    assert code in (0, 1, 2), (command, err)
    assert "Traceback" not in err
    return code, out, err


@pytest.mark.slow
@SLOW
@given(st.lists(STEP, min_size=4, max_size=16))
def test_random_sessions_keep_every_acknowledged_line(steps: list[tuple[str, object]]) -> None:
    EXAMPLES["random sessions"] += 1
    with tempfile.TemporaryDirectory() as tmp:
        root = _fresh(Path(tmp))
        before = token_counts(root)
        now = NOW
        acknowledged: list[str] = []
        for n, (kind, arg) in enumerate(steps):
            if kind == "wait":
                now += timedelta(minutes=int(arg))  # type: ignore[call-overload]
                continue
            token = f"N{n:03d}"
            code, out, _err = _run_at(root, now, *_command(kind, arg, token))
            if code == 0 and kind in ("task", "note", "append", "learn"):
                acknowledged.append(token)
            if kind == "session-start":
                # Mid-session health may fail only on what the person still owes:
                # an unclosed note of today or yesterday, or an oversized buffer.
                code, out, _err = _run_at(root, now, "health-check", "--json")
                failed = {c["id"] for c in json.loads(out)["checks"] if c["status"] == "fail"}
                assert failed <= {"episodic.closure", "buffer.size"}, failed
        # The day's routine: rotate, close today's and yesterday's notes, session-start.
        _run_at(root, now, "rotate")
        for day in (now.date(), now.date() - timedelta(days=1)):
            if (root / f"memory/episodic/{day.isoformat()}.md").exists():
                _run_at(
                    root,
                    now,
                    "episodic",
                    "close",
                    "--decisions",
                    "d",
                    "--signal",
                    "s",
                    "--open",
                    "none",
                    "--date",
                    day.isoformat(),
                )
        code, out, _err = _run_at(root, now, "session-start", "--json")
        assert json.loads(out)["health"] == {"ok": True, "failed": []}, out
        after = token_counts(root)
        EXAMPLES["(acknowledged lines checked)"] += len(acknowledged)
        for token in acknowledged:
            assert after[token] == 1, (token, steps)
        for token, count in before.items():
            assert after[token] == count, (token, steps)


@pytest.fixture(scope="module", autouse=True)
def _report_examples() -> object:
    yield
    if EXAMPLES:
        total = sum(v for k, v in EXAMPLES.items() if not k.startswith("("))
        detail = ", ".join(f"{k} {v}" for k, v in sorted(EXAMPLES.items()))
        print(f"\nhypothesis examples run: {total} ({detail})")
    if "ws" in TEMPLATE:
        shutil.rmtree(TEMPLATE["ws"].parent, ignore_errors=True)
