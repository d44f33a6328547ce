"""One pub/sub interface for everything that is not a table's own game state: chat, lobby changes, presence,
rematch offers, a player's own settings (mutes, silences).

Three kinds of topic, each named by a function here (never a string built elsewhere):

- :func:`table_topic`: one per table: its chat, who is connected, rematch and quick-play notices;
- :func:`LOBBY`: the list of public tables as it changes;
- :func:`user_topic`: one per player: what follows them to every socket they have open;
- :data:`SESSIONS`: sessions that ended (signed out, signed out everywhere, a new password, a deleted
  account): every process closes the sockets it holds for them (``Hub.end_session``).

A message is a JSON-ready dict with a string ``"type"``, exactly as clients receive it. ``publish`` never
blocks and never raises for a subscriber's fault: it is called from inside a table's commit path. Delivery
is at most once and in order per topic; a subscriber that may have missed messages is told so by a
**resync notice**, :func:`resync_notice` (``{"type": "resync", "topic": ...}``), delivered to its handler
like a message: it then resyncs through REST (or the lobby's snapshot), as a table's client does through
``sync``. Every handler must expect one.

:class:`InMemoryBus` is the single-process implementation (it never misses, so it never sends a notice).
:class:`~.bus_redis.RedisBus` implements the same :class:`Bus` protocol across processes and machines:
``publish`` queues for a background sender, ``subscribe`` registers a local handler and subscribes the
process to the channel when it is the first one; it numbers each topic's messages, so a gap is seen, and
sends the notice after a gap, a lost connection or a restarted Redis.
:func:`~.bus_choice.open_bus` picks one by the settings (``ESTIMATION_REDIS_URL``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, Protocol

log = logging.getLogger("estimation.server")

Message = dict[str, Any]
#: Called with the topic and the message, on the event loop's thread; must not block or await.
Handler = Callable[[str, Message], None]

LOBBY = "lobby"
#: Ended sessions, for every process: ``{"type": "session_ended", "token_hash": ...}`` or
#: ``{"type": "sessions_ended", "account_id": ..., "keep": token hash | None}``.
SESSIONS = "sessions"
#: Competitions' news between processes: ``{"type": "competition_poke", "competition": id}`` (a board
#: finished or a director acted at a worker that does not own the competition: its owner moves it on) and
#: ``{"type": "competition_watchable", "competition": id}`` (a stage is over: its tables may be watched).
COMPETITIONS = "competitions"
#: The ``type`` of a resync notice (:func:`resync_notice`).
RESYNC = "resync"


def table_topic(table_id: int) -> str:
    return f"table:{table_id}"


def user_topic(account_id: int) -> str:
    return f"user:{account_id}"


def resync_notice(topic: str) -> Message:
    """What a handler gets instead of the messages it may have missed on ``topic``."""
    return {"type": RESYNC, "topic": topic}


def client_resync(topic: str) -> Message:
    """The notice as a client gets it: ``{"type": "resync", "topic": "lobby" | "table" | "user"}`` (the kind
    of topic, not its name)."""
    return {"type": RESYNC, "topic": topic.split(":", 1)[0]}


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

    @property
    def connected(self) -> bool:
        """Whether what other processes publish reaches this one now (news missed while it was not comes
        as a resync notice once it is again). One process's bus: always."""

    def stats(self) -> dict[str, int | float]:
        """Counters for the metrics (``bus_*``)."""


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

    @property
    def connected(self) -> bool:
        return True

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

    def stats(self) -> dict[str, int | float]:
        return {"bus_topics": len(self._topics), "bus_published": self.published,
                "bus_delivered": self.delivered, "bus_connected": 1}

