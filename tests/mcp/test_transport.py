"""The transports under hostile input (PROTOCOL §11 v3): frames the SDK would drop are
answered, and a busy port is the person's to change (one line, exit 2)."""

from __future__ import annotations

import json
import socket
import subprocess
from pathlib import Path

import pytest

pytest.importorskip("mcp")

from memtier.mcp.frames import MAX_FRAME, _frame_id
from tests.conftest import NOW_TEXT, memtier_command, run_memtier

INIT = (
    '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18",'
    '"capabilities":{},"clientInfo":{"name":"t","version":"1"}}}'
)
READY = '{"jsonrpc":"2.0","method":"notifications/initialized"}'


def _call(frame_id: object, arguments: str) -> str:
    head = f'{{"jsonrpc":"2.0","id":{json.dumps(frame_id)},"method":"tools/call",'
    return head + f'"params":{{"name":"memory_note","arguments":{arguments}}}}}'


def test_frames_the_parser_refuses_are_answered_with_their_id(root: Path) -> None:
    frames = [
        INIT,
        READY,
        _call(8, '{"text":' + "[" * 100_000 + "]" * 100_000 + "}"),
        _call("big", '{"text":' + "9" * 5000 + "}"),
        _call(9, '{"text":"' + "x" * (MAX_FRAME + 10) + '"}'),
    ]
    proc = _serve(root, frames)
    answers = {m["id"]: m for m in map(json.loads, proc.stdout.splitlines())}
    assert "nested deeper" in answers[8]["error"]["message"]
    assert "number too large" in answers["big"]["error"]["message"]
    assert f"larger than {MAX_FRAME} bytes" in answers[9]["error"]["message"]
    assert all(answers[i]["error"]["code"] == -32600 for i in (8, "big", 9))
    assert "x" * 100 not in (root / "memory/working-buffer.md").read_text()


ODD_IDS = ("1.5", "9" * 5000, "true", "null", "[1]", "{}", "1e3")


def test_a_request_whose_id_cannot_be_answered_gets_an_error_with_a_null_id(root: Path) -> None:
    """PROTOCOL §11 v4: never silence. An id MCP does not allow (a fraction, a number
    too large to read, a boolean, null, a list, an object) and a frame that is not
    JSON each get JSON-RPC error -32600 with ``"id": null`` (JSON-RPC 2.0: the id
    could not be told); the server keeps serving, in order."""
    frames = [INIT, READY]
    frames += [f'{{"jsonrpc":"2.0","id":{odd},"method":"tools/list"}}' for odd in ODD_IDS]
    frames += ["not json", '{"jsonrpc":"2.0","id":77,"method":"ping"}']
    proc = _serve(root, frames)
    answers = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [a["id"] for a in answers] == [0, *[None] * (len(ODD_IDS) + 1), 77], proc.stderr
    refused = answers[1:-1]
    assert all(a["error"]["code"] == -32600 for a in refused)
    assert refused[0]["error"]["message"] == (
        "memtier: error: request refused: its id is not a string or an integer"
    )
    assert "number too large" in refused[1]["error"]["message"]
    assert "9" * 50 not in proc.stdout  # the oversized id is not echoed
    assert answers[-1]["result"] is not None


def test_the_frame_id_is_read_at_the_top_level_only() -> None:
    assert _frame_id(b'{"jsonrpc":"2.0","params":{"id":5},"id":"a\\"b","x":[[[') == 'a"b'
    assert _frame_id(b'{"jsonrpc":"2.0","method":"x","params":[[[') is None
    assert _frame_id(b'{"id":' + b"9" * 5000 + b"}") is None


def test_a_busy_port_is_one_error_line_and_exit_2(root: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        result = run_memtier("--root", str(root), "mcp", "--http", "--port", str(port))
    assert result.returncode == 2
    assert result.stderr == (
        f"memtier: error: --port {port}: already in use on 127.0.0.1; choose another port\n"
    )


@pytest.mark.slow
def test_a_tool_call_over_http_reaches_the_servers_workspace(root: Path) -> None:
    """`memtier mcp --http` as a person starts it: each tool finds the workspace through
    the server's lifespan on this transport too (a write lands, a search reads)."""
    import time

    import anyio
    from mcp import Client

    with socket.socket() as probe:  # a port free now
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    argv = [*memtier_command(), "--root", str(root), "--now", NOW_TEXT, "mcp", "--http"]
    server = subprocess.Popen([*argv, "--port", str(port)], stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and server.poll() is None:
            with socket.socket() as knock:
                if knock.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.05)

        async def session() -> tuple[str, str]:
            async with Client(f"http://127.0.0.1:{port}/mcp") as client:
                noted = await client.call_tool("memory_note", {"text": "zanzibar relay up"})
                found = await client.call_tool("memory_search", {"query": "zanzibar"})
            assert noted.structured_content is None and found.structured_content is None
            return noted.content[0].text, found.content[0].text

        noted, found = anyio.run(session)
    finally:
        server.terminate()
        _, err = server.communicate(timeout=30)
    assert "zanzibar relay up" in (root / "memory/working-buffer.md").read_text()
    assert noted.startswith("added note")
    assert "memory/working-buffer.md" in found, (found, err)
    assert f"serving http://127.0.0.1:{port}/mcp" in err.decode()


def test_every_request_before_the_end_of_input_is_answered(root: Path) -> None:
    """PROTOCOL §11 v4: never silence. A client that writes its requests and closes its
    side at once (a script, a pipe) still reads an answer to each, the slow ones too:
    the end of the input waits for the answers owed."""
    calls = [
        f'{{"jsonrpc":"2.0","id":{n},"method":"tools/call",'
        f'"params":{{"name":"memory_health","arguments":{{}}}}}}'
        for n in range(10, 14)
    ]
    frames = [INIT, READY, *calls, '{"jsonrpc":"2.0","id":77,"method":"ping"}']
    proc = _serve(root, frames)
    answers = [json.loads(line) for line in proc.stdout.splitlines()]
    assert sorted(a["id"] for a in answers) == [0, 10, 11, 12, 13, 77], proc.stderr


def _serve(root: Path, frames: list[str]) -> subprocess.CompletedProcess[str]:
    """A real `memtier mcp` on *root* given *frames* on stdin, which then ends."""
    return subprocess.run(
        [*memtier_command(), "mcp"],
        input="\n".join(frames) + "\n",
        capture_output=True,
        text=True,
        timeout=120,
        env={"MEMTIER_ROOT": str(root), "MEMTIER_NOW": NOW_TEXT, "PATH": "/usr/bin:/bin"},
    )
