"""Tests for memtier.secrets.

Every example secret is glued together from pieces at run time, so this file
holds no literal that a rule would flag (test_source_file_has_no_secrets
checks that).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from collections import OrderedDict
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memtier import secrets, secrets_rules
from memtier.results import field_names
from memtier.secrets import RULE_NAMES, Finding, Redaction, detect, prefilter_pattern, redact

REPO = Path(__file__).resolve().parent.parent

PEM_BODY = "\n".join(["MIIEowIBAAKCAQEA" + "q1W2e3R4t5Y6" * 4] * 3 + ["Zm9vYmFy=="])
PEM = "-----" + "BEGIN RSA PRIVATE KEY-----\n" + PEM_BODY + "\n-----" + "END RSA PRIVATE KEY-----"
JWT = "ey" + "JhbGciOiJIUzI1NiJ9" + "." + "ey" + "JzdWIiOiIxMjM0In0" + "." + "abcDEF123_-xyz456"
GH_CLASSIC = "gh" + "p_" + "a1B2" * 9
OPENAI_PROJ = "sk" + "-proj-" + "Xy9_" * 10
PASSWORD_VALUE = "hunter2" + "hunter2"

# rule -> (text as it would appear in a note, the secret part that must vanish,
#          the expected redacted text)
CASES: dict[str, tuple[str, str, str]] = {}


def _case(rule: str, before: str, secret: str, after: str = "", kept: str | None = None) -> None:
    """Register ``before + secret + after``; ``kept`` overrides the expected output."""
    placeholder = f"[REDACTED:{rule}]"
    CASES[rule] = (before + secret + after, secret, kept or before + placeholder + after)


_case("PRIVATE_KEY", "", PEM)
_case("ANTHROPIC_KEY", "key ", "sk" + "-ant-api03-" + "Ab1_" * 20)
_case("OPENAI_KEY", "OPENAI_API_KEY=", OPENAI_PROJ)
_case("STRIPE_KEY", "stripe ", "sk" + "_live_" + "4eC39HqLyjWDarjt")
_case("GITHUB_TOKEN", "GH token ", GH_CLASSIC)
_case("GOOGLE_API_KEY", "maps ", "AI" + "za" + ("a1B2c3D4e5" * 4)[:35])
_case("AWS_ACCESS_KEY_ID", "id ", "AK" + "IA" + "IOSFODNN7EXAMPLQ")
_case(
    "AWS_SECRET_ACCESS_KEY",
    "aws_secret_access_key" + " = ",
    "wJalrXUtnFEMI/K7MDENG/bPxRfiCY" + "EXAMPLEKEY",
)
_case(
    "AZURE_STORAGE_KEY",
    "DefaultEndpointsProtocol=https;AccountName=acct;Account" + "Key=",
    "A1b2" * 21 + "xy" + "==",
)
_case("SLACK_TOKEN", "bot ", "xo" + "xb-" + "1234567890-" + "0987654321-" + "AbCdEfGh1234IjKl")
_case(
    "SLACK_WEBHOOK",
    "hook https://hooks.slack.com/services/",
    "T0123ABCD" + "/" + "B0123ABCD" + "/" + "x1Y2" * 6,
)
_case("SENDGRID_KEY", "mail ", "SG" + "." + "a1B2_" * 4 + "c3" + "." + "D4e5-" * 8 + "f6G")
_case("TWILIO_API_KEY", "twilio ", "S" + "K" + "0123456789abcdef" * 2)
_case("NPM_TOKEN", "//registry/:_authToken ", "np" + "m_" + "a1B2c3" * 6)
_case("VAULT_TOKEN", "VAULT ", "hv" + "s." + "CAESI" + "a1B2c3" * 5)
_case("HUGGINGFACE_TOKEN", "hub ", "h" + "f_" + "a1B2c3D4e5" * 3 + "Zz")
_case("TELEGRAM_BOT_TOKEN", "bot ", "1234" + "56789" + ":" + "AAH" + "a1B2c3D4" * 4)
_case("JWT", "session ", JWT)
_case("DATABASE_URL", "db postgres" + "://app:", "s3cr3tPw", "@db.example.com:5432/app")
_case("BEARER_TOKEN", "Authorization: Bear" + "er ", "abcDEF123456ghiJKL789")
_case("PASSWORD_ASSIGNMENT", "pass" + "word=", PASSWORD_VALUE)
_case("DISCORD_WEBHOOK", "hook https://discord.com/api/webhooks/123456789012345678/", "a1B2_" * 13)
_case("GITLAB_TOKEN", "gitlab ", "gl" + "pat-" + "a1B2c3D4e5F6g7H8i9J0")
_case("PYPI_TOKEN", "upload ", "py" + "pi-AgE" + "IcHlwaS5vcmc" + "a1B2c3D4e5" * 6)
_case("TAILSCALE_KEY", "join ", "ts" + "key-auth-" + "kAb1CDEF1CNTRL-" + "a1B2c3D4e5F6" * 3)
_case("DIGITALOCEAN_TOKEN", "doctl ", "do" + "p_v1_" + "0123456789abcdef" * 4)
_case("MYSQL_PASSWORD", "mysql -u root -p", "My5qlSecret", " app")
_case("PASSWORD_OPTION", "vpn connect --pass" + "word ", "Hunt3r2024", " now")
_case("SHOPIFY_TOKEN", "shop ", "sh" + "pat_" + "0123456789abcdef" * 2)
_case("URL_PASSWORD", "fetch https://deploy:", "Hunt3rPw", "@git.example.com/repo")
_case("BASIC_AUTH", "Authorization: Basic ", "ZGVwbG95Okh1bnQzclB3")
_case("CLI_USER_PASSWORD", "curl -u deploy:", "Hunt3rPw", " https://x.example.com")

# Extra positives: other shapes that the same rules must catch.
EXTRA: list[tuple[str, str, str]] = [
    ("OPENAI_KEY", "old " + "sk" + "-" + "A1b2C3d4" * 6, "sk" + "-" + "A1b2C3d4" * 6),
    ("STRIPE_KEY", "rk" + "_live_" + "Zx9" * 8, "rk" + "_live_" + "Zx9" * 8),
    ("STRIPE_KEY", "sk" + "_test_" + "Zx9" * 8, "sk" + "_test_" + "Zx9" * 8),
    ("GITHUB_TOKEN", "gh" + "s_" + "Q7w8" * 9, "gh" + "s_" + "Q7w8" * 9),
    (
        "GITHUB_TOKEN",
        "github" + "_pat_" + "11ABCDEFG0" + "a1B2c3" * 2 + "_" + "x1Y2" * 15,
        "github" + "_pat_" + "11ABCDEFG0" + "a1B2c3" * 2 + "_" + "x1Y2" * 15,
    ),
    ("AWS_ACCESS_KEY_ID", "AS" + "IA" + "Q" * 4 + "7" * 12, "AS" + "IA" + "Q" * 4 + "7" * 12),
    ("SLACK_WEBHOOK", "https://hooks.slack.com/services/" + "T12345/B76543/" + "z" * 24, "z" * 24),
    ("VAULT_TOKEN", "hv" + "b." + "AAAAAQ" + "x9Y8" * 8, "hv" + "b." + "AAAAAQ" + "x9Y8" * 8),
    ("DATABASE_URL", "mongodb" + "+srv://u:" + "Pw0rd99" + "@cluster0.x.net/db", "Pw0rd99"),
    ("DATABASE_URL", "redis" + "://:" + "R3disPass" + "@cache:6379/0", "R3disPass"),
    ("DATABASE_URL", "mysql" + "://root:" + "My5ql!pw" + "@localhost/app", "My5ql!pw"),
    ("PASSWORD_ASSIGNMENT", "db_pass" + "word: " + "Tr0ub4dor&3", "Tr0ub4dor"),
    ("PASSWORD_ASSIGNMENT", '"pass' + 'wd": "' + "c0rrecthorse" + '"', "c0rrecthorse"),
    ("PASSWORD_ASSIGNMENT", "**Pass" + "word:** " + "S3cretValue", "S3cretValue"),
    ("PASSWORD_ASSIGNMENT", "PW" + "D=" + "qwerty123", "qwerty123"),
    ("PASSWORD_ASSIGNMENT", "client_sec" + "ret: " + "abc123XYZ", "abc123XYZ"),
    ("PASSWORD_ASSIGNMENT", "SECRET" + "_KEY=" + "django-insecure-x1", "django-insecure-x1"),
    ("PASSWORD_ASSIGNMENT", "api" + "_key=" + "Zm9vYmFyYmF6", "Zm9vYmFyYmF6"),
    ("PASSWORD_ASSIGNMENT", "https://x.io/cb?tok" + "en=" + "abcdef123456&x=1", "abcdef123456"),
    # Rules and shapes added in PROTOCOL v2 (issue: secrets that reached disk).
    ("URL_PASSWORD", "ftp" + "://bob:" + "s3cr3tFtp" + "@ftp.example.org", "s3cr3tFtp"),
    ("URL_PASSWORD", "amqp" + "://guest:" + "Rabb1tPw" + "@mq:5672/", "Rabb1tPw"),
    ("URL_PASSWORD", "smtps" + "://me:" + "M4ilPass" + "@smtp.example.com", "M4ilPass"),
    ("MYSQL_PASSWORD", "mysqldump --single-transaction -p" + "Dump3rPw" + " db", "Dump3rPw"),
    ("PASSWORD_OPTION", "login --pass" + "phrase " + "Hunt3r2024", "Hunt3r2024"),
    ("CLI_USER_PASSWORD", "curl --user deploy:" + "Hunt3rPw" + " https://x", "Hunt3rPw"),
    ("PASSWORD_ASSIGNMENT", "DB_PA" + "SS=" + "abc123xyz", "abc123xyz"),
    ("PASSWORD_ASSIGNMENT", "PASS" + "PHRASE=" + "correct-horse-7", "correct-horse-7"),
    ("PASSWORD_ASSIGNMENT", "SMTP_PA" + "SS: " + "Mail2024pw", "Mail2024pw"),
    ("OPENAI_KEY", "sk" + "-None-" + "A1b2C3d4" * 4, "sk" + "-None-" + "A1b2C3d4" * 4),
    ("OPENAI_KEY", "sk" + "-svcacct-" + "A1b2C3d4" * 4, "sk" + "-svcacct-" + "A1b2C3d4" * 4),
    (
        "SLACK_TOKEN",
        "xa" + "pp-1-A0123ABCD45-1234567890123-" + "0123456789abcdef" * 4,
        "xa" + "pp-1-A0123ABCD45-1234567890123-" + "0123456789abcdef" * 4,
    ),
    ("GITLAB_TOKEN", "gl" + "ptt-" + "0123456789abcdef" * 2 + "01234567", "gl" + "ptt-"),
    ("TAILSCALE_KEY", "ts" + "key-" + "kAb1CDEF1CNTRL-" + "a1B2c3D4e5F6" * 3, "ts" + "key-"),
]

NEAR_MISSES = [
    "we use sk-learn for the pipeline",
    "see task-sk-foo and sk-short",
    "request id 123e4567-e89b-12d3-a456-426614174000",
    "fixed in 9fceb02d0ae598e95dc970b74767f19372d61af8",
    "md5 d41d8cd98f00b204e9800998ecf8427e",
    "connect to postgres://db.host:5432/app",
    "connect to postgres://user@host/db",
    "mysql://root@localhost/db and redis://localhost:6379/0",
    "password: none",
    "password=",
    "password:",
    "Password: see vault",
    "passwordless login is enabled",
    "passwordless: true",
    "the token: refreshed yesterday",
    "the passwd: prompt hung for 6 min",
    "Decisions: keep the secret: rotation policy",
    "Signal: the password: Expired, so we reset it.",
    "password = <your password>",
    "PWD=/home/user/project",
    "token: ${{ secrets.GITHUB_TOKEN }}",
    "max_tokens=4096 and tokens: 12",
    "secret: abc",
    "api_key=",
    "use a Bearer token here",
    "AKIA is the prefix",
    "SKU12345 is not a key",
    "meeting at 12:30, deadline 2024-01-01T10:20:30",
    "eyJhbGciOiJIUzI1NiJ9 alone is only a header",
    "[REDACTED:OPENAI_KEY]",
    "pass" + "word=[REDACTED:PASSWORD_ASSIGNMENT]",
    "Authorization: Bearer [REDACTED:JWT]",
    "postgres://app:[REDACTED:DATABASE_URL]@db/app",
    # v2: the false positives of v1, and near misses of the rules v2 added.
    "we use bearer authentication for the API",
    "Bearer authentication is configured",
    "token: re-issued",
    "password: reset-by-email",
    "secret: 42-is-the-answer",
    "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
    "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "https://example.com:8443/path and https://user@example.com/",
    "see http://example.com/a:b@c for the syntax",
    "Basic authentication is off; use basic auth only on the LAN",
    "curl -u deploy https://x.example.com asks for the password",
    "mysql -P 3306 -p app prompts for it",
    "--password-file /etc/app/pw",
    "bypass=enabled and compass=northeast1",
    "tskey-auth keys expire after 90 days",
    "glpat-short and pypi-AgE and dop_v1_abc and shpat_xyz",
    "xapp-1-tokens are app-level",
    "https://discord.com/api/webhooks/ needs an id and a token",
]


def _wrap(text: str) -> str:
    return "# Notes\n\nsee " + text + " done\nthe end\n"


def test_every_rule_has_a_positive_case() -> None:
    # A rule is shown at work here (CASES) or by the realistic corpus.
    from tests.secrets_corpus import SHAPES

    fired = {rule for shape in SHAPES for rule in secrets.redact_folded(shape.text).counts}
    assert set(CASES) | fired == set(RULE_NAMES)
    assert set(CASES) <= set(RULE_NAMES)
    assert len(set(RULE_NAMES)) == len(RULE_NAMES)
    assert all(re.fullmatch(r"[A-Z][A-Z0-9_]*", name) for name in RULE_NAMES)


@pytest.mark.parametrize("rule", list(CASES))
def test_rule_detects_with_line_number(rule: str) -> None:
    text, secret, _ = CASES[rule]
    findings = detect(_wrap(text))
    assert findings == [Finding(rule=rule, line=3)]
    assert secret not in repr(findings)


@pytest.mark.parametrize("rule", list(CASES))
def test_rule_redacts(rule: str) -> None:
    text, secret, expected = CASES[rule]
    result = redact(_wrap(text))
    assert result.text == _wrap(expected)
    assert result.counts == {rule: 1}
    assert result.changed
    assert f"[REDACTED:{rule}]" in result.text
    assert secret not in result.text
    assert secret not in repr(result)


@pytest.mark.parametrize(("rule", "text", "secret"), EXTRA)
def test_other_shapes(rule: str, text: str, secret: str) -> None:
    assert detect(text) == [Finding(rule=rule, line=1)]
    result = redact(text)
    assert result.counts == {rule: 1}
    assert secret not in result.text


@pytest.mark.parametrize("text", NEAR_MISSES)
def test_near_misses_do_not_fire(text: str) -> None:
    assert detect(text) == []
    assert redact(text).counts == {}


@pytest.mark.parametrize("name", RULE_NAMES)
def test_placeholders_never_match(name: str) -> None:
    placeholder = f"[REDACTED:{name}]"
    for context in ("{}", "pass" + "word={}", "Bearer {}", "token: {}", "x{}y", "{}{}"):
        text = context.format(placeholder, placeholder)
        assert detect(text) == []
        assert redact(text).text == text


def test_pem_block_is_one_redaction() -> None:
    text = "before\n" + PEM + "\nafter\n"
    assert detect(text) == [Finding("PRIVATE_KEY", 2)]
    result = redact(text)
    assert result.text == "before\n[REDACTED:PRIVATE_KEY]\nafter\n"
    assert result.counts == {"PRIVATE_KEY": 1}


def test_pem_variants() -> None:
    openssh = PEM.replace("RSA", "OPENSSH")
    crlf = "x\r\n" + PEM.replace("\n", "\r\n") + "\r\ny\r\n"
    assert redact(crlf).text == "x\r\n[REDACTED:PRIVATE_KEY]\r\ny\r\n"
    assert redact(openssh).text == "[REDACTED:PRIVATE_KEY]"
    # A block cut off before its END line still loses its body.
    unterminated = "-----" + "BEGIN PRIVATE KEY-----\n" + PEM_BODY + "\n\nprose after"
    assert redact(unterminated).text == "[REDACTED:PRIVATE_KEY]\n\nprose after"


def test_several_secrets_on_one_line() -> None:
    aws = CASES["AWS_ACCESS_KEY_ID"][1]
    line = f"use {GH_CLASSIC} and {aws}, pass" + "word=" + PASSWORD_VALUE
    findings = detect("intro\n" + line)
    assert findings == [
        Finding("AWS_ACCESS_KEY_ID", 2),
        Finding("GITHUB_TOKEN", 2),
        Finding("PASSWORD_ASSIGNMENT", 2),
    ]
    result = redact(line)
    assert result.counts == {"AWS_ACCESS_KEY_ID": 1, "GITHUB_TOKEN": 1, "PASSWORD_ASSIGNMENT": 1}
    assert result.text == (
        "use [REDACTED:GITHUB_TOKEN] and [REDACTED:AWS_ACCESS_KEY_ID], pass"
        "word=[REDACTED:PASSWORD_ASSIGNMENT]"
    )


def test_repeated_secret_is_counted_each_time() -> None:
    text = f"{GH_CLASSIC}\n{GH_CLASSIC} {GH_CLASSIC}\n"
    assert detect(text) == [Finding("GITHUB_TOKEN", 1)] + [Finding("GITHUB_TOKEN", 2)] * 2
    assert redact(text).counts == {"GITHUB_TOKEN": 3}


def test_overlap_prefers_the_specific_rule() -> None:
    anthropic = CASES["ANTHROPIC_KEY"][1]
    assert [f.rule for f in detect(anthropic)] == ["ANTHROPIC_KEY"]
    bearer = "Authorization: Bear" + "er " + JWT
    assert detect(bearer) == [Finding("JWT", 1)]
    assert redact(bearer).text == "Authorization: Bearer [REDACTED:JWT]"
    assert detect("tok" + "en=" + GH_CLASSIC) == [Finding("GITHUB_TOKEN", 1)]
    # Partial overlap: the whole value goes, reported once under the provider rule.
    text = "pass" + "word=abc-" + OPENAI_PROJ
    result = redact(text)
    assert result.text == "pass" + "word=[REDACTED:OPENAI_KEY]"
    assert result.counts == {"OPENAI_KEY": 1}


def test_secret_glued_to_another_is_still_removed() -> None:
    # The second token only becomes visible (word boundary) once the first is gone.
    text = CASES["GOOGLE_API_KEY"][1] + GH_CLASSIC
    result = redact(text)
    assert result.text == "[REDACTED:GOOGLE_API_KEY][REDACTED:GITHUB_TOKEN]"
    assert result.counts == {"GOOGLE_API_KEY": 1, "GITHUB_TOKEN": 1}
    assert redact(result.text).counts == {}


def test_many_unclosed_pem_headers_are_each_found() -> None:
    # Their speed (linear, one forward search for END) is measured by bench/secrets.
    text = ("-----" + "BEGIN PRIVATE KEY-----\nnot base64 here\n") * 2_000
    assert len(detect(text)) == 2_000


def test_pem_pieces_agree_with_the_single_pattern() -> None:
    rule = secrets._RULES[RULE_NAMES.index("PRIVATE_KEY")]
    whole = re.compile(rule.pattern)
    for text in (PEM, PEM + "\n" + PEM, "-----" + "BEGIN EC PRIVATE KEY-----\nQUJD\nREVG\n\nx"):
        expected = whole.sub("[REDACTED:PRIVATE_KEY]", text)
        assert redact(text).text == expected


def test_crlf_line_endings_survive() -> None:
    text = "a\r\npass" + "word=" + PASSWORD_VALUE + "\r\n" + GH_CLASSIC + "\r\nend\r\n"
    assert detect(text) == [Finding("PASSWORD_ASSIGNMENT", 2), Finding("GITHUB_TOKEN", 3)]
    result = redact(text)
    assert result.text == (
        "a\r\npass" + "word=[REDACTED:PASSWORD_ASSIGNMENT]\r\n[REDACTED:GITHUB_TOKEN]\r\nend\r\n"
    )
    assert result.text.count("\r\n") == 4
    assert "\n" not in result.text.replace("\r\n", "")


def test_clean_text_is_unchanged() -> None:
    text = "# Title\n\nJust notes about sk-learn, tokens and passwordless login.\r\n- item\n"
    result = redact(text)
    assert result == Redaction(text=text, counts={})
    assert result.text == text
    assert not result.changed
    assert detect(text) == []
    assert redact("") == Redaction("", {})


def test_finding_carries_no_text() -> None:
    assert field_names(Finding("X", 1)) == ("rule", "line")
    assert field_names(Redaction("", {})) == ("text", "counts")


def test_patterns_are_portable() -> None:
    forbidden = ("(?=", "(?!", "(?<=", "(?<!", "\\1", "\\Z", "*+", "++", "?+", "}+")
    patterns = [rule.pattern for rule in secrets._RULES] + [prefilter_pattern()]
    patterns += [part for rule in secrets._RULES for part in rule.block or ()]
    for pattern in patterns:
        re.compile(pattern)
        for bad in forbidden:
            assert bad not in pattern, (bad, pattern)
        assert "(?i)" not in pattern
    for rule in secrets._RULES:
        # Several groups only as alternatives: exactly one of them is the secret.
        groups = re.compile(rule.pattern).groups
        assert groups <= 1 or "|" in rule.pattern, rule.name


def test_prefilter_matches_every_positive_line() -> None:
    prefilter = re.compile(prefilter_pattern())
    for text, _, _ in CASES.values():
        assert prefilter.search(text.splitlines()[0])
    for _, text, _ in EXTRA:
        assert prefilter.search(text)


def _rg() -> str | None:
    beside = Path(sys.executable).with_name("rg")
    return str(beside) if beside.exists() else shutil.which("rg")


RG = _rg()


@pytest.mark.skipif(RG is None, reason="ripgrep not installed")
def test_patterns_work_in_ripgrep(tmp_path: Path) -> None:
    sample = tmp_path / "notes.md"
    from tests.secrets_corpus import SHAPES

    lines = [text.splitlines()[0] for text, _, _ in CASES.values()]
    lines += [text for _, text, _ in EXTRA]
    lines += [shape.text for shape in SHAPES if not shape.folded]
    sample.write_text("\n".join(["plain prose line", *lines, "more prose"]) + "\n")
    run = subprocess.run(
        [str(RG), "--count", "-e", prefilter_pattern(), str(sample)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    assert int(run.stdout.strip()) == len(lines)
    for rule in secrets._RULES:
        flags = ["-U"] if "\\n" in rule.pattern else []
        one = subprocess.run(
            [str(RG), "--count", *flags, "-e", rule.pattern, str(sample)],
            capture_output=True,
            text=True,
            check=False,
        )
        assert one.returncode == 0, (rule.name, one.stderr)


def test_source_file_has_no_secrets() -> None:
    assert detect(Path(__file__).read_text(encoding="utf-8")) == []


def test_import_compiles_nothing() -> None:
    code = (
        "import re, dataclasses, functools, memtier\n"
        "calls = []\n"
        "original = re.compile\n"
        "re.compile = lambda *a, **k: calls.append(a) or original(*a, **k)\n"
        "import memtier.secrets as s\n"
        "assert s._rule_regex.cache_info().currsize == 0\n"
        "print(len(calls))\n"
        "s.redact('plain notes about the docker restart on host b')\n"
        "print(s._rule_regex.cache_info().currsize)\n"
        "s.redact('the pass' + 'word=hunter22 and a Bearer xyz')\n"
        "print(s._rule_regex.cache_info().currsize)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True
    )
    imported, after_plain, after_hint = out.stdout.split()
    assert imported == "0"
    # Only rules whose anchors occur in a text get compiled; prose compiles none.
    assert after_plain == "0"
    assert 0 < int(after_hint) < len(secrets.RULE_NAMES)


@pytest.mark.slow  # a huge input
def test_two_megabytes_of_prose_hold_nothing() -> None:
    # How fast this is, bench/secrets measures (no timed assertion in the suite).
    paragraph = (
        "## Session notes\n\n"
        "The agent reviewed the task list, updated the project README.md and noted that "
        "the password reset flow is passwordless now. Tokens: 4096 max; see https://example."
        "com/docs for the API. We compared sk-learn with other options on 2024-05-01 at 10:30.\n"
        "- [x] deploy the service to postgres://db.host:5432/app\n"
        "- [ ] ask about the secret rotation policy; Bearer auth is handled by the gateway.\n\n"
    )
    text = paragraph * (2_000_000 // len(paragraph) + 1)
    assert detect(text) == []


def test_a_keyword_rule_tries_its_rest_only_after_the_keywords_found_at_each_hit() -> None:
    """`Rule.followed` keeps an anchor's offset when the rule's rest matches right
    after an anchor that stands there; a length no anchor has there is not tried."""
    rule = secrets_rules.Rule("R", "unused", ("pass", "password"), after=r"[ \t]*=[ \t]*\w+")
    word = "pass" + "word"  # split: the project's own sources are scanned too
    text = f"{word} = x1\npass = x2\n{word}"
    assert rule.followed(text, {0: {4, 8}, 14: {4}, 25: {4, 8}}) == [0, 14]
    # At 0 only "pass" is said to stand: "word = x1" does not follow it.
    assert rule.followed(text, {0: {4}}) == []
    assert secrets_rules.Rule("R", "unused", ("pass",)).followed(text, {14: {4}, 0: {4}}) == [0, 14]


# --- property-based tests ---------------------------------------------------

FRAGMENTS = [
    *(case[0] for case in CASES.values()),
    *(case[1] for case in EXTRA),
    "\n",
    "\r\n",
    " ",
    "\t",
    ":",
    "=",
    "@",
    "/",
    "-",
    "_",
    ".",
    '"',
    "[",
    "]",
    "sk-",
    "ghp",
    "AKIA",
    "pass" + "word",
    "tok" + "en",
    "Bearer ",
    "postgres" + "://u:",
    "[REDACTED:",
    "[REDACTED:JWT]",
    "[REDACTED:OPENAI_KEY]",
    "123456789",
    "abcdefgh",
    "XYZ",
    "-----" + "BEGIN PRIVATE KEY-----",
    "-----" + "END PRIVATE KEY-----",
    "\u0130",
    "\u212a",
    # (v4) the keyed rule: names, phrases, operators and random values
    "api_" + "key",
    "TWITTER_",
    "Bearer",
    "public_",
    " granted",
    "=>",
    "Ab3dEf7hIj9kLm1nOp",
    "q7W2e9R4t6Y1u3I8",
    "live_",
    "|",
]

fragment_text = st.lists(
    st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=8)), max_size=25
).map("".join)
any_text = st.one_of(st.text(), fragment_text)
PROPERTY = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@PROPERTY
@given(any_text)
def test_redact_is_total_and_idempotent(text: str) -> None:
    first = redact(text)
    second = redact(first.text)
    assert second.text == first.text
    assert second.counts == {}
    assert detect(first.text) == []
    assert first.changed == (first.text != text)


@PROPERTY
@given(any_text)
def test_anchors_find_what_an_exhaustive_scan_finds(text: str) -> None:
    assert secrets._scan(text) == secrets._scan(text, exhaustive=True)


@PROPERTY
@given(fragment_text)
def test_prefilter_covers_every_finding(text: str) -> None:
    prefilter = re.compile(prefilter_pattern())
    lines = text.split("\n")
    for finding in detect(text):
        assert prefilter.search(lines[finding.line - 1]), finding


def test_redact_lines_keeps_every_line_and_counts_a_split_secret_once() -> None:
    from memtier.secrets_lines import redact_lines

    lines = ["We chose zfs.", "pass" + "word:", "hunter2hunter2xyz", "- next item"]
    shown, counts = redact_lines(lines)
    assert shown == (
        "We chose zfs.",
        "pass" + "word:",
        "[REDACTED:PASSWORD_ASSIGNMENT]",
        "- next item",
    )
    assert counts == {"PASSWORD_ASSIGNMENT": 1}


def test_redact_lines_does_not_glue_a_list_item_onto_a_value() -> None:
    """A bullet starts afresh: the value on the line before does not run into it."""
    from memtier.secrets_lines import redact_lines

    shown, counts = redact_lines(["- db pass" + "word=hunter2hunter2", "- after"])
    assert shown == ("- db pass" + "word=[REDACTED:PASSWORD_ASSIGNMENT]", "- after")
    assert counts == {"PASSWORD_ASSIGNMENT": 1}


def test_redact_lines_of_sees_a_block_that_starts_before_the_window() -> None:
    from memtier.secrets_lines import redact_lines_of

    body = ["MIIEowIBAAKCAQEA" + "k9P8o7I6u5Y4" * 4, "T3r2E1w0Q9a8" * 5 + "Zm9v"]
    lines = [
        "# notes",
        "-----" + "BEGIN RSA PRIVATE KEY-----",
        *body,
        "-----" + "END RSA PRIVATE KEY-----",
    ]
    shown, counts = redact_lines_of(lines, 3, 3)
    assert shown == ("[REDACTED:PRIVATE_KEY]",)
    assert counts == {"PRIVATE_KEY": 1}


@settings(max_examples=300, derandomize=True)
@given(
    st.sampled_from(["memory/episodic", "memory/archive/2025/03", "memory/key=abcdef"]),
    st.lists(
        st.one_of(
            st.text(alphabet="0123456789-.mdAKIQ=:@ |%x", max_size=20),
            st.from_regex(r"\d{4}-\d\d-\d\d(\.\d+)?\.md", fullmatch=True),
        ),
        max_size=8,
    ),
)
def test_names_to_scan_keeps_every_name_the_path_test_keeps(folder: str, names: list[str]) -> None:
    """Issue 37: health-check asked `detect_in_name` about each of 10,000 note paths;
    `names_to_scan` tests the folder once and the names in one pass, the same way."""
    kept = secrets_rules.names_to_scan(folder, names)
    assert kept == [n for n in names if secrets_rules.name_may_hold_secret(f"{folder}/{n}")]


def test_a_short_text_scanned_again_is_answered_from_memory_within_bounds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A command scans the same short texts (names, messages) again and again: each is
    scanned once, while the memory of them stays bounded for the long-running server."""
    monkeypatch.setattr(secrets, "_SEEN", OrderedDict())
    scanned: list[str] = []
    real = secrets._scan_once

    def counting(text: str, exhaustive: bool) -> list[tuple[int, int, int]]:
        scanned.append(text)
        return real(text, exhaustive)

    monkeypatch.setattr(secrets, "_scan_once", counting)
    text = "the pass" + "word=hunter22hunter"
    first = redact(text)
    assert first.counts == {"PASSWORD_ASSIGNMENT": 1}
    assert redact(text) == first
    assert detect(text) == [Finding(rule="PASSWORD_ASSIGNMENT", line=1)]
    assert scanned.count(text) == 1
    spans = secrets._scan(text)
    spans.clear()  # the caller's own list: what is remembered stays whole
    assert secrets._scan(text) != []
    for n in range(secrets._SEEN_TEXTS):
        secrets._scan(f"note {n}")
    assert len(secrets._SEEN) == secrets._SEEN_TEXTS
    assert text not in secrets._SEEN  # the least recently used went first
    long = "x" * (secrets._SEEN_LENGTH + 1)
    secrets._scan(long)
    secrets._scan(long)
    assert scanned.count(long) == 2  # a long text is not kept
    assert long not in secrets._SEEN


def test_a_keyword_without_an_assignment_does_not_compile_the_keyed_rule(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The keyed rule's keyword alternation costs milliseconds to compile, and its
    keywords (``api``, ``key``, ``pat`` in "patterns") stand in most prose: a hit is
    tried only when an assignment follows the keyword (`Rule.after`)."""
    compiled: list[str] = []
    real = secrets._rule_regex

    def recording(index: int) -> object:
        compiled.append(RULE_NAMES[index])
        return real(index)

    monkeypatch.setattr(secrets, "_rule_regex", recording)
    monkeypatch.setattr(secrets, "_SEEN", OrderedDict())  # nothing scanned before
    prose = "Post-mortems and anti-patterns: the API keys live in the vault, token: short"
    assert detect(prose) == []
    assert "KEYED_SECRET" not in compiled
    assignment = "GITHUB_AUTH = " + "Xy7pQ2rT9vLm4Kd8"
    assert detect(assignment) == [Finding(rule="KEYED_SECRET", line=1)]
    assert "KEYED_SECRET" in compiled
