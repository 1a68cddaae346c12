"""`memtier search`: ranking behaviour, filters, output, and bad input (PROTOCOL §9)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from memtier.search.scanner import find_rg
from memtier.workspace import Workspace
from tests.conftest import NOW_TEXT, CliRunner, run_memtier

HAS_RG = find_rg() is not None
SCANNERS = [
    pytest.param("rg", marks=pytest.mark.skipif(not HAS_RG, reason="no rg binary")),
    "python",
]


@pytest.fixture(params=SCANNERS)
def scanner(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Every behaviour test runs once with ripgrep and once with the Python scanner."""
    if request.param == "python":
        monkeypatch.setenv("MEMTIER_RG", "none")
    else:
        monkeypatch.delenv("MEMTIER_RG", raising=False)
    return str(request.param)


def write(root: Path, rel: str, text: str) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def search(cli: CliRunner, root: Path, *args: str) -> dict[str, object]:
    result = cli("search", *args, "--json", "--root", str(root), "--now", NOW_TEXT)
    assert result.exit_code == 0, result.stderr
    payload = json.loads(result.stdout)
    assert isinstance(payload, dict)
    return payload


def results(payload: dict[str, object]) -> list[dict[str, object]]:
    found = payload["results"]
    assert isinstance(found, list)
    return found


def paths(payload: dict[str, object]) -> list[object]:
    return [r["path"] for r in results(payload)]


def test_json_keys_are_the_contract(cli: CliRunner, root: Path, scanner: str) -> None:
    write(root, "memory/episodic/2026-11-20.md", "# 2026-11-20\n\n- moved qdrant to host b\n")
    payload = search(cli, root, "qdrant")
    assert set(payload) == {"query", "tiers", "total_matched", "results", "warnings"}
    assert payload["query"] == "qdrant"
    assert payload["tiers"] == ["hot", "warm", "index", "buffer", "scratch", "cold"]
    assert payload["total_matched"] == 1
    (hit,) = results(payload)
    assert set(hit) == {
        "path", "tier", "line", "line_start", "line_end", "score", "excerpt", "matched_terms",
    }  # fmt: skip
    assert hit["line"] == 3  # PROTOCOL §9: a hit's line, its first matching line
    assert hit["path"] == "memory/episodic/2026-11-20.md"
    assert hit["tier"] == "cold"
    assert (hit["line_start"], hit["line_end"]) == (3, 3)
    assert hit["excerpt"] == "- moved qdrant to host b"
    assert hit["matched_terms"] == ["qdrant"]
    assert isinstance(hit["score"], float) and hit["score"] > 0


def test_warm_fact_outranks_the_same_words_in_an_old_note(
    cli: CliRunner, root: Path, scanner: str
) -> None:
    fact = "- the coturn relay listens on port 3478\n"
    write(
        root,
        "memory/semantic/infrastructure.md",
        "# Infrastructure\n#tags: networking\n> last_verified: 2026-11-30\n\n" + fact,
    )
    write(root, "memory/episodic/2026-06-01.md", "# 2026-06-01\n\n" + fact)
    assert paths(search(cli, root, "coturn port")) == [
        "memory/semantic/infrastructure.md",
        "memory/episodic/2026-06-01.md",
    ]


def test_newer_note_outranks_older_on_equal_text(cli: CliRunner, root: Path, scanner: str) -> None:
    text = "- synapse media repo filled the disk again\n"
    for day in ("2026-09-01", "2026-11-25", "2026-10-10"):
        write(root, f"memory/episodic/{day}.md", f"# {day}\n\n{text}")
    assert paths(search(cli, root, "synapse disk")) == [
        "memory/episodic/2026-11-25.md",
        "memory/episodic/2026-10-10.md",
        "memory/episodic/2026-09-01.md",
    ]


