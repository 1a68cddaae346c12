"""Secrets known by the name they are assigned to, for `memtier.secrets` (PROTOCOL §3 v4).

Most provider credentials have no prefix of their own: a Mailchimp key, a Kraken
secret, a Twitter bearer token are just random characters. What gives them away
is the line they stand on -- a name that holds a provider's name or a word such as
``key``, ``token``, ``secret``, ``auth``, ``access``, ``bearer``, ``client`` or
``pat``, an assignment (``=``, ``:``, ``:=``, ``=>``, ``?=``), and a value that
reads as random. The public scanners' default lists describe this as one rule per
provider plus a generic one; here it is one rule, `KEYED_SECRET`, whose regex
finds the candidates and whose check in Python (`keyed_value_is_secret`) decides:

- the **name** is the identifier the keyword stands in (``TWITTER_BEARER``,
  ``adafruitIoKey``, ``"api-key"``) or, when it holds blanks, a short phrase whose
  last word is a key word (``Twitter bearer token:``, never ``Access granted:``);
  a provider's name or a key word must start one of its parts (``monkey``,
  ``keyboard``, ``bypass`` are not names of secrets), and names of things that are
  not secret -- ``public_key``, ``key_id``, ``api_version``, ``token_url``,
  ``csrf_token``, ``next_page_token`` -- are left alone (`memtier.secrets_rules`);
- the **value** must read as random: a letter and a digit, no blank, at least 10
  characters (14 after a provider's name), a Shannon entropy of at least 3.5 bits
  per character after a key word (3.0 after a provider's name, which is already a
  strong hint), and none of the shapes of ordinary text: a placeholder
  (``<your-key>``, ``xxxx``, ``example``), a path, a host name or a version
  (lower-case with dots), a dotted version number, or words joined by hyphens
  (``PROJ-12345-fix``).

The rule is tried only where one of its keywords stands (`Rule.lead` is 0), so
its long alternation costs nothing on the rest of a line.
"""

from __future__ import annotations

import math
import re

from memtier.secrets_rules import (
    KEY_WORDS,
    Rule,
    name_of,
    names_something_else,
    parts,
    secret_group,
)

# Providers whose credentials the public rule lists recognise by the provider's
# name before an assignment (lower case; a name may be spelled with or without
# its separator).
PROVIDER_NAMES: tuple[str, ...] = (
    "adafruit", "adobe", "airtable", "algolia", "alibaba", "asana", "atlassian",
    "confluence", "jira", "beamer", "bitbucket", "bittrex", "meraki", "cloudflare",
    "codecov", "cohere", "coinbase", "confluent", "contentful", "datadog", "dnkey",
    "discord", "droneci", "dropbox", "etsy", "facebook", "fastly", "finicity", "finnhub",
    "flickr", "freshbooks", "gitter", "gocardless", "heroku", "hubspot", "intercom",
    "jfrog", "artifactory", "bintray", "xray", "kraken", "kucoin", "launchdarkly",
    "linear", "linkedin", "linked_in", "linked-in", "mailchimp", "mailgun", "mapbox",
    "mattermost", "messagebird", "message_bird", "message-bird", "netlify", "newrelic",
    "new_relic", "new-relic", "nytimes", "newyorktimes", "new-york-times", "okta", "plaid",
    "privateai", "private_ai", "private-ai", "rapidapi", "sendbird", "sentry", "snyk",
    "sonar", "sourcegraph", "squarespace", "sumo", "telegr", "travis", "twitch", "twitter",
    "typeform", "yandex", "zendesk", "github", "gitlab", "slack", "stripe", "openai",
    "anthropic", "huggingface", "vercel", "supabase", "pinecone", "replicate",
)  # fmt: skip

_KEY_ANCHORS = (
    "key", "token", "secret", "auth", "access", "api", "credential", "creds", "bearer",
    "client", "pat", "passw", "pwd", "sig",
)  # fmt: skip

