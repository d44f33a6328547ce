"""The :class:`~.bus.Bus` across processes and machines: Redis pub/sub through redis-py's asyncio client.

**On the wire.** A topic is the channel ``PREFIX + topic``. Every message is published by one Lua script that
increments the topic's sequence number (the key ``PREFIX + "seq:" + topic``, forgotten after a day without a
message) and publishes ``"<sequence> <envelope>"``, in one step: whichever process publishes, a channel's
messages arrive numbered 1, 2, 3... in the order Redis delivers them. The envelope is JSON,
``{"o": origin, "t": unix time of publish(), "m": message}``, or ``{"o": ..., "t": ..., "r": 1}`` for a
*resync marker* (below). ``t`` gives the bus lag (publish to delivery, clocks of two machines apart).

**A subscriber** remembers, per topic, the last number it delivered. A jump (messages it never got) delivers
a resync notice (:func:`~.bus.resync_notice`) to the topic's handlers, then the message; a number that
starts again at 1 is a count that started over (the key expired while the topic was idle: nothing missed).

**A lost connection** (Redis restarted, the network cut, nothing heard for ``SILENCE`` seconds) ends the
session: one supervisor task reconnects with backoff (``backoff[0]`` doubling up to ``backoff[1]``, with
jitter), subscribes again to every topic that has a local handler and, once Redis confirms each one, delivers
a resync notice to its handlers: whatever was published meanwhile is lost to them. Topics subscribed while
disconnected get one too.

**A publisher** never waits: ``publish`` appends to an outbox (at most ``queue_limit`` messages) and wakes
the sender, which sends what is waiting as one pipeline per batch. A message that cannot be sent (no
connection, the outbox full, or in a batch whose fate is unknown because the connection broke) is dropped,
never sent late (its subscribers may have resynced past it), and its topic is remembered: once connected
with an empty outbox the sender publishes a resync marker on each such topic, so that every subscriber, in
every process, resyncs. Delivery stays at most once and in order per topic.

Every message goes through Redis, the publisher's own subscribers' too, so that one topic has one order.
A topic's first local ``subscribe`` takes effect when Redis confirms it (a round trip later): what was
published before that is not delivered, as for any subscription "from now on".
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import secrets
import time
from collections import deque
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from redis.asyncio import Redis
from redis.asyncio.client import PubSub
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import RedisError

from ..jsontext import dumps, loads
from .bus import Handler, Message, Subscription, resync_notice

log = logging.getLogger("estimation.server")

#: Increment the topic's sequence, keep it a day, publish "<sequence> <envelope>"; atomic in Redis.
PUBLISH = """
local seq = redis.call('INCR', KEYS[1])
redis.call('EXPIRE', KEYS[1], ARGV[3])
redis.call('PUBLISH', ARGV[1], seq .. ' ' .. ARGV[2])
return seq
"""
#: Seconds a topic's sequence number is kept after its last message.
SEQUENCE_TTL = 24 * 3600
#: Messages sent in one pipeline at most.
BATCH = 256
#: Messages waiting to be sent at most; past it they are dropped (and a resync marker follows).
QUEUE_LIMIT = 10_000
#: The subscriber connection is pinged this often, and given up after this long without a word.
PING_EVERY = 5.0
SILENCE = 15.0
#: Seconds ``stop`` gives the sender to send what is waiting.
FLUSH_SECONDS = 1.0


class _Handle:
    __slots__ = ("bus", "handler", "topic")

    def __init__(self, bus: RedisBus, topic: str, handler: Handler) -> None:
        self.bus: RedisBus | None = bus
        self.topic = topic
        self.handler = handler

    def close(self) -> None:
        if self.bus is not None:
            self.bus._remove(self)
            self.bus = None


class RedisBus:
    """One process's share of the Redis bus: its local handlers, one subscriber connection, one sender."""

    def __init__(self, url: str, *, prefix: str = "estimation:",
                 on_lag: Callable[[float], None] | None = None, queue_limit: int = QUEUE_LIMIT,
                 backoff: tuple[float, float] = (0.05, 5.0),
                 connect_wait: float = 5.0) -> None:
        self.url = url
        self.prefix = prefix
        self.on_lag = on_lag
        self.queue_limit = queue_limit
        self.backoff = backoff
        self.connect_wait = connect_wait
        #: This process's name in the envelopes (for the logs and the tests).
        self.origin = secrets.token_hex(6)
        self._topics: dict[str, list[_Handle]] = {}
        self._outbox: deque[tuple[str, str]] = deque()
        self._inflight = 0
        #: Topics whose messages were dropped here: a resync marker is owed on each.
        self._dropped: set[str] = set()
        #: Per topic with a local handler: the sequence number of the last message delivered.
        self._last: dict[str, int] = {}
        #: Topics whose handlers are told to resync as soon as Redis confirms the subscription.
        self._resync_due: set[str] = set()
        #: Topics this connection has asked Redis for (SUBSCRIBE sent, no UNSUBSCRIBE since).
        self._requested: set[str] = set()
        self._wake: asyncio.Event | None = None
        self._control: asyncio.Event | None = None
        self._connected: asyncio.Event | None = None
        self._task: asyncio.Task[None] | None = None
        self._stopping = False
        self._heard = 0.0
        self.published = self.delivered = self.dropped = self.sent = 0
        self.resyncs = self.gaps = self.markers_sent = self.markers_received = 0
        self.connects = self.disconnects = 0

    @property
    def where(self) -> str:
        """Redis's host and port, for the log (never the URL: it may hold a password)."""
        parts = urlsplit(self.url)
        return f"{parts.hostname or 'localhost'}:{parts.port or 6379}"

    @property
    def connected(self) -> bool:
        return self._connected is not None and self._connected.is_set()

    # --- the Bus protocol ---------------------------------------------------------------------------
    async def start(self) -> None:
        """Connect (waiting ``connect_wait`` seconds at most: without Redis the server still starts, and
        the bus connects when Redis comes)."""
        self._stopping = False
        self._wake, self._control, self._connected = asyncio.Event(), asyncio.Event(), asyncio.Event()
        self._task = asyncio.create_task(self._supervise(), name="redis-bus")
        try:
            async with asyncio.timeout(self.connect_wait):
                await self._connected.wait()
        except TimeoutError:
            log.warning("bus: Redis at %s is not reachable yet; retrying in the background", self.where)

    async def stop(self) -> None:
        """Send what is waiting (``FLUSH_SECONDS`` at most), then close."""
        self._stopping = True
        if self._task is not None:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(FLUSH_SECONDS):
                    while self.connected and (self._outbox or self._inflight):
                        await asyncio.sleep(0.005)
            if self._control is not None:
                self._control.set()  # the keeper sees the flag now, whatever becomes of the cancel
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        self._topics.clear()
        self._outbox.clear()

    def publish(self, topic: str, message: Message) -> None:
        self.published += 1
        if not self.connected or len(self._outbox) >= self.queue_limit:
            self._drop(topic)
            return
        self._outbox.append((topic, dumps({"o": self.origin, "t": time.time(), "m": message})))
        assert self._wake is not None
        self._wake.set()

    def subscribe(self, topic: str, handler: Handler) -> Subscription:
        handle = _Handle(self, topic, handler)
        handles = self._topics.get(topic)
        if handles is not None:
            handles.append(handle)
            return handle
        self._topics[topic] = [handle]
        if not self.connected:
            self._resync_due.add(topic)  # whatever is published until Redis is back is lost to it
        if self._control is not None:
            self._control.set()  # the session subscribes the process
        return handle

    def subscribers(self, topic: str) -> int:
        return len(self._topics.get(topic, ()))

    def stats(self) -> dict[str, int | float]:
        return {"bus_topics": len(self._topics), "bus_published": self.published,
                "bus_delivered": self.delivered, "bus_sent": self.sent, "bus_dropped": self.dropped,
                "bus_outbox": len(self._outbox) + self._inflight, "bus_resyncs": self.resyncs,
                "bus_gaps": self.gaps, "bus_markers_sent": self.markers_sent,
                "bus_markers_received": self.markers_received, "bus_connected": int(self.connected),
                "bus_connects": self.connects, "bus_disconnects": self.disconnects}

    # --- local handlers -----------------------------------------------------------------------------
    def _remove(self, handle: _Handle) -> None:
        handles = self._topics.get(handle.topic)
        if handles is None:
            return
        with contextlib.suppress(ValueError):
            handles.remove(handle)
        if not handles:
            del self._topics[handle.topic]
            self._last.pop(handle.topic, None)
            self._resync_due.discard(handle.topic)
            if self._control is not None:
                self._control.set()  # the session unsubscribes the process

    def _deliver(self, topic: str, message: Message) -> None:
        for handle in tuple(self._topics.get(topic, ())):
            try:
                handle.handler(topic, message)
                self.delivered += 1
            except Exception:
                log.exception("bus: a subscriber of %s failed", topic)

    def _resync(self, topic: str) -> None:
        self.resyncs += 1
        self._deliver(topic, resync_notice(topic))

    def _drop(self, topic: str) -> None:
        self.dropped += 1
        self._dropped.add(topic)

    def _receive(self, topic: str, data: bytes) -> None:
        """A message from Redis: check its number against the last, then deliver it."""
        if topic not in self._topics:
            return  # unsubscribed meanwhile
        head, _, body = data.partition(b" ")
        try:
            seq = int(head)
            envelope = loads(body)
        except ValueError:
            log.warning("bus: a malformed message on %s ignored", topic)
            return
        last = self._last.get(topic)
        self._last[topic] = seq
        if last is not None and seq != last + 1 and seq != 1:
            self.gaps += 1
            self._resync(topic)
        if envelope.get("r"):
            self.markers_received += 1
            if last is None or seq == last + 1 or seq == 1:
                self._resync(topic)
            return
        if self.on_lag is not None:
            self.on_lag(max(0.0, time.time() - float(envelope.get("t", 0.0))))
        self._deliver(topic, envelope["m"])

    # --- the connection -----------------------------------------------------------------------------
    async def _supervise(self) -> None:
        delay = self.backoff[0]
        while not self._stopping:
            client: Redis = Redis.from_url(self.url, retry=Retry(NoBackoff(), 0), socket_connect_timeout=5.0,
                                           socket_keepalive=True)
            pubsub: PubSub | None = None
            try:
                await client.ping()
                pubsub = client.pubsub()
                await pubsub.ping()  # its own connection, before anything reads from it
                self._requested = set()
                assert self._connected is not None
                self._connected.set()
                self.connects += 1
                if self.connects > 1:
                    log.warning("bus: connected to Redis at %s again", self.where)
                delay = self.backoff[0]
                await self._session(client, pubsub)
            except (RedisError, OSError) as exc:
                if self.connected:
                    log.warning("bus: lost Redis at %s (%s); reconnecting", self.where, exc)
                elif delay >= self.backoff[1]:
                    log.warning("bus: cannot reach Redis at %s (%s)", self.where, exc)
            except Exception:  # a bug here must not end the bus for good: log it, start a new session
                log.exception("bus: the Redis session failed")
            finally:
                self._lost()
                with contextlib.suppress(Exception):
                    if pubsub is not None:
                        await pubsub.aclose()  # type: ignore[no-untyped-call]
                with contextlib.suppress(Exception):
                    await client.aclose()
            await asyncio.sleep(delay * random.uniform(0.5, 1.0))
            delay = min(delay * 2, self.backoff[1])

    def _lost(self) -> None:
        """The connection is gone: every topic resyncs when it is back, what waited to be sent is dropped."""
        assert self._connected is not None
        if self._connected.is_set():
            self.disconnects += 1
        self._connected.clear()
        self._resync_due.update(self._topics)
        self._last.clear()
        while self._outbox:
            self._drop(self._outbox.popleft()[0])

    async def _session(self, client: Redis, pubsub: PubSub) -> None:
        """Read, send and keep the subscriptions until one of them fails (raises)."""
        self._heard = asyncio.get_running_loop().time()
        tasks = [asyncio.create_task(self._read(pubsub)), asyncio.create_task(self._send(client)),
                 asyncio.create_task(self._keep(pubsub))]
        try:
            done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
            for task in done:
                task.result()
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    async def _read(self, pubsub: PubSub) -> None:
        prefix = len(self.prefix)
        while True:
            message: dict[str, Any] | None = await pubsub.get_message(timeout=None)
            self._heard = asyncio.get_running_loop().time()
            if message is None:
                continue
            kind, channel = message["type"], message.get("channel")
            if not isinstance(channel, bytes):
                continue  # a pong
            topic = channel.decode()[prefix:]
            if kind == "message":
                self._receive(topic, message["data"])
            elif kind == "subscribe" and topic in self._resync_due and topic in self._topics:
                self._resync_due.discard(topic)
                self._last.pop(topic, None)
                self._resync(topic)

    async def _keep(self, pubsub: PubSub) -> None:
        """Subscribe to the topics that have local handlers, unsubscribe from those that lost them, and
        ping: a connection that says nothing for ``SILENCE`` seconds is taken for lost."""
        assert self._control is not None
        loop = asyncio.get_running_loop()
        # Until the bus stops: a cancel alone is not enough, redis-py's calls can swallow one (the stop then
        # waited out SILENCE, 15 s, for this loop to raise); :meth:`stop` sets the flag and wakes us.
        while not self._stopping:
            # Cleared before reading the topics, never after an await: a subscribe that comes while this
            # task waits on Redis sets it again and is seen at once (cleared after, it waited for a ping).
            self._control.clear()
            want = set(self._topics)
            more, fewer = want - self._requested, self._requested - want
            if more:
                await pubsub.subscribe(*(self.prefix + t for t in sorted(more)))
                self._requested |= more
            if fewer:
                await pubsub.unsubscribe(*(self.prefix + t for t in sorted(fewer)))
                self._requested -= fewer
            if loop.time() - self._heard > SILENCE:
                raise ConnectionError(f"nothing from Redis for {SILENCE:.0f} s")
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(PING_EVERY):
                    await self._control.wait()
                    continue
            await pubsub.ping()

    async def _send(self, client: Redis) -> None:
        assert self._wake is not None
        while True:
            if not self._outbox:
                if self._dropped:  # the markers owed, now that nothing else waits
                    owed, self._dropped = sorted(self._dropped), set()
                    for topic in owed:
                        self._outbox.append((topic, dumps({"o": self.origin, "t": time.time(), "r": 1})))
                    self.markers_sent += len(owed)
                    continue
                self._wake.clear()
                await self._wake.wait()
                continue
            batch = [self._outbox.popleft() for _ in range(min(BATCH, len(self._outbox)))]
            self._inflight = len(batch)
            pipe = client.pipeline(transaction=False)
            for topic, payload in batch:
                pipe.eval(PUBLISH, 1, self.prefix + "seq:" + topic, self.prefix + topic, payload,
                          SEQUENCE_TTL)
            try:
                await pipe.execute()
            except BaseException:
                for topic, _ in batch:  # sent or not, nobody knows: the subscribers will resync
                    self._drop(topic)
                raise
            finally:
                self._inflight = 0
            self.sent += len(batch)
