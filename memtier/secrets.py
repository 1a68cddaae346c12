"""Secret detection and redaction for everything memtier writes or checks.

How it works
------------
Detection is driven by one ordered table of named rules (``_RULES``).  Each
rule is a plain regular expression written in the subset of syntax that both
Python's ``re`` and Rust's ``regex`` crate (ripgrep's default engine) accept:
no look-around, no backreferences, no possessive quantifiers, no ``\\Z``.
Case-insensitive keywords are spelled as ASCII classes (``[Pp][Aa]...``)
because ``(?i)`` folds Unicode slightly differently in the two engines.
When a rule has one capturing group, only that group is the secret (the
``password=`` key, the ``Bearer`` word and the user/host of a database URL
stay readable); otherwise the whole match is the secret.

All rules apply to a single line, except ``PRIVATE_KEY``, which starts on a
``-----BEGIN ... PRIVATE KEY-----`` line and runs through the matching END
line (or, when no END line exists, through the base64 lines that follow).

Speed: nothing is compiled at import time; the rules are compiled once, on
first use.  ``prefilter_pattern()`` is the single alternation of all rules
(word boundaries dropped, a private key reduced to its BEGIN line): hand it to
``rg -e`` to find candidate files and lines of a large workspace.  Python's
``re`` has no literal-set acceleration, so that alternation costs about
0.4-0.9 s per 2 MB in process; ``detect`` therefore finds candidate lines with
``str.find`` on a few literal anchors per rule (``sk-``, ``AKIA``,
``password``, ...; lower-cased text for case-insensitive rules) and runs only
the anchored rules on those lines -- roughly 0.1 s per 2 MB of prose.

Overlap policy
--------------
The table is ordered from most to least specific.  Candidate spans that
overlap (even partly) are merged into one span, which is replaced as a whole,
so no fragment of a secret survives; that span is reported once, under the
rule that comes first in the table.  Hence ``sk-ant-...`` is ANTHROPIC_KEY,
never OPENAI_KEY, and a JWT sent as ``Bearer eyJ...`` is reported as JWT (the
BEARER_TOKEN rule only names bearer tokens of other shapes).  A provider rule
always wins over PASSWORD_ASSIGNMENT and DATABASE_URL.

Placeholders and idempotency
----------------------------
A secret is replaced by ``[REDACTED:<RULE>]``.  A candidate that overlaps an
existing placeholder is ignored, and ``redact`` repeats its pass until the
text holds nothing more to redact, so ``redact`` is idempotent and
``detect(redact(t).text)`` is empty.  Neither function returns, logs or
raises anything that contains matched text: a ``Finding`` only carries the
rule name and the 1-based line number.

Why our own table rather than a library
---------------------------------------
The obvious candidate, ``detect-secrets`` (1.5.0 on PyPI, last released in
May 2024), was rejected: importing it and loading its plugins costs about
0.2 s, paid on every write command; its entropy-based detectors flag a lot of
ordinary prose and identifiers in markdown notes; and its rules cannot be
turned into a single ripgrep-compatible prefilter.  A small table of precise,
prefix-anchored patterns is fast, predictable and easy to audit.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache, lru_cache


@dataclass(frozen=True)
class Finding:
    """One secret occurrence: which rule matched and on which line (1-based)."""

    rule: str
    line: int


@dataclass(frozen=True)
class Redaction:
    """Result of ``redact``: the cleaned text and replacements per rule."""

    text: str
    counts: dict[str, int]

    @property
    def changed(self) -> bool:
        """True when at least one secret was replaced."""
        return bool(self.counts)


def _ci(snippet: str) -> str:
    """Spell a backslash-free regex snippet ASCII-case-insensitively.

    ``[Pp][Aa]...`` means exactly the same to Python and to Rust, unlike
    ``(?i:...)``, whose Unicode case folding differs slightly between them.
    """
    return "".join(f"[{c.upper()}{c.lower()}]" if c.isalpha() else c for c in snippet)


# A value in a key/value assignment.  Its first character may not be a quote,
# "[" (a placeholder), "$"/"{" (a variable), "<" (a template), "(", "*" (a
# mask) or "/" (a path, as in PWD=/home/me); ";" and "&" end it.
_VALUE = r"""([^\s"'`$<{(*/\[;&][^\s"'`;&]{5,})"""
_ASSIGN = r"""[*"'`]{0,2}[ \t]*[:=][*]{0,2}[ \t]*["'`]?"""
_PEM_BEGIN = r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----"
_PEM_END = r"-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----"
_PEM_BODY = r"(?:\s+(?:[A-Za-z0-9+/]{16,}={0,2}|[A-Za-z0-9+/]*={1,2}))*"


class _Rule:
    """One table row (a plain class: a dataclass costs ~1 ms of import time).

    ``anchors`` are literal strings, one of which lies on the line where any
    match starts; they are compared case-insensitively when ``folded``.
    ``block`` is for multi-line rules only: (first line, last line, body used
    when no last line follows); ``pattern`` is then the equivalent single
    regex, for ``rg --multiline``, while Python matches the pieces so as to
    stay linear in time.
    """

    __slots__ = ("anchors", "block", "folded", "name", "pattern", "plausible")

    def __init__(
        self,
        name: str,
        pattern: str,
        anchors: tuple[str, ...],
        folded: bool = False,
        block: tuple[str, str, str] | None = None,
        plausible: Callable[[re.Match[str]], bool] | None = None,
    ) -> None:
        self.name = name
        self.pattern = pattern
        self.anchors = anchors
        self.folded = folded
        self.block = block
        # A check in Python on top of the regex (ripgrep's prefilter stays a superset).
        self.plausible = plausible


def _assigned_value_is_credential(match: re.Match[str]) -> bool:
    """Tell ``password=hunter22`` from prose such as ``the token: refreshed yesterday``.

    A code-style assignment (``=``) is taken as a credential whatever the value.
    After a colon, a value that reads as words is prose and is left alone: one
    plain word (letters only, one case after the first letter), or words joined
    by hyphens (``re-issued``, ``reset-by-email``, ``42-is-the-answer``: lowercase
    words, at most one of them a number, a number only among three or more).
    """
    if "=" in match.group(0)[: match.start(1) - match.start(0)]:
        return True
    return not _reads_as_words(match.group(1).rstrip(".,:;!?)"))


def _reads_as_words(value: str) -> bool:
    if value.isalpha():
        return not any(ch.isupper() for ch in value[1:])
    parts = value.split("-")
    if len(parts) < 2 or not all(parts):
        return False
    numbers = sum(part.isdigit() for part in parts)
    words = [part for part in parts if not part.isdigit()]
    if not all(word.isalpha() and word.islower() for word in words):
        return False
    return numbers == 0 or (numbers == 1 and len(parts) >= 3)


def _bearer_credentials(match: re.Match[str]) -> bool:
    """A token has a digit or mixed case; ``Bearer authentication-scheme`` is words."""
    return not _reads_as_words(match.group(1)) and not match.group(1).isalpha()


def _basic_credentials(match: re.Match[str]) -> bool:
    """``Basic dXNlcjpwYXNz`` is base64, ``Basic authentication`` is a word."""
    value = match.group(1)
    return not (value.isalpha() and value.islower())


_RULES: tuple[_Rule, ...] = (
    _Rule(
        "PRIVATE_KEY",
        _PEM_BEGIN + r"(?:[\s\S]*?" + _PEM_END + "|" + _PEM_BODY + ")",
        ("-----BEGIN",),
        block=(_PEM_BEGIN, _PEM_END, _PEM_BODY),
    ),
    _Rule("ANTHROPIC_KEY", r"\bsk-ant-[A-Za-z0-9_-]{32,}", ("sk-ant-",)),
    _Rule(
        "OPENAI_KEY",
        r"\bsk-(?:(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{20,}|[A-Za-z0-9]{20,}\b)",
        ("sk-",),
    ),
    _Rule("STRIPE_KEY", r"\b[rs]k_(?:live|test)_[A-Za-z0-9]{16,}\b", ("k_live_", "k_test_")),
    _Rule(
        "GITHUB_TOKEN",
        r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{40,})\b",
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
    ),
    _Rule("GOOGLE_API_KEY", r"\bAIza[A-Za-z0-9_-]{35}", ("AIza",)),
    _Rule("AWS_ACCESS_KEY_ID", r"\b(?:AKIA|ASIA)[A-Z0-9]{16}\b", ("AKIA", "ASIA")),
    _Rule(
        "AWS_SECRET_ACCESS_KEY",
        "(?:"
        + _ci("aws_?secret_?(?:access_?)?key|secret_?access_?key")
        + ")"
        + _ASSIGN
        + r"([A-Za-z0-9/+]{40,})",
        ("secret",),
        folded=True,
    ),
    _Rule(
        "AZURE_STORAGE_KEY",
        _ci("accountkey") + r"[ \t]*=[ \t]*([A-Za-z0-9+/]{84,86}==)",
        ("accountkey",),
        folded=True,
    ),
    _Rule(
        "SLACK_TOKEN",
        r"\b(?:xox[abprs]-[0-9]+-[A-Za-z0-9-]{8,}|xapp-[0-9]-[A-Z0-9]+-[0-9]+-[a-z0-9]{16,})",
        ("xox", "xapp-"),
    ),
    _Rule(
        "SLACK_WEBHOOK",
        r"https://hooks\.slack\.com/services/"
        r"([A-Za-z0-9_]{6,}/[A-Za-z0-9_]{6,}/[A-Za-z0-9_]{16,})",
        ("hooks.slack.com",),
    ),
    _Rule(
        "DISCORD_WEBHOOK",
        r"https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/[0-9]{17,20}/"
        r"([A-Za-z0-9_-]{60,68})",
        ("discord",),
    ),
    _Rule("GITLAB_TOKEN", r"\bgl(?:pat|ptt|rt)-[A-Za-z0-9_-]{20,}", ("glpat-", "glptt-", "glrt-")),
    _Rule("PYPI_TOKEN", r"\bpypi-AgE[A-Za-z0-9_-]{50,}", ("pypi-AgE",)),
    _Rule("TAILSCALE_KEY", r"\btskey-(?:[a-z]+-)?[A-Za-z0-9]{6,}-[A-Za-z0-9]{16,}", ("tskey-",)),
    _Rule("DIGITALOCEAN_TOKEN", r"\bdo[opr]_v1_[a-f0-9]{64}\b", ("doo_v1_", "dop_v1_", "dor_v1_")),
    _Rule(
        "SHOPIFY_TOKEN",
        r"\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b",
        ("shpat_", "shpca_", "shppa_", "shpss_"),
    ),
    _Rule("SENDGRID_KEY", r"\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}", ("SG.",)),
    _Rule("TWILIO_API_KEY", r"\bSK[0-9a-f]{32}\b", ("SK",)),
    _Rule("NPM_TOKEN", r"\bnpm_[A-Za-z0-9]{36}\b", ("npm_",)),
    _Rule("VAULT_TOKEN", r"\bhv[bs]\.[A-Za-z0-9_-]{24,}", ("hvb.", "hvs.")),
    _Rule("HUGGINGFACE_TOKEN", r"\bhf_[A-Za-z0-9]{30,}\b", ("hf_",)),
    _Rule(
        "TELEGRAM_BOT_TOKEN",
        r"\b[0-9]{8,10}:[A-Za-z0-9_-]{35}",
        tuple(f"{digit}:" for digit in range(10)),
    ),
    _Rule(
        "JWT",
        r"\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}",
        ("eyJ",),
    ),
    _Rule(
        "DATABASE_URL",
        r"\b(?:postgres(?:ql)?|mysql|mongodb(?:\+srv)?|rediss?)://[^:/?#@\s]*:([^/?#@\s]+)@",
        ("postgres", "mysql", "mongodb", "redis"),
    ),
    _Rule(
        # Any other scheme with a password in its user part (https, ftp, amqp, smtp, ...).
        "URL_PASSWORD",
        r"\b[A-Za-z][A-Za-z0-9+.-]{1,15}://[^:/?#@\s\[\]]*:([^/?#@\s\[\]]+)@",
        ("://",),
    ),
    _Rule(
        "BASIC_AUTH",
        r"\b" + _ci("basic") + r"[ \t]+([A-Za-z0-9+/]{8,}={0,2})",
        ("basic",),
        folded=True,
        plausible=_basic_credentials,
    ),
    _Rule(
        # curl -u user:pass, --user user:pass (a lone user name asks for the password).
        "CLI_USER_PASSWORD",
        r"(?:^|[ \t])(?:-u|--user)(?:[ \t]+|=)[\"']?[^\s:\"']+:([^\s\"']{3,})",
        ("-u", "--user"),
    ),
    _Rule(
        # mysql -pSecret: the value is glued to -p (a bare -p prompts; -P is the port).
        "MYSQL_PASSWORD",
        r"\b(?:mysql|mysqldump|mysqladmin|mariadb)[ \t][^\n]*?[ \t]-p([^\s\"'-][^\s\"']{2,})",
        ("mysql", "mariadb"),
    ),
    _Rule("PASSWORD_OPTION", r"--pass(?:word|wd|phrase)?[ \t]+" + _VALUE, ("--pass",)),
    _Rule(
        "BEARER_TOKEN",
        r"\b" + _ci("bearer") + r"[ \t]+([A-Za-z0-9._~+/-]{16,}=*)",
        ("bearer",),
        folded=True,
        plausible=_bearer_credentials,
    ),
    _Rule(
        "PASSWORD_ASSIGNMENT",
        "(?:"
        + _ci("pass(?:word|wd|phrase)|pwd|secret(?:[_-]?key)?|api[_-]?key|token")
        # DB_PASS, PASS: a word of its own, not the end of "bypass" or "compass".
        + r"|(?:\b|_)"
        + _ci("pass")
        + r"\b)"
        + _ASSIGN
        + _VALUE,
        ("pass", "pwd", "secret", "apikey", "api_key", "api-key", "token"),
        folded=True,
        plausible=_assigned_value_is_credential,
    ),
)

RULE_NAMES: tuple[str, ...] = tuple(rule.name for rule in _RULES)

_PLACEHOLDER_PREFIX = "[REDACTED:"
_MAX_PASSES = 16


def _placeholder(rule: str) -> str:
    return f"{_PLACEHOLDER_PREFIX}{rule}]"


def prefilter_pattern() -> str:
    """One regex matching every line that could hold a secret.

    It is the alternation of every rule (for a private key, its BEGIN line)
    with word boundaries dropped, so it matches a superset of what the rules
    match.  Valid for Python ``re`` and ripgrep's default engine; pass it to
    ``rg`` with ``-e`` since it may start with ``-``.
    """
    return "|".join(
        "(?:" + (rule.block[0] if rule.block else rule.pattern).replace(r"\b", "") + ")"
        for rule in _RULES
    )


_Block = tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]


