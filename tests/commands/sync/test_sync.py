"""`memtier sync` end to end with a bare repository and real git (PROTOCOL §14)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from memtier.workspace import SYNC_GIT_DIR
from tests.sync_support import NOW, conflicting, git, hosts, memtier, ok, settle, tracked

pytestmark = pytest.mark.skipif(
    __import__("shutil").which("git") is None, reason="sync needs the git executable"
)


def _every_line_once(text: str) -> None:
    lines = [line for line in text.split("\n") if line.startswith(("- ", "### "))]
    assert len(lines) == len(set(lines)), text


@pytest.mark.slow  # three hosts, every kind of file: the CI's slow step runs it
def test_three_hosts_writing_the_same_day_converge(tmp_path: Path) -> None:
    _remote, (a, b, c) = hosts(tmp_path, 3)
    old = "2026-10-01"
    ok(a, "episodic", "append", "the old day", "--date", old)
    assert settle([a, b, c], rounds=1) == [0, 0, 0]
    # The same day, at once: rotations, facts, learnings on each host; C's review
    # moves the old note into the archive while A edits it.
    for n, ws in enumerate((a, b, c)):
        ok(ws, "buffer", "task", f"task {n}")
        ok(ws, "buffer", "note", f"note {n}")
        ok(ws, "session-end")
        ok(ws, "remember", f"host {n} runs service number {n * 7}", "--kind", "infrastructure")
        ok(ws, "learn", "error", f"error seen on host {n}")
    ok(a, "episodic", "append", "a late line for the old day", "--date", old)
    ok(c, "archive", "episodic")
    assert not (c / f"memory/episodic/{old}.md").exists()
    assert settle([a, b, c], rounds=2) == [0, 0, 0]

    trees = [tracked(ws) for ws in (a, b, c)]
    assert trees[0] == trees[1] == trees[2]
    today = trees[0]["memory/episodic/2026-12-01.md"].decode()
    for n in range(3):
        assert today.count(f"- note {n}\n") == 1
    assert today.count("Updated:") == 1
    assert re.search(r"\nUpdated: 2026-12-01\nDecisions: .+\nSignal: .+\nOpen: .+\n$", today)
    assert set(re.findall(r"task \d", today.rsplit("Open:", 1)[1])) == {
        "task 0",
        "task 1",
        "task 2",
    }
    _every_line_once(today)
    archived = trees[0]["memory/archive/2026/10/2026-10-01.md"].decode()
    assert "the old day" in archived and "a late line for the old day" in archived
    assert f"memory/episodic/{old}.md" not in trees[0]
    infra = trees[0]["memory/semantic/infrastructure.md"].decode()
    errors = trees[0][".learnings/ERRORS.md"].decode()
    for n in range(3):
        assert infra.count(f"host {n} runs service number {n * 7}") == 1
        assert errors.count(f"error seen on host {n}") == 1
    assert ok(a, "health-check").endswith("✅ All required checks passed\n")


def test_one_fact_replaced_differently_is_a_conflict_block_never_a_marker(tmp_path: Path) -> None:
    _remote, (a, b) = hosts(tmp_path, 2)
    ok(a, "remember", "nas01 address is 10.0.0.4", "--kind", "infrastructure")
    assert settle([a, b], rounds=1) == [0, 0]
    ok(
        a,
        "replace",
        "10.0.0.4",
        "nas01 address is 10.0.0.5",
        "--in",
        "memory/semantic/infrastructure.md",
    )
    ok(
        b,
        "replace",
        "10.0.0.4",
        "nas01 address is 10.0.0.7",
        "--in",
        "memory/semantic/infrastructure.md",
    )
    assert memtier(a, "sync").returncode == 0
    done = memtier(b, "sync")
    assert done.returncode == 1, done.stderr
    assert "conflict" in done.stderr
    note = (b / "memory/episodic/2026-12-01.md").read_text()
    block = re.search(
        r"### \d\d:\d\d sync conflict \((s-[0-9a-f]{8})\)\n((?:.+\n)+?)\n?Updated", note
    )
    assert block is not None, note
    assert "ours (kept): - nas01 address is 10.0.0.7" in block.group(2)
    assert "theirs: - nas01 address is 10.0.0.5" in block.group(2)
    assert "base: - nas01 address is 10.0.0.4" in block.group(2)
    assert f"settle sync conflict {block.group(1)}" in note.rsplit("Open:", 1)[1]
    settle([a, b], rounds=1)
    for ws in (a, b):
        for name, data in tracked(ws).items():
            assert b"<<<<<<<" not in data and b">>>>>>>" not in data, name
    assert tracked(a) == tracked(b)


def test_the_working_buffer_and_host_files_are_never_tracked(tmp_path: Path) -> None:
    _remote, (a, b) = hosts(tmp_path, 2)
    ok(a, "session-start")
    ok(a, "buffer", "note", "only here")
    ok(a, "search", "anything")
    ok(a, "sync")
    names = git(a, "ls-files").split("\n")
    assert "memory/working-buffer.md" not in names
    assert not [n for n in names if n.startswith("memory/.sync") or n.endswith(".lock")]
    assert "memory/.searches.jsonl" not in names
    assert (
        not (b / "memory/working-buffer.md").exists()
        or "only here" not in (b / "memory/working-buffer.md").read_text()
    )


def test_an_unreachable_remote_exits_3_with_the_work_committed(tmp_path: Path) -> None:
    remote, (a,) = hosts(tmp_path, 1)
    remote.rename(tmp_path / "gone.git")
    ok(a, "remember", "the laptop is offline today", "--kind", "infrastructure")
    done = memtier(a, "sync")
    assert done.returncode == 3, done.stderr
    assert "committed locally" in done.stderr
    assert git(a, "status", "--porcelain") == ""
    assert "the laptop is offline today" in git(a, "show", "HEAD:memory/semantic/infrastructure.md")


def test_a_missing_driver_refuses_the_sync(tmp_path: Path) -> None:
    _remote, (a,) = hosts(tmp_path, 1)
    assert not (a / ".gitattributes").exists()  # (v4) the repository's own, never tracked
    attributes = (a / SYNC_GIT_DIR / "info/attributes").read_text()
    assert "/memory/consolidated/* merge=memtier-generation" in attributes
    git(a, "config", "--unset", "merge.memtier-note.driver")
    git(a, "config", "--unset", "merge.memtier-generation.driver")
    done = memtier(a, "sync")
    assert done.returncode == 1
    assert "memtier-note, memtier-generation" in done.stderr and "text merge" in done.stderr
    assert "set them again: memtier sync init REMOTE" in done.stderr


def test_a_sync_adds_a_new_driver_to_an_older_attributes_file(tmp_path: Path) -> None:
    """An older memtier's attributes and config lack a driver the new ones name: the
    sync that writes the new attributes sets the driver too (§14 v4: no sync stays
    refused); with the attributes current, a missing driver is still refused."""
    remote, (a,) = hosts(tmp_path, 1)
    attributes = a / SYNC_GIT_DIR / "info/attributes"
    older = "".join(
        line + "\n" for line in attributes.read_text().splitlines() if "consolidated" not in line
    )
    attributes.write_text(older)
    git(a, "config", "--unset", "merge.memtier-generation.driver")
    assert memtier(a, "sync").returncode == 0
    assert attributes.read_text().endswith("/memory/consolidated/* merge=memtier-generation\n")
    git(a, "config", "--unset", "merge.memtier-generation.driver")
    assert memtier(a, "sync").returncode == 1
    ok(a, "sync", "init", str(remote))
    assert memtier(a, "sync").returncode == 0


def test_identical_snapshots_on_two_hosts_stay_two_blocks(tmp_path: Path) -> None:
    _remote, (a, b) = hosts(tmp_path, 2)
    buffer = (
        "# Working Buffer\ncreated: 2026-12-01T09:00:00+01:00\n"
        "last_active: 2026-12-01T09:00:00+01:00\n\n## Active Task:\n- the routine\n"
    )
    for ws in (a, b):
        (ws / "memory/working-buffer.md").write_text(buffer)
        ok(ws, "rotate")
    settle([a, b], rounds=2)
    note = (a / "memory/episodic/2026-12-01.md").read_text()
    assert len(set(re.findall(r"\((r-[0-9a-f]{8})\)", note))) == 2
    assert note.count("- the routine") == 2


def test_a_second_existing_workspace_merges_the_remote_memory_in(tmp_path: Path) -> None:
    from tests.conftest import new_workspace

    _remote, (a,) = hosts(tmp_path, 1)
    ok(a, "remember", "the router is gw01 in the hallway", "--kind", "infrastructure")
    ok(a, "sync")
    b = new_workspace(tmp_path / "b")
    ok(b, "remember", "the printer is pr02 upstairs", "--kind", "infrastructure")
    ok(b, "learn", "error", "the printer jammed")
    ok(b, "sync", "init", str(tmp_path / "remote.git"))
    ok(a, "sync")
    assert tracked(a) == tracked(b)
    infra = (a / "memory/semantic/infrastructure.md").read_text()
    assert "gw01" in infra and "pr02" in infra
    assert infra.count("#tags:") == 1 and infra.count("last_verified") == 1


def test_dry_run_changes_nothing_and_says_what_would_happen(tmp_path: Path) -> None:
    _remote, (a, b) = hosts(tmp_path, 2)
    ok(b, "remember", "the fridge runs a tiny linux", "--kind", "infrastructure")
    ok(b, "sync")
    ok(a, "learn", "error", "a dry run happened")
    head = git(a, "rev-parse", "HEAD")
    out = ok(a, "sync", "--dry-run")
    assert "would commit 1 file(s)" in out and "1 to merge" in out
    assert git(a, "rev-parse", "HEAD") == head
    assert git(a, "status", "--porcelain").strip() == "M .learnings/ERRORS.md"


def test_the_old_head_is_kept_as_a_backup_ref_before_a_merge(tmp_path: Path) -> None:
    _remote, (a, b) = hosts(tmp_path, 2)
    ok(a, "learn", "error", "one on a")
    ok(b, "learn", "error", "one on b")
    ok(a, "sync")
    ok(b, "sync")
    backups = git(b, "for-each-ref", "--format=%(refname) %(objectname)", "refs/memtier/backup/")
    assert backups.strip(), "no backup ref"
    kept = {line.split()[1] for line in backups.splitlines()}
    merge_parents = git(b, "rev-list", "--parents", "-n", "1", "HEAD").split()[1:]
    assert kept & set(merge_parents)


def test_a_credential_in_memory_refuses_the_sync_and_shares_nothing(tmp_path: Path) -> None:
    remote, (a,) = hosts(tmp_path, 1)
    before = subprocess.run(
        ["git", "--git-dir", str(remote), "rev-parse", "main"], capture_output=True, text=True
    ).stdout
    infra = a / "memory/semantic/infrastructure.md"
    infra.write_text(infra.read_text() + "- token ghp_" + "a1B2" * 9 + "\n")
    done = memtier(a, "sync")
    assert done.returncode == 1 and "credential" in done.stderr
    after = subprocess.run(
        ["git", "--git-dir", str(remote), "rev-parse", "main"], capture_output=True, text=True
    ).stdout
    assert before == after


def test_a_second_sync_while_one_runs_is_refused(tmp_path: Path) -> None:
    from memtier import store
    from tests.conftest import run_memtier

    _remote, (a,) = hosts(tmp_path, 1)
    with store.workspace_lock(a / "memory/.sync/sync.lock", timeout=0):  # another process
        done = run_memtier("--root", str(a), "--now", NOW, "sync")
    assert done.returncode == 1 and "another sync is running" in done.stderr


def test_a_conflict_warns_until_settled_the_way_the_readme_says(tmp_path: Path) -> None:
    import json

    a, b = conflicting(tmp_path)
    infra = "memory/semantic/infrastructure.md"
    assert memtier(b, "sync").returncode == 1

    def conflicts(ws: Path = b) -> list[dict[str, str]]:
        report = json.loads(memtier(ws, "health-check", "--json").stdout)
        return [c for c in report["checks"] if c["id"] == "sync.conflicts"]

    (warning,) = conflicts()
    assert warning["status"] == "warn"
    ok(a, "sync")  # the block travels: the other host is told too
    assert [c["status"] for c in conflicts(a)] == ["warn"]
    ok(b, "replace", "nas01 is 10.0.0.7", "nas01 is 10.0.0.5", "--in", infra)
    close = ["episodic", "close", "--decisions", "settled nas01", "--signal", "none"]
    # §4 v3: `--replace` writes the block as given; before v3 every close replaced.
    replace = ["--replace"] if "--replace" in ok(b, "episodic", "close", "--help") else []
    ok(b, *close, "--open", "none", *replace)
    assert conflicts() == []
    assert settle([a, b], rounds=2) == [0, 0]
    assert tracked(a) == tracked(b)
    assert "nas01 is 10.0.0.5" in (a / infra).read_text()


def test_sync_auto_syncs_at_session_start_and_end_and_never_fails_them(tmp_path: Path) -> None:
    remote, (a, b) = hosts(tmp_path, 2)
    for ws in (a, b):
        config = ws / "memory/memtier.toml"
        config.write_text(config.read_text() + "sync_auto = true\n")
    ok(a, "buffer", "task", "wire the sensors")
    end = memtier(a, "session-end")
    assert end.returncode == 0 and "memtier: sync: in sync" in end.stderr
    start = memtier(b, "session-start")
    assert start.returncode == 0 and "memtier: sync: in sync" in start.stderr
    assert "wire the sensors" in start.stdout  # synced before the context was printed
    remote.rename(tmp_path / "away.git")
    ok(b, "buffer", "note", "offline now")
    end = memtier(b, "session-end")
    assert end.returncode == 0
    assert [line for line in end.stderr.splitlines() if "sync:" in line] == [
        line for line in end.stderr.splitlines() if "could not be reached" in line
    ]
    assert "offline now" in git(b, "show", "HEAD:memory/episodic/2026-12-01.md")


def test_a_file_no_driver_can_merge_takes_ours_and_keeps_theirs_in_a_block(tmp_path: Path) -> None:
    """§14 v4: never a sync that stays refused (it used to change nothing and exit 1
    for good); the file takes ours, theirs stands in a conflict block."""
    _remote, (a, b) = hosts(tmp_path, 2)
    for ws, hours in ((a, 3), (b, 5)):  # both change one line of memtier.toml
        config = ws / "memory/memtier.toml"
        config.write_text(config.read_text() + f"stale_hours = {hours}\n")
    ok(a, "sync")
    done = memtier(b, "sync")
    assert done.returncode == 1 and "conflict(s) recorded" in done.stderr
    assert (b / "memory/memtier.toml").read_text().endswith("stale_hours = 5\n")
    note = (b / "memory/episodic/2026-12-01.md").read_text()
    assert "memory/memtier.toml could not be merged on two hosts; ours is kept" in note
    assert "    stale_hours = 3\n" in note
    assert git(b, "status", "--porcelain") == ""
    assert not list((b / "memory/.sync/conflicts").glob("*.json"))
    assert b"<<<<<<<" not in (b / "memory/memtier.toml").read_bytes()
    assert settle([a, b]) == [0, 0]
    assert tracked(a) == tracked(b)
    assert ok(b, "health-check")


def test_a_workspace_inside_another_repository_leaves_that_repository_alone(
    tmp_path: Path,
) -> None:
    from tests.conftest import new_workspace

    outer = tmp_path / "project"
    ws = new_workspace(outer / "agent")

    def plain(*args: str) -> str:
        return subprocess.run(
            ["git", "-C", str(outer), *args], capture_output=True, text=True, check=True
        ).stdout

    plain("init", "-q", "-b", "trunk")
    plain(
        "-c",
        "user.email=p@example.org",
        "-c",
        "user.name=p",
        "commit",
        "-q",
        "--allow-empty",
        "-m",
        "outer",
    )
    head, branches = plain("rev-parse", "HEAD"), plain("branch", "--list")
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    ok(ws, "sync", "init", str(remote))
    ok(ws, "learn", "error", "inside a project")
    ok(ws, "sync")
    assert plain("rev-parse", "HEAD") == head and plain("branch", "--list") == branches
    assert plain("ls-files") == ""
    assert not (ws / ".git").exists()


def test_sync_init_in_an_empty_folder_with_an_empty_remote_is_refused(tmp_path: Path) -> None:
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    folder = tmp_path / "empty"
    folder.mkdir()
    done = memtier(folder, "sync", "init", str(remote))
    assert done.returncode == 1 and "memtier init" in done.stderr
    assert not (folder / "MEMORY.md").exists()


def test_the_topic_index_is_rebuilt_after_a_merge(tmp_path: Path) -> None:
    _remote, (a, b) = hosts(tmp_path, 2)
    ok(a, "index", "add", "qdrant", "--category", "projects", "--match", "qdrant")
    settle([a, b], rounds=1)
    ok(a, "episodic", "append", "moved qdrant to host b", "--date", "2026-11-28")
    ok(b, "episodic", "append", "qdrant snapshot checked", "--date", "2026-11-27")
    assert settle([a, b], rounds=2) == [0, 0]
    for ws in (a, b):
        assert memtier(ws, "index", "rebuild", "--check").returncode == 0
        index = (ws / "memory/INDEX.md").read_text()
        assert "2026-11-27" in index and "2026-11-28" in index
    assert tracked(a) == tracked(b)


def test_one_generation_name_made_on_two_hosts_keeps_both_and_converges(tmp_path: Path) -> None:
    """§14: consolidated/* is immutable, a colliding name keeps both (never a text merge)."""
    _remote, (a, b) = hosts(tmp_path, 2)
    ok(a, "index", "add", "qdrant", "--category", "projects", "--match", "qdrant")
    assert settle([a, b], rounds=1) == [0, 0]
    ok(a, "episodic", "append", "moved qdrant to host a", "--date", "2026-11-27")
    ok(b, "episodic", "append", "qdrant snapshot checked on b", "--date", "2026-11-28")
    for ws in (a, b):  # the same topic, day and N: the same name, other bytes
        ok(ws, "consolidate", "qdrant")
    name = "memory/consolidated/qdrant-gen1-2026-12-01.md"
    made = {ws: (ws / name).read_bytes() for ws in (a, b)}
    assert made[a] != made[b]
    assert memtier(a, "sync").returncode == 0
    done = memtier(b, "sync")
    assert done.returncode == 0, done.stderr
    assert "kept both" in done.stderr
    assert settle([a, b], rounds=1) == [0, 0]
    trees = [tracked(ws) for ws in (a, b)]
    assert trees[0] == trees[1]
    generations = {k: v for k, v in trees[0].items() if k.startswith("memory/consolidated/")}
    assert sorted(generations) == [
        "memory/consolidated/qdrant-gen1-2026-12-01.1.md",
        name,
    ]
    assert sorted(generations.values()) == sorted(made.values())  # both, byte for byte
    for ws in (a, b):
        assert ok(ws, "health-check").endswith("✅ All required checks passed\n")
        assert memtier(ws, "index", "rebuild", "--check").returncode == 0


def test_an_archive_move_with_edits_beyond_rename_detection_keeps_every_edit(
    tmp_path: Path,
) -> None:
    """One host changes a file heavily and archives it (§7) before it syncs, the other
    edits the file in place: git sees no rename (under half the lines kept), only a
    delete against a change. The edit follows the file into the archive (§14)."""
    import os

    _remote, (a, b) = hosts(tmp_path, 2)
    old, stray = "2026-09-01", ".learnings/old-notes.md"
    ok(a, "episodic", "append", "the old day", "--date", old)
    (a / stray).write_text("# old notes\n- an old stray lesson\n")
    assert settle([a, b], rounds=1) == [0, 0]
    many = "".join(f"- line {n} of a long afternoon, with words enough\n" for n in range(40))
    ok(a, "episodic", "append", "-", "--date", old, input=many)
    ok(a, "archive", "episodic")  # a: the note, changed, into memory/archive/2026/09/
    ok(b, "episodic", "append", "a small line from b", "--date", old)
    (a / stray).write_text((a / stray).read_text() + "- a line from a\n")
    (b / stray).write_text((b / stray).read_text() + many.replace("line", "lesson"))
    month = 60 * 86400
    os.utime(b / stray, (os.path.getmtime(b / stray) - month,) * 2)
    ok(b, "archive", "learnings")  # b: the learnings file, changed, into the archive
    assert not (b / stray).exists()
    assert memtier(a, "sync").returncode == 0
    done = memtier(b, "sync")
    assert done.returncode == 0, done.stderr
    assert settle([a, b], rounds=1) == [0, 0]
    trees = [tracked(ws) for ws in (a, b)]
    assert trees[0] == trees[1]
    note = trees[0][f"memory/archive/2026/09/{old}.md"].decode()
    assert "the old day" in note and "a small line from b" in note and "- line 39 of" in note
    assert note.count("Updated:") == 1
    (archived,) = [k for k in trees[0] if k.startswith("memory/archive/learnings/")]
    lessons = trees[0][archived].decode()
    assert "- a line from a\n" in lessons and "- lesson 39 of" in lessons
    assert f"memory/episodic/{old}.md" not in trees[0] and stray not in trees[0]


def test_the_generation_driver_keeps_the_first_bytes_and_records_the_other(
    tmp_path: Path,
) -> None:
    import json

    from memtier.commands.sync._conflicts import copy_name
    from memtier.commands.sync.driver import run_merge_driver

    assert copy_name("t-gen2-2026-04-15.md", 1) == "t-gen2-2026-04-15.1.md"
    assert copy_name("t-gen2-2026-04-15.1.md", 2) == "t-gen2-2026-04-15.2.md"
    assert copy_name("notes", 3) == "notes.3"
    records = tmp_path / "conflicts"
    records.mkdir()
    base, ours, theirs = (tmp_path / n for n in ("o", "a", "b"))
    base.write_text("")
    for mine, other in (("# b version\n", "# a version\n"), ("# a version\n", "# b version\n")):
        ours.write_text(mine)
        theirs.write_text(other)
        shown = "memory/consolidated/t-gen1-2026-04-15.md"
        assert run_merge_driver("generation", base, ours, theirs, shown, records) == 0
        assert ours.read_text() == "# a version\n"  # the same choice on either host
        (record,) = records.glob("g-*.json")
        assert json.loads(record.read_text()) == {"path": shown, "text": "# b version\n"}
        record.unlink()
    theirs.write_text("# a version\n")  # the same bytes: nothing to keep twice
    assert run_merge_driver("generation", base, ours, theirs, "x", records) == 0
    assert not list(records.iterdir())
