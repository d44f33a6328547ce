"""Frames written in the caller's turn: ``eager.start_now`` and the connection's ordered, bounded send path.

The socket here is a stand-in that can be told to make a write wait (as a full socket buffer would); the
real sockets are in the integration tests, which play whole games through this path.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from estimation.server.table.connection import Connection
from estimation.server.table.eager import Started, eager_future, start_now


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def test_a_coroutine_that_never_waits_runs_to_the_end_in_the_call() -> None:
    done: list[int] = []

    async def nothing() -> None:
        return None

    async def work() -> None:
        done.append(1)
        await nothing()  # an await that does not suspend
        done.append(2)

    async def main() -> None:
        assert start_now(work()) is None
        assert done == [1, 2]

    run(main())


def test_an_error_before_the_first_wait_reaches_the_caller() -> None:
    async def broken() -> None:
        raise ConnectionResetError("gone")

    with pytest.raises(ConnectionResetError, match="gone"):
        start_now(broken())


def test_a_coroutine_that_waits_goes_on_from_there_in_a_task() -> None:
    steps: list[str] = []

    async def main() -> None:
        loop = asyncio.get_running_loop()
        gate: asyncio.Future[str] = loop.create_future()

        async def work() -> str:
            steps.append("before")
            got = await gate
            steps.append(f"got {got}")
            await asyncio.sleep(0)  # a bare yield too
            steps.append("after")
            return got.upper()

        started = start_now(work())
        assert isinstance(started, Started)
        assert steps == ["before"]

        async def finish() -> Any:
            return await started

        task = asyncio.create_task(finish())
        await asyncio.sleep(0.01)
        assert not task.done() and steps == ["before"]
        gate.set_result("ok")
        assert await task == "OK"
        assert steps == ["before", "got ok", "after"]

    run(main())


def test_cancelling_the_task_cancels_the_coroutine_where_it_waits() -> None:
    cleaned: list[str] = []

    async def main() -> None:
        gate: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        async def work() -> None:
            try:
                await gate
            finally:
                cleaned.append("finally")

        started = start_now(work())
        assert started is not None

        async def finish() -> None:
            await started

        task = asyncio.create_task(finish())
        await asyncio.sleep(0)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert cleaned == ["finally"] and gate.cancelled()

    run(main())


class Socket:
    """A WebSocket stand-in: writes go to ``sent`` at once, unless ``blocked`` (a full buffer)."""

    def __init__(self) -> None:
        self.sent: list[str] = []
        self.blocked: asyncio.Event | None = None
        self.closed_with: int | None = None
        self.fail = False

    async def send_text(self, frame: str) -> None:
        if self.fail:
            raise RuntimeError("the peer is gone")
        if self.blocked is not None:
            await self.blocked.wait()
        self.sent.append(frame)

    async def close(self, code: int = 1000) -> None:
        self.closed_with = code


def connection(sock: Socket, queue: int = 3) -> Connection:
    return Connection(sock, queue, rate=10.0, burst=10)  # type: ignore[arg-type]


def test_frames_go_out_in_the_callers_turn_when_the_socket_takes_them() -> None:
    async def main() -> None:
        sock = Socket()
        conn = connection(sock)
        conn.send_text("a")
        conn.send({"type": "b"})
        assert sock.sent == ["a", '{"type":"b"}']  # no task, no await: written already
        await conn.finish()
        assert sock.closed_with == 1000

    run(main())


def test_frames_queue_in_order_behind_a_write_that_waits_then_flush() -> None:
    async def main() -> None:
        sock = Socket()
        conn = connection(sock)
        sock.blocked = asyncio.Event()
        for frame in "abc":
            conn.send_text(frame)
        assert sock.sent == []
        sock.blocked.set()
        await asyncio.sleep(0.01)
        assert sock.sent == ["a", "b", "c"]
        sock.blocked = None
        conn.send_text("d")  # caught up: written at once again
        assert sock.sent == ["a", "b", "c", "d"]
        assert not conn.closed

    run(main())


def test_a_client_that_falls_too_far_behind_is_dropped() -> None:
    async def main() -> None:
        sock = Socket()
        conn = connection(sock, queue=2)
        sock.blocked = asyncio.Event()
        for frame in "abcd":  # one waiting write, two queued, the fourth is one too many
            conn.send_text(frame)
        assert conn.closed and conn.failed
        conn.send_text("e")  # ignored once closed
        sock.blocked.set()
        await conn.finish()  # a dropped client's write in flight is abandoned, not waited for
        await asyncio.sleep(0)
        assert sock.sent == [] and sock.closed_with == 1000

    run(main())


def test_a_client_that_falls_too_many_bytes_behind_is_dropped() -> None:
    async def main() -> None:
        sock = Socket()
        conn = Connection(sock, 1000, rate=10.0, burst=10, queue_bytes=100)  # type: ignore[arg-type]
        sock.blocked = asyncio.Event()
        conn.send_text("w" * 10)  # the write that waits
        conn.send_text("a" * 60)
        assert not conn.closed
        conn.send_text("b" * 60)  # 120 bytes queued: over the limit
        assert conn.closed and conn.failed
        sock.blocked.set()
        await conn.finish()
        assert sock.sent == []  # nothing queued went out: it was dropped with the connection

    run(main())


def test_a_socket_that_takes_nothing_for_too_long_is_dropped() -> None:
    async def main() -> None:
        sock = Socket()
        conn = Connection(sock, 1000, rate=10.0, burst=10, send_timeout=0.05)  # type: ignore[arg-type]
        sock.blocked = asyncio.Event()  # and never set: the peer does not read
        conn.send_text("a")
        conn.send_text("b")
        await asyncio.sleep(0.2)
        assert conn.closed and conn.failed
        await asyncio.wait_for(conn.finish(), 3)  # not waited for long: it would never end

    run(main())


def test_closing_wakes_the_reader_waiting_for_a_frame() -> None:
    async def main() -> None:
        conn = connection(Socket())
        never: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        async def read() -> str:
            conn.reader = asyncio.current_task()
            try:
                await never
            except asyncio.CancelledError:
                return "woken"
            return "read"

        reader = asyncio.create_task(read())
        await asyncio.sleep(0)
        conn.kick({"type": "error", "code": "signed_out"})
        assert await asyncio.wait_for(reader, 1) == "woken"

    run(main())


def test_finish_flushes_what_is_queued_before_closing() -> None:
    async def main() -> None:
        sock = Socket()
        conn = connection(sock)
        sock.blocked = asyncio.Event()
        conn.send_text("a")
        conn.send_text("b")
        asyncio.get_running_loop().call_later(0.01, sock.blocked.set)
        await conn.finish()
        assert sock.sent == ["a", "b"] and sock.closed_with == 1000

    run(main())


def test_a_socket_that_fails_closes_the_connection() -> None:
    async def main() -> None:
        sock = Socket()
        conn = connection(sock)
        sock.fail = True
        conn.send_text("a")
        assert conn.closed
        await conn.finish()
        assert sock.sent == [] and sock.closed_with == 1000

    run(main())


def test_eager_future_is_done_at_once_when_the_coroutine_never_waits() -> None:
    async def main() -> None:
        async def value() -> int:
            return 7

        async def broken() -> int:
            raise ValueError("bad row")

        done = eager_future(value())
        assert done.done() and done.result() == 7
        failed = eager_future(broken())
        assert failed.done() and isinstance(failed.exception(), ValueError)

    run(main())


def test_eager_future_becomes_a_task_where_the_coroutine_waits_and_ignores_the_callers_cancel() -> None:
    steps: list[str] = []

    async def main() -> None:
        gate: asyncio.Future[int] = asyncio.get_running_loop().create_future()

        async def work() -> int:
            steps.append("ran now")
            got = await gate
            steps.append("went on")
            return got + 1

        async def caller() -> int:
            future = eager_future(work())
            assert steps == ["ran now"] and not future.done()
            return await asyncio.shield(future)

        task = asyncio.create_task(caller())
        await asyncio.sleep(0)
        task.cancel()  # the caller goes away; the work it started goes on
        with pytest.raises(asyncio.CancelledError):
            await task
        gate.set_result(41)
        for _ in range(3):
            await asyncio.sleep(0)
        assert steps == ["ran now", "went on"]

    run(main())
