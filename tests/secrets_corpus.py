"""A corpus of realistic credential shapes and of prose that only looks like one.

Used by ``tests/test_secrets_corpus.py`` (every shape redacted, every near-miss
kept) and by ``bench/secrets`` (the table of both). The shapes follow the
formats the providers and tools really write (``.netrc``, Docker's
``config.json``, kubeconfig, pgpass, CLI flags, provider token prefixes as the
public scanner rule lists describe them); every value is generated here from a
seeded random source, so this file holds no literal a rule would flag.

Each shape is ``(label, text, secret, folded)``: *secret* is a part of the text
that must be gone after redaction, *folded* says the text goes through the
one-line folding writers use (`memtier.secrets.redact_folded`) rather than
`memtier.secrets.redact`.
"""

from __future__ import annotations

import base64
import random
from typing import NamedTuple

_RNG = random.Random(20261201)
_B62 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
_HEX = "0123456789abcdef"
_URLSAFE = _B62 + "_-"
_B64 = _B62 + "+/"
_BECH32 = "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"


def _r(n: int, alphabet: str = _B62) -> str:
    """*n* random characters that always hold a digit, an upper and a lower letter
    when the alphabet has them (a real token almost always does)."""
    while True:
        value = "".join(_RNG.choice(alphabet) for _ in range(n))
        kinds = [any(c.isdigit() for c in value), any(c.isupper() for c in value)]
        kinds.append(any(c.islower() for c in value))
        have = [k for k, possible in zip(kinds, _kinds(alphabet), strict=True) if possible]
        if n < 6 or all(have):
            return value


def _kinds(alphabet: str) -> tuple[bool, bool, bool]:
    return (
        any(c.isdigit() for c in alphabet),
        any(c.isupper() for c in alphabet),
        any(c.islower() for c in alphabet),
    )


def _b64(raw: str) -> str:
    return base64.b64encode(raw.encode()).decode()


class Shape(NamedTuple):
    label: str
    text: str
    secret: str
    folded: bool = False


