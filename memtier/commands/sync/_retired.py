"""A fact retired on one side stays retired where git merged its file alone (§14 v4).

git runs a file's merge driver only when both sides changed the file. A host that
learned a fact and retired it again between two syncs leaves the file as the base
had it, while its retirement log gained the line; another host that learned the same
fact on its own changed the file, and git took that side's version whole, so the
fact came back on every host. Here each fact file named by what a side's retirement
log gained, and left unchanged by one side, is merged by identity as its driver would
have merged it (`formats.fact_merge`), and the merged tree takes the result.
"""

from __future__ import annotations

from memtier.commands.sync.attributes import driver_of
from memtier.commands.sync.driver import fact_header_lines
from memtier.gitrun import Git


def _text(git: Git, commit: str, path: str) -> str | None:
    shown = git.run("cat-file", "blob", f"{commit}:{path}", check=False)
    return shown.out if shown.ok else None


def retirement_edits(
    git: Git, head: str, theirs: str, gained: dict[str, list[str]]
) -> dict[str, str]:
    """The fact files (path -> merged text) whose merge git made without the fact
    driver although a side's retirement log gained a line for them: one side left
    the file as the merge base had it. *gained*: each side's new log lines, as the
    fact driver's witness holds them ("ours", "theirs")."""
    from memtier.formats.fact_merge import logged_files, merge_facts, retirements

    ours_lines, theirs_lines = gained["ours"], gained["theirs"]
    # A log a remote wrote may name any path: only the fact driver's files are merged.
    logged = logged_files(ours_lines + theirs_lines)
    paths = sorted(p for p in logged if driver_of(p) == "memtier-fact")
    if not paths:
        return {}
    found = git.run("merge-base", head, theirs, check=False)
    if not found.ok:
        return {}  # unrelated histories: the driver ran on every file both had
    base = found.out.strip()
    edits: dict[str, str] = {}
    for path in paths:
        b, o, t = (_text(git, commit, path) for commit in (base, head, theirs))
        if o is None or t is None or o == t or (o != b and t != b):
            continue  # gone on a side, the same on both, or both changed: the driver ran
        merged = merge_facts(
            b or "",
            o,
            t,
            header_lines=fact_header_lines(path),
            ours_gone=retirements(ours_lines, path),
            theirs_gone=retirements(theirs_lines, path),
        )
        if merged.text != (o if t == b else t):
            edits[path] = merged.text
    return edits
