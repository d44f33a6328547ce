"""What a server keeps after the things it served are gone (issue 25, "memory flat"): a closed socket. Each
check drives the real code (a uvicorn server of this process with ``estimation serve``'s protocols) and
then looks inside: nothing of the finished thing may be left in memory.

Why: the cluster soak measured every worker's memory growing by about 6 MB a minute (docs/performance.md).
Most of it was closed sockets' websockets protocols, each a reference cycle with its zlib streams, which
``estimation serve``'s collector policy left to a rare full collection (:mod:`~estimation.server.ops.tuning`).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import weakref
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import uvicorn
import websockets
from server_helpers import free_port

from estimation.server import Settings, create_app
from estimation.server.ops.serving import GuardedWebSocket, uvicorn_options


@contextlib.asynccontextmanager
async def served(tmp_path: Path) -> AsyncIterator[tuple[uvicorn.Server, str]]:
    """The app on a uvicorn server of this process, with the protocols and options `estimation serve`
    runs (``serving.uvicorn_options``); the server and its base URL."""
    settings = Settings(database_url=f"sqlite+aiosqlite:///{tmp_path / 'served.db'}", create_per_minute=0,
                        socket_connects_per_minute=0, sockets_per_address=0, process_tuning=False)
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(create_app(settings), host="127.0.0.1", port=port,
                                           log_level="warning", lifespan="on", **uvicorn_options(settings)))
    task = asyncio.create_task(server.serve())
    try:
        while not server.started:
            if task.done():
                task.result()
                raise RuntimeError("the server stopped before it started")
            await asyncio.sleep(0.01)
        yield server, f"127.0.0.1:{port}"
    finally:
        server.should_exit = True
        await task


def web_sockets(server: uvicorn.Server) -> list[GuardedWebSocket]:
    return [p for p in server.server_state.connections if isinstance(p, GuardedWebSocket)]


def test_a_closed_socket_is_freed_at_once_not_by_the_cyclic_collector(tmp_path: Path) -> None:
    """Table and lobby sockets (permessage-deflate, as browsers ask) opened and closed, the collector off
    meanwhile: once the server has let them go, nothing of theirs is left. A websockets protocol is a
    reference cycle with its parser (``serving.GuardedWebSocket.connection_lost`` ends it); before, each
    closed socket's protocol and zlib streams stayed until a full collection, which under `estimation
    serve`'s collector policy was rare (the soak's workers grew 6 MB a minute)."""

    async def main() -> None:
        async with served(tmp_path) as (server, where):
            async with httpx.AsyncClient(base_url=f"http://{where}") as http:
                guest = (await http.post("/api/guests", json={"name": "Closer"})).json()
                me = {"Authorization": f"Bearer {guest['token']}"}
                table = (await http.post("/api/tables", json={"bot_seats": [1, 2, 3], "turn_seconds": 0},
                                         headers=me)).json()
            protocols: list[weakref.ref[Any]] = []
            gc.collect()
            gc.disable()  # from here only reference counting frees anything
            try:
                for path, hello in [(f"/ws/tables/{table['id']}", {"type": "hello", "token": guest["token"]}),
                                    ("/ws/lobby", {"type": "ping"})] * 3:
                    async with websockets.connect(f"ws://{where}{path}", compression="deflate") as ws:
                        await ws.send(json.dumps(hello))
                        await ws.recv()
                        (held,) = web_sockets(server)
                        assert held.conn.extensions, "permessage-deflate was not negotiated"
                        protocols.append(weakref.ref(held.conn))
                        del held
                while web_sockets(server):  # the server has let go of the closed sockets
                    await asyncio.sleep(0.01)
                deadline = asyncio.get_running_loop().time() + 30
                while any(ref() is not None for ref in protocols):  # the tasks that ran them end
                    if asyncio.get_running_loop().time() > deadline:
                        break
                    await asyncio.sleep(0.01)
                left = sum(ref() is not None for ref in protocols)
            finally:
                gc.enable()
            assert left == 0, f"{left} of {len(protocols)} closed sockets' protocols still in memory"

    asyncio.run(main())