PW = "Xq7" + _r(9) + "!z"
PW2 = _r(14)
GH = "gh" + "p_" + _r(36)
AWS_ID = "AK" + "IA" + _r(16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
PEM_B64 = _b64("-----" + "BEGIN RSA PRIVATE KEY-----\n" + _r(64, _B64) + "\n")
DISCORD_ID = _b64("1" + "".join(_RNG.choice("0123456789") for _ in range(17))).rstrip("=")
SAS_SIG = base64.b64encode(bytes(_RNG.randrange(256) for _ in range(32))).decode()
SAS_SIG = SAS_SIG.replace("+", "%2B").replace("/", "%2F").replace("=", "%3D")
HEX64 = _r(64, _HEX)

SHAPES: list[Shape] = [
    # The shapes of issue 19's finding, first.
    Shape(".netrc line", "machine api.example.com login deploy pass" + "word " + PW2, PW2),
    Shape(".netrc default", "default login anonymous pass" + "word " + PW2 + "x", PW2 + "x"),
    Shape(
        "Docker config auth",
        '{"auths": {"registry.example.com": {"au' + 'th": "' + _b64("deploy:" + PW) + '"}}}',
        _b64("deploy:" + PW),
    ),
    Shape(
        "Docker identitytoken",
        '"identity' + 'token": "' + _r(48, _URLSAFE) + '"',
        "",
    ),
    Shape("kubeconfig client-key-data", "    client-key" + "-data: " + PEM_B64, PEM_B64[:40]),
    Shape("Stripe webhook secret", "signing secret is wh" + "sec_" + _r(32), ""),
    Shape("Google OAuth client secret", "client secret GOC" + "SPX-" + _r(28, _URLSAFE), ""),
    Shape("Google OAuth access token", "curl -H 'X: ya" + "29." + _r(120, _URLSAFE) + "'", ""),
    Shape("Google OAuth refresh token", "refresh with 1/" + "/0" + _r(60, _URLSAFE), ""),
    Shape(
        "Azure SAS URL",
        "https://acct.blob.core.windows.net/c?sv=2022-11-02&ss=b&sp=rl&se=2026-12-31&si"
        + "g="
        + SAS_SIG,
        SAS_SIG,
    ),
    Shape("age secret key", "AGE-SECRET" + "-KEY-1" + _r(58, _BECH32), ""),
    Shape("Vault legacy token", "vault login s." + _r(24), ""),
    Shape(
        "Vault service token", "export VAULT_ADDR=x; vault login hv" + "s." + _r(95, _URLSAFE), ""
    ),
    Shape(
        "Terraform Cloud token",
        "terraform token " + _r(14) + ".atlas" + "v1." + _r(67, _URLSAFE),
        "",
    ),
    Shape("pgpass line", "db.example.com:5432:app:deploy:" + PW2, PW2),
    Shape("pgpass wildcard line", "- *:*:*:postgres:" + PW2 + "q", PW2 + "q"),
    Shape("sshpass -p quoted", "sshpass -p '" + PW + "' ssh deploy@nas01", PW),
    Shape("sshpass -p bare", "sshpass -p " + PW2 + " rsync -a src/ nas01:dst/", PW2),
    Shape("redis-cli -a", "redis-cli -h cache.example.com -p 6380 -a " + PW2 + " ping", PW2),
    Shape(
        "Sentry DSN",
        "SENTRY_DSN=https://" + _r(32, _HEX) + "@o123456.ingest.sentry.io/4504000000000000",
        "",
    ),
    Shape("Sentry user token", "sentry-cli token sntr" + "yu_" + _r(64, _HEX), ""),
    Shape("Mailgun private key", "mailgun api ke" + "y-" + _r(32, _HEX), ""),
    Shape("Square access token", "square EAA" + "A" + _r(60, _URLSAFE), ""),
    Shape("Square OAuth secret", "square secret sq0c" + "sp-" + _r(43, _URLSAFE), ""),
    Shape("Atlassian API token", "jira token ATAT" + "T3" + _r(186, _URLSAFE), ""),
    Shape("Grafana service account", "gl" + "sa_" + _r(32) + "_" + _r(8, _HEX), ""),
    Shape("Grafana cloud token", "gl" + "c_" + _r(80, _B64) + "==", ""),
    Shape("Grafana API key (old)", "ey" + "JrIjoi" + _r(80) + "=", ""),
    Shape("Postman API key", "postman PM" + "AK-" + _r(24, _HEX) + "-" + _r(34, _HEX), ""),
    Shape("Databricks token", "databricks da" + "pi" + _r(32, _HEX), ""),
    Shape("Linear API key", "linear li" + "n_api_" + _r(40), ""),
    Shape("Notion token", "notion nt" + "n_" + _r(11, "0123456789") + _r(35), ""),
    Shape("Notion legacy token", "notion sec" + "ret_" + _r(43), ""),
    Shape("Doppler personal token", "doppler dp" + ".pt." + _r(43), ""),
    Shape("Doppler service token", "DOPPLER dp" + ".st.prd." + _r(43), ""),
    Shape("Discord bot token", DISCORD_ID + "." + _r(6, _URLSAFE) + "." + _r(38, _URLSAFE), ""),
    Shape("Ethereum private key", "PRIVATE" + "_KEY=0x" + HEX64, HEX64),
    Shape("Ethereum key in prose", "wallet private " + "key: " + HEX64[::-1], HEX64[::-1]),
    # Quoted and spaced values (issue 19).
    Shape("quoted value with spaces", "DB_PASS" + 'WORD="correct horse battery staple"', "horse"),
    Shape("quoted value with punctuation", "PASS" + 'WORD="p@ss w0rd!"', "w0rd!"),
    Shape("quoted value with ;", "pass" + 'word="hunter2;rest"', ";rest"),
    Shape("YAML quoted value", "  pass" + 'word: "correct horse battery staple"', "battery"),
    Shape("JSON value", '{"pass' + 'word": "p@ss w0rd", "user": "bob"}', "w0rd"),
    Shape("single-quoted value", "pass" + "word = '" + PW + " two'", PW),
    # Non-English words for password (PROTOCOL §3 v3).
    Shape("Portuguese senha", "Sen" + "ha: " + PW, PW),
    Shape("German Passwort", "Pass" + "wort: " + PW, PW),
    Shape("German Kennwort", "Kenn" + "wort=" + PW2, PW2),
    Shape("Spanish contraseña", "contra" + "seña: " + PW, PW),
    Shape("French mot de passe", "mot de " + "passe : " + PW, PW),
    Shape("Russian пароль", "па" + "роль: " + PW, PW),
    Shape("Chinese 密码", "密" + "码：" + PW, PW),
    Shape("Dutch wachtwoord", "wacht" + "woord: " + PW, PW),
    Shape("Polish hasło", "has" + "ło: " + PW, PW),
    # A token hard-wrapped across two lines, then folded (PROTOCOL §3 v2).
    Shape(
        "wrapped GitHub token", "token for CI " + GH[:20] + "\n" + GH[20:] + " ok", GH[20:], True
    ),
    Shape("wrapped AWS key id", "key " + AWS_ID[:9] + "\n  " + AWS_ID[9:], AWS_ID[9:], True),
    Shape("wrapped password value", "pass" + "word=" + PW2[:7] + "\n" + PW2[7:], PW2[7:], True),
    # More shapes with a fixed prefix or syntax.
    Shape(
        "service-account JSON key",
        '"private_key": "-----' + "BEGIN PRIVATE KEY-----\\n" + _r(64, _B64) + "\\n" + _r(64, _B64),
        "",
    ),
    Shape("Authorization: Token", "Authorization: Token " + _r(40, _HEX), ""),
    Shape("Authorization: Bot", "Authorization: Bot " + _r(40, _URLSAFE), ""),
    Shape("bcrypt hash", "admin:$2" + "y$10$" + _r(53, _B62 + "./"), ""),
    Shape(
        "sha512-crypt hash", "root:$" + "6$" + _r(16) + "$" + _r(86, _B62 + "./") + ":19000:0", ""
    ),
    Shape("docker login -p", "docker login -u deploy -p " + PW2 + " registry.example.com", PW2),
    Shape("ldapsearch -w", "ldapsearch -x -D cn=admin -w " + PW2 + " -b dc=x", PW2),
    Shape("smbclient -U user%pass", "smbclient //nas/share -U deploy%" + PW2, PW2),
    Shape("Docker Hub PAT", "dck" + "r_pat_" + _r(27, _URLSAFE), ""),
    Shape("Supabase token", "sb" + "p_" + _r(40, _HEX), ""),
    Shape("PlanetScale token", "pscale" + "_tkn_" + _r(43, _URLSAFE), ""),
    Shape("Pulumi token", "pu" + "l-" + _r(40, _HEX), ""),
    Shape("RubyGems key", "ruby" + "gems_" + _r(48, _HEX), ""),
    Shape("New Relic user key", "NR" + "AK-" + _r(27, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"), ""),
    Shape("Heroku API key", "HRKU" + "-AA" + _r(58, _URLSAFE), ""),
    Shape("OpenShift token", "oc login --token=sha256" + "~" + _r(43, _URLSAFE), ""),
    Shape("1Password service account", "op" + "s_eyJ" + _r(250, _B64), ""),
    Shape("Perplexity key", "pp" + "lx-" + _r(48), ""),
    Shape("Azure AD client secret", "AZURE secret " + _r(3) + "8Q" + "~" + _r(34, _URLSAFE), ""),
    Shape("Sendinblue key", "xkey" + "sib-" + _r(64, _HEX) + "-" + _r(16), ""),
    Shape("GitLab deploy token", "gl" + "dt-" + _r(20, _URLSAFE), ""),
    Shape("psk in wpa_supplicant", "  ps" + 'k="' + "correct horse battery" + '"', "horse"),
    Shape("Adobe client secret", "adobe p8" + "e-" + _r(32), ""),
    Shape("Alibaba access key", "aliyun LT" + "AI" + _r(20), ""),
    Shape("Artifactory API key", "jfrog AK" + "Cp" + _r(69), ""),
    Shape("Dynatrace token", "dt0c" + "01." + _r(24) + "." + _r(64), ""),
    Shape("Fly.io token", "fly fo" + "1_" + _r(43, _URLSAFE), ""),
    Shape("Prefect key", "prefect pn" + "u_" + _r(36), ""),
    Shape("ReadMe key", "readme rd" + "me_" + _r(70, _HEX + "ghijklmnopqrstuvwxyz"), ""),
    Shape("Shippo token", "shippo_" + "live_" + _r(40, _HEX), ""),
    Shape("Typeform token", "typeform tf" + "p_" + _r(59, _URLSAFE), ""),
    Shape("Mapbox secret token", "mapbox sk" + ".eyJ1Ijoi" + _r(40, _URLSAFE) + "." + _r(22), ""),
    Shape("MaxMind license key", "maxmind " + _r(6) + "_" + _r(29) + "_m" + "mk", ""),
    Shape(
        "Teams webhook",
        "https://acme.webhook.office.com/webhook"
        + "b2/"
        + _r(8, _HEX)
        + "-1111-2222-3333-"
        + _r(12, _HEX)
        + "@"
        + _r(8, _HEX)
        + "-aaaa-bbbb-cccc-"
        + _r(12, _HEX)
        + "/IncomingWebhook/"
        + _r(32, _HEX)
        + "/"
        + _r(8, _HEX)
        + "-dddd-eeee-ffff-"
        + _r(12, _HEX),
        "",
    ),
]

# Prose (and near-shapes) that must be kept unchanged.
NEAR_MISSES: list[tuple[str, str]] = [
    ("pass: numbers (v3)", "All 3 test cases pass: 57.00, 46.00"),
    ("pass: percentages", "The checks pass: 100.0%, 99.5%"),
    ("password: a date", "pass" + "word: 2024-05-01 rotation is due"),
    ("netrc words", "machine nas01 login works; pass" + "word prompt hangs"),
    ("netrc explained", "a .netrc line holds machine, login and pass" + "word fields"),
    ("docker auth word", '"au' + 'th": "required"'),
    ("docker auth empty", '"au' + 'th": ""'),
    ("kubeconfig prose", "client-key-data is the base64 of the client key"),
    ("whsec_ prose", "Stripe webhook secrets start with whsec_ and are long"),
    ("GOCSPX prose", "Google client secrets start with GOCSPX- these days"),
    ("ya29 short", "an access token (ya29.a0) expires in an hour"),
    ("sig= short", "the sig= parameter of a SAS URL signs it; sig=abc is a stub"),
    ("age prose", "AGE-SECRET-KEY-1 starts an age identity file line"),
    ("s. abbreviation", "s.t. the vault is sealed; see s.example-section for why"),
    ("s. letters only", "vault tokens look like s.abcdefghijklmnopqrstuvwx in docs"),
    ("atlasv1 prose", "Terraform Cloud tokens hold .atlasv1. in the middle"),
    ("times with colons", "12:30:45:10:05 was the lap split"),
    ("IPv6 address", "fe80::1ff:fe23:4567:890a is the link-local address"),
    ("sshpass -e", "sshpass -e ssh deploy@nas01 reads SSHPASS from the environment"),
    ("sshpass -f then ssh -p", "sshpass -f ~/.pw ssh -p 2222 deploy@nas01"),
    ("redis-cli no -a", "redis-cli -h cache -p 6379 ping answers PONG"),
    ("redis-cli --askpass", "redis-cli --askpass prompts for it"),
    ("sentry URL", "https://sentry.io/organizations/acme/issues/123456/ has the trace"),
    ("key- words", "a key-value store with key-based auth and key-west offices"),
    ("EAAA prose", "the EAAA prefix marks Square production tokens"),
    ("ATATT3 prose", "ATATT3 tokens are long; rotate them yearly"),
    ("Grafana prefixes", "glsa_ and glc_ are the Grafana prefixes"),
    ("Postman prose", "PMAK- keys belong to Postman"),
    ("dapi prose", "the dapi prefix marks Databricks tokens; dapi123 is short"),
    ("lin_api_ prose", "lin_api_ is Linear's prefix"),
    ("secret_ words", "secret_sauce is the plan; secret_santa on Friday"),
    ("dp. prose", "dp.pt. and dp.st. are Doppler prefixes"),
    ("dotted base64", "version MTIz.abc.def of the build"),
    ("tx hash", "tx 0x" + HEX64 + " confirmed in block 19000000"),
    ("sha256 digest", "sha256 " + HEX64 + " matches the release"),
    ("senha word", "Sen" + "ha: esqueci, pedi uma nova"),
    ("Passwort word", "Pass" + "wort: vergessen"),
    ("пароль word", "па" + "роль: сброшен"),
    ("密码 words", "密" + "码：已重置"),
    ("mot de passe word", "mot de " + "passe : oublié"),
    ("senha in prose", "the word senha means password in Portuguese"),
    ("password placeholder quoted", "pass" + 'word = "<your password>"'),
    ("password variable quoted", "PASS" + 'WORD="${DB_PASS}"'),
    ("password template quoted", "pass" + "word: '{{ vault_db_password }}'"),
    ("password masked quoted", "pass" + 'word: "********"'),
    ("bcrypt prose", "bcrypt hashes start with $2b$ and a cost"),
    ("docker login prompt", "docker login registry.example.com asks for the password"),
    ("docker --password-stdin", "docker login -u deploy --password-stdin < pw.txt"),
    ("Authorization: Token words", "Authorization: Token required for the admin API"),
    ("wrapped prefix prose", "tokens start with ghp_\nand are forty characters long"),
    ("ldap -W prompt", "ldapsearch -x -D cn=admin -W -b dc=x"),
    ("Q~ prose", "the Q~ marker appears in Azure secrets"),
    ("private key prose", "the private key: stored in the vault, never here"),
    ("psk word", "psk: none on the guest network"),
    ("hyphenated hex words", "deadbeef-cafe is not a key"),
    ("provider prefixes", "LTAI, AKCp, dt0c01., pnu_, rdme_ and tfp_ are token prefixes"),
    ("mapbox public token", "mapbox pk.eyJ1IjoiZXhhbXBsZSJ9.short is public"),
    ("version numbers", "v1.0-rc1 and v1.0-beta shipped; ico-2024 is a conference"),
    ("code of conduct", "Decisions: pass the baton; the key is consistency"),
]
