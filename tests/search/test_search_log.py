"""The search log ``memory/.searches.jsonl`` and `memtier recent-searches`."""

from __future__ import annotations

import json
from pathlib import Path

from memtier.search.log import MAX_ENTRIES, recent_searches, record_search
from memtier.workspace import Workspace
from tests.conftest import NOW, NOW_TEXT, CliRunner, run_memtier

LOG = "memory/.searches.jsonl"


def log_entries(root: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in (root / LOG).read_text().splitlines()]


def test_each_search_appends_one_entry(cli: CliRunner, root: Path) -> None:
    (root / "memory/episodic/2026-11-29.md").write_text("# x\n\n- badger\n")
    assert cli("search", "badger", "--root", str(root), "--now", NOW_TEXT).exit_code == 0
    assert cli("search", "nothinghere", "--all", "--root", str(root)).exit_code == 0
    first, second = log_entries(root)
    assert first == {
        "query": "badger",
        "tiers": ["hot", "warm", "index", "buffer", "scratch", "cold"],
        "result_count": 1,
        "timestamp": NOW_TEXT,
    }
    assert second["query"] == "nothinghere" and second["result_count"] == 0
    assert second["tiers"] == ["hot", "warm", "index", "buffer", "scratch", "cold", "archive"]
    assert (root / LOG).read_bytes().endswith(b"}\n")


def _old_entries(count: int) -> list[str]:
    return [
        json.dumps({"query": f"q{i}", "tiers": ["cold"], "result_count": i, "timestamp": NOW_TEXT})
        for i in range(count)
    ]


def test_a_search_appends_its_line_and_leaves_the_log_as_it_was(ws: Workspace) -> None:
    """A search writes little: its line at the end, nothing before it rewritten
    (the same file, the earlier bytes as they were), even above the cap."""
    path = ws.root / LOG
    before = "\n".join(_old_entries(MAX_ENTRIES + 20)) + "\n"
    path.write_text(before)
    inode = path.stat().st_ino
    assert record_search(ws, "newest", ("cold",), 3).warnings == ()
    after = path.read_text()
    assert after.startswith(before) and path.stat().st_ino == inode
    assert json.loads(after[len(before) :])["query"] == "newest"
    assert recent_searches(ws, limit=1).searches[0].query == "newest"


def test_a_torn_last_line_is_ended_before_the_next(ws: Workspace) -> None:
    (ws.root / LOG).write_text('{"query": "cut')
    record_search(ws, "next", ("cold",), 1)
    report = recent_searches(ws)
    assert [s.query for s in report.searches] == ["next"]
    assert report.warnings == (f"{LOG}: 1 malformed line(s) ignored",)


def test_log_past_twice_the_cap_is_cut_to_the_newest_entries(ws: Workspace) -> None:
    """Updated for v4 (a search writes little): the log is compacted only past
    twice `MAX_ENTRIES`, then to the newest `MAX_ENTRIES` (it was cut on every search)."""
    path = ws.root / LOG
    path.write_text("\n".join(_old_entries(2 * MAX_ENTRIES)) + "\n")
    assert record_search(ws, "newest", ("cold",), 3).warnings == ()
    entries = log_entries(ws.root)
    assert len(entries) == MAX_ENTRIES
    assert entries[-1]["query"] == "newest"
    assert entries[0]["query"] == f"q{MAX_ENTRIES + 1}"


def test_search_log_false_writes_nothing(cli: CliRunner, root: Path) -> None:
    (root / "memory/memtier.toml").write_text("search_log = false\n")
    assert cli("search", "anything", "--root", str(root)).exit_code == 0
    assert not (root / LOG).exists()


def test_a_failed_log_write_only_warns(cli: CliRunner, root: Path) -> None:
    (root / LOG).mkdir()  # a folder where the log should be: the write must fail
    (root / "memory/episodic/2026-11-29.md").write_text("# x\n\n- marten\n")
    result = cli("search", "marten", "--json", "--root", str(root))
    assert result.exit_code == 0
    payload = json.loads(result.stdout)
    assert len(payload["results"]) == 1
    assert any(w.startswith("search not logged:") for w in payload["warnings"])
    assert "memtier: warning: search not logged:" in result.stderr


