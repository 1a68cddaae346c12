"""Workspace configuration: ``memory/memtier.toml`` (PROTOCOL §1).

Every key has a default; a missing file means all defaults. An unknown key, a
value of the wrong type or a file that is not TOML is an input error that names
the key (exit 2). The tag vocabulary lives here and only here.
"""

from __future__ import annotations

import math
import os
import re
from pathlib import Path

from memtier.errors import ConfigError
from memtier.values import Fields

# Not typing's: importing it costs a search 3-4 ms. Type checkers read this as true.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

DEFAULT_VOCABULARY: tuple[str, ...] = (
    "tailscale", "tailnet", "docker", "synapse", "matrix", "coturn", "qdrant", "ubuntu",
    "systemd", "ufw", "fail2ban", "samba", "ssh", "networking", "gateway", "pm2", "rules",
    "style", "workflow", "memory", "habits", "audit", "skills", "security", "review",
    "deepseek", "puppeteer", "benchmark", "troubleshooting", "tasks", "checklist", "backup",
    "diagnostics", "postmortem", "errors", "fixes", "anti-patterns",
)  # fmt: skip


# English and German phrases that ask for a message to be kept (PROTOCOL §12).
DEFAULT_CAPTURE_TRIGGERS: tuple[str, ...] = (
    "remember this", "keep this", "note this", "don't forget", "do not forget",
    "merke dir", "merk dir", "notiere", "vergiss nicht", "behalte",
)  # fmt: skip
# Topic words that make a message worth keeping when it is long or structured.
DEFAULT_CAPTURE_TOPICS: tuple[str, ...] = (
    "decision", "decided", "entscheidung", "entschieden", "preference", "bevorzuge",
    "lesson learned", "post-mortem",
)  # fmt: skip
# PROTOCOL §13 (v3): phrases that ask to recall a topic, as seed 004 has them.
DEFAULT_RECALL_TRIGGERS: tuple[str, ...] = (
    "do you remember", "recall", "erinnerst du dich", "weißt du noch", "回忆一下", "记不记得",
)  # fmt: skip


class Config(Fields):
    """The settings of one workspace; defaults are PROTOCOL §1's."""

    vocabulary: tuple[str, ...] = DEFAULT_VOCABULARY
    hot_max_lines: int = 60
    buffer_max_lines: int = 80
    buffer_max_active: int = 3
    stale_hours: float = 2
    warm_max_age_days: int = 30
    episodic_ttl_days: int = 30
    learnings_ttl_days: int = 30
    recurrence_threshold: int = 3
    # Not in PROTOCOL §1: the search log of `memtier search` (recent-searches).
    search_log: bool = True
    # PROTOCOL §12 `memtier capture` (the memory-brain plugin's rules; DECISIONS.md).
    capture_triggers: tuple[str, ...] = DEFAULT_CAPTURE_TRIGGERS
    capture_topics: tuple[str, ...] = DEFAULT_CAPTURE_TOPICS
    capture_min_chars: int = 20
    capture_long_chars: int = 80
    capture_keep_score: float = 0.4
    # PROTOCOL §13 (v3): the topic index and its generations.
    consolidation_threshold: int = 3
    summary_max_chars: int = 1500
    recall_triggers: tuple[str, ...] = DEFAULT_RECALL_TRIGGERS
    # PROTOCOL §14 (v3): sync through git.
    sync_warn_hours: float = 48
    sync_auto: bool = False
    # PROTOCOL §14 (v4): backup refs older than this are pruned, the newest always kept.
    sync_keep_backups_days: int = 14

    def in_vocabulary(self, tag: str) -> bool:
        """Case-sensitive membership, as the original script compared (compat)."""
        known = self.__dict__.get("_vocabulary_set")  # made on first need, not a field
        if known is None:
            known = self.__dict__["_vocabulary_set"] = frozenset(self.vocabulary)
        return tag in known


