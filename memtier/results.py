"""The one base of command results: the messages a result carries, and its JSON.

Every command returns a frozen result that `memtier.render.show` prints as text or
JSON (pipx's habit: one result type, one renderer). `Result` declares what show
reads beyond the text: ``warnings``, ``notices``, the ``redacted`` counts (and
``redacted_in``, where they were found) and a ``failure`` that sets the exit
code. A result that carries one of them declares it as a field of its own; any
other reads it as empty.

JSON comes from the fields (`Record`; a key means the same thing in every
command): each field under its own name, or the name `JSON_NAMES` gives it,
`JSON_CONSTANT` keys first (``"action": "replace"``), `JSON_OMIT` fields left
out (the tables made with `fixed`); nested records give their own JSON, tuples
become lists. A result whose
JSON is not a field dump (a derived key, a summary) adds `json_extra` or writes
its own `to_json`.

Deliberately no `dataclasses` import here: the field names are read from what
``@dataclass`` leaves on the class, so this module costs the hot commands
nothing at start-up.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import PurePath
from types import MappingProxyType

from memtier.values import Fields

# Not typing's: importing it costs a search 3-4 ms. Type checkers read this as true.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, ClassVar

    from memtier.errors import MemtierError, Term


# The ``redacted`` default of a result: immutable, so one instance serves every result
# (a `Fields` default or a named tuple's; a dataclass field takes a default_factory).
NO_REDACTIONS: Mapping[str, int] = MappingProxyType({})


# What a result that does not carry a message reads (see `Result.__init_subclass__`).
_NO_MESSAGES: Mapping[str, Any] = MappingProxyType(
    {"warnings": (), "notices": (), "redacted": NO_REDACTIONS, "redacted_in": "", "failure": None}
)


def fixed(**items: Any) -> Mapping[str, Any]:
    """A read-only table for a record's class: ``JSON_NAMES = fixed(day="date")``."""
    return MappingProxyType(items)


class Record:
    """A value whose JSON is its fields (see the module docstring): a result, or an
    item a result lists (an archive move, a tier's figures)."""

    __slots__ = ()

    JSON_CONSTANT: ClassVar[Mapping[str, Any]] = MappingProxyType({})
    JSON_NAMES: ClassVar[Mapping[str, str]] = MappingProxyType({})
    JSON_OMIT: ClassVar[frozenset[str]] = frozenset()

    def json_extra(self) -> Mapping[str, Any]:
        """Keys computed from the fields rather than stored in one (none by default)."""
        return NO_REDACTIONS

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = dict(self.JSON_CONSTANT)
        names = self.JSON_NAMES
        for name in field_names(self):
            if name not in self.JSON_OMIT:
                data[names.get(name, name)] = json_value(getattr(self, name))
        data.update(self.json_extra())
        return data


class Result(Record):
    """Base of every command result: what `memtier.render.show` prints and reads."""

    __slots__ = ()

    if TYPE_CHECKING:
        # Declared for the type checker only (read-only, so a subclass may narrow one
        # or compute it): as class attributes they would become the defaults of a
        # dataclass's own fields of these names.
        @property
        def warnings(self) -> Sequence[str]: ...
        @property
        def notices(self) -> Sequence[str]: ...
        @property
        def redacted(self) -> Mapping[str, int]: ...
        @property
        def redacted_in(self) -> str: ...
        @property
        def failure(self) -> MemtierError | None: ...

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """A message the new class neither declares nor inherits reads as empty: set
        here, before ``@dataclass`` looks, so only undeclared names get a default."""
        super().__init_subclass__(**kwargs)
        # Not inspect.get_annotations: `inspect` alone costs a hot command ~10 ms.
        own = cls.__dict__.get("__annotations__", {})  # noqa: RUF063
        for name, empty in _NO_MESSAGES.items():
            if name not in own and not hasattr(cls, name):
                setattr(cls, name, empty)

    def text_lines(self) -> Iterable[str]:
        return ()

    def worded_lines(self, words: Callable[[Term], str]) -> Iterable[str]:
        """The text lines with each `Term` they name worded by a face: the tool
        server's words for a tool client (PROTOCOL §11 v3), where ``text_lines`` is
        the command line's (a result that names no command has the one text)."""
        return self.text_lines()


def field_names(result: object) -> tuple[str, ...]:
    """The fields of a `Fields` value, a dataclass or a named tuple, in their order."""
    if isinstance(result, Fields):
        return result._FIELDS
    if hasattr(type(result), "__dataclass_fields__"):
        from dataclasses import fields  # loaded already: *result* is a dataclass

        return tuple(f.name for f in fields(result))  # type: ignore[arg-type]
    return tuple(getattr(result, "_fields", ()))


def json_value(value: Any) -> Any:
    """*value* as JSON holds it: a result's own JSON, lists for sequences, dicts."""
    if value is None or isinstance(value, str | int | float):
        return value
    if isinstance(value, PurePath):
        return str(value)
    to_json = getattr(value, "to_json", None)
    if to_json is not None:
        return to_json()
    if isinstance(value, Mapping):
        return {key: json_value(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [json_value(item) for item in value]
    return value
