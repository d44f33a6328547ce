"""`estimation serve`'s uvicorn server (``serving.QuietServer``): it looks at its own state once a second,
not ten times (an idle worker's CPU, docs/performance.md), and a stop signal still stops it at once."""

from __future__ import annotations

import signal
import socket
import threading
import time
from typing import Any

import httpx
import uvicorn

from estimation.server.ops.serving import QuietServer


async def hello(scope: dict[str, Any], receive: Any, send: Any) -> None:
    if scope["type"] == "lifespan":
        while (await receive())["type"] != "lifespan.shutdown":
            await send({"type": "lifespan.startup.complete"})
        await send({"type": "lifespan.shutdown.complete"})
        return
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/plain")]})
    await send({"type": "http.response.body", "body": b"hello"})


class Counted(QuietServer):
    ticks = 0

    async def on_tick(self, counter: int) -> bool:
        type(self).ticks += 1
        return await super().on_tick(counter)


def bound() -> tuple[socket.socket, int]:
    """A listening socket of our own on a free port (no other process can take it before the server runs)."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    return sock, int(sock.getsockname()[1])


def started(server: QuietServer, sock: socket.socket) -> threading.Thread:
    # Not the main thread, so uvicorn installs no signal handlers: the test calls handle_exit itself.
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.02)
    return thread


def test_an_idle_server_looks_at_its_state_once_a_second_and_serves_with_a_date() -> None:
    sock, port = bound()
    server = Counted(uvicorn.Config(hello, host="127.0.0.1", port=port, log_level="warning"))
    thread = started(server, sock)
    try:
        answer = httpx.get(f"http://127.0.0.1:{port}/", timeout=10)
        assert answer.text == "hello" and answer.headers["date"].endswith("GMT")
        Counted.ticks = 0
        time.sleep(3.0)
        assert Counted.ticks <= 5  # uvicorn's own server: about 30
    finally:
        server.handle_exit(signal.SIGTERM, None)
        thread.join(20)


def test_a_stop_signal_wakes_it_at_once_whatever_its_tick() -> None:
    sock, port = bound()
    server = QuietServer(uvicorn.Config(hello, host="127.0.0.1", port=port, log_level="warning"))
    server.TICK = 3600.0  # without the wake-up, the stop would wait an hour
    thread = started(server, sock)
    server.handle_exit(signal.SIGTERM, None)
    thread.join(20)
    assert not thread.is_alive(), "the stop signal did not wake the server"