# Expected type of each key, with a human name for error messages.
_KEY_TYPES: dict[str, tuple[str, type | tuple[type, ...]]] = {
    "vocabulary": ("a list of strings", list),
    "hot_max_lines": ("a positive integer", int),
    "buffer_max_lines": ("a positive integer", int),
    "buffer_max_active": ("a positive integer", int),
    "stale_hours": ("a positive number", (int, float)),
    "warm_max_age_days": ("a positive integer", int),
    "episodic_ttl_days": ("a non-negative integer", int),
    "learnings_ttl_days": ("a non-negative integer", int),
    "recurrence_threshold": ("an integer of at least 2", int),
    "search_log": ("true or false", bool),
    "capture_triggers": ("a list of strings", list),
    "capture_topics": ("a list of strings", list),
    "capture_min_chars": ("a positive integer", int),
    "capture_long_chars": ("a positive integer", int),
    "capture_keep_score": ("a number between 0 and 1", (int, float)),
    "consolidation_threshold": ("a positive integer", int),
    "summary_max_chars": ("a positive integer", int),
    "recall_triggers": ("a list of strings", list),
    "sync_warn_hours": ("a positive number", (int, float)),
    "sync_auto": ("true or false", bool),
    "sync_keep_backups_days": ("a non-negative integer", int),
}
_PHRASE_LISTS = ("capture_triggers", "capture_topics", "recall_triggers")
_MINIMUM: dict[str, float] = {
    "hot_max_lines": 1,
    "buffer_max_lines": 1,
    "buffer_max_active": 1,
    "stale_hours": 0,
    "warm_max_age_days": 1,
    "episodic_ttl_days": 0,
    "learnings_ttl_days": 0,
    "recurrence_threshold": 2,
    "capture_min_chars": 1,
    "capture_long_chars": 1,
    "capture_keep_score": 0,
    "consolidation_threshold": 1,
    "summary_max_chars": 1,
    "sync_keep_backups_days": 0,
}

# Strict lower bounds: a buffer stale after 0 hours would always be stale.
_ABOVE: dict[str, float] = {"stale_hours": 0, "sync_warn_hours": 0}
_CENTURY_DAYS = 36_500
_MAXIMUM: dict[str, float] = {
    "hot_max_lines": 1_000_000,
    "buffer_max_lines": 1_000_000,
    "buffer_max_active": 1_000_000,
    "stale_hours": _CENTURY_DAYS * 24,
    "sync_warn_hours": _CENTURY_DAYS * 24,
    "warm_max_age_days": _CENTURY_DAYS,
    "episodic_ttl_days": _CENTURY_DAYS,
    "learnings_ttl_days": _CENTURY_DAYS,
    "recurrence_threshold": 1_000_000,
    "capture_min_chars": 1_000_000,
    "capture_long_chars": 1_000_000,
    "consolidation_threshold": 1_000_000,
    "summary_max_chars": 1_000_000,
    "sync_keep_backups_days": _CENTURY_DAYS,
}

assert set(_KEY_TYPES) == set(Config._FIELDS)


def _check_value(key: str, raw: object, where: str | Path) -> Any:
    type_name, expected = _KEY_TYPES[key]
    value: Any = raw
    wrong = f"{where}: key '{key}' must be {type_name}"
    # bool is a subclass of int: a boolean is never a valid number here.
    if isinstance(raw, bool) and expected is not bool:
        raise ConfigError(wrong, path=where)
    if not isinstance(raw, expected):
        raise ConfigError(wrong, path=where)
    if key == "vocabulary":
        if not all(isinstance(tag, str) and tag.strip() == tag and tag for tag in value):
            raise ConfigError(wrong + " without spaces", path=where)
        return tuple(value)
    if key in _PHRASE_LISTS:
        if not all(isinstance(p, str) and p.strip() for p in value):
            raise ConfigError(wrong + " that are not empty", path=where)
        return tuple(p.strip().lower() for p in value)
    if isinstance(value, float) and not math.isfinite(value):
        raise ConfigError(f"{wrong} (not {value})", path=where)
    if key == "capture_keep_score" and value > 1:
        raise ConfigError(wrong, path=where)
    if key in _MINIMUM and value < _MINIMUM[key]:
        raise ConfigError(wrong, path=where)
    if key in _ABOVE and value <= _ABOVE[key]:
        raise ConfigError(wrong, path=where)
    if key in _MAXIMUM and value > _MAXIMUM[key]:
        # A date or duration this far out overflows the clock arithmetic later,
        # after a command has written: refuse it before anything is written.
        raise ConfigError(f"{wrong} of at most {_MAXIMUM[key]:g}", path=where)
    return value


def parse_config(text: str, where: str | Path) -> Config:
    """Validate the text of a memtier.toml and build a `Config`."""
    if all(not line.strip() or line.lstrip().startswith("#") for line in text.splitlines()):
        # Comments only (as `init` writes it): the defaults, without loading tomllib.
        return Config()
    import tomllib  # only when a file sets a key: most workspaces run on defaults

    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{where}: not valid TOML ({exc})", path=where) from None
    except ValueError:
        # tomllib converts numbers itself: one of thousands of digits is refused by
        # Python's conversion limit (a ValueError, not a TOMLDecodeError).
        raise ConfigError(f"{where}: a number has too many digits", path=where) from None
    values: dict[str, Any] = {}
    for key, value in raw.items():
        if key not in _KEY_TYPES:
            raise ConfigError(f"{where}: unknown key '{key}'", path=where)
        values[key] = _check_value(key, value, where)
    return Config(**values)


