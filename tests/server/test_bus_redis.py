"""The Redis bus against a real redis-server: two buses stand for two processes (or machines).

Publish and subscribe across them, one order per topic, a missed message seen as a gap (a resync notice),
a publisher that had to drop messages making every subscriber resync, and Redis restarted mid-stream: every
subscriber is told to resync and the messages flow again.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from redis.asyncio import Redis
from redis.asyncio.client import PubSub
from server_helpers import RedisProcess

from estimation.server.cluster import bus_redis
from estimation.server.cluster.bus import LOBBY, RESYNC, Message, resync_notice, table_topic, user_topic
from estimation.server.cluster.bus_redis import RedisBus

FAST = (0.02, 0.3)  # reconnect backoff for the tests: first wait, longest wait


def prefix() -> str:
    return f"test{secrets.token_hex(4)}:"


async def eventually(check: Callable[[], bool], timeout: float = 15.0, what: str = "") -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not check():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"not in {timeout} s: {what}")
        await asyncio.sleep(0.01)


async def subscribed(url: str, channel: str, count: int) -> None:
    """Wait until Redis has ``count`` connections subscribed to ``channel``."""
    client: Redis = Redis.from_url(url)
    try:
        for _ in range(1500):
            numsub = await client.pubsub_numsub(channel)
            if numsub and numsub[0][1] == count:
                return
            await asyncio.sleep(0.01)
        raise AssertionError(f"{channel}: never {count} subscribers")
    finally:
        await client.aclose()


class Inbox:
    """What one handler got, in order."""

    def __init__(self) -> None:
        self.got: list[Message] = []

    def __call__(self, _topic: str, message: Message) -> None:
        self.got.append(message)

    @property
    def messages(self) -> list[Message]:
        return [m for m in self.got if m["type"] != RESYNC]

    @property
    def resyncs(self) -> int:
        return sum(m["type"] == RESYNC for m in self.got)


def with_buses(url: str, body: Callable[..., Awaitable[Any]], count: int = 2, **options: Any) -> Any:
    async def main() -> Any:
        p = prefix()
        buses = [RedisBus(url, prefix=p, backoff=FAST, **options) for _ in range(count)]
        for bus in buses:
            await bus.start()
            assert bus.connected
        try:
            return await body(p, *buses)
        finally:
            for bus in buses:
                await bus.stop()

    return asyncio.run(main())


def test_a_message_reaches_every_subscriber_in_every_process(redis_server: RedisProcess) -> None:
    async def body(p: str, a: RedisBus, b: RedisBus) -> None:
        on_a, on_b, other = Inbox(), Inbox(), Inbox()

        def broken(_topic: str, _message: Message) -> None:
            raise RuntimeError("a subscriber's bug")

        a.subscribe(LOBBY, broken)  # stops neither the others nor the bus
        a.subscribe(LOBBY, on_a)
        b.subscribe(LOBBY, on_b)
        a.subscribe(user_topic(1), other)
        await subscribed(redis_server.url, p + LOBBY, 2)
        assert a.subscribers(LOBBY) == 2 and b.subscribers(LOBBY) == 1
        b.publish(LOBBY, {"type": "table", "table": {"id": 7}})
        await eventually(lambda: on_a.got and on_b.got, what="delivered to both")
        assert on_a.got == on_b.got == [{"type": "table", "table": {"id": 7}}]
        assert other.got == []  # another topic hears nothing
        assert a.stats()["bus_delivered"] == 1 and b.stats()["bus_published"] == 1
        # The publisher counts a batch as sent when Redis has answered its pipeline, which may come after
        # the subscribers already have the message.
        await eventually(lambda: b.stats()["bus_sent"] == 1, what="the publisher's pipeline answered")
        assert a.stats()["bus_resyncs"] == 0

    with_buses(redis_server.url, body)


def test_the_last_handler_gone_unsubscribes_the_process(redis_server: RedisProcess) -> None:
    async def body(p: str, a: RedisBus, b: RedisBus) -> None:
        first, second = Inbox(), Inbox()
        one = a.subscribe(table_topic(3), first)
        two = a.subscribe(table_topic(3), second)
        await subscribed(redis_server.url, p + table_topic(3), 1)  # one connection for both handlers
        one.close()
        one.close()  # twice is fine
        b.publish(table_topic(3), {"type": "chat", "n": 1})
        await eventually(lambda: len(second.got) == 1)
        assert first.got == []
        two.close()
        await subscribed(redis_server.url, p + table_topic(3), 0)
        assert a.subscribers(table_topic(3)) == 0
        again = Inbox()
        a.subscribe(table_topic(3), again)
        await subscribed(redis_server.url, p + table_topic(3), 1)
        b.publish(table_topic(3), {"type": "chat", "n": 2})
        await eventually(lambda: len(again.got) == 1)
        assert again.got == [{"type": "chat", "n": 2}] and again.resyncs == 0

    with_buses(redis_server.url, body)


def test_a_subscribe_while_another_is_on_its_way_is_not_left_for_the_next_ping(
        redis_server: RedisProcess, monkeypatch: pytest.MonkeyPatch) -> None:
    """A topic subscribed while the bus waits on Redis for another topic's SUBSCRIBE is asked for as soon as
    that one returns. (The wake-up was cleared after the wait: the second topic waited for the next ping,
    here made a minute away, and what was published to it meanwhile was lost.)"""
    monkeypatch.setattr(bus_redis, "PING_EVERY", 60.0)
    second = Inbox()

    async def body(p: str, a: RedisBus, b: RedisBus) -> None:
        sent = PubSub.subscribe

        async def subscribe_then_more(self: PubSub, *args: Any, **kwargs: Any) -> Any:
            result = await sent(self, *args, **kwargs)
            if not a.subscribers(table_topic(2)):  # the first SUBSCRIBE only: a second topic meanwhile
                a.subscribe(table_topic(2), second)
            return result

        monkeypatch.setattr(PubSub, "subscribe", subscribe_then_more)
        a.subscribe(table_topic(1), Inbox())
        await subscribed(redis_server.url, p + table_topic(1), 1)
        await subscribed(redis_server.url, p + table_topic(2), 1)  # 15 s at most, far below the ping
        b.publish(table_topic(2), {"type": "chat", "n": 1})
        await eventually(lambda: len(second.got) == 1)
        assert second.got == [{"type": "chat", "n": 1}]

    with_buses(redis_server.url, body)


def test_each_topic_keeps_one_order_whoever_publishes(redis_server: RedisProcess) -> None:
    """Two publishers interleave on one topic: both subscribers see the same order, each publisher's
    messages in the order it sent them, numbered without a gap (no resync)."""
    n = 400

    async def body(p: str, a: RedisBus, b: RedisBus) -> None:
        on_a, on_b, users = Inbox(), Inbox(), Inbox()
        a.subscribe(LOBBY, on_a)
        b.subscribe(LOBBY, on_b)
        b.subscribe(user_topic(9), users)
        await subscribed(redis_server.url, p + LOBBY, 2)
        await subscribed(redis_server.url, p + user_topic(9), 1)
        for i in range(n):
            a.publish(LOBBY, {"type": "n", "from": "a", "i": i})
            b.publish(LOBBY, {"type": "n", "from": "b", "i": i})
            a.publish(user_topic(9), {"type": "n", "i": i})
            if i % 50 == 0:
                await asyncio.sleep(0)  # let the senders send as they go, in batches of every size
        await eventually(lambda: len(on_a.got) == 2 * n and len(on_b.got) == 2 * n and len(users.got) == n)
        assert on_a.got == on_b.got
        for who in ("a", "b"):
            assert [m["i"] for m in on_a.got if m["from"] == who] == list(range(n))
        assert [m["i"] for m in users.got] == list(range(n))
        assert a.gaps == b.gaps == 0 and a.resyncs == b.resyncs == 0

    with_buses(redis_server.url, body)


def test_a_missed_message_is_a_gap_and_the_subscriber_resyncs(redis_server: RedisProcess) -> None:
    async def body(p: str, a: RedisBus, b: RedisBus) -> None:
        inbox = Inbox()
        a.subscribe(LOBBY, inbox)
        await subscribed(redis_server.url, p + LOBBY, 1)
        b.publish(LOBBY, {"type": "n", "i": 1})
        await eventually(lambda: len(inbox.got) == 1)
        # A message numbered but never delivered here (as if lost on the way): the next one shows the gap.
        client: Redis = Redis.from_url(redis_server.url)
        await client.incr(p + "seq:" + LOBBY)
        await client.aclose()
        b.publish(LOBBY, {"type": "n", "i": 3})
        b.publish(LOBBY, {"type": "n", "i": 4})
        await eventually(lambda: len(inbox.got) == 4)
        assert inbox.got == [{"type": "n", "i": 1}, resync_notice(LOBBY), {"type": "n", "i": 3},
                             {"type": "n", "i": 4}]
        assert a.gaps == 1 and a.resyncs == 1

    with_buses(redis_server.url, body)


def test_messages_a_publisher_dropped_make_every_subscriber_resync(redis_server: RedisProcess) -> None:
    """A full outbox drops messages (publish never waits); a resync marker follows them on their topic, to
    every subscriber of every process, the publisher's own too."""

    async def body(p: str, a: RedisBus, b: RedisBus) -> None:
        on_a, on_b = Inbox(), Inbox()
        a.subscribe(LOBBY, on_a)
        b.subscribe(LOBBY, on_b)
        await subscribed(redis_server.url, p + LOBBY, 2)
        for i in range(50):  # in one turn of the loop: the sender takes the first, the rest find it full
            b.publish(LOBBY, {"type": "n", "i": i})
        assert b.dropped == 49
        await eventually(lambda: on_a.resyncs == 1 and on_b.resyncs == 1, what="the marker")
        assert on_a.got == on_b.got == [{"type": "n", "i": 0}, resync_notice(LOBBY)]
        assert b.markers_sent == 1 and a.markers_received == 1
        b.publish(LOBBY, {"type": "n", "i": 50})  # and on it goes
        await eventually(lambda: len(on_a.got) == 3 and len(on_b.got) == 3)
        assert a.gaps == 0

    with_buses(redis_server.url, body, queue_limit=1)


