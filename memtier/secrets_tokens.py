"""Provider tokens with a fixed prefix or shape, for `memtier.secrets` (PROTOCOL §3).

Prefixes and lengths are those the providers publish and the public scanner rule
lists (gitleaks, detect-secrets, trufflehog) describe; the rules are this
project's own. Ordered from most to least specific (see `memtier.secrets_rules`).
"""

from __future__ import annotations

import re

from memtier.secrets_rules import ASSIGN, Rule, ci, random_token


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
