"""Bots think in processes of their own, never in the server's.

A bot's move is CPU work: microseconds for the random bot, milliseconds for the heuristic one, up to a
second of sampled search for the strong one. In a thread of the server it would hold the GIL against the
event loop (every table waits while it has it, which is why the server once shortened CPython's switch
interval); in a process it costs the loop only the pickling of the seat's view and of the answer.

The pool is started lazily (a server whose tables have no bots never forks), by ``forkserver`` (never a fork
of the server itself, with its loop, threads and sockets), and stopped with the hub. A bot is made for each
move from its level and a seed of the table, the seat and the version (the bots keep nothing between moves
but their random state, so a move is the same whichever worker makes it, and no table's bot lives in a
worker).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import multiprocessing
import zlib
from typing import Any

log = logging.getLogger("estimation.server")


def bot_seed(table_id: int, seat: int, version: int) -> int:
    """The seed of a bot's move: the same move for the same table, seat and version, on any worker."""
    return zlib.crc32(f"{table_id}/{seat}/{version}".encode())


def _choose(level: str, seed: int, view: dict[str, Any]) -> tuple[str, str | None]:
    """In a worker process: the bot's action, or the first legal one and why (a bot that failed)."""
    from ..bots import make_bot

    try:
        return make_bot(level, seed).act(view), None
    except Exception as exc:
        return str(view["legal"][0]), f"{type(exc).__name__}: {exc}"


def _warm() -> bool:
    """Import the engine and the bots in the worker before the first move is asked for."""
    from ..bots import strong  # noqa: F401  (the heaviest level; it imports the others' modules)

    return True


class BotPool:
    """``workers`` processes for the bots' moves, started on first use."""

    def __init__(self, workers: int) -> None:
        self.workers = max(1, workers)
        self._pool: concurrent.futures.ProcessPoolExecutor | None = None
        self.moves = 0

    def _executor(self) -> concurrent.futures.ProcessPoolExecutor:
        if self._pool is None:
            self._pool = concurrent.futures.ProcessPoolExecutor(
                max_workers=self.workers, mp_context=multiprocessing.get_context("forkserver"))
            for _ in range(self.workers):
                self._pool.submit(_warm)
        return self._pool

    def warm(self) -> None:
        """Start the workers now (a table with bots is playing), so the first move does not wait for them."""
        self._executor()

    async def choose(self, table_id: int, level: str, seed: int, view: dict[str, Any]) -> str:
        """The action the bot of ``level`` takes on ``view`` (the seat's own view, nothing else)."""
        loop = asyncio.get_running_loop()
        text, failure = await loop.run_in_executor(self._executor(), _choose, level, seed, view)
        self.moves += 1
        if failure is not None:
            log.error("table %s: %s bot failed (%s); playing the first legal action", table_id, level,
                      failure)
        return text

    def stop(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
