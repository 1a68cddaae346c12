"""`memtier tags --add T`: the vocabulary in memtier.toml grows, comments kept."""

from __future__ import annotations

from pathlib import Path

import pytest

from memtier.commands.tags import add_tags
from memtier.config import DEFAULT_VOCABULARY, add_vocabulary_text, load_config
from memtier.errors import InputError
from memtier.workspace import CONFIG_FILE, Workspace
from tests.conftest import CliRunner


def test_template_file_gets_a_vocabulary_with_its_comments_kept(ws: Workspace) -> None:
    before = ws.config_file.read_text(encoding="utf-8")
    result = add_tags(ws, ["nginx", "restic"])
    after = ws.config_file.read_text(encoding="utf-8")
    assert result.added == ("nginx", "restic")
    for line in before.splitlines():
        assert line in after.splitlines()
    assert load_config(ws.root, CONFIG_FILE).vocabulary == (*DEFAULT_VOCABULARY, "nginx", "restic")
    again = add_tags(Workspace.open(ws.root, ws.now), ["nginx"])
    assert again.added == () and again.present == ("nginx",)
    assert ws.config_file.read_text(encoding="utf-8") == after


@pytest.mark.parametrize(
    "text",
    [
        'vocabulary = ["a", "b"]\nhot_max_lines = 50\n',
        'vocabulary = [\n  "a",  # first\n  "b", # with ] in a comment\n]\n',
        "vocabulary = []\n",
        "# only a comment\n",
        "",
    ],
)
def test_add_vocabulary_text_keeps_every_line(text: str) -> None:
    import tomllib

    current = tuple(tomllib.loads(text).get("vocabulary", DEFAULT_VOCABULARY))
    result = add_vocabulary_text(text, current, ("nginx",))
    assert tomllib.loads(result)["vocabulary"] == [*current, "nginx"]
    for line in text.splitlines():
        if "vocabulary" not in line and line.strip() not in ("]", '"b", # with ] in a comment'):
            assert line in result


def test_a_tag_with_a_separator_is_refused(ws: Workspace) -> None:
    with pytest.raises(InputError):
        add_tags(ws, ["two words"])
    with pytest.raises(InputError):
        add_tags(ws, ['quo"te'])


def test_cli_tags_add_then_remember_with_it(cli: CliRunner, root: Path) -> None:
    refused = cli("--root", str(root), "remember", "x y", "--kind", "howto:web", "--tag", "nginx")
    assert refused.exit_code == 2
    added = cli("--root", str(root), "tags", "--add", "nginx")
    assert added.exit_code == 0 and "added nginx" in added.stdout
    done = cli("--root", str(root), "remember", "reload: nginx -s reload", "--kind",
               "howto:web", "--tag", "nginx")  # fmt: skip
    assert done.exit_code == 0, done.stderr
    assert cli("--root", str(root), "health-check").exit_code == 0