@cache
def _rule_regex(index: int) -> re.Pattern[str] | _Block:
    """One rule's compiled pattern, on first need: most texts hold none of a rule's
    anchors, and compiling all of them costs about 20 ms in every writing process."""
    rule = _RULES[index]
    if rule.block:
        return (re.compile(rule.block[0]), re.compile(rule.block[1]), re.compile(rule.block[2]))
    return re.compile(rule.pattern)


@lru_cache(maxsize=1)
def _placeholder_regex() -> tuple[re.Pattern[str], int]:
    """The placeholder pattern and the width of the longest placeholder."""
    names = "|".join(RULE_NAMES)
    pattern = re.compile(re.escape(_PLACEHOLDER_PREFIX) + f"(?:{names})\\]")
    return pattern, max(len(_placeholder(name)) for name in RULE_NAMES)


def _line_starts(text: str, lowered: str | None, rule: _Rule) -> list[int]:
    """Offsets of the lines holding one of the rule's anchors."""
    starts: list[int] = []
    for anchor in rule.anchors:
        if not rule.folded or lowered is not None:
            hay = lowered if rule.folded and lowered is not None else text
            pos = hay.find(anchor)
            while pos >= 0:
                starts.append(text.rfind("\n", 0, pos) + 1)
                pos = text.find("\n", pos)
                pos = -1 if pos < 0 else hay.find(anchor, pos)
        else:  # text.lower() changed lengths: fall back to a regex search
            for hit in re.finditer(re.escape(anchor), text, re.IGNORECASE):
                starts.append(text.rfind("\n", 0, hit.start()) + 1)
    return starts


