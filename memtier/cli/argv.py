"""One pass over a command line, shared by typer's path and the fast path.

`read_argv` takes the shared options (``--root``, ``--now``, ``--json``) out of the
argument list once, wherever they stand before a ``--``, and names the command the
rest asks for. `separate` then splits a command's own arguments into its options
and its text, given which option names the command knows and whether each takes a
value. typer's path reads that from the click command typer builds (`option_arity`);
the fast path from its table, which a test checks against the same click command.
Neither imports typer or click here: the fast path must start without them.

PROTOCOL §3 v2: an argument that starts with ``-`` but is not shaped like an option
(``- a bullet``, ``--- rule``, ``-1``) is text; ``-`` alone means standard input.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

# What an option looks like (``--fast``, ``-x``, ``--date=D``).
OPTION_SHAPE = re.compile(r"--?[A-Za-z][A-Za-z0-9_-]*(?:=.*)?", re.DOTALL)
STDIN_MARK = "-"
_SHARED_VALUES = ("--root", "--now")
_SHARED_FLAG = "--json"
# A command path is at most a group and its subcommand (``buffer note``).
_PATH_DEPTH = 2


class MissingValue(ValueError):
    """A shared option that needs a value stands last (``memtier stats --root``)."""


class Argv:
    """A command line with the shared options taken out.

    ``rest`` is everything else, in order; ``path`` the command words it starts
    with (up to two, before the first option) and ``args`` what follows them.
    """

    __slots__ = ("args", "as_json", "now", "path", "rest", "root")

    def __init__(
        self,
        rest: list[str],
        root: str | None = None,
        now: str | None = None,
        as_json: bool = False,
    ) -> None:
        self.rest = rest
        self.root = root
        self.now = now
        self.as_json = as_json
        end = 0
        for arg in rest[:_PATH_DEPTH]:
            if arg.startswith("-"):
                break
            end += 1
        self.path = rest[:end]
        self.args = rest[end:]


def read_argv(args: list[str]) -> Argv:
    """*args* with ``--root``/``--now`` (``--opt V`` or ``--opt=V``) and ``--json``
    taken wherever they stand before a ``--``; the rest goes on unchanged.

    Raises `MissingValue` for ``--root`` or ``--now`` with nothing after it, or an
    empty value (``--root=``).
    """
    found: dict[str, Any] = {}
    rest: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            rest.extend(args[i:])
            break
        name, eq, value = arg.partition("=")
        if name in _SHARED_VALUES:
            if not eq:
                if i + 1 >= len(args):
                    raise MissingValue(f"Option '{name}' requires an argument.")
                i += 1
                value = args[i]
            if not value.strip():
                # ``--root=`` must not quietly mean "discover it" (nor ``--now=`` "now").
                raise MissingValue(f"Option '{name}' requires a non-empty value.")
            found[name[2:]] = value
        elif arg == _SHARED_FLAG:
            found["as_json"] = True
        else:
            rest.append(arg)
        i += 1
    return Argv(rest, **found)


def wants_json(args: list[str]) -> bool:
    """Whether --json stands before any ``--`` (for errors raised before parsing)."""
    return _SHARED_FLAG in (args[: args.index("--")] if "--" in args else args)


def is_option(arg: str) -> bool:
    """Whether *arg* is shaped like an option rather than text (PROTOCOL §3 v2)."""
    return arg != STDIN_MARK and OPTION_SHAPE.fullmatch(arg) is not None


def separate(args: list[str], arity: Mapping[str, bool]) -> tuple[list[str], list[str]]:
    """A command's own *args* as (options, texts).

    *arity* maps every option name the command knows to whether it takes a value.
    A known option keeps its value beside it; an unknown word shaped like an option
    stays an option (so the parser reports a typo as one); everything else, and all
    after a ``--``, is text.
    """
    options: list[str] = []
    texts: list[str] = []
    index = 0
    while index < len(args):
        arg = args[index]
        index += 1
        if arg == "--":
            texts.extend(args[index:])
            break
        name = arg.split("=", 1)[0] if arg.startswith("--") else arg
        if name in arity:
            options.append(arg)
            if arity[name] and name == arg and index < len(args):
                options.append(args[index])
                index += 1
        elif is_option(arg):
            options.append(arg)
        else:
            texts.append(arg)
    return options, texts


def option_arity(params: Iterable[Any]) -> dict[str, bool]:
    """Every option name among a parser's *params* and whether it takes a value.

    Read from the parameter objects typer builds by what they say of themselves
    (``param_type_name``, ``opts``, ``is_flag``, ``count``), not by their class, so
    that a typer release that vendors its parser keeps working.
    """
    arity: dict[str, bool] = {}
    for param in params:
        if getattr(param, "param_type_name", None) != "option":
            continue
        takes_value = not getattr(param, "is_flag", False) and not getattr(param, "count", False)
        for name in (*param.opts, *getattr(param, "secondary_opts", ())):
            arity[name] = takes_value
    return arity
