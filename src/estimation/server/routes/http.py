"""What every HTTP response and request goes through: security headers, body limits, safe JSON errors.

- :class:`SecurityHeaders` puts a Content-Security-Policy (scripts, styles and connections from this origin
  only; no framing, no plugins), ``X-Content-Type-Options: nosniff``, ``Referrer-Policy: no-referrer`` and
  ``X-Frame-Options: DENY`` on every response. The API's own documentation pages (``/docs``, ``/redoc``)
  load Swagger UI and ReDoc from their CDN with an inline script: they get a policy that allows exactly that.
- :class:`BodyGuard` reads a request's body before the app sees it: at most ``max_bytes`` (413 past it),
  within ``timeout`` seconds (408 past it), so a client that starts a body and never finishes it holds
  nothing for long. (Slow *headers* are uvicorn's part: see :mod:`.serving`.)
- :class:`SafeJSONResponse` writes JSON as ASCII, escaping what it cannot encode: an error that echoes a
  client's input (a 422 does) never fails on a lone surrogate such as ``"\\ud800"``, nor on ``Infinity``.
"""

from __future__ import annotations

import asyncio
import json
import math
from typing import Any

from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

APP_POLICY = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
              "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
              "frame-ancestors 'none'")
#: FastAPI's /docs and /redoc pages: their UI's scripts and styles from its CDN, and one inline script.
DOCS_POLICY = ("default-src 'self'; script-src 'self' https://cdn.jsdelivr.net 'unsafe-inline'; "
               "style-src 'self' https://cdn.jsdelivr.net https://fonts.googleapis.com 'unsafe-inline'; "
               "img-src 'self' data: https://fastapi.tiangolo.com https://cdn.redoc.ly; "
               "font-src 'self' https://fonts.gstatic.com; worker-src 'self' blob:; connect-src 'self'; "
               "object-src 'none'; base-uri 'none'; frame-ancestors 'none'")
DOCS = frozenset({"/docs", "/docs/oauth2-redirect", "/redoc"})


def security_headers(path: str) -> list[tuple[bytes, bytes]]:
    policy = DOCS_POLICY if path in DOCS else APP_POLICY
    return [(b"content-security-policy", policy.encode()), (b"x-content-type-options", b"nosniff"),
            (b"referrer-policy", b"no-referrer"), (b"x-frame-options", b"DENY"),
            (b"cross-origin-opener-policy", b"same-origin")]


class SecurityHeaders:
    """ASGI middleware: the headers above on every HTTP response (the app's own headers win)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        extra = security_headers(str(scope.get("path", "")))

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                present = {bytes(name).lower() for name, _ in headers}
                message = {**message, "headers": headers + [(n, v) for n, v in extra if n not in present]}
            await send(message)

        await self.app(scope, receive, with_headers)


class BodyGuard:
    """ASGI middleware: a request's whole body within ``timeout`` seconds and ``max_bytes`` bytes, else
    408 or 413 (and the connection closed); the app then reads the body from memory."""

    def __init__(self, app: ASGIApp, max_bytes: int, timeout: float) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.timeout = timeout

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = _content_length(scope)
        if declared is not None and declared > self.max_bytes:
            await _refuse(send, 413, f"a request body is at most {self.max_bytes} bytes")
            return
        chunks: list[bytes] = []
        size = 0
        try:
            async with asyncio.timeout(self.timeout):
                while True:
                    message = await receive()
                    if message["type"] == "http.disconnect":
                        return  # the client is gone: nothing to answer
                    chunk = bytes(message.get("body", b""))
                    size += len(chunk)
                    if size > self.max_bytes:
                        await _refuse(send, 413, f"a request body is at most {self.max_bytes} bytes")
                        return
                    chunks.append(chunk)
                    if not message.get("more_body", False):
                        break
        except TimeoutError:
            await _refuse(send, 408, f"the request's body did not arrive within {self.timeout:g} s")
            return
        body = b"".join(chunks)
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()  # after the body: the disconnect, whenever it comes

        await self.app(scope, replay, send)


def _content_length(scope: Scope) -> int | None:
    for name, value in scope.get("headers", ()):
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


async def _refuse(send: Send, status: int, detail: str) -> None:
    body = json.dumps({"detail": detail}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode()), (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": body})


class SafeJSONResponse(JSONResponse):
    """JSON as ASCII: whatever text it carries, it renders (a lone surrogate becomes ``\\ud800``), and
    whatever numbers: Python's JSON reader takes ``Infinity`` and ``NaN``, which a 422 then echoes, and JSON
    has no such numbers, so they are written as the strings ``"inf"``, ``"nan"``."""

    def render(self, content: Any) -> bytes:
        return json.dumps(_finite(content), ensure_ascii=True, allow_nan=False,
                          separators=(",", ":")).encode("ascii")


def _finite(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    return value
