"""The realistic corpus (tests/secrets_corpus.py): every credential shape is redacted
before it reaches disk and found by health-check; every prose near-miss is kept
(PROTOCOL §3, §6; issue 19). ``bench/secrets`` prints the same corpus as a table."""

from __future__ import annotations

import re
from datetime import UTC
from pathlib import Path
from typing import Any

import pytest

from memtier.secrets import detect, redact, redact_folded
from tests.secrets_corpus import (
    GITLEAKS_EXAMPLES,
    GITLEAKS_NEAR_MISSES,
    GITLEAKS_NOT_APPLICABLE,
    NEAR_MISSES,
    SHAPES,
    Example,
    Shape,
)

# The rule ids of gitleaks' default rule list (config/gitleaks.toml), written out here
# so that the corpus is checked against the published list, not against itself.
_PUBLISHED_IDS = """
1password-secret-key 1password-service-account-token adafruit-api-key adobe-client-id
adobe-client-secret age-secret-key airtable-api-key algolia-api-key alibaba-access-key-id
alibaba-secret-key anthropic-admin-api-key anthropic-api-key artifactory-api-key
artifactory-reference-token asana-client-id asana-client-secret atlassian-api-token
authress-service-client-access-key aws-access-token azure-ad-client-secret beamer-api-token
bitbucket-client-id bitbucket-client-secret bittrex-access-key bittrex-secret-key
cisco-meraki-api-key clickhouse-cloud-api-secret-key clojars-api-token cloudflare-api-key
cloudflare-global-api-key cloudflare-origin-ca-key codecov-access-token cohere-api-token
coinbase-access-token confluent-access-token confluent-secret-key
contentful-delivery-api-token curl-auth-header curl-auth-user database-password
databricks-api-token datadog-access-token defined-networking-api-token
digitalocean-access-token digitalocean-pat digitalocean-refresh-token discord-api-token
discord-client-id discord-client-secret doppler-api-token droneci-access-token
dropbox-api-token dropbox-long-lived-api-token dropbox-short-lived-api-token
duffel-api-token dynatrace-api-token easypost-api-token easypost-test-api-token
etsy-access-token facebook-access-token facebook-page-access-token facebook-secret
fastly-api-token finicity-api-token finicity-client-secret finnhub-access-token
flickr-access-token flutterwave-encryption-key flutterwave-public-key
flutterwave-secret-key flyio-access-token frameio-api-token freemius-secret-key
freshbooks-access-token gcp-api-key generic-api-key github-app-token
github-fine-grained-pat github-oauth github-pat github-refresh-token gitlab-cicd-job-token
gitlab-deploy-token gitlab-feature-flag-client-token gitlab-feed-token
gitlab-incoming-mail-token gitlab-kubernetes-agent-token gitlab-oauth-app-secret gitlab-pat
gitlab-pat-routable gitlab-ptt gitlab-rrt gitlab-runner-authentication-token
gitlab-runner-authentication-token-routable gitlab-scim-token gitlab-session-cookie
gitter-access-token gocardless-api-token grafana-api-key grafana-cloud-api-token
grafana-service-account-token harness-api-key hashicorp-tf-api-token hashicorp-tf-password
heroku-api-key heroku-api-key-v2 hubspot-api-key huggingface-access-token
huggingface-organization-api-token infracost-api-token intercom-api-key
intra42-client-secret jfrog-api-key jfrog-identity-token jwt jwt-base64
kraken-access-token kubernetes-secret-yaml kucoin-access-token kucoin-secret-key
launchdarkly-access-token linear-api-key linear-client-secret linkedin-client-id
linkedin-client-secret lob-api-key lob-pub-api-key mailchimp-api-key
mailgun-private-api-token mailgun-pub-key mailgun-signing-key mapbox-api-token
mattermost-access-token maxmind-license-key messagebird-api-token messagebird-client-id
microsoft-teams-webhook netlify-access-token new-relic-browser-api-token
new-relic-insert-key new-relic-user-api-id new-relic-user-api-key notion-api-token
npm-access-token nuget-config-password nytimes-access-token octopus-deploy-api-key
okta-access-token openai-api-key openshift-user-token perplexity-api-key pkcs12-file
plaid-api-token plaid-client-id plaid-secret-key planetscale-api-token
planetscale-oauth-token planetscale-password postman-api-token prefect-api-token
private-key privateai-api-token pulumi-api-token pypi-upload-token rapidapi-access-token
readme-api-token rubygems-api-token scalingo-api-token sendbird-access-id
sendbird-access-token sendgrid-api-token sendinblue-api-token sentry-access-token
sentry-org-token sentry-user-token settlemint-application-access-token
settlemint-personal-access-token settlemint-service-access-token shippo-api-token
shopify-access-token shopify-custom-access-token shopify-private-app-access-token
shopify-shared-secret sidekiq-secret sidekiq-sensitive-url slack-app-token slack-bot-token
slack-config-access-token slack-config-refresh-token slack-legacy-bot-token
slack-legacy-token slack-legacy-workspace-token slack-user-token slack-webhook-url
snyk-api-token sonar-api-token sourcegraph-access-token square-access-token
squarespace-access-token stripe-access-token sumologic-access-id sumologic-access-token
telegram-bot-api-token travisci-access-token twilio-api-key twitch-api-token
twitter-access-secret twitter-access-token twitter-api-key twitter-api-secret
twitter-bearer-token typeform-api-token vault-batch-token vault-service-token
yandex-access-token yandex-api-key yandex-aws-access-token zendesk-secret-key
"""
GITLEAKS_DEFAULT_RULE_IDS = _PUBLISHED_IDS.split()


