"""Arguments checked strictly, refused in one line of memtier's own (PROTOCOL §11 v3, §3).

The SDK validates a call's arguments with a lax pydantic model: ``True`` becomes
the task ``1``, an unknown argument (``as`` for ``as_text``) is dropped without a
word, and a refusal is pydantic's multi-line text quoting the value (a secret
pasted in the wrong place comes back whole). A server middleware runs before
that: each tool's own argument model, made strict and closed, checks the call,
and a refusal is one line naming the parameter and the type it takes, never the
value given.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, ValidationError

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable, Iterable

_TYPE_WORDS = {
    "string": "a string",
    "integer": "an integer",
    "boolean": "true or false",
    "number": "a number",
    "object": "an object",
    "null": "null",
}


def strict_models(tools: Iterable[Any]) -> dict[str, tuple[type[BaseModel], dict[str, Any]]]:
    """Tool name → (its argument model, strict and closed; its published input schema)."""
    models: dict[str, tuple[type[BaseModel], dict[str, Any]]] = {}
    for built in tools:
        base = built.fn_metadata.arg_model
        config: ConfigDict = base.model_config.copy()
        config["strict"] = True
        config["extra"] = "forbid"
        strict = type(base.__name__, (base,), {"model_config": config, "__module__": __name__})
        models[built.name] = (strict, built.parameters)
    return models


def expected(prop: dict[str, Any]) -> str:
    """What a schema property takes, in words: ``a string``, ``one of 'add', 'done'``."""
    if "enum" in prop:
        return "one of " + ", ".join(repr(v) for v in prop["enum"])
    if "anyOf" in prop:
        words = [expected(p) for p in prop["anyOf"] if p.get("type") != "null"]
        return " or ".join(dict.fromkeys(words))
    kind = prop.get("type")
    if kind == "array":
        item = expected(prop.get("items", {})).removeprefix("a ").removeprefix("an ")
        return f"a list of {item}s"
    word = _TYPE_WORDS.get(str(kind), "a value")
    low, high = prop.get("minimum"), prop.get("maximum")
    if kind == "integer" and low is not None and high is not None:
        return f"an integer from {low} to {high}"
    if kind == "integer" and low is not None:
        return f"an integer of at least {low}"
    return word


def _given(value: Any) -> str:
    """The type of what was given, never the value (it may be a secret)."""
    for kind, word in (
        (bool, "a boolean"),
        (int, "an integer"),
        (float, "a number"),
        (str, "a string"),
        (list, "a list"),
        (dict, "an object"),
    ):
        if isinstance(value, kind):
            return word
    return "null" if value is None else "something else"


def argument_error(
    name: str, exc: ValidationError, schema: dict[str, Any], arguments: dict[str, Any]
) -> str:
    """One line for the first argument at fault, in tool terms."""
    props: dict[str, Any] = schema.get("properties", {})
    takes = ", ".join(props) or "no arguments"
    for err in exc.errors(include_input=False, include_url=False):
        param = str(err["loc"][0]) if err["loc"] else ""
        if err["type"] == "extra_forbidden":
            shown = param if len(param) <= 40 else param[:40] + "…"
            return f"{name}: unknown parameter {shown!r} ({name} takes {takes})"
        if err["type"] == "missing":
            return f"{name}: {param} is required ({name} takes {takes})"
        if param in props:
            got = _given(arguments.get(param))
            return f"{name}: {param} must be {expected(props[param])} (got {got})"
    return f"{name}: the arguments do not match its parameters ({takes})"


def unknown_tool(name: str, known: Iterable[str]) -> str:
    """The refusal of a call to a tool that does not exist. The name is the caller's
    input: redacted whole before it is shortened (a cut credential may no longer
    look like one), and again with every error line (§3 v2)."""
    from memtier.surface import error_line

    redacted = error_line(name)
    shown = redacted if len(redacted) <= 60 else redacted[:60] + "…"
    return f"unknown tool {shown!r}; the tools are: {', '.join(known)}"


class ArgumentGuard:
    """Server middleware: checks every tools/call before the SDK's own validation:
    the tool exists (the SDK's own refusal quotes the name as given, unredacted),
    and its arguments are its parameters, of their types."""

    def __init__(self, tools: Iterable[Any], refuse: Callable[[str], Any]) -> None:
        self._models = strict_models(tools)
        self._refuse = refuse  # message → the tool-error result

    async def __call__(self, ctx: Any, call_next: Callable[[Any], Awaitable[Any]]) -> Any:
        if ctx.method == "tools/call" and isinstance(ctx.params, dict):
            name = ctx.params.get("name")
            entry = self._models.get(name) if isinstance(name, str) else None
            if entry is None and isinstance(name, str):
                return self._refuse(unknown_tool(name, self._models))
            arguments = ctx.params.get("arguments") or {}
            if entry is not None and isinstance(arguments, dict):
                model, schema = entry
                try:
                    model.model_validate(arguments)
                except ValidationError as exc:
                    name = str(ctx.params["name"])
                    return self._refuse(argument_error(name, exc, schema, arguments))
        return await call_next(ctx)
