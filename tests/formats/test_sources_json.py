"""memtier.formats.sources_json: brain and MCP-memory exports, bounded JSON (PROTOCOL §12)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memtier.formats.sources_json import JSONBoundError, load_json, parse_brain, parse_mcp_memory


def test_brain_accepts_jsonl_envelope_and_bare_array() -> None:
    line = '{"id":"1","kind":"note","text":"t","createdAt":"2026-01-02T00:00:00Z","tags":["a"]}'
    assert len(parse_brain(line + "\n" + line).items) == 2
    assert len(parse_brain('{"version":1,"count":1,"items":[' + line + "]}").items) == 1
    assert len(parse_brain("[" + line + "]").items) == 1
    bad = parse_brain('{"version":1,"items":{}}')
    assert [i.why for i in bad.invalid] == ["'items' is not a list"]


def test_mcp_relation_follows_its_entity() -> None:
    parsed = parse_mcp_memory(
        '{"type":"relation","from":"nas01","to":"ups","relationType":"is_powered_by"}\n'
        '{"type":"entity","name":"nas01","entityType":"Server","observations":[]}\n'
    )
    relation, entity = parsed.items
    assert relation.facts == ("nas01 is powered by ups",) and relation.kind == "server"
    assert entity.facts == ("nas01 (Server)",)


texts = st.text(st.characters(codec="utf-8", exclude_characters="\x00"), max_size=80)


@settings(max_examples=30, derandomize=True)
@given(texts)
def test_no_input_crashes_the_parsers(text: str) -> None:
    parse_brain(text)
    parse_mcp_memory(text)


@pytest.mark.parametrize(
    "text",
    ["[" * 70 + "]" * 70, "1" * 41, "NaN", '{"a": Infinity}'],
)
def test_load_json_refuses_what_is_past_its_bounds(text: str) -> None:
    with pytest.raises(JSONBoundError):
        load_json(text)


def test_load_json_within_bounds() -> None:
    assert load_json("[" * 10 + "1" * 40 + "]" * 10) is not None
    assert load_json('{"a": 1.5}') == {"a": 1.5}


def test_brain_lines_that_are_not_json_are_reported_not_fatal() -> None:
    line = '{"id":"1","kind":"note","text":"t"}'
    parsed = parse_brain(line + "\nnot json\n" + line)
    assert len(parsed.items) == 2
    assert len(parsed.invalid) == 1
