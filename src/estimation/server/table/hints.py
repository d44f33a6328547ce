"""Hints at practice tables, computed in a process of their own.

A hint is the strong bot's search over sampled deals (:func:`estimation.hint.hint`): CPU work of up to a
second. Run on the event loop it would stall every table; in a thread it would still hold the GIL against
the loop. So hints run in a one-process :class:`~.workers.ProcessPool` (started in the background when a
practice game begins, ending with the server, stopped with the hub), with a time budget that keeps the
answer within a second, and at most one hint per table at a time.
"""

from __future__ import annotations

from typing import Any

from .workers import ProcessPool

#: The search's own time cap, as `estimation hint` has it (the strong bot's): the answer comes within
#: about a second.
HINT_SECONDS = 0.8
#: Deals sampled per candidate (the strong bot's default); the time cap ends the search sooner if needed.
HINT_SAMPLES = 64


def _compute(view: dict[str, Any]) -> dict[str, Any]:
    """In the worker process: the hint for the seat whose view this is, under the time budget."""
    from ...hint import hint

    return hint(view, samples=HINT_SAMPLES, max_seconds=HINT_SECONDS)


def _warm() -> bool:
    """Import the engine and the bots in the worker before the first hint is asked for, and load the
    compiled kernels if numba is installed: a hint has a time budget, which a first compile would eat."""
    from ... import hint  # noqa: F401
    from ...bots.search import compiled_kernels

    compiled_kernels()
    return True


class HintPool:
    """One worker process for hints, started on first use (a server nobody asks for hints never forks)."""

    def __init__(self) -> None:
        self.pool = ProcessPool("hints", 1, _warm)

    def warm(self) -> None:
        """Start the worker now (a practice game has begun), so the first hint is not the one that waits
        for a process to start."""
        self.pool.start()

    async def hint(self, view: dict[str, Any]) -> dict[str, Any]:
        return await self.pool.run(_compute, view)

    def stop(self) -> None:
        self.pool.stop()
