"""Real paths (memtier.workspace): a root resolved once, a path looked up once (PROTOCOL §3)."""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

import pytest

from memtier import secrets, workspace
from memtier.formats import buffer as buffer_format
from memtier.workspace import kernel_real_path, kernel_real_target, real_root, remember_root
from tests.conftest import CliRunner

needs_kernel = pytest.mark.skipif(
    not workspace.O_PATH or not os.path.isdir(workspace.FD_NAMES),
    reason="the kernel cannot name a looked-up path here",
)


@needs_kernel
def test_the_kernel_names_what_a_link_leads_to(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    (real / "f.md").write_text("x\n", encoding="utf-8")
    (tmp_path / "link").symlink_to(real)
    assert kernel_real_path(tmp_path / "link" / "f.md") == os.path.realpath(real / "f.md")
    assert kernel_real_path(tmp_path / "link", folder=True) == os.path.realpath(real)
    assert kernel_real_path(tmp_path / "link" / "f.md", folder=True) is None
    assert kernel_real_path(tmp_path / "missing") is None


@needs_kernel
def test_a_path_not_there_yet_is_its_folder_and_its_name(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    found = kernel_real_target(tmp_path / "link" / "new.md")
    assert found == os.path.join(os.path.realpath(tmp_path / "real"), "new.md")
    # A dangling link is for a walk to follow; so is a missing folder.
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere")
    assert kernel_real_target(tmp_path / "dangling") is None
    assert kernel_real_target(tmp_path / "none" / "new.md") is None


def test_a_root_is_resolved_when_it_opens_and_again_at_the_next_open(tmp_path: Path) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    second.mkdir()
    link = tmp_path / "root"
    link.symlink_to(first)
    assert remember_root(link) == os.path.realpath(first)
    link.unlink()
    link.symlink_to(second)
    assert real_root(link) == os.path.realpath(first)  # as resolved when it opened
    assert remember_root(link) == os.path.realpath(second)
    assert real_root(link) == os.path.realpath(second)


def _counting(
    monkeypatch: pytest.MonkeyPatch, module: object, name: str, holding: str = ""
) -> Counter[str]:
    """Calls of *module.name* (those whose first argument holds *holding*, if given)."""
    calls: Counter[str] = Counter()
    original = getattr(module, name)

    def counted(*args: object, **kwargs: object) -> object:
        if not holding or holding in str(args[0]):
            calls[name] += 1
        return original(*args, **kwargs)

    monkeypatch.setattr(module, name, counted)
    return calls


def test_a_buffer_note_resolves_parses_and_redacts_once(
    root: Path, cli: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue: a `buffer note` took 11 realpath calls, parsed the buffer twice and
    redacted its text twice. The path agents take (the script's entry) is counted."""
    cli("--root", str(root), "buffer", "note", "warm up")
    resolved = _counting(monkeypatch, os.path, "realpath")
    parsed = _counting(monkeypatch, buffer_format, "parse_buffer")
    # the note's text (a file name shown is checked for a credential too, §3 v4)
    redacted = _counting(monkeypatch, secrets, "redact", holding="apt.lan")
    from memtier.commands import lifecycle

    monkeypatch.setattr(lifecycle, "parse_buffer", buffer_format.parse_buffer)
    result = cli("--root", str(root), "buffer", "note", "the mirror is at apt.lan")
    assert result.exit_code == 0, result.stderr
    assert "the mirror is at apt.lan" in (root / "memory" / "working-buffer.md").read_text()
    assert resolved["realpath"] <= 2
    assert parsed["parse_buffer"] == 1
    assert redacted["redact"] == 1


def test_a_text_with_a_line_break_is_still_redacted_after_folding() -> None:
    """The second pass stays where folding changes the text (PROTOCOL §3 v2)."""
    folded = secrets.fold_line("password:\n  hunter2hunter2")
    assert "hunter2" not in folded.text


def test_a_name_the_system_refuses_is_left_for_the_walk_to_word(tmp_path: Path) -> None:
    """A name past NAME_MAX, or a path through a file: the lookup gives up (None) and
    confine's walk turns the system's refusal into an input error (exit 2)."""
    (tmp_path / "file").write_text("x\n", encoding="utf-8")
    assert kernel_real_target(tmp_path / ("x" * 5000)) is None
    assert kernel_real_target(tmp_path / "file" / "below.md") is None


def test_atomic_write_to_a_name_too_long_is_an_input_error(root: Path, cli: CliRunner) -> None:
    done = cli("--root", str(root), "atomic-write", "x" * 5000, input=b"text\n")
    assert done.exit_code == 2, done.stderr
