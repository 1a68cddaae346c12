"""Shared fixtures: a guard against touching the real home, a fixed clock, a
fresh workspace, and two ways to run the CLI (in-process and as a real process)."""

from __future__ import annotations

import atexit
import gc
import io
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from memtier.commands.init import init_workspace
from memtier.workspace import Workspace
from tests.rewrite_ahead import is_second_worker, rewrite_from_the_end

# Hypothesis: no deadline (a busy machine is not a failure) and, in CI, the same
# examples on every run, with no example database carried between runs. Loaded
# here, before any test module builds its own `settings` on top of the profile.
settings.register_profile("dev", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile(
    "ci",
    parent=settings.get_profile("dev"),
    derandomize=True,
    database=None,
    print_blob=True,
)
settings.load_profile("ci" if os.environ.get("CI") else "dev")

# Every property test runs twice over: in the README's run with a fifth of its
# examples (at least QUICK_MIN_EXAMPLES), and in the slow step (`-m slow`, which CI
# runs on every submission) with its full count, as a second item `[examples-full]`.
# A test already marked slow keeps its full count and runs once.
QUICK_DIVISOR = 5
QUICK_MIN_EXAMPLES = 10


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    is_property = getattr(metafunc.function, "is_hypothesis_test", False)
    if is_property and not metafunc.definition.get_closest_marker("slow"):
        # Two items and no argument: `_test_setting` finds the quick one by its mark.
        metafunc.parametrize(
            (),
            [
                pytest.param(id="examples-quick", marks=pytest.mark.examples_quick),
                pytest.param(id="examples-full", marks=pytest.mark.slow),
            ],
        )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "examples_quick: the README run's item of a property test")


def pytest_collection_finish(session: pytest.Session) -> None:
    """Everything collected so far (the modules, the items, the imported packages,
    the SDK's types) lives to the end of the run: moved out of the collector's
    sight, so that its full passes over the heap no longer walk it again and again."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(20_000, 10, 10)


# Names whose first use in a process builds something kept for the rest of it: the
# SDK and its in-process server (~1.7 s of CPU), the package's syntax trees (~1 s),
# the sync tests' template hosts (real `sync init` runs).
_SHARED_COSTS = {
    "tests.sync_support": ("hosts", "conflicting"),
    "tests.reliability.sync_machine": ("SyncMachine",),
    "tests.source_trees": ("nodes_of", "tree_of"),
}


def _shared_cost(item: pytest.Item) -> str | None:
    """The per-process build *item* leans on, if any (see `_SHARED_COSTS`)."""
    code = getattr(getattr(item, "obj", None), "__code__", None)
    imported = code.co_names if code is not None else ()  # what the test imports itself
    if (
        "_one_server" in getattr(item, "fixturenames", ())
        or item.path.parent.name == "mcp"
        or any(name == "mcp" or name.startswith(("mcp.", "memtier.mcp")) for name in imported)
    ):
        return "sdk"
    names = vars(getattr(item, "module", None) or object)
    for home, homed in _SHARED_COSTS.items():
        if any(getattr(names.get(name), "__module__", None) == home for name in homed):
            return home
    return None


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Tests that lean on the same per-process build run in one worker, so that it is
    built once in a run rather than once in each worker.

    pytest-xdist's `worksteal` gives the first worker the first half of the list and
    the second the rest, and a worker that runs dry takes the far end of the other's
    queue. So the SDK's tests and the sync tests go to the head of the list (the first
    worker's alone) and the syntax-tree tests to the head of the second half (the
    second worker's); every other test keeps its place in the order. Both workers
    sort their own collection the same way, as xdist requires."""
    worker = getattr(config, "workerinput", None)
    if not isinstance(worker, dict) or worker.get("workercount") != 2:
        return
    head: list[pytest.Item] = []
    second: list[pytest.Item] = []
    rest: list[pytest.Item] = []
    for item in items:
        cost = _shared_cost(item)
        (second if cost == "tests.source_trees" else head if cost else rest).append(item)
    fill = max(0, len(items) // 2 - len(head))
    items[:] = head + rest[:fill] + second + rest[fill:]


def pytest_sessionstart(session: pytest.Session) -> None:
    if is_second_worker(session.config):  # a fresh checkout's first run: see rewrite_ahead
        rewrite_from_the_end(session.config, REPO / "tests")


NOW_TEXT = "2026-11-30T10:00:00+01:00"
NOW = datetime.fromisoformat(NOW_TEXT)
REPO = Path(__file__).resolve().parent.parent
_HOMES: list[Path] = []
_SETTING = pytest.StashKey[pytest.MonkeyPatch]()


def _skip_fsync(fd: object) -> None:
    """Stands in for os.fsync in a test's own process (see `_test_setting`)."""


def _test_setting(item: pytest.Item) -> pytest.MonkeyPatch:
    """What every test runs in, set before its fixtures and undone after them.

    - No test may touch the real home folder or inherit a memtier setting: each
      test's home is a fresh folder made by `tempfile.mkdtemp` (one call; pytest's
      numbered folders list the whole base folder to find the next number).
    - Writes made in the test's own process skip fsync, except in tests/store. An
      fsync only matters when the machine loses power, which no test can cause; a
      killed process loses nothing the kernel holds. Skipping it spares every
      in-process write a journal commit, which on a shared disk is most of a
      test's wall time. The store's own tests, and every memtier process a test
      starts (the crash matrix, the kill and lock tests, the soak), fsync for real.
    - The `[examples-quick]` item of a property test draws fewer examples.

    A hook rather than three autouse fixtures: a fixture costs every one of the
    suite's four thousand tests pytest's fixture bookkeeping (a `request` argument
    alone builds a fixture definition per use), about a second of CPU a run.
    """
    patch = pytest.MonkeyPatch()
    if not _HOMES:
        _HOMES.append(Path(tempfile.mkdtemp(prefix="memtier-homes-")))
        atexit.register(shutil.rmtree, _HOMES[0], True)
    patch.setenv("HOME", tempfile.mkdtemp(prefix="home-", dir=_HOMES[0]))
    patch.setenv("NO_COLOR", "1")
    for name in ("MEMTIER_ROOT", "MEMTIER_NOW", "MEMTIER_FAULT", "MEMTIER_FAULT_TRACE"):
        patch.delenv(name, raising=False)
    if Path(item.path).parent.name != "store":
        patch.setattr(os, "fsync", _skip_fsync)
    if item.get_closest_marker("examples_quick"):
        test = item.obj  # type: ignore[attr-defined]
        test = getattr(test, "__func__", test)
        full = test._hypothesis_internal_use_settings
        quick = max(QUICK_MIN_EXAMPLES, full.max_examples // QUICK_DIVISOR)
        if quick < full.max_examples:
            patch.setattr(
                test, "_hypothesis_internal_use_settings", settings(full, max_examples=quick)
            )
    return patch


_WORKER_DONE: list[bool] = []


def _end_finished_worker() -> None:
    """The last exit handler of a pytest-xdist worker that ended its session: the
    process ends here, without tearing its heap down object by object.

    Registered when this module loads, so it runs after every handler registered
    later (the removal of the test homes and of the built workspaces and hosts).
    By then the worker has sent every report and closed its channel; freeing the
    few hundred megabytes the collected suite and its runs hold is a third of a
    second on an idle machine (seconds on a busy one), during which the controller
    waits for the process to go and the run's summary is not yet printed. The
    exit status is the one a worker returns anyway: its results travel as reports.
    """
    if _WORKER_DONE:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)


atexit.register(_end_finished_worker)


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config: pytest.Config) -> None:
    if hasattr(config, "workerinput"):  # a pytest-xdist worker, its session over
        _WORKER_DONE.append(True)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Iterator[None]:
    item.stash[_SETTING] = _test_setting(item)
    return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item) -> Iterator[None]:
    try:
        return (yield)
    finally:
        patch = item.stash.get(_SETTING, None)
        if patch is not None:
            patch.undo()


