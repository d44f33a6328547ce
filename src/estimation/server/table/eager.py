"""Run a coroutine now, in the caller's turn of the event loop, as far as it goes without waiting.

A table publishes an update to four or more connections in one turn of the loop. Handing each frame to a
writer task costs a task wake-up per frame and, worse, a wait for that task's turn: under load the loop's
ready queue is long, and the frame sits there while the table's players wait. Yet writing a WebSocket frame
almost never waits (uvicorn writes it to the transport at once unless the socket's buffer is full), so the
send can simply be run right away; only when it does have to wait does the rest of it become a task.

The same holds for a table's own transaction on SQLite (statements run inline, see :mod:`.sqlite_inline`):
it usually finishes without ever waiting, and run as a task it would cost a turn to start, a turn to close
its session and a turn for the table to resume, each 30 to 50 ms when 500 tables are playing
(:func:`eager_future`).

Python 3.12's eager tasks (``asyncio.eager_task_factory``) do exactly this; the server runs on 3.11 too, so
:func:`start_now` is the same idea for one coroutine: step it once; if it finished, that is all; if it is
waiting on a future, return an awaitable that goes on from there (to be wrapped in a task by the caller).
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine, Generator
from typing import Any, TypeVar

T = TypeVar("T")


class Started:
    """A coroutine already stepped once, waiting on ``waiting``: awaiting this goes on from that point, as
    ``await coroutine`` would have (the awaiting task waits for the same future, then sends into the
    coroutine what the task would have sent, and throws into it what would have been thrown, such as a
    cancellation)."""

    def __init__(self, coroutine: Coroutine[Any, Any, Any], waiting: Any) -> None:
        self._coroutine = coroutine
        self._waiting = waiting

    def __await__(self) -> Generator[Any, Any, Any]:
        signal = self._waiting
        while True:
            try:
                value = yield signal
            except BaseException as exc:  # thrown in by the task (a cancellation): the coroutine's to handle
                try:
                    signal = self._coroutine.throw(exc)
                except StopIteration as stop:
                    return stop.value
                continue
            try:
                signal = self._coroutine.send(value)
            except StopIteration as stop:
                return stop.value


def start_now(coroutine: Coroutine[Any, Any, Any]) -> Started | None:
    """Run ``coroutine`` until it finishes or first waits. None if it finished (its result is dropped: the
    callers send frames, which return nothing); a :class:`Started` to await if it waits. An exception it
    raises before waiting propagates to the caller, as a direct call would."""
    try:
        waiting = coroutine.send(None)
    except StopIteration:
        return None
    return Started(coroutine, waiting)


def eager_future(coroutine: Coroutine[Any, Any, T]) -> asyncio.Future[T]:
    """Run ``coroutine`` now as far as it goes: a future that is already done if it finished (with its result
    or the exception it raised), else a task that goes on from where it waits, like a task of its own that
    started at once. A cancellation of the caller does not reach it (the caller holds a future, not the
    coroutine)."""
    try:
        waiting = coroutine.send(None)
    except StopIteration as stop:
        done: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        done.set_result(stop.value)
        return done
    except Exception as exc:
        failed: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        failed.set_exception(exc)
        return failed
    return asyncio.ensure_future(_finish(Started(coroutine, waiting)))


async def _finish(started: Started) -> Any:
    return await started
