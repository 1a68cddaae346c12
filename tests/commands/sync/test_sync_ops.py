"""What a sync costs and how it says what happened (PROTOCOL §14 v4 "Small and quiet").

Real git and a bare repository in a temporary folder, never the network: a
remote that cannot be reached is a folder that does not exist.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memtier.workspace import SYNC_GIT_DIR
from tests.sync_support import NOW, conflicting, git, hosts, memtier, ok

pytestmark = pytest.mark.skipif(
    __import__("shutil").which("git") is None, reason="sync needs the git executable"
)


@pytest.fixture
def git_calls(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[list[str]]]:
    """Every git process memtier starts (through its one runner), by its arguments."""
    from memtier import gitrun

    calls: list[list[str]] = []
    real = gitrun._call

    def counted(argv: list[str], *args: Any, **kwargs: Any) -> gitrun.GitResult:
        calls.append([str(a) for a in argv[1:]])
        return real(argv, *args, **kwargs)

    monkeypatch.setattr(gitrun, "_call", counted)
    yield calls


def _commands(calls: list[list[str]]) -> list[str]:
    """The git command of each call (``fetch``, ``status``…), past any ``-c k=v``."""
    found = []
    for argv in calls:
        rest = list(argv)
        while rest and rest[0] == "-c":
            rest = rest[2:]
        found.append(rest[0] if rest else "")
    return found


# ---------------------------------------------------------------------------
# cost


def test_a_sync_with_nothing_to_share_runs_at_most_three_git_processes(
    tmp_path: Path, git_calls: list[list[str]]
) -> None:
    _remote, (a, b) = hosts(tmp_path, 2)
    ok(a, "sync")
    ok(b, "sync")
    del git_calls[:]
    done = memtier(a, "sync")
    assert done.returncode == 0, done.stderr
    assert "in sync" in done.stdout
    assert "ls-remote" in _commands(git_calls)  # it did ask the remote
    assert "fetch" not in _commands(git_calls)  # which named what was fetched last
    assert "config" not in _commands(git_calls)  # the drivers were read from the file
    assert len(git_calls) <= 3, git_calls


def test_a_change_on_the_other_host_is_still_brought_in_by_the_short_path(
    tmp_path: Path, git_calls: list[list[str]]
) -> None:
    _remote, (a, b) = hosts(tmp_path, 2)
    ok(a, "learn", "error", "seen only on a")
    ok(a, "sync")
    del git_calls[:]
    ok(b, "sync")
    assert "seen only on a" in (b / ".learnings/ERRORS.md").read_text()
    assert "fetch" in _commands(git_calls)  # the remote named another commit
    assert "merge" in _commands(git_calls)  # the fast-forward


def test_the_status_answers_what_git_is_not_asked_again(
    tmp_path: Path, git_calls: list[list[str]]
) -> None:
    """A commit and push, then a fast-forward: the status's ahead/behind counts say how
    the two commits stand (no merge-base), its changes that a commit is due (no diff
    --cached), and a ref that a commit or a merge cannot move is asked once."""
    _remote, (a, b) = hosts(tmp_path, 2)
    ok(a, "learn", "error", "seen on a")
    del git_calls[:]
    done = memtier(a, "sync")
    assert "1 local commit(s)" in done.stdout, done.stderr
    pushed = _commands(git_calls)
    assert "merge-base" not in pushed and "diff" not in pushed, pushed
    del git_calls[:]
    done = memtier(b, "sync")
    assert "fast-forward" in done.stdout, done.stderr
    moved = _commands(git_calls)
    assert "merge-base" not in moved and moved.count("rev-parse") == 1, moved
    assert "seen on a" in (b / ".learnings/ERRORS.md").read_text()


def test_a_local_change_is_committed_and_pushed_after_a_quiet_round(tmp_path: Path) -> None:
    remote, (a, b) = hosts(tmp_path, 2)
    ok(a, "sync")  # nothing to share
    ok(a, "remember", "nas01 runs the backups", "--kind", "infrastructure")
    ok(a, "sync")
    shown = subprocess.run(
        ["git", "--git-dir", str(remote), "show", "main:memory/semantic/infrastructure.md"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "nas01 runs the backups" in shown
    ok(b, "sync")
    assert "nas01 runs the backups" in (b / "memory/semantic/infrastructure.md").read_text()


def test_a_committing_sync_runs_git_gc_auto_quietly_with_hooks_off(
    tmp_path: Path, git_calls: list[list[str]]
) -> None:
    _remote, (a,) = hosts(tmp_path, 1)
    hooks = a / SYNC_GIT_DIR / "hooks"
    hooks.mkdir(exist_ok=True)
    witness = tmp_path / "hook-ran"
    script = hooks / "pre-auto-gc"
    script.write_text(f"#!/bin/sh\ntouch {witness}\nexit 0\n")
    script.chmod(0o755)
    ok(a, "learn", "error", "one more error")
    del git_calls[:]
    ok(a, "sync")  # committed, and git's own test would find nothing to pack
    assert "gc" not in _commands(git_calls) and "count-objects" not in _commands(git_calls)
    # the branch and refs, the remote's answer, the status, add, commit, the new head,
    # push, and the backups' listing: 8 (10 when every such sync asked git to pack)
    assert len(git_calls) <= 8, git_calls
    _fill_sample_folder(a, tmp_path)  # now it would: git runs its hook before packing
    ok(a, "learn", "error", "yet another error")
    del git_calls[:]
    done = memtier(a, "sync")
    assert done.returncode == 0, done.stderr
    gcs = [argv for argv in git_calls if "gc" in argv]
    assert gcs, git_calls
    assert all("--quiet" in argv or "-q" in argv for argv in gcs)
    assert "core.hooksPath=/dev/null" in gcs[0]
    assert not witness.exists()
    assert done.stderr == ""
    del git_calls[:]
    ok(a, "sync")  # nothing committed: no housekeeping
    assert "gc" not in _commands(git_calls)


def test_git_never_starts_its_own_housekeeping_after_a_sync_commits_or_merges(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The housekeeping after a sync is memtier's (`gc --auto` when git would find
    work): the processes git itself starts (git's trace of them) hold no automatic
    ``maintenance run --auto`` or ``gc --auto`` after the commit or the merge. The
    remote's own, after it received a push, stays the remote's."""
    _remote, (a, b) = hosts(tmp_path, 2)
    trace = tmp_path / "trace.json"
    monkeypatch.setenv("GIT_TRACE2_EVENT", str(trace))
    ok(a, "learn", "error", "seen on a")
    ok(b, "learn", "error", "seen on b")
    ok(a, "sync")  # a commit and a push
    ok(b, "sync")  # a commit, a merge with a's, a fast-forward and a push
    events = [json.loads(line) for line in trace.read_text().splitlines()]
    program = {e["sid"]: e["argv"] for e in events if e.get("event") == "start"}
    started = [
        (program.get(e["sid"], ["?"]), e["argv"]) for e in events if e.get("event") == "child_start"
    ]
    assert any("pack-objects" in argv for _by, argv in started), started  # the trace works
    ours = [(by, argv) for by, argv in started if "receive-pack" not in by[0]]
    assert not [(by, argv) for by, argv in ours if "--auto" in argv], ours


