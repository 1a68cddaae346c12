"""importers.files: a memtier export put back at its paths (PROTOCOL §12)."""

from __future__ import annotations

from memtier.commands.transfer.importers.files import (
    apply_files,
    is_untouched_template,
    tier_of_path,
)
from memtier.formats.envelope import ExportedFile
from memtier.formats.routing import Invalid
from memtier.workspace import Workspace

WARM_NOTE = "# Docker\n#tags: docker\n> last_verified: 2026-11-30\n\n- runs on b\n"


def _reasons(ws: Workspace, *files: ExportedFile, dry_run: bool = False) -> list[str | None]:
    outcomes, _ = apply_files(ws, list(files), [], dry_run=dry_run)
    return [o.reason for o in outcomes]


def test_tier_of_path() -> None:
    assert tier_of_path("memory/memtier.toml") == "config"
    assert tier_of_path("MEMORY.md") == "hot"
    assert tier_of_path("elsewhere/x.md") is None


def test_a_fresh_template_is_replaced_but_an_edited_file_is_kept(ws: Workspace) -> None:
    rel = "memory/semantic/infrastructure.md"
    assert is_untouched_template(ws, rel, (ws.root / rel).read_text())
    exported = ExportedFile(rel, "warm", WARM_NOTE.replace("Docker", "Infra"))
    assert _reasons(ws, exported) == [None]
    assert (ws.root / rel).read_text() == exported.text
    # Again: the same bytes are a duplicate; other bytes are a conflict, and kept.
    assert _reasons(ws, exported) == ["duplicate"]
    changed = ExportedFile(rel, "warm", exported.text + "- more\n")
    assert _reasons(ws, changed) == ["conflict: the file exists with other content (kept)"]
    assert (ws.root / rel).read_text() == exported.text


def test_paths_outside_the_layout_and_bad_content_are_refused(ws: Workspace) -> None:
    reasons = _reasons(
        ws,
        ExportedFile("src/x.md", "warm", "x\n"),
        ExportedFile("memory/semantic/" + "n" * 300 + ".md", "warm", WARM_NOTE),
        ExportedFile("memory/semantic/nohead.md", "warm", "# X\nno tags\n"),
        ExportedFile("memory/memtier.toml", "config", "vocabulary = []\n"),
    )
    assert reasons[0] == "invalid: not a memory file of the workspace layout"
    assert reasons[1] == "invalid: a file name longer than 255 bytes"
    assert reasons[2] is not None and reasons[2].startswith("refused: ")
    assert reasons[3] is not None and "'vocabulary' is empty" in reasons[3]
    assert not (ws.root / "src").exists()
    assert not (ws.root / "memory/semantic/nohead.md").exists()


def test_a_dry_run_writes_nothing_and_invalid_entries_come_first(ws: Workspace) -> None:
    rel = "memory/semantic/docker.md"
    outcomes, _ = apply_files(
        ws, [ExportedFile(rel, "warm", WARM_NOTE)], [Invalid("file 2", "no 'path'")], dry_run=True
    )
    assert [(o.item, o.status) for o in outcomes] == [("file 2", "skipped"), (rel, "imported")]
    assert not (ws.root / rel).exists()


def test_a_credential_in_an_exported_file_is_redacted_on_the_way_in(ws: Workspace) -> None:
    token = "gh" + "p_" + "x1Y2" * 9
    rel = "memory/semantic/docker.md"
    _, redacted = apply_files(ws, [ExportedFile(rel, "warm", WARM_NOTE + f"- {token}\n")], [])
    assert redacted == {"GITHUB_TOKEN": 1}
    assert token not in (ws.root / rel).read_text()