def _line_end(text: str, line_start: int) -> int:
    end = text.find("\n", line_start)
    return len(text) if end < 0 else end


def _block_spans(text: str, lines: list[int], block: _Block) -> list[tuple[int, int]]:
    """Spans of a multi-line rule whose first line is one of ``lines``."""
    start_rx, stop_rx, body_rx = block
    spans: list[tuple[int, int]] = []
    stop: re.Match[str] | None = None
    searched = False
    for line_start in lines:
        for begin in start_rx.finditer(text, line_start, _line_end(text, line_start)):
            if spans and begin.start() < spans[-1][1]:
                continue  # inside the previous block
            # One forward search for the closing line serves every opening
            # line before it, so many unclosed blocks stay linear in time.
            if not searched or (stop is not None and stop.start() < begin.end()):
                stop = stop_rx.search(text, begin.end())
                searched = True
            body = body_rx.match(text, begin.end())
            end = stop.end() if stop else body.end() if body else begin.end()
            spans.append((begin.start(), end))
    return spans


def _candidates(text: str, exhaustive: bool) -> list[tuple[int, int, int]]:
    """Raw (start, end, rule index) spans found on the anchored lines.

    ``exhaustive`` runs every rule on every line instead (used by tests to
    check that the anchors never hide a match).
    """
    found: list[tuple[int, int, int]] = []
    lowered: str | None = text.lower()
    if lowered is not None and len(lowered) != len(text):
        lowered = None
    every_line = [0] + [i + 1 for i, ch in enumerate(text) if ch == "\n"] if exhaustive else []
    for index, rule in enumerate(_RULES):
        lines = sorted(set(every_line or _line_starts(text, lowered, rule)))
        if not lines:
            continue
        compiled = _rule_regex(index)
        if isinstance(compiled, tuple):
            found.extend((s, e, index) for s, e in _block_spans(text, lines, compiled))
            continue
        for line_start in lines:
            for match in compiled.finditer(text, line_start, _line_end(text, line_start)):
                if rule.plausible is not None and not rule.plausible(match):
                    continue
                start, end = match.span(1) if compiled.groups else match.span()
                if end > start:
                    found.append((start, end, index))
    return found


