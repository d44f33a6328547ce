"""The limits that matter, per client address, in this process or shared by every worker through Redis.

Sign-ups (guests and accounts), sign-in attempts, new tables and socket connects are limited per address
(``Hub.allow``: a token bucket per ``kind:address``), never per session token: a guest's token costs
nothing to mint, so a limit keyed by it is multiplied by however many guests a client makes. In cluster
mode several workers answer one address behind the balancer: with ``ESTIMATION_REDIS_URL``
set the buckets live in Redis (one Lua script takes a token, atomically, under ``PREFIX + "limit:" + key``,
forgotten once the bucket would be full again), so the limit holds for the whole cluster, not per worker.

Redis unreachable, each process falls back to its own buckets (the limit then holds per worker, as without
Redis) and tries Redis again a second later; a limit never waits on Redis for more than ``TIMEOUT``.
"""

from __future__ import annotations

import logging
import math
import time
from collections import OrderedDict
from typing import Any

from redis.asyncio import Redis
from redis.exceptions import RedisError

from .ratelimit import Buckets

log = logging.getLogger("estimation.server")

#: A token bucket in a Redis hash (``t``: tokens, ``s``: when last seen, Redis's own clock, in seconds).
#: ARGV: rate a second, burst. Returns 1 (allowed) or 0.
BUCKET = """
local rate, burst = tonumber(ARGV[1]), tonumber(ARGV[2])
local clock = redis.call('TIME')
local now = tonumber(clock[1]) + tonumber(clock[2]) / 1000000
local held = redis.call('HMGET', KEYS[1], 't', 's')
local tokens, stamp = tonumber(held[1]), tonumber(held[2])
if tokens == nil then tokens, stamp = burst, now end
tokens = math.min(burst, tokens + math.max(0, now - stamp) * rate)
local allowed = 0
if tokens >= 1 then tokens, allowed = tokens - 1, 1 end
redis.call('HSET', KEYS[1], 't', tostring(tokens), 's', tostring(now))
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[3]))
return allowed
"""
#: Seconds a limit waits for Redis at most, and Redis is left alone after a failure.
TIMEOUT = 0.5
RETRY_AFTER = 1.0


class SharedBuckets:
    """Token buckets in Redis, shared by every process that uses the same Redis and prefix."""

    def __init__(self, url: str, prefix: str = "estimation:") -> None:
        self.prefix = prefix
        self.client: Redis = Redis.from_url(url, socket_timeout=TIMEOUT, socket_connect_timeout=TIMEOUT)
        self.script: Any = self.client.register_script(BUCKET)
        self._down_until = 0.0
        self.failures = 0

    async def take(self, key: str, rate: float, burst: int) -> bool | None:
        """Whether the bucket ``key`` gives a token now; None when Redis cannot say (the caller decides)."""
        if time.monotonic() < self._down_until:
            return None
        ttl = max(1, math.ceil(burst / rate) + 1)
        try:
            return bool(await self.script(keys=[self.prefix + "limit:" + key], args=[rate, burst, ttl]))
        except (RedisError, OSError) as exc:
            self._failed(exc)
            return None

    async def count(self, key: str) -> int | None:
        """The count under ``key`` (0: none); None when Redis cannot say."""
        if time.monotonic() < self._down_until:
            return None
        try:
            return int(await self.client.get(self.prefix + "count:" + key) or 0)
        except (RedisError, OSError, ValueError) as exc:
            self._failed(exc)
            return None

    async def add(self, key: str, window: float) -> bool:
        """One more under ``key``, the count forgotten ``window`` seconds after its first; False when Redis
        could not take it."""
        if time.monotonic() < self._down_until:
            return False
        try:
            pipe = self.client.pipeline(transaction=True)
            pipe.incr(self.prefix + "count:" + key)
            pipe.expire(self.prefix + "count:" + key, max(1, math.ceil(window)), nx=True)
            await pipe.execute()
            return True
        except (RedisError, OSError) as exc:
            self._failed(exc)
            return False

    def _failed(self, exc: BaseException) -> None:
        self.failures += 1
        if self._down_until == 0.0 or self.failures % 100 == 1:
            log.warning("limits: Redis unreachable (%s); counting in this process meanwhile", exc)
        self._down_until = time.monotonic() + RETRY_AFTER

    async def close(self) -> None:
        await self.client.aclose()


class Limit:
    """One limit: ``rate`` a second per key on average, bursts of ``burst`` (a rate of 0: no limit); in
    ``shared`` (Redis) when given, else (or while Redis is unreachable) in this process."""

    def __init__(self, name: str, rate: float, burst: int, shared: SharedBuckets | None = None) -> None:
        self.name = name
        self.rate = rate
        self.burst = max(1, burst)
        self.shared = shared
        self.local = Buckets(rate, burst)

    async def allow(self, key: str) -> bool:
        if self.rate <= 0:
            return True
        if self.shared is not None:
            taken = await self.shared.take(f"{self.name}:{key}", self.rate, self.burst)
            if taken is not None:
                return taken
        return self.local.allow(key)


class Counts:
    """Events per key (wrong passwords) over a window of ``window`` seconds from the key's first one: in
    ``shared`` (Redis) when given, else (or while Redis is unreachable) in this process, at most
    ``max_keys`` keys (the least recently seen forgotten first)."""

    def __init__(self, name: str, window: float, shared: SharedBuckets | None = None,
                 max_keys: int = 100_000) -> None:
        self.name = name
        self.window = window
        self.shared = shared
        self.max_keys = max_keys
        self.local: OrderedDict[str, tuple[float, int]] = OrderedDict()

    def here(self, key: str) -> int:
        """This process's count (no Redis: for ordering work, never for refusing it)."""
        found = self.local.get(key)
        if found is None:
            return 0
        if time.monotonic() - found[0] >= self.window:
            del self.local[key]
            return 0
        return found[1]

    async def count(self, key: str) -> int:
        if self.shared is not None:
            shared = await self.shared.count(f"{self.name}:{key}")
            if shared is not None:
                return shared
        return self.here(key)

    async def add(self, key: str) -> None:
        now = time.monotonic()
        started, count = self.local.get(key, (now, 0))
        if now - started >= self.window:
            started, count = now, 0
        self.local[key] = (started, count + 1)
        self.local.move_to_end(key)
        while len(self.local) > self.max_keys:
            self.local.popitem(last=False)
        if self.shared is not None:
            await self.shared.add(f"{self.name}:{key}", self.window)
