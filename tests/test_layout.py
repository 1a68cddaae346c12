"""The shape of the package: no import cycle, no oversized module, every
``PROTOCOL §N`` citation resolvable, every path the docs name present."""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.source_trees import nodes_of, tree_of

PACKAGE = REPO / "memtier"
MAX_MODULE_LINES = 600
DOCS = (
    REPO / "README.md",
    REPO / "SKILL.md",
    REPO / "UPGRADE.md",
    *sorted((REPO / "docs").glob("*.md")),
)


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _tree(path: Path) -> ast.Module:
    """A module's syntax tree, parsed once for every check that reads it."""
    return tree_of(path)


def _imported(name: str, path: Path, known: set[str]) -> set[str]:
    """Every memtier module *name* imports, at the top or inside a function.

    ``from a.b import c`` is a dependency on ``a.b.c`` when that is a module,
    else on ``a.b``; relative imports are resolved against the package.
    """
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in nodes_of(path):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                source = ".".join([*base, *([node.module] if node.module else [])])
            else:
                source = node.module or ""
            modules = [f"{source}.{a.name}" for a in node.names if f"{source}.{a.name}" in known]
            # The package a submodule is taken from counts too, unless it is the
            # importer's own ancestor (initialised before the importer anyway).
            ancestor = name == source or name.startswith(source + ".")
            names_only = len(modules) < len(node.names)
            targets = modules + ([source] if names_only or not ancestor else [])
        else:
            continue
        for target in targets:
            if target in known and target != name:
                found.add(target)
    return found


@cache
def _graph() -> dict[str, set[str]]:
    modules = _modules()
    known = set(modules)
    return {name: _imported(name, path, known) for name, path in modules.items()}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for succ in sorted(graph[node]):
            if succ not in index:
                visit(succ)
                low[node] = min(low[node], low[succ])
            elif succ in on_stack:
                low[node] = min(low[node], index[succ])
        if low[node] == index[node]:
            component: list[str] = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_graph_sees_relative_function_level_and_module_imports(tmp_path: Path) -> None:
    """The cycle check would catch each way a cycle can be spelled."""
    known = {"memtier", "memtier.a", "memtier.pkg", "memtier.pkg.b", "memtier.pkg.c"}
    b = tmp_path / "b.py"
    b.write_text(
        "from . import c\ndef f():\n    from ..a import thing\n    from memtier import pkg\n",
        encoding="utf-8",
    )
    assert _imported("memtier.pkg.b", b, known) == {"memtier.pkg.c", "memtier.a", "memtier.pkg"}
    outside = tmp_path / "a.py"
    outside.write_text("from memtier.pkg import c, helper\n", encoding="utf-8")
    assert _imported("memtier.a", outside, known) == {"memtier.pkg.c", "memtier.pkg"}
    graph = {"x": {"y"}, "y": {"z"}, "z": {"x"}, "w": {"x"}}
    assert _cycles(graph) == [["x", "y", "z"]]


def test_memtier_has_no_import_cycle() -> None:
    assert _cycles(_graph()) == []


def test_no_guarded_import_of_memtier_itself() -> None:
    """A module of the package is imported plainly; ``except ImportError`` hides cycles."""
    offenders = []
    for name, path in _modules().items():
        for node in nodes_of(path):
            if not isinstance(node, ast.Try):
                continue
            guards = {ast.unparse(h.type) for h in node.handlers if h.type is not None}
            if guards & {"ImportError", "ModuleNotFoundError"}:
                body = ast.unparse(ast.Module(body=node.body, type_ignores=[]))
                if re.search(r"\bmemtier\b|from \.", body):
                    offenders.append(name)
    assert offenders == []


def test_no_module_over_the_limit() -> None:
    sizes = {
        name: len(path.read_text(encoding="utf-8").splitlines())
        for name, path in _modules().items()
    }
    assert {name: n for name, n in sizes.items() if n > MAX_MODULE_LINES} == {}


