"""A remote is data, never code (PROTOCOL §14 v4): a hostile host with a plain
clone of the shared bare repository, real git, real hosts.

Whatever the hostile host commits, a sync (or a second host's ``sync init``) that
meets it refuses with exit 1 naming the path and its commit, changes nothing
here, and runs nothing: each planted hook or command would create a marker file,
which must never exist.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

from memtier.commands.sync._trust import ATTRIBUTES_BEFORE_V4
from tests.conftest import memtier_in_process, new_workspace
from tests.sync_support import hosts, memtier, ok

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="sync needs git")

GHP = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"  # the shape of a GitHub token


def repo_dir(ws: Path) -> Path:
    """The memory's repository of *ws*, wherever this memtier keeps it."""
    for rel in ("memory/.sync/.git/repo", "memory/.sync/git"):
        if (ws / rel / "HEAD").is_file():
            return ws / rel
    raise AssertionError(f"no repository in {ws}")


def mgit(ws: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "GIT_DIR": str(repo_dir(ws)), "GIT_WORK_TREE": str(ws)}
    return subprocess.run(
        ["git", *args], cwd=ws, env=env, capture_output=True, text=True, check=check, timeout=60
    )


def plain(folder: Path, *args: str, stdin: str | None = None) -> str:
    done = subprocess.run(
        ["git", "-C", str(folder), *args],
        input=stdin,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return done.stdout.strip()


def hostile(tmp_path: Path, remote: Path) -> Path:
    """A plain `git clone` of the shared repository: the hostile host."""
    clone = tmp_path / "evil"
    subprocess.run(
        ["git", "clone", "-q", "-b", "main", str(remote), str(clone)], check=True, timeout=60
    )
    plain(clone, "config", "user.email", "evil@example.org")
    plain(clone, "config", "user.name", "evil")
    return clone


def hook(marker: Path) -> str:
    return f"#!/bin/sh\necho ran >> {marker}\n"


def plant(clone: Path, entries: dict[str, tuple[str, str]], message: str = "data") -> str:
    """Commit *entries* (path → (mode, content; a symlink's target)) on top of the
    clone's head, through the index so any mode goes in, and push; the commit."""
    for path, (mode, content) in entries.items():
        blob = plain(clone, "hash-object", "-w", "--stdin", stdin=content)
        plain(clone, "update-index", "--add", "--cacheinfo", f"{mode},{blob},{path}")
    plain(clone, "commit", "-q", "--no-verify", "-m", message)
    plain(clone, "push", "-q", "origin", "HEAD:main")
    return plain(clone, "rev-parse", "HEAD")


def _with_file(clone: Path, tree: str | None, parts: list[str], blob: str) -> str:
    """*tree* (None: empty) with the file *parts* added as *blob*, made with mktree,
    which, unlike the index, takes a ``.git`` component."""
    entries = plain(clone, "ls-tree", tree).splitlines() if tree else []
    kept = [e for e in entries if e.split("\t", 1)[1] != parts[0]]
    if len(parts) == 1:
        kept.append(f"100755 blob {blob}\t{parts[0]}")
    else:
        old = [e.split()[2] for e in entries if e.split("\t", 1)[1] == parts[0]]
        sub = _with_file(clone, old[0] if old else None, parts[1:], blob)
        kept.append(f"040000 tree {sub}\t{parts[0]}")
    return plain(clone, "mktree", stdin="\n".join(kept) + "\n")


def plant_tree(clone: Path, path: str, content: str) -> str:
    """Commit an executable file at *path* on top of the clone's head and push it,
    whatever its name; the commit."""
    blob = plain(clone, "hash-object", "-w", "--stdin", stdin=content)
    tree = _with_file(clone, plain(clone, "rev-parse", "HEAD^{tree}"), path.split("/"), blob)
    commit = plain(clone, "commit-tree", tree, "-p", "HEAD", "-m", "data")
    plain(clone, "push", "-q", "origin", f"{commit}:refs/heads/main")
    return commit


def local_state(ws: Path) -> dict[str, object]:
    """Everything of *ws* a refused sync must leave alone: every file outside the
    sync folder (the buffer included), the branch and backup refs, HEAD, the
    index, the repository's config, attributes and hooks."""
    files = {
        p.relative_to(ws).as_posix(): p.read_bytes()
        for p in sorted(ws.rglob("*"))
        if not p.relative_to(ws).as_posix().startswith("memory/.sync/")
        and (p.is_symlink() or p.is_file())
    }
    repo = repo_dir(ws)
    return {
        "files": files,
        "refs": mgit(ws, "for-each-ref", "refs/heads", "refs/memtier").stdout,
        "HEAD": (repo / "HEAD").read_bytes(),
        "index": mgit(ws, "ls-files", "-s", "-z").stdout,  # entries, not git's stat cache
        "config": (repo / "config").read_bytes(),
        "info": sorted((p.name, p.read_bytes()) for p in (repo / "info").iterdir()),
        "hooks": sorted(p.name for p in (repo / "hooks").iterdir()),
    }


def _refused(ws: Path, path: str, commit: str) -> None:
    before = local_state(ws)
    done = memtier(ws, "sync")
    assert done.returncode == 1, (done.stdout, done.stderr)
    assert path in done.stderr and commit[:12] in done.stderr, done.stderr
    assert local_state(ws) == before


# -- what comes in is checked before anything of it is written -------------------------


@pytest.mark.parametrize(
    "planted",
    [
        "memory/.sync/git/hooks/post-merge",  # where the repository was before v4
        "memory/.sync/git/hooks/post-checkout",
        "memory/.SYNC/git/hooks/post-merge",  # one case-insensitive file system away
        "memory/.sync/host-id",
    ],
)
def test_a_file_under_the_sync_folder_is_refused_and_never_runs(
    tmp_path: Path, planted: str
) -> None:
    remote, (a,) = hosts(tmp_path, 1)
    marker = tmp_path / "marker"
    commit = plant(hostile(tmp_path, remote), {planted: ("100755", hook(marker))})
    _refused(a, planted, commit)
    assert not (a / planted).exists() or (a / planted).read_text() != hook(marker)
    assert not (a / "memory/.sync/git/hooks/post-merge").exists()
    assert not marker.exists()


def test_a_config_committed_into_the_old_repository_place_is_refused(tmp_path: Path) -> None:
    remote, (a,) = hosts(tmp_path, 1)
    marker = tmp_path / "marker"
    config = f'[core]\n\tfsmonitor = "touch {marker}"\n\tbare = false\n'
    commit = plant(hostile(tmp_path, remote), {"memory/.sync/git/config": ("100644", config)})
    _refused(a, "memory/.sync/git/config", commit)
    ok(a, "remember", "a later fact", "--kind", "infrastructure")
    assert memtier(a, "sync").returncode == 1  # still refused, still nothing run
    assert not marker.exists()


def test_a_second_host_refuses_a_remote_with_a_checkout_hook(tmp_path: Path) -> None:
    remote, _hosts = hosts(tmp_path, 1)
    marker = tmp_path / "marker"
    evil = hostile(tmp_path, remote)
    commit = plant(evil, {"memory/.sync/git/hooks/post-checkout": ("100755", hook(marker))})
    second = tmp_path / "second"
    second.mkdir()
    done = memtier(second, "sync", "init", str(remote))
    assert done.returncode == 1, (done.stdout, done.stderr)
    assert "memory/.sync/git/hooks/post-checkout" in done.stderr
    assert commit[:12] in done.stderr
    assert not marker.exists()
    assert not (second / "MEMORY.md").exists()  # nothing of the remote was checked out
    assert not (second / "memory/.sync/git/hooks/post-checkout").exists()


def test_the_working_buffer_from_a_remote_never_replaces_the_local_one(tmp_path: Path) -> None:
    remote, (a,) = hosts(tmp_path, 1)
    ok(a, "buffer", "task", "only on this host")
    buffer = (a / "memory/working-buffer.md").read_bytes()
    commit = plant(
        hostile(tmp_path, remote),
        {"memory/working-buffer.md": ("100644", "# Working Buffer\n\n- the remote's\n")},
    )
    _refused(a, "memory/working-buffer.md", commit)
    assert (a / "memory/working-buffer.md").read_bytes() == buffer


def test_a_gitattributes_from_a_remote_never_switches_the_drivers_off(tmp_path: Path) -> None:
    remote, (a, b) = hosts(tmp_path, 2)
    commit = plant(hostile(tmp_path, remote), {".gitattributes": ("100644", "* merge=union\n")})
    _refused(a, ".gitattributes", commit)
    assert memtier(b, "sync").returncode == 1
    assert [c for c in mgit(a, "ls-files", "-z").stdout.split("\0") if c.startswith(".")] == [
        ".learnings/ERRORS.md",
        ".learnings/FEATURE_REQUESTS.md",
        ".learnings/LEARNINGS.md",
    ]


def test_a_note_with_two_closure_blocks_after_a_merge_is_not_pushed(tmp_path: Path) -> None:
    """What a text merge leaves (the damage a `merge=union` did): health fails
    ``episodic.closure.unique``, so sync keeps the merge here and pushes nothing."""
    remote, (a,) = hosts(tmp_path, 1)
    block = "Updated: 2026-11-30\nDecisions: none\nSignal: none\nOpen: none\n"
    note = f"# 2026-11-30\n\n### 10:00 a\n- one\n\n{block}\n### 11:00 b\n- two\n\n{block}"
    evil = plant(hostile(tmp_path, remote), {"memory/episodic/2026-11-30.md": ("100644", note)})
    ok(a, "remember", "a fact of this host", "--kind", "infrastructure")
    done = memtier(a, "sync")
    assert done.returncode == 1, (done.stdout, done.stderr)
    assert "second closure block in memory/episodic/2026-11-30.md:6" in done.stderr
    assert plain(remote, "rev-parse", "main") == evil  # this host's merge stayed here
    assert "a fact of this host" in mgit(a, "show", "HEAD:memory/semantic/infrastructure.md").stdout


@pytest.mark.parametrize(
    ("path", "mode", "content", "said"),
    [
        ("memory/episodic", "120000", "/tmp", "a symlink"),
        ("memory/semantic/linked.md", "120000", "../../MEMORY.md", "a symlink"),
        ("memory/semantic/tool.md", "100755", "#!/bin/sh\n", "an executable file"),
        ("memory/scripts/session-start.sh", "100644", "#!/bin/sh\n", "this host's own file"),
        ("memory/Working-Buffer.md", "100644", "x\n", "this host's own file"),
        (".gitmodules", "100644", '[submodule "x"]\n', "a file of git's"),
        ("notes.txt", "100644", "x\n", "not part of the memory"),
        ("memory/semantic/a\nb.md", "100644", "x\n", "an odd name"),
        ("memory/semantic/\u202ecod.md", "100644", "x\n", "an odd name"),
    ],
)
def test_anything_but_a_memory_file_is_refused(
    tmp_path: Path, path: str, mode: str, content: str, said: str
) -> None:
    remote, (a,) = hosts(tmp_path, 1)
    commit = plant(hostile(tmp_path, remote), {path: (mode, content)})
    before = local_state(a)
    done = memtier(a, "sync")
    assert done.returncode == 1, (done.stdout, done.stderr)
    assert said in done.stderr and commit[:12] in done.stderr, done.stderr
    assert "\n" not in done.stderr.rstrip("\n") and "\u202e" not in done.stderr
    assert local_state(a) == before


def test_a_submodule_from_a_remote_is_refused(tmp_path: Path) -> None:
    remote, (a,) = hosts(tmp_path, 1)
    evil = hostile(tmp_path, remote)
    head = plain(evil, "rev-parse", "HEAD")
    plain(evil, "update-index", "--add", "--cacheinfo", f"160000,{head},memory/semantic/sub")
    plain(evil, "commit", "-q", "-m", "data")
    plain(evil, "push", "-q", "origin", "HEAD:main")
    _refused(a, "memory/semantic/sub", plain(evil, "rev-parse", "HEAD"))


def test_a_bad_path_in_an_earlier_commit_is_refused_though_the_tip_dropped_it(
    tmp_path: Path,
) -> None:
    remote, (a,) = hosts(tmp_path, 1)
    evil = hostile(tmp_path, remote)
    first = plant(evil, {"memory/.sync/git/hooks/post-merge": ("100755", "#!/bin/sh\n")})
    plain(evil, "rm", "-q", "--cached", "memory/.sync/git/hooks/post-merge")
    plain(evil, "commit", "-q", "-m", "gone again")
    plain(evil, "push", "-q", "origin", "HEAD:main")
    _refused(a, "memory/.sync/git/hooks/post-merge", first)


def test_ordinary_memory_from_a_remote_still_comes_in(tmp_path: Path) -> None:
    remote, (a,) = hosts(tmp_path, 1)
    plant(
        hostile(tmp_path, remote),
        {
            "memory/semantic/märz-notizen.md": ("100644", "# März\n\n- ein Fakt\n"),
            "memory/archive/2026/10/2026-10-01.md": ("100644", "# 2026-10-01\n"),
            ".learnings/LEARNINGS.md": ("100644", "# Learnings\n"),
        },
    )
    ok(a, "sync")
    assert (a / "memory/semantic/märz-notizen.md").read_text() == "# März\n\n- ein Fakt\n"


# -- the repository is out of any checkout's reach ---------------------------------------


def test_git_itself_refuses_to_check_out_a_path_into_the_repository(tmp_path: Path) -> None:
    """The claim the repository's place rests on: a tracked path with a ``.git``
    component never reaches the disk, whoever runs the checkout."""
    remote, (a,) = hosts(tmp_path, 1)
    marker = tmp_path / "marker"
    planted = "memory/.sync/.git/repo/hooks/post-merge"
    commit = plant_tree(hostile(tmp_path, remote), planted, hook(marker))
    _refused(a, planted, commit)  # memtier's own check says no first
    mgit(a, "fetch", "-q", "origin")
    forced = mgit(a, "merge", "-q", "--ff-only", commit, check=False)  # plain git, no check
    assert forced.returncode != 0 and "invalid path" in forced.stderr
    assert not (a / planted).exists() and not marker.exists()
    assert mgit(a, "status", "--porcelain").stdout == ""


def test_no_hook_or_configured_command_of_the_repository_ever_runs(tmp_path: Path) -> None:
    """A repository a remote wrote into before v4 keeps what it wrote: hooks and
    fsmonitor. Commit, fast-forward, merge, push and a second `sync init` run none."""
    remote, (a, b) = hosts(tmp_path, 2)
    marker = tmp_path / "marker"
    for ws in (a, b):
        hooks = repo_dir(ws) / "hooks"
        for name in ("post-merge", "post-checkout", "post-commit", "pre-push",
                     "reference-transaction", "pre-auto-gc", "post-rewrite"):  # fmt: skip
            (hooks / name).write_text(hook(marker))
            (hooks / name).chmod(0o755)
        mgit(ws, "config", "core.fsmonitor", f"echo fsmonitor >> {marker}; false")
    ok(a, "remember", "a fact from a", "--kind", "infrastructure")
    ok(a, "sync")  # commit and push
    ok(b, "sync")  # fast-forward
    ok(a, "remember", "another fact from a", "--kind", "infrastructure")
    ok(b, "remember", "a fact from b", "--kind", "preference")
    ok(a, "sync")
    ok(b, "sync")  # merge
    ok(a, "sync")
    ok(b, "sync", "init", str(remote))  # set up again
    assert not marker.exists(), marker.read_text()
    assert "a fact from b" in (a / "memory/semantic/preferences.md").read_text()


# -- a repository made before v4 moves -----------------------------------------------


def _made_before_v4(ws: Path) -> None:
    """*ws*'s repository as an older memtier left it: at memory/.sync/git, the
    attributes in a tracked .gitattributes."""
    new = ws / "memory/.sync/.git/repo"
    if new.is_dir():
        new.rename(ws / "memory/.sync/git")
        (ws / "memory/.sync/.git").rmdir()
    info = ws / "memory/.sync/git/info"
    attributes = (info / "attributes").read_text() if (info / "attributes").exists() else ""
    if attributes:
        # what an older memtier wrote: its lines, not today's (which name newer drivers)
        older = sorted(line for line in ATTRIBUTES_BEFORE_V4 if line)
        (ws / ".gitattributes").write_text("".join(line + "\n" for line in older))
        (info / "attributes").unlink()
        exclude = (
            (info / "exclude")
            .read_text()
            .replace("!/.learnings/\n", "!/.learnings/\n!/.gitattributes\n")
        )
        (info / "exclude").write_text(exclude)
        mgit(ws, "add", "-f", ".gitattributes")
        mgit(ws, "commit", "-q", "--no-verify", "-m", "older memtier")


def test_a_repository_made_before_v4_moves_and_stops_tracking_its_attributes(
    tmp_path: Path,
) -> None:
    _remote, (a, b) = hosts(tmp_path, 2)
    _made_before_v4(a)
    ok(a, "sync")
    _made_before_v4(b)
    marker = tmp_path / "marker"
    old_hooks = b / "memory/.sync/git/hooks"
    (old_hooks / "post-merge").write_text(hook(marker))  # what the old hole let in
    (old_hooks / "post-merge").chmod(0o755)
    ok(a, "remember", "a fact after the move", "--kind", "infrastructure")
    ok(a, "sync")
    ok(b, "sync")  # moves, then fast-forwards or merges a's work
    for ws in (a, b):
        assert not (ws / "memory/.sync/git").exists()
        repo = ws / "memory/.sync/.git/repo"
        assert (repo / "HEAD").is_file()
        assert "merge=memtier-note" in (repo / "info/attributes").read_text()
        assert ".gitattributes" not in mgit(ws, "ls-files").stdout
        assert not (ws / ".gitattributes").exists()
        assert mgit(ws, "status", "--porcelain").stdout == ""
    assert "a fact after the move" in (b / "memory/semantic/infrastructure.md").read_text()
    assert not marker.exists()
    checks = json.loads(memtier(b, "health-check", "--json").stdout)["checks"]
    assert [c["status"] for c in checks if c["id"] in ("sync.driver", "sync.local")] == [
        "pass",
        "pass",
    ]


def test_a_new_host_joins_a_memory_whose_history_tracked_the_attributes(
    tmp_path: Path,
) -> None:
    remote, (a,) = hosts(tmp_path, 1)
    _made_before_v4(a)
    mgit(a, "push", "-q", "origin", "HEAD:main")  # as the older memtier pushed it
    second = tmp_path / "second"
    second.mkdir()
    ok(second, "sync", "init", str(remote))
    assert not (second / ".gitattributes").exists()
    ok(second, "sync")
    assert ".gitattributes" not in mgit(second, "ls-files").stdout


# -- nothing secret leaves -----------------------------------------------------------


def test_a_credential_in_an_archived_note_is_never_pushed(tmp_path: Path) -> None:
    remote, (a,) = hosts(tmp_path, 1)
    archived = a / "memory/archive/2026/10/2026-10-01.md"
    archived.parent.mkdir(parents=True)
    key = "AKIA" + "Z7QW3E4R5T6Y7U8I"
    archived.write_text(f"# 2026-10-01\n\n- aws key {key}\n- password: Hunter2!xq\n")
    tip = plain(remote, "rev-parse", "main")
    done = memtier(a, "sync")
    assert done.returncode == 1, (done.stdout, done.stderr)
    assert "memory/archive/2026/10/2026-10-01.md" in done.stderr
    assert key not in done.stderr + done.stdout
    assert plain(remote, "rev-parse", "main") == tip


def test_a_credential_in_a_file_name_is_never_pushed_nor_shown(tmp_path: Path) -> None:
    remote, (a,) = hosts(tmp_path, 1)
    (a / f"memory/semantic/{GHP}.md").write_text("# Notes\n\n- nothing secret inside\n")
    tip = plain(remote, "rev-parse", "main")
    done = memtier(a, "sync")
    assert done.returncode == 1, (done.stdout, done.stderr)
    assert "memory/semantic/" in done.stderr and "name" in done.stderr
    assert GHP not in done.stdout + done.stderr
    assert plain(remote, "rev-parse", "main") == tip


# -- the merge driver touches git's temporary files in the workspace only -------------------


def test_the_merge_driver_never_writes_outside_the_workspace(tmp_path: Path) -> None:
    ws = new_workspace(tmp_path / "ws")
    outside = tmp_path / "precious.md"
    outside.write_text("# Precious\n\n- keep me\n")
    inside = ws / ".merge_file_abc123"
    inside.write_text("# Notes\n\n- ours\n")
    for args in (
        (str(inside), str(outside), str(inside)),  # %A outside
        (str(outside), str(inside), str(inside)),  # %O outside: never read either
        (str(inside), str(ws / "memory"), str(inside)),  # a folder
    ):
        done = memtier_in_process("merge-driver", "fact", *args, "MEMORY.md", cwd=ws)
        assert done.returncode == 2, (args, done.stdout, done.stderr)
        assert outside.read_text() == "# Precious\n\n- keep me\n"
        assert (ws / "memory").is_dir()
    link = ws / ".merge_file_link"
    link.symlink_to(outside)
    done = memtier_in_process("merge-driver", "fact", str(inside), str(link), str(inside), cwd=ws)
    assert done.returncode == 2 and outside.read_text() == "# Precious\n\n- keep me\n"
    theirs = ws / ".merge_file_theirs"
    theirs.write_text("# Notes\n\n- ours\n- theirs\n")
    done = memtier_in_process(
        "merge-driver", "fact", str(inside), str(inside), str(theirs), "MEMORY.md", cwd=ws
    )
    assert done.returncode == 0, done.stderr
    assert "- theirs" in inside.read_text()
    assert stat.S_ISREG(os.lstat(inside).st_mode)


def test_a_hook_from_a_remote_is_refused_on_the_merge_path_too(tmp_path: Path) -> None:
    remote, (a,) = hosts(tmp_path, 1)
    marker = tmp_path / "marker"
    planted = "memory/.sync/git/hooks/post-merge"
    evil = plant(hostile(tmp_path, remote), {planted: ("100755", hook(marker))})
    ok(a, "remember", "a fact of this host", "--kind", "infrastructure")  # so: a merge
    done = memtier(a, "sync")
    assert done.returncode == 1 and planted in done.stderr and evil[:12] in done.stderr
    assert plain(remote, "rev-parse", "main") == evil  # nothing of this host was pushed
    assert mgit(a, "rev-list", "--count", f"{evil}..HEAD").stdout.strip() == "1"  # no merge
    assert not (a / planted).exists() and not marker.exists()


@pytest.mark.parametrize(
    ("path", "mode", "refused"),
    [
        ("MEMORY.md", "100644", None),
        ("memory/episodic/2026-12-01.md", "100644", None),
        ("memory/archive/learnings/2026/10/ERRORS.md", "100644", None),
        (".learnings/ERRORS.md", "100644", None),
        ("memory/semantic/größe.md", "100644", None),
        ("memory/INDEX.md", "100755", "an executable file"),
        ("memory/semantic/x.md", "100664", "mode 100664, not a regular file"),
        ("memory", "100644", "not part of the memory"),
        ("MEMORY.md/x", "100644", "not part of the memory"),
        (".learnings", "100644", "not part of the memory"),
        (".git/hooks/post-merge", "100644", "a file of git's"),
        (".GITattributes", "100644", "a file of git's"),
        ("memory/.GIT/config", "100644", "an odd name"),
        ("memory/semantic/.hidden.md", "100644", "an odd name"),
        ("memory/semantic/../../x", "100644", "an odd name"),
        ("memory/semantic/x.md.", "100644", "an odd name"),
        ("memory/semantic/x.md ", "100644", "an odd name"),
        ("memory/semantic/a\\b.md", "100644", "an odd name"),
        ("memory/semantic/\u200dx.md", "100644", "an odd name"),
        ("memory/semantic/\udcff.md", "100644", "an odd name"),
        ("memory/semantic/" + "x" * 253 + ".md", "100644", "an odd name"),
        (".learnings/.x", "100644", "an odd name"),
        ("memory/.sync/host-id", "100644", "this host's own file"),
        ("memory/working-buffer.md.pending", "100644", "this host's own file"),
        ("memory/SCRIPTS/x.sh", "100644", "this host's own file"),
        ("memory/.memtier.lock", "100644", "this host's own file"),
    ],
)
def test_which_paths_a_remote_may_bring(path: str, mode: str, refused: str | None) -> None:
    from memtier.commands.sync._trust import refusal

    assert refusal(path, mode) == refused


def test_a_host_upgraded_in_place_gets_the_new_drivers_of_its_own_prefix(
    tmp_path: Path,
) -> None:
    """A repository set up by an older memtier has no memtier-index or memtier-text
    driver; the first sync that writes the v4 attributes sets them as its own `note`
    driver is set, and syncs on (§14 v4: never a sync that stays refused)."""
    _remote, (a,) = hosts(tmp_path, 1)
    for kind in ("index", "text"):
        mgit(a, "config", "--remove-section", f"merge.memtier-{kind}")
    (a / "memory/.sync/.git/repo/info/attributes").write_text("# an older memtier's\n")
    note = mgit(a, "config", "--get", "merge.memtier-note.driver").stdout.strip()
    done = memtier(a, "sync")
    assert done.returncode == 0, done.stderr
    for kind in ("index", "text"):
        driver = mgit(a, "config", "--get", f"merge.memtier-{kind}.driver").stdout.strip()
        assert driver == note.replace(" note ", f" {kind} ")
