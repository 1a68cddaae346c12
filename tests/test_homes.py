"""One home for each piece of knowledge (issue 20, item 5): the walk over the
tier files, the layout's paths, "does anything stand at this path", and reading
a day's note or starting one."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from memtier.tiers import tier_file_pairs, tier_files
from memtier.workspace import exists_or_link
from tests.conftest import REPO
from tests.source_trees import nodes_of, tree_of

PACKAGE = REPO / "memtier"


def _sources() -> dict[str, str]:
    return {
        p.relative_to(REPO).as_posix(): p.read_text(encoding="utf-8")
        for p in sorted(PACKAGE.rglob("*.py"))
    }


def test_exists_or_link_sees_files_folders_and_broken_links(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x", encoding="utf-8")
    (tmp_path / "broken").symlink_to(tmp_path / "nowhere")
    assert exists_or_link(tmp_path / "file")
    assert exists_or_link(tmp_path)
    assert exists_or_link(tmp_path / "broken")
    assert not exists_or_link(tmp_path / "nowhere")


def test_exists_or_symlink_is_written_once() -> None:
    """``p.exists() or p.is_symlink()`` (and its negation) is `exists_or_link`."""
    pattern = re.compile(r"\.exists\(\) (or|and not) [\w.]+\.is_symlink\(\)")
    spelled = [
        f"{rel}:{text[: m.start()].count(chr(10)) + 1}"
        for rel, text in _sources().items()
        for m in pattern.finditer(text)
    ]
    assert spelled == []


HOMES = {
    "memtier.workspace": {"TIERS", "TIER_PATHS", "tier_of"},
    "memtier.tiers": {
        "search_paths",
        "symlink_warnings",
        "symlinks_in",
        "tier_files",
        "tier_file_pairs",
    },
}


def test_the_tier_walk_lives_in_tiers(root: Path) -> None:
    """`stats`, `export` and the search engine take the tier table from the workspace
    and the walk over its files from `memtier.tiers`, never through a module that
    passes them on (as a re-export in the search engine once did)."""
    elsewhere = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(REPO).as_posix()
        for node in nodes_of(path):
            if not isinstance(node, ast.ImportFrom):
                continue
            names = {alias.name for alias in node.names}
            for home, homed in HOMES.items():
                if node.module != home and names & homed:
                    elsewhere.append(f"{rel}:{node.lineno}")
    assert elsewhere == []
    warnings: list[str] = []
    files = list(tier_files(root, ("hot", "buffer"), warnings))
    assert files == ["MEMORY.md", "memory/working-buffer.md"]
    assert list(tier_file_pairs(root, ("hot",), warnings)) == [("MEMORY.md", "hot")]
    assert warnings == []


def test_layout_paths_are_spelled_only_in_workspace() -> None:
    """A string naming a folder or file of the layout (``memory/…``, ``.learnings``,
    ``memtier.toml``) outside docstrings and comments drifts from workspace.py."""
    layout = re.compile(r"^(memory/(episodic|archive|semantic|procedural)\b|memory/memtier\.toml)")
    checked = (
        "memtier/config.py",
        "memtier/formats/envelope.py",
        "memtier/search/scanner.py",
        "memtier/search/boilerplate.py",
        "memtier/commands/transfer/export.py",
        "memtier/commands/transfer/importers/files.py",
    )
    spelled = []
    for rel in checked:
        tree = tree_of(REPO / rel)
        docstrings = {
            id(n.body[0].value)
            for n in ast.walk(tree)
            if isinstance(n, ast.Module | ast.FunctionDef | ast.ClassDef)
            and n.body
            and isinstance(n.body[0], ast.Expr)
        }
        for node in ast.walk(tree):
            literal = isinstance(node, ast.Constant) and isinstance(node.value, str)
            if literal and id(node) not in docstrings and layout.search(node.value):
                spelled.append(f"{rel}:{node.lineno}")
    assert spelled == []
