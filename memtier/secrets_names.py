"""The name a value is assigned to, read for the secret rules (PROTOCOL §3 v4).

``DB_PASSWORD=…``, ``csrf_token: …``, ``"twitterBearer" => …``: the words of the
name say whether its value is a credential. Shared by the password rule
(`memtier.secrets_rules`) and the keyed rule (`memtier.secrets_keyed`), which both
leave alone a value whose name says it is something else (``csrf_token``,
``next_page_token``, ``secret_name``, ``token_url``).
"""

from __future__ import annotations

import re
from itertools import pairwise

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