def test_terms_together_outrank_scattered_ones(cli: CliRunner, root: Path, scanner: str) -> None:
    write(
        root,
        "memory/episodic/2026-11-01.md",
        "# 2026-11-01\n\n- apt mirror slow\n\n- rebuild of the image\n\n- timeout on pull\n",
    )
    write(
        root,
        "memory/episodic/2026-11-02.md",
        "# 2026-11-02\n\n- apt mirror timeout during the rebuild\n",
    )
    found = results(search(cli, root, "mirror timeout rebuild"))
    assert found[0]["path"] == "memory/episodic/2026-11-02.md"
    assert found[0]["matched_terms"] == ["mirror", "timeout", "rebuild"]
    assert all(r["score"] < found[0]["score"] for r in found[1:])  # type: ignore[operator]


def test_phrase_in_order_outranks_the_same_words_apart(
    cli: CliRunner, root: Path, scanner: str
) -> None:
    write(
        root,
        "memory/episodic/2026-11-01.md",
        "# a\n\n- the backup job checked the disk, then the rotation log\n",
    )
    write(
        root,
        "memory/episodic/2026-11-02.md",
        "# b\n\n- the disk log rotation job checked the backup, then it\n",
    )
    assert paths(search(cli, root, "disk log rotation"))[0] == "memory/episodic/2026-11-02.md"


@pytest.mark.parametrize(
    ("query", "line"),
    [
        ("group-identify", "- posthog bills group-identify calls apart"),
        ("v4.6.14", "- pinned the bridge to v4.6.14 after the crash"),
        ("10.0.0.5", "- qdrant now answers on 10.0.0.5:6333"),
        ("数据", "- 数据库迁移已完成"),
        ("迁移", "- 数据库迁移已完成"),
    ],
)
def test_hyphenated_dotted_and_cjk_queries_find_their_line(
    cli: CliRunner, root: Path, scanner: str, query: str, line: str
) -> None:
    write(
        root,
        "memory/episodic/2026-11-28.md",
        "# 2026-11-28\n\n- posthog bills group-identify calls apart\n\n"
        "- pinned the bridge to v4.6.14 after the crash\n\n"
        "- qdrant now answers on 10.0.0.5:6333 and 10.0.0.50:6333 was retired\n\n"
        "- 数据库迁移已完成\n",
    )
    found = results(search(cli, root, query))
    assert found, query
    assert found[0]["excerpt"].startswith(line)  # type: ignore[union-attr]
    assert found[0]["matched_terms"] == [query]


def test_dotted_query_does_not_match_a_longer_number(
    cli: CliRunner, root: Path, scanner: str
) -> None:
    write(root, "memory/episodic/2026-11-28.md", "# x\n\n- old host 10.0.0.50 retired\n")
    assert results(search(cli, root, "10.0.0.5")) == []


def test_word_endings_match_but_count_less(cli: CliRunner, root: Path, scanner: str) -> None:
    write(root, "memory/episodic/2026-11-27.md", "# x\n\n- restarted the bridge twice\n")
    write(root, "memory/episodic/2026-11-26.md", "# x\n\n- restart the bridge twice\n")
    found = results(search(cli, root, "restarting"))
    assert [r["path"] for r in found] == [
        "memory/episodic/2026-11-26.md",
        "memory/episodic/2026-11-27.md",
    ]


def test_tier_filter_and_order(cli: CliRunner, root: Path, scanner: str) -> None:
    write(root, ".learnings/ERRORS.md", "- 2026-11-29 docker login failed\n")
    write(root, "memory/episodic/2026-11-29.md", "# x\n\n- docker login worked\n")
    assert paths(search(cli, root, "docker", "--tier", "SCRATCH")) == [".learnings/ERRORS.md"]
    payload = search(cli, root, "docker", "--tier", "cold", "--tier", "scratch")
    assert payload["tiers"] == ["scratch", "cold"]
    assert sorted(paths(payload)) == [".learnings/ERRORS.md", "memory/episodic/2026-11-29.md"]


