"""Two `estimation serve` processes on one PostgreSQL database, sharing one Redis: what one of them publishes
on the bus (a lobby change, chat, a player's own notices) reaches the sockets connected to the other, and a
restarted Redis makes their lobby sockets resync (a ``resync`` and a fresh ``lobby``), then go on."""

from __future__ import annotations

import asyncio
import json
import secrets
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import websockets
from server_helpers import Api, Player, RedisProcess, ServerProcess, run


@pytest.fixture(scope="module")
def pair(database_url_factory, module_redis: RedisProcess) -> Iterator[tuple[ServerProcess, ServerProcess]]:  # type: ignore[no-untyped-def]
    url = database_url_factory("postgresql")
    env = {"ESTIMATION_REDIS_URL": module_redis.url, "ESTIMATION_REDIS_PREFIX": f"t{secrets.token_hex(4)}:"}
    a, b = ServerProcess(url, "bus-a", env), ServerProcess(url, "bus-b", env)
    a.start()  # one after the other: the first one migrates the new database
    b.start()
    try:
        yield a, b
    finally:
        a.stop()
        b.stop()


async def receive(ws: Any, wanted: Callable[[dict[str, Any]], bool], timeout: float = 20.0) -> dict[str, Any]:
    """The first message ``wanted``, skipping others (presence and the like)."""
    async with asyncio.timeout(timeout):
        while True:
            message = json.loads(await ws.recv())
            if wanted(message):
                return dict(message)


def test_what_one_process_publishes_reaches_sockets_on_the_other(
        pair: tuple[ServerProcess, ServerProcess]) -> None:
    a, b = pair
    host, guest = Api.guest(a, "Host"), Api.guest(b, "Guest")

    async def main() -> None:
        lobby = await websockets.connect(f"{b.ws_base}/ws/lobby")
        await receive(lobby, lambda m: m["type"] == "lobby")
        # A lobby change on A: the table appears on B's lobby socket.
        table = host.create_table(ruleset="koutchina", length="micro")
        tid = table["id"]
        seen = await receive(lobby, lambda m: m["type"] == "table" and m["table"]["id"] == tid)
        assert seen["table"]["status"] == "open"
        assert host.join(tid)["seat"] == 0
        seen = await receive(lobby, lambda m: m["type"] == "table" and m["table"]["id"] == tid)
        assert any(s["account_id"] == host.id for s in seen["table"]["seats"])
        # Chat at the table from A's socket reaches a spectator connected to B.
        talker, watcher = Player(a, tid, host.token), Player(b, tid, guest.token)
        await talker.connect()
        await watcher.connect()
        await talker.send({"type": "chat", "text": "hello from A"})
        chat = await watcher.until(lambda m: m["type"] == "chat")
        assert chat["text"] == "hello from A" and chat["account_id"] == host.id
        # A player's own notice: mutes set through A's REST reach their socket on B.
        on_a = Api(a, guest.token, guest.account)
        on_a.ok(on_a.http.put("/api/me/mutes", json={"muted": [host.id]}, headers=on_a.headers()))
        mutes = await watcher.until(lambda m: m["type"] == "mutes")
        assert mutes["muted"] == [host.id]
        await talker.close()
        await watcher.close()
        await lobby.close()

    run(main())
    figures = b.figures()
    assert figures["estimation_bus_connected"] == 1 and figures["estimation_bus_delivered_total"] >= 3
    assert figures["estimation_bus_lag_seconds_count"] >= 3


def test_a_restarted_redis_makes_lobby_sockets_resync_and_go_on(
        pair: tuple[ServerProcess, ServerProcess], module_redis: RedisProcess) -> None:
    a, b = pair
    host = Api.guest(a, "Host 2")

    async def main() -> None:
        lobby = await websockets.connect(f"{b.ws_base}/ws/lobby")
        await receive(lobby, lambda m: m["type"] == "lobby")
        first = host.create_table(ruleset="koutchina", length="micro")["id"]
        await receive(lobby, lambda m: m["type"] == "table" and m["table"]["id"] == first)
        await asyncio.to_thread(module_redis.kill)
        # Meanwhile a change the bus cannot carry: the fresh snapshot after the resync has it.
        while True:  # the server notices the loss within a ping (at most a few seconds)
            await asyncio.sleep(0.2)
            if b.figures()["estimation_bus_connected"] == 0 and a.figures()["estimation_bus_connected"] == 0:
                break
        missed = host.create_table(ruleset="koutchina", length="micro")["id"]
        await asyncio.to_thread(module_redis.start)
        notice = await receive(lobby, lambda m: m["type"] in ("resync", "table"), timeout=30)
        assert notice == {"type": "resync", "topic": "lobby"}
        fresh = await receive(lobby, lambda m: m["type"] == "lobby")
        assert {first, missed} <= {t["id"] for t in fresh["tables"]}
        # And the bus carries lobby changes again, once the publishing process is back on it too (each
        # reconnects on its own backoff; what it publishes before that is dropped, and a resync follows).
        for _ in range(150):
            if a.figures()["estimation_bus_connected"] == 1:
                break
            await asyncio.sleep(0.2)
        later = host.create_table(ruleset="koutchina", length="micro")["id"]
        await receive(lobby, lambda m: m["type"] == "table" and m["table"]["id"] == later)
        await lobby.close()

    run(main())
    assert b.figures()["estimation_bus_resyncs_total"] >= 1


def test_a_server_on_the_redis_bus_stops_at_once(database_url_factory, module_redis: RedisProcess) -> None:  # type: ignore[no-untyped-def]
    """SIGTERM with the Redis bus connected: the server is gone in well under the 15 s it took when the
    bus's keeper swallowed its cancel and waited out the silence limit (every worker stop and rolling
    restart paid it)."""
    import time

    server = ServerProcess(database_url_factory("sqlite"), name="bus-stop",
                           env={"ESTIMATION_REDIS_URL": module_redis.url})
    server.start()
    try:
        Api.guest(server)  # some traffic on the bus first
        time.sleep(1.0)
        assert server.proc is not None
        began = time.monotonic()
        server.proc.terminate()
        server.proc.wait(30)
        took = time.monotonic() - began
        assert took < 5.0, f"the server took {took:.1f} s to stop"
    finally:
        server.stop()
