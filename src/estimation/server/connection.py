"""One WebSocket client: its seat (or None for a spectator), its outbound queue, its rate limit.

A table never awaits a client's socket while it holds its lock: it puts frames on the connection's queue
and a writer task drains it. A client that falls ``send_queue`` frames behind is dropped; it can reconnect
with its last version and resync, which is cheaper for everyone than letting it slow the table down.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import Any

from starlette.websockets import WebSocket

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
    def __init__(self, ws: WebSocket, queue_size: int, rate: float, burst: int) -> None:
        self.ws = ws
        self.seat: int | None = None
        self.account_id: int | None = None
        self.table_id: int | None = None
        self.limiter = RateLimiter(rate, burst)
        self.violations = 0
        self.closed = False
        self._queue: asyncio.Queue[str | None] = asyncio.Queue(maxsize=queue_size)
        self._writer = asyncio.create_task(self._write())

    def send(self, message: dict[str, Any]) -> None:
        """Queue a message; never blocks. Drops the connection if it cannot keep up."""
        if not self.closed:
            self.send_text(dumps(message))

    def send_text(self, frame: str) -> None:
        """Queue a frame that is already JSON text (an update encoded once for many connections)."""
        if self.closed:
            return
        try:
            self._queue.put_nowait(frame)
        except asyncio.QueueFull:
            self.close()

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            with contextlib.suppress(asyncio.QueueFull):
                self._queue.put_nowait(None)
            if self._queue.full():
                self._writer.cancel()

    async def _write(self) -> None:
        try:
            while True:
                frame = await self._queue.get()
                if frame is None:
                    break
                await self.ws.send_text(frame)
        except Exception:
            pass
        finally:
            self.closed = True
            with contextlib.suppress(Exception):
                await self.ws.close(1000)

    async def finish(self) -> None:
        """Flush what is queued, then close (used when the client goes away or is sent away)."""
        self.close()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await asyncio.wait_for(self._writer, timeout=5)