def load_config(root: Path, rel: str, *, real_root: str | None = None) -> Config:
    """Read the configuration file at *rel* under *root* (`memtier.workspace` names
    it: ``memory/memtier.toml``); defaults when it does not exist. *real_root*: the
    root's real path, when the caller resolved it already."""
    path = root / rel
    if not os.path.lexists(path):
        return Config()
    data = _read_config_bytes(root, path, rel, real_root)
    if data is None:
        return Config()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise ConfigError(f"{rel}: not valid TOML (not UTF-8 text)") from None
    return parse_config(text, rel)


def _read_config_bytes(
    root: Path, path: Path, rel: str, real_root: str | None = None
) -> bytes | None:
    """The file's bytes, read as `memtier.store` reads memory files (PROTOCOL §3 v2),
    spelled out here because the store depends on the workspace, which loads this.

    A file that resolves outside *root* is not read (None): the defaults stand, so
    health-check can run and fail on it ("points outside the workspace"), and every
    write refuses an outside ``memory/`` or lock on its own. Only a regular file is
    read, opened without blocking (a FIFO here would hang every command).
    """
    import stat

    root_real = real_root or os.path.realpath(root)
    real = os.path.realpath(path)
    if real != root_real and not real.startswith(root_real.rstrip(os.sep) + os.sep):
        return None
    try:
        fd = os.open(real, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except IsADirectoryError:
        raise ConfigError(f"{rel}: is a directory, expected a TOML file") from None
    except OSError as exc:
        raise ConfigError(f"{rel}: cannot be read ({exc.strerror})") from None
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise ConfigError(f"{rel}: is a directory, expected a TOML file")
        if not stat.S_ISREG(mode):
            raise ConfigError(f"{rel}: not a regular file")
        chunks = []
        while chunk := os.read(fd, 1 << 16):
            chunks.append(chunk)
    except OSError as exc:
        raise ConfigError(f"{rel}: cannot be read ({exc.strerror})") from None
    finally:
        os.close(fd)
    return b"".join(chunks)


# ---------------------------------------------------------------------------
# writing the vocabulary (`memtier tags --add`), the one key memtier ever writes


def _format_vocabulary(tags: tuple[str, ...], width: int = 96) -> str:
    lines: list[str] = []
    current = "vocabulary = ["
    for index, tag in enumerate(tags):
        item = f'"{tag}"' + (", " if index < len(tags) - 1 else "]")
        if len(current) + len(item.rstrip()) > width:
            lines.append(current.rstrip())
            current = "  "
        current += item
    if not tags:
        current += "]"
    lines.append(current)
    return "\n".join(lines) + "\n"


def _array_last_value_end(text: str, start: int) -> tuple[int, int]:
    """(index just after the last value, index of the closing bracket) of the TOML
    array whose ``[`` is at *start*; strings and comments are skipped, so a
    comment inside the array survives. The last value end is *start* + 1 when
    the array is empty."""
    index, last = start + 1, start + 1
    while index < len(text):
        char = text[index]
        if char == "#":
            newline = text.find("\n", index)
            index = len(text) if newline < 0 else newline
            continue
        if char in "\"'":
            end = index + 1
            while end < len(text) and text[end] != char:
                end += 2 if char == '"' and text[end] == "\\" else 1
            index = last = end + 1
            continue
        if char == "]":
            return last, index
        index += 1
    raise ValueError("unterminated vocabulary array")


# Compiled on first use (re's own cache): only `tags --add` writes the vocabulary, and
# every command reads the configuration.
_VOCABULARY_KEY = r"(?m)^[ \t]*vocabulary[ \t]*=[ \t]*\["
_VOCABULARY_COMMENT = r"(?m)^#[ \t]*vocabulary[ \t]*="


def add_vocabulary_text(text: str, current: tuple[str, ...], new: tuple[str, ...]) -> str:
    """The text of a memtier.toml with *new* tags appended to its vocabulary.

    Comments and every other line are kept as they are. Without a ``vocabulary``
    key, one is written holding *current* (the defaults) and *new*, under the
    commented-out example when the file has one (the template does), else at
    the end.
    """
    found = re.search(_VOCABULARY_KEY, text)
    if found is not None:
        last, _close = _array_last_value_end(text, found.end() - 1)
        empty = last == found.end()
        items = ", ".join(f'"{tag}"' for tag in new)
        return text[:last] + (items if empty else ", " + items) + text[last:]
    block = _format_vocabulary((*current, *new))
    comment = re.search(_VOCABULARY_COMMENT, text)
    if comment is None:
        joiner = "" if not text or text.endswith("\n") else "\n"
        return text + joiner + ("\n" if text else "") + block
    lines = text.split("\n")
    at = text[: comment.start()].count("\n")
    while at < len(lines) and lines[at].startswith("#") and "]" not in lines[at]:
        at += 1
    lines.insert(at + 1, block.rstrip("\n"))
    return "\n".join(lines)
