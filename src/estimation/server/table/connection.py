"""One WebSocket client: its seat (or None for a spectator), its outbound queue, its rate limit.

A table never awaits a client's socket while it holds its lock: a frame is written at once when the socket
takes it, else queued behind the write that is waiting (see :class:`Connection`). A client that falls
``send_queue`` frames or ``send_queue_bytes`` bytes behind, or whose socket has taken nothing for
``send_timeout`` seconds, is dropped; it can reconnect with its last version and resync, which is cheaper for
everyone than letting it slow the table down or pin the server's memory (a socket that is never read).
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
from collections import deque
from typing import Any, TypeVar

from starlette.websockets import WebSocket

from ..access.ratelimit import RateLimiter
from ..jsontext import dumps
from ..storage.models import utcnow
from .eager import Started, start_now

K = TypeVar("K")
#: What a socket is told when its session expires, before it is closed.
EXPIRED = {"type": "error", "code": "session_expired", "message": "your session has expired: sign in again"}


class Connection:
    """Frames go out in order. With nothing in flight a frame is written at once, in the caller's turn of
    the event loop (:func:`eager.start_now`); only when a write has to wait (the socket's buffer is full)
    does a flusher task take over, and frames queue behind it until it has caught up."""

    def __init__(self, ws: WebSocket, queue_size: int, rate: float, burst: int,
                 queue_bytes: int = 512 * 1024, send_timeout: float = 20.0) -> None:
        self.ws = ws
        self.seat: int | None = None
        self.account_id: int | None = None
        self.table_id: int | None = None
        #: The peer's address, and the signed-in session this socket speaks for (its token's hash and when
        #: it expires): signing out or expiring closes the socket (see :class:`Sockets`).
        self.address = "?"
        self.session: str | None = None
        self.expires_at: dt.datetime | None = None
        #: Closes the socket when its session expires (set by :meth:`Sockets.sign_in`).
        self.expiry: asyncio.TimerHandle | None = None
        self.limiter = RateLimiter(rate, burst)
        self.violations = 0
        self.closed = False
        #: Gone or too slow: nothing more will be written, not even a goodbye (see ``finish``).
        self.failed = False
        #: The task reading this socket, while it waits for a frame: a connection closed from elsewhere (too
        #: slow, signed out) wakes it, so that the socket is let go even if the client never sends again.
        self.reader: asyncio.Task[Any] | None = None
        self._queue_size = queue_size
        self._queue_bytes = queue_bytes
        self._send_timeout = send_timeout
        self._backlog: deque[str] = deque()
        self._backlog_bytes = 0
        self._flusher: asyncio.Task[None] | None = None
        self._closer: asyncio.Task[None] | None = None

    def send(self, message: dict[str, Any]) -> None:
        """Send a message; never blocks. Drops the connection if it cannot keep up."""
        if not self.closed:
            self.send_text(dumps(message))

    def send_text(self, frame: str) -> None:
        """Send a frame that is already JSON text (an update encoded once for many connections)."""
        if self.closed:
            return
        if self._flusher is not None:
            if (len(self._backlog) >= self._queue_size
                    or self._backlog_bytes + len(frame) > self._queue_bytes):
                self._fail()  # too far behind: it can reconnect and resync
            else:
                self._backlog.append(frame)
                self._backlog_bytes += len(frame)
            return
        try:
            started = start_now(self.ws.send_text(frame))
        except Exception:
            self._fail()  # the peer is gone
            return
        if started is not None:
            self._flusher = asyncio.create_task(self._flush(started))

    async def _flush(self, started: Started) -> None:
        """Write what waits, each write within ``send_timeout`` of the last one that went out."""
        loop = asyncio.get_running_loop()
        try:
            async with asyncio.timeout_at(loop.time() + self._send_timeout) as deadline:
                await started
                while self._backlog:  # closing flushes them too; a failure has cleared them
                    frame = self._backlog.popleft()
                    self._backlog_bytes -= len(frame)
                    deadline.reschedule(loop.time() + self._send_timeout)
                    await self.ws.send_text(frame)
        except Exception:  # TimeoutError too: a socket that takes nothing is as good as gone
            self._fail()
        finally:
            self._flusher = None
            if self.closed:
                self._close_socket()

    def close(self) -> None:
        """No more frames: close the socket once what is queued has been written."""
        if not self.closed:
            self.closed = True
            if self.expiry is not None:
                self.expiry.cancel()
                self.expiry = None
            if self._flusher is None:
                self._close_socket()
            reader = self.reader
            if reader is not None and reader is not asyncio.current_task():
                reader.cancel()  # it waits for a frame (see ``Session.run``): let it end the socket now

    async def receive(self) -> dict[str, Any] | None:
        """The socket's next frame, or None when this connection was closed from elsewhere meanwhile (too
        slow to read, signed out, expired): ``close`` cancels this wait, and only this wait."""
        task = asyncio.current_task()
        self.reader = task
        try:
            return dict(await self.ws.receive())
        except asyncio.CancelledError:
            if self.closed and task is not None and task.uncancel() == 0:
                return None
            raise
        finally:
            self.reader = None

    def expired(self) -> bool:
        """Whether the session this socket speaks for has expired (it is closed at its next message)."""
        return self.expires_at is not None and self.expires_at <= utcnow()

    def kick(self, message: dict[str, Any]) -> None:
        """Tell the client why (signed out, session expired, too many sockets), then close."""
        self.send(message)
        self.close()

    def _fail(self) -> None:
        """The peer is gone or too slow: drop what is queued and close."""
        self.failed = True
        self._backlog.clear()
        self._backlog_bytes = 0
        self.close()

    def _close_socket(self) -> None:
        if self._closer is None:
            self._closer = asyncio.create_task(self._close())

    async def _close(self) -> None:
        with contextlib.suppress(Exception):
            await self.ws.close(1000)

    async def finish(self) -> None:
        """Flush what is queued, then close (used when the client goes away or is sent away).

        A connection that failed (its peer gone, or not reading) is not waited for long: its close frame
        may never be written, and returning lets the server close the socket itself (which, for a peer that
        does not read, ends in an abort: see ``serving.ClosingTransport``)."""
        self.close()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            if self._flusher is not None and not self.failed:
                await asyncio.wait_for(asyncio.shield(self._flusher), timeout=5)
        if self._flusher is not None:
            self._flusher.cancel()
        self._close_socket()
        assert self._closer is not None
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await asyncio.wait_for(asyncio.shield(self._closer), timeout=1 if self.failed else 5)


class Sockets:
    """Every table socket of this process, counted by address and by player, and found by session.

    ``per_address`` and ``per_player`` cap how many one client may hold open (0: no cap): each socket costs
    memory and a share of every broadcast, so a few clients must not be able to hold thousands. A socket
    signed in with a session is closed when that session ends (signed out, in any process: the hub hears of
    it over the bus) or expires (a timer at its expiry)."""

    def __init__(self, per_address: int, per_player: int) -> None:
        self.per_address = per_address
        self.per_player = per_player
        self.by_address: dict[str, set[Connection]] = {}
        self.by_player: dict[int, set[Connection]] = {}

    def admit(self, conn: Connection, address: str) -> bool:
        """Count a new socket from ``address``; False (and not counted) if that address has its cap."""
        held = self.by_address.setdefault(address, set())
        if self.per_address > 0 and len(held) >= self.per_address:
            if not held:
                del self.by_address[address]
            return False
        conn.address = address
        held.add(conn)
        return True

    def sign_in(self, conn: Connection, account_id: int, session: str, expires_at: dt.datetime) -> bool:
        """Count the socket for its player; False (and not counted) if the player has their cap."""
        held = self.by_player.setdefault(account_id, set())
        if self.per_player > 0 and len(held) >= self.per_player:
            if not held:
                del self.by_player[account_id]
            return False
        conn.account_id, conn.session, conn.expires_at = account_id, session, expires_at
        held.add(conn)
        # Closed the moment its session expires, whether or not it sends anything (not at the next sweep).
        left = max(0.0, (expires_at - utcnow()).total_seconds())
        conn.expiry = asyncio.get_running_loop().call_later(left, conn.kick, EXPIRED)
        return True

    def remove(self, conn: Connection) -> None:
        if conn.expiry is not None:
            conn.expiry.cancel()
            conn.expiry = None
        _discard(self.by_address, conn.address, conn)
        if conn.account_id is not None:
            _discard(self.by_player, conn.account_id, conn)

    def of_session(self, session: str) -> list[Connection]:
        return [c for held in self.by_player.values() for c in held if c.session == session]

    def expired(self, now: dt.datetime) -> list[Connection]:
        return [c for held in self.by_player.values() for c in held
                if c.expires_at is not None and c.expires_at <= now]

    def count(self) -> int:
        return sum(len(held) for held in self.by_address.values())


def _discard(index: dict[K, set[Connection]], key: K, conn: Connection) -> None:
    held = index.get(key)
    if held is not None:
        held.discard(conn)
        if not held:
            del index[key]
