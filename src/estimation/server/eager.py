"""Run a coroutine now, in the caller's turn of the event loop, as far as it goes without waiting.

A table publishes an update to four or more connections in one turn of the loop. Handing each frame to a
writer task costs a task wake-up per frame and, worse, a wait for that task's turn: under load the loop's
ready queue is long, and the frame sits there while the table's players wait. Yet writing a WebSocket frame
almost never waits (uvicorn writes it to the transport at once unless the socket's buffer is full), so the
send can simply be run right away; only when it does have to wait does the rest of it become a task.

Python 3.12's eager tasks (``asyncio.eager_task_factory``) do exactly this; the server runs on 3.11 too, so
:func:`start_now` is the same idea for one coroutine: step it once; if it finished, that is all; if it is
waiting on a future, return an awaitable that goes on from there (to be wrapped in a task by the caller).
"""

from __future__ import annotations

from collections.abc import Coroutine, Generator
from typing import Any


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
