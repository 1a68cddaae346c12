"""The shell shims of `memtier install-scripts`, run for real through bash."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

from memtier import __version__
from memtier.commands.shims import install_scripts, installer_command
from memtier.formats.shims import SHIM_NAMES, shim_version
from memtier.health.report import run_health_check
from memtier.workspace import Workspace
from tests.conftest import NOW, NOW_TEXT

BASH = shutil.which("bash")
pytestmark = pytest.mark.skipif(BASH is None, reason="bash is not installed")
SYSTEM_PATH = "/usr/bin:/bin"


def install(root: Path, version: str = __version__) -> None:
    install_scripts(Workspace.open(root, NOW), fallback=installer_command(), version=version)


def run_shim(
    shim: Path, *args: str, cwd: Path, env: dict[str, str] | None = None, input: str = ""
) -> subprocess.CompletedProcess[str]:
    """bash <shim> from *cwd*, with a PATH that holds no memtier unless *env* adds one."""
    base = {"PATH": SYSTEM_PATH, "HOME": os.environ["HOME"], "NO_COLOR": "1"}
    return subprocess.run(
        [str(BASH), str(shim), *args],
        cwd=cwd,
        env={**base, **(env or {})},
        input=input,
        capture_output=True,
        text=True,
        timeout=60,
    )


def fake_memtier(folder: Path, code: int = 0) -> Path:
    """A stand-in memtier that records its arguments and exits with *code*."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "memtier"
    path.write_text(f'#!/bin/sh\nprintf "%s\\n" "$@" > "{folder}/args"\nexit {code}\n')
    path.chmod(0o755)
    return path


# -- installing --------------------------------------------------------------------------


def test_install_writes_four_executable_stamped_shims(root: Path) -> None:
    install(root)
    scripts = root / "memory" / "scripts"
    for name in SHIM_NAMES:
        path = scripts / name
        mode = stat.S_IMODE(path.stat().st_mode)
        assert mode & 0o100, f"{name} is not executable"
        data = path.read_bytes()
        assert data.startswith(b"#!/bin/sh\n")
        assert shim_version(data) == __version__
        assert data.endswith(b"\n")
    assert sorted(p.name for p in scripts.iterdir()) == sorted(SHIM_NAMES)


def test_reinstall_is_idempotent_and_keeps_other_files(root: Path) -> None:
    scripts = root / "memory" / "scripts"
    scripts.mkdir(parents=True, exist_ok=True)
    (scripts / "health-check.local.sh").write_text("#!/bin/sh\necho mine\n")
    (scripts / "README.txt").write_text("notes\n")
    install(root)
    first = {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in scripts.iterdir()}
    ws = Workspace.open(root, NOW)
    result = install_scripts(ws, fallback=installer_command(), version=__version__)
    assert result.written == ()
    assert len(result.unchanged) == 4
    assert {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in scripts.iterdir()} == first
    assert (scripts / "health-check.local.sh").read_text() == "#!/bin/sh\necho mine\n"
    assert (scripts / "README.txt").read_text() == "notes\n"


def test_reinstall_rewrites_an_old_shim_and_restores_the_exec_bit(root: Path) -> None:
    install(root, version="0.0.1")
    path = root / "memory" / "scripts" / "health-check.sh"
    path.chmod(0o644)
    result = install_scripts(Workspace.open(root, NOW), fallback=installer_command(), version="9.9")
    assert "memory/scripts/health-check.sh" in result.written
    assert shim_version(path.read_bytes()) == "9.9"
    assert stat.S_IMODE(path.stat().st_mode) & 0o100


def test_an_original_script_is_replaced_and_said_so(root: Path) -> None:
    scripts = root / "memory" / "scripts"
    scripts.mkdir(parents=True, exist_ok=True)
    (scripts / "health-check.sh").write_text("#!/bin/bash\necho original\n")
    result = install_scripts(Workspace.open(root, NOW), fallback=("memtier",), version="1.0")
    assert result.replaced == ("memory/scripts/health-check.sh",)
    lines = list(result.text_lines())
    assert "wrote memory/scripts/health-check.sh (it was not a memtier shim)" in lines


# -- running through bash ------------------------------------------------------------------


def test_health_check_shim_from_another_directory(root: Path, tmp_path: Path) -> None:
    install(root)
    shim = root / "memory" / "scripts" / "health-check.sh"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    # No MEMTIER_BIN and no memtier on PATH: the shim runs the memtier that installed it.
    assert shutil.which("memtier", path=SYSTEM_PATH) is None
    ok = run_shim(shim, "--json", cwd=elsewhere, env={"MEMTIER_NOW": NOW_TEXT})
    assert ok.returncode == 0, ok.stderr
    assert '"ok": true' in ok.stdout
    (root / "memory" / "working-buffer.md.lock").write_text("")
    bad = run_shim(shim, "--verbose", cwd=elsewhere, env={"MEMTIER_NOW": NOW_TEXT})
    assert bad.returncode == 1
    assert "❌ rotation lock file present" in bad.stdout
    assert "fix: memtier session-start" in bad.stdout  # the fix line got through


