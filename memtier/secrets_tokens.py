"""Provider tokens, for `memtier.secrets` (PROTOCOL §3): those with a fixed prefix or
shape, and (v4) those known only by the name they are assigned to (`KEYED`, below).

Prefixes and lengths are those the providers publish and the public scanner rule
lists (gitleaks, detect-secrets, trufflehog) describe; the rules are this
project's own. Ordered from most to least specific (see `memtier.secrets_rules`).
"""

from __future__ import annotations

import math
import re

from memtier.secrets_rules import (
    ASSIGN,
    KEY_WORDS,
    Rule,
    ci,
    name_of,
    names_something_else,
    parts,
    random_token,
    secret_group,
)


def _not_documented_example(match: re.Match[str]) -> bool:
    """AWS documents its key ids with ones ending in EXAMPLE: they open no account."""
    return not match.group(0).endswith("EXAMPLE")


TOKENS: tuple[Rule, ...] = (
    Rule("ANTHROPIC_KEY", r"\bsk-ant-[A-Za-z0-9_-]{32,}", ("sk-ant-",)),
    Rule(
        "OPENAI_KEY",
        r"\bsk-(?:(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{20,}|[A-Za-z0-9]{20,}\b)",
        ("sk-",),
    ),
    Rule(
        "STRIPE_KEY",
        r"\b(?:[rs]k_(?:live|test|prod)_[A-Za-z0-9]{10,}|whsec_[A-Za-z0-9]{32,})\b",
        ("k_live_", "k_test_", "k_prod_", "whsec_"),
    ),
    Rule(
        "GITHUB_TOKEN",
        r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{40,})\b",
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
    ),
    Rule("GOOGLE_API_KEY", r"\bAIza[A-Za-z0-9_-]{35}", ("AIza",)),
    Rule(
        "GOOGLE_OAUTH",
        r"\b(?:GOCSPX-[A-Za-z0-9_-]{28}|ya29\.[A-Za-z0-9_-]{30,}(?:\.[A-Za-z0-9_-]{4,})*"
        r"|1//0[A-Za-z0-9_-]{40,})",
        ("GOCSPX-", "ya29.", "1//0"),
    ),
    Rule(
        "AWS_ACCESS_KEY_ID",
        r"\b(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b",
        ("A3T", "AKIA", "ASIA", "ABIA", "ACCA"),
        plausible=_not_documented_example,
    ),
    Rule(
        "AWS_SECRET_ACCESS_KEY",
        "(?:"
        + ci("aws_?secret_?(?:access_?)?key|secret_?access_?key")
        + ")"
        + ASSIGN
        + r"([A-Za-z0-9/+]{40,})",
        ("secret",),
        folded=True,
    ),
    Rule(
        "AZURE_STORAGE_KEY",
        ci("accountkey")
        + r"[ \t]*=[ \t]*([A-Za-z0-9+/]{84,86}==)|"
        + ci("sharedaccesskey")
        + r"[ \t]*=[ \t]*([A-Za-z0-9+/]{42,44}=)",
        ("accountkey", "sharedaccesskey"),
        folded=True,
    ),
    Rule("AZURE_SAS", r"[?&;]sig=([A-Za-z0-9%+/]{30,}(?:=|%3[Dd]){0,2})", ("sig=",)),
    Rule(
        "AZURE_AD_SECRET",
        r"(?:(?m:^)|[\s'\"`=:(,>])([A-Za-z0-9_~.]{3}[0-9]Q~[A-Za-z0-9_~.-]{31,34})\b",
        ("Q~",),
    ),
    Rule(
        "SLACK_TOKEN",
        r"\b(?:xox[abposr]-[0-9]+-[A-Za-z0-9-]{8,}|xox[ar]-[0-9A-Za-z]{8,48}\b"
        r"|xoxe(?:\.xox[bp])?-[0-9]-[A-Za-z0-9]{100,}"
        r"|xapp-[0-9]-[A-Z0-9]+-[0-9]+-[a-z0-9]{16,})",
        ("xox", "xapp-"),
    ),
    Rule(
        "SLACK_WEBHOOK",
        r"(?:https?://)?hooks\.slack\.com/(?:services|workflows|triggers)/"
        r"([A-Za-z0-9_]{6,}/[A-Za-z0-9_]{6,}/[A-Za-z0-9_]{16,})",
        ("hooks.slack.com",),
    ),
    Rule(
        "DISCORD_WEBHOOK",
        r"https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/[0-9]{17,20}/"
        r"([A-Za-z0-9_-]{60,68})",
        ("discord",),
    ),
    Rule(
        # The base64 of a numeric user id, a timestamp, an HMAC.
        "DISCORD_BOT_TOKEN",
        r"\b(?:M[Tjz]|N[DTjz]|O[DT])[A-Za-z0-9_-]{21,25}\.[A-Za-z0-9_-]{6,7}\.[A-Za-z0-9_-]{27,40}\b",
        ("MT", "Mj", "Mz", "ND", "NT", "Nj", "Nz", "OD", "OT"),
    ),
    Rule(
        "TEAMS_WEBHOOK",
        r"https://[A-Za-z0-9-]+\.webhook\.office\.com/webhookb2/([^\s\"'<>]{40,})",
        ("webhook.office.com",),
    ),
    Rule(
        "GITLAB_TOKEN",
        r"\b(?:gl(?:pat|ptt|rt|dt|ft|cbt|ffct|imt|oas|soat|agent)-[A-Za-z0-9_-]{20,}"
        r"(?:\.[0-9a-z]{9}\b)?|GR1348941[A-Za-z0-9_-]{20,})|_gitlab_session=([0-9a-z]{32})",
        (
            "glpat-",
            "glptt-",
            "glrt-",
            "gldt-",
            "glft-",
            "glcbt-",
            "glffct-",
            "glimt-",
            "gloas-",
            "glsoat-",
            "glagent-",
            "GR1348941",
            "_gitlab_session=",
        ),
    ),
    Rule("PYPI_TOKEN", r"\bpypi-AgE[A-Za-z0-9_-]{50,}", ("pypi-AgE",)),
    Rule("TAILSCALE_KEY", r"\btskey-(?:[a-z]+-)?[A-Za-z0-9]{6,}-[A-Za-z0-9]{16,}", ("tskey-",)),
    Rule("DIGITALOCEAN_TOKEN", r"\bdo[opr]_v1_[a-f0-9]{64}\b", ("doo_v1_", "dop_v1_", "dor_v1_")),
    Rule(
        "SHOPIFY_TOKEN",
        r"\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b",
        ("shpat_", "shpca_", "shppa_", "shpss_"),
    ),
    Rule("SENDGRID_KEY", r"\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}", ("SG.",)),
    Rule("SENDINBLUE_KEY", r"\bxkeysib-[a-f0-9]{64}-[A-Za-z0-9]{16}\b", ("xkeysib-",)),
    Rule("TWILIO_API_KEY", r"\bSK[0-9a-f]{32}\b", ("SK",)),
    Rule("NPM_TOKEN", r"\bnpm_[A-Za-z0-9]{36}\b", ("npm_",)),
    Rule(
        "VAULT_TOKEN",
        r"\b(?:hv[bs]\.[A-Za-z0-9_-]{24,}|s\.[A-Za-z0-9]{24}\b)",
        ("hvb.", "hvs.", "s."),
        plausible=random_token,
    ),
    Rule("TERRAFORM_TOKEN", r"\b[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,}", ("atlasv1",)),
    Rule(
        "HUGGINGFACE_TOKEN",
        r"\b(?:hf_[A-Za-z0-9]{30,}|api_org_[A-Za-z]{34})\b",
        ("hf_", "api_org_"),
    ),
    Rule("AGE_SECRET_KEY", r"\bAGE-SECRET-KEY-1[02-9AC-HJ-NP-Z]{58}\b", ("AGE-SECRET-KEY-1",)),
    Rule(
        "SENTRY_TOKEN",
        r"\bhttps?://([a-f0-9]{32}(?::[a-f0-9]{32})?)@[A-Za-z0-9.-]+(?::[0-9]{1,5})?/"
        r"(?:[A-Za-z0-9_-]+/)*[0-9]+\b|\bsntry[us]_[A-Za-z0-9+/=_]{40,}",
        ("@", "sntry"),  # "@" is rarer in notes than "://"
    ),
    Rule("MAILGUN_KEY", r"\b(?:pub)?key-[a-f0-9]{32}\b", ("key-",)),
    Rule(
        "SQUARE_TOKEN",
        r"\b(?:sq0(?:atp|csp)-[A-Za-z0-9_-]{22,}|EAAA[A-Za-z0-9_-]{22,})",
        ("sq0atp-", "sq0csp-", "EAAA"),
        plausible=random_token,
    ),
    Rule("ATLASSIAN_TOKEN", r"\bAT(?:ATT|CTT)3[A-Za-z0-9_=-]{100,}", ("ATATT3", "ATCTT3")),
    Rule(
        "GRAFANA_TOKEN",
        r"\b(?:glc_[A-Za-z0-9+/]{32,}={0,3}|glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}\b"
        r"|eyJrIjoi[A-Za-z0-9+/]{40,}={0,3})",
        ("glc_", "glsa_", "eyJrIjoi"),
    ),
    Rule("POSTMAN_KEY", r"\bPMAK-[a-f0-9]{24}-[a-f0-9]{34}\b", ("PMAK-",)),
    Rule("DATABRICKS_TOKEN", r"\bdapi[a-f0-9]{32}(?:-[0-9])?\b", ("dapi",)),
    Rule("LINEAR_KEY", r"\blin_(?:api|oauth)_[A-Za-z0-9]{40,64}\b", ("lin_api_", "lin_oauth_")),
    Rule(
        "NOTION_TOKEN",
        r"\b(?:ntn_[0-9]{11}[A-Za-z0-9]{35}|secret_[A-Za-z0-9]{43})\b",
        ("ntn_", "secret_"),
    ),
    Rule(
        "DOPPLER_TOKEN",
        r"\bdp\.(?:pt|st|sa|ct|scim|audit)\.(?:[A-Za-z0-9_-]{1,40}\.)?[A-Za-z0-9]{40,44}\b",
        ("dp.",),
    ),
    Rule(
        "ONEPASSWORD_TOKEN",
        r"\b(?:ops_eyJ[A-Za-z0-9+/]{100,}={0,3}|A3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}"
        r"|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}\b)",
        ("ops_eyJ", "A3-"),
    ),
    Rule("DOCKERHUB_TOKEN", r"\bdckr_pat_[A-Za-z0-9_-]{27,}", ("dckr_pat_",)),
    Rule("SUPABASE_TOKEN", r"\bsbp_[a-f0-9]{40}\b", ("sbp_",)),
    Rule(
        "PLANETSCALE_TOKEN",
        r"\bpscale_(?:tkn|tok|oauth|pw)_[A-Za-z0-9_=.-]{32,64}",
        ("pscale_tkn_", "pscale_tok_", "pscale_oauth_", "pscale_pw_"),
    ),
    Rule("PULUMI_TOKEN", r"\bpul-[a-f0-9]{40}\b", ("pul-",)),
    Rule("RUBYGEMS_KEY", r"\brubygems_[a-f0-9]{48}\b", ("rubygems_",)),
    Rule(
        "NEWRELIC_KEY",
        r"\bNR(?:AK-[A-Za-z0-9]{27}|II-[A-Za-z0-9_-]{32}|JS-[a-f0-9]{19})\b",
        ("NRAK-", "NRII-", "NRJS-"),
    ),
    Rule("HEROKU_KEY", r"\bHRKU-AA[A-Za-z0-9_-]{58}", ("HRKU-AA",)),
    Rule("OPENSHIFT_TOKEN", r"\bsha256~[A-Za-z0-9_-]{43}", ("sha256~",)),
    Rule("PERPLEXITY_KEY", r"\bpplx-[A-Za-z0-9]{48}\b", ("pplx-",)),
    Rule(
        # More fixed prefixes of the public rule lists: Adobe, Alibaba, Artifactory,
        # Cloudflare origin CA, Dynatrace, EasyPost, Fly.io, Frame.io, Infracost,
        # Prefect, ReadMe, Scalingo, Shippo, Typeform, Duffel, MaxMind, Clojars, Mapbox.
        "PROVIDER_TOKEN",
        r"\b(?:p8e-[A-Za-z0-9]{32}|LTAI[A-Za-z0-9]{20}|AKCp[A-Za-z0-9]{69}"
        r"|v1\.0-[a-f0-9]{24}-[a-f0-9]{146}|dt0c01\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{64}"
        r"|EZ[AT]K[A-Za-z0-9]{54}|fo1_[A-Za-z0-9_-]{43}|fm[12][ar]?_[A-Za-z0-9+/]{100,}={0,3}"
        r"|fio-u-[A-Za-z0-9_=-]{64}|ico-[A-Za-z0-9]{32}|pnu_[A-Za-z0-9]{36}|rdme_[a-z0-9]{70}"
        r"|tk-us-[A-Za-z0-9_-]{48}|shippo_(?:live|test)_[a-fA-F0-9]{40}"
        r"|tfp_[A-Za-z0-9_.=-]{59}|duffel_(?:live|test)_[A-Za-z0-9_=-]{43}"
        r"|[A-Za-z0-9]{6}_[A-Za-z0-9]{29}_mmk|CLOJARS_[A-Za-z0-9]{60}"
        r"|sk\.eyJ[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{20,}"
        # (v4) Artifactory reference token, ClickHouse, Defined Networking, Flutterwave,
        # Intra42, SettleMint, Sourcegraph, NuGet, base64 of a JWT, Authress.
        r"|cmVmd[A-Za-z0-9]{59}|4b1d[A-Za-z0-9]{38}|dnkey-[A-Za-z0-9=_-]{26}-[A-Za-z0-9=_-]{52}"
        r"|FLW(?:SECK|PUBK)_TEST-[A-Ha-h0-9]{12,32}(?:-X)?|s-s4t2(?:ud|af)-[a-fA-F0-9]{64}"
        r"|sm_[aps]at_[A-Za-z0-9]{16}|sgp_(?:[a-fA-F0-9]{16}_|local_)?[a-fA-F0-9]{40}"
        r"|oy2[a-z0-9]{43}|ZXlK[A-Za-z0-9+/_-]{40,}={0,2}"
        r"|(?:sc|ext|scauth|authress)_[A-Za-z0-9]{5,30}\.[a-z0-9]{4,6}\.acc[_-][a-z0-9-]{10,32}"
        r"\.[A-Za-z0-9+/_=-]{30,120})\b",
        (
            "p8e-",
            "LTAI",
            "AKCp",
            "v1.0-",
            "dt0c01.",
            "EZAK",
            "EZTK",
            "fo1_",
            "fm1",
            "fm2",
            "fio-u-",
            "ico-",
            "pnu_",
            "rdme_",
            "tk-us-",
            "shippo_",
            "tfp_",
            "duffel_",
            "_mmk",
            "CLOJARS_",
            "sk.eyJ",
            "cmVmd",
            "4b1d",
            "dnkey-",
            "FLWSECK_TEST-",
            "FLWPUBK_TEST-",
            "s-s4t2",
            "sm_aat_",
            "sm_pat_",
            "sm_sat_",
            "sgp_",
            "oy2",
            "ZXlK",
            ".acc",
        ),
    ),
    Rule(
        # (v4) Facebook page and app tokens: EAAC/EAAM and 100+ characters, or an
        # app id of 15-16 digits, a bar, and the app secret.
        "FACEBOOK_TOKEN",
        r"\bEAA[MC][A-Za-z0-9]{100,}|\b[0-9]{15,16}(?:\||%7[Cc])([0-9A-Za-z_-]{27,40})\b",
        ("EAAM", "EAAC", "|", "%7"),
    ),
    Rule(
        # (v4) Harness personal and service-account tokens.
        "HARNESS_TOKEN",
        r"\b(?:pat|sat)\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{20}\b",
        ("pat.", "sat."),
    ),
    Rule(
        # (v4) Octopus Deploy: API- and 26 capitals or digits (a digit among them).
        "OCTOPUS_KEY",
        r"\bAPI-[A-Z0-9]{26}\b",
        ("API-",),
        plausible=random_token,
    ),
    Rule(
        # (v4) Mailchimp: 32 hex digits and the data centre; Lob: live_/test_ keys.
        "MAILCHIMP_KEY",
        r"\b[a-f0-9]{32}-us[0-9]{1,2}\b",
        ("-us",),
    ),
    Rule(
        "LOB_KEY",
        r"\b(?:live|test)_(?:[a-f0-9]{35}|pub_[a-f0-9]{31})\b",
        ("live_", "test_"),
        plausible=random_token,
    ),
    Rule(
        # (v4) Sidekiq Enterprise/Pro credentials, in Bundler's variable or the gem URL.
        "SIDEKIQ_SECRET",
        r"\bBUNDLE_(?:ENTERPRISE|GEMS)__CONTRIBSYS__COM[ \t]*[=:][ \t]*[\"']?"
        r"([a-f0-9]{8}:[a-f0-9]{8})"
        r"|\bhttps?://([a-f0-9]{8}:[a-f0-9]{8})@(?:gems|enterprise)\.contribsys\.com",
        ("bundle_", "contribsys"),
        folded=True,
    ),
    Rule(
        # (v4) NuGet.Config: <add key="ClearTextPassword" value="..." />.
        "NUGET_CONFIG_PASSWORD",
        r"<add[ \t]+key=\"(?:[Cc]lear[Tt]ext)?[Pp]assword\"[ \t]+value=\"([^\"\n]{8,})\"",
        ("<add",),
    ),
    Rule(
        "TELEGRAM_BOT_TOKEN",
        r"\b(?:[0-9]{8,10}:[A-Za-z0-9_-]{35}|[0-9]{5,16}:A[A-Za-z0-9_-]{34})\b",
        tuple(f"{digit}:" for digit in range(10)),
    ),
    Rule(
        "JWT",
        r"\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}",
        ("eyJ",),
    ),
)


