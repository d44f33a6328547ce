"""What a server keeps after the things it served are gone (issue 25, "memory flat"): a closed socket (one
whose hello failed too), a rematch, a quick-play timer, a finished competition table. Each check drives the
real code (a uvicorn server of this process with ``estimation serve``'s protocols, or a started hub on
SQLite) and then looks inside: nothing of the finished thing may be left in the process's maps, or, for a
socket, in memory.

Why: the cluster soak measured every worker's memory growing by about 6 MB a minute (docs/performance.md).
Most of it was closed sockets' websockets protocols, each a reference cycle with its zlib streams, which
``estimation serve``'s collector policy left to a rare full collection (:mod:`~estimation.server.ops.tuning`).
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import gc
import json
import socket
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
import websockets

from estimation.server import Settings, create_app
from estimation.server.access import auth
from estimation.server.cluster.bus import table_topic, user_topic
from estimation.server.competitions import reading
from estimation.server.competitions.seeding import seed_swiss
from estimation.server.hub import Hub
from estimation.server.ops.serving import GuardedWebSocket, QuietServer, uvicorn_options
from estimation.server.social import chat
from estimation.server.social.service import Social, social_of
from estimation.server.storage.models import utcnow
from estimation.server.table.reducer import TableSettings


@contextlib.asynccontextmanager
async def served(tmp_path: Path) -> AsyncIterator[tuple[uvicorn.Server, str]]:
    """The app on a uvicorn server of this process, with the server, protocols and options `estimation
    serve` runs (``serving.QuietServer``, ``serving.uvicorn_options``); the server and its base URL. The
    socket is bound here and handed over, so no other process can take its port in between."""
    settings = Settings(database_url=f"sqlite+aiosqlite:///{tmp_path / 'served.db'}", create_per_minute=0,
                        socket_connects_per_minute=0, sockets_per_address=0, process_tuning=False)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = int(sock.getsockname()[1])
    server = QuietServer(uvicorn.Config(create_app(settings), host="127.0.0.1", port=port,
                                        log_level="warning", lifespan="on", **uvicorn_options(settings)))
    task = asyncio.create_task(server.serve(sockets=[sock]))
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


def with_hub(tmp_path: Path, body: Callable[[Hub], Awaitable[None]], **settings: Any) -> None:
    """Run ``body`` with a started hub on a fresh SQLite file (bots far off unless ``settings`` say)."""

    async def main() -> None:
        url = f"sqlite+aiosqlite:///{tmp_path / 'hub.db'}"
        hub = Hub(Settings(database_url=url, open_tables_per_player=0,
                           **{"bot_delay": 3600.0, "bot_workers": 1, **settings}), Social)
        await hub.start()
        try:
            await body(hub)
        finally:
            await hub.stop()

    asyncio.run(main())


def test_a_rematch_leaves_no_lock_behind(tmp_path: Path) -> None:
    """Two askers at once make one rematch (a lock per finished table), and once it is made the lock goes:
    the social part kept one for every table ever asked for a rematch."""

    async def body(hub: Hub) -> None:
        social = social_of(hub)
        async with hub.session() as db, db.begin():
            me = await auth.create_guest(db, "Again")
        for _ in range(3):
            old = await hub.create_table(me.id, TableSettings("egyptian", bot_seats=(1, 2, 3),
                                                              turn_seconds=0))
            await old.join(me.id, me.name, True, 0, False, None)
            await old.leave(me.id)  # an egyptian leaver ends the match: the table is finished
            assert old.status == "finished"
            new, seat, created = await social.rematch(me, old.id, False)
            assert created and seat == 0 and new.status == "playing"
            await new.leave(me.id)
        assert len(social._rematch) == 0, "a lock kept for every table asked for a rematch"

    with_hub(tmp_path, body)


def test_a_quick_play_timer_for_a_table_not_held_here_is_forgotten(tmp_path: Path) -> None:
    """A quick-play table's bot timer whose table this process does not hold (in a cluster: another
    worker's, every waiting one gets a timer at start-up, or one that moved away) ends without a trace."""

    async def body(hub: Hub) -> None:
        social = social_of(hub)
        social.schedule_bots(987_654, utcnow() - dt.timedelta(seconds=1))  # no such table here
        timer = social._timers[987_654]
        await timer
        assert 987_654 not in social._timers and 987_654 not in social._due

    with_hub(tmp_path, body)


def test_a_finished_competition_table_leaves_nothing_in_the_competitions_maps(tmp_path: Path) -> None:
    """A swiss's table played to its end (its entrants gone, bots play their seats on) is forgotten by the
    competitions' part of the hub (its rounds seen, kept for every competition table ever played), and the
    competition's lock goes once nobody holds it (one was kept for every competition ever touched)."""

    async def body(hub: Hub) -> None:
        competitions = hub.competitions
        cid, director = await seed_swiss(hub.session, 8, stages=2, seed=3)
        await competitions.start_now(cid, director)
        tables = [r for r in hub.runtimes.values() if r.rules.competition == cid]
        assert len(tables) == 2 and all(r.id in competitions._rounds for r in tables)
        done = tables[0]
        for seat in done.seats:
            if seat.account_id is not None and not seat.is_bot:
                await done.leave(seat.account_id)  # a bot plays the seat on
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 120
        while done.status != "finished" and loop.time() < deadline:
            await asyncio.sleep(0.05)
        assert done.status == "finished"
        assert done.id not in competitions._rounds and tables[1].id in competitions._rounds
        while competitions._locks and loop.time() < deadline:  # the board's news is read and sent
            await asyncio.sleep(0.05)
        assert len(competitions._locks) == 0, "a lock kept for every competition ever touched"

    try:
        with_hub(tmp_path, body, bot_delay=0.0)
    finally:
        reading.forget_all()


def test_a_socket_whose_hello_fails_leaves_no_subscription_on_the_bus(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A table socket subscribes to its table's and its player's topics, then reads the player's mutes; if
    that read fails (the database gone a moment) the socket ends, and its subscriptions must go with it:
    nobody detaches a link the socket never got, and each one's handler holds the socket."""

    async def broken(_hub: Any, _account_id: int) -> set[int]:
        raise ConnectionError("the database went away")

    async def main() -> None:
        async with served(tmp_path) as (server, where):
            hub = server.config.app.state.hub
            async with httpx.AsyncClient(base_url=f"http://{where}") as http:
                guest = (await http.post("/api/guests", json={"name": "Linker"})).json()
                table = (await http.post("/api/tables", json={"bot_seats": [1, 2, 3], "turn_seconds": 0},
                                         headers={"Authorization": f"Bearer {guest['token']}"})).json()
            monkeypatch.setattr(chat, "muted_by", broken)
            async with websockets.connect(f"ws://{where}/ws/tables/{table['id']}") as ws:
                await ws.send(json.dumps({"type": "hello", "token": guest["token"]}))
                with contextlib.suppress(websockets.ConnectionClosed):
                    while True:  # the welcome, the snapshot, then the server closes the socket
                        await ws.recv()
            while web_sockets(server):
                await asyncio.sleep(0.01)
            topics = [table_topic(table["id"]), user_topic(guest["account"]["id"])]
            assert [hub.bus.subscribers(t) for t in topics] == [0, 0]

    asyncio.run(main())
