"""The one base of command results (issue 20, build item 4): messages `show` reads,
JSON from the fields."""

from __future__ import annotations

import ast
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import pytest

from memtier.results import NO_REDACTIONS, Record, Result, field_names, fixed, json_value
from memtier.values import Fields
from tests.conftest import REPO
from tests.source_trees import tree_of


@dataclass(frozen=True)
class Item(Record):
    name: str
    kept: str = ""

    JSON_OMIT = frozenset({"kept"})


@dataclass(frozen=True)
class Done(Result):
    day: str
    items: tuple[Item, ...] = ()
    redacted: Mapping[str, int] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()
    extra: dict[str, int] = field(default_factory=dict)

    JSON_CONSTANT = fixed(action="done")
    JSON_NAMES = fixed(day="date")
    JSON_OMIT = frozenset({"extra"})

    def json_extra(self) -> dict[str, Any]:
        return {"count": len(self.items)}


def test_json_is_the_fields_renamed_with_constants_first_and_extras_last() -> None:
    done = Done("2026-11-30", (Item("a", "x"), Item("b")), {"api_key": 1})
    assert list(done.to_json().items()) == [
        ("action", "done"),
        ("date", "2026-11-30"),
        ("items", [{"name": "a"}, {"name": "b"}]),
        ("redacted", {"api_key": 1}),
        ("warnings", []),
        ("count", 2),
    ]


def test_a_result_reads_the_messages_it_does_not_carry_as_empty() -> None:
    done = Done("2026-11-30", warnings=("careful",))
    assert done.warnings == ("careful",)
    assert (done.notices, done.redacted_in, done.failure) == ((), "", None)
    assert dict(done.redacted) == {}
    with pytest.raises(AttributeError):
        _ = done.nothing_of_the_kind  # type: ignore[attr-defined]


def test_the_empty_counts_are_one_read_only_empty_mapping() -> None:
    assert len(NO_REDACTIONS) == 0 and NO_REDACTIONS == {}
    with pytest.raises(TypeError):
        NO_REDACTIONS["x"] = 1  # type: ignore[index]


def test_field_names_of_dataclasses_and_named_tuples() -> None:
    from typing import NamedTuple

    class Pair(NamedTuple):
        left: int
        right: int

    assert field_names(Done("d")) == ("day", "items", "redacted", "warnings", "extra")
    assert field_names(Pair(1, 2)) == ("left", "right")
    assert json_value((Pair(1, 2), {"k": (1,)})) == [[1, 2], {"k": [1]}]


def test_the_module_imports_no_dataclasses() -> None:
    """The base costs a hot command nothing: `dataclasses` is read, not imported, here."""
    tree = ast.parse((REPO / "memtier" / "results.py").read_text(encoding="utf-8"))
    top = [n for n in tree.body if isinstance(n, ast.Import | ast.ImportFrom)]
    names = {a.name for n in top if isinstance(n, ast.Import) for a in n.names}
    sources = {n.module for n in top if isinstance(n, ast.ImportFrom)}
    assert "dataclasses" not in names | sources


def test_every_result_show_prints_is_a_result() -> None:
    """render.show's protocol is the base's: every class with ``text_lines`` and
    ``to_json`` in the package derives from `Result`."""
    import importlib
    import inspect

    loose = []
    for path in sorted((REPO / "memtier").rglob("*.py")):
        module_name = ".".join(path.relative_to(REPO).with_suffix("").parts)
        module_name = module_name.removesuffix(".__init__")
        tree = tree_of(path)
        for node in tree.body:
            if not isinstance(node, ast.ClassDef):
                continue
            methods = {n.name for n in node.body if isinstance(n, ast.FunctionDef)}
            if {"to_json", "text_lines"} <= methods:
                cls = getattr(importlib.import_module(module_name), node.name)
                if inspect.isclass(cls) and not issubclass(cls, Result) and node.name != "Report":
                    loose.append(f"{module_name}.{node.name}")
    assert loose == []


class Light(Result, Fields):
    """A hot command's result: fields without dataclasses' generated code."""

    action: str
    line: int | None = None
    redacted: Mapping[str, int] = NO_REDACTIONS

    JSON_NAMES = fixed(action="what")


class Pair(Fields):
    left: int
    right: int = 0


def test_fields_are_frozen_values_with_defaults_in_order() -> None:
    light = Light("note", line=3)
    assert (light.action, light.line, dict(light.redacted)) == ("note", 3, {})
    assert light == Light("note", 3) and light != Light("note")
    assert hash(Pair(1)) == hash(Pair(1, 0)) and Pair(1) != Pair(1, 2)
    assert repr(light) == "Light(action='note', line=3, redacted=mappingproxy({}))"
    assert light.copy_with(line=4) == Light("note", 4) and light.line == 3
    assert light.to_json() == {"what": "note", "line": 3, "redacted": {}}
    assert (light.warnings, light.failure) == ((), None)
    with pytest.raises(AttributeError):
        light.line = 5  # type: ignore[misc]
    bad: tuple[Any, ...]
    for bad in ((), ("a", 1, {}, 2)):
        with pytest.raises(TypeError):
            Light(*bad)
    with pytest.raises(TypeError):
        Light("note", action="again")  # type: ignore[misc]