def _fill_sample_folder(ws: Path, tmp_path: Path) -> None:
    """Loose objects in ``objects/17`` past git's ``gc --auto`` threshold (27)."""
    import hashlib

    folder = tmp_path / "blobs"
    folder.mkdir()
    paths, n = [], 0
    while len(paths) < 28:
        body = f"sample {n}\n".encode()
        n += 1
        if hashlib.sha1(b"blob %d\0" % len(body) + body).hexdigest().startswith("17"):
            (folder / f"{n}").write_bytes(body)
            paths.append(str(folder / f"{n}"))
    git(ws, "hash-object", "-w", *paths)


def test_loose_objects_past_the_budget_are_packed_after_a_committing_sync(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memtier.commands.sync import _tidy as sync_tidy

    _remote, (a,) = hosts(tmp_path, 1)
    monkeypatch.setattr(sync_tidy, "LOOSE_BUDGET_KIB", 1)
    ok(a, "learn", "error", "one more error")
    assert _loose(a)["count"] > 0  # what the first sync left
    ok(a, "sync")
    assert _loose(a)["count"] == 0


def _loose(ws: Path) -> dict[str, int]:
    lines = git(ws, "count-objects", "-v").splitlines()
    values = dict(line.split(": ", 1) for line in lines)
    return {"count": int(values["count"]), "size": int(values["size"])}


def _backups(ws: Path) -> list[str]:
    out = git(ws, "for-each-ref", "--format=%(refname)", "refs/memtier/backup/")
    return sorted(line.rsplit("/", 1)[1] for line in out.splitlines() if line)


def test_backup_refs_older_than_the_setting_are_pruned_the_newest_kept(tmp_path: Path) -> None:
    _remote, (a,) = hosts(tmp_path, 1)
    head = git(a, "rev-parse", "HEAD").strip()
    # NOW is 2026-12-01T09:00+01:00; the default keeps 14 days.
    for stamp in ("20261001T080000", "20261116T080000", "20261117T100000", "20261130T230000"):
        git(a, "update-ref", f"refs/memtier/backup/{stamp}-{head[:8]}", head)
    ok(a, "learn", "error", "one more error")
    ok(a, "sync")
    assert _backups(a) == [f"{s}-{head[:8]}" for s in ("20261117T100000", "20261130T230000")]


def test_the_newest_backup_ref_stays_however_old(tmp_path: Path) -> None:
    _remote, (a,) = hosts(tmp_path, 1)
    head = git(a, "rev-parse", "HEAD").strip()
    for stamp in ("20250101T000000", "20260101T000000"):
        git(a, "update-ref", f"refs/memtier/backup/{stamp}-{head[:8]}", head)
    config = a / "memory/memtier.toml"
    config.write_text(config.read_text() + "sync_keep_backups_days = 3\n")
    ok(a, "learn", "error", "one more error")
    ok(a, "sync")
    assert _backups(a) == [f"20260101T000000-{head[:8]}"]


def test_sync_keep_backups_days_is_checked_like_every_setting(tmp_path: Path) -> None:
    from memtier.config import Config, parse_config
    from memtier.errors import ConfigError

    assert Config().sync_keep_backups_days == 14
    assert parse_config("sync_keep_backups_days = 30\n", "t").sync_keep_backups_days == 30
    for wrong in ("-1", "1.5", '"two"', "true"):
        with pytest.raises(ConfigError, match="sync_keep_backups_days"):
            parse_config(f"sync_keep_backups_days = {wrong}\n", "t")


# ---------------------------------------------------------------------------
# an honest summary and exit code


def test_a_conflict_is_summed_up_as_a_conflict_and_exits_1(tmp_path: Path) -> None:
    _a, b = conflicting(tmp_path)
    done = memtier(b, "sync")
    assert done.returncode == 1
    assert done.stdout.startswith("conflict"), done.stdout
    assert "in sync" not in done.stdout + done.stderr
    assert "conflict" in done.stderr


def test_a_conflict_in_json_says_conflict_and_not_ok(tmp_path: Path) -> None:
    _a, b = conflicting(tmp_path)
    done = memtier(b, "sync", "--json")
    assert done.returncode == 1
    report, _end = json.JSONDecoder().raw_decode(done.stdout)  # then the error's object
    assert report["state"] == "conflict" and report["ok"] is False
    assert report["text"].startswith("conflict")


def test_dropping_the_conflicts_open_item_settles_its_warning(tmp_path: Path) -> None:
    _a, b = conflicting(tmp_path)
    assert memtier(b, "sync").returncode == 1
    report = json.loads(memtier(b, "health-check", "--json").stdout)
    (warning,) = [c for c in report["checks"] if c["id"] == "sync.conflicts"]
    sid = warning["message"].rsplit(" ", 1)[1].strip(")")
    shown = memtier(b, "health-check", "--verbose").stdout
    assert f"memtier episodic close --drop {sid} --date 2026-12-01" in shown, shown
    ok(b, "episodic", "close", "--drop", sid)
    report = json.loads(memtier(b, "health-check", "--json").stdout)
    assert [c for c in report["checks"] if c["id"] == "sync.conflicts"] == []


def test_an_unreachable_remote_is_named_with_gits_whole_message(tmp_path: Path) -> None:
    remote, (a,) = hosts(tmp_path, 1)
    remote.rename(tmp_path / "gone.git")
    ok(a, "learn", "error", "written offline")
    done = memtier(a, "sync")
    assert done.returncode == 3, done.stderr
    said = done.stderr
    assert f"origin ({remote})" in said
    # git's message is several lines; the first and the last are both there
    assert "does not appear to be a git repository" in said
    assert "and the repository exists" in said
    assert "committed locally" in said
    assert len(said.strip().splitlines()) == 1


def test_an_unreachable_file_url_is_redacted_and_exits_3(tmp_path: Path) -> None:
    _remote, (a,) = hosts(tmp_path, 1)
    token = "ghp_" + "Z9y8" * 9
    url = f"file://{tmp_path}/missing/{token}/memory.git"
    git(a, "remote", "set-url", "origin", url)
    done = memtier(a, "sync")
    assert done.returncode == 3, done.stderr
    assert token not in done.stdout + done.stderr
    assert "origin (file://" in done.stderr and "[REDACTED" in done.stderr


def test_sync_init_names_an_unreachable_remote_with_gits_whole_message(tmp_path: Path) -> None:
    from tests.conftest import new_workspace

    ws = new_workspace(tmp_path / "ws")
    done = memtier(ws, "sync", "init", str(tmp_path / "nowhere.git"))
    assert done.returncode == 3  # the code of an unreachable remote, as for `sync`
    assert "does not appear to be a git repository" in done.stderr
    assert "and the repository exists" in done.stderr


def test_a_running_rotation_makes_sync_busy_not_a_repair(tmp_path: Path) -> None:
    from memtier import store
    from tests.conftest import run_memtier

    _remote, (a,) = hosts(tmp_path, 1)
    marker = a / "memory/working-buffer.md.lock"
    # A rotation runs: it holds the workspace lock, its marker stands.
    with store.workspace_lock(a / "memory/.memtier.lock", timeout=0):
        marker.write_text("r-00000000 " + NOW + "\n")
        done = run_memtier("--root", str(a), "--now", NOW, "sync")
        marker.unlink()
    assert done.returncode == 1, done.stderr
    assert "busy: a rotation is running; try again" in done.stderr
    assert "session-start" not in done.stderr


def test_a_crashed_rotation_still_asks_for_session_start(tmp_path: Path) -> None:
    _remote, (a,) = hosts(tmp_path, 1)
    (a / "memory/working-buffer.md.lock").write_text("r-00000000 " + NOW + "\n")
    done = memtier(a, "sync")
    assert done.returncode == 1
    assert "session-start" in done.stderr and "busy" not in done.stderr


# ---------------------------------------------------------------------------
# what the one status tells the outgoing secrets check


def _remote_head(remote: Path) -> str:
    return subprocess.run(
        ["git", "--git-dir", str(remote), "rev-parse", "main"], capture_output=True, text=True
    ).stdout


def test_a_credential_in_a_new_file_refuses_the_sync(tmp_path: Path) -> None:
    remote, (a,) = hosts(tmp_path, 1)
    before = _remote_head(remote)
    (a / "memory/semantic/new-host.md").write_text(
        "# New host\n#tags: ssh\n> last_verified: 2026-12-01\n- key ghp_" + "b2C3" * 9 + "\n"
    )
    done = memtier(a, "sync")
    assert done.returncode == 1 and "memory/semantic/new-host.md" in done.stderr
    assert _remote_head(remote) == before
    assert "new-host.md" not in git(a, "ls-files")


def test_a_credential_committed_but_not_pushed_refuses_the_next_sync(tmp_path: Path) -> None:
    remote, (a,) = hosts(tmp_path, 1)
    before = _remote_head(remote)
    infra = a / "memory/semantic/infrastructure.md"
    infra.write_text(infra.read_text() + "- token ghp_" + "d4E5" * 9 + "\n")
    git(a, "add", "-A")
    git(a, "commit", "-q", "-m", "by hand")  # ahead of the remote, nothing changed on disk
    done = memtier(a, "sync")
    assert done.returncode == 1 and "credential" in done.stderr
    assert _remote_head(remote) == before


def test_stale_backups_read_their_age_from_their_names() -> None:
    from datetime import datetime

    from memtier.commands.sync._tidy import stale_backups

    now = datetime.fromisoformat("2026-12-01T09:00:00+01:00")
    names = [
        "refs/memtier/backup/20261117T085959-aaaaaaaa",  # 14 days and a second ago
        "refs/memtier/backup/20261117T090000-bbbbbbbb",  # exactly 14 days: kept
        "refs/memtier/backup/by-hand",  # not memtier's: left alone
        "refs/memtier/backup/20261201T090000-cccccccc",
    ]
    assert stale_backups(names, now, 14) == ["refs/memtier/backup/20261117T085959-aaaaaaaa"]
    assert stale_backups(names, now, 0) == [names[0], names[1]]
    assert stale_backups(names[:1], now, 0) == []  # the newest stays


# What a sync with nothing to share never needs: the CLI framework, dataclasses, and
# what only a merge, a conflict record, an outgoing file or `sync init` uses.
QUIET_SYNC_NEVER_LOADS = (
    "typer",
    "click",
    "dataclasses",
    "inspect",
    "json",
    "shlex",
    "memtier.formats.episodic",
    "memtier.health.sync",
    "memtier.commands.sync._trust",
)


def test_a_quiet_sync_loads_neither_typer_nor_dataclasses(tmp_path: Path) -> None:
    import sys

    _remote, (a,) = hosts(tmp_path, 1)
    ok(a, "sync")
    code = (
        "import sys; from memtier.__main__ import main; "
        f"code = main(['--root', {str(a)!r}, '--now', {NOW!r}, 'sync']); "
        f"loaded = [m for m in {QUIET_SYNC_NEVER_LOADS!r} if m in sys.modules]; "
        "sys.stderr.write(f'\\nexit {code} loaded {loaded}')"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.stderr.splitlines()[-1] == "exit 0 loaded []", proc.stderr
