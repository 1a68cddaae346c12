"""memtier.health.secrets_scan: the ``secrets`` check of PROTOCOL §6 (never prints a secret)."""

from __future__ import annotations

from pathlib import Path

import pytest

from memtier.health.secrets_scan import SecretsScan
from memtier.health.verdict import FAIL, PASS, WARN, Check
from memtier.workspace import Workspace


def github_token() -> str:
    # Built from pieces at run time: the repository holds no literal secret.
    return "gh" + "p_" + "x1Y2" * 9


def test_a_clean_workspace_has_one_pass_counting_the_files(ws: Workspace) -> None:
    (check,) = _secrets_checks(ws)
    assert check.status == PASS
    assert check.message.startswith("no credentials found (") and "files scanned)" in check.message


def test_a_credential_fails_with_its_line_and_rule_but_not_its_text(ws: Workspace) -> None:
    token = github_token()
    (ws.episodic_dir / "2026-11-01.md").write_text(f"# notes\n\npushed with {token}\n")
    (check,) = _secrets_checks(ws)
    assert (check.status, check.path) == (FAIL, "memory/episodic/2026-11-01.md")
    assert check.message == "memory/episodic/2026-11-01.md:3 — credential found (GITHUB_TOKEN)"
    assert token not in repr(check)


def test_a_binary_or_non_utf8_file_is_a_warning_and_still_scanned(ws: Workspace) -> None:
    token = github_token()
    (ws.learnings_dir / "odd.md").write_bytes(b"caf\xe9 " + token.encode() + b"\n")
    checks = _secrets_checks(ws)
    assert [(c.status, c.path) for c in checks] == [
        (WARN, ".learnings/odd.md"),
        (FAIL, ".learnings/odd.md"),
    ]
    assert (
        checks[0].message == ".learnings/odd.md — not UTF-8 text (scanned for credentials anyway)"
    )


def test_the_archive_is_scanned(ws: Workspace) -> None:
    # PROTOCOL §6 v4: every file health-check reads is scanned, the archive included.
    folder = ws.archive_dir / "2025" / "01"
    folder.mkdir(parents=True)
    (folder / "2025-01-01.md").write_text(github_token() + "\n")
    (check,) = _secrets_checks(ws)
    assert (
        check.message == "memory/archive/2025/01/2025-01-01.md:1 — credential found (GITHUB_TOKEN)"
    )


@pytest.mark.parametrize("engine", ["python", "ripgrep"])
def test_the_archive_and_file_names_on_either_engine(
    ws: Workspace, engine: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memtier.health import secrets_scan

    if engine == "ripgrep":
        if secrets_scan._ripgrep() is None:
            pytest.skip("ripgrep not installed")
        monkeypatch.setattr(secrets_scan, "RG_MIN_NOTES", 1)
    token = github_token()
    folder = ws.archive_dir / "2024" / "12"
    folder.mkdir(parents=True)
    (folder / "2024-12-01.md").write_text(f"# 2024-12-01\n\n- {token}\n")
    (ws.episodic_dir / "2026-11-02.md").write_text("# 2026-11-02\n\n- quiet day\n")
    # Clean contents (rg passes over it), a credential in its name.
    (ws.episodic_dir / f"{token}.md").write_text("# notes\n")
    checks = [c for c in _secrets_checks(ws) if c.status == FAIL]
    assert [c.message for c in checks] == [
        "memory/episodic/[REDACTED:GITHUB_TOKEN].md — credential found in the file name"
        " (GITHUB_TOKEN)",
        "memory/archive/2024/12/2024-12-01.md:3 — credential found (GITHUB_TOKEN)",
    ]
    assert token not in repr(checks)


def test_a_symlink_in_the_archive_is_not_read(ws: Workspace, tmp_path: Path) -> None:
    outside = tmp_path / "outside.md"
    outside.write_text(github_token() + "\n")
    folder = ws.archive_dir / "2024" / "12"
    folder.mkdir(parents=True)
    (folder / "2024-12-02.md").symlink_to(outside)
    assert [c.status for c in _secrets_checks(ws)] == [PASS]


def _secrets_checks(ws: Workspace) -> list[Check]:
    """PROTOCOL §6 ``secrets`` on its own, as health-check runs it."""
    with SecretsScan(ws) as scan:
        return scan.finish()
