"""The REST lobby's rate limit: a token bucket per client, refused with 429 and a message that says why.

The table WebSocket has its own limit per connection (see ``connection.RateLimiter``); this one covers the
lobby's HTTP routes under ``/api/`` (``/api/health`` excepted, for monitors). A client is its session token
when it sends one (so players behind one address, such as a school's, do not share a budget), else its
address. Buckets live in memory, at most ``max_clients`` of them (the least recently seen is forgotten
first), so a flood of invented tokens costs memory that is bounded; limiting by address only, whatever the
token, is the job of the reverse proxy in front of a public server.
"""

from __future__ import annotations

import json
import math
from collections import OrderedDict

from starlette.types import ASGIApp, Receive, Scope, Send

from .connection import RateLimiter

EXEMPT = frozenset({"/api/health"})


class RestRateLimit:
    """ASGI middleware: ``rate`` requests a second per client on average, bursts of ``burst``; a rate of 0
    (or less) turns the limit off."""

    def __init__(self, app: ASGIApp, rate: float, burst: int, max_clients: int = 10_000) -> None:
        self.app = app
        self.rate = rate
        self.burst = max(1, burst)
        self.max_clients = max_clients
        self.buckets: OrderedDict[str, RateLimiter] = OrderedDict()

    @staticmethod
    def client_key(scope: Scope) -> str:
        for name, value in scope.get("headers", ()):
            if name == b"authorization":
                scheme, _, token = bytes(value).decode("latin-1").partition(" ")
                if scheme.lower() == "bearer" and token:
                    return "token:" + token.strip()[:200]
        client = scope.get("client")
        return "addr:" + (str(client[0]) if client else "?")

    def allow(self, key: str) -> bool:
        bucket = self.buckets.get(key)
        if bucket is None:
            bucket = self.buckets[key] = RateLimiter(self.rate, self.burst)
            while len(self.buckets) > self.max_clients:
                self.buckets.popitem(last=False)
        else:
            self.buckets.move_to_end(key)
        return bucket.allow()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (scope["type"] != "http" or self.rate <= 0 or not str(scope.get("path", "")).startswith("/api/")
                or scope.get("path") in EXEMPT or self.allow(self.client_key(scope))):
            await self.app(scope, receive, send)
            return
        retry = max(1, math.ceil(1 / self.rate))
        body = json.dumps({"detail": f"too many requests: at most {self.rate:g} a second (bursts of "
                                     f"{self.burst}) per client; try again in {retry} s",
                           "code": "rate_limited"}).encode()
        await send({"type": "http.response.start", "status": 429,
                    "headers": [(b"content-type", b"application/json"),
                                (b"content-length", str(len(body)).encode()),
                                (b"retry-after", str(retry).encode())]})
        await send({"type": "http.response.body", "body": body})