def test_unknown_tier_is_an_input_error(cli: CliRunner, root: Path) -> None:
    result = cli("search", "x", "--tier", "lukewarm", "--root", str(root))
    assert result.exit_code == 2
    assert result.stderr.startswith("memtier: error: unknown tier 'lukewarm'")


def test_archive_with_all_or_its_tier_or_when_nothing_live(
    cli: CliRunner, root: Path, scanner: str
) -> None:
    write(root, "memory/archive/2025/01/2025-01-03.md", "# old\n\n- the zanzibar relay died\n")
    write(root, "memory/episodic/2026-11-20.md", "# 2026-11-20\n\n- zanzibar relay is up\n")
    live = search(cli, root, "zanzibar")  # a good live hit: the archive stays out
    assert paths(live) == ["memory/episodic/2026-11-20.md"] and live["total_matched"] == 1
    (root / "memory/episodic/2026-11-20.md").unlink()
    everything = search(cli, root, "zanzibar", "--all")
    assert everything["tiers"] == ["hot", "warm", "index", "buffer", "scratch", "cold", "archive"]
    assert paths(everything) == ["memory/archive/2025/01/2025-01-03.md"]
    assert results(everything)[0]["tier"] == "archive"
    fallback = search(cli, root, "zanzibar")  # v4: nothing live, the archive too
    assert paths(fallback) == paths(everything) and fallback["tiers"] == everything["tiers"]
    only = search(cli, root, "zanzibar", "--tier", "archive")
    assert only["tiers"] == ["archive"] and len(results(only)) == 1


def test_tag_filter_keeps_tag_line_files_and_inline_tags(
    cli: CliRunner, root: Path, scanner: str
) -> None:
    write(
        root,
        "memory/semantic/infrastructure.md",
        "# Infra\n#tags: docker, networking\n> last_verified: 2026-11-30\n\n- bridge on br0\n",
    )
    write(
        root,
        "memory/semantic/projects.md",
        "# Projects\n#tags: tasks\n> last_verified: 2026-11-30\n\n- bridge rewrite\n",
    )
    write(
        root,
        "memory/episodic/2026-11-29.md",
        "# x\n\n- bridge flapped #docker\n\n- bridge painted blue\n",
    )
    payload = search(cli, root, "bridge", "--tag", "docker")
    assert sorted((r["path"], r["line_start"]) for r in results(payload)) == [  # type: ignore[type-var]
        ("memory/episodic/2026-11-29.md", 3),
        ("memory/semantic/infrastructure.md", 5),
    ]
    assert results(search(cli, root, "bridge", "--tag", "#tasks"))[0]["path"] == (
        "memory/semantic/projects.md"
    )


def test_regex_matches_a_raw_pattern(cli: CliRunner, root: Path, scanner: str) -> None:
    write(root, "memory/episodic/2026-11-29.md", "# x\n\n- ticket OPS-1234 closed\n- OPS-77 open\n")
    payload = search(cli, root, r"OPS-\d{4}", "--regex")
    (hit,) = results(payload)
    assert hit["matched_terms"] == ["ops-1234"]
    assert "OPS-1234" in str(hit["excerpt"])
    bad = cli("search", "(unclosed", "--regex", "--root", str(root))
    assert bad.exit_code == 2
    assert "invalid search pattern" in bad.stderr
    # Both scanners say what is wrong, not only that something is.
    assert "unclosed" in bad.stderr or "missing )" in bad.stderr, bad.stderr
    assert bad.stderr.count("\n") == 1


def test_zero_hits_are_reported_plainly(cli: CliRunner, root: Path, scanner: str) -> None:
    result = cli("search", "nonexistentword", "--root", str(root), "--now", NOW_TEXT)
    assert result.exit_code == 0
    assert result.stdout.splitlines() == [
        "no matches for 'nonexistentword' in HOT, WARM, INDEX, BUFFER, SCRATCH, COLD",
        "hint: add --all to search the archive too",
    ]


