"""Every tracked file has a merge, and a killed driver is retried (PROTOCOL §14 v4)."""

from __future__ import annotations

import json
import shlex
import shutil
import sys
from pathlib import Path

import pytest

from memtier.commands.sync.setup import ATTRIBUTES
from memtier.workspace import SYNC_GIT_DIR
from tests.reliability.reliability_support import run_in_process
from tests.sync_support import git, hosts, memtier, ok, settle, tracked

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="sync needs git")


def test_the_fact_driver_merges_by_identity_on_the_command_line(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The finding's own call: base a,b,c; ours a,b,d; theirs c,a,b,e. git runs a
    driver in the work tree's top folder on its own files there (§14 v4: confined)."""
    head = "# Infra\n#tags: docker\n> last_verified: 2026-11-01\n"
    files = {"O": "- a\n- b\n- c\n", "A": "- a\n- b\n- d\n", "B": "- c\n- a\n- b\n- e\n"}
    for name, body in files.items():
        (root / f".merge_file_{name}").write_text(head + body)
    monkeypatch.chdir(root)
    paths = [f".merge_file_{name}" for name in "OAB"]
    code, _out, err = run_in_process("merge-driver", "fact", *paths, "memory/semantic/x.md")
    assert code == 0, err
    assert (root / ".merge_file_A").read_text() == head + "- a\n- b\n- d\n- e\n"


def test_shims_an_older_memtier_tracked_are_untracked_and_stay_on_disk(tmp_path: Path) -> None:
    _remote, (a, b) = hosts(tmp_path, 2)
    ok(a, "install-scripts")
    git(a, "add", "-f", "memory/scripts")
    git(a, "commit", "-q", "-m", "an older memtier tracked the shims")
    # Both hosts shared that history while an older memtier ran on each (plain git here);
    # a remote's commit that adds a host's own file is refused since v4 (§14).
    git(a, "push", "-q", "origin", "HEAD:main")
    git(b, "fetch", "-q", "origin")
    git(b, "merge", "-q", "--ff-only", "origin/main")
    shims = sorted(p.name for p in (a / "memory/scripts").glob("*.sh"))
    assert shims
    ok(a, "sync")
    assert not [n for n in git(a, "ls-files").split() if n.startswith("memory/scripts/")]
    assert sorted(p.name for p in (a / "memory/scripts").glob("*.sh")) == shims
    ok(b, "install-scripts")
    assert settle([a, b]) == [0, 0]
    assert tracked(a) == tracked(b)
    assert "memory/scripts/health-check.sh" not in git(b, "ls-tree", "-r", "--name-only", "HEAD")
    checks = json.loads(memtier(a, "health-check", "--json").stdout)["checks"]
    assert [c["status"] for c in checks if c["id"] == "sync.local"] == ["pass"]


def test_shims_an_older_memtier_pushes_now_are_refused_and_never_written(
    tmp_path: Path,
) -> None:
    """A host still on an older memtier that pushes its shims after the others moved
    to v4: its commit adds a host's own (executable) files, which a remote may never
    bring (§14 v4). The sync is refused, with nothing written; every host is upgraded."""
    _remote, (a, b) = hosts(tmp_path, 2)
    ok(a, "install-scripts")
    git(a, "add", "-f", "memory/scripts")
    git(a, "commit", "-q", "-m", "an older memtier tracked the shims")
    git(a, "push", "-q", "origin", "HEAD:main")  # as an older memtier's sync did
    ok(b, "install-scripts")
    mine = b / "memory/scripts/health-check.sh"
    mine.write_text(mine.read_text() + "# this host's own\n")
    before = git(b, "rev-parse", "HEAD")
    done = memtier(b, "sync")
    assert done.returncode == 1
    assert "memory/scripts/" in done.stderr and "nothing was changed here" in done.stderr
    assert mine.read_text().endswith("# this host's own\n")
    assert git(b, "rev-parse", "HEAD") == before


def test_a_killed_driver_is_retried_before_anything_is_reported(tmp_path: Path) -> None:
    _remote, (a, b) = hosts(tmp_path, 2)
    flag = tmp_path / "killed-once"
    wrapper = tmp_path / "fact-driver.sh"
    driver = f"{shlex.quote(sys.executable)} -m memtier merge-driver fact"
    once = shlex.quote(str(flag))
    wrapper.write_text(
        f'#!/bin/sh\nif [ ! -e {once} ]; then touch {once}; kill -9 $$; fi\nexec {driver} "$@"\n'
    )
    git(b, "config", "merge.memtier-fact.driver", f"sh {shlex.quote(str(wrapper))} %O %A %B %P")
    ok(a, "remember", "the nas has four disks", "--kind", "infrastructure")
    ok(b, "remember", "the router is a mikrotik", "--kind", "infrastructure")
    ok(a, "sync")
    done = memtier(b, "sync")
    assert flag.exists()  # the first driver died
    assert done.returncode == 0, done.stderr
    infra = (b / "memory/semantic/infrastructure.md").read_text()
    assert "the nas has four disks" in infra and "the router is a mikrotik" in infra
    note = b / "memory/episodic/2026-12-01.md"
    assert not note.exists() or "sync conflict" not in note.read_text()
    assert not list((b / "memory/.sync/conflicts").glob("*.json"))


def test_health_names_a_tracked_file_without_a_merge_driver(tmp_path: Path) -> None:
    _remote, (a,) = hosts(tmp_path, 1)
    older = "".join(
        line + "\n" for line in ATTRIBUTES.splitlines() if line != "* merge=memtier-text"
    )
    attributes = a / SYNC_GIT_DIR / "info" / "attributes"
    attributes.write_text(older)
    done = memtier(a, "health-check", "--json")
    (check,) = [c for c in json.loads(done.stdout)["checks"] if c["id"] == "sync.driver"]
    assert check["status"] == "fail"
    assert "memory/memtier.toml" in check["message"]
    attributes.write_text(ATTRIBUTES)
    done = memtier(a, "health-check", "--json")
    (check,) = [c for c in json.loads(done.stdout)["checks"] if c["id"] == "sync.driver"]
    assert check["status"] == "pass"


# git starts a driver for every file both hosts changed: what none of them needs.
DRIVER_NEVER_LOADS = (
    "typer",
    "click",
    "dataclasses",
    "inspect",
    "json",
    "hashlib",
    "memtier.secrets",
)


@pytest.mark.parametrize("kind", ["note", "fact", "lines", "text"])
def test_a_merge_driver_loads_only_what_its_kind_needs(root: Path, kind: str) -> None:
    import subprocess

    for name, body in {"O": "- a\n", "A": "- a\n- b\n", "B": "- a\n- c\n"}.items():
        (root / f".merge_file_{name}").write_text(body)
    call = ["merge-driver", kind, ".merge_file_O", ".merge_file_A", ".merge_file_B", "x.md"]
    code = (
        "import sys; from memtier.__main__ import main; "
        f"code = main({call!r}); "
        f"loaded = [m for m in {DRIVER_NEVER_LOADS!r} if m in sys.modules]; "
        "others = sorted({'memtier.formats.index', 'memtier.formats.fact_merge'} "
        "& set(sys.modules)); "
        "sys.stderr.write(f'\\nexit {code} loaded {loaded} {others}')"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True)
    others = ["memtier.formats.fact_merge"] if kind == "fact" else []
    assert proc.stderr.splitlines()[-1] == f"exit 0 loaded [] {others}", proc.stderr


@pytest.mark.parametrize(
    "commands",
    [
        # as `sync init` writes them
        [["merge.memtier-note.driver", "memtier merge-driver note %O %A %B %P"]],
        # set, then unset: the section stays, the key goes
        [["merge.memtier-note.driver", "x"], ["--unset", "merge.memtier-note.driver"]],
        # a name only, no driver
        [["merge.memtier-fact.name", "facts"]],
        # a value holding '=' and '"', and a key git writes in another case
        [["merge.memtier-fact.DRIVER", 'run "a=b" %A']],
        # another section's driver key
        [["diff.memtier-note.driver", "x"], ["merge.memtier-ours.driver", "true"]],
    ],
)
def test_the_drivers_read_from_the_config_file_are_those_git_lists(
    tmp_path: Path, commands: list[list[str]]
) -> None:
    """A sync reads the drivers from its repository's config file instead of asking
    git; what it reads there is checked against git's own answer on files git wrote."""
    import subprocess

    from memtier.commands.sync.setup import drivers_in_file

    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    for args in commands:
        subprocess.run(["git", "-C", str(repo), "config", *args], check=True)
    listed = subprocess.run(
        ["git", "-C", str(repo), "config", "--local", "--get-regexp", r"^merge\..*\.driver$"],
        capture_output=True,
        text=True,
    ).stdout
    by_git = {line.split(" ", 1)[0].split(".")[1] for line in listed.splitlines() if line}
    assert drivers_in_file(repo / ".git/config") == by_git


def test_a_config_file_that_cannot_be_read_names_no_driver(tmp_path: Path) -> None:
    from memtier.commands.sync.setup import drivers_in_file

    assert drivers_in_file(tmp_path / "absent") == set()
    (tmp_path / "bytes").write_bytes(b'[merge "memtier-note"]\n\tdriver = \xff\n')
    assert drivers_in_file(tmp_path / "bytes") == set()


def test_the_paths_of_each_driver_are_the_paths_git_gives_it(tmp_path: Path) -> None:
    """`driver_of` reads the attributes as git does: git's own `check-attr`, on a
    repository holding them, names the same driver for every path."""
    import subprocess

    from memtier.commands.sync.attributes import driver_of

    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / ".git" / "info" / "attributes").write_text(ATTRIBUTES)
    paths = [
        "MEMORY.md",
        "sub/MEMORY.md",
        "memory/semantic/projects.md",
        "memory/semantic/deep/projects.md",
        "memory/semantic/notes.txt",
        "memory/procedural/runbook.md",
        "memory/episodic/2026-12-01.md",
        "memory/archive/2025/2025-01-01.md",
        "memory/archive/learnings/2025/errors.md",
        "memory/archive/retired.md",
        ".learnings/errors.md",
        ".learnings/deep/x.md",
        "memory/INDEX.md",
        "memory/consolidated/restic-g1.md",
        "notes.md",
    ]
    checked = subprocess.run(
        ["git", "-C", str(tmp_path), "check-attr", "merge", "--", *paths],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    given = {line.split(": ")[0]: line.split(": ")[-1] for line in checked}
    drivers = {value for value in given.values() if value.startswith("memtier-")}
    assert {"memtier-fact", "memtier-note", "memtier-lines", "memtier-text"} <= drivers
    assert {p: driver_of(p) for p in paths} == {
        p: given[p] if given[p] != "unspecified" else None for p in paths
    }