def _touches_placeholder(text: str, start: int, end: int) -> bool:
    placeholder, width = _placeholder_regex()
    window = placeholder.finditer(text, max(0, start - width), end + width)
    return any(ph.start() < end and start < ph.end() for ph in window)


def _scan(text: str, exhaustive: bool = False) -> list[tuple[int, int, int]]:
    """Merged, non-overlapping (start, end, rule index) spans in text order."""
    found = _candidates(text, exhaustive)
    if not found:
        return []
    if _PLACEHOLDER_PREFIX in text:
        found = [c for c in found if not _touches_placeholder(text, c[0], c[1])]
    found.sort()
    merged: list[tuple[int, int, int]] = []
    for start, end, index in found:
        if merged and start < merged[-1][1]:
            last_start, last_end, last_index = merged[-1]
            merged[-1] = (last_start, max(last_end, end), min(last_index, index))
        else:
            merged.append((start, end, index))
    return merged


def detect(text: str) -> list[Finding]:
    """Return one Finding per secret in ``text``, sorted by line then rule."""
    findings: list[Finding] = []
    line = 1
    counted_to = 0
    for start, _end, index in _scan(text):
        line += text.count("\n", counted_to, start)
        counted_to = start
        findings.append(Finding(rule=RULE_NAMES[index], line=line))
    findings.sort(key=lambda f: (f.line, f.rule))
    return findings


