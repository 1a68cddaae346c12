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
import re
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


# ---------------------------------------------------------------------------
# The default rule list of gitleaks (PROTOCOL §3 v4), one realistic line per rule
# that applies to text an agent writes; the value is generated in the rule's
# published shape (prefix, alphabet, length). Each is (rule id, our rule, text,
# secret part); the secret part "" means the longest word of the text.

_LOWER36 = "abcdefghijklmnopqrstuvwxyz0123456789"
_UPPER36 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
_AH = "abcdefgh0123456789"


def _uuid(upper: bool = False) -> str:
    value = "-".join(_r(n, _HEX) for n in (8, 4, 4, 4, 12))
    return value.upper() if upper else value


class Example(NamedTuple):
    rule_id: str
    rule: str
    text: str
    secret: str = ""


_K = "KEYED_SECRET"
CONFLUENT_ID = _r(16, _UPPER36)
TF_PW = _r(16, _LOWER36)
_PA = "PASSWORD_ASSIGNMENT"

GITLEAKS_EXAMPLES: list[Example] = [
    Example(
        "1password-secret-key",
        "ONEPASSWORD_TOKEN",
        "emergency kit: A"
        + "3-"
        + _r(6, _UPPER36)
        + "-"
        + _r(11, _UPPER36)
        + "-"
        + _r(5, _UPPER36)
        + "-"
        + _r(5, _UPPER36)
        + "-"
        + _r(5, _UPPER36),
    ),
    Example(
        "1password-service-account-token",
        "ONEPASSWORD_TOKEN",
        "OP_SERVICE_ACCOUNT" + "_TOKEN=ops" + "_eyJ" + _r(260, _B64),
    ),
    Example("adafruit-api-key", _K, "ADAFRUIT_IO_KEY=" + _r(32, _LOWER36 + "_")),
    Example("adobe-client-secret", "PROVIDER_TOKEN", "adobe secret p8" + "e-" + _r(32)),
    Example("age-secret-key", "AGE_SECRET_KEY", "AGE-SECRET" + "-KEY-1" + _r(58, _BECH32)),
    Example("airtable-api-key", _K, "airtable_key: " + _r(17)),
    Example("algolia-api-key", _K, 'algoliaAdminKey = "' + _r(32, _LOWER36) + '"'),
    Example("alibaba-access-key-id", "PROVIDER_TOKEN", "aliyun id LT" + "AI" + _r(20)),
    Example("alibaba-secret-key", _PA, "ALIBABA_CLOUD_ACCESS_KEY_SECRET=" + _r(30)),
    Example(
        "anthropic-admin-api-key",
        "ANTHROPIC_KEY",
        "admin key sk-" + "ant-admin01-" + _r(93, _URLSAFE) + "AA",
    ),
    Example("anthropic-api-key", "ANTHROPIC_KEY", "sk-" + "ant-api03-" + _r(93, _URLSAFE) + "AA"),
    Example("artifactory-api-key", "PROVIDER_TOKEN", "jfrog AK" + "Cp" + _r(69)),
    Example("artifactory-reference-token", "PROVIDER_TOKEN", "ref token cmV" + "md" + _r(59)),
    Example("asana-client-secret", _PA, "ASANA_CLIENT_SECRET=" + _r(32, _LOWER36)),
    Example("atlassian-api-token", _K, "jira_cloud = " + _r(20, _LOWER36) + _r(4, _HEX)),
    Example(
        "authress-service-client-access-key",
        "PROVIDER_TOKEN",
        "authress "
        + "sc"
        + "_"
        + _r(12, _LOWER36)
        + "."
        + _r(5, _LOWER36)
        + ".ac"
        + "c_"
        + _r(20, _LOWER36)
        + "."
        + _r(60, _B64),
    ),
    Example(
        "aws-access-token",
        "AWS_ACCESS_KEY_ID",
        "aws id AB" + "IA" + _r(16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"),
    ),
    Example(
        "azure-ad-client-secret",
        "AZURE_AD_SECRET",
        "AZURE_CLIENT_SECRET=" + _r(3) + "8Q" + "~" + _r(34, _URLSAFE),
    ),
    Example("beamer-api-token", _K, "beamer = b_" + _r(44, _URLSAFE)),
    Example("bitbucket-client-secret", _PA, "bitbucket_oauth_secret: " + _r(64, _URLSAFE)),
    Example("bittrex-access-key", _K, "bittrex.access = " + _r(32, _LOWER36)),
    Example("bittrex-secret-key", _PA, "BITTREX_SECRET=" + _r(32, _LOWER36)),
    Example("cisco-meraki-api-key", _K, "MERAKI_DASHBOARD = " + _r(40, _HEX)),
    Example("clickhouse-cloud-api-secret-key", "PROVIDER_TOKEN", "clickhouse 4b" + "1d" + _r(38)),
    Example("clojars-api-token", "PROVIDER_TOKEN", "CLOJARS" + "_" + _r(60, _LOWER36)),
    Example("cloudflare-api-key", _PA, "CLOUDFLARE_API_KEY=" + _r(40, _URLSAFE)),
    Example("cloudflare-global-api-key", _K, "cloudflare_global: " + _r(37, _HEX)),
    Example(
        "cloudflare-origin-ca-key",
        "PROVIDER_TOKEN",
        "origin ca v1" + ".0-" + _r(24, _HEX) + "-" + _r(146, _HEX),
    ),
    Example("codecov-access-token", _K, "CODECOV_UPLOAD=" + _r(32, _LOWER36)),
    Example("cohere-api-token", _K, "cohere = '" + _r(40) + "'"),
    Example("coinbase-access-token", _K, "coinbase: " + _r(64, _URLSAFE)),
    Example("confluent-access-token", _K, "confluent_cluster_key = " + CONFLUENT_ID, CONFLUENT_ID),
    Example("confluent-secret-key", _PA, "CONFLUENT_SECRET=" + _r(64, _LOWER36)),
    Example("contentful-delivery-api-token", _K, "contentful_delivery = " + _r(43, _URLSAFE)),
    Example(
        "curl-auth-header",
        "BEARER_TOKEN",
        "curl -H 'Authorization: Bearer " + _r(40, _URLSAFE) + "' https://api.example.com",
    ),
    Example(
        "curl-auth-user",
        "CLI_USER_PASSWORD",
        "curl -u deploy:" + PW2 + " https://ci.example.com/api",
        PW2,
    ),
    Example("database-password", _PA, "DB_PASS" + "WORD=" + PW2, PW2),
    Example("databricks-api-token", "DATABRICKS_TOKEN", "databricks da" + "pi" + _r(32, _HEX)),
    Example("datadog-access-token", _K, "DATADOG_APP=" + _r(40, _LOWER36)),
    Example(
        "defined-networking-api-token",
        "PROVIDER_TOKEN",
        "dnkey: dnk" + "ey-" + _r(26, _LOWER36) + "-" + _r(52, _LOWER36),
    ),
    Example("digitalocean-access-token", "DIGITALOCEAN_TOKEN", "do" + "o_v1_" + _r(64, _HEX)),
    Example("digitalocean-pat", "DIGITALOCEAN_TOKEN", "do" + "p_v1_" + _r(64, _HEX)),
    Example("digitalocean-refresh-token", "DIGITALOCEAN_TOKEN", "do" + "r_v1_" + _r(64, _HEX)),
    Example("discord-api-token", _K, "discord_bot = " + _r(64, _HEX)),
    Example("discord-client-secret", _PA, "DISCORD_CLIENT_SECRET=" + _r(32, _URLSAFE)),
    Example("doppler-api-token", "DOPPLER_TOKEN", "doppler dp" + ".pt." + _r(43)),
    Example("droneci-access-token", _PA, "DRONECI_SERVER_TOKEN=" + _r(32, _LOWER36)),
    Example("dropbox-api-token", _K, "dropbox_app = " + _r(15, _LOWER36)),
    Example(
        "dropbox-long-lived-api-token",
        _K,
        "dropbox: " + _r(11, _LOWER36) + "AAAA" + "AAAAAA" + _r(43, _URLSAFE),
    ),
    Example("dropbox-short-lived-api-token", _K, "dropbox = sl." + _r(135, _URLSAFE)),
    Example("duffel-api-token", "PROVIDER_TOKEN", "duffel" + "_live_" + _r(43, _URLSAFE)),
    Example("dynatrace-api-token", "PROVIDER_TOKEN", "dt0c" + "01." + _r(24) + "." + _r(64)),
    Example("easypost-api-token", "PROVIDER_TOKEN", "EZ" + "AK" + _r(54)),
    Example("easypost-test-api-token", "PROVIDER_TOKEN", "EZ" + "TK" + _r(54)),
    Example("etsy-access-token", _K, "ETSY_SHOP=" + _r(24, _LOWER36)),
    Example(
        "facebook-access-token",
        "FACEBOOK_TOKEN",
        "graph app token "
        + "".join(_RNG.choice("0123456789") for _ in range(15))
        + "|"
        + _r(32, _URLSAFE),
    ),
    Example("facebook-page-access-token", "FACEBOOK_TOKEN", "page token EA" + "AC" + _r(120)),
    Example("facebook-secret", _PA, "FACEBOOK_APP_SECRET=" + _r(32, _HEX)),
    Example("fastly-api-token", _K, "fastly: " + _r(32, _URLSAFE)),
    Example("finicity-api-token", _K, "finicity_app = " + _r(32, _HEX)),
    Example("finicity-client-secret", _PA, "FINICITY_CLIENT_SECRET=" + _r(20, _LOWER36)),
    Example("finnhub-access-token", _K, "finnhub = " + _r(20, _LOWER36)),
    Example("flickr-access-token", _K, "flickr: " + _r(32, _LOWER36)),
    Example("flutterwave-encryption-key", "PROVIDER_TOKEN", "FLWSECK" + "_TEST-" + _r(12, _AH)),
    Example("flutterwave-public-key", "PROVIDER_TOKEN", "FLWPUBK" + "_TEST-" + _r(32, _AH) + "-X"),
    Example("flutterwave-secret-key", "PROVIDER_TOKEN", "FLWSECK" + "_TEST-" + _r(32, _AH) + "-X"),
    Example("flyio-access-token", "PROVIDER_TOKEN", "fly fm" + "2_" + _r(120, _B64)),
    Example("frameio-api-token", "PROVIDER_TOKEN", "frame.io fio" + "-u-" + _r(64, _URLSAFE)),
    Example("freemius-secret-key", _PA, "'secret" + "_key' => 'sk" + "_" + _r(29) + "',", ""),
    Example("freshbooks-access-token", _K, "FRESHBOOKS=" + _r(64, _LOWER36)),
    Example("gcp-api-key", "GOOGLE_API_KEY", "maps AI" + "za" + _r(35, _URLSAFE)),
    Example("generic-api-key", _K, "client_" + 'key = "' + _r(32) + '"'),
    Example("github-app-token", "GITHUB_TOKEN", "gh" + "s_" + _r(36)),
    Example("github-fine-grained-pat", "GITHUB_TOKEN", "github" + "_pat_" + _r(82, _B62 + "_")),
    Example("github-oauth", "GITHUB_TOKEN", "gh" + "o_" + _r(36)),
    Example("github-pat", "GITHUB_TOKEN", "gh" + "p_" + _r(36)),
    Example("github-refresh-token", "GITHUB_TOKEN", "gh" + "r_" + _r(36)),
    Example(
        "gitlab-cicd-job-token", "GITLAB_TOKEN", "glcb" + "t-" + _r(4) + "_" + _r(20, _URLSAFE)
    ),
    Example("gitlab-deploy-token", "GITLAB_TOKEN", "gld" + "t-" + _r(20, _URLSAFE)),
    Example("gitlab-feature-flag-client-token", "GITLAB_TOKEN", "glff" + "ct-" + _r(20, _URLSAFE)),
    Example("gitlab-feed-token", "GITLAB_TOKEN", "glf" + "t-" + _r(20, _URLSAFE)),
    Example("gitlab-incoming-mail-token", "GITLAB_TOKEN", "glim" + "t-" + _r(25, _URLSAFE)),
    Example("gitlab-kubernetes-agent-token", "GITLAB_TOKEN", "glag" + "ent-" + _r(50, _URLSAFE)),
    Example("gitlab-oauth-app-secret", "GITLAB_TOKEN", "glo" + "as-" + _r(64, _URLSAFE)),
    Example("gitlab-pat", "GITLAB_TOKEN", "glp" + "at-" + _r(20, _URLSAFE)),
    Example(
        "gitlab-pat-routable",
        "GITLAB_TOKEN",
        "glp" + "at-" + _r(36, _URLSAFE) + "." + _r(9, _LOWER36),
    ),
    Example("gitlab-ptt", "GITLAB_TOKEN", "glpt" + "t-" + _r(40, _HEX)),
    Example("gitlab-rrt", "GITLAB_TOKEN", "GR134" + "8941" + _r(20, _URLSAFE)),
    Example("gitlab-runner-authentication-token", "GITLAB_TOKEN", "glr" + "t-" + _r(20, _URLSAFE)),
    Example(
        "gitlab-runner-authentication-token-routable",
        "GITLAB_TOKEN",
        "glr" + "t-t1_" + _r(30, _URLSAFE) + "." + _r(9, _LOWER36),
    ),
    Example("gitlab-scim-token", "GITLAB_TOKEN", "glso" + "at-" + _r(20, _URLSAFE)),
    Example(
        "gitlab-session-cookie", "GITLAB_TOKEN", "Cookie: _gitlab" + "_session=" + _r(32, _LOWER36)
    ),
    Example("gitter-access-token", _K, "GITTER=" + _r(40, _LOWER36 + "_-")),
    Example("gocardless-api-token", _K, "gocardless = live_" + _r(40, _URLSAFE)),
    Example("grafana-api-key", "GRAFANA_TOKEN", "ey" + "JrIjoi" + _r(80) + "="),
    Example("grafana-cloud-api-token", "GRAFANA_TOKEN", "gl" + "c_" + _r(80, _B64) + "=="),
    Example(
        "grafana-service-account-token", "GRAFANA_TOKEN", "gl" + "sa_" + _r(32) + "_" + _r(8, _HEX)
    ),
    Example(
        "harness-api-key",
        "HARNESS_TOKEN",
        "harness pa" + "t." + _r(22, _URLSAFE) + "." + _r(24) + "." + _r(20),
    ),
    Example(
        "hashicorp-tf-api-token",
        "TERRAFORM_TOKEN",
        "tfc " + _r(14) + ".atlas" + "v1." + _r(67, _URLSAFE),
    ),
    Example(
        "hashicorp-tf-password", _PA, "administrator_login_pass" + 'word = "' + TF_PW + '"', TF_PW
    ),
    Example("heroku-api-key", _K, "HEROKU_API=" + _uuid()),
    Example("heroku-api-key-v2", "HEROKU_KEY", "HRKU" + "-AA" + _r(58, _URLSAFE)),
    Example("hubspot-api-key", _K, "hubspot: " + _uuid(upper=True)),
    Example("huggingface-access-token", "HUGGINGFACE_TOKEN", "h" + "f_" + _r(34, _B62[:52])),
    Example(
        "huggingface-organization-api-token",
        "HUGGINGFACE_TOKEN",
        "api" + "_org_" + _r(34, _B62[:52]),
    ),
    Example("infracost-api-token", "PROVIDER_TOKEN", "infracost ic" + "o-" + _r(32)),
    Example("intercom-api-key", _K, "INTERCOM_ACCESS=" + _r(60, _URLSAFE)),
    Example("intra42-client-secret", "PROVIDER_TOKEN", "intra s-s4" + "t2ud-" + _r(64, _HEX)),
    Example("jfrog-api-key", _K, "artifactory = " + _r(73, _LOWER36)),
    Example("jfrog-identity-token", _K, "JFROG_IDENTITY=" + _r(64, _LOWER36)),
    Example(
        "jwt",
        "JWT",
        "ey" + "J" + _r(30, _URLSAFE) + ".ey" + "J" + _r(40, _URLSAFE) + "." + _r(43, _URLSAFE),
    ),
    Example("jwt-base64", "PROVIDER_TOKEN", "encoded ZX" + "lKaGJHY2lPaU" + _r(80, _B64)),
    Example("kraken-access-token", _K, "kraken_private = " + _r(86, _B64 + "=_-")),
    Example("kucoin-access-token", _K, "kucoin_key = " + _r(24, _HEX)),
    Example("kucoin-secret-key", _K, "kucoin: " + _uuid()),
    Example("launchdarkly-access-token", _K, "LAUNCHDARKLY_SDK=" + _r(40, _URLSAFE)),
    Example("linear-api-key", "LINEAR_KEY", "linear li" + "n_api_" + _r(40)),
    Example("linear-client-secret", _PA, "LINEAR_CLIENT_SECRET=" + _r(32, _HEX)),
    Example("linkedin-client-secret", _PA, "linkedin_client_secret: " + _r(16, _LOWER36)),
    Example("lob-api-key", "LOB_KEY", "lob live" + "_" + _r(35, _HEX)),
    Example("lob-pub-api-key", "LOB_KEY", "lob test" + "_pub_" + _r(31, _HEX)),
    Example("mailchimp-api-key", "MAILCHIMP_KEY", "MAILCHIMP=" + _r(32, _HEX) + "-us" + "20"),
    Example("mailgun-private-api-token", "MAILGUN_KEY", "mailgun ke" + "y-" + _r(32, _HEX)),
    Example("mailgun-pub-key", "MAILGUN_KEY", "mailgun pubke" + "y-" + _r(32, _HEX)),
    Example(
        "mailgun-signing-key",
        _K,
        "MAILGUN_WEBHOOK_SIGNING=" + _r(32, _AH) + "-" + _r(8, _AH) + "-" + _r(8, _AH),
    ),
    Example("mapbox-api-token", _K, "mapbox = pk." + _r(60) + "." + _r(22)),
    Example("mattermost-access-token", _K, "mattermost: " + _r(26, _LOWER36)),
    Example(
        "maxmind-license-key", "PROVIDER_TOKEN", "maxmind " + _r(6) + "_" + _r(29) + "_m" + "mk"
    ),
    Example("messagebird-api-token", _K, "MESSAGEBIRD=" + _r(25, _LOWER36)),
    Example(
        "microsoft-teams-webhook",
        "TEAMS_WEBHOOK",
        next(s.text for s in SHAPES if s.label == "Teams webhook"),
    ),
    Example("netlify-access-token", _K, "NETLIFY_AUTH=" + _r(43, _URLSAFE)),
    Example("new-relic-browser-api-token", "NEWRELIC_KEY", "newrelic NR" + "JS-" + _r(19, _HEX)),
    Example("new-relic-insert-key", "NEWRELIC_KEY", "newrelic NR" + "II-" + _r(32, _URLSAFE)),
    Example("new-relic-user-api-key", "NEWRELIC_KEY", "newrelic NR" + "AK-" + _r(27, _UPPER36)),
    Example("notion-api-token", "NOTION_TOKEN", "notion nt" + "n_" + _r(11, "0123456789") + _r(35)),
    Example("npm-access-token", "NPM_TOKEN", "//registry.npmjs.org/:_authToken=np" + "m_" + _r(36)),
    Example(
        "nuget-config-password",
        "NUGET_CONFIG_PASSWORD",
        '<add key="ClearTextPass' + 'word" value="' + PW2 + '" />',
        PW2,
    ),
    Example("nytimes-access-token", _K, "NYTIMES=" + _r(32, _URLSAFE)),
    Example("octopus-deploy-api-key", "OCTOPUS_KEY", "octopus AP" + "I-" + _r(26, _UPPER36)),
    Example("okta-access-token", _K, "okta = 00" + _r(40, _URLSAFE)),
    Example(
        "openai-api-key",
        "OPENAI_KEY",
        "sk-" + "proj-" + _r(74, _URLSAFE) + "T3Blbk" + "FJ" + _r(74, _URLSAFE),
    ),
    Example(
        "openshift-user-token",
        "OPENSHIFT_TOKEN",
        "oc login --token=sha256" + "~" + _r(43, _URLSAFE),
    ),
    Example("perplexity-api-key", "PERPLEXITY_KEY", "pp" + "lx-" + _r(48)),
    Example("plaid-api-token", _K, "PLAID_ITEM = access-sandbox-" + _uuid()),
    Example("plaid-secret-key", _PA, "plaid_secret: " + _r(30, _LOWER36)),
    Example("planetscale-api-token", "PLANETSCALE_TOKEN", "pscale" + "_tkn_" + _r(43, _URLSAFE)),
    Example(
        "planetscale-oauth-token", "PLANETSCALE_TOKEN", "pscale" + "_oauth_" + _r(43, _URLSAFE)
    ),
    Example("planetscale-password", "PLANETSCALE_TOKEN", "pscale" + "_pw_" + _r(43, _URLSAFE)),
    Example("postman-api-token", "POSTMAN_KEY", "PM" + "AK-" + _r(24, _HEX) + "-" + _r(34, _HEX)),
    Example("prefect-api-token", "PROVIDER_TOKEN", "prefect pn" + "u_" + _r(36)),
    Example(
        "private-key",
        "PRIVATE_KEY",
        # (one line, as JSON holds it; the END line is left out so that this line
        # does not close the unclosed key of "service-account JSON key" above)
        '"key": "-----BEGIN '
        + "EC PRIVATE KEY-----\\n"
        + _r(64, _B64)
        + "\\n"
        + _r(64, _B64)
        + '\\n"',
        "",
    ),
    Example("privateai-api-token", _K, "PRIVATE_AI = " + _r(32, _LOWER36)),
    Example("pulumi-api-token", "PULUMI_TOKEN", "pu" + "l-" + _r(40, _HEX)),
    Example("pypi-upload-token", "PYPI_TOKEN", "pypi" + "-AgEIcHlwaS5vcmc" + _r(60, _URLSAFE)),
    Example("rapidapi-access-token", _PA, "X-RapidAPI-Host-Secret: " + _r(50, _URLSAFE)),
    Example("readme-api-token", "PROVIDER_TOKEN", "readme rd" + "me_" + _r(70, _LOWER36)),
    Example("rubygems-api-token", "RUBYGEMS_KEY", "ruby" + "gems_" + _r(48, _HEX)),
    Example("scalingo-api-token", "PROVIDER_TOKEN", "scalingo tk" + "-us-" + _r(48, _URLSAFE)),
    Example("sendbird-access-token", _K, "SENDBIRD_API=" + _r(40, _HEX)),
    Example(
        "sendgrid-api-token", "SENDGRID_KEY", "S" + "G." + _r(22, _URLSAFE) + "." + _r(43, _URLSAFE)
    ),
    Example(
        "sendinblue-api-token", "SENDINBLUE_KEY", "xkey" + "sib-" + _r(64, _HEX) + "-" + _r(16)
    ),
    Example("sentry-access-token", _K, "SENTRY_AUTH=" + _r(64, _HEX)),
    Example(
        "sentry-org-token",
        "SENTRY_TOKEN",
        "sntr"
        + "ys_eyJpYXQiO"
        + _r(40, _B64)
        + "LCJyZWdpb25fdXJs"
        + _r(40, _B64)
        + "_"
        + _r(43, _B64),
    ),
    Example("sentry-user-token", "SENTRY_TOKEN", "sntr" + "yu_" + _r(64, _HEX)),
    Example("settlemint-application-access-token", "PROVIDER_TOKEN", "sm" + "_aat_" + _r(16)),
    Example("settlemint-personal-access-token", "PROVIDER_TOKEN", "sm" + "_pat_" + _r(16)),
    Example("settlemint-service-access-token", "PROVIDER_TOKEN", "sm" + "_sat_" + _r(16)),
    Example("shippo-api-token", "PROVIDER_TOKEN", "shippo" + "_test_" + _r(40, _HEX)),
    Example("shopify-access-token", "SHOPIFY_TOKEN", "shp" + "at_" + _r(32, _HEX)),
    Example("shopify-custom-access-token", "SHOPIFY_TOKEN", "shp" + "ca_" + _r(32, _HEX)),
    Example("shopify-private-app-access-token", "SHOPIFY_TOKEN", "shp" + "pa_" + _r(32, _HEX)),
    Example("shopify-shared-secret", "SHOPIFY_TOKEN", "shp" + "ss_" + _r(32, _HEX)),
    Example(
        "sidekiq-secret",
        "SIDEKIQ_SECRET",
        "BUNDLE_ENTERPRISE__CONTRIBSYS" + "__COM=" + _r(8, _HEX) + ":" + _r(8, _HEX),
        "",
    ),
    Example(
        "sidekiq-sensitive-url",
        "SIDEKIQ_SECRET",
        "source https://" + _r(8, _HEX) + ":" + _r(8, _HEX) + "@gems.contribsys.com/",
        "",
    ),
    Example(
        "slack-app-token",
        "SLACK_TOKEN",
        "xap"
        + "p-1-A"
        + _r(10, _UPPER36)
        + "-"
        + "".join(_RNG.choice("0123456789") for _ in range(13))
        + "-"
        + _r(64, _LOWER36),
    ),
    Example(
        "slack-bot-token",
        "SLACK_TOKEN",
        "xox"
        + "b-"
        + "".join(_RNG.choice("0123456789") for _ in range(12))
        + "-"
        + "".join(_RNG.choice("0123456789") for _ in range(13))
        + "-"
        + _r(24),
    ),
    Example("slack-config-access-token", "SLACK_TOKEN", "xoxe.xo" + "xp-1-" + _r(164, _UPPER36)),
    Example("slack-config-refresh-token", "SLACK_TOKEN", "xox" + "e-1-" + _r(146, _UPPER36)),
    Example(
        "slack-legacy-bot-token",
        "SLACK_TOKEN",
        "xox" + "b-" + "".join(_RNG.choice("0123456789") for _ in range(10)) + "-" + _r(24),
    ),
    Example(
        "slack-legacy-token",
        "SLACK_TOKEN",
        "xox" + "s-" + "1234567890-1234567890-1234567890-" + _r(40, _HEX),
    ),
    Example("slack-legacy-workspace-token", "SLACK_TOKEN", "xox" + "r-" + _r(40)),
    Example(
        "slack-user-token",
        "SLACK_TOKEN",
        "xox"
        + "p-"
        + "-".join("".join(_RNG.choice("0123456789") for _ in range(12)) for _ in range(3))
        + "-"
        + _r(32),
    ),
    Example(
        "slack-webhook-url",
        "SLACK_WEBHOOK",
        "hooks.slack.com"
        + "/services/T"
        + _r(10, _UPPER36)
        + "/B"
        + _r(10, _UPPER36)
        + "/"
        + _r(24),
    ),
    Example("snyk-api-token", _K, "SNYK_TOKEN_V2 = " + _uuid()),
    Example("sonar-api-token", _K, "sonar.login=" + _r(40, _LOWER36)),
    Example(
        "sourcegraph-access-token",
        "PROVIDER_TOKEN",
        "src sg" + "p_" + _r(16, _HEX) + "_" + _r(40, _HEX),
    ),
    Example("square-access-token", "SQUARE_TOKEN", "square EAA" + "A" + _r(60, _URLSAFE)),
    Example("squarespace-access-token", _K, "squarespace: " + _uuid()),
    Example("stripe-access-token", "STRIPE_KEY", "sk" + "_live_" + _r(24)),
    Example("sumologic-access-token", _K, "SUMO_ACCESS=" + _r(64)),
    Example(
        "telegram-bot-api-token",
        "TELEGRAM_BOT_TOKEN",
        "telegram bot "
        + "".join(_RNG.choice("0123456789") for _ in range(9))
        + ":A"
        + _r(34, _URLSAFE),
    ),
    Example("travisci-access-token", _K, "TRAVIS_CI = " + _r(22, _LOWER36)),
    Example("twilio-api-key", "TWILIO_API_KEY", "twilio S" + "K" + _r(32, _HEX)),
    Example("twitch-api-token", _K, "twitch_oauth = " + _r(30, _LOWER36)),
    Example("twitter-access-secret", _PA, "TWITTER_ACCESS_SECRET=" + _r(45)),
    Example(
        "twitter-access-token",
        _K,
        "twitter_access = " + "".join(_RNG.choice("0123456789") for _ in range(19)) + "-" + _r(30),
    ),
    Example("twitter-api-key", _K, "TWITTER_CONSUMER=" + _r(25)),
    Example("twitter-api-secret", _PA, "twitter_consumer_secret: " + _r(50)),
    Example("twitter-bearer-token", _K, "TWITTER_BEARER=" + "A" * 22 + _r(90)),
    Example("typeform-api-token", "PROVIDER_TOKEN", "typeform tf" + "p_" + _r(59, _URLSAFE)),
    Example("vault-batch-token", "VAULT_TOKEN", "vault hv" + "b." + _r(140, _URLSAFE)),
    Example("vault-service-token", "VAULT_TOKEN", "vault hv" + "s." + _r(95, _URLSAFE)),
    Example("yandex-access-token", _K, "yandex = t1." + _r(20, _URLSAFE) + "." + _r(86, _URLSAFE)),
    Example("yandex-api-key", _K, "YANDEX_CLOUD = AQVN" + _r(36, _URLSAFE)),
    Example("yandex-aws-access-token", _K, "yandex_static = YC" + _r(38, _URLSAFE)),
    Example("zendesk-secret-key", _K, "ZENDESK=" + _r(40, _LOWER36)),
]

# The rules of the list that do not apply to what an agent writes in its memory, and why.
_ID_NOT_SECRET = (
    "an identifier, not a credential: it names an application or an account and opens "
    "nothing without the secret beside it (whose rule applies); an agent notes such ids "
    "as facts, and hiding them would lose information"
)
GITLEAKS_NOT_APPLICABLE: dict[str, str] = {
    "adobe-client-id": _ID_NOT_SECRET,
    "asana-client-id": _ID_NOT_SECRET + "; sixteen digits read like any number",
    "bitbucket-client-id": _ID_NOT_SECRET,
    "discord-client-id": _ID_NOT_SECRET + "; eighteen digits are any Discord id (a channel)",
    "linkedin-client-id": _ID_NOT_SECRET,
    "messagebird-client-id": _ID_NOT_SECRET,
    "new-relic-user-api-id": _ID_NOT_SECRET,
    "plaid-client-id": _ID_NOT_SECRET,
    "sendbird-access-id": _ID_NOT_SECRET + " (the application id)",
    "sumologic-access-id": _ID_NOT_SECRET + " (the access key's id)",
    "kubernetes-secret-yaml": (
        "a rule on a whole YAML manifest file (kind: Secret ... data:), spanning many lines; "
        "memory files are markdown, and the values such a manifest holds under names like "
        "password, token or key are caught by the assignment rules wherever they stand"
    ),
    "pkcs12-file": (
        "a rule on a file's name (*.p12, *.pfx), not on text: memtier writes markdown only, "
        "and a private key written as text is caught by the private-key rule"
    ),
}

# Every rule id of the default list, as published (gitleaks' config/gitleaks.toml).
GITLEAKS_RULE_IDS: tuple[str, ...] = tuple(
    sorted({example.rule_id for example in GITLEAKS_EXAMPLES} | set(GITLEAKS_NOT_APPLICABLE))
)


def _assigned(example: Example) -> str:
    """The part that must vanish: given, else for an assignment its value, else ""
    (the longest word of the text)."""
    if example.secret or example.rule not in (_K, _PA):
        return example.secret
    return [part for part in re.split(r"[\s\"'=]+", example.text) if part][-1].rstrip(",")


SHAPES += [Shape("gitleaks " + e.rule_id, e.text, _assigned(e)) for e in GITLEAKS_EXAMPLES]

# Look-alikes of the rules above (v4) that are not secrets and must be kept.
SHA40 = _r(40, _HEX)
UUID = _uuid()
GITLEAKS_NEAR_MISSES: list[tuple[str, str]] = [
    ("UUID in prose", "request id " + UUID + " failed at 10:32"),
    ("UUID as an id", "session_id: " + _uuid()),
    ("git SHA", "fixed in commit " + SHA40 + " on main"),
    ("git SHA assigned", "commit: " + SHA40),
    ("short SHA", "rev=" + SHA40[:12]),
    ("placeholder key", "API_KEY=<your-key>"),
    ("placeholder angle token", "token: <paste the token here>"),
    ("placeholder variable", "client_secret = ${CLIENT_SECRET}"),
    ("placeholder template", "auth_token: {{ secrets.AUTH_TOKEN }}"),
    ("placeholder xxx", "ADAFRUIT_IO_KEY=xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"),
    ("placeholder example value", "client_key = example-key-1234567890abcdef"),
    ("placeholder your", "MAILCHIMP_KEY=your_mailchimp_key_here_123"),
    ("prose about tokens", "the token expired, so I asked for a new one on Monday"),
    ("prose token colon words", "Token budget: about four thousand per call"),
    ("prose key colon", "Key takeaway: deploy v2 only after the 3 checks pass"),
    ("prose access granted", "Access granted: user42-admin after the review"),
    ("prose secret colon", "The secret: consistent naming and small commits"),
    ("short value", "client_key=abc123"),
    ("words value", "auth: oauth2-pkce-flow"),
    ("version value", "client: firefox-128.0.3 on linux"),
    ("chrome version", "user agent client = chrome-126.0.6478.127"),
    ("api version", "api_version: 2024-05-01T10"),
    ("token url", "token_url = https://auth.example.com/oauth2/token"),
    ("key id", "key_id: 8c5c2a7e-1d2f-4b8e-9a41-1f2e3d4c5b6a"),
    ("public key", "public_key = ssh-ed25519-AAAAC3NzaC1lZDI1NTE5AAAA"),
    ("primary key", "primary_key: order_id_2024"),
    ("keyboard", "keyboard = us-intl-altgr-dead2"),
    ("monkey", "monkey = chimp-9000-experiment"),
    ("key file", "ssh_key_file: keys/prod/server-2024.pem"),
    ("key path", "TLS_KEY=/etc/ssl/private/server2024.key"),
    ("host name", "access: db01.internal.example.net"),
    ("csrf token", "csrf_token = Qm9vdHN0cmFwMTIzNDU2Nzg5MA"),
    ("pagination token", "next_page_token: CiAKGjBpNDd2Nmp2Zml2cXRwYjBpOXA"),
    ("jira ticket", "jira_ticket = PROJ-12345-fix"),
    ("linear model", "linear_model: LinearRegression2024"),
    ("camel words", "tokenizer = BertTokenizerFast2"),
    ("prefix words pat", "the path pattern: src/**/*.py"),
    ("prefix words sm_", "sm_pat_ and sm_aat_ are SettleMint prefixes"),
    ("prefix words sgp_", "Sourcegraph tokens start with sgp_ and are long"),
    ("prefix words API-", "the API-first design; API-Gateway-2 is down"),
    ("prefix words EAAC", "EAAC and EAAM start Facebook tokens"),
    ("prefix words FLWSECK", "FLWSECK_TEST- keys are Flutterwave test keys"),
    ("prefix words cmVmd", "cmVmdG is base64 for ref"),
    ("prefix words oy2", "oy2 is how NuGet keys start"),
    ("pat. prose", "pat. pending; sat. afternoon meeting"),
    ("telegram time", "12345:Alpha team meets at 10"),
    ("Facebook id table", "| 123456789012345 | page id |"),
    ("Mailchimp data centre", "our Mailchimp account is on us20"),
    ("lob prose", "live_reload and test_runner are options"),
    ("sidekiq prose", "BUNDLE_ENTERPRISE__CONTRIBSYS__COM must be set in CI"),
    ("nuget prose", '<add key="repositoryPath" value="packages" />'),
    ("AWS documented example", "aws key id AKIA" + "IOSFODNN7EXAMPLE from the docs"),
    ("kubernetes prose", "kind: Secret holds data: entries in base64"),
    ("bearer word", "Bearer authentication is handled by the gateway"),
    ("client number", "client: 42 requests per second"),
    ("cache key", "cache_key: user-profile-v2-2024"),
    ("hotkey", "the hotkey: Ctrl+Shift+P opens the palette"),
    ("api URL", "api: https://api.github.com/repos/acme/app"),
    ("client version words", "client: Thunderbird 115.3.1 on nas01"),
    ("token limit", "max_tokens = 4096; token_limit: 128000"),
    ("idempotency key", "idempotency_key: order-2024-11-30-0001"),
    ("secret reference", "api_key_env: OPENAI_API_KEY; secret_ref: vault://kv/prod/db"),
    ("provider channel", "discord: #ops channel, id 112233445566778899"),
    ("provider ticket", "jira: OPS-1423 tracks the migration"),
    ("provider app name", "heroku app: acme-staging-eu-2024"),
    ("model key size", "attention_key_dim=64 and key_size=128"),
]

NEAR_MISSES += GITLEAKS_NEAR_MISSES
