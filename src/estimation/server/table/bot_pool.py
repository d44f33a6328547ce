"""Bots think in processes of their own, never in the server's.

A bot's move is CPU work: microseconds for the random bot, milliseconds for the heuristic one, up to a
second of sampled search for the strong one. In a thread of the server it would hold the GIL against the
event loop (every table waits while it has it, which is why the server once shortened CPython's switch
interval); in a process it costs the loop only the pickling of the seat's view and of the answer.

The processes are a :class:`~.workers.ProcessPool`: started in the background when a table with bots first
plays, or a person's turn clock first runs (it may end in a bot's move for them; a server whose tables
have neither never forks), by ``forkserver`` with the bots preloaded, ending
with the server even when it is killed, and stopped with the hub. A bot is made for each move from its
level and a seed of the table, the seat and the version (the bots keep nothing between moves but their
random state, so a move is the same whichever worker makes it, and no table's bot lives in a worker).

A ruleset registered at run time (``RULESETS[name] = cls``, as tests/test_toy_ruleset.py does) goes to the
worker with the move, by reference (its module and name, which the worker imports), so the bots play every
ruleset the server knows.
"""

from __future__ import annotations

import logging
import os
import zlib
from typing import Any

from ...rulesets import RULESETS, Ruleset
from .workers import ProcessPool

log = logging.getLogger("estimation.server")

#: The rulesets every worker knows from its own import of the package.
_BUILT_IN: dict[str, type[Ruleset]] = dict(RULESETS)


def bot_seed(table_id: int, seat: int, version: int) -> int:
    """The seed of a bot's move: the same move for the same table, seat and version, on any worker."""
    return zlib.crc32(f"{table_id}/{seat}/{version}".encode())


def default_workers() -> int:
    """One fewer than the machine's cores (the event loop keeps one), at least one."""
    return max(1, (os.cpu_count() or 2) - 1)


def _choose(level: str, seed: int, view: dict[str, Any],
            ruleset: type[Ruleset] | None = None) -> tuple[str, str | None]:
    """In a worker process: the bot's action; if the bot failed, the heuristic's (the simplest bot: it
    reads the view and nothing else), or the first legal action if that failed too, and why."""
    from ...bots import make_bot

    try:
        if ruleset is not None and RULESETS.get(ruleset.name) is not ruleset:
            RULESETS[ruleset.name] = ruleset
        return make_bot(level, seed).act(view), None
    except Exception as exc:
        failure = f"{type(exc).__name__}: {exc}"
    try:
        return make_bot("heuristic", seed).act(view), failure
    except Exception:
        return str(view["legal"][0]), failure


def _warm() -> bool:
    """Import the engine and the bots in the worker before the first move is asked for (already done by
    the fork server's preload, unless the fork server was started by someone else), and load the
    compiled kernels if numba is installed (0.6 s from numba's cache, seconds on a first compile), so
    that the first strong move does not pay for it."""
    from ...bots import strong  # noqa: F401  (the heaviest level; it imports the others' modules)
    from ...bots.search import compiled_kernels

    compiled_kernels()
    return True


class BotPool:
    """``workers`` processes for the bots' moves (0: :func:`default_workers`) at ``niceness``, started on
    first use."""

    def __init__(self, workers: int, niceness: int = 0) -> None:
        self.workers = workers if workers > 0 else default_workers()
        self.pool = ProcessPool("bots", self.workers, _warm, niceness)
        self.moves = 0

    def warm(self) -> None:
        """Start the workers now (a table with bots is playing), in the background, so that the first move
        does not wait for them."""
        self.pool.start()

    async def choose(self, table_id: int, level: str, seed: int, view: dict[str, Any]) -> str:
        """The action the bot of ``level`` takes on ``view`` (the seat's own view, nothing else)."""
        ruleset = RULESETS.get(view["ruleset"])
        extra = None if ruleset is None or _BUILT_IN.get(ruleset.name) is ruleset else ruleset
        text, failure = await self.pool.run(_choose, level, seed, view, extra)
        self.moves += 1
        if failure is not None:
            log.error("table %s: %s bot failed (%s); playing the heuristic's action (the first legal one "
                      "if it failed too)", table_id, level, failure)
        return text

    def stop(self) -> None:
        self.pool.stop()
