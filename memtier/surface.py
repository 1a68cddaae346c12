"""The one adapter both faces go through: the CLI and the tool server (STYLE: two
faces, one core).

A face builds a `Surface` from what it was given (the CLI's ``--root``/``--now``,
the server's options) and the process environment, read once, here and nowhere
else in the package; the core never reads either. From it the face opens the
workspace (root, *now*, configuration), resolves a path a person or an agent gave,
chooses the scanner search runs with, and turns an error message into its one
redacted line. Each face then words the result in its own terms.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from datetime import date, datetime
from pathlib import Path

from memtier.values import Fields, field

# Not typing's: importing it costs a search 3-4 ms. Type checkers read this as true.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from memtier.search import SearchRequest
    from memtier.workspace import Workspace

ROOT_ENV = "MEMTIER_ROOT"
NOW_ENV = "MEMTIER_NOW"
# The ripgrep program search runs ("none": the built-in scanner).
RG_ENV = "MEMTIER_RG"
NO_RG = "none"


class ScannerChoice(Fields):
    """The ripgrep binary to search with (None: the built-in scanner), and why not
    the one asked for, when it could not be had."""

    rg: str | None
    warnings: tuple[str, ...] = ()


class Surface(Fields):
    """What one face was given, and the environment it runs in."""

    root: str | None = None
    now: str | None = None
    cwd: Path = field(default_factory=Path.cwd)
    environ: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def of_process(
        cls, root: str | None = None, now: str | None = None, cwd: Path | None = None
    ) -> Surface:
        """A surface for this process: its working folder (or *cwd*, the tool server's
        own) and its environment as it is now."""
        return cls(root=root, now=now, cwd=cwd or Path.cwd(), environ=dict(os.environ))

    def explicit_root(self) -> str | None:
        """The root that was named: the face's own option, else $MEMTIER_ROOT
        (None: discover it from the working folder)."""
        return self.root or self.environ.get(ROOT_ENV) or None

    def moment(self) -> datetime:
        """*now*: the face's option, else $MEMTIER_NOW, else the clock."""
        from memtier.clock import resolve_now

        return resolve_now(self.now, self.environ.get(NOW_ENV))

    def workspace(self) -> Workspace:
        """The workspace to work on, opened now (its configuration read now)."""
        from memtier.workspace import Workspace, resolve_root

        moment = self.moment()
        return Workspace.open(resolve_root(self.explicit_root(), self.cwd), moment)

    def user_path(self, ws_root: Path, given: str | Path, *, from_cwd: bool = True) -> Path:
        """A path someone gave: as is if absolute. A relative one is read from the
        working folder when *from_cwd* and that folder lies inside the workspace
        (a person in a shell), else from the workspace root (an agent's tool call,
        or ``memtier --root R atomic-write memory/x.md`` from anywhere)."""
        from memtier.workspace import inside_root

        base = self.cwd if from_cwd and inside_root(ws_root, self.cwd) else ws_root
        return given_path(base, given)

    def search_request(
        self,
        query: str,
        *,
        tiers: Iterable[str] = (),
        tags: Iterable[str] = (),
        limit: int = 10,
        regex: bool = False,
        context: int = 1,
        all_tiers: bool = False,
        log: bool = True,
    ) -> tuple[SearchRequest, tuple[str, ...]]:
        """The search a face was asked for, built the one way for both faces: the query
        cleaned as every text a face is given (invalid UTF-8 shown as U+FFFD), the
        scanner chosen here; and the warnings of that choice, for the face to show."""
        from memtier.search import SearchRequest
        from memtier.secrets import replace_invalid

        scanner = self.scanner()
        request = SearchRequest(
            query=replace_invalid(query),
            tiers=tuple(tiers),
            tags=tuple(tags),
            limit=limit,
            regex=regex,
            context=context,
            all_tiers=all_tiers,
            rg=scanner.rg,
            log=log,
        )
        return request, scanner.warnings

    def scanner(self) -> ScannerChoice:
        """The ripgrep search runs with: $MEMTIER_RG (a path or a name; ``none`` for
        the built-in scanner), else the one installed beside this Python, else PATH."""
        from memtier.binaries import find_binary

        override = self.environ.get(RG_ENV) or None
        if override == NO_RG:
            return ScannerChoice(None)
        rg = find_binary("rg", override)
        if override and rg is None:
            return ScannerChoice(
                None, (f"{RG_ENV}={override} not found; using the built-in scanner",)
            )
        return ScannerChoice(rg)


def given_path(base: Path, given: str | Path) -> Path:
    """A path someone gave: as is if absolute, else from *base*."""
    from memtier.errors import InputError

    if "\0" in str(given):
        raise InputError("a path cannot hold a NUL byte")
    path = Path(given).expanduser()
    return path if path.is_absolute() else base / path


def parse_date_option(value: str | None, ws: Workspace) -> date:
    """The day a face was given (``--date``, a tool's ``date``), as YYYY-MM-DD; today
    when none was. Both faces word the error with the parameter's own name."""
    from memtier.clock import parse_day, require_in_range
    from memtier.errors import InputError, Term

    if value is None:
        return ws.today
    day = parse_day(value.strip())
    if day is None:
        raise InputError((Term("date"), f": not a calendar date: {value!r} (expected YYYY-MM-DD)"))
    return require_in_range(day)


def error_line(message: str) -> str:
    """An error message as one line that never repeats a credential, even one split
    across lines (PROTOCOL §3 v2); both faces print errors through it."""
    from memtier.secrets import one_line

    return one_line(message)
