"""The REST lobby's rate limits: token buckets per client, refused with 429 and a message that says why.

The table WebSocket has its own limit per connection (a :class:`RateLimiter`, held by each connection); this
one covers the lobby's HTTP routes under ``/api/`` (``/api/health`` excepted, for monitors). A client is the
player whose session token this process has verified (so players behind one address, such as a school's, do
not share a budget), else its address: a token that is made up, expired or not yet verified counts against the
address it came from, so inventing a token per request buys nothing. The address is the peer's own unless the
peer is a configured reverse proxy (``Settings.trusted_proxies``, applied by uvicorn before this runs).

Buckets live in memory, at most ``max_clients`` of them (the least recently seen is forgotten first), so a
flood of addresses costs memory that is bounded. :class:`Buckets` also keeps the per-address limits on
creating guests, accounts and tables (see ``Hub.allow_create``).
"""

from __future__ import annotations

import datetime as dt
import json
import math
import time
from collections import OrderedDict

from starlette.types import ASGIApp, Receive, Scope, Send

from ..storage.models import utcnow
from .auth import hash_token


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


EXEMPT = frozenset({"/api/health"})


class Buckets:
    """A token bucket per key: ``rate`` a second on average, bursts of ``burst``; a rate of 0 (or less)
    allows everything. At most ``max_keys`` buckets: the least recently seen is forgotten first."""

    def __init__(self, rate: float, burst: int, max_keys: int = 10_000) -> None:
        self.rate = rate
        self.burst = max(1, burst)
        self.max_keys = max_keys
        self.buckets: OrderedDict[str, RateLimiter] = OrderedDict()

    def allow(self, key: str) -> bool:
        if self.rate <= 0:
            return True
        bucket = self.buckets.get(key)
        if bucket is None:
            bucket = self.buckets[key] = RateLimiter(self.rate, self.burst)
            while len(self.buckets) > self.max_keys:
                self.buckets.popitem(last=False)
        else:
            self.buckets.move_to_end(key)
        return bucket.allow()


class VerifiedTokens:
    """Session tokens this process has checked against the database: token hash -> (account, expiry).

    Filled where a token is issued or verified (sign-in, a request's ``current_account``), emptied at
    sign-out; bounded like the buckets. Only a token found here makes a request the player's own client."""

    def __init__(self, max_tokens: int = 100_000) -> None:
        self.max_tokens = max_tokens
        self.tokens: OrderedDict[str, tuple[int, dt.datetime]] = OrderedDict()

    def note(self, token_hash: str, account_id: int, expires_at: dt.datetime) -> None:
        self.tokens[token_hash] = (account_id, expires_at)
        self.tokens.move_to_end(token_hash)
        while len(self.tokens) > self.max_tokens:
            self.tokens.popitem(last=False)

    def forget(self, token_hash: str) -> None:
        self.tokens.pop(token_hash, None)

    def account(self, token_hash: str) -> int | None:
        found = self.tokens.get(token_hash)
        if found is None:
            return None
        if found[1] <= utcnow():
            del self.tokens[token_hash]
            return None
        return found[0]


def peer(scope: Scope) -> str:
    """The client's address: the peer's, or the one a trusted proxy named (uvicorn has put it here)."""
    client = scope.get("client")
    return str(client[0]) if client else "?"


def bearer_token(scope: Scope) -> str | None:
    for name, value in scope.get("headers", ()):
        if name == b"authorization":
            scheme, _, token = bytes(value).decode("latin-1").partition(" ")
            if scheme.lower() == "bearer" and token.strip():
                return token.strip()
    return None


class RestRateLimit:
    """ASGI middleware: ``rate`` requests a second per client on average, bursts of ``burst``; a rate of 0
    (or less) turns the limit off."""

    def __init__(self, app: ASGIApp, rate: float, burst: int, verified: VerifiedTokens | None = None,
                 max_clients: int = 10_000, address_rate: float = 0.0, address_burst: int = 1) -> None:
        self.app = app
        self.limits = Buckets(rate, burst, max_clients)
        #: Every request from one address, whatever token it carries: guests are free to mint, so the
        #: per-player budget alone is multiplied by as many guests as a client makes.
        self.addresses = Buckets(address_rate, address_burst, max_clients)
        self.verified = verified if verified is not None else VerifiedTokens()

    @property
    def rate(self) -> float:
        return self.limits.rate

    @property
    def buckets(self) -> OrderedDict[str, RateLimiter]:
        return self.limits.buckets

    def client_key(self, scope: Scope) -> str:
        token = bearer_token(scope)
        if token is not None and len(token) <= 200:
            account_id = self.verified.account(hash_token(token))
            if account_id is not None:
                return f"player:{account_id}"
        return "addr:" + peer(scope)

    def allow(self, key: str) -> bool:
        return self.limits.allow(key)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (scope["type"] != "http" or self.rate <= 0 or not str(scope.get("path", "")).startswith("/api/")
                or scope.get("path") in EXEMPT):
            await self.app(scope, receive, send)
            return
        key = self.client_key(scope)
        if not self.allow(key):
            retry = max(1, math.ceil(1 / self.rate))
            await too_many(send, f"too many requests: at most {self.rate:g} a second (bursts of "
                                 f"{self.limits.burst}) per client; try again in {retry} s", retry)
            return
        if key.startswith("player:") and not self.addresses.allow(peer(scope)):
            rate = self.addresses.rate
            retry = max(1, math.ceil(1 / rate))
            await too_many(send, f"too many requests from your address: at most {rate:g} a second (bursts "
                                 f"of {self.addresses.burst}) over all its sessions; try again in {retry} s",
                           retry)
            return
        await self.app(scope, receive, send)


async def too_many(send: Send, detail: str, retry: int) -> None:
    body = json.dumps({"detail": detail, "code": "rate_limited"}).encode()
    await send({"type": "http.response.start", "status": 429,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode()),
                            (b"retry-after", str(retry).encode())]})
    await send({"type": "http.response.body", "body": body})
