"""The one folding function (PROTOCOL §3 v2): redact, fold to one line, redact again."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from memtier.secrets import detect, fold_line, replace_invalid, without_bullet

TOKEN = "abcDEF123456" + "ghiJKL789"
PEM_LINES = ["MIIEowIBAAKCAQEA" + "q1W2e3R4t5Y6" * 4] * 3


def test_a_password_split_by_a_line_break_is_redacted() -> None:
    folded = fold_line("pass" + "word:\nSuperSecret123")
    assert folded.text == "pass" + "word: [REDACTED:PASSWORD_ASSIGNMENT]"
    assert folded.redacted == {"PASSWORD_ASSIGNMENT": 1}


def test_a_bearer_token_split_by_a_line_break_is_redacted() -> None:
    folded = fold_line("Bear" + "er\n" + TOKEN)
    assert TOKEN not in folded.text
    assert folded.redacted == {"BEARER_TOKEN": 1}


def test_a_key_block_without_its_end_line_is_redacted_whole() -> None:
    raw = "-----" + "BEGIN RSA PRIVATE KEY-----\n" + "\n".join(PEM_LINES) + "\nZm9vYmFy==\n"
    folded = fold_line(raw)
    assert folded.text == "[REDACTED:PRIVATE_KEY]"


def test_an_indented_key_block_is_redacted_whole() -> None:
    body = "\n".join("    " + line for line in PEM_LINES)
    folded = fold_line("key:\n    -----" + "BEGIN PRIVATE KEY-----\n" + body + "\nthen prose")
    assert "MIIE" not in folded.text
    assert folded.text.endswith("then prose")


def test_a_key_block_folded_before_it_was_given_is_still_caught() -> None:
    folded = fold_line("-----" + "BEGIN PRIVATE KEY----- " + " ".join(PEM_LINES))
    assert folded.text == "[REDACTED:PRIVATE_KEY]"


def test_line_breaks_become_one_space_and_inner_blanks_stay() -> None:
    assert fold_line("  a  b \r\n\n  c\u2028d\x85e ").text == "a  b c d e"


def test_nul_and_control_characters_become_spaces() -> None:
    assert fold_line("a\0b\x1b[31mc\x7f").text == "a b [31mc"


def test_undecodable_bytes_become_replacement_characters() -> None:
    given_text = b"caf\xff\xfe!".decode("utf-8", "surrogateescape")
    assert fold_line(given_text).text == "caf\ufffd\ufffd!"
    assert replace_invalid("plain") == "plain"


def test_a_bullet_is_dropped_once_and_a_checkbox_keeps_its_box() -> None:
    assert without_bullet("- nas01 runs Ubuntu") == "nas01 runs Ubuntu"
    assert without_bullet("* starred") == "starred"
    assert without_bullet("- [ ] checkbox") == "[ ] checkbox"
    assert without_bullet("- - twice") == "- twice"
    assert without_bullet("--- rule") == "--- rule"
    assert without_bullet("-5 degrees") == "-5 degrees"
    assert without_bullet("  +\ttabbed") == "tabbed"


@given(st.text())
def test_folded_text_is_one_line_without_secrets_and_writable(text: str) -> None:
    folded = fold_line(text)
    assert folded.text.splitlines() in ([], [folded.text])
    assert "\0" not in folded.text
    assert detect(folded.text) == []
    folded.text.encode("utf-8")
