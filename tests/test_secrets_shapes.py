"""The findings of issue 19 about redaction, one by one, with the exact output
(PROTOCOL §3 v2/v3). Secrets are glued from pieces so that this file holds none."""

from __future__ import annotations

import pytest

from memtier.formats.text import fold_line
from memtier.secrets import Finding, detect, redact, redact_folded, redact_wrapped

GH = "gh" + "p_" + "a1B2c3D4e5" * 3 + "F6g7H8"
PA = "[REDACTED:PASSWORD_ASSIGNMENT]"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("DB_PASS" + 'WORD="correct horse battery staple"', f'DB_PASSWORD="{PA}"'),
        ("PASS" + 'WORD="p@ss w0rd!"', f'PASSWORD="{PA}"'),
        ("pass" + 'word="hunter2;rest"', f'password="{PA}"'),
        ("pass" + "word: 'two words here'", f"password: '{PA}'"),
        ('{"pass' + 'word": "p@ss w0rd", "user": "bob"}', f'{{"password": "{PA}", "user": "bob"}}'),
    ],
)
def test_quoted_values_are_redacted_whole(text: str, expected: str) -> None:
    assert redact(text).text == expected


@pytest.mark.parametrize(
    "text",
    [
        "All 3 test cases pass: 57.00, 46.00",
        "The checks pass: 100.0%, 99.5%",
        "pass" + "word: 2024-05-01 rotation is due",
        "pass" + 'word = "<your password>"',
        "PASS" + 'WORD="${DB_PASS}"',
        "bypass=enabled and compass=northeast1",
    ],
)
def test_prose_after_pass_is_kept(text: str) -> None:
    assert redact(text).text == text


@pytest.mark.parametrize(
    "word", ["Sen" + "ha", "Pass" + "wort", "Kenn" + "wort", "contra" + "seña", "па" + "роль",
             "has" + "ło", "wacht" + "woord"],
)  # fmt: skip
def test_non_english_password_words(word: str) -> None:
    assert redact(f"{word}: Tr0ub4dor99").text == f"{word}: {PA}"
    assert redact(f"{word}: esquecido").changed is False  # one plain word is prose


def test_french_and_chinese_forms() -> None:
    assert redact("mot de " + "passe : Tr0ub4dor99").text == f"mot de passe : {PA}"
    assert redact("密" + "码：Tr0ub4dor99").text == f"密码：{PA}"


def test_a_token_wrapped_across_lines_is_caught_before_folding() -> None:
    text = "token for CI " + GH[:20] + "\n" + GH[20:] + " ok"
    assert redact(text).counts == {}  # neither half is a token on its own
    assert fold_line(text).text == "token for CI [REDACTED:GITHUB_TOKEN] ok"
    assert redact_folded(text).counts == {"GITHUB_TOKEN": 1}
    indented = "- key " + GH[:9] + "\n    " + GH[9:] + "\n"
    assert redact_wrapped(indented).text == "- key [REDACTED:GITHUB_TOKEN]\n"


def test_gluing_lines_finds_nothing_in_prose() -> None:
    text = "tokens start with ghp_\nand are forty characters long\nthe password\nis elsewhere"
    assert redact_wrapped(text).counts == {}
    assert redact_folded(text).text == " ".join(text.split())


def test_netrc_pgpass_and_cli_flags() -> None:
    assert redact("machine h login u pass" + "word Zx9Qw8Er7T").text == (
        "machine h login u password [REDACTED:NETRC_PASSWORD]"
    )
    assert redact("db:5432:app:me:Zx9Qw8Er7T").text == "db:5432:app:me:[REDACTED:PGPASS_LINE]"
    assert redact("sshpass -p 'a b c' ssh x").text == "sshpass -p '[REDACTED:CLI_PASSWORD]' ssh x"
    assert (
        redact("redis-cli -a Zx9Qw8Er7T ping").text == "redis-cli -a [REDACTED:CLI_PASSWORD] ping"
    )


def test_line_anchored_rules_fire_on_any_line() -> None:
    # Python's "^" ignores the start offset of a search: "(?m:^)" does not.
    assert detect("intro\n-u deploy:" + "Hunt3rPw https://x") == [Finding("CLI_USER_PASSWORD", 2)]
    assert [f.line for f in detect("a\nb\ndb:5432:app:me:Zx9Qw8Er7T\n")] == [3]