def redact(text: str) -> Redaction:
    """Replace every secret in ``text`` with ``[REDACTED:<RULE>]``.

    Text without secrets is returned unchanged, with empty counts.
    """
    counts: dict[str, int] = {}
    current = text
    for _ in range(_MAX_PASSES):
        spans = _scan(current)
        if not spans:
            break
        parts: list[str] = []
        pos = 0
        for start, end, index in spans:
            name = RULE_NAMES[index]
            parts.append(current[pos:start])
            parts.append(_placeholder(name))
            counts[name] = counts.get(name, 0) + 1
            pos = end
        parts.append(current[pos:])
        current = "".join(parts)
    return Redaction(text=current, counts=counts)


def refuse_secret_in_name(shown: str) -> None:
    """A file or folder is never named after a credential (PROTOCOL §3 v2): the name
    would show it in every listing. The message names the rule, never the path."""
    from memtier.errors import InputError

    found = detect(shown)
    if found:
        rules = ", ".join(sorted({finding.rule for finding in found}))
        raise InputError(f"refusing to create a path that holds a secret ({rules})")


def redact_folded(text: str) -> Redaction:
    """Redact *text*, fold it to one line, redact again (PROTOCOL §3 v2).

    A credential split by a line break (``password:`` on one line, the value on the
    next) is recognisable only once the halves meet, a key block only before its
    lines meet: both passes are needed. Line breaks and the blanks around them
    become one space. `memtier.formats.text.fold_line` adds the cleaning of control
    characters for text that is written; error messages use this directly.
    """
    first = redact(text)
    parts = (part.strip() for part in first.text.splitlines())
    second = redact(" ".join(part for part in parts if part))
    return Redaction(second.text, merge_counts(first.counts, second.counts))


def add_counts(total: dict[str, int], more: Mapping[str, int]) -> dict[str, int]:
    """Add the replacements per rule of *more* into *total*, in place; returns *total*
    (every writer sums the counts of its redactions for its one notice, PROTOCOL §3)."""
    for rule, count in more.items():
        total[rule] = total.get(rule, 0) + count
    return total


def merge_counts(*counts: Mapping[str, int]) -> dict[str, int]:
    """The replacements per rule of several redactions, summed into a new dict."""
    merged: dict[str, int] = {}
    for one in counts:
        add_counts(merged, one)
    return merged
