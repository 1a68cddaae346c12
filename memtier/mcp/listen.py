"""The loopback socket of ``memtier mcp --http`` (PROTOCOL §11), bound before the SDK loads.

The SDK takes about a second to import; a port that is taken is the person's input
to change, so it is told at once (exit 2, one line) rather than after that second,
and never as a crash of the web server. This module imports nothing of the SDK.
"""

from __future__ import annotations

import errno
import socket

from memtier.errors import InputError

# Streamable HTTP listens on the loopback interface only: the memory is one
# person's, and the server has no authentication (PROTOCOL §11).
HTTP_HOST = "127.0.0.1"
DEFAULT_HTTP_PORT = 8765


def bind_loopback(port: int) -> socket.socket:
    """A listening socket on `HTTP_HOST`:*port*; a port in use is an `InputError`."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((HTTP_HOST, port))
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise InputError(
                f"--port {port}: already in use on {HTTP_HOST}; choose another port"
            ) from None
        raise InputError(f"--port {port}: cannot listen on {HTTP_HOST} ({exc.strerror})") from None
    sock.listen(128)
    return sock