def _protocol_sections() -> set[int]:
    text = (REPO / "docs" / "PROTOCOL.md").read_text(encoding="utf-8")
    return {int(n) for n in re.findall(r"^## (\d+)\.", text, re.MULTILINE)}


def _cited_sections(text: str) -> set[int]:
    """Section numbers after ``§``, including lists such as ``§2, §9`` or ``§4 step 1``."""
    return {int(n) for n in re.findall(r"§\s?(\d+)", text)}


@pytest.mark.parametrize(
    "path",
    [*sorted(PACKAGE.rglob("*.py")), *DOCS],
    ids=lambda p: p.relative_to(REPO).as_posix(),
)
def test_every_protocol_citation_names_a_section(path: Path) -> None:
    cited = _cited_sections(path.read_text(encoding="utf-8"))
    assert cited - _protocol_sections() == set()


def test_protocol_keeps_its_section_numbers() -> None:
    assert _protocol_sections() == set(range(1, 15))


CONTRACT_TESTS = REPO / "tests" / "protocol"


def _contract_modules() -> list[Path]:
    return sorted(CONTRACT_TESTS.glob("test_*.py"))


@pytest.mark.parametrize("path", _contract_modules(), ids=lambda p: p.name)
def test_a_contract_test_module_is_one_section_and_its_tests_cite_it(path: Path) -> None:
    """``tests/protocol/test_sNN_<topic>.py`` holds the tests of section NN: its docstring
    cites §NN, and a test whose docstring cites sections cites NN among them (a test
    citing only other sections belongs in their modules)."""
    named = re.fullmatch(r"test_s(\d\d)_\w+\.py", path.name)
    assert named is not None, "name a contract test module test_sNN_<topic>.py"
    section = int(named.group(1))
    assert section in _protocol_sections()
    tree = ast.parse(path.read_text(encoding="utf-8"))
    assert section in _cited_sections(ast.get_docstring(tree) or "")
    elsewhere = {
        node.name: sorted(cited)
        for node in tree.body
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test_")
        if (cited := _cited_sections(ast.get_docstring(node) or "")) and section not in cited
    }
    assert elsewhere == {}


def test_contract_tests_are_sorted_by_section_not_by_version() -> None:
    """Contract tests live in tests/protocol/ by section; no module elsewhere is named
    for the protocol (as the v1 and v2 conformance modules under tests/cli once were)."""
    assert _contract_modules()
    tests = REPO / "tests"
    stray = [p.relative_to(tests).as_posix() for p in sorted(tests.rglob("test_protocol*.py"))]
    assert stray == []


def test_test_modules_are_named_for_what_they_test() -> None:
    """Not for the version, wave or review round that added them (``test_search_v3``,
    ``test_hostile_round3`` once were): the name says what is tested."""
    dated = re.compile(r"_(v\d+|round\d+|wave\d+|issue\d+)(_|\.py$)")
    tests = REPO / "tests"
    named = [p.relative_to(tests).as_posix() for p in sorted(tests.rglob("test_*.py"))]
    assert [name for name in named if dated.search(name)] == []


def test_every_repository_path_the_docs_name_exists() -> None:
    missing = []
    for doc in DOCS:
        text = doc.read_text(encoding="utf-8")
        for match in re.finditer(r"(?<![\w/])((?:memtier|tests|bench|docs)/[\w/.-]*\w)", text):
            rel = match.group(1)
            if "/" in rel and not (REPO / rel).exists() and not rel.startswith("memtier/templates"):
                missing.append(f"{doc.name}: {rel}")
    assert missing == []


def test_ci_runs_the_readme_test_command_verbatim() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    found = re.search(r"run the tests[^\n]*:\n\n```sh\n(.+?)\n```", readme)
    assert found is not None
    assert found.group(1) in (REPO / ".ci" / "run").read_text(encoding="utf-8")


