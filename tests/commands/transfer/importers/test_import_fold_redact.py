"""Import redacts after it folds, like every other writer (PROTOCOL §3 v4, §12).

A token hard-wrapped across two lines of an imported item is recognisable only
while the line break is still there to be glued over: the readers keep an
item's lines, and the one folding function (`memtier.secrets.fold_line`) folds
and redacts them in the right order.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from memtier.commands.transfer.importers import import_source
from memtier.workspace import Workspace
from tests.conftest import run_memtier

_RNG = random.Random(33)
_B62 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"


def _token(prefix: str, n: int) -> str:
    return prefix + "".join(_RNG.choice(_B62) for _ in range(n))


GITHUB = _token("gh" + "p_", 36)
STRIPE = _token("sk_" + "live_", 24)


def _memory_text(root: Path) -> str:
    return "\n".join(p.read_text() for p in sorted((root / "memory").rglob("*.md")))


@pytest.mark.parametrize("token", [GITHUB, STRIPE], ids=["github", "stripe"])
def test_a_brain_item_with_a_hard_wrapped_token_is_redacted(
    ws: Workspace, root: Path, tmp_path: Path, token: str
) -> None:
    text = f"The CI deploy token is {token[:14]}\n{token[14:]} until we rotate it"
    item = {"id": "w1", "kind": "fact", "text": text, "createdAt": "2026-10-05T10:00:00Z"}
    source = tmp_path / "brain.jsonl"
    source.write_text(json.dumps(item) + "\n")
    result = import_source(ws, "brain", source)
    written = _memory_text(root)
    assert token[:14] not in written
    assert token[14:] not in written
    assert "[REDACTED:" in written
    assert result.redacted


def test_the_cli_import_of_a_wrapped_token_shows_and_writes_no_part_of_it(
    root: Path, tmp_path: Path
) -> None:
    text = f"- deploy with {GITHUB[:20]}\n  {GITHUB[20:]} on nas01"
    item = {"id": "w2", "kind": "fact", "text": text, "createdAt": "2026-10-05T10:00:00Z"}
    source = tmp_path / "brain.jsonl"
    source.write_text(json.dumps(item) + "\n")
    done = run_memtier("import", "brain", str(source), "--json", cwd=root)
    assert done.returncode == 0, done.stderr
    for shown in (done.stdout, done.stderr, _memory_text(root)):
        assert GITHUB[:20] not in shown
        assert GITHUB[20:] not in shown


def test_an_indexed_paragraph_with_a_wrapped_token_is_redacted(
    ws: Workspace, root: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "indexed"
    folder.mkdir()
    (folder / "2026-05-20-deploy-a1.md").write_text(
        "---\nid: a1\ncreated: 2026-05-20\nupdated: 2026-05-20\ntags: [infra]\n"
        "source: chat\nscore: 0.5\n---\n# Deploy\n\n"
        f"The registry token is {STRIPE[:12]}\n{STRIPE[12:]} for now.\n"
    )
    import_source(ws, "indexed", folder)
    written = _memory_text(root)
    assert STRIPE[12:] not in written
    assert "[REDACTED:" in written
