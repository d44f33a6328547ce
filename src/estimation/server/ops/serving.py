"""How `estimation serve` runs uvicorn: trusted proxies, limits and timeouts, and two small protocol guards.

uvicorn has settings for most of what a server facing the internet needs, and they are set here: forwarded
headers are believed only from ``Settings.trusted_proxies`` (uvicorn believes loopback by default, so any
local process, or a proxy that passes the header on, could pick its own address and with it its own rate
limit), an idle keep-alive connection closes after ``keep_alive_seconds``, a request's headers may be at
most 16 KiB, a WebSocket message at most ``ws_max_size``.

Two things uvicorn does not do, done by subclassing its protocols:

- a deadline for a request's headers (``header_timeout``): uvicorn waits for ever for a client that opens a
  connection and sends its headers a byte at a time, or nothing at all (500 such connections stayed open);
- closing a connection whose peer does not read: uvicorn's ``transport.close()`` waits for the write buffer
  to drain, which never happens when the client never reads, so the socket and its buffer stayed until the
  client hung up. Here a close gives the peer ``CLOSE_GRACE`` seconds to take what is buffered, then aborts.

(A request's *body* has its deadline in the app: :class:`.http.BodyGuard`.) docs/deploy.md says what a
reverse proxy in front must add.

And one thing uvicorn does more often than it needs: its server wakes ten times a second to look for a
signal to stop, which was most of an idle worker's CPU (1.5 to 2 ms a second of the 3.5 to 4.5 measured;
a cluster pays it once a worker). :class:`QuietServer` looks once a second and is woken at once by the
signal itself (:func:`serve`).
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from types import FrameType
from typing import Any, cast

import uvicorn
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

from ..config import Settings

#: Seconds a closing connection's peer has to read what is still buffered before the socket is aborted.
CLOSE_GRACE = 5.0
#: Largest request head (request line and headers) the server reads: past it, 431 and the connection closes.
#: httptools (llhttp) sets no such limit of its own, so :class:`GuardedHttp` counts; h11's setting is the same
#: figure for a server run with ``--http h11``.
MAX_HEAD_BYTES = 16 * 1024


class HeadTooLarge(Exception):
    """Raised from the parser's callbacks: httptools turns it into a parser error, which ends the request."""


class ClosingTransport:
    """A transport whose ``close()`` is final: the peer has ``grace`` seconds to read what is buffered,
    then the connection is aborted. Everything else is the wrapped transport's."""

    def __init__(self, transport: asyncio.Transport, grace: float) -> None:
        self._transport = transport
        self._grace = grace
        self._abort: asyncio.TimerHandle | None = None

    def close(self) -> None:
        self._transport.close()
        if self._abort is None and self._transport.get_write_buffer_size() > 0:
            self._abort = asyncio.get_running_loop().call_later(self._grace, self._transport.abort)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)