def test_the_tier_list_is_spelled_only_in_workspace() -> None:
    """A literal naming the tiers anywhere else would drift from the one table."""
    tiers = {"hot", "warm", "buffer", "scratch", "cold"}
    spelled = []
    for name, path in _modules().items():
        for node in nodes_of(path):
            if isinstance(node, ast.Tuple | ast.List | ast.Set):
                words = {e.value for e in node.elts if isinstance(e, ast.Constant)}
                if len(words & tiers) >= 4:
                    spelled.append(f"{name}:{node.lineno}")
    assert [s for s in spelled if not s.startswith("memtier.workspace:")] == []


def _packages() -> set[str]:
    return {_module_name(p) for p in PACKAGE.glob("*/__init__.py")}


# Infrastructure that is a package rather than one module: the store (every write).
INFRASTRUCTURE_PACKAGES = {"store"}

# The features of commands/ that need several modules each have a folder; each folder's
# docstring names its PROTOCOL sections, and its modules named ``_x`` are its own.
FEATURES = {"sync", "facts", "topics", "transfer"}

# A feature's lowest modules, which the health engine reads through: the topic index as
# the notes and generation files derive it, and the listing of the notes that hold a topic
# (health's ``index.*`` checks). They are a layer of their own, below health, and may
# import only infrastructure and formats.
FEATURE_READERS = {"memtier.commands.topics.state", "memtier.commands.topics.notes"}

# The one adapter both faces open the workspace and build their requests through: above
# the core it builds requests for, below the two faces.
ADAPTER = "memtier.surface"


def _layer(module: str) -> str:
    """``top`` for the infrastructure modules at the top, ``reader`` for a feature's
    reader, else the subpackage's name."""
    if module in FEATURE_READERS:
        return "reader"
    if module == ADAPTER:
        return "adapter"
    parts = module.split(".")
    if len(parts) > 1 and parts[1] in INFRASTRUCTURE_PACKAGES:
        return "top"
    return parts[1] if len(parts) > 2 or module in _packages() else "top"


# The layers from the bottom up, and what each may import besides itself. Every
# layer is listed: an arrow not written here is upward (or sideways between the
# two engines) and fails, with no allowance for any module.
LAYERS_BELOW: dict[str, set[str]] = {
    "top": set(),
    "formats": {"top"},
    "demo": set(),  # packaged data only
    "reader": {"top", "formats"},
    "health": {"top", "formats", "reader"},
    "search": {"top", "formats"},
    "commands": {"top", "formats", "demo", "reader", "health", "search"},
    "adapter": {"top", "formats", "reader", "health", "search", "commands"},
    "mcp": {"top", "formats", "reader", "health", "search", "commands", "adapter"},
    "cli": {"top", "formats", "reader", "health", "search", "commands", "adapter", "mcp"},
}


def test_every_layer_has_its_place() -> None:
    """A new subpackage names what it may import before it imports anything."""
    layers = {_layer(module) for module in _modules()}
    assert layers - set(LAYERS_BELOW) == set()


def _upward(graph: dict[str, set[str]]) -> list[str]:
    """Every arrow that leaves a layer for one not below it."""
    wrong = []
    for module, deps in graph.items():
        if module == "memtier.__main__":
            continue  # the entry point: starting the CLI is its job
        here = _layer(module)
        for dep in deps:
            there = _layer(dep)
            if there != here and there not in LAYERS_BELOW.get(here, set()):
                wrong.append(f"{module} -> {dep}")
    return sorted(wrong)


def test_an_upward_or_sideways_arrow_is_caught() -> None:
    graph = {
        "memtier.search.scanner": {"memtier.commands.stats", "memtier.workspace"},
        "memtier.health.checks": {"memtier.search.pick"},
        "memtier.workspace": {"memtier.formats.text"},
        "memtier.commands.stats": {"memtier.search.pick", "memtier.workspace"},
    }
    assert _upward(graph) == [
        "memtier.health.checks -> memtier.search.pick",
        "memtier.search.scanner -> memtier.commands.stats",
        "memtier.workspace -> memtier.formats.text",
    ]