def test_secrets_in_a_query_are_redacted_before_logging(cli: CliRunner, root: Path) -> None:
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    result = cli("search", f"token {token}", "--root", str(root))
    assert result.exit_code == 0
    text = (root / LOG).read_text()
    assert token not in text
    assert "[REDACTED:" in text
    assert "redacted 1 secret(s)" in result.stderr
    assert token not in result.stderr


def test_malformed_lines_are_skipped_with_a_warning(ws: Workspace) -> None:
    good = {"query": "ok", "tiers": ["hot"], "result_count": 0, "timestamp": NOW_TEXT}
    (ws.root / LOG).write_text("not json\n" + json.dumps(good) + "\n[1, 2]\n")
    report = recent_searches(ws)
    assert [s.query for s in report.searches] == ["ok"]
    assert report.warnings == (f"{LOG}: 2 malformed line(s) ignored",)


def test_recent_searches_newest_first_limit_and_zero(cli: CliRunner, root: Path) -> None:
    ws = Workspace.open(root, NOW)
    for i, count in enumerate([0, 2, 0, 5, 0]):
        record_search(ws, f"query {i}", ("cold",), count)
    out = cli("recent-searches", "--json", "--root", str(root))
    assert out.exit_code == 0
    payload = json.loads(out.stdout)
    assert set(payload) == {"searches"}
    assert [s["query"] for s in payload["searches"]] == [f"query {i}" for i in (4, 3, 2, 1, 0)]
    assert set(payload["searches"][0]) == {"query", "tiers", "result_count", "timestamp"}
    zero = json.loads(cli("recent-searches", "--zero", "--limit", "2", "--json",
                          "--root", str(root)).stdout)  # fmt: skip
    assert [s["query"] for s in zero["searches"]] == ["query 4", "query 2"]
    text = cli("recent-searches", "--limit", "1", "--root", str(root)).stdout.splitlines()
    assert text == [f"{NOW_TEXT}    0 results  query 4  [cold]"]


def test_recent_searches_with_an_empty_log(cli: CliRunner, root: Path) -> None:
    assert cli("recent-searches", "--root", str(root)).stdout == "no searches logged\n"
    zero = cli("recent-searches", "--zero", "--root", str(root))
    assert zero.stdout == "no searches without results\n"
    assert cli("recent-searches", "--limit", "0", "--root", str(root)).exit_code == 2


def test_concurrent_searches_lose_no_entry(root: Path) -> None:
    import subprocess

    from tests.conftest import memtier_command

    env_root = {"MEMTIER_ROOT": str(root)}
    procs = [
        subprocess.Popen(
            [*memtier_command(), "search", f"word{i}"],
            env={**__import__("os").environ, **env_root},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        for i in range(6)
    ]
    for proc in procs:
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == 0, err
    assert sorted(e["query"] for e in log_entries(root)) == [f"word{i}" for i in range(6)]
    assert run_memtier("recent-searches", env=env_root).returncode == 0


def test_recent_searches_zero_lists_each_query_once_with_its_count(
    cli: CliRunner, root: Path
) -> None:
    ws = Workspace.open(root, NOW)
    for query, count in [("nas", 0), ("vlan", 0), ("nas", 0), ("ok", 3), ("nas", 0)]:
        record_search(ws, query, ("cold",), count)
    payload = json.loads(cli("recent-searches", "--zero", "--json", "--root", str(root)).stdout)
    assert [(s["query"], s["count"]) for s in payload["searches"]] == [("nas", 3), ("vlan", 1)]
    text = cli("recent-searches", "--zero", "--root", str(root)).stdout.splitlines()
    assert text[0].endswith("nas  [cold]  (3 times)")
    assert text[1].endswith("vlan  [cold]")


def test_a_second_search_compiles_no_pattern_again(ws: Workspace) -> None:
    """Patterns are compiled once per process (the tool server answers many searches)."""
    from memtier.search import SearchRequest, search
    from memtier.search.tokens import precise_re

    (ws.root / "memory/episodic/2026-11-29.md").write_text("# x\n\n- badger sett\n")
    search(ws, SearchRequest(query="badger sett", rg=None))
    before = precise_re.cache_info()
    search(ws, SearchRequest(query="badger sett", rg=None))
    after = precise_re.cache_info()
    assert (after.misses, after.hits) == (before.misses, before.hits + 1)
