"""`memtier mcp` and `memtier skill` on the command line, and the start-up they must not cost."""

from __future__ import annotations

import importlib.util
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from memtier.commands.skill import DESCRIPTION_LIMIT, front_matter
from tests.conftest import NOW_TEXT, REPO, CliRunner


def test_a_cli_command_never_imports_the_sdk(root: Path) -> None:
    probe = (
        "import sys\n"
        "from memtier.__main__ import main\n"
        f"main(['stats', '--root', {str(root)!r}])\n"
        "main(['skill'])\n"
        "loaded = sorted(m for m in sys.modules if m.split('.')[0] in ('mcp', 'mcp_types', "
        "'pydantic', 'anyio', 'starlette'))\n"
        "sys.stderr.write(repr(loaded))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True
    )
    assert proc.stderr.endswith("[]"), proc.stderr


def test_without_the_extra_it_says_how_to_install(
    cli: CliRunner, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "mcp" else real(name, *a)
    )
    result = cli("mcp", "--root", str(root))
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.startswith("memtier: error: memtier mcp needs the MCP SDK: ")
    assert "pip install 'memtier[mcp]'" in result.stderr


def test_mcp_help_names_the_transports(cli: CliRunner) -> None:
    result = cli("mcp", "--help")
    assert result.exit_code == 0
    assert "--http" in result.stdout and "127.0.0.1" in result.stdout


def test_skill_prints_skill_md(cli: CliRunner) -> None:
    result = cli("skill")
    assert result.exit_code == 0
    assert result.stdout == (REPO / "SKILL.md").read_text(encoding="utf-8")


def test_skill_install_writes_dir_memtier_skill_md(cli: CliRunner, tmp_path: Path) -> None:
    skills = tmp_path / "skills"
    skills.mkdir()
    result = cli("skill", "--install", str(skills))
    assert result.exit_code == 0, result.stderr
    written = (skills / "memtier" / "SKILL.md").read_text(encoding="utf-8")
    meta = front_matter(written)
    assert meta["name"] == "memtier"
    assert 0 < len(meta["description"]) < DESCRIPTION_LIMIT
    again = cli("skill", "--install", str(skills), "--json")
    assert again.exit_code == 0
    assert '"created": false' in again.stdout


def test_skill_install_into_a_missing_folder_is_an_input_error(
    cli: CliRunner, tmp_path: Path
) -> None:
    result = cli("skill", "--install", str(tmp_path / "nope"))
    assert result.exit_code == 2
    assert result.stderr.startswith("memtier: error: ")


def test_wheel_ships_skill_md() -> None:
    text = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    assert '"SKILL.md" = "memtier/SKILL.md"' in text


def test_session_start_max_chars_bounds_the_text(cli: CliRunner, root: Path) -> None:
    hot = root / "MEMORY.md"
    hot.write_text(hot.read_text() + "".join(f"- fact {n} about the fleet\n" for n in range(40)))
    result = cli("session-start", "--max-chars", "1200", "--root", str(root), "--now", NOW_TEXT)
    assert result.exit_code == 0
    assert len(result.stdout) <= 1200 + 1
    assert "[cut: " in result.stdout and "memtier get MEMORY.md:" in result.stdout
    assert result.stdout.rstrip("\n").split("\n")[-1].startswith("health-check:")


def test_session_start_shows_the_last_sessions_open_items_days_later(
    cli: CliRunner, root: Path
) -> None:
    (root / "memory/episodic/2026-11-20.md").write_text(
        "# 2026-11-20\nUpdated: 2026-11-20\nDecisions: d\nSignal: s\nOpen: renew the TLS cert\n"
    )
    (root / "memory/episodic/2026-11-10.md").write_text(
        "# 2026-11-10\nUpdated: 2026-11-10\nDecisions: d\nSignal: s\nOpen: older item\n"
    )
    result = cli("session-start", "--root", str(root), "--now", NOW_TEXT)
    # PROTOCOL §4 step 7 v3: no note of today or yesterday, so the whole last block.
    assert "===== last closed note: 2026-11-20 (10 days ago), memory/episodic/2026-11-20.md" in (
        result.stdout
    )
    assert "Decisions: d\nSignal: s\nOpen: renew the TLS cert\n" in result.stdout
    assert "older item" not in result.stdout


def test_http_binds_the_loopback_interface_only(
    cli: CliRunner, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("mcp")
    from memtier.mcp import server

    seen: list[tuple[str, object]] = []

    async def http(_server: object, sock: socket.socket) -> None:
        seen.append(("streamable-http", sock.getsockname()))
        sock.close()

    async def stdio(_server: object) -> None:
        seen.append(("stdio", None))

    monkeypatch.setattr(server, "_serve_http", http)
    monkeypatch.setattr(server, "_serve_stdio", stdio)
    with socket.socket() as probe:  # a port free now
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    served = cli("mcp", "--http", "--port", str(port), "--root", str(root))
    assert served.exit_code == 0
    assert seen == [("streamable-http", ("127.0.0.1", port))]
    # PROTOCOL §11 v4: the URL it serves, on stderr (stdout stays the protocol's).
    assert served.stderr == f"memtier mcp: serving http://127.0.0.1:{port}/mcp (loopback only)\n"
    assert served.stdout == ""
    quiet = cli("mcp", "--root", str(root))
    assert quiet.exit_code == 0 and quiet.stderr == ""
    assert seen[-1] == ("stdio", None)
    assert cli("mcp", "--host", "0.0.0.0").exit_code == 2
