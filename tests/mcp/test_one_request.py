"""Both faces build a search the one way: through the adapter's request builder
(memtier.surface, STYLE: two faces, one core), with the query cleaned alike."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from memtier.surface import Surface
from tests.conftest import CliRunner
from tests.mcp.conftest import call_tool, text_of

pytestmark = pytest.mark.anyio


def _spy(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    built: list[str] = []
    original = Surface.search_request

    def search_request(self: Surface, query: str, **given: Any) -> Any:
        request, warnings = original(self, query, **given)
        built.append(request.query)
        return request, warnings

    monkeypatch.setattr(Surface, "search_request", search_request)
    return built


async def test_a_search_from_either_face_passes_through_the_one_builder(
    server: Any, root: Path, cli: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    built = _spy(monkeypatch)
    assert cli("--root", str(root), "search", "decisions").exit_code == 0
    answer = await call_tool(server, "memory_search", query="decisions")
    assert not answer.is_error, text_of(answer)
    assert built == ["decisions", "decisions"]


async def test_both_faces_clean_the_query_the_same_way(
    server: Any, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A lone surrogate (what a client's JSON may carry) is U+FFFD for the tool server
    as it is on the command line, never a crash of the scan or the log."""
    built = _spy(monkeypatch)
    answer = await call_tool(server, "memory_search", query="decisions \ud800")
    assert not answer.is_error, text_of(answer)
    assert built == ["decisions \ufffd"]


def test_the_builder_chooses_the_scanner_of_the_environment(tmp_path: Path) -> None:
    face = Surface(cwd=tmp_path, environ={"MEMTIER_RG": "none"})
    request, warnings = face.search_request("x", tiers=["warm"], limit=3)
    assert (request.rg, request.tiers, request.limit, warnings) == (None, ("warm",), 3, ())
    missing = Surface(cwd=tmp_path, environ={"MEMTIER_RG": str(tmp_path / "no-rg")})
    request, warnings = missing.search_request("x")
    assert request.rg is None
    assert warnings and "not found" in warnings[0]
