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


def test_log_is_bounded_to_the_newest_entries(ws: Workspace) -> None:
    path = ws.root / LOG
    old = [
        json.dumps({"query": f"q{i}", "tiers": ["cold"], "result_count": i, "timestamp": NOW_TEXT})
        for i in range(MAX_ENTRIES + 20)
    ]
    path.write_text("\n".join(old) + "\n")
    assert record_search(ws, "newest", ("cold",), 3).warnings == ()
    entries = log_entries(ws.root)
    assert len(entries) == MAX_ENTRIES
    assert entries[-1]["query"] == "newest"
    assert entries[0]["query"] == "q21"


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