def test_shim_prefers_memtier_bin_then_path(root: Path, tmp_path: Path) -> None:
    install(root)
    shim = root / "memory" / "scripts" / "health-check.sh"
    chosen = fake_memtier(tmp_path / "chosen", code=7)
    on_path = fake_memtier(tmp_path / "on-path", code=3)
    env = {"MEMTIER_BIN": str(chosen), "PATH": f"{on_path.parent}:{SYSTEM_PATH}"}
    result = run_shim(shim, "--verbose", "two words", cwd=tmp_path, env=env)
    assert result.returncode == 7
    args = (chosen.parent / "args").read_text().splitlines()
    assert args == ["--root", str(root.resolve()), "health-check", "--verbose", "two words"]
    result = run_shim(shim, "--json", cwd=tmp_path, env={"PATH": env["PATH"]})
    assert result.returncode == 3
    assert (on_path.parent / "args").read_text().splitlines()[-1] == "--json"


def test_atomic_write_shim_takes_stdin_and_a_path_from_the_callers_directory(root: Path) -> None:
    install(root)
    shim = root / "memory" / "scripts" / "atomic-write.sh"
    work = root / "memory" / "procedural"
    text = "# Deploy\n#tags: docker\n> last_verified: 2026-11-30\nsteps\n"
    result = run_shim(shim, "deploy.md", cwd=work, input=text)
    assert result.returncode == 0, result.stderr
    assert (work / "deploy.md").read_text() == text
    outside = run_shim(shim, str(root.parent / "escape.md"), cwd=work, input="x\n")
    assert outside.returncode == 2
    assert not (root.parent / "escape.md").exists()


def test_archive_shim_passes_days_as_the_first_argument(root: Path, tmp_path: Path) -> None:
    install(root)
    episodic = root / "memory" / "episodic"
    for name in ("2026-10-20.md", "2026-10-10.md"):  # 41 and 51 days before NOW
        (episodic / name).write_text("# old\n")
    shim = root / "memory" / "scripts" / "archive-old-episodic.sh"
    result = run_shim(shim, "45", cwd=tmp_path, env={"MEMTIER_NOW": NOW_TEXT})
    assert result.returncode == 0, result.stderr
    assert (episodic / "2026-10-20.md").exists()
    assert not (episodic / "2026-10-10.md").exists()
    assert (root / "memory" / "archive" / "2026" / "10" / "2026-10-10.md").exists()
    bad = run_shim(shim, "many", cwd=tmp_path, env={"MEMTIER_NOW": NOW_TEXT})
    assert bad.returncode == 2


def test_archive_learnings_shim_forwards_days(root: Path, tmp_path: Path) -> None:
    install(root)
    fake = fake_memtier(tmp_path / "bin")
    shim = root / "memory" / "scripts" / "archive-old-learnings.sh"
    result = run_shim(shim, "10", "--dry-run", cwd=tmp_path, env={"MEMTIER_BIN": str(fake)})
    assert result.returncode == 0
    args = (fake.parent / "args").read_text().splitlines()
    assert args[2:] == ["archive", "learnings", "--days", "10", "--dry-run"]


def test_shim_outside_a_workspace_exits_2(root: Path, tmp_path: Path) -> None:
    install(root)
    lonely = tmp_path / "lonely"
    lonely.mkdir()
    copy = lonely / "health-check.sh"
    shutil.copy(root / "memory" / "scripts" / "health-check.sh", copy)
    result = run_shim(copy, cwd=tmp_path)
    assert result.returncode == 2
    assert "no workspace" in result.stderr


# -- version drift -----------------------------------------------------------------------


def test_version_drift_is_a_warning(root: Path) -> None:
    install(root)
    report = run_health_check(Workspace.open(root, NOW))
    shims = [c for c in report.checks if c.id == "shims.version"]
    assert [c.status for c in shims] == ["pass"]
    install(root, version="0.0.1")
    report = run_health_check(Workspace.open(root, NOW))
    assert report.ok
    drift = [c.message for c in report.warned if c.id == "shims.version"]
    assert drift == [
        f"memory/scripts/{name} — written by memtier 0.0.1, running {__version__}"
        for name in SHIM_NAMES
    ]


def test_original_script_and_version_drift_through_the_shim(root: Path, tmp_path: Path) -> None:
    install(root)
    shim = root / "memory" / "scripts" / "health-check.sh"
    (root / "memory" / "scripts" / "atomic-write.sh").write_text('#!/bin/bash\ncat > "$1"\n')
    stamp = f"# memtier-shim-version: {__version__}"
    shim.write_text(shim.read_text().replace(stamp, "# memtier-shim-version: 0.0.1"))
    result = run_shim(shim, cwd=tmp_path, env={"MEMTIER_NOW": NOW_TEXT})
    assert result.returncode == 0, result.stdout
    lines = result.stdout.splitlines()
    drift = f"memory/scripts/health-check.sh — written by memtier 0.0.1, running {__version__}"
    assert f"⚠️  {drift}" in lines
    # PROTOCOL §6 (v4): the fix once, under the line, not in the message too.
    foreign = lines.index("⚠️  memory/scripts/atomic-write.sh — not a memtier shim")
    assert lines[foreign + 1] == "     fix: refresh them with memtier install-scripts"