def test_layers_import_downwards_only() -> None:
    """Infrastructure imports no layer above it; formats only infrastructure; the
    engines (health, search) no command and not each other; commands no face;
    only the CLI (and ``__main__``, which starts it) imports the CLI, so every
    command's core runs without typer."""
    assert _upward(_graph()) == []


def _feature(module: str) -> str | None:
    parts = module.split(".")
    if len(parts) > 3 and parts[1] == "commands" and parts[2] in FEATURES:
        return parts[2]
    return None


def test_each_feature_has_its_folder_and_names_its_sections() -> None:
    """commands/sync/, facts/, topics/ and transfer/ open with a docstring citing the
    PROTOCOL sections they carry out; no flat module of commands/ is named for one of
    them (as sync_git.py, fact_files.py or transfer_export.py once were)."""
    commands = PACKAGE / "commands"
    for feature in sorted(FEATURES):
        init = commands / feature / "__init__.py"
        assert init.is_file(), feature
        doc = ast.get_docstring(_tree(init)) or ""
        assert _cited_sections(doc), feature
    prefixes = ("sync", "fact", "topic", "transfer", "import", "export", "capture")
    flat = sorted(p.name for p in commands.glob("*.py") if p.stem.startswith(prefixes))
    assert flat == []


def _private_imports(graph: dict[str, set[str]]) -> list[str]:
    """Every arrow into a feature's ``_x`` module from outside that feature."""
    wrong = []
    for module, deps in graph.items():
        for dep in deps:
            feature = _feature(dep)
            if feature and dep.split(".")[-1].startswith("_") and _feature(module) != feature:
                wrong.append(f"{module} -> {dep}")
    return sorted(wrong)


def test_a_private_import_across_features_is_caught() -> None:
    graph = {
        "memtier.commands.facts.remember": {"memtier.commands.sync._git"},
        "memtier.commands.sync.run": {"memtier.commands.sync._git"},
        "memtier.cli.sync": {"memtier.commands.sync._moves", "memtier.commands.sync.run"},
    }
    assert _private_imports(graph) == [
        "memtier.cli.sync -> memtier.commands.sync._moves",
        "memtier.commands.facts.remember -> memtier.commands.sync._git",
    ]


def test_a_feature_keeps_its_private_modules() -> None:
    """No face, engine or other feature imports a feature's ``_x`` modules."""
    assert _private_imports(_graph()) == []


def _value_classes(base: str) -> list[str]:
    """Every class of the package that subclasses *base* (by the name written)."""
    found = []
    for name, path in _modules().items():
        for node in nodes_of(path):
            if isinstance(node, ast.ClassDef):
                bases = {ast.unparse(b).rsplit(".", 1)[-1] for b in node.bases}
                if base in bases:
                    found.append(f"{name}.{node.name}")
    return sorted(found)


def test_value_types_follow_the_one_rule() -> None:
    """docs/DECISIONS.md, "Value types": ``Fields`` for values; ``NamedTuple`` only for
    the records a scan builds in bulk, one per line, term or note (the search engine,
    the listing of a topic's notes), where a tuple's speed serves; ``@dataclass`` never
    on a hot command's path (tests/test_values.py checks that in a real process)."""
    scans = ("memtier.search.", "memtier.commands.topics.notes.")
    tuples = _value_classes("NamedTuple")
    assert tuples
    assert [c for c in tuples if not c.startswith(scans)] == []


def test_the_search_engine_and_the_adapter_are_typed_without_any() -> None:
    """Where most of search's logic lives, ``mypy --strict`` sees every type: no
    ``typing.Any`` in memtier/search/ or in the adapter that builds requests."""
    typed = [p for p in sorted((PACKAGE / "search").glob("*.py"))] + [PACKAGE / "surface.py"]
    loose = [
        f"{path.relative_to(REPO).as_posix()}:{node.lineno}"
        for path in typed
        for node in nodes_of(path)
        if (isinstance(node, ast.Name) and node.id == "Any")
        or (isinstance(node, ast.Attribute) and node.attr == "Any")
    ]
    assert loose == []