def test_query_without_words_is_an_input_error(cli: CliRunner, root: Path) -> None:
    result = cli("search", " -- ,", "--root", str(root))
    assert result.exit_code == 2
    assert "nothing to search for" in result.stderr


def test_human_output_is_shaped_like_ripgrep(cli: CliRunner, root: Path, scanner: str) -> None:
    write(
        root,
        "memory/episodic/2026-11-29.md",
        "# x\n\n- first line\n- the qdrant snapshot\n- last line\n",
    )
    result = cli("search", "qdrant", "--root", str(root), "--now", NOW_TEXT)
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    # PROTOCOL §9 v3: the header names the hit's line, as ``rg -n`` does.
    assert lines[0].startswith("memory/episodic/2026-11-29.md:4  COLD  score ")
    assert lines[1:4] == ["3-- first line", "4:- the qdrant snapshot", "5-- last line"]
    assert lines[-1] == "1 of 1 matching sections in HOT, WARM, INDEX, BUFFER, SCRATCH, COLD"
    none = cli("search", "qdrant", "--context", "0", "--root", str(root), "--now", NOW_TEXT)
    assert none.stdout.splitlines()[1:2] == ["4:- the qdrant snapshot"]


def test_long_lists_are_cut_into_items(cli: CliRunner, root: Path, scanner: str) -> None:
    items = "".join(f"- fact number {i} about host{i}\n" for i in range(1, 11))
    write(
        root,
        "memory/semantic/infrastructure.md",
        "# Infra\n#tags: networking\n> last_verified: 2026-11-30\n\n## Hosts\n" + items,
    )
    (hit,) = results(search(cli, root, "host7"))
    assert hit["line"] == 12
    assert (hit["line_start"], hit["line_end"]) == (11, 13)  # the line and its neighbours


def test_limit(cli: CliRunner, root: Path, scanner: str) -> None:
    for day in range(1, 8):
        write(root, f"memory/episodic/2026-11-0{day}.md", "# x\n\n- pm2 restarted\n")
    payload = search(cli, root, "pm2", "--limit", "3")
    assert len(results(payload)) == 3
    assert payload["total_matched"] == 7
    assert cli("search", "pm2", "--limit", "0", "--root", str(root)).exit_code == 2


def test_hidden_folders_and_ignore_files_do_not_hide_memory(
    cli: CliRunner, root: Path, scanner: str
) -> None:
    write(root, ".gitignore", "*.md\n.learnings/\nmemory/\n")
    write(root, ".ignore", "*\n")
    write(root, ".learnings/LEARNINGS.md", "- 2026-11-29 fail2ban jails need reload\n")
    write(root, "memory/episodic/2026-11-29.md", "# x\n\n- fail2ban banned me\n")
    assert sorted(paths(search(cli, root, "fail2ban"))) == [
        ".learnings/LEARNINGS.md",
        "memory/episodic/2026-11-29.md",
    ]


def test_only_tier_files_are_searched(cli: CliRunner, root: Path, scanner: str) -> None:
    write(root, "memory/scripts/health-check.md", "kestrel\n")
    write(root, "memory/episodic/sub/2026-11-29.md", "kestrel\n")
    write(root, "memory/episodic/notes.txt", "kestrel\n")
    write(root, "memory/semantic/deep/x.md", "kestrel\n")
    write(root, "README.md", "kestrel\n")
    write(root, "memory/.searches.jsonl", '{"query": "kestrel"}\n')
    write(root, "memory/episodic/.2026-11-29.md.1a2b.memtier-tmp", "kestrel\n")
    assert results(search(cli, root, "kestrel")) == []


def test_crlf_and_bom_keep_line_numbers(cli: CliRunner, root: Path, scanner: str) -> None:
    path = root / "memory/episodic/2026-11-29.md"
    path.write_bytes(b"\xef\xbb\xbf# x\r\n\r\n- one\r\n- wombat here\r\n")
    (hit,) = results(search(cli, root, "wombat", "--context", "0"))
    assert hit["excerpt"] == "- wombat here"
    assert (hit["line"], hit["line_start"], hit["line_end"]) == (4, 4, 4)


