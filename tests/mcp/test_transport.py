"""The transports under hostile input (PROTOCOL §11 v3): frames the SDK would drop are
answered, and a busy port is the person's to change (one line, exit 2)."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from memtier.mcp.frames import MAX_FRAME, _frame_id
from tests.conftest import NOW_TEXT, memtier_command
from tests.mcp.conftest import NEEDS_SDK

pytestmark = NEEDS_SDK

INIT = (
    '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18",'
    '"capabilities":{},"clientInfo":{"name":"t","version":"1"}}}'
)
READY = '{"jsonrpc":"2.0","method":"notifications/initialized"}'


def _call(frame_id: object, arguments: str) -> str:
    head = f'{{"jsonrpc":"2.0","id":{json.dumps(frame_id)},"method":"tools/call",'
    return head + f'"params":{{"name":"memory_note","arguments":{arguments}}}}}'


# Three hostile scripts, sent one after the other to ONE real `memtier mcp` (a server
# start is the SDK's second of imports); each check reads the answers to its own ids.

REFUSED = [
    _call(8, '{"text":' + "[" * 100_000 + "]" * 100_000 + "}"),
    _call("big", '{"text":' + "9" * 5000 + "}"),
    _call(9, '{"text":"' + "x" * (MAX_FRAME + 10) + '"}'),
]
ODD_IDS = ("1.5", "9" * 5000, "true", "null", "[1]", "{}", "1e3")
ODD = [
    *(f'{{"jsonrpc":"2.0","id":{odd},"method":"tools/list"}}' for odd in ODD_IDS),
    "not json",
    '{"jsonrpc":"2.0","id":77,"method":"ping"}',
]
SLOW_LAST = [
    *(
        f'{{"jsonrpc":"2.0","id":{n},"method":"tools/call",'
        f'"params":{{"name":"memory_health","arguments":{{}}}}}}'
        for n in range(10, 14)
    ),
    '{"jsonrpc":"2.0","id":78,"method":"ping"}',
]


def test_one_stdio_session_answers_every_hostile_frame(root: Path) -> None:
    proc = _serve(root, [INIT, READY, *REFUSED, *ODD, *SLOW_LAST])
    answers = [json.loads(line) for line in proc.stdout.splitlines()]
    _frames_the_parser_refuses_are_answered_with_their_id(root, answers)
    _a_request_whose_id_cannot_be_answered_gets_an_error_with_a_null_id(proc.stdout, answers)
    _every_request_before_the_end_of_input_is_answered(answers, proc.stderr)


def _frames_the_parser_refuses_are_answered_with_their_id(
    root: Path, answers: list[dict[str, Any]]
) -> None:
    """A frame nested too deep, a number too large and a frame past `MAX_FRAME` each get
    -32600 with their own id; the oversized note is never written."""
    by_id = {m["id"]: m for m in answers if m["id"] is not None}
    assert "nested deeper" in by_id[8]["error"]["message"]
    assert "number too large" in by_id["big"]["error"]["message"]
    assert f"larger than {MAX_FRAME} bytes" in by_id[9]["error"]["message"]
    assert all(by_id[i]["error"]["code"] == -32600 for i in (8, "big", 9))
    assert "x" * 100 not in (root / "memory/working-buffer.md").read_text()


def _a_request_whose_id_cannot_be_answered_gets_an_error_with_a_null_id(
    stdout: str, answers: list[dict[str, Any]]
) -> None:
    """PROTOCOL §11 v4: never silence. An id MCP does not allow (a fraction, a number
    too large to read, a boolean, null, a list, an object) and a frame that is not
    JSON each get JSON-RPC error -32600 with ``"id": null`` (JSON-RPC 2.0: the id
    could not be told); the server keeps serving, in order."""
    ids = [a["id"] for a in answers]
    refused = [a for a in answers if a["id"] is None]
    assert len(refused) == len(ODD_IDS) + 1, ids
    assert ids.index(77) > max(n for n, found in enumerate(ids) if found is None), ids
    assert all(a["error"]["code"] == -32600 for a in refused)
    assert refused[0]["error"]["message"] == (
        "memtier: error: request refused: its id is not a string or an integer"
    )
    assert "number too large" in refused[1]["error"]["message"]
    assert "9" * 50 not in stdout  # the oversized id is not echoed
    assert answers[ids.index(77)]["result"] is not None


def _every_request_before_the_end_of_input_is_answered(
    answers: list[dict[str, Any]], stderr: str
) -> None:
    """PROTOCOL §11 v4: never silence. A client that writes its requests and closes its
    side at once (a script, a pipe) still reads an answer to each, the slow ones too:
    the end of the input waits for the answers owed."""
    ids = [a["id"] for a in answers if a["id"] is not None]
    assert sorted(ids, key=str) == sorted([0, 8, "big", 9, 77, 10, 11, 12, 13, 78], key=str), stderr


def test_the_frame_id_is_read_at_the_top_level_only() -> None:
    assert _frame_id(b'{"jsonrpc":"2.0","params":{"id":5},"id":"a\\"b","x":[[[') == 'a"b'
    assert _frame_id(b'{"jsonrpc":"2.0","method":"x","params":[[[') is None
    assert _frame_id(b'{"id":' + b"9" * 5000 + b"}") is None


def test_a_busy_port_is_one_error_line_and_exit_2_before_the_sdk_loads(root: Path) -> None:
    """The port is bound before the SDK's second of imports: a taken one is said at
    once, and the process that says it never loaded the SDK."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        probe = (
            "import sys\n"
            "from memtier.__main__ import main\n"
            f"code = main(['--root', {str(root)!r}, 'mcp', '--http', '--port', '{port}'])\n"
            "sys.stdout.write(f'exit {code} sdk {\"mcp\" in sys.modules}')\n"
        )
        proc = subprocess.run(
            [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60
        )
    assert proc.stdout == "exit 2 sdk False", proc.stderr
    assert proc.stderr == (
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
