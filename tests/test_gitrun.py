"""memtier.gitrun: the git executable as sync runs it (PROTOCOL §14)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from memtier import gitrun
from memtier.workspace import SYNC_GIT_DIR
from tests.sync_support import hosts, ok


def _repository(ws: Path) -> gitrun.Git:
    return gitrun.Git(ws / SYNC_GIT_DIR, ws, dict(os.environ))


def test_a_ref_is_asked_again_once_a_command_could_have_moved_it(tmp_path: Path) -> None:
    _, (host,) = hosts(tmp_path, 1)
    git = _repository(host)
    first = git.resolve("HEAD^{commit}")
    assert first is not None and git.resolve("refs/heads/none") is None
    (host / "MEMORY.md").write_text("# Agent Memory\n\n- changed\n")
    git.run("add", "-A", "--", ".")
    assert git.resolve("HEAD^{commit}") == first  # add moves no ref
    git.run("commit", "-q", "--no-verify", "-m", "x")
    moved = git.resolve("HEAD^{commit}")
    assert moved is not None and moved != first


def test_a_sync_with_nothing_to_share_asks_git_for_each_ref_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, (first, second) = hosts(tmp_path, 2)
    ok(first, "sync")
    asked: list[tuple[str, ...]] = []
    original = gitrun._call

    def counting(argv: list[str], *rest: object) -> gitrun.GitResult:
        asked.append(tuple(argv[1:]))
        return original(argv, *rest)  # type: ignore[arg-type]

    monkeypatch.setattr(gitrun, "_call", counting)
    ok(second, "sync")
    after_asking = asked[[a[0] for a in asked].index("ls-remote") :]
    resolved = [a[-1] for a in after_asking if a[0] == "rev-parse"]
    assert sorted(resolved) == sorted(set(resolved))


def test_every_git_process_runs_with_configured_commands_off() -> None:
    """(v4) Given on the command line's level, after the caller's own entries."""
    env = gitrun._environment(
        {"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "user.name", "GIT_CONFIG_VALUE_0": "me"},
        None,
        None,
    )
    count = int(env["GIT_CONFIG_COUNT"])
    given = {env[f"GIT_CONFIG_KEY_{n}"]: env[f"GIT_CONFIG_VALUE_{n}"] for n in range(count)}
    assert given["user.name"] == "me"
    assert given["core.hooksPath"] == os.devnull and given["core.fsmonitor"] == "false"
    assert given["protocol.ext.allow"] == "never"
    assert given["maintenance.auto"] == "false"
    assert count == 1 + len(gitrun.NO_COMMANDS) + len(gitrun.OWN_HOUSEKEEPING)


def test_a_hook_of_the_repository_never_runs(tmp_path: Path) -> None:
    _, (host,) = hosts(tmp_path, 1)
    git = _repository(host)
    marker = tmp_path / "marker"
    for name in ("pre-commit", "prepare-commit-msg", "commit-msg", "post-commit"):
        hook = host / SYNC_GIT_DIR / "hooks" / name
        hook.write_text(f"#!/bin/sh\necho {name} >> {marker}\n")
        hook.chmod(0o755)
    git.run("config", "core.fsmonitor", f"echo fsmonitor >> {marker}; false")
    (host / "MEMORY.md").write_text("# Agent Memory\n\n- changed\n")
    git.run("add", "-A", "--", ".")
    git.run("commit", "-q", "-m", "x")  # without --no-verify
    git.run("status", "--porcelain")
    assert not marker.exists()


def _hanging_git(tmp_path: Path, body: str) -> gitrun.Git:
    """A `git` that writes its process id to a file, then does *body*."""
    script = tmp_path / "git"
    script.write_text(f'#!/bin/sh\necho $$ > "{tmp_path}/pid"\n{body}\n')
    script.chmod(0o755)
    return gitrun.Git(tmp_path / ".git", tmp_path, dict(os.environ), executable=str(script))


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


@pytest.mark.parametrize(
    "body",
    [
        pytest.param("exec sleep 60", id="output-open"),
        # The end is awaited apart from the output: git closed it, and runs on.
        pytest.param("exec sleep 60 >&- 2>&-", id="output-closed"),
    ],
)
def test_a_git_that_runs_past_its_limit_is_stopped_and_reaped(tmp_path: Path, body: str) -> None:
    git = _hanging_git(tmp_path, body)
    with pytest.raises(gitrun.GitTimeout, match="git fetch took longer than"):
        git.run("fetch", timeout=0.3)
    assert _gone(int((tmp_path / "pid").read_text()))  # killed, and no zombie left


def test_a_git_that_ends_within_its_limit_gives_its_output_and_status(tmp_path: Path) -> None:
    git = _hanging_git(tmp_path, 'cat; echo "to stderr" >&2; exit 3')
    done = git.run("hash-object", "--stdin", stdin="given\n", check=False, timeout=30)
    assert (done.code, done.out, done.err) == (3, "given\n", "to stderr\n")
