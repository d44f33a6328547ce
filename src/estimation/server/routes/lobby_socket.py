"""The live lobby: a WebSocket at ``/ws/lobby`` that pushes the public tables as they change.

On connect the client gets ``lobby``, every public table that is open or in play (who sits where, the
rules, a quick-play table's wait for bots); then ``table`` for each table that appears or changes (seats,
status) and ``table_removed`` when one finishes or is abandoned. The changes come from the :mod:`.bus`'s
lobby topic. A client may say ``hello`` with its token to also get its own topic on this socket (rematch
offers, mutes, silences), and ``ping``. Nothing a client sends changes anything.

When the bus may have lost lobby changes (a Redis bus that reconnected, or saw a gap), the socket gets
``resync`` and then a fresh ``lobby``: one snapshot per process for all its lobby sockets, not one each.
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from typing import TYPE_CHECKING, Any

from starlette.websockets import WebSocket, WebSocketDisconnect

from ..access.auth import session_for_token
from ..cluster.bus import LOBBY, RESYNC, Message, Subscription, client_resync, user_topic
from ..jsontext import dumps, loads
from ..social.service import lobby_entry
from ..table.connection import Connection
from ..table.reducer import LIVE, PublicTable, public_table
from .table_socket import error

if TYPE_CHECKING:
    from ..hub import Hub

log = logging.getLogger("estimation.server")

#: At most this many tables of each status in the first ``lobby`` message.
SNAPSHOT_TABLES = 200
#: How long an encoded snapshot is served at most, even if no change said it is stale (a safety net: every
#: change of a public table is published on the lobby topic, which makes it stale at once).
SNAPSHOT_SECONDS = 5.0


class LobbySnapshot:
    """The ``lobby`` message, read and encoded once for every socket that connects (or resyncs) until the
    lobby changes: a connect costs a copy of bytes, not a read of 400 tables and their seats (with a read
    per connect, a connect flood costs 12 s of CPU in 14 s). One read at a time; a change during a read
    makes that read served to those who waited for it, never cached."""

    def __init__(self, hub: Hub) -> None:
        self.hub = hub
        self.text: str | None = None
        self.at = 0.0
        self.generation = 0
        self.reading: asyncio.Task[str] | None = None
        self.subscription: Subscription = hub.bus.subscribe(LOBBY, self._changed)

    def _changed(self, _topic: str, _message: Message) -> None:
        self.generation += 1  # a table changed, or news may have been lost (a resync notice): read again
        self.text = None

    async def get(self) -> str:
        loop = asyncio.get_running_loop()
        if self.text is not None and loop.time() - self.at < SNAPSHOT_SECONDS:
            return self.text
        if self.reading is None or self.reading.done():
            self.reading = asyncio.create_task(self._read(self.generation))
        return await asyncio.shield(self.reading)

    async def _read(self, generation: int) -> str:
        text = dumps({"type": "lobby", "tables": await snapshot(self.hub)})
        if generation == self.generation:
            self.text, self.at = text, asyncio.get_running_loop().time()
        return text


#: Each hub's lobby snapshot.
_snapshots: weakref.WeakKeyDictionary[Hub, LobbySnapshot] = weakref.WeakKeyDictionary()


def lobby_snapshot(hub: Hub) -> LobbySnapshot:
    found = _snapshots.get(hub)
    if found is None:
        found = _snapshots[hub] = LobbySnapshot(hub)
    return found


async def snapshot(hub: Hub) -> list[dict[str, Any]]:
    """The public open and playing tables, newest first, as the lobby shows them."""
    out: list[dict[str, Any]] = []
    hub.lobby_snapshots += 1
    for status in LIVE:
        for row in await hub.store.listing(status, SNAPSHOT_TABLES):
            runtime = hub.runtimes.get(row.table_id)
            # memory is ahead of nothing: a runtime's public facts are committed ones
            public: PublicTable = (runtime.public() if runtime is not None
                                   else public_table(row.table_id, row.state))
            state = row.state if runtime is None else runtime.state()
            out.append(lobby_entry(public, state.bots_at if state.status == "open" else None))
    return out


def resend_snapshot(hub: Hub, conn: Connection) -> None:
    """Send ``conn`` a fresh ``lobby`` once it is read; the sockets that ask in the same turn share it."""
    task = asyncio.ensure_future(lobby_snapshot(hub).get())

    def send(done: asyncio.Future[str]) -> None:
        if done.cancelled():
            return
        if done.exception() is not None:
            log.warning("lobby: the snapshot for a resync failed: %r", done.exception())
        elif not conn.closed:
            conn.send_text(done.result())

    task.add_done_callback(send)


async def lobby_socket(ws: WebSocket) -> None:
    hub: Hub = ws.app.state.hub
    await ws.accept()
    settings = hub.settings
    # Bounded like a table socket (its queue in bytes and time, its address's and player's caps) and ended
    # like one when its session ends: see connection.py and ws.py.
    conn = Connection(ws, settings.send_queue, settings.rate_per_second, settings.rate_burst,
                      settings.send_queue_bytes, settings.send_timeout)
    address = ws.client.host if ws.client else "?"
    if not await hub.connects.allow(address):
        conn.kick(error("rate_limited", "too many new sockets from your address: try again later"))
        await conn.finish()
        return
    if not hub.sockets.admit(conn, address):
        conn.kick(error("too_many_connections",
                        f"at most {hub.sockets.per_address} sockets from one address"))
        await conn.finish()
        return

    def deliver(topic: str, message: Message) -> None:
        if message.get("type") == RESYNC:
            conn.send(client_resync(topic))
            if topic == LOBBY:
                resend_snapshot(hub, conn)
            return
        conn.send(message)

    subs: list[Subscription] = [hub.bus.subscribe(LOBBY, deliver)]
    try:
        conn.send_text(await lobby_snapshot(hub).get())
        while not conn.closed:
            frame = await conn.receive()
            if frame is None or frame["type"] == "websocket.disconnect":
                break
            if conn.expired():
                conn.kick(error("session_expired", "your session has expired: sign in again"))
                break
            if not conn.limiter.allow():
                conn.violations += 1
                conn.send(error("rate_limited", "too many messages: slow down"))
                if conn.violations > settings.max_violations:
                    break
                continue
            text = frame.get("text")
            if text is None or len(text) > settings.max_message_bytes:
                conn.send(error("bad_message", "send JSON text frames of at most "
                                               f"{settings.max_message_bytes} bytes"))
                continue
            try:
                msg = loads(text)
            except (ValueError, RecursionError):
                conn.send(error("bad_json", "not valid JSON"))
                continue
            kind = msg.get("type") if isinstance(msg, dict) else None
            request_id = msg.get("id") if isinstance(msg, dict) else None
            if kind == "ping":
                conn.send({"type": "pong", "id": request_id if isinstance(request_id, str) else None})
            elif kind == "hello":
                token = msg.get("token")
                if len(subs) > 1 or not isinstance(token, str) or len(token) > 200:
                    conn.send(error("bad_message", 'hello once, with a string "token"', request_id))
                    continue
                async with hub.session() as db:
                    found = await session_for_token(db, token)
                if found is None:
                    conn.send(error("unauthorized", "unknown or expired token: sign in again", request_id))
                    continue
                session, account = found
                if not hub.sockets.sign_in(conn, account.id, session.token_hash, session.expires_at):
                    conn.send(error("too_many_connections", f"at most {hub.sockets.per_player} sockets per "
                                                            "player: close one first", request_id))
                    continue
                subs.append(hub.bus.subscribe(user_topic(account.id), deliver))
                conn.send({"type": "welcome", "protocol": "estimation-lobby/1", "account_id": account.id})
            else:
                conn.send(error("unknown_type", 'the lobby socket takes "hello" and "ping"', request_id))
    except WebSocketDisconnect:
        pass
    finally:
        for sub in subs:
            sub.close()
        hub.sockets.remove(conn)
        await conn.finish()
