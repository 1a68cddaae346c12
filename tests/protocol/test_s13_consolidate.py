"""PROTOCOL §13: generations — extractive, cited, deterministic, immutable, chained; plans."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

from tests.conftest import CliRunner
from tests.protocol.s13_support import note, run

GEN1 = "memory/consolidated/blog-gen1-2026-04-15.md"


def _blog(root: Path) -> None:
    note(root, "2026-03-20", "- started the personal blog", archived=True,
         closure="blog uses next.js; bought milk|blog: pick a host")  # fmt: skip
    note(root, "2026-04-02", "- blog hosting compared", "- unrelated: nas01 fan noise",
         closure="host the blog on vercel|blog: pick a host; nas01 fan")  # fmt: skip
    note(root, "2026-04-05", "- blog domain bought", closure="none|blog: write the about page")
    note(root, "2026-04-15", "- blog: today, still changing")  # today: never covered


def test_a_generation_is_extractive_and_cited(cli: CliRunner, root: Path) -> None:
    _blog(root)
    run(cli, root, "index", "add", "blog", "--category", "projects")
    code, payload, err = run(cli, root, "consolidate", "blog")
    assert code == 0, err
    assert payload["generations"][0]["path"] == GEN1
    text = (root / GEN1).read_text()
    assert "Covers: 2026-03-20, 2026-04-02, 2026-04-05\n" in text
    assert "Previous: none\nSummary-by: none\n" in text
    # Decisions: the matching closure items, the archived note cited by its archived path.
    # §2 (v4): each cites its line as a link relative to memory/consolidated/.
    assert "- blog uses next.js — [2026-03-20.md:5](../archive/2026/03/2026-03-20.md)\n" in text
    assert "- host the blog on vercel — [2026-04-02.md:6](../episodic/2026-04-02.md)\n" in text
    assert "bought milk" not in text.split("## Evidence")[0]
    # Open: only the newest covered day's matching items (the others were left off).
    open_part = text.split("## Open\n")[1].split("\n\n")[0]
    assert (
        open_part == "- blog: write the about page — [2026-04-05.md:7](../episodic/2026-04-05.md)"
    )
    # The note's own bullet is not doubled (§2 v4: no `- - blog domain bought`).
    assert "\n- blog domain bought — [2026-04-05.md:3](../episodic/2026-04-05.md)\n" in text
    assert "nas01 fan noise" not in text and "still changing" not in text


def test_same_sources_and_now_same_bytes_and_notes_untouched(
    cli: CliRunner, root: Path, tmp_path: Path, snapshot: Callable[[Path], dict[str, bytes]]
) -> None:
    _blog(root)
    run(cli, root, "index", "add", "blog", "--category", "projects")
    twin = tmp_path / "twin"
    shutil.copytree(root, twin)
    notes_before = snapshot(root / "memory" / "episodic") | snapshot(root / "memory" / "archive")
    assert run(cli, root, "consolidate", "blog")[0] == 0
    assert run(cli, twin, "consolidate", "blog")[0] == 0
    assert (root / GEN1).read_bytes() == (twin / GEN1).read_bytes()
    notes_after = snapshot(root / "memory" / "episodic") | snapshot(root / "memory" / "archive")
    assert notes_after == notes_before  # nothing deleted or marked in the sources


def test_the_chain_across_generations_carries_what_still_stands(cli: CliRunner, root: Path) -> None:
    _blog(root)
    run(cli, root, "index", "add", "blog", "--category", "projects")
    assert run(cli, root, "consolidate", "blog")[0] == 0
    later = "2026-04-20T10:00:00+02:00"
    note(root, "2026-04-16", "- blog about page drafted",
         closure="blog comments via giscus|blog: write the about page")  # fmt: skip
    note(root, "2026-04-18", "- blog rss feed", closure="none|blog: add rss")
    code, _, err = run(cli, root, "consolidate", "blog", now=later)
    assert code == 0, err
    gen2 = (root / "memory/consolidated/blog-gen2-2026-04-20.md").read_text()
    assert f"Previous: {GEN1}\n" in gen2
    assert "Covers: 2026-04-15, 2026-04-16, 2026-04-18\n" in gen2
    carried = gen2.split("## Carried forward\n")[1]
    assert (
        "- decision: blog uses next.js — [2026-03-20.md:5](../archive/2026/03/2026-03-20.md)"
        in carried
    )
    assert "- decision: host the blog on vercel" in carried
    # "write the about page" was left off 04-18's Open: closed, not carried.
    assert "about page" not in carried and "- blog: add rss" in gen2.split("## Open")[1]
    index = (root / "memory" / "INDEX.md").read_text()
    assert "    - gen1 (2026-04-15): " + GEN1 in index
    assert "  - Current: memory/consolidated/blog-gen2-2026-04-20.md" in index
    # Nothing new since gen2 (today excluded): a third is refused.
    assert run(cli, root, "consolidate", "blog", now=later)[0] == 1
    health = run(cli, root, "health-check", now=later)[1]
    assert health["ok"] is True


def test_a_changed_byte_fails_health_and_a_gap_breaks_the_chain(cli: CliRunner, root: Path) -> None:
    _blog(root)
    run(cli, root, "index", "add", "blog", "--category", "projects")
    run(cli, root, "consolidate", "blog")
    path = root / GEN1
    original = path.read_bytes()
    for at in (
        0,
        original.index(b"Covers") + 9,
        original.index(b"## Evidence") + 14,
        len(original) - 2,
    ):
        changed = bytearray(original)
        changed[at] ^= 0x01
        path.write_bytes(bytes(changed))
        health = run(cli, root, "health-check")[1]
        failed = [c for c in health["checks"] if c["status"] == "fail"]
        assert [c["id"] for c in failed] == ["consolidation.immutable"], at
    path.write_bytes(original)
    moved = root / "memory/consolidated/blog-gen2-2026-04-15.md"
    text = (
        original.decode()
        .replace("generation 1", "generation 2")
        .replace("Previous: none", "Previous: memory/consolidated/blog-gen1-2026-04-14.md")
    )
    path.rename(moved)
    from memtier.formats.consolidated import digest_problem

    assert digest_problem(text) is None
    moved.write_text(text)
    health = run(cli, root, "health-check")[1]
    chain = [c for c in health["checks"] if c["id"] == "consolidation.chain"]
    assert {c["status"] for c in chain} == {"fail"}
    assert any("generation(s) 1 missing" in c["message"] for c in chain)
    assert any("blog-gen1-2026-04-14.md does not exist" in c["message"] for c in chain)


def test_plan_ids_go_stale_when_a_source_changes(cli: CliRunner, root: Path) -> None:
    _blog(root)
    run(cli, root, "index", "add", "blog", "--category", "projects")
    code, plan, _ = run(cli, root, "consolidate", "blog", "--plan")
    assert code == 0 and plan["plan_id"].startswith("p-") and plan["action"] == "plan"
    assert "# blog — generation 1" in plan["text"]
    assert not (root / "memory" / "consolidated").exists()  # a plan writes nothing
    assert run(cli, root, "consolidate", "blog", "--plan")[1]["plan_id"] == plan["plan_id"]
    source = root / "memory/episodic/2026-04-02.md"
    source.write_text(source.read_text().replace("compared", "compared again"))
    code, _, err = run(
        cli, root, "consolidate", "blog", "--plan-id", plan["plan_id"], "--summary", "Blog story."
    )
    assert code == 1 and "stale" in err
    assert not (root / "memory" / "consolidated").exists()
    fresh = run(cli, root, "consolidate", "blog", "--plan")[1]["plan_id"]
    assert fresh != plan["plan_id"]
    summary = "We chose vercel.\napi_key=sk-live-abcdefghijklmnopqrstuvwx1234 was used"
    code, payload, err = run(
        cli, root, "consolidate", "blog", "--plan-id", fresh, "--summary", "-", input=summary
    )
    assert code == 0, err
    text = (root / GEN1).read_text()
    assert "Summary-by: agent\n" in text and "We chose vercel.\n" in text
    assert "sk-live-abcdefghij" not in text and payload["redacted"]


def test_an_unknown_plan_id_is_called_unknown_not_stale(cli: CliRunner, root: Path) -> None:
    """A plan id carries its topic's mark: one no plan of this topic could have had (made
    up, mistyped, another topic's) is unknown, exit 2; one of this topic whose source
    changed since is stale, exit 1 (found with a real client: both were called stale)."""
    _blog(root)
    run(cli, root, "index", "add", "blog", "--category", "projects")
    run(cli, root, "index", "add", "other", "--category", "projects")
    other = run(cli, root, "consolidate", "other", "--plan")[1]
    current = run(cli, root, "consolidate", "blog", "--plan")[1]["plan_id"]
    for given in ("p-1", "p-0000deadbeef0000", "x" * 300, other and other.get("plan_id")):
        if given is None:
            continue
        code, _, err = run(
            cli, root, "consolidate", "blog", "--plan-id", given, "--summary", "Blog story."
        )
        assert code == 2 and " is unknown: no plan of topic 'blog' has this id" in err, err
        assert "stale" not in err and "x" * 50 not in err
        assert "memtier consolidate blog --plan" in err and current not in err
    assert not (root / "memory" / "consolidated").exists()


def test_a_summary_is_bounded_and_has_no_headings_or_closure_lines(
    cli: CliRunner, root: Path
) -> None:
    _blog(root)
    run(cli, root, "index", "add", "blog", "--category", "projects")
    plan_id = run(cli, root, "consolidate", "blog", "--plan")[1]["plan_id"]
    (root / "memory" / "memtier.toml").write_text("summary_max_chars = 40\n")
    for bad in ("x" * 41, "## Decisions\nnone", "Open: nothing"):
        code, _, err = run(cli, root, "consolidate", "blog", "--plan-id", plan_id, "--summary", bad)
        assert code == 2, (bad, err)
    assert run(cli, root, "consolidate", "blog", "--summary", "short")[0] == 2  # no plan id
    assert not (root / "memory" / "consolidated").exists()


def test_due_consolidates_every_due_topic_and_skips_the_others(cli: CliRunner, root: Path) -> None:
    _blog(root)
    note(root, "2026-04-06", "- nas01 disk swap")
    run(cli, root, "index", "add", "blog", "--category", "projects")
    run(cli, root, "index", "add", "nas", "--category", "projects", "--match", "nas01")
    code, payload, _ = run(cli, root, "consolidate", "--due")
    assert code == 0 and [g["slug"] for g in payload["generations"]] == ["blog"]
    assert run(cli, root, "consolidate", "--due")[1]["generations"] == []


def test_two_processes_consolidating_at_once_write_one_generation(root: Path) -> None:
    """PROTOCOL §3: one writer at a time; §13: a generation is created, never overwritten."""
    import subprocess

    from tests.conftest import memtier_command

    _blog(root)
    env_args = ["--root", str(root), "--now", "2026-04-15T10:00:00+02:00"]
    first = subprocess.run(
        [*memtier_command(), *env_args, "index", "add", "blog", "--category", "projects"],
        capture_output=True,
        check=False,
    )
    assert first.returncode == 0
    racers = [
        subprocess.Popen(
            [*memtier_command(), *env_args, "consolidate", "blog"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for _ in range(3)
    ]
    codes = sorted(p.wait(timeout=60) for p in racers)
    assert codes == [0, 1, 1]  # the others find nothing new once the first has written
    assert [p.name for p in (root / "memory/consolidated").iterdir()] == [GEN1.rsplit("/", 1)[1]]
    index = (root / "memory/INDEX.md").read_text()
    assert index.count("    - gen1 (2026-04-15): ") == 1