_PLACEHOLDER_WORDS = (
    "example", "xxxx", "changeme", "change_me", "your", "placeholder", "dummy", "redacted",
    "sample", "fake", "insert", "replace", "todo", "0000000", "1234567", "abcdef", "****",
)  # fmt: skip
_FILE_EXTENSIONS = frozenset(
    {
        "pem", "pub", "key", "json", "yaml", "yml", "txt", "md", "env", "crt", "cer", "p12",
        "pfx", "toml", "ini", "conf", "cfg", "log", "gpg", "asc", "der", "jks", "py", "js",
        "ts", "sh", "html", "xml", "csv", "db", "sqlite",
    }
)  # fmt: skip

# Patterns are strings: `re` compiles and caches them on first use, not at import.
_DOTTED_NUMBER = r"[0-9]+\.[0-9]+\.[0-9]+"


def _name_of(match: re.Match[str]) -> str:
    return name_of(match.string, match.start(), match.start(secret_group(match)))


def _provider_named(name: str) -> bool:
    lowered = name.lower()
    starts = {0}
    for i in range(1, len(name)):
        before, here = name[i - 1], name[i]
        if not before.isalnum() or (before.islower() and here.isupper()):
            starts.add(i)
    return any(lowered.startswith(provider, i) for provider in PROVIDER_NAMES for i in starts)


def _credential_name(name: str) -> tuple[bool, bool]:
    """(is the name that of a credential, is it a provider's name)."""
    words = name.split()
    if not words:
        return False, False
    if len(words) > 1:
        # A phrase: "Twitter bearer token", "API key", not "Access granted".
        last = parts(words[-1])
        if not last or last[-1] not in KEY_WORDS:
            return False, False
    if names_something_else(name, 0, len(name)):
        return False, False
    provider = _provider_named(name)
    return provider or any(part in KEY_WORDS for part in parts(name)), provider


def entropy(value: str) -> float:
    """Shannon entropy in bits per character."""
    size = len(value)
    counts: dict[str, int] = {}
    for ch in value:
        counts[ch] = counts.get(ch, 0) + 1
    return -sum(n / size * math.log2(n / size) for n in counts.values())


def _reads_as_part(segment: str) -> bool:
    """A word in one case, a number, or a short piece: a part of a name, not of a key."""
    if segment.isalpha() and (segment.islower() or segment.isupper()):
        return True
    return segment.isdigit() or len(segment) <= 6


def reads_as_random(value: str, minimum: int = 10, bits: float = 3.5) -> bool:
    """A generated credential, not text (module docstring)."""
    if len(value) < minimum:
        return False
    if not any(ch.isdigit() for ch in value) or not any(ch.isalpha() for ch in value):
        return False
    lowered = value.lower()
    if any(word in lowered for word in _PLACEHOLDER_WORDS):
        return False
    if value == lowered and ("." in value or "/" in value):
        return False  # a host name, a path, a file name, a version
    if "." in value and value.rsplit(".", 1)[1].lower() in _FILE_EXTENSIONS:
        return False
    if re.search(_DOTTED_NUMBER, value):
        return False  # a version: 1.2.3, chrome-126.0.6478
    segments = [s for s in re.split(r"[-_.]", value) if s]
    if len(segments) > 1 and all(_reads_as_part(s) for s in segments):
        return False  # PROJ-12345-fix, build-2024-final, not live_<random>
    words = parts(value, lower=False)
    if len(words) <= 4 and all(len(w) >= 3 for w in words if w.isalpha()):
        return False  # LinearRegression2024: words and a number
    return entropy(value) >= bits


def keyed_value_is_secret(match: re.Match[str]) -> bool:
    """The check in Python of `KEYED_SECRET` (module docstring)."""
    value = match.group(secret_group(match)).rstrip(".,")
    credential, provider = _credential_name(_name_of(match))
    if not credential:
        return False
    if provider:
        return reads_as_random(value, minimum=14, bits=3.0)
    return reads_as_random(value)


_KEYWORDS = sorted({*PROVIDER_NAMES, *_KEY_ANCHORS})


