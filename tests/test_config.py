"""memory/memtier.toml: defaults, validation, and the exit code of a bad file."""

from __future__ import annotations

from pathlib import Path

import pytest

from memtier.config import DEFAULT_VOCABULARY, Config, load_config, parse_config
from memtier.errors import ConfigError
from memtier.results import field_names
from memtier.workspace import CONFIG_FILE
from tests.conftest import CliRunner

WHERE = Path("memory/memtier.toml")


def test_missing_file_means_protocol_defaults(tmp_path: Path) -> None:
    config = load_config(tmp_path, CONFIG_FILE)
    assert config == Config()
    assert (config.hot_max_lines, config.buffer_max_lines, config.buffer_max_active) == (60, 80, 3)
    assert (config.stale_hours, config.warm_max_age_days) == (2, 30)
    assert (config.episodic_ttl_days, config.learnings_ttl_days) == (30, 30)
    assert config.recurrence_threshold == 3
    assert len(DEFAULT_VOCABULARY) == 37 and "anti-patterns" in DEFAULT_VOCABULARY


def test_values_override_defaults() -> None:
    config = parse_config('hot_max_lines = 40\nvocabulary = ["a", "b"]\nstale_hours = 1.5\n', WHERE)
    assert config.hot_max_lines == 40
    assert config.vocabulary == ("a", "b")
    assert config.in_vocabulary("a") and not config.in_vocabulary("A")
    assert config.stale_hours == 1.5


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("colour = true\n", "colour"),
        ('hot_max_lines = "sixty"\n', "hot_max_lines"),
        ("hot_max_lines = true\n", "hot_max_lines"),
        ("hot_max_lines = 0\n", "hot_max_lines"),
        ('vocabulary = "docker"\n', "vocabulary"),
        ("vocabulary = [1, 2]\n", "vocabulary"),
        ("search_log = 1\n", "search_log"),
        ("recurrence_threshold = 1\n", "recurrence_threshold"),
    ],
)
def test_unknown_key_or_wrong_type_names_the_key(text: str, key: str) -> None:
    with pytest.raises(ConfigError, match=f"'{key}'") as caught:
        parse_config(text, WHERE)
    assert caught.value.exit_code == 2


def test_garbage_is_an_input_error() -> None:
    with pytest.raises(ConfigError, match="not valid TOML"):
        parse_config("this is = = not toml ][", WHERE)


def test_cli_reports_bad_config_with_exit_2(root: Path, cli: CliRunner) -> None:
    (root / "memory" / "memtier.toml").write_text("buffer_max_lines = 'lots'\n")
    result = cli("--root", str(root), "atomic-write", "x.md", input="hi\n")
    assert result.exit_code == 2
    assert result.stderr.startswith("memtier: error: ")
    assert "'buffer_max_lines'" in result.stderr
    assert result.stderr.count("\n") == 1
    assert not (root / "x.md").exists()


def test_non_utf8_config_is_an_input_error(root: Path, cli: CliRunner) -> None:
    (root / "memory" / "memtier.toml").write_bytes(b"hot_max_lines = \xff\n")
    result = cli("--root", str(root), "atomic-write", "x.md", input="hi\n")
    assert result.exit_code == 2
    assert "memtier.toml" in result.stderr and "Traceback" not in result.stderr


def test_the_template_init_writes_comments_every_key_with_its_default() -> None:
    import re

    from memtier.formats.templates import templates_dir

    text = (templates_dir() / WHERE).read_text(encoding="utf-8")
    # Uncomment each `# key = value` line and the `#   …` lines that continue it.
    settings = [
        line[2:]
        for line in text.splitlines()
        if re.match(r"# [a-z_]+ = ", line) or line.startswith("#   ")
    ]
    uncommented = "\n".join(settings) + "\n"
    assert parse_config(uncommented, WHERE) == Config()
    keys = {line.split(" =", 1)[0] for line in settings if not line.startswith("  ")}
    assert keys == set(field_names(Config()))