def test_redis_restarted_mid_stream_every_subscriber_resyncs_and_delivery_goes_on(
        own_redis: RedisProcess) -> None:
    async def body(p: str, a: RedisBus, b: RedisBus) -> None:
        lobby_a, lobby_b, mine = Inbox(), Inbox(), Inbox()
        a.subscribe(LOBBY, lobby_a)
        b.subscribe(LOBBY, lobby_b)
        a.subscribe(user_topic(5), mine)
        await subscribed(own_redis.url, p + LOBBY, 2)
        await subscribed(own_redis.url, p + user_topic(5), 1)
        stop = asyncio.Event()

        async def stream() -> None:
            i = 0
            while not stop.is_set():
                b.publish(LOBBY, {"type": "n", "i": i})
                a.publish(user_topic(5), {"type": "n", "i": i})
                i += 1
                await asyncio.sleep(0.005)

        streaming = asyncio.create_task(stream())
        await eventually(lambda: len(lobby_a.messages) >= 20 and len(mine.messages) >= 20)
        before = len(lobby_a.got)
        await asyncio.to_thread(own_redis.kill)
        await eventually(lambda: not a.connected and not b.connected, what="the loss noticed")
        await asyncio.sleep(0.3)  # down a while: what is published now is lost
        await asyncio.to_thread(own_redis.start)
        await eventually(lambda: lobby_a.resyncs and lobby_b.resyncs and mine.resyncs, what="the resyncs")
        resynced_at = len(lobby_a.got)
        await eventually(lambda: len(lobby_a.got) >= resynced_at + 20 and len(mine.got) >= 40,
                         what="delivery after the restart")
        stop.set()
        await streaming
        for inbox in (lobby_a, lobby_b, mine):
            numbers = [m["i"] for m in inbox.messages]
            assert numbers == sorted(numbers) and len(set(numbers)) == len(numbers)  # in order, no doubles
            first_resync = next(k for k, m in enumerate(inbox.got) if m["type"] == RESYNC)
            later = [m["i"] for m in inbox.got[first_resync:] if m["type"] != RESYNC]
            assert len(later) >= 10, inbox.got[first_resync:]
        assert lobby_a.got[before:].count(resync_notice(LOBBY)) >= 1
        for bus in (a, b):
            assert bus.connected and bus.connects == 2 and bus.disconnects == 1

    with_buses(own_redis.url, body)


def test_a_bus_started_before_redis_connects_when_it_comes(own_redis: RedisProcess) -> None:
    async def main() -> None:
        own_redis.stop()
        p = prefix()
        bus = RedisBus(own_redis.url, prefix=p, backoff=FAST, connect_wait=0.2)
        await bus.start()  # does not wait for ever: the server starts without Redis
        try:
            assert not bus.connected
            inbox = Inbox()
            bus.subscribe(LOBBY, inbox)
            bus.publish(LOBBY, {"type": "n", "i": 0})  # nowhere to go: dropped
            assert bus.dropped == 1
            await asyncio.to_thread(own_redis.start)
            await eventually(lambda: bus.connected, what="connected")
            # Told to resync (subscribed while Redis was away), then the marker for what it dropped.
            await eventually(lambda: inbox.resyncs >= 1)
            bus.publish(LOBBY, {"type": "n", "i": 1})
            await eventually(lambda: inbox.messages == [{"type": "n", "i": 1}])
        finally:
            await bus.stop()

    asyncio.run(main())