def _trie(words: list[str]) -> str:
    """One regex for *words* (lower case, no regex syntax), factored by common
    prefixes (``a(?:d(?:afruit|obe)|...)``): ``re`` tries an alternation one branch
    after the other, so a hundred flat branches would cost a hundred tries. `ci`
    then spells it case-insensitively."""
    heads: dict[str, list[str]] = {}
    for word in words:
        if word:
            heads.setdefault(word[0], []).append(word[1:])
    branches = [head + _trie(rest) for head, rest in sorted(heads.items())]
    if not branches:
        return ""
    body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
    return f"(?:{body})?" if "" in words else body


# ci(_trie(_KEYWORDS)), written out: building it costs milliseconds at every start
# of a writing process (a test checks that the two agree).
_KEYWORD_PATTERN = (
    "(?:[Aa](?:[Cc][Cc][Ee][Ss][Ss]|[Dd](?:[Aa][Ff][Rr][Uu][Ii][Tt]|[Oo][Bb][Ee])|[Ii][Rr][Tt"
    "][Aa][Bb][Ll][Ee]|[Ll](?:[Gg][Oo][Ll][Ii][Aa]|[Ii][Bb][Aa][Bb][Aa])|[Nn][Tt][Hh][Rr][Oo]"
    "[Pp][Ii][Cc]|[Pp][Ii]|[Rr][Tt][Ii][Ff][Aa][Cc][Tt][Oo][Rr][Yy]|[Ss][Aa][Nn][Aa]|[Tt][Ll]"
    "[Aa][Ss][Ss][Ii][Aa][Nn]|[Uu][Tt][Hh])|[Bb](?:[Ee][Aa](?:[Mm][Ee][Rr]|[Rr][Ee][Rr])|[Ii]"
    "(?:[Nn][Tt][Rr][Aa][Yy]|[Tt](?:[Bb][Uu][Cc][Kk][Ee][Tt]|[Tt][Rr][Ee][Xx])))|[Cc](?:[Ll]("
    "?:[Ii][Ee][Nn][Tt]|[Oo][Uu][Dd][Ff][Ll][Aa][Rr][Ee])|[Oo](?:[Dd][Ee][Cc][Oo][Vv]|[Hh][Ee"
    "][Rr][Ee]|[Ii][Nn][Bb][Aa][Ss][Ee]|[Nn](?:[Ff][Ll][Uu][Ee][Nn](?:[Cc][Ee]|[Tt])|[Tt][Ee]"
    "[Nn][Tt][Ff][Uu][Ll]))|[Rr][Ee][Dd](?:[Ee][Nn][Tt][Ii][Aa][Ll]|[Ss]))|[Dd](?:[Aa][Tt][Aa"
    "][Dd][Oo][Gg]|[Ii][Ss][Cc][Oo][Rr][Dd]|[Nn][Kk][Ee][Yy]|[Rr][Oo](?:[Nn][Ee][Cc][Ii]|[Pp]"
    "[Bb][Oo][Xx]))|[Ee][Tt][Ss][Yy]|[Ff](?:[Aa](?:[Cc][Ee][Bb][Oo][Oo][Kk]|[Ss][Tt][Ll][Yy])"
    "|[Ii][Nn](?:[Ii][Cc][Ii][Tt][Yy]|[Nn][Hh][Uu][Bb])|[Ll][Ii][Cc][Kk][Rr]|[Rr][Ee][Ss][Hh]"
    "[Bb][Oo][Oo][Kk][Ss])|[Gg](?:[Ii][Tt](?:[Hh][Uu][Bb]|[Ll][Aa][Bb]|[Tt][Ee][Rr])|[Oo][Cc]"
    "[Aa][Rr][Dd][Ll][Ee][Ss][Ss])|[Hh](?:[Ee][Rr][Oo][Kk][Uu]|[Uu](?:[Bb][Ss][Pp][Oo][Tt]|[G"
    "g][Gg][Ii][Nn][Gg][Ff][Aa][Cc][Ee]))|[Ii][Nn][Tt][Ee][Rr][Cc][Oo][Mm]|[Jj](?:[Ff][Rr][Oo"
    "][Gg]|[Ii][Rr][Aa])|[Kk](?:[Ee][Yy]|[Rr][Aa][Kk][Ee][Nn]|[Uu][Cc][Oo][Ii][Nn])|[Ll](?:[A"
    "a][Uu][Nn][Cc][Hh][Dd][Aa][Rr][Kk][Ll][Yy]|[Ii][Nn](?:[Ee][Aa][Rr]|[Kk][Ee][Dd](?:-[Ii]["
    "Nn]|_[Ii][Nn]|[Ii][Nn])))|[Mm](?:[Aa](?:[Ii][Ll](?:[Cc][Hh][Ii][Mm][Pp]|[Gg][Uu][Nn])|[P"
    "p][Bb][Oo][Xx]|[Tt][Tt][Ee][Rr][Mm][Oo][Ss][Tt])|[Ee](?:[Rr][Aa][Kk][Ii]|[Ss][Ss][Aa][Gg"
    "][Ee](?:-[Bb][Ii][Rr][Dd]|_[Bb][Ii][Rr][Dd]|[Bb][Ii][Rr][Dd])))|[Nn](?:[Ee](?:[Tt][Ll][I"
    "i][Ff][Yy]|[Ww](?:-(?:[Rr][Ee][Ll][Ii][Cc]|[Yy][Oo][Rr][Kk]-[Tt][Ii][Mm][Ee][Ss])|_[Rr]["
    "Ee][Ll][Ii][Cc]|[Rr][Ee][Ll][Ii][Cc]|[Yy][Oo][Rr][Kk][Tt][Ii][Mm][Ee][Ss]))|[Yy][Tt][Ii]"
    "[Mm][Ee][Ss])|[Oo](?:[Kk][Tt][Aa]|[Pp][Ee][Nn][Aa][Ii])|[Pp](?:[Aa](?:[Ss][Ss][Ww]|[Tt])"
    "|[Ii][Nn][Ee][Cc][Oo][Nn][Ee]|[Ll][Aa][Ii][Dd]|[Rr][Ii][Vv][Aa][Tt][Ee](?:-[Aa][Ii]|_[Aa"
    "][Ii]|[Aa][Ii])|[Ww][Dd])|[Rr](?:[Aa][Pp][Ii][Dd][Aa][Pp][Ii]|[Ee][Pp][Ll][Ii][Cc][Aa][T"
    "t][Ee])|[Ss](?:[Ee](?:[Cc][Rr][Ee][Tt]|[Nn](?:[Dd][Bb][Ii][Rr][Dd]|[Tt][Rr][Yy]))|[Ii][G"
    "g]|[Ll][Aa][Cc][Kk]|[Nn][Yy][Kk]|[Oo](?:[Nn][Aa][Rr]|[Uu][Rr][Cc][Ee][Gg][Rr][Aa][Pp][Hh"
    "])|[Qq][Uu][Aa][Rr][Ee][Ss][Pp][Aa][Cc][Ee]|[Tt][Rr][Ii][Pp][Ee]|[Uu](?:[Mm][Oo]|[Pp][Aa"
    "][Bb][Aa][Ss][Ee]))|[Tt](?:[Ee][Ll][Ee][Gg][Rr]|[Oo][Kk][Ee][Nn]|[Rr][Aa][Vv][Ii][Ss]|[W"
    "w][Ii][Tt](?:[Cc][Hh]|[Tt][Ee][Rr])|[Yy][Pp][Ee][Ff][Oo][Rr][Mm])|[Vv][Ee][Rr][Cc][Ee][L"
    "l]|[Xx][Rr][Aa][Yy]|[Yy][Aa][Nn][Dd][Ee][Xx]|[Zz][Ee][Nn][Dd][Ee][Ss][Kk])"
)

KEYED: tuple[Rule, ...] = (
    Rule(
        "KEYED_SECRET",
        _KEYWORD_PATTERN
        + r"[A-Za-z0-9_. \t-]{0,30}[*\"'`]{0,2}[ \t]*(?:::=|:=|\?=|=>|[:=\uff1a])[*]{0,2}[ \t]*"
        + r"[\"'`]?([A-Za-z0-9_.=+-][A-Za-z0-9_.=+/~%-]{9,199})",
        tuple(_KEYWORDS),
        folded=True,
        plausible=keyed_value_is_secret,
        lead=0,
    ),
)