class GuardedHttp(HttpToolsProtocol):
    """uvicorn's httptools protocol with a deadline for each request's headers, a cap on their size
    (:data:`MAX_HEAD_BYTES`), and closes that close."""

    header_timeout = 10.0
    max_head_bytes = MAX_HEAD_BYTES

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(cast(asyncio.Transport, ClosingTransport(transport, CLOSE_GRACE)))
        self._head_timer: asyncio.TimerHandle | None = None
        self._head_bytes = 0
        self._head_too_large = False
        self._arm()  # the first request's headers are due from now (a client that sends nothing too)

    def _arm(self) -> None:
        if self._head_timer is None:
            self._head_timer = self.loop.call_later(self.header_timeout, self._head_too_slow)

    def _disarm(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _head_too_slow(self) -> None:
        self._head_timer = None
        if not self.transport.is_closing():
            self.transport.abort()  # nothing of theirs is being answered: no goodbye owed

    def _count_head(self, size: int) -> None:
        self._head_bytes += size
        if self._head_bytes > self.max_head_bytes:
            self._head_too_large = True
            raise HeadTooLarge

    def on_url(self, url: bytes) -> None:
        self._count_head(len(url))
        super().on_url(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        self._count_head(len(name) + len(value) + 4)  # "name: value\r\n"
        super().on_header(name, value)

    def send_400_response(self, msg: str) -> None:
        """uvicorn answers every parser error with a 400; a head over the cap gets the status that says so."""
        if not self._head_too_large:
            super().send_400_response(msg)
            return
        text = f"request head larger than {self.max_head_bytes} bytes".encode("ascii")
        self.transport.write(b"HTTP/1.1 431 Request Header Fields Too Large\r\n"
                             b"content-type: text/plain; charset=utf-8\r\n"
                             b"content-length: " + str(len(text)).encode("ascii") + b"\r\n"
                             b"connection: close\r\n\r\n" + text)
        self.transport.close()

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._head_bytes = 0
        self._arm()  # a later request on a keep-alive connection: its headers are due from its first byte

    def on_headers_complete(self) -> None:
        self._disarm()
        super().on_headers_complete()

    def handle_websocket_upgrade(self) -> None:
        self._disarm()
        super().handle_websocket_upgrade()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)


class GuardedWebSocket(WebSocketsSansIOProtocol):
    """uvicorn's WebSocket protocol whose closes close, even when the peer never reads (see above), and
    whose connection is freed the moment it is lost (see :meth:`connection_lost`)."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        wrapped = transport if isinstance(transport, ClosingTransport) else ClosingTransport(
            cast(asyncio.Transport, transport), CLOSE_GRACE)
        super().connection_made(cast(asyncio.Transport, wrapped))

    def connection_lost(self, exc: Exception | None) -> None:
        """The connection is gone: also end the websockets protocol's frame parser.

        That parser is a generator of the protocol's own method (``self.parser = self.parse()``, then
        ``discard()`` after a close), so every protocol is a reference cycle, which only the cyclic
        collector frees; and under ``estimation serve``'s collector policy (:mod:`.tuning`) a socket that
        was open long enough to be frozen waited for the next reclaim, holding its permessage-deflate
        streams (zlib's, about 20 KB) and buffers meanwhile: the workers' memory grew with every socket
        ever closed (issue 25, docs/performance.md, the soak). Closing the generator breaks the cycle, so
        reference counting frees the protocol with this object. Nothing reads the parser after this:
        uvicorn stops feeding it data and answers the app's later sends with ``ClientDisconnected``."""
        super().connection_lost(exc)
        parser = getattr(self.conn, "parser", None)
        if parser is not None:
            with contextlib.suppress(Exception):  # a websockets that changed its parser: memory, not a crash
                parser.close()
        self.conn.parser_exc = None  # its traceback would hold the parser's frame, and that the protocol


def uvicorn_options(settings: Settings) -> dict[str, Any]:
    """The keyword arguments of ``uvicorn.run`` for these settings (with the app, host, port and log)."""
    GuardedHttp.header_timeout = settings.header_timeout
    trusted = settings.trusted_proxies.strip()
    return {
        "http": GuardedHttp,
        "ws": GuardedWebSocket,
        "proxy_headers": bool(trusted),
        "forwarded_allow_ips": trusted or "",
        "timeout_keep_alive": settings.keep_alive_seconds,
        "h11_max_incomplete_event_size": MAX_HEAD_BYTES,
        "ws_max_size": settings.ws_max_size,
        "ws_ping_interval": 20,
        "ws_ping_timeout": 20,
        "server_header": False,
    }


class QuietServer(uvicorn.Server):
    """uvicorn's server with its housekeeping tick once a second instead of every 0.1 s (the ``Date``
    header it refreshes has one-second resolution anyway); a stop signal wakes it at once, so stopping is as
    quick as before."""

    #: Seconds between the server's looks at its own state when no signal comes.
    TICK = 1.0

    def __init__(self, config: uvicorn.Config) -> None:
        super().__init__(config)
        self._stop_asked: asyncio.Event | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    async def main_loop(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._stop_asked = asyncio.Event()
        counter = 0
        should_exit = await self.on_tick(counter)
        while not should_exit:
            # uvicorn's on_tick refreshes the Date header when the counter is a multiple of 10 (its ten
            # ticks a second): every tick here is a second.
            counter = (counter + 10) % 864000
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self.TICK):
                    await self._stop_asked.wait()
            should_exit = await self.on_tick(counter)

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        super().handle_exit(sig, frame)
        if self._loop is not None and self._stop_asked is not None:
            self._loop.call_soon_threadsafe(self._stop_asked.set)


def serve(app: Any, *, host: str, port: int, log_level: str, settings: Settings) -> None:
    """Run ``app`` as ``uvicorn.run`` would (one process, no reload), on :class:`QuietServer`."""
    server = QuietServer(uvicorn.Config(app, host=host, port=port, log_level=log_level,
                                        **uvicorn_options(settings)))
    with contextlib.suppress(KeyboardInterrupt):
        server.run()
    if not server.started:
        sys.exit(3)  # uvicorn's STARTUP_FAILURE: the port was taken, the app's startup failed
