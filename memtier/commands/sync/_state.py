"""What a sync finds under the workspace lock, from one ``git status`` (PROTOCOL §14 v4).

A sync with nothing to share runs at most four git processes: the branch's name,
the drivers in the config, the fetch, and this one status. ``git status
--porcelain=v2 --branch`` says in one answer what took five questions before:
the head's commit, the files changed or new since it (what a commit would take
and what the outgoing secrets check reads), and how the head stands to the
remote-tracking ref it follows (ahead, behind). When the two name one commit,
the `Git` runner is told so and asks no more.
"""

from __future__ import annotations

from memtier.commands.sync._git import HEAD_COMMIT
from memtier.gitrun import Git
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
