"""No credential escapes health-check, search or stats (PROTOCOL §3, §6 v4).

The secrets check scans every file health-check reads -- the topic index and its
generations, the archive -- and every file name; no check's message quotes a
credential (``index.format`` quotes a stray line of INDEX.md); a credential in a
file name is shown redacted by health-check, search and stats. Real workspaces,
the real command line.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import memtier_in_process


def _token() -> str:
    # Built at run time from pieces: the repository holds no literal credential.
    return "gh" + "p_" + "Zq9" * 12


def _key() -> str:
    return "AK" + "IA" + "Q2W3E4R5T6Y7U8I9"


def _memtier(root: Path, *args: str) -> tuple[int, str]:
    done = memtier_in_process(*args, cwd=root)
    return done.returncode, done.stdout + done.stderr


def _secrets_failures(root: Path) -> list[str]:
    _, out = _memtier(root, "health-check", "--json")
    payload = json.loads(out[: out.rindex("}") + 1])
    return [
        c["message"] for c in payload["checks"] if c["id"] == "secrets" and c["status"] == "fail"
    ]


def test_the_topic_index_and_its_generations_are_scanned(root: Path) -> None:
    (root / "memory" / "INDEX.md").write_text(f"# Topic Index\n\nstray note with {_key()}\n")
    generations = root / "memory" / "consolidated"
    generations.mkdir(exist_ok=True)
    (generations / "nas-g1.md").write_text(f"# nas g1\n\n- deploy with {_token()}\n")
    assert _secrets_failures(root) == [
        "memory/INDEX.md:3 — credential found (AWS_ACCESS_KEY_ID)",
        "memory/consolidated/nas-g1.md:3 — credential found (GITHUB_TOKEN)",
    ]


def test_the_configuration_is_scanned(root: Path) -> None:
    config = root / "memory" / "memtier.toml"
    config.write_text(config.read_text() + f"# sync remote token {_token()}\n")
    (message,) = _secrets_failures(root)
    assert message.startswith("memory/memtier.toml:")
    assert message.endswith("— credential found (GITHUB_TOKEN)")


def test_archived_notes_and_learnings_are_scanned(root: Path) -> None:
    folder = root / "memory" / "archive" / "2025" / "03"
    folder.mkdir(parents=True)
    (folder / "2025-03-04.md").write_text(f"# 2025-03-04\n\n- {_key()}\n")
    learnings = root / "memory" / "archive" / "learnings"
    learnings.mkdir(parents=True)
    (learnings / "ERRORS-2025.md").write_text(f"- {_token()}\n")
    assert _secrets_failures(root) == [
        "memory/archive/2025/03/2025-03-04.md:3 — credential found (AWS_ACCESS_KEY_ID)",
        "memory/archive/learnings/ERRORS-2025.md:1 — credential found (GITHUB_TOKEN)",
    ]


def test_no_health_message_quotes_a_credential_of_a_stray_index_line(root: Path) -> None:
    # The token starts within the 40 characters index.format quotes, and runs past them.
    (root / "memory" / "INDEX.md").write_text(f"key {_token()} here\n")
    code, out = _memtier(root, "health-check", "--verbose")
    assert code == 1
    assert "line outside an entry" in out
    assert _token()[:12] not in out
    _, out = _memtier(root, "health-check", "--json", "--verbose")
    assert _token()[:12] not in out


@pytest.fixture
def named(root: Path) -> Path:
    """A WARM file whose name is a credential (as a careless agent could create)."""
    path = root / "memory" / "semantic" / f"{_token()}.md"
    path.write_text(
        "# Zebra notes\n#tags: docker\n> last_verified: 2026-11-30\n\n- zebra on nas01\n"
    )
    return path


def test_health_check_fails_on_a_credential_in_a_file_name_and_never_shows_it(
    root: Path, named: Path
) -> None:
    code, out = _memtier(root, "health-check")
    assert code == 1
    assert _token() not in out
    assert "[REDACTED:GITHUB_TOKEN].md — credential found in the file name (GITHUB_TOKEN)" in out
    _, out = _memtier(root, "health-check", "--json", "--verbose")
    assert _token() not in out


def test_search_shows_a_credential_in_a_file_name_redacted(root: Path, named: Path) -> None:
    for args in (("search", "zebra"), ("search", "zebra", "--json")):
        code, out = _memtier(root, *args)
        assert code == 0
        assert _token() not in out
        assert "[REDACTED:GITHUB_TOKEN].md" in out


def test_stats_shows_a_credential_in_a_file_name_redacted(root: Path, tmp_path: Path) -> None:
    # stats names a file it passes over: here a symlink inside a tier folder.
    target = tmp_path / "elsewhere.md"
    target.write_text("# elsewhere\n")
    (root / "memory" / "semantic" / f"{_token()}.md").symlink_to(target)
    for args in (("stats",), ("stats", "--json")):
        _, out = _memtier(root, *args)
        assert "symlink" in out
        assert _token() not in out
        assert "[REDACTED:GITHUB_TOKEN].md" in out


def test_search_json_warnings_name_a_credential_file_redacted(root: Path) -> None:
    (root / "memory" / "semantic" / f"{_token()}.md").write_bytes(b"zebra\x00\x01binary\n")
    code, out = _memtier(root, "search", "zebra", "--json")
    assert code == 0
    assert "binary file" in out
    assert _token() not in out
