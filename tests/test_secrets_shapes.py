"""The findings of issue 19 about redaction, one by one, with the exact output
(PROTOCOL §3 v2/v3). Secrets are glued from pieces so that this file holds none."""

from __future__ import annotations

import pytest

from memtier.secrets import Finding, detect, fold_line, redact, redact_folded, redact_wrapped

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


# One near-miss per rule: the rule's prefix or syntax in text that is not a secret
# (too short, prose, a template); every rule of the table has one here.
RULE_NEAR_MISSES: dict[str, str] = {
    "PRIVATE_KEY": "the file starts with a BEGIN PRIVATE KEY line, keep it out of notes",
    "ANTHROPIC_KEY": "keys start with sk-ant- and are long",
    "OPENAI_KEY": "we use sk-learn; sk-short is a stub",
    "STRIPE_KEY": "sk_live_ keys and whsec_short are Stripe's",
    "GITHUB_TOKEN": "ghp_ tokens; github_pat_ is the fine-grained kind",
    "GOOGLE_API_KEY": "AIza starts a Google API key",
    "GOOGLE_OAUTH": "GOCSPX-short and ya29.a0 and 1//0short",
    "AWS_ACCESS_KEY_ID": "AKIA is the prefix; AKIAshort",
    "AWS_SECRET_ACCESS_KEY": "aws_secret_access_key = <from the vault>",
    "AZURE_STORAGE_KEY": "AccountKey= goes last in the connection string",
    "AZURE_SAS": "a SAS URL ends with &sig=abc",
    "AZURE_AD_SECRET": "Q~ marks Azure client secrets",
    "SLACK_TOKEN": "xoxb- tokens and xapp- tokens",
    "SLACK_WEBHOOK": "https://hooks.slack.com/services/ needs three parts",
    "DISCORD_WEBHOOK": "https://discord.com/api/webhooks/ needs an id and a token",
    "DISCORD_BOT_TOKEN": "version MTIz.abc.def of the build",
    "TEAMS_WEBHOOK": "https://acme.webhook.office.com/webhookb2/short",
    "GITLAB_TOKEN": "glpat-short and gldt- and GR1348941 are GitLab's",
    "PYPI_TOKEN": "pypi-AgE starts an upload token",
    "TAILSCALE_KEY": "tskey-auth keys expire after 90 days",
    "DIGITALOCEAN_TOKEN": "dop_v1_abc is too short",
    "SHOPIFY_TOKEN": "shpat_xyz is too short",
    "SENDGRID_KEY": "SG.abc.def is too short",
    "SENDINBLUE_KEY": "xkeysib- starts a Brevo key",
    "TWILIO_API_KEY": "SKU12345 is not a key",
    "NPM_TOKEN": "npm_ tokens are 36 characters",
    "VAULT_TOKEN": "s.t. the vault is sealed; hvs.short",
    "TERRAFORM_TOKEN": "Terraform Cloud tokens hold .atlasv1. in the middle",
    "HUGGINGFACE_TOKEN": "hf_short and api_org_ are Hugging Face prefixes",
    "AGE_SECRET_KEY": "AGE-SECRET-KEY-1 starts an age identity",
    "SENTRY_TOKEN": "https://sentry.io/organizations/acme/issues/123/ and sntryu_",
    "MAILGUN_KEY": "a key-value store with key-based auth",
    "SQUARE_TOKEN": "the EAAA prefix and sq0csp- are Square's",
    "ATLASSIAN_TOKEN": "ATATT3 tokens are long",
    "GRAFANA_TOKEN": "glsa_ and glc_ are Grafana prefixes",
    "POSTMAN_KEY": "PMAK- keys belong to Postman",
    "DATABRICKS_TOKEN": "dapi123 is too short",
    "LINEAR_KEY": "lin_api_ is Linear's prefix",
    "NOTION_TOKEN": "secret_sauce and ntn_ are words here",
    "DOPPLER_TOKEN": "dp.pt. and dp.st. are Doppler prefixes",
    "ONEPASSWORD_TOKEN": "ops_eyJ starts a service account token; A3-XYZ is short",
    "DOCKERHUB_TOKEN": "dckr_pat_ starts a Docker Hub token",
    "SUPABASE_TOKEN": "sbp_ tokens are 40 hex digits",
    "PLANETSCALE_TOKEN": "pscale_tkn_ is the prefix",
    "PULUMI_TOKEN": "pul-abc is short",
    "RUBYGEMS_KEY": "rubygems_ starts a key",
    "NEWRELIC_KEY": "NRAK- starts a New Relic key",
    "HEROKU_KEY": "HRKU-AA starts a Heroku key",
    "OPENSHIFT_TOKEN": "sha256~ starts an OpenShift token",
    "PERPLEXITY_KEY": "pplx- starts a Perplexity key",
    "PROVIDER_TOKEN": "LTAI, AKCp and dt0c01. are prefixes; v1.0-rc1 shipped",
    "TELEGRAM_BOT_TOKEN": "meeting at 12:30, deadline 2024-01-01T10:20:30",
    "JWT": "eyJhbGciOiJIUzI1NiJ9 alone is only a header",
    "DATABASE_URL": "connect to postgres://user@host/db",
    "URL_PASSWORD": "see http://example.com/a:b@c for the syntax",
    "PASSWORD_HASH": "bcrypt hashes start with $2b$ and a cost",
    "NETRC_PASSWORD": "machine nas01 login works; pass" + "word prompt hangs",
    "PGPASS_LINE": "12:30:45:10:05 was the lap split",
    "DOCKER_AUTH": '"au' + 'th": "required"',
    "KUBECONFIG_KEY": "client-key-data is the base64 of the client key",
    "ETH_PRIVATE_KEY": "the private key: stored in the vault, never here",
    "BASIC_AUTH": "Basic authentication is off",
    "CLI_USER_PASSWORD": "curl -u deploy https://x.example.com asks for the password",
    "MYSQL_PASSWORD": "mysql -P 3306 -p app prompts for it",
    "CLI_PASSWORD": "sshpass -f ~/.pw ssh -p 2222 deploy@nas01",
    "PASSWORD_OPTION": "--password-file /etc/app/pw",
    "BEARER_TOKEN": "Authorization: Token required for the admin API",
    "PASSWORD_ASSIGNMENT": "All 3 test cases pass: 57.00, 46.00",
    # (v4)
    "FACEBOOK_TOKEN": "| 123456789012345 | page id | and EAAC starts a page token",
    "HARNESS_TOKEN": "pat. pending; sat. afternoon",
    "OCTOPUS_KEY": "API-FIRST is a design; API-Gateway-2 is down",
    "MAILCHIMP_KEY": "our Mailchimp account is on us20",
    "LOB_KEY": "live_reload and test_runner are options",
    "SIDEKIQ_SECRET": "BUNDLE_ENTERPRISE__CONTRIBSYS__COM must be set in CI",
    "NUGET_CONFIG_PASSWORD": '<add key="repositoryPath" value="packages" />',
    "KEYED_SECRET": "Access granted: user42-admin; jira_ticket = PROJ-12345-fix",
}


def test_every_rule_has_a_near_miss() -> None:
    from memtier.secrets import RULE_NAMES

    assert set(RULE_NEAR_MISSES) == set(RULE_NAMES)


@pytest.mark.parametrize(("rule", "text"), list(RULE_NEAR_MISSES.items()))
def test_the_near_miss_of_each_rule_is_kept(rule: str, text: str) -> None:
    assert redact(text).text == text, rule
    assert detect(text) == [], rule
