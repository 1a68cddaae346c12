"""Reads confined like writes, only regular files, and the smaller hostile cases of
PROTOCOL §3 v2: a link out of the root is never read, printed or written
through; a FIFO or a device never blocks; bad configuration and clocks stop
before anything is written; odd file names never break the output."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from memtier import store
from tests.conftest import NOW_TEXT, CliRunner, memtier_command

OUTSIDE_TEXT = "OUTSIDE-ONLY-CONTENT 7f3a"


def _in(root: Path, *args: str) -> list[str]:
    return [*args, "--root", str(root), "--now", NOW_TEXT]


def _outside(tmp_path: Path, name: str, text: str) -> Path:
    folder = tmp_path / "elsewhere"
    folder.mkdir(exist_ok=True)
    path = folder / name
    path.write_text(text)
    return path


def _health(cli: CliRunner, root: Path) -> str:
    result = cli(*_in(root, "health-check"))
    assert result.exit_code == 1, result.stdout
    return result.stdout


@pytest.mark.parametrize(
    "rel",
    ["MEMORY.md", "memory/episodic/2026-11-30.md", "memory/semantic/infrastructure.md"],
)
def test_a_memory_file_linked_out_is_never_read_or_printed(
    cli: CliRunner, root: Path, tmp_path: Path, rel: str
) -> None:
    outside = _outside(tmp_path, "secret.md", f"# Agent Memory\n#tags: memory\n{OUTSIDE_TEXT}\n")
    target = root / rel
    target.unlink(missing_ok=True)
    target.symlink_to(outside)
    start = cli(*_in(root, "session-start"))
    assert OUTSIDE_TEXT not in start.stdout + start.stderr
    found = cli(*_in(root, "search", "OUTSIDE-ONLY-CONTENT"))
    assert OUTSIDE_TEXT not in found.stdout
    assert f"{rel} — points outside the workspace" in _health(cli, root)
    assert outside.read_text().endswith(f"{OUTSIDE_TEXT}\n")


def test_a_note_linked_out_is_not_written_through(
    cli: CliRunner, root: Path, tmp_path: Path
) -> None:
    outside = _outside(tmp_path, "note.md", "# 2026-11-30\n")
    (root / "memory/episodic/2026-11-30.md").symlink_to(outside)
    result = cli(*_in(root, "episodic", "append", "N1"))
    assert result.exit_code == 2
    assert "points outside the workspace" in result.stderr
    assert outside.read_text() == "# 2026-11-30\n"


def test_a_lock_file_linked_out_creates_nothing_outside(
    cli: CliRunner, root: Path, tmp_path: Path
) -> None:
    away = tmp_path / "elsewhere"
    away.mkdir()
    lock = root / "memory/.memtier.lock"
    lock.unlink(missing_ok=True)
    lock.symlink_to(away / "created-by-memtier.lock")
    result = cli(*_in(root, "buffer", "note", "x"))
    assert result.exit_code == 2
    assert "memory/.memtier.lock: points outside the workspace" in result.stderr
    assert not (away / "created-by-memtier.lock").exists()
    assert "memory/.memtier.lock — points outside the workspace" in _health(cli, root)


def test_the_memory_folder_linked_out_is_refused(
    cli: CliRunner, root: Path, tmp_path: Path
) -> None:
    away = tmp_path / "elsewhere-memory"
    os.rename(root / "memory", away)
    (root / "memory").symlink_to(away)
    before = sorted(p.name for p in away.rglob("*"))
    result = cli(*_in(root, "buffer", "note", "x"))
    assert result.exit_code == 2
    assert "points outside the workspace" in result.stderr
    assert sorted(p.name for p in away.rglob("*")) == before
    assert "memory — points outside the workspace" in _health(cli, root)


def test_a_fifo_where_a_note_belongs_blocks_nothing(root: Path) -> None:
    note = root / "memory/episodic/2026-11-30.md"
    os.mkfifo(note)
    env = {**os.environ, "MEMTIER_NOW": NOW_TEXT}
    for args in (["episodic", "append", "N1"], ["session-start"], ["health-check"], ["stats"]):
        done = subprocess.run(
            [*memtier_command(), *args, "--root", str(root)],
            capture_output=True,
            text=True,
            timeout=60,  # a blocking open would hang here, not fail
            env=env,
        )
        assert "Traceback" not in done.stderr, (args, done.stderr)
        if args[0] == "episodic":
            assert done.returncode == 2
            assert "a FIFO (named pipe), not a regular file" in done.stderr
        if args[0] == "health-check":
            assert done.returncode == 1
            assert "2026-11-30.md — a FIFO (named pipe), not a regular file" in done.stdout


def test_dev_zero_as_a_note_is_refused_not_read(cli: CliRunner, root: Path) -> None:
    note = root / "memory/episodic/2026-11-30.md"
    note.symlink_to("/dev/zero")
    # /dev is outside the root: refused before anything is opened.
    result = cli(*_in(root, "episodic", "append", "N1"))
    assert result.exit_code == 2
    assert "points outside the workspace" in result.stderr


def test_a_device_inside_the_root_is_refused_by_its_kind(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    note = root / "memory/episodic/2026-11-30.md"
    note.write_text("# 2026-11-30\n")
    real_fstat = os.fstat

    def as_a_device(fd: int) -> os.stat_result:
        info = real_fstat(fd)
        fields = list(info)
        fields[0] = 0o20644  # S_IFCHR
        return os.stat_result(fields)

    monkeypatch.setattr(os, "fstat", as_a_device)
    with pytest.raises(store.InputError, match="a device, not a regular file"):
        store.read_document(note, root=root)


@pytest.mark.parametrize(
    ("value", "key"),
    [
        ("stale_hours = nan", "stale_hours"),
        ("stale_hours = inf", "stale_hours"),
        ("stale_hours = 1e300", "stale_hours"),
        ("stale_hours = 0", "stale_hours"),
        ("hot_max_lines = -1", "hot_max_lines"),
        ("warm_max_age_days = 9223372036854775807", "warm_max_age_days"),
        ("episodic_ttl_days = 99999999", "episodic_ttl_days"),
    ],
)
def test_config_extremes_stop_before_anything_is_written(
    cli: CliRunner, root: Path, value: str, key: str
) -> None:
    (root / "memory/memtier.toml").write_text(value + "\n")
    before = (root / "memory/working-buffer.md").read_bytes()
    result = cli(*_in(root, "buffer", "note", "retry me"))
    assert result.exit_code == 2
    assert f"key '{key}'" in result.stderr
    assert result.stderr.count("\n") == 1
    assert (root / "memory/working-buffer.md").read_bytes() == before


@pytest.mark.parametrize(
    "moment",
    ["0001-01-01T00:00:00", "0001-01-01T00:00:00+14:00", "9999-12-31T23:59:59-12:00", "0001-01-01"],
)
def test_extreme_clocks_are_one_clean_error(cli: CliRunner, root: Path, moment: str) -> None:
    for args in (["buffer", "note", "x"], ["session-start"], ["health-check"], ["archive"]):
        result = cli(*args, "--root", str(root), "--now", moment)
        assert result.exit_code == 2, (args, result.stderr)
        assert result.stderr.startswith("memtier: error: --now: ")
        assert "out of range" in result.stderr


def test_odd_file_names_on_a_strict_utf8_stdout_stay_one_line_each(root: Path) -> None:
    semantic = os.fsencode(root / "memory/semantic")
    body = b"# x\n#tags: memory\nlast_verified: 2026-11-30\nzebra facts\n"
    for name in (b"\xff\xfe.md", b"two\nlines.md"):
        with open(os.path.join(semantic, name), "wb") as handle:
            handle.write(body)
    env = {**os.environ, "PYTHONIOENCODING": "utf-8:strict", "MEMTIER_NOW": NOW_TEXT}
    for args in (["health-check"], ["search", "zebra"], ["tags"], ["stats"]):
        done = subprocess.run(
            [*memtier_command(), *args, "--root", str(root)],
            capture_output=True,
            timeout=60,
            env=env,
        )
        assert b"Traceback" not in done.stderr, (args, done.stderr)
        assert done.returncode in (0, 1), (args, done.stderr)
        out = done.stdout.decode("utf-8")
        if args[0] != "stats":
            assert "memory/semantic/two\\nlines.md" in out
            assert "\\xff\\xfe.md" in out
        assert not any(line.startswith("lines.md") for line in out.splitlines())


def test_outer_session_start_keeps_a_nested_workspace_s_temp_files(
    cli: CliRunner, root: Path
) -> None:
    inner = root / "projects/inner"
    inner.mkdir(parents=True)
    assert cli("init", "--root", str(inner), "--now", NOW_TEXT).exit_code == 0
    temp = inner / "memory" / f".working-buffer.md.0badc0de{store.TEMP_SUFFIX}"
    temp.write_text("the inner workspace's half-written file\n")
    assert cli(*_in(root, "session-start")).exit_code == 0
    assert temp.exists()


@pytest.mark.parametrize("length", [231, 240, 255])
def test_long_names_can_be_written(cli: CliRunner, root: Path, length: int) -> None:
    name = "n" * (length - 3) + ".md"
    text = "# Long\n#tags: memory\n> last_verified: 2026-11-30\n"
    for _ in range(2):  # created, then replaced through a temporary file
        result = cli(*_in(root, "atomic-write", f"memory/semantic/{name}"), input=text)
        assert result.exit_code == 0, result.stderr
    assert (root / "memory/semantic" / name).read_text() == text
    assert len(store.temp_name(name).encode()) <= 255


def test_a_root_that_does_not_exist_says_so(cli: CliRunner) -> None:
    result = cli("stats", "--root", "/nonexistent/memtier")
    assert result.exit_code == 2
    assert result.stderr == "memtier: error: workspace root /nonexistent/memtier does not exist\n"


def test_a_path_named_after_a_secret_is_not_created(cli: CliRunner, root: Path) -> None:
    token = "gh" + "p_" + "a1B2" * 9
    result = cli(*_in(root, "atomic-write", f"memory/{token}/x.md"), input="x\n")
    assert result.exit_code == 2
    assert token not in result.stdout + result.stderr
    assert "GITHUB_TOKEN" in result.stderr
    assert not (root / "memory" / token).exists()


def test_search_never_echoes_a_token(cli: CliRunner, root: Path) -> None:
    token = "gh" + "p_" + "a1B2" * 9
    for extra in ([], ["--json"], ["--regex"]):
        result = cli(*_in(root, "search", f"mirror {token}", *extra))
        assert token not in result.stdout + result.stderr
    log = (root / "memory/.searches.jsonl").read_text()
    assert token not in log
