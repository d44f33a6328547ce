"""What an operator reads of a running server besides the metrics: a request id and a table id on every log
line (as JSON when asked), the count of answers by status class, and the event loop's lag.

* :class:`RequestContext` (ASGI middleware) gives every HTTP request and socket an id: the client's
  ``X-Request-ID`` when it is a short token (a balancer's), else a new one, echoed in the answer, so that a
  complaint, the balancer's log and the server's log name the same request. The table id is read from the
  path (``/api/tables/{id}/...``, ``/ws/tables/{id}``). Both live in context variables, which the tasks
  a request starts inherit, so a line logged by a bot move of that table carries them too.
* :class:`JsonFormatter`: one JSON object a line (time, level, logger, message, request_id, table_id,
  exception), for ``ESTIMATION_LOG_FORMAT=json``; a log shipper needs no parsing rules.
* :class:`LoopLag`: how late a timer fires on the event loop, sampled twice a second: a CPU-bound step
  (a long replay, a slow serialisation) shows as lag before it shows as a player's wait.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import json
import logging
import re
import time
import uuid
from collections.abc import Callable

from starlette.types import ASGIApp, Message, Receive, Scope, Send

request_id: contextvars.ContextVar[str | None] = contextvars.ContextVar("request_id", default=None)
table_id: contextvars.ContextVar[int | None] = contextvars.ContextVar("table_id", default=None)

_TABLE_PATH = re.compile(r"^/(?:api|ws)/tables/(\d{1,18})(?:/|$)")
_GIVEN_ID = re.compile(r"^[A-Za-z0-9._-]{8,64}$")


def table_of(path: str) -> int | None:
    """The table a request's path names, if any."""
    match = _TABLE_PATH.match(path)
    return int(match.group(1)) if match else None


class RequestContext:
    """Sets :data:`request_id` and :data:`table_id` for the request, echoes ``X-Request-ID``, and reports
    each HTTP answer's status to ``counted`` (the metrics' count of answers by class)."""

    def __init__(self, app: ASGIApp, counted: Callable[[int], None] | None = None) -> None:
        self.app = app
        self.counted = counted

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        given = next((v.decode("latin-1") for k, v in scope.get("headers", ()) if k == b"x-request-id"), "")
        rid = given if _GIVEN_ID.match(given) else uuid.uuid4().hex
        tokens = (request_id.set(rid), table_id.set(table_of(scope.get("path", ""))))
        counted = self.counted if scope["type"] == "http" else None

        async def send_with_id(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), (b"x-request-id", rid.encode())]
                if counted is not None:
                    counted(int(message["status"]))
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        finally:
            request_id.reset(tokens[0])
            table_id.reset(tokens[1])


class JsonFormatter(logging.Formatter):
    """A log record as one line of JSON, with the request's and table's ids when it has them."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, object] = {
            "time": self.formatTime(record, "%Y-%m-%dT%H:%M:%S") + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(), "logger": record.name, "message": record.getMessage()}
        rid, tid = request_id.get(), table_id.get()
        if rid is not None:
            line["request_id"] = rid
        if tid is not None:
            line["table_id"] = tid
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        return json.dumps(line, ensure_ascii=False)


JsonFormatter.converter = time.gmtime


class LoopLag:
    """Samples the event loop's lag every ``interval`` seconds into ``observe`` (seconds late)."""

    def __init__(self, observe: Callable[[float], None], interval: float = 0.5) -> None:
        self.observe = observe
        self.interval = interval
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._run())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            due = loop.time() + self.interval
            await asyncio.sleep(self.interval)
            self.observe(max(0.0, loop.time() - due))