@dataclass(frozen=True)
class FolderCopy:
    """A folder's tree held in memory (each folder and its mode, each file's bytes
    and mode, each symlink's target), to write out again and again.

    `shutil.copytree` reads every file of the source again for each copy and copies
    each folder's times and mode one call at a time: a workspace cost 1.1 ms of CPU
    that way, and 0.2 ms written from memory, for the ~1,600 workspaces and the
    ~90 sets of sync hosts a run makes.
    """

    folders: tuple[tuple[str, int], ...]
    files: tuple[tuple[str, bytes, int], ...]
    links: tuple[tuple[str, str], ...]

    @classmethod
    def of(cls, source: Path) -> FolderCopy:
        folders: list[tuple[str, int]] = []
        files: list[tuple[str, bytes, int]] = []
        links: list[tuple[str, str]] = []
        for top, dirs, names in os.walk(source):
            rel = os.path.relpath(top, source)
            for name in [*dirs, *names]:
                path = os.path.join(top, name)
                key = os.path.normpath(os.path.join(rel, name))
                info = os.lstat(path)
                if stat.S_ISLNK(info.st_mode):
                    links.append((key, os.readlink(path)))
                elif stat.S_ISDIR(info.st_mode):
                    folders.append((key, stat.S_IMODE(info.st_mode)))
                else:
                    files.append((key, Path(path).read_bytes(), stat.S_IMODE(info.st_mode)))
        return cls(tuple(folders), tuple(files), tuple(links))

    def write(self, folder: Path, modes: bool = True) -> None:
        """Write the tree under *folder* (made when missing; it may hold other names).
        With *modes*, each entry gets its source's mode; without, the umask's (as a
        process that writes them itself would leave them)."""
        os.makedirs(folder, exist_ok=True)
        for name, mode in self.folders:  # os.walk lists a folder before its contents
            path = os.path.join(folder, name)
            os.mkdir(path)
            if modes:
                os.chmod(path, mode)
        for name, data, mode in self.files:
            fd = os.open(os.path.join(folder, name), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
            try:
                os.write(fd, data)
                if modes:
                    os.fchmod(fd, mode)
            finally:
                os.close(fd)
        for name, target in self.links:
            os.symlink(target, os.path.join(folder, name))


_TEMPLATE: list[FolderCopy] = []


def exit_and_loaded(argv: list[str], modules: tuple[str, ...]) -> list[str]:
    """``main(argv)`` in a fresh process: its exit code, then which of *modules* it
    left loaded (in their order), as words."""
    code = (
        "import sys; from memtier.__main__ import main; "
        f"code = main({argv!r}); "
        f"sys.stderr.write(f'{{code}} ' + ' '.join(m for m in {modules!r} if m in sys.modules))"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    return proc.stderr.split()


def new_workspace(folder: Path) -> Path:
    """What ``init_workspace(folder, NOW)`` makes of a missing or empty *folder*.

    `init` fsyncs every file and folder it writes; the suite needs hundreds of
    fresh workspaces, so one is built per test session (on first use) and copied
    into each. A folder that already holds something gets a real `init`, since
    init would keep what is there.
    """
    if folder.exists() and any(folder.iterdir()):
        init_workspace(folder, NOW)
        return folder
    if not _TEMPLATE:
        built = Path(tempfile.mkdtemp(prefix="memtier-template-")) / "ws"
        built.mkdir()
        init_workspace(built, NOW)
        _TEMPLATE.append(FolderCopy.of(built))
        shutil.rmtree(built.parent)
    # Contents only, as init writes them: fresh times, modes from the umask.
    _TEMPLATE[0].write(folder, modes=False)
    return folder


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """A freshly initialised workspace folder (clock fixed at NOW)."""
    return new_workspace(tmp_path / "ws")


@pytest.fixture
def ws(root: Path) -> Workspace:
    return Workspace.open(root, NOW)


@dataclass
class CliResult:
    exit_code: int
    stdout: str
    stderr: str


CliRunner = Callable[..., CliResult]


def _in_process(monkeypatch: pytest.MonkeyPatch, entry: Callable[[list[str]], int]) -> CliRunner:
    def invoke(*args: str, input: bytes | str = b"", cwd: Path | None = None) -> CliResult:
        data = input.encode("utf-8") if isinstance(input, str) else input
        out, err = io.StringIO(), io.StringIO()
        stdin = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8")
        monkeypatch.setattr(sys, "stdin", stdin)
        if cwd is not None:
            monkeypatch.chdir(cwd)
        with redirect_stdout(out), redirect_stderr(err):
            code = entry(list(args))
        return CliResult(code, out.getvalue(), err.getvalue())

    return invoke


@pytest.fixture
def cli(monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    """Run memtier in-process as the script does (``memtier.__main__.main``, so the
    hot commands take the fast path agents take): ``cli("health-check", "--json",
    input=b"...", cwd=path)``."""
    from memtier.__main__ import main

    return _in_process(monkeypatch, main)


@pytest.fixture
def typer_cli(monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    """Like `cli`, but always through typer's parse (``memtier.cli.run``)."""
    from memtier.cli import run

    return _in_process(monkeypatch, run)


def memtier_command() -> list[str]:
    """The command line that starts a real memtier process."""
    return [sys.executable, "-m", "memtier"]


def run_memtier(
    *args: str,
    input: bytes | str = b"",
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    timeout: float = 60,
) -> subprocess.CompletedProcess[str]:
    """Run memtier as a separate process (for locks, crashes and shims)."""
    data = input.encode("utf-8") if isinstance(input, str) else input
    full_env = {**os.environ, **(env or {})}
    proc = subprocess.run(
        [*memtier_command(), *args],
        input=data,
        capture_output=True,
        cwd=cwd,
        env=full_env,
        timeout=timeout,
    )
    return subprocess.CompletedProcess(
        proc.args,
        proc.returncode,
        proc.stdout.decode("utf-8", "replace"),
        proc.stderr.decode("utf-8", "replace"),
    )


def memtier_in_process(
    *args: str,
    input: bytes | str = b"",
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """`run_memtier`'s call and answer, run in this process through the script's entry
    point (``memtier.__main__.main``): for a test whose property is the command's, not
    a separate process's (a hang, a kill, a lock held by another process). It costs
    a few milliseconds where a process costs a tenth of a second."""
    from memtier.__main__ import main

    if any(name.startswith("MEMTIER_FAULT") for name in env or {}):
        raise ValueError("a fault point kills its process: use run_memtier")
    with pytest.MonkeyPatch.context() as patch:
        for name, value in (env or {}).items():
            patch.setenv(name, value)
        done = _in_process(patch, main)(*args, input=input, cwd=cwd)
    return subprocess.CompletedProcess(
        [*memtier_command(), *args], done.exit_code, done.stdout, done.stderr
    )


@pytest.fixture
def snapshot() -> Callable[[Path], dict[str, bytes]]:
    """Every file under a folder (relative path → bytes), to prove nothing changed."""

    def take(folder: Path) -> dict[str, bytes]:
        return {
            p.relative_to(folder).as_posix(): p.read_bytes()
            for p in sorted(folder.rglob("*"))
            if p.is_file() and not p.is_symlink() and p.name != ".memtier.lock"
        }

    return take


@pytest.fixture
def now() -> Iterator[datetime]:
    yield NOW
