"""memtier.formats.frontmatter: the YAML front matter of imported notes, bounded
(PROTOCOL §12)."""

from __future__ import annotations

import contextlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memtier.formats.frontmatter import (
    FrontMatterError,
    field,
    parse_fields,
    split_front_matter,
    text_list,
)


def test_front_matter_scalars_and_both_list_forms() -> None:
    doc = split_front_matter(
        "---\nid: 'a: b'\nscore: 0.7\nn: 3\nok: true\ntags: [x, 'y z', \"w\"]\n"
        "more:\n  - one\n  - two\nempty:\ntitle: >-\n  folded\n  title\n"
        "metadata:\n  type: user\n---\n\n# Title\nbody\n"
    )
    assert doc.fields == {
        "id": "a: b",
        "score": 0.7,
        "n": 3,
        "ok": True,
        "tags": ["x", "y z", "w"],
        "more": ["one", "two"],
        "empty": None,
        "title": "folded title",
        "metadata": {"type": "user"},
    }
    assert doc.body == "# Title\nbody"


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("no fence\n", "no front matter"),
        ("---\nid: x\n", "not closed"),
        ("---\njust words\n---\n", "not a set of 'key: value' lines"),
        ("---\n- orphan\n---\n", "not a set of 'key: value' lines"),
        ("---\nx: [unclosed\n---\n", "front matter line"),
        ("---\na: &x [1]\nb: *x\n---\n", "anchors or aliases"),
        ("---\n" + "[" * 100_000 + "\n---\n", "longer than"),
        ("---\nx: " + "[" * 50 + "]" * 50 + "\n---\n", "nested deeper"),
    ],
)
def test_malformed_front_matter_says_why(text: str, why: str) -> None:
    with pytest.raises(FrontMatterError, match=why):
        split_front_matter(text)


texts = st.text(st.characters(codec="utf-8", exclude_characters="\x00"), max_size=80)


@settings(max_examples=30, derandomize=True)
@given(texts)
def test_no_input_crashes_the_parser(text: str) -> None:
    with contextlib.suppress(FrontMatterError):
        split_front_matter(text)


def test_anchors_and_aliases_are_refused() -> None:
    """An alias makes a small text a huge value (PROTOCOL §12 v3: bounded parsers)."""
    with pytest.raises(FrontMatterError, match="anchors or aliases"):
        parse_fields("a: &x [1, 2]\nb: *x\n")


def test_nesting_past_the_bound_is_refused() -> None:
    with pytest.raises(FrontMatterError, match="nested deeper"):
        parse_fields("a: " + "[" * 25 + "]" * 25 + "\n")
    assert parse_fields("a: " + "[" * 5 + "]" * 5 + "\n") == {"a": [[[[[]]]]]}


def test_bom_and_crlf_do_not_hide_the_fences() -> None:
    doc = split_front_matter("\ufeff---\r\nname: x\r\n---\r\nbody\r\n")
    assert doc.fields == {"name": "x"} and doc.body == "body"


def test_field_falls_back_to_nested_metadata() -> None:
    fields = {"name": "top", "type": None, "metadata": {"type": "user", "name": "inner"}}
    assert field(fields, "name") == "top"
    assert field(fields, "type") == "user"
    assert field(fields, "missing") is None


def test_text_list_takes_lists_and_comma_strings_only() -> None:
    assert text_list(["a", " b ", 3, True, None, ""]) == ("a", "b", "3")
    assert text_list("a, b,,c") == ("a", "b", "c")
    assert text_list({"a": 1}) == ()
