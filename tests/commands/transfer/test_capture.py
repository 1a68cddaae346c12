"""`memtier capture`: the memory-brain plugin's rules, configurable (PROTOCOL §12)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memtier.commands.transfer.capture import capture, strip_trigger
from memtier.config import parse_config
from memtier.errors import ConfigError
from memtier.workspace import Workspace
from tests.conftest import NOW, CliRunner


def _buffer(root: Path) -> str:
    return (root / "memory/working-buffer.md").read_text()


@pytest.mark.parametrize(
    ("message", "kept_text"),
    [
        ("Remember this: nas01 runs Ubuntu 24.04", "nas01 runs Ubuntu 24.04"),
        ("Merke dir: der NAS steht im Keller", "der NAS steht im Keller"),
        ("Bitte notiere, dass das Backup um 3 Uhr läuft", "Bitte dass das Backup um 3 Uhr läuft"),
        ("keep this — the VPN port is 51820", "the VPN port is 51820"),
    ],
)
def test_an_explicit_trigger_keeps_the_message_without_the_phrase(
    ws: Workspace, root: Path, message: str, kept_text: str
) -> None:
    result = capture(ws, message)
    assert result.kept and result.score >= 0.4
    assert f"- {kept_text} #captured\n" in _buffer(root)


def test_a_topic_word_alone_is_not_enough_but_with_length_it_is(ws: Workspace) -> None:
    short = capture(ws, "the decision is still open for now")
    assert not short.kept and short.score == 0.2
    long_text = (
        "After a long call the decision is that the media stack stays on docker01 "
        "and the old VM is switched off next week"
    )
    kept = capture(ws, long_text)
    assert kept.kept
    assert [p.rule for p in kept.parts] == ["topic", "long"]
    assert kept.score == 0.4


def test_too_short_and_plain_chatter_are_not_kept(ws: Workspace, root: Path) -> None:
    before = _buffer(root)
    assert capture(ws, "remember this").reason.startswith("too short")
    chatter = capture(ws, "thanks, that looks fine to me")
    assert not chatter.kept and chatter.parts == ()
    assert _buffer(root) == before


def test_structured_message_scores_its_part(ws: Workspace) -> None:
    result = capture(ws, "Entscheidung:\n- Postgres bleibt auf nas01\n- Backups nachts")
    assert {p.rule for p in result.parts} == {"topic", "structured"}
    assert result.kept


def test_the_kept_note_is_redacted(ws: Workspace, root: Path) -> None:
    result = capture(ws, "remember this: the wiki password=Sup3rSecretValue9 for admin")
    assert result.kept and result.redacted == {"PASSWORD_ASSIGNMENT": 1}
    assert "Sup3rSecretValue9" not in _buffer(root)


def test_triggers_topics_and_thresholds_come_from_memtier_toml(root: Path) -> None:
    (root / "memory/memtier.toml").write_text(
        'capture_triggers = ["Hold on to this"]\ncapture_min_chars = 5\ncapture_keep_score = 0.6\n'
    )
    ws = Workspace.open(root, NOW)
    assert ws.config.capture_triggers == ("hold on to this",)
    assert not capture(ws, "remember this: x is y").kept  # default trigger replaced
    assert not capture(ws, "hold on to this: x is y").kept  # 0.4 + 0.2 structured < 0.6?
    assert capture(ws, "hold on to this:\n- a\n- b").kept


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("capture_triggers = [1]\n", "capture_triggers"),
        ('capture_topics = [""]\n', "capture_topics"),
        ("capture_min_chars = 0\n", "capture_min_chars"),
        ("capture_keep_score = 1.5\n", "capture_keep_score"),
        ("capture_long_chars = true\n", "capture_long_chars"),
    ],
)
def test_bad_capture_settings_name_the_key(text: str, key: str) -> None:
    with pytest.raises(ConfigError, match=key):
        parse_config(text, Path("memory/memtier.toml"))


def test_strip_trigger_keeps_text_before_the_phrase() -> None:
    assert strip_trigger("ok, remember this: a b", "remember this") == "ok a b"


def test_cli_explain_and_json(cli: CliRunner, root: Path) -> None:
    done = cli("--root", str(root), "capture", "--explain", "remember this: nas01 is 10.0.0.5")
    assert done.exit_code == 0
    assert "+0.4 explicit: trigger phrase 'remember this'" in done.stdout
    assert "score 0.4" in done.stdout
    skipped = cli("--root", str(root), "capture", "--json", "hello there, how are you")
    assert skipped.exit_code == 0
    payload = json.loads(skipped.stdout)
    assert payload["kept"] is False and payload["line"] is None


def test_cli_reads_stdin_and_labels_the_channel(cli: CliRunner, root: Path) -> None:
    done = cli(
        "--root", str(root), "capture", "--channel", "matrix", "-", input="merke dir: Router 04:00"
    )
    assert done.exit_code == 0, done.stderr
    assert "- [matrix] Router 04:00 #captured\n" in _buffer(root)