def _secret(shape: Shape) -> str:
    """The part that must vanish: given, else the longest word of the text."""
    return shape.secret or max(re.split(r"[\s\"']+", shape.text), key=len)


def test_every_default_rule_of_gitleaks_is_covered_or_set_aside_with_a_reason() -> None:
    covered = [example.rule_id for example in GITLEAKS_EXAMPLES]
    assert len(covered) == len(set(covered))
    assert set(covered).isdisjoint(GITLEAKS_NOT_APPLICABLE)
    assert set(covered) | set(GITLEAKS_NOT_APPLICABLE) == set(GITLEAKS_DEFAULT_RULE_IDS)
    assert all(len(why) > 40 for why in GITLEAKS_NOT_APPLICABLE.values())
    assert len(GITLEAKS_NEAR_MISSES) >= 40


@pytest.mark.parametrize("example", GITLEAKS_EXAMPLES, ids=lambda e: e.rule_id)
def test_each_applicable_gitleaks_rule_is_met_by_our_rules(example: Example) -> None:
    from memtier.secrets import RULE_NAMES

    shape = next(s for s in SHAPES if s.label == "gitleaks " + example.rule_id)
    assert example.rule in RULE_NAMES
    for result in (redact(example.text), redact_folded(example.text)):
        assert example.rule in result.counts, (example.rule_id, result.counts)
        assert _secret(shape) not in result.text


def test_the_corpus_is_large_enough() -> None:
    assert len(SHAPES) >= 60
    assert len(NEAR_MISSES) >= 40
    assert len({s.label for s in SHAPES}) == len(SHAPES)
    assert len({label for label, _ in NEAR_MISSES}) == len(NEAR_MISSES)


@pytest.mark.parametrize("shape", SHAPES, ids=[s.label for s in SHAPES])
def test_every_shape_is_redacted(shape: Shape) -> None:
    result = redact_folded(shape.text) if shape.folded else redact(shape.text)
    secret = _secret(shape)
    assert len(secret) >= 4
    assert result.counts, shape.label
    assert secret not in result.text, (shape.label, result.text)
    assert "[REDACTED:" in result.text


@pytest.mark.parametrize("shape", [s for s in SHAPES if not s.folded], ids=lambda s: s.label)
def test_every_unwrapped_shape_is_detected_where_it_stands(shape: Shape) -> None:
    # health-check's scan reads files as they are: the same rules must fire there.
    assert detect("# Notes\n\n- " + shape.text + "\n")


@pytest.mark.parametrize(("label", "text"), NEAR_MISSES, ids=[m[0] for m in NEAR_MISSES])
def test_every_near_miss_is_kept(label: str, text: str) -> None:
    assert redact(text).text == text, label
    assert redact_folded(text).counts == {}, label
    assert detect(text) == [], label


@pytest.mark.parametrize("engine", ["python", "ripgrep"])
def test_health_check_fails_on_every_shape(
    tmp_path: Path, engine: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The ``secrets`` check of health-check uses the very same rules (PROTOCOL §6),
    whether Python scans every note or ripgrep's prefilter picks them first."""
    from memtier.health import secrets_scan
    from memtier.workspace import Workspace

    if engine == "ripgrep":
        if secrets_scan._ripgrep() is None:
            pytest.skip("ripgrep not installed")
        monkeypatch.setattr(secrets_scan, "RG_MIN_NOTES", 1)

    note = tmp_path / "memory" / "episodic" / "2026-11-30.md"
    note.parent.mkdir(parents=True)
    shapes = [s for s in SHAPES if not s.folded]
    note.write_text("# 2026-11-30\n\n" + "\n".join(f"- {s.text}" for s in shapes) + "\n")
    (tmp_path / "memory" / "episodic" / "2026-11-29.md").write_text(
        "# 2026-11-29\n\n" + "\n".join(f"- {text}" for _, text in NEAR_MISSES) + "\n"
    )
    from datetime import datetime

    checks = _secrets_checks(Workspace(tmp_path, datetime(2026, 11, 30, tzinfo=UTC)))
    failed_lines = {c.message.split(" — ")[0] for c in checks if c.status == "fail"}
    expected = {f"memory/episodic/2026-11-30.md:{n}" for n in range(3, 3 + len(shapes))}
    assert failed_lines == expected


def test_the_written_keyword_pattern_is_the_one_the_keyword_list_gives() -> None:
    from memtier.secrets_rules import ci
    from memtier.secrets_tokens import _KEYWORD_PATTERN, _KEYWORDS, _trie

    assert ci(_trie(_KEYWORDS)) == _KEYWORD_PATTERN
    keyword = re.compile(_KEYWORD_PATTERN)
    assert all(keyword.fullmatch(word) and keyword.fullmatch(word.upper()) for word in _KEYWORDS)
    assert not keyword.fullmatch("monkey")


def _secrets_checks(ws: Any) -> list[Any]:
    """PROTOCOL §6 ``secrets`` on its own, as health-check runs it."""
    from memtier.health.secrets_scan import SecretsScan

    with SecretsScan(ws) as scan:
        return scan.finish()
