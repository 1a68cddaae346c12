"""The text of the shell shims `memtier install-scripts` writes (PROTOCOL §9).

Pure text: which shims there are, what each runs, the script itself, and the
version stamp health-check reads back (``shims.version``). Its own module below
both `memtier.commands.shims` (which writes them) and `memtier.health` (which
checks them), so neither imports the other.
"""

from __future__ import annotations

import re
import shlex

VERSION_MARK = "# memtier-shim-version: "
_VERSION_RE = re.compile(rb"^# memtier-shim-version: (\S+)[ \t]*\r?$", re.MULTILINE)

# shim name -> (memtier subcommand words, first positional is the age in days, purpose)
_SHIMS: dict[str, tuple[tuple[str, ...], bool, str]] = {
    "health-check.sh": (("health-check",), False, "check every memory invariant"),
    "atomic-write.sh": (("atomic-write",), False, "write standard input to FILE atomically"),
    "archive-old-episodic.sh": (
        ("archive", "episodic"),
        True,
        "move daily notes older than N days (default 30) to memory/archive/",
    ),
    "archive-old-learnings.sh": (
        ("archive", "learnings"),
        True,
        "archive stray .learnings/ files older than N days (default 30)",
    ),
}
SHIM_NAMES: tuple[str, ...] = tuple(_SHIMS)

_TEMPLATE = """\
#!/bin/sh
@MARK@@VERSION@
# @NAME@: @PURPOSE@.
# Usage: @USAGE@
#
# Written by `memtier install-scripts`, which overwrites this file: keep local
# changes in a script of your own (for example @STEM@.local.sh).
# It finds the workspace by walking up from this file's folder to the first
# folder holding MEMORY.md and memory/, runs memtier there with this script's
# arguments, and exits with memtier's exit code. memtier is $MEMTIER_BIN if set,
# else `memtier` on PATH, else the memtier that installed this file.
set -u
here=$(CDPATH='' cd -- "$(dirname -- "$0")" && pwd -P) || exit 2
root=$here
until [ -f "$root/MEMORY.md" ] && [ -d "$root/memory" ]; do
  if [ "$root" = / ]; then
    echo "@NAME@: no workspace (MEMORY.md and memory/) above $here" >&2
    exit 2
  fi
  root=$(dirname -- "$root")
done
@DAYS@if [ -n "${MEMTIER_BIN:-}" ]; then
  exec "$MEMTIER_BIN" --root "$root" @COMMAND@ "$@"
elif command -v memtier >/dev/null 2>&1; then
  exec memtier --root "$root" @COMMAND@ "$@"
fi
exec @FALLBACK@ --root "$root" @COMMAND@ "$@"
"""

_DAYS_BLOCK = """\
# Like the original script, a first argument that is not an option is the age
# in days: @NAME@ 45
if [ $# -gt 0 ]; then
  case $1 in
    -*) ;;
    *) days=$1; shift; set -- --days "$days" "$@" ;;
  esac
fi
"""

_USAGE = {
    "health-check.sh": "health-check.sh [--verbose] [--json]",
    "atomic-write.sh": "echo text | atomic-write.sh FILE",
    "archive-old-episodic.sh": "archive-old-episodic.sh [DAYS] [--dry-run] [--json]",
    "archive-old-learnings.sh": "archive-old-learnings.sh [DAYS] [--dry-run] [--json]",
}


def render_shim(name: str, version: str, fallback: tuple[str, ...]) -> str:
    """The text of one shim, stamped with *version*."""
    command, takes_days, purpose = _SHIMS[name]
    days = _DAYS_BLOCK.replace("@NAME@", name) if takes_days else ""
    fields = {
        "@MARK@": VERSION_MARK,
        "@VERSION@": version,
        "@PURPOSE@": purpose,
        "@USAGE@": _USAGE[name],
        "@STEM@": name.removesuffix(".sh"),
        "@DAYS@": days,
        "@COMMAND@": " ".join(command),
        "@FALLBACK@": shlex.join(fallback),
        "@NAME@": name,
    }
    text = _TEMPLATE
    for key, value in fields.items():
        text = text.replace(key, value)
    return text


def shim_version(data: bytes) -> str | None:
    """The version stamped into a shim's first lines, or None for any other script."""
    match = _VERSION_RE.search(data[:512])
    return match.group(1).decode("utf-8", "replace") if match else None