# ---------------------------------------------------------------------------
# Secrets known by the name they are assigned to (PROTOCOL §3 v4)
#
# Secrets known by the name they are assigned to, for `memtier.secrets` (PROTOCOL §3 v4).
#
# Most provider credentials have no prefix of their own: a Mailchimp key, a Kraken
# secret, a Twitter bearer token are just random characters. What gives them away
# is the line they stand on -- a name that holds a provider's name or a word such as
# ``key``, ``token``, ``secret``, ``auth``, ``access``, ``bearer``, ``client`` or
# ``pat``, an assignment (``=``, ``:``, ``:=``, ``=>``, ``?=``), and a value that
# reads as random. The public scanners' default lists describe this as one rule per
# provider plus a generic one; here it is one rule, `KEYED_SECRET`, whose regex
# finds the candidates and whose check in Python (`keyed_value_is_secret`) decides:
#
# - the **name** is the identifier the keyword stands in (``TWITTER_BEARER``,
#   ``adafruitIoKey``, ``"api-key"``) or, when it holds blanks, a short phrase whose
#   last word is a key word (``Twitter bearer token:``, never ``Access granted:``);
#   a provider's name or a key word must start one of its parts (``monkey``,
#   ``keyboard``, ``bypass`` are not names of secrets), and names of things that are
#   not secret -- ``public_key``, ``key_id``, ``api_version``, ``token_url``,
#   ``csrf_token``, ``next_page_token`` -- are left alone (`memtier.secrets_rules`);
# - the **value** must read as random: a letter and a digit, no blank, at least 10
#   characters (14 after a provider's name), a Shannon entropy of at least 3.5 bits
#   per character after a key word (3.0 after a provider's name, which is already a
#   strong hint), and none of the shapes of ordinary text: a placeholder
#   (``<your-key>``, ``xxxx``, ``example``), a path, a host name or a version
#   (lower-case with dots), a dotted version number, or words joined by hyphens
#   (``PROJ-12345-fix``).
#
# The rule is tried only where one of its keywords stands (`Rule.lead` is 0), so
# its long alternation costs nothing on the rest of a line.

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

# What follows the name: the rest of it, the operator, the value.
_KEYED_AFTER = (
    r"[A-Za-z0-9_. \t-]{0,30}[*\"'`]{0,2}[ \t]*(?:::=|:=|\?=|=>|[:=\uff1a])[*]{0,2}[ \t]*"
    r"[\"'`]?([A-Za-z0-9_.=+-][A-Za-z0-9_.=+/~%-]{9,199})"
)

KEYED: tuple[Rule, ...] = (
    Rule(
        "KEYED_SECRET",
        _KEYWORD_PATTERN + _KEYED_AFTER,
        tuple(_KEYWORDS),
        folded=True,
        plausible=keyed_value_is_secret,
        lead=0,
        after=_KEYED_AFTER,
    ),
)
