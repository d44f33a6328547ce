"""One WebSocket client: its seat (or None for a spectator), its outbound queue, its rate limit.

A table never awaits a client's socket while it holds its lock: a frame is written at once when the socket
takes it, else queued behind the write that is waiting (see :class:`Connection`). A client that falls
``send_queue`` frames behind is dropped; it can reconnect with its last version and resync, which is cheaper
for everyone than letting it slow the table down.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import deque
from typing import Any

from starlette.websockets import WebSocket

from .eager import Started, start_now
from .wire import dumps


class RateLimiter:
    """A token bucket: ``rate`` messages a second on average, bursts of up to ``burst``."""

    def __init__(self, rate: float, burst: int) -> None:
        self.rate = rate
        self.burst = float(burst)
        self.tokens = float(burst)
        self.stamp = time.monotonic()

    def allow(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        return False


class Connection:
    """Frames go out in order. With nothing in flight a frame is written at once, in the caller's turn of
    the event loop (:func:`eager.start_now`); only when a write has to wait (the socket's buffer is full)
    does a flusher task take over, and frames queue behind it until it has caught up."""

    def __init__(self, ws: WebSocket, queue_size: int, rate: float, burst: int) -> None:
        self.ws = ws
        self.seat: int | None = None
        self.account_id: int | None = None
        self.table_id: int | None = None
        self.limiter = RateLimiter(rate, burst)
        self.violations = 0
        self.closed = False
        self._queue_size = queue_size
        self._backlog: deque[str] = deque()
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
            if len(self._backlog) >= self._queue_size:
                self._fail()  # too far behind: it can reconnect and resync
            else:
                self._backlog.append(frame)
            return
        try:
            started = start_now(self.ws.send_text(frame))
        except Exception:
            self._fail()  # the peer is gone
            return
        if started is not None:
            self._flusher = asyncio.create_task(self._flush(started))

    async def _flush(self, started: Started) -> None:
        try:
            await started
            while self._backlog:  # closing flushes them too; a failure has cleared them
                await self.ws.send_text(self._backlog.popleft())
        except Exception:
            self._fail()
        finally:
            self._flusher = None
            if self.closed:
                self._close_socket()

    def close(self) -> None:
        """No more frames: close the socket once what is queued has been written."""
        if not self.closed:
            self.closed = True
            if self._flusher is None:
                self._close_socket()

    def _fail(self) -> None:
        """The peer is gone or too slow: drop what is queued and close."""
        self._backlog.clear()
        self.close()

    def _close_socket(self) -> None:
        if self._closer is None:
            self._closer = asyncio.create_task(self._close())

    async def _close(self) -> None:
        with contextlib.suppress(Exception):
            await self.ws.close(1000)

    async def finish(self) -> None:
        """Flush what is queued, then close (used when the client goes away or is sent away)."""
        self.close()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            if self._flusher is not None:
                await asyncio.wait_for(asyncio.shield(self._flusher), timeout=5)
        if self._flusher is not None:
            self._flusher.cancel()
        self._close_socket()
        assert self._closer is not None
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await asyncio.wait_for(self._closer, timeout=5)