def test_bad_files_are_skipped_with_warnings_and_nothing_outside_is_read(
    cli: CliRunner, root: Path, tmp_path: Path, scanner: str
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("ocelot outside the root\n")
    episodic = root / "memory/episodic"
    (episodic / "2026-11-01.md").write_bytes(b"ocelot\x00\x01\x02 binary\n")
    (episodic / "2026-11-02.md").write_bytes(b"caf\xe9 ocelot latin-1\n")
    (episodic / "2026-11-03.md").write_text("# x\n\n- ocelot seen\n")
    os.symlink(outside / "secret.md", episodic / "2026-11-04.md")
    os.symlink("loop.md", episodic / "loop.md")
    os.symlink(outside, root / "memory/semantic/linked")
    os.symlink(outside / "secret.md", root / ".learnings/ERRORS-link.md")
    result = cli("search", "ocelot", "--json", "--root", str(root), "--now", NOW_TEXT)
    assert result.exit_code == 0
    payload = json.loads(result.stdout)
    assert [r["path"] for r in payload["results"]] == ["memory/episodic/2026-11-03.md"]
    warnings = "\n".join(payload["warnings"])
    assert "memory/episodic/2026-11-02.md: not UTF-8" in warnings
    assert "memory/episodic/2026-11-04.md: symlink" in warnings
    assert "memory/episodic/loop.md: symlink" in warnings
    assert ".learnings/ERRORS-link.md: symlink" in warnings
    assert "memory/episodic/2026-11-01.md: binary file" in warnings
    assert "Traceback" not in result.stderr
    assert result.stderr.count("memtier: warning: ") == len(payload["warnings"])


def test_tier_file_symlinked_outside_is_not_read(
    cli: CliRunner, root: Path, tmp_path: Path, scanner: str
) -> None:
    outside = tmp_path / "elsewhere.md"
    outside.write_text("# Agent Memory\n- lynx outside\n")
    (root / "memory/working-buffer.md").unlink()
    os.symlink(outside, root / "memory/working-buffer.md")
    payload = search(cli, root, "lynx")
    assert results(payload) == []
    assert payload["warnings"] == [
        "skipped memory/working-buffer.md: symlink pointing outside the workspace"
    ]


def test_search_takes_no_lock_and_writes_only_the_log(
    cli: CliRunner, root: Path, snapshot: object, scanner: str
) -> None:
    from filelock import FileLock

    write(root, "memory/episodic/2026-11-29.md", "# x\n\n- heron\n")
    write(root, "memory/memtier.toml", "search_log = false\n")
    before = snapshot(root)  # type: ignore[operator]
    held = FileLock(str(root / "memory/.memtier.lock"))
    with held:  # another writer holds the workspace lock: search still answers at once
        assert len(results(search(cli, root, "heron"))) == 1
    assert snapshot(root) == before  # type: ignore[operator]


def test_real_process_with_env_root(root: Path) -> None:
    write(root, "memory/episodic/2026-11-29.md", "# x\n\n- kingfisher migrated\n")
    proc = run_memtier("search", "kingfisher", "--json", env={"MEMTIER_ROOT": str(root)})
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["results"][0]["path"] == "memory/episodic/2026-11-29.md"


def test_missing_rg_override_falls_back_with_a_warning(
    cli: CliRunner, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(root, "memory/episodic/2026-11-29.md", "# x\n\n- egret\n")
    monkeypatch.setenv("MEMTIER_RG", "/nonexistent/rg")
    result = cli("search", "egret", "--json", "--root", str(root))
    assert result.exit_code == 0
    assert "MEMTIER_RG=/nonexistent/rg not found" in result.stderr
    assert len(json.loads(result.stdout)["results"]) == 1


def test_a_query_asking_for_the_latest_favours_the_newest_note(
    cli: CliRunner, root: Path, scanner: str
) -> None:
    write(root, "memory/episodic/2026-06-01.md", "# a\n\n- renewed the nginx certificate\n")
    write(root, "memory/episodic/2026-11-20.md",
          "# b\n\n- renewed the nginx certificate, dns challenge again\n")  # fmt: skip
    plain = paths(search(cli, root, "nginx certificate renewed"))
    assert plain[0] == "memory/episodic/2026-06-01.md"  # shorter, so BM25 prefers it
    latest = search(cli, root, "when was the nginx certificate last renewed")
    assert paths(latest)[0] == "memory/episodic/2026-11-20.md"
    assert results(latest)[0]["matched_terms"] == ["nginx", "certificate", "renew"]


def test_a_broken_rg_falls_back_to_the_built_in_scanner(
    cli: CliRunner, root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(root, "memory/episodic/2026-11-29.md", "# x\n\n- plover\n")
    broken = tmp_path / "rg"
    broken.write_text("#!/bin/sh\necho 'rg: something went wrong' >&2\nexit 2\n")
    broken.chmod(0o755)
    monkeypatch.setenv("MEMTIER_RG", str(broken))
    result = cli("search", "plover", "--json", "--root", str(root))
    assert result.exit_code == 0
    payload = json.loads(result.stdout)
    assert [r["path"] for r in payload["results"]] == ["memory/episodic/2026-11-29.md"]
    assert payload["warnings"][0] == (
        f"ripgrep ({broken}) failed: rg: something went wrong; used the built-in scanner"
    )


def test_a_huge_line_is_cut_to_a_window_around_the_match(
    cli: CliRunner, root: Path, scanner: str
) -> None:
    write(root, "memory/episodic/2026-11-29.md", "# x\n\n- " + "y" * 5000 + " zebra " + "z" * 5000)
    (hit,) = results(search(cli, root, "zebra"))
    excerpt = str(hit["excerpt"])
    assert len(excerpt) < 500
    assert "zebra" in excerpt
    assert excerpt.startswith("…") and excerpt.endswith("…")
    text = cli("search", "zebra", "--root", str(root)).stdout.splitlines()
    assert text[1].startswith("3:…y")


def test_a_credential_standing_in_a_file_is_never_printed(
    cli: CliRunner, root: Path, scanner: str
) -> None:
    """PROTOCOL §3 v2: search output never echoes a secret, also one a person pasted
    into a file by hand (health-check fails on it; the hit still shows the line)."""
    token = "ghp_" + "A1b2C3d4" * 5
    write(
        root,
        "memory/semantic/infrastructure.md",
        "# Infra\n#tags: ssh\n> last_verified: "
        "2026-11-30\n\n- the deploy bot pushes with " + token + " to gitea\n",
    )
    payload = search(cli, root, "deploy bot")
    hits = results(payload)
    assert hits and "[REDACTED:GITHUB_TOKEN]" in str(hits[0]["excerpt"])
    text = cli("search", "deploy bot", "--root", str(root), "--now", NOW_TEXT)
    assert text.exit_code == 0
    assert token not in text.stdout + text.stderr
    assert token not in json.dumps(payload)


def test_the_core_redacts_the_query_for_every_caller(ws: Workspace) -> None:
    """PROTOCOL §3 v2: the tool server calls `search` directly, so the query's
    credential must be replaced there, not only in the CLI's command."""
    from memtier.search import SearchRequest, search

    token = "ghp_" + "Z9y8X7w6" * 5
    report = search(ws, SearchRequest(query=f"deploy {token}", rg=None))
    shown = json.dumps(report.to_json()) + "\n".join(report.text_lines())
    assert token not in shown
    assert "[REDACTED:GITHUB_TOKEN]" in report.query
    assert any("redacted 1 secret(s) in the query: GITHUB_TOKEN" in n for n in report.notices)
