"""`Fields`: frozen values without ``@dataclass``, for everything a hot command loads.

Importing `dataclasses` loads `inspect` (with `ast`, `dis`, `tokenize`), about 7 ms
of every command's start, and each ``@dataclass`` class costs about half a
millisecond more to generate. The values on the hot commands' path (a workspace,
its configuration, a document as read, a redaction, a command's result) are
`Fields` instead; type checkers read them as frozen dataclasses.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType

# Not typing's: importing it costs a search 3-4 ms. Type checkers read this as true.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, ClassVar, Self, TypeVar, dataclass_transform

    T = TypeVar("T")
else:

    def dataclass_transform(**_: object) -> object:
        """What the class decorator means to a type checker; nothing at run time."""
        return lambda cls: cls


class _Factory:
    """A default made anew for each value (`field`'s ``default_factory``)."""

    __slots__ = ("make",)

    def __init__(self, make: Callable[[], Any]) -> None:
        self.make = make


def field(*, default_factory: Callable[[], T]) -> T:
    """A field whose default is ``default_factory()``, called for each new value."""
    made: Any = _Factory(default_factory)
    return made  # type: ignore[no-any-return]


@dataclass_transform(frozen_default=True, field_specifiers=(field,))
class Fields:
    """A frozen value whose fields are its class's annotations, as a frozen dataclass's
    are, without the code ``@dataclass`` generates for each class.

    Positional or keyword arguments in field order; a field's default is the value
    the class body gives it (`field` for one made anew each time); a
    ``__post_init__`` method runs after the fields are set; `copy_with` is
    ``dataclasses.replace``. Equality, hashing and repr go by the fields.
    """

    __slots__ = ()
    _FIELDS: ClassVar[tuple[str, ...]] = ()
    _DEFAULTS: ClassVar[Mapping[str, Any]] = MappingProxyType({})

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # Not inspect.get_annotations: `inspect` alone costs a hot command ~7 ms.
        own = cls.__dict__.get("__annotations__", {})  # noqa: RUF063
        names = [*cls._FIELDS]
        defaults = dict(cls._DEFAULTS)
        for name, kind in own.items():
            if "ClassVar" in str(kind):
                continue
            if name not in names:
                names.append(name)
            if name in cls.__dict__:
                defaults[name] = cls.__dict__[name]
        cls._FIELDS = tuple(names)
        cls._DEFAULTS = MappingProxyType(defaults)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        names = self._FIELDS
        if len(args) > len(names):
            raise TypeError(f"{type(self).__name__}: {len(args)} values for {len(names)} fields")
        values = dict(zip(names, args, strict=False))
        for key, value in kwargs.items():
            if key not in names or key in values:
                raise TypeError(f"{type(self).__name__}: unexpected or repeated field {key!r}")
            values[key] = value
        for name in names:
            if name not in values:
                if name not in self._DEFAULTS:
                    raise TypeError(f"{type(self).__name__}: missing field {name!r}")
                default = self._DEFAULTS[name]
                values[name] = default.make() if isinstance(default, _Factory) else default
        self.__dict__.update(values)
        post = getattr(self, "__post_init__", None)
        if post is not None:
            post()

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is frozen: cannot set {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} is frozen: cannot delete {name!r}")

    def _values(self) -> tuple[Any, ...]:
        return tuple(self.__dict__[name] for name in self._FIELDS)

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._values() == other._values()

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        shown = ", ".join(f"{n}={self.__dict__[n]!r}" for n in self._FIELDS)
        return f"{type(self).__name__}({shown})"

    def copy_with(self, **changes: Any) -> Self:
        return type(self)(**{**dict(zip(self._FIELDS, self._values(), strict=True)), **changes})


class _RecordMaker(type):
    """What ``typing.NamedTuple`` does for a class written with it, without its check
    of each field's annotation: under ``from __future__ import annotations`` every
    annotation is a string, which typing turns into a ``ForwardRef`` by compiling it
    as Python code. The search path defines ten such records each time it starts
    (measured: 3.0 -> 2.1 ms of CPU), and with this it need not import `typing` at all
    (DECISIONS, "Value types")."""

    def __new__(cls, name: str, bases: tuple[type, ...], namespace: dict[str, Any]) -> Any:
        if not bases:  # `NamedTuple` itself
            return super().__new__(cls, name, bases, namespace)
        import collections

        # Called through a name, not as ``namedtuple(...)``: type checkers read such a
        # call as a type declaration of its own.
        make: Callable[..., type] = collections.namedtuple
        fields = tuple(namespace.get("__annotations__", {}))
        given = [key for key in fields if key in namespace]
        if given != list(fields[len(fields) - len(given) :]):
            raise TypeError(f"{name}: a field without a default follows one with a default")
        made = make(
            name, fields, defaults=[namespace[n] for n in given], module=namespace["__module__"]
        )
        made.__annotations__ = dict(namespace.get("__annotations__", {}))
        for key, value in namespace.items():
            if key not in _OWN and key not in fields:
                setattr(made, key, value)
        return made


# What `_RecordMaker` leaves as `namedtuple` made it (as ``typing.NamedTuple`` does).
_OWN = frozenset({"__module__", "__name__", "__annotations__"})

if TYPE_CHECKING:
    from typing import NamedTuple as NamedTuple
else:

    class NamedTuple(metaclass=_RecordMaker):
        """The base of a record written as ``class Term(NamedTuple): ...``: the class
        ``typing.NamedTuple`` makes, as type checkers read it."""
