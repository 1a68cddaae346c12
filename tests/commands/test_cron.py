"""`memtier cron`: the schedule line, an idempotent install, and the systemd fallback."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from memtier.commands.init import init_workspace
from tests.conftest import NOW, CliRunner

FAKE_CRONTAB = """#!/bin/sh
# A stand-in for crontab(1) that keeps the table in one file.
store='{store}'
if [ -e "$store.broken" ]; then echo "crontab: cannot open the table" >&2; exit 1; fi
case "$1" in
  -l) if [ -f "$store" ]; then exec /bin/cat "$store"; fi
      echo "no crontab for tester" >&2; exit 1 ;;
  -) exec /bin/cat > "$store" ;;
  *) echo "usage: crontab [-l | -]" >&2; exit 2 ;;
esac
"""


@pytest.fixture
def crontab_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Put a fake ``crontab`` first on PATH; returns the file it stores the table in."""
    folder = tmp_path / "bin"
    folder.mkdir()
    store = tmp_path / "crontab.txt"
    script = folder / "crontab"
    script.write_text(FAKE_CRONTAB.format(store=store))
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", str(folder))
    return store


def test_line_names_absolute_command_root_and_log(
    cli: CliRunner, root: Path, crontab_store: Path
) -> None:
    result = cli("cron", "--root", str(root))
    assert result.exit_code == 0
    line = result.stdout.strip()
    assert line.startswith("0 9 * * 1 /")
    assert f" --root {root} weekly-review >> {root}/memory/weekly-review.log 2>&1" in line
    assert "--install" in result.stderr
    assert not crontab_store.exists()  # printing installs nothing


def test_install_twice_leaves_one_line(cli: CliRunner, root: Path, crontab_store: Path) -> None:
    crontab_store.write_text("MAILTO=me\n30 2 * * * backup.sh")  # no final newline
    first = cli("cron", "--install", "--root", str(root))
    assert first.exit_code == 0 and "Installed" in first.stdout
    assert "crontab -l | grep -vF" in first.stdout
    second = cli("cron", "--install", "--root", str(root), "--json")
    assert second.exit_code == 0
    payload = json.loads(second.stdout)
    assert payload["already_installed"] is True and payload["installed"] is False
    lines = crontab_store.read_text().splitlines()
    assert lines[:2] == ["MAILTO=me", "30 2 * * * backup.sh"]
    assert sum("weekly-review" in line for line in lines) == 1
    assert sum(line.startswith("0 11 * * * ") and " flush >> " in line for line in lines) == 1


def test_failed_crontab_read_refuses_and_keeps_the_table(
    cli: CliRunner, root: Path, crontab_store: Path
) -> None:
    crontab_store.write_text("15 4 * * * mine.sh\n")
    Path(f"{crontab_store}.broken").write_text("")  # -l fails, not with "no crontab"
    result = cli("cron", "--install", "--root", str(root))
    assert result.exit_code == 1
    assert "cannot open the table" in result.stderr and "nothing installed" in result.stderr
    assert crontab_store.read_text() == "15 4 * * * mine.sh\n"


def test_without_crontab_prints_line_and_systemd_units(
    cli: CliRunner, root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    result = cli("cron", "--install", "--root", str(root))
    assert result.exit_code == 0
    assert result.stdout.startswith("0 9 * * 1 ")
    assert "OnCalendar=Mon *-*-* 09:00:00" in result.stdout
    assert "ExecStart=/bin/sh -c " in result.stdout
    payload = json.loads(cli("cron", "--json", "--root", str(root)).stdout)
    assert payload["crontab"] is False
    assert set(payload["systemd"]) == {
        "memtier-weekly-review.service",
        "memtier-weekly-review.timer",
        "memtier-daily-flush.service",
        "memtier-daily-flush.timer",
    }


def _workspace_at(tmp_path: Path, name: str) -> Path:
    folder = tmp_path / name
    folder.mkdir()
    init_workspace(folder, NOW)
    return folder


def test_root_with_a_line_break_is_refused_and_installs_nothing(
    cli: CliRunner, tmp_path: Path, crontab_store: Path
) -> None:
    crontab_store.write_text("15 4 * * * mine.sh\n")
    folder = _workspace_at(tmp_path, "two\n0 * * * * evil")
    result = cli("cron", "--install", "--root", str(folder))
    assert result.exit_code == 2
    assert result.stderr.startswith("memtier: error: the workspace path holds a line break")
    assert "Traceback" not in result.stderr
    assert crontab_store.read_text() == "15 4 * * * mine.sh\n"


def test_percent_in_the_root_is_escaped_for_cron_and_systemd(
    cli: CliRunner, tmp_path: Path, crontab_store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = _workspace_at(tmp_path, "100%done")
    assert cli("cron", "--install", "--root", str(folder)).exit_code == 0
    lines = crontab_store.read_text().splitlines()
    assert len(lines) == 2  # the weekly review and the daily flush (PROTOCOL §13)
    for line in lines:
        assert "100\\%done" in line
        assert "%" not in line.replace("\\%", "")
    again = cli("cron", "--install", "--root", str(folder))
    assert "Already in your crontab" in again.stdout
    assert len(crontab_store.read_text().splitlines()) == 2
    monkeypatch.setenv("PATH", str(tmp_path / "nowhere"))
    units = json.loads(cli("cron", "--json", "--root", str(folder)).stdout)["systemd"]
    service = units["memtier-weekly-review.service"]
    assert "100%%done" in service
    assert "%" not in service.replace("%%", "")
