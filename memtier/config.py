"""Workspace configuration: ``memory/memtier.toml`` (PROTOCOL §1).

Every key has a default; a missing file means all defaults. An unknown key, a
value of the wrong type or a file that is not TOML is an input error that names
the key (exit 2). The tag vocabulary lives here and only here.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from memtier.errors import ConfigError

CONFIG_RELPATH = Path("memory") / "memtier.toml"

DEFAULT_VOCABULARY: tuple[str, ...] = (
    "tailscale", "tailnet", "docker", "synapse", "matrix", "coturn", "qdrant", "ubuntu",
    "systemd", "ufw", "fail2ban", "samba", "ssh", "networking", "gateway", "pm2", "rules",
    "style", "workflow", "memory", "habits", "audit", "skills", "security", "review",
    "deepseek", "puppeteer", "benchmark", "troubleshooting", "tasks", "checklist", "backup",
    "diagnostics", "postmortem", "errors", "fixes", "anti-patterns",
)  # fmt: skip


@dataclass(frozen=True)
class Config:
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
    _vocabulary_set: frozenset[str] = field(default=frozenset(), repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_vocabulary_set", frozenset(self.vocabulary))

    def in_vocabulary(self, tag: str) -> bool:
        """Case-sensitive membership, as the original script compared (compat)."""
        return tag in self._vocabulary_set


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
}
_MINIMUM: dict[str, float] = {
    "hot_max_lines": 1,
    "buffer_max_lines": 1,
    "buffer_max_active": 1,
    "stale_hours": 0,
    "warm_max_age_days": 1,
    "episodic_ttl_days": 0,
    "learnings_ttl_days": 0,
    "recurrence_threshold": 2,
}

# Strict lower bounds: a buffer stale after 0 hours would always be stale.
_ABOVE: dict[str, float] = {"stale_hours": 0}
_CENTURY_DAYS = 36_500
_MAXIMUM: dict[str, float] = {
    "hot_max_lines": 1_000_000,
    "buffer_max_lines": 1_000_000,
    "buffer_max_active": 1_000_000,
    "stale_hours": _CENTURY_DAYS * 24,
    "warm_max_age_days": _CENTURY_DAYS,
    "episodic_ttl_days": _CENTURY_DAYS,
    "learnings_ttl_days": _CENTURY_DAYS,
    "recurrence_threshold": 1_000_000,
}

assert set(_KEY_TYPES) == {f.name for f in fields(Config) if not f.name.startswith("_")}


def _check_value(key: str, raw: object, where: Path) -> Any:
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
    if isinstance(value, float) and not math.isfinite(value):
        raise ConfigError(f"{wrong} (not {value})", path=where)
    if key in _MINIMUM and value < _MINIMUM[key]:
        raise ConfigError(wrong, path=where)
    if key in _ABOVE and value <= _ABOVE[key]:
        raise ConfigError(wrong, path=where)
    if key in _MAXIMUM and value > _MAXIMUM[key]:
        # A date or duration this far out overflows the clock arithmetic later,
        # after a command has written: refuse it before anything is written.
        raise ConfigError(f"{wrong} of at most {_MAXIMUM[key]:g}", path=where)
    return value


def parse_config(text: str, where: Path) -> Config:
    """Validate the text of a memtier.toml and build a `Config`."""
    import tomllib  # only when a file exists: most workspaces run on defaults

    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{where}: not valid TOML ({exc})", path=where) from None
    values: dict[str, Any] = {}
    for key, value in raw.items():
        if key not in _KEY_TYPES:
            raise ConfigError(f"{where}: unknown key '{key}'", path=where)
        values[key] = _check_value(key, value, where)
    return Config(**values)


def load_config(root: Path) -> Config:
    """Read ``memory/memtier.toml`` under *root*; defaults when it does not exist."""
    from memtier import store
    from memtier.errors import ConfinementError, InputError

    path = root / CONFIG_RELPATH
    if not os.path.lexists(path):
        return Config()
    try:
        # Confined, regular files only: every command reads this file first (PROTOCOL §3 v2).
        data = store.read_regular_bytes(path, root=root, shown=CONFIG_RELPATH.as_posix())
    except ConfinementError:
        # Never read through a link out of the root; the defaults stand, so that
        # health-check can run and fail on it ("points outside the workspace"),
        # and every write refuses the outside memory/ folder or lock on its own.
        return Config()
    except InputError as exc:
        raise ConfigError(exc.message) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise ConfigError(f"{CONFIG_RELPATH}: not valid TOML (not UTF-8 text)") from None
    return parse_config(text, CONFIG_RELPATH)
