"""importers.reading: a source read, bounded, without a lock (PROTOCOL §12)."""

from __future__ import annotations

from pathlib import Path

import pytest

from memtier.commands.transfer.importers.reading import read_export, read_items, too_big
from memtier.errors import InputError


def test_jsonl_from_standard_input_and_from_a_file(tmp_path: Path) -> None:
    line = '{"id":"1","kind":"note","text":"t"}\n'
    assert len(read_items("brain", Path("-"), text=line).items) == 1
    (tmp_path / "store.jsonl").write_text(line * 2)
    assert len(read_items("brain", tmp_path / "store.jsonl").items) == 2


def test_a_source_with_no_json_line_is_an_input_error() -> None:
    with pytest.raises(InputError, match="no line is JSON"):
        read_items("brain", Path("-"), text="just prose\nmore prose\n")


def test_an_empty_source_names_the_layout_it_expected(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="nothing to import as 'mcp-memory'; expected the MCP"):
        read_items("mcp-memory", Path("-"), text="\n")


def test_a_folder_format_does_not_read_standard_input() -> None:
    with pytest.raises(InputError, match="reads a folder, not standard input"):
        read_items("claude", Path("-"), text="x")


def test_a_missing_file_and_a_folder_given_for_a_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file"):
        read_items("brain", tmp_path / "missing.jsonl")
    with pytest.raises(InputError, match="is a folder; this format reads one file"):
        read_export(tmp_path, None)


def test_an_export_that_is_not_one_names_the_source(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"^-: not a memtier export"):
        read_export(Path("-"), '{"format": "other"}')
    files, invalid = read_export(
        Path("-"), '\ufeff{"format": "memtier-export", "version": 1, "files": []}'
    )
    assert (files, invalid) == ([], [])


def test_too_big_says_the_limit() -> None:
    assert "larger than the import limit of 256 MiB" in too_big(10**9, "x").message


def test_a_claude_folder(tmp_path: Path) -> None:
    memory = tmp_path / "memory"
    memory.mkdir()
    (memory / "MEMORY.md").write_text("- [NAS](nas.md) — the NAS\n")
    (memory / "nas.md").write_text("---\nname: nas\ntype: reference\n---\nNAS on UPS.\n")
    parsed = read_items("claude", tmp_path)
    assert [i.ref for i in parsed.items] == ["nas.md"] and parsed.invalid == []
