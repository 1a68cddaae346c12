"""What a sync finds: the branch, whether the remote moved, and under the workspace
lock one ``git status`` (PROTOCOL §14 v4).

A sync with nothing to share runs at most four git processes: the branch's name
with the commit each ref names (`read_branch`), the drivers in the config, the
remote's answer (`fetch_news`), and this one status. The remote is always asked:
``git ls-remote`` says which commit its branch names, and when that is the one
the remote-tracking ref already names, nothing came in and the fetch (which
would bring nothing, at the cost of its own negotiation and connectivity check)
is left out. Any other answer fetches, as before. ``git status
--porcelain=v2 --branch`` says in one answer what took five questions before:
the head's commit, the files changed or new since it (what a commit would take
and what the outgoing secrets check reads), and how the head stands to the
remote-tracking ref it follows (ahead, behind). When the two name one commit,
the `Git` runner is told so and asks no more.
"""

from __future__ import annotations

from memtier.commands.sync._git import HEAD_COMMIT
from memtier.gitrun import REMOTE_TIMEOUT, Git, GitResult
from memtier.values import Fields


class WorkState(Fields):
    head: str | None  # the head's commit; None before the first commit
    changed: tuple[str, ...]  # tracked files changed since the head, and new files
    ahead: int | None  # commits the remote-tracking ref lacks; None: not known
    behind: int | None  # commits the head lacks; None: not known

    @property
    def clean(self) -> bool:
        return self.head is not None and not self.changed

    @property
    def outgoing(self) -> tuple[str, ...] | None:
        """The files a push would share, when the status alone tells: nothing is
        committed that the remote lacks. None: ask git for the difference."""
        return self.changed if self.ahead == 0 else None


# git's automatic maintenance after a fetch is one more process every sync; the
# housekeeping runs after a sync that moved the branch instead (`sync_tidy`).
FETCH = ("fetch", "-q", "--no-auto-maintenance")


def read_branch(git: Git, remote: str) -> str:
    """The branch HEAD names, from one ``git for-each-ref`` that also tells the
    commit of each local branch and of *remote*'s tracking refs (remembered by
    *git*, so `Git.resolve` asks no more). Before the first commit, or on a
    detached head, git's own ``symbolic-ref`` answers (or refuses) as before."""
    out = git.run(
        "for-each-ref",
        "--format=%(objectname) %(refname) %(HEAD)",
        "refs/heads/",
        f"refs/remotes/{remote}/",
    ).out
    branch = None
    for line in out.splitlines():  # a remote-tracking ref not listed names nothing yet
        oid, ref, *mark = line.split()  # a ref's name holds no space
        git.remember(ref, oid)
        if mark == ["*"] and ref.startswith("refs/heads/"):
            branch = ref.removeprefix("refs/heads/")
    if branch is None:
        return git.run("symbolic-ref", "--short", "HEAD").out.strip()
    tracking = f"refs/remotes/{remote}/{branch}"
    if tracking not in out.split():
        git.remember(tracking, None)
    return branch


def fetch_news(git: Git, remote: str, branch: str) -> GitResult:
    """Ask *remote* what its *branch* names; fetch only when that is not what the
    remote-tracking ref already names (see the module's docstring). The answer of
    whichever ran: a failure is the remote's own message."""
    tracking = f"refs/remotes/{remote}/{branch}"
    wanted = f"refs/heads/{branch}"
    asked = git.run("ls-remote", remote, wanted, timeout=REMOTE_TIMEOUT, check=False)
    if not asked.ok:
        return asked
    theirs = [
        oid for oid, _, ref in (x.partition("\t") for x in asked.out.splitlines()) if ref == wanted
    ]
    known = git.resolve(tracking)
    if theirs == [known] and known is not None:
        return asked  # nothing came in: the remote names what was fetched last
    return git.run(*FETCH, remote, branch, timeout=REMOTE_TIMEOUT, check=False)


def read_state(git: Git, remote: str, branch: str) -> WorkState:
    """One ``git status`` of the memory; *remote*/*branch* is the ref it should follow."""
    out = git.run(
        "status", "--porcelain=v2", "--branch", "-z", "--untracked-files=all", "--no-renames"
    ).out
    head: str | None = None
    upstream = ""
    counts: tuple[int, int] | None = None
    changed: list[str] = []
    for entry in out.split("\0"):
        if entry.startswith("# branch.oid "):
            oid = entry.split(" ", 2)[2]
            head = None if oid == "(initial)" else oid
        elif entry.startswith("# branch.upstream "):
            upstream = entry.split(" ", 2)[2]
        elif entry.startswith("# branch.ab "):
            plus, minus = entry.split(" ")[2:4]
            counts = (int(plus), -int(minus))
        elif entry.startswith("1 "):  # an ordinary change: eight fields, then the path
            changed.append(entry.split(" ", 8)[8])
        elif entry.startswith("u "):  # unmerged: ten fields, then the path
            changed.append(entry.split(" ", 10)[10])
        elif entry.startswith("? "):
            changed.append(entry[2:])
    if upstream != f"{remote}/{branch}":
        counts = None  # following something else (or nothing): not ours to read
    git.remember(HEAD_COMMIT, head)
    if counts == (0, 0) and head is not None:
        git.remember(f"refs/remotes/{remote}/{branch}", head)
    ahead, behind = counts if counts is not None else (None, None)
    return WorkState(head, tuple(changed), ahead, behind)
