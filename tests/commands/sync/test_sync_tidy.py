"""The housekeeping's reading of the object folder against real git (PROTOCOL §14 v4
"Small and quiet"): `gc_due` must say what ``git gc --auto`` decides, and
`loose_kib` what ``git count-objects`` reports, since sync starts neither to ask.

git's decision is seen through its ``pre-auto-gc`` hook, which git runs only once
it has found work; the hook here notes that it ran and exits 1, which makes git
stop before packing anything, so one repository serves every step.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
from pathlib import Path

import pytest

from memtier.commands.sync._tidy import GIT_GC_AUTO, GIT_GC_AUTO_PACK_LIMIT, gc_due, loose_kib

pytestmark = pytest.mark.skipif(
    __import__("shutil").which("git") is None, reason="sync needs the git executable"
)

SAMPLE_LIMIT = -(-GIT_GC_AUTO // 256)  # 27: git's threshold for objects/17


def _git(repo: Path, *args: str, stdin: str = "") -> str:
    # No system or global config (HOME is the test's own): git's defaults decide.
    env = {**os.environ, "GIT_DIR": str(repo), "GIT_CONFIG_NOSYSTEM": "1"}
    done = subprocess.run(
        ["git", *args], input=stdin, env=env, capture_output=True, text=True, check=True
    )
    return done.stdout


def _repository(tmp_path: Path) -> Path:
    repo = tmp_path / "repo.git"
    subprocess.run(["git", "init", "-q", "--bare", str(repo)], check=True)
    hook = repo / "hooks" / "pre-auto-gc"
    hook.write_text(f"#!/bin/sh\ntouch '{tmp_path / 'gc-due'}'\nexit 1\n")
    hook.chmod(0o755)
    return repo


def _git_finds_work(repo: Path) -> bool:
    witness = repo.parent / "gc-due"
    witness.unlink(missing_ok=True)
    _git(repo, "gc", "--auto", "--quiet")
    return witness.exists()


def _blobs(tmp_path: Path, repo: Path, count: int, *, prefix: str = "", skip: int = 0) -> list[str]:
    """Write *count* new loose blobs (their ids starting with *prefix*) in one git call."""
    folder = tmp_path / "blobs"
    folder.mkdir(exist_ok=True)
    paths: list[str] = []
    n = skip
    while len(paths) < count:
        body = f"blob number {n}\n".encode()
        n += 1
        if hashlib.sha1(b"blob %d\0" % len(body) + body).hexdigest().startswith(prefix):
            path = folder / f"{n}.txt"
            path.write_bytes(body)
            paths.append(str(path))
    return _git(repo, "hash-object", "-w", "--stdin-paths", stdin="\n".join(paths) + "\n").split()


def test_loose_objects_in_the_sample_folder_are_counted_as_git_counts_them(
    tmp_path: Path,
) -> None:
    repo = _repository(tmp_path)
    objects = repo / "objects"
    assert gc_due(objects) is _git_finds_work(repo) is False
    made = _blobs(tmp_path, repo, SAMPLE_LIMIT, prefix="17")
    assert all(oid.startswith("17") for oid in made)
    (objects / "17" / "not-an-object").write_text("")  # a name git does not count
    assert gc_due(objects) is _git_finds_work(repo) is False
    _blobs(tmp_path, repo, 1, prefix="17", skip=1_000_000)
    assert gc_due(objects) is _git_finds_work(repo) is True


def test_packs_past_the_limit_are_counted_as_git_counts_them(tmp_path: Path) -> None:
    repo = _repository(tmp_path)
    objects = repo / "objects"
    made = _blobs(tmp_path, repo, GIT_GC_AUTO_PACK_LIMIT + 1)
    for oid in made[:-1]:
        _git(repo, "pack-objects", "-q", str(objects / "pack" / "pack"), stdin=oid + "\n")
    assert gc_due(objects) is _git_finds_work(repo) is False
    last = _git(repo, "pack-objects", "-q", str(objects / "pack" / "pack"), stdin=made[-1] + "\n")
    assert gc_due(objects) is _git_finds_work(repo) is True
    (objects / "pack" / f"pack-{last.strip()}.keep").write_text("")  # a kept pack is not counted
    assert gc_due(objects) is _git_finds_work(repo) is False


def test_the_loose_objects_size_is_what_git_count_objects_reports(tmp_path: Path) -> None:
    repo = _repository(tmp_path)
    assert loose_kib(repo / "objects") == 0
    _blobs(tmp_path, repo, 40)
    big = tmp_path / "big.txt"
    big.write_bytes(os.urandom(300_000))  # does not compress: about 300 KiB on disk
    _git(repo, "hash-object", "-w", str(big))
    counted = dict(line.split(": ", 1) for line in _git(repo, "count-objects", "-v").splitlines())
    assert int(counted["count"]) == 41
    assert loose_kib(repo / "objects") == int(counted["size"]) >= 290
