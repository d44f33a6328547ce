"""One pub/sub interface for everything that is not a table's own game state: chat, lobby changes, presence,
rematch offers, a player's own settings (mutes, silences).

Three kinds of topic, each named by a function here (never a string built elsewhere):

- :func:`table_topic`: one per table: its chat, who is connected, rematch and quick-play notices;
- :func:`LOBBY`: the list of public tables as it changes;
- :func:`user_topic`: one per player: what follows them to every socket they have open.

A message is a JSON-ready dict with a string ``"type"``, exactly as clients receive it. ``publish`` never
blocks and never raises for a subscriber's fault: it is called from inside a table's commit path. Delivery
is at most once and in order per topic; a subscriber that misses messages (a lost connection, or one day a
lost Redis connection) resyncs through REST, as a table's client does through ``sync``.

:class:`InMemoryBus` is the single-process implementation. Another (Redis, for a cluster) implements the
same :class:`Bus` protocol: ``publish`` queues for a background sender, ``subscribe`` registers a local
handler and subscribes the process to the channel when it is the first one.
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Callable
from typing import Any, Protocol

log = logging.getLogger("estimation.server")

Message = dict[str, Any]
#: Called with the topic and the message, on the event loop's thread; must not block or await.
Handler = Callable[[str, Message], None]

LOBBY = "lobby"


def table_topic(table_id: int) -> str:
    return f"table:{table_id}"


def user_topic(account_id: int) -> str:
    return f"user:{account_id}"


class Subscription(Protocol):
    def close(self) -> None:
        """Stop delivering; safe to call twice."""


class Bus(Protocol):
    async def start(self) -> None: ...

    async def stop(self) -> None: ...

    def publish(self, topic: str, message: Message) -> None:
        """Send ``message`` to every subscriber of ``topic`` (in every process); never blocks."""

    def subscribe(self, topic: str, handler: Handler) -> Subscription:
        """Call ``handler`` for each message published on ``topic`` from now on, until closed."""

    def subscribers(self, topic: str) -> int:
        """How many handlers this process has on ``topic`` (for presence and the health counters)."""


class _Handle:
    __slots__ = ("bus", "handler", "topic")

    def __init__(self, bus: InMemoryBus, topic: str, handler: Handler) -> None:
        self.bus: InMemoryBus | None = bus
        self.topic = topic
        self.handler = handler

    def close(self) -> None:
        if self.bus is not None:
            self.bus._remove(self)
            self.bus = None


class InMemoryBus:
    """Subscribers in a dict of lists; publishing calls each handler at once, in subscription order."""

    def __init__(self) -> None:
        self._topics: dict[str, list[_Handle]] = {}
        self.published = 0
        self.delivered = 0

    async def start(self) -> None:
        return None

    async def stop(self) -> None:
        self._topics.clear()

    def publish(self, topic: str, message: Message) -> None:
        self.published += 1
        for handle in tuple(self._topics.get(topic, ())):
            try:
                handle.handler(topic, message)
                self.delivered += 1
            except Exception:
                log.exception("bus: a subscriber of %s failed", topic)

    def subscribe(self, topic: str, handler: Handler) -> Subscription:
        handle = _Handle(self, topic, handler)
        self._topics.setdefault(topic, []).append(handle)
        return handle

    def subscribers(self, topic: str) -> int:
        return len(self._topics.get(topic, ()))

    def _remove(self, handle: _Handle) -> None:
        handles = self._topics.get(handle.topic)
        if handles is None:
            return
        try:
            handles.remove(handle)
        except ValueError:
            return
        if not handles:
            del self._topics[handle.topic]

    def stats(self) -> dict[str, int]:
        return {"bus_topics": len(self._topics), "bus_published": self.published,
                "bus_delivered": self.delivered}


#: Where a bus for a ``redis://`` URL comes from: a module with a class ``RedisBus(url: str)`` that implements
#: :class:`Bus` (written on its own branch; this is the hook it plugs into).
REDIS_BUS = "estimation.server.redis_bus"


def make_bus(url: str) -> Bus:
    """The bus for ``Settings.bus_url``: the in-process one for "" (one process, or a cluster whose lobby
    and chat stay per worker), a Redis bus for ``redis://...`` (``rediss://`` too)."""
    if not url or url == "memory":
        return InMemoryBus()
    if url.startswith(("redis://", "rediss://", "unix://")):
        try:
            module = importlib.import_module(REDIS_BUS)
        except ImportError as exc:
            raise RuntimeError(f"ESTIMATION_BUS_URL={url!r} needs the Redis bus ({REDIS_BUS}): "
                               f"{exc}") from None
        bus: Bus = module.RedisBus(url)
        return bus
    raise ValueError(f"unknown bus URL {url!r}: '' (in-process) or redis://host:port/db")
