"""The rows of secret shapes that `memtier.secrets` detects and redacts (PROTOCOL §3).

This module holds the row type, the checks in Python on top of a regex, and the
rows that are syntax (file formats, URLs, command-line flags, key assignments);
`memtier.secrets_tokens` holds the provider tokens with a fixed prefix. The
table is ``(PRIVATE_KEY, *TOKENS, *SYNTAX)``: a provider rule always wins over
a generic one where spans overlap.

Each row is a named regular expression in the subset of syntax that both
Python's ``re`` and Rust's ``regex`` crate (ripgrep's engine) accept: no
look-around, no backreferences, no possessive quantifiers, no ``\\Z``; a line
start is spelled ``(?m:^)`` (Python's ``^`` ignores the start offset of a
search). Case-insensitive keywords are spelled as classes (``[Pp][Aa]...``,
see `_ci`) because ``(?i)`` folds Unicode slightly differently in the two
engines. When a rule has capturing groups, the first group that took part in
the match is the secret (the ``password=`` key, the ``Bearer`` word, the host
of a URL stay readable); otherwise the whole match is.

The shapes are those the providers and tools really write, as the public rule
lists of the common secret scanners describe them (token prefixes and lengths,
``.netrc``, Docker ``config.json``, kubeconfig, pgpass, command-line flags):
facts about formats, written here in this project's own rules. The table is
ordered from most to least specific: where spans overlap, the first rule names
the merged span (see `memtier.secrets`).

``anchors`` are literal strings one of which lies on every line where a match
starts; `memtier.secrets` finds candidate lines with ``str.find`` on them, and
a property test checks that they never hide a match.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from itertools import pairwise, repeat

# ---------------------------------------------------------------------------
# The name a value is assigned to (PROTOCOL §3 v4): ``DB_PASSWORD=…``, ``csrf_token: …``,
# ``"twitterBearer" => …``: the words of the name say whether its value is a credential.
# Shared by the password rule here and the keyed rule (`memtier.secrets_tokens`), which both
# leave alone a value whose name says it is something else (``csrf_token``,
# ``next_page_token``, ``secret_name``, ``token_url``).

# Words that make a name the name of a credential when they are one of its parts.
KEY_WORDS: frozenset[str] = frozenset(
    {
        "key", "keys", "apikey", "token", "tokens", "secret", "secrets", "auth", "authtoken",
        "authorization", "access", "accesskey", "accesstoken", "api", "credential",
        "credentials", "creds", "bearer", "client", "pat", "passwd", "password", "pwd", "oauth",
        "secretkey", "privatekey", "signature", "sig",
    }
)  # fmt: skip

# A name whose last part is one of these names something else than the secret.
NOT_SECRET_LAST = frozenset(
    {
        "id", "ids", "name", "names", "url", "uri", "urls", "endpoint", "endpoints", "version",
        "versions", "path", "paths", "file", "files", "dir", "length", "len", "size", "type",
        "types", "count", "format", "alias", "prefix", "suffix", "expiry", "expires",
        "expiration", "ttl", "header", "field", "label", "region", "hint", "mode", "scope",
        "scopes", "usage", "policy", "date", "time", "user", "username", "email", "host",
        "port", "method", "provider", "issuer", "audience", "algorithm", "alg", "level",
        "status", "store", "storetype", "ring", "board", "code", "hash", "fingerprint",
        "rotation", "pair", "vault", "env", "var", "variable", "location", "kind", "owner",
    }
)  # fmt: skip
# A part before the key word that says the thing is not secret.
NOT_SECRET_BEFORE = frozenset(
    {
        "public", "pub", "publishable", "primary", "foreign", "sort", "partition", "bucket",
        "cache", "idempotency", "csrf", "xsrf", "page", "next", "continuation", "cursor",
        "sync", "hot", "turn", "monkey", "registry", "translation", "i18n", "row", "dict",
    }
)  # fmt: skip

_IDENT = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-")
# A string: `re` compiles and caches it on first use, not at import.
_PARTS = r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+"
_OPERATOR = "\"'`*= \t:?>\uff1a"


def name_of(text: str, start: int, value_start: int) -> str:
    """The name of the value at *value_start*: the identifier that holds *start*, from
    where it starts to the assignment (quotes, blanks and the operator left out)."""
    begin = start
    while begin > 0 and text[begin - 1] in _IDENT:
        begin -= 1
    return text[begin:start] + text[start:value_start].rstrip(_OPERATOR)


def parts(name: str, *, lower: bool = True) -> list[str]:
    """``TWITTER_BEARER`` → twitter, bearer; ``adafruitIoKey`` → adafruit, io, key."""
    found = re.findall(_PARTS, name)
    return [part.lower() for part in found] if lower else found


def names_something_else(text: str, start: int, value_start: int) -> bool:
    """The name of the value says it is not the secret itself (module docstring)."""
    words = parts(name_of(text, start, value_start))
    if words and words[-1] in NOT_SECRET_LAST:
        return True
    return any(
        here in KEY_WORDS and before in NOT_SECRET_BEFORE for before, here in pairwise(words)
    )


def ci(snippet: str) -> str:
    """Spell a backslash-free regex snippet case-insensitively, letter by letter.

    ``[Pp][Aa]...`` means exactly the same to Python and to Rust, unlike
    ``(?i:...)``, whose Unicode case folding differs slightly between them.
    """
    return "".join(f"[{c.upper()}{c.lower()}]" if c.isalpha() else c for c in snippet)


# A bare value in a key/value assignment.  Its first character may not be a quote,
# "[" (a placeholder), "$"/"{" (a variable), "<" (a template), "(", "*" (a mask)
# or "/" (a path, as in PWD=/home/me); ";" and "&" end it.
_VALUE = r"""([^\s"'`$<{(*/\[;&][^\s"'`;&]{5,})"""
# A quoted value is taken whole, blanks and punctuation included (issue 19):
# ``DB_PASSWORD="correct horse battery staple"``, ``password="hunter2;rest"``.
_QUOTED = r""""([^"\n]{3,256})"|'([^'\n]{3,256})'|`([^`\n]{3,256})`"""
_KEY_END = r"[*\"'`]{0,2}[ \t]*(?:=>|[:=\uff1a])[*]{0,2}[ \t]*"
ASSIGN = _KEY_END + r"""["'`]?"""
# A command-line value: quoted (whole) or bare, never an option itself.
_ARG = r"""(?:"([^"\n]+)"|'([^'\n]+)'|([^\s"'-][^\s"']*))"""
PEM_BEGIN = r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----"
PEM_END = r"-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----"
# Body lines, also when a JSON string spells the line breaks as "\n".
PEM_BODY = r"(?:(?:\s|\\n)+(?:[A-Za-z0-9+/]{16,}={0,2}|[A-Za-z0-9+/]*={1,2}))*"


class Rule:
    """One table row (a plain class: a dataclass costs ~1 ms of import time).

    ``anchors`` are compared case-insensitively (against the lowered text) when
    ``folded``. ``block`` is for multi-line rules only: (first line, last line,
    body used when no last line follows); ``pattern`` is then the equivalent
    single regex, for ``rg --multiline``, while Python matches the pieces so as
    to stay linear in time. ``plausible`` is a check in Python on top of the
    regex (ripgrep's prefilter stays a superset). ``lead``, when set, promises that
    every match starts at most that many characters before one of its anchors:
    the rule is then tried only there (a long keyword alternation stays cheap).
    ``after``, for a rule with ``lead`` 0 whose anchors are its keywords, is the
    part of ``pattern`` after the keyword: a hit it does not match right after
    one of the anchors is dropped before the whole rule is compiled (a keyword
    with no assignment after it is most of prose, and the whole rule costs
    milliseconds to compile).
    """

    __slots__ = (
        "_after",
        "after",
        "anchors",
        "block",
        "folded",
        "lead",
        "name",
        "pattern",
        "plausible",
    )

    def __init__(
        self,
        name: str,
        pattern: str,
        anchors: tuple[str, ...],
        folded: bool = False,
        block: tuple[str, str, str] | None = None,
        plausible: Callable[[re.Match[str]], bool] | None = None,
        lead: int | None = None,
        after: str | None = None,
    ) -> None:
        self.name = name
        self.pattern = pattern
        self.anchors = anchors
        self.folded = folded
        self.block = block
        self.plausible = plausible
        self.lead = lead
        self.after = after
        self._after: re.Pattern[str] | None = None  # `followed`'s

    def followed(self, text: str, hits: Mapping[int, Iterable[int]]) -> list[int]:
        """The offsets of *hits* (an anchor's offset -> the lengths of the anchors
        that stand there) where `after` matches right after one of those anchors, on
        the same line: a match of the rule needs it there. All of them, in order,
        when the rule has no `after`."""
        if self.after is None:
            return sorted(hits)
        if self._after is None:
            self._after = re.compile(self.after)
        after = self._after
        kept: list[int] = []
        for hit in sorted(hits):
            end = text.find("\n", hit)
            end = len(text) if end < 0 else end
            if any(after.match(text, hit + n, end) for n in hits[hit] if hit + n <= end):
                kept.append(hit)
        return kept


# ---------------------------------------------------------------------------
# File names (PROTOCOL §3 v4: they are scanned too): which of them can hold a match.

# Every rule's shortest match without one of these characters is 12 characters long
# (``xoxr-`` and 8): a shorter part of a path, less ``.md``, holds no secret.
_NAME_MARKS = frozenset("=:@ \t\uff1a|%")
_NAME_MIN = 12


def part_may_hold_secret(part: str) -> bool:
    """One part of a path (a file or folder name): long enough, or holding a mark a
    key-value credential needs; a dated note name is neither."""
    stem = part[:-3] if part.endswith(".md") else part
    return len(stem) >= _NAME_MIN or not _NAME_MARKS.isdisjoint(stem)


def name_may_hold_secret(name: str) -> bool:
    """Cheap test before `detect` on a path: 10,000 dated note names cost nothing."""
    return any(part_may_hold_secret(part) for part in name.split("/"))


def names_to_scan(folder: str, names: Iterable[str]) -> list[str]:
    """The *names* (of files in the root-relative *folder*) whose path
    `detect_in_name` must look at; for the others it finds nothing. The same test
    as `name_may_hold_secret`, the folder's parts taken once: one pass over
    10,000 note names, not a path split for each."""
    names = list(names)
    if name_may_hold_secret(folder):
        return names
    # The common case, dated notes, told without a call per name: no name holds a
    # mark (a search of them all joined), and none is long enough (a stem of
    # `_NAME_MIN` or more, less ``.md``: every name ends so and is shorter).
    joined = "\n".join(names)
    if not any(mark in joined for mark in _NAME_MARKS):
        longest = max(map(len, names), default=0)
        if longest < _NAME_MIN or (
            longest < _NAME_MIN + 3 and all(map(str.endswith, names, repeat(".md")))
        ):
            return []
    return [name for name in names if part_may_hold_secret(name)]


def secret_group(match: re.Match[str]) -> int:
    """The number of the first capturing group that took part, else 0 (the whole match)."""
    for group in range(1, (match.re.groups or 0) + 1):
        if match.start(group) >= 0:
            return group
    return 0


def reads_as_words(value: str) -> bool:
    """One plain word (letters of any script, one case after the first letter), or
    lowercase words joined by hyphens (``re-issued``, ``42-is-the-answer``)."""
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


def _placeholder_value(value: str) -> bool:
    """``<your password>``, ``${VAR}``, ``{{ var }}``, ``%(x)s``, ``[REDACTED:…]``,
    ``********``: a template or a mask, not a credential."""
    stripped = value.strip()
    return not stripped or stripped[0] in "<${[%*(" or len(set(stripped)) == 1


def _assigned_value_is_credential(match: re.Match[str]) -> bool:
    """Tell ``password=hunter22`` from prose such as ``the token: refreshed yesterday``.

    A quoted value is a credential unless it is a template or a mask. A bare
    value after ``=`` is one whatever it reads like. After a colon a value
    that reads as words, or holds no letter at all (``pass: 57.00, 46.00``,
    ``password: 2024-05-01``), is prose (PROTOCOL §3 v3).
    """
    group = secret_group(match)
    value = match.group(group)
    if not _keyword_stands_alone(match):
        return False
    if names_something_else(match.string, match.start(), match.start(group)):
        return False
    if group in (1, 2, 3):
        return not _placeholder_value(value)
    if "=" in match.group(0)[: match.start(group) - match.start(0)]:
        return True
    value = value.rstrip(".,:;!?)")
    return not reads_as_words(value) and any(ch.isalpha() for ch in value)


def _keyword_stands_alone(match: re.Match[str]) -> bool:
    """``pass``/``psk`` count only as a word of their own (``DB_PASS=`` or ``PASS:``),
    never as the end of another (``bypass=``, ``compass=``)."""
    keyword = match.group(0)[:4].lower()
    if not (keyword.startswith("pass") or keyword.startswith("psk")):
        return True
    if keyword.startswith("pass") and match.group(0)[4:5].isalpha():
        return True  # password, passwd, passphrase, passwort, ...
    start = match.start()
    return start == 0 or not match.string[start - 1].isalnum()


def _word_value_is_credential(match: re.Match[str]) -> bool:
    """``machine x login y password z``: a plain word as *z* is prose about the fields."""
    value = match.group(secret_group(match))
    return not reads_as_words(value.rstrip(".,:;!?)"))


def _bearer_credentials(match: re.Match[str]) -> bool:
    """A token has a digit or mixed case; ``Bearer authentication-scheme`` is words."""
    value = match.group(secret_group(match))
    return not reads_as_words(value) and not value.isalpha()


def _basic_credentials(match: re.Match[str]) -> bool:
    """``Basic dXNlcjpwYXNz`` is base64, ``Basic authentication`` is a word."""
    value = match.group(secret_group(match))
    return not (value.isalpha() and value.islower())


def random_token(match: re.Match[str]) -> bool:
    """A generated token holds a digit and a letter (``s.`` + 24 letters is prose)."""
    value = match.group(0)
    return any(ch.isdigit() for ch in value) and any(ch.isalpha() for ch in value[2:])


def _pgpass_host(match: re.Match[str]) -> bool:
    """``host:port:db:user:password`` names a host (or ``*``), never only digits."""
    host = match.group(0).lstrip(" \t-*+").split(":", 1)[0] or "*"
    return host == "*" or not host.replace(".", "").isdigit()


# Keywords of a password assignment (PROTOCOL §3): English, and (v3) the common
# words for password of other languages.
_PASSWORD_WORDS = (
    "pass(?:word|wd|phrase)|pwd|secret(?:[_-]?key)?|api[_-]?key|token|private[_-]?key"
    "|passwort|kennwort|senha|contraseña|contrasena|mot de passe"
    "|пароль|密码|密碼|パスワード|비밀번호"
    "|wachtwoord|lösenord|passord|adgangskode|hasło|heslo|salasana|jelszó|parola|şifre|sifre"
)
_PASSWORD_ANCHORS = (
    "pass", "mot de passe", "pwd", "secret", "apikey", "api_key", "api-key", "token", "private_key",
    "private-key", "privatekey", "psk", "kennwort", "senha", "contraseña", "contrasena",
    "пароль", "密码", "密碼", "パスワード", "비밀번호", "wachtwoord", "lösenord",
    "adgangskode", "hasło", "heslo", "salasana", "jelszó", "parola", "şifre", "sifre",
)  # fmt: skip

SYNTAX: tuple[Rule, ...] = (
    Rule(
        "DATABASE_URL",
        r"\b(?:postgres(?:ql)?|mysql|mongodb(?:\+srv)?|rediss?)://[^:/?#@\s]*:([^/?#@\s]+)@",
        ("postgres", "mysql", "mongodb", "redis"),
    ),
    Rule(
        # Any other scheme with a password in its user part (https, ftp, amqp, smtp, ...).
        "URL_PASSWORD",
        r"\b[A-Za-z][A-Za-z0-9+.-]{1,15}://[^:/?#@\s\[\]]*:([^/?#@\s\[\]]+)@",
        ("@",),
    ),
    Rule(
        # Crypt hashes of passwords (/etc/shadow, htpasswd): bcrypt, md5-apr1, sha-crypt,
        # yescrypt, argon2.
        "PASSWORD_HASH",
        r"\$(?:2[abxy]\$[0-9]{2}\$[./A-Za-z0-9]{53}|apr1\$[./A-Za-z0-9]{1,8}\$[./A-Za-z0-9]{22}"
        r"|[156]\$(?:rounds=[0-9]+\$)?[./A-Za-z0-9]{1,16}\$[./A-Za-z0-9]{22,86}"
        r"|y\$[./A-Za-z0-9]+\$[./A-Za-z0-9]+\$[./A-Za-z0-9]{43}"
        r"|argon2(?:id|i|d)\$v=[0-9]+\$[^$\s]+\$[A-Za-z0-9+/]{8,}\$[A-Za-z0-9+/]{16,})",
        ("$2a$", "$2b$", "$2x$", "$2y$", "$apr1$", "$1$", "$5$", "$6$", "$y$", "$argon2"),
    ),
    Rule(
        # ~/.netrc: machine HOST login USER password PASS (or "default ...").
        "NETRC_PASSWORD",
        r"\b(?:machine[ \t]+\S+|default)(?:[ \t]+(?:login|account|port)[ \t]+\S+)*"
        r"[ \t]+password[ \t]+(\S+)",
        ("machine", "default"),
        plausible=_word_value_is_credential,
    ),
    Rule(
        # ~/.pgpass: hostname:port:database:username:password, one per line.
        "PGPASS_LINE",
        r"(?m:^)[ \t]*(?:[-+*][ \t]+){0,2}[^:\s#]+:(?:[0-9]{1,5}|\*):[^:\s]+:[^:\s]+:"
        r"((?:[^\s\\]|\\.)+)[ \t\r]*$",
        (":",),
        plausible=_pgpass_host,
    ),
    Rule(
        # Docker's config.json: "auth" is base64 of user:password; identity and registry tokens.
        "DOCKER_AUTH",
        r"\"(?:auth|identitytoken|registrytoken)\"[ \t]*:[ \t]*\"([A-Za-z0-9+/_.-]{8,}={0,2})\"",
        ('"auth"', '"identitytoken"', '"registrytoken"'),
        plausible=_basic_credentials,
    ),
    Rule(
        # kubeconfig: the client's private key, base64 of its PEM block.
        "KUBECONFIG_KEY",
        r"\bclient-key-data:[ \t]*[\"']?([A-Za-z0-9+/]{20,}={0,2})",
        ("client-key-data",),
    ),
    Rule(
        "ETH_PRIVATE_KEY",
        "(?:"
        + ci("priv(?:ate)?[ _.-]?key|wallet[ _.-]?(?:private[ _.-]?)?key")
        + ")"
        + r"[*\"'`]{0,2}[ \t]*[:=\uff1a]?[ \t]*[\"'`]?((?:0x)?[a-fA-F0-9]{64})\b",
        ("priv", "wallet"),
        folded=True,
    ),
    Rule(
        "BASIC_AUTH",
        r"\b" + ci("basic") + r"[ \t]+([A-Za-z0-9+/]{8,}={0,2})",
        ("basic",),
        folded=True,
        plausible=_basic_credentials,
    ),
    Rule(
        # curl -u user:pass, --user user:pass (a lone user name asks for the password).
        "CLI_USER_PASSWORD",
        r"(?:(?m:^)|[ \t])(?:-u|--user)(?:[ \t]+|=)[\"']?[^\s:\"']+:([^\s\"']{3,})",
        ("-u", "--user"),
    ),
    Rule(
        # mysql -pSecret: the value is glued to -p (a bare -p prompts; -P is the port).
        "MYSQL_PASSWORD",
        r"\b(?:mysql|mysqldump|mysqladmin|mariadb)[ \t][^\n]*?[ \t]-p([^\s\"'-][^\s\"']{2,})",
        ("mysql", "mariadb"),
    ),
    Rule(
        # Tools whose short option is the password: sshpass -p, redis-cli -a,
        # docker login -p, ldapsearch -w, smbclient -U user%pass.
        "CLI_PASSWORD",
        r"\b(?:sshpass(?:[ \t]+-v)*[ \t]+-p[ \t]*|redis-cli\b[^\n]*?[ \t]-a[ \t]+"
        r"|(?:docker|podman|nerdctl)[ \t]+login\b[^\n]*?[ \t]-p[ \t]+"
        r"|ldap(?:search|modify|add|delete|whoami|passwd|compare)\b[^\n]*?[ \t]-w[ \t]+"
        r"|smbclient\b[^\n]*?[ \t]-U[ \t]*[^%\s]+%)" + _ARG,
        ("sshpass", "redis-cli", "login", "ldap", "smbclient"),
    ),
    Rule("PASSWORD_OPTION", r"--pass(?:word|wd|phrase)?[ \t]+" + _VALUE, ("--pass",)),
    Rule(
        # Authorization: Bearer/Token/Bot <credential>.
        "BEARER_TOKEN",
        r"(?:\b"
        + ci("bearer")
        + "|"
        + ci("authorization")
        + r":[ \t]*(?:"
        + ci("token")
        + "|"
        + ci("bot")
        + r"))[ \t]+([A-Za-z0-9._~+/-]{16,}=*)",
        ("bearer", "authorization"),
        folded=True,
        plausible=_bearer_credentials,
    ),
    Rule(
        "PASSWORD_ASSIGNMENT",
        "(?:"
        + ci(_PASSWORD_WORDS)
        # DB_PASS, PASS, PSK: a word of its own, not the end of "bypass" or "compass"
        # (checked in Python: an assertion first would cost the regex its quick scan
        # for the first letter).
        + r"|_?(?:"
        + ci("pass|psk")
        + r")\b)"
        + _KEY_END
        + "(?:"
        + _QUOTED
        + r"|[\"'`]?"
        + _VALUE
        + ")",
        _PASSWORD_ANCHORS,
        folded=True,
        plausible=_assigned_value_is_credential,
        lead=1,  # "_pass": the underscore before the anchor
    ),
)

PRIVATE_KEY = Rule(
    "PRIVATE_KEY",
    PEM_BEGIN + r"(?:[\s\S]*?" + PEM_END + "|" + PEM_BODY + ")",
    ("-----BEGIN",),
    block=(PEM_BEGIN, PEM_END, PEM_BODY),
)
