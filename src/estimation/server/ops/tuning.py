"""Process-wide settings for a server whose event loop must never stop for long: the cyclic garbage
collector's policy and the GIL's switch interval.

Both change the whole process, not one server, so only `estimation serve` installs them (:func:`install`,
before its server starts) and it undoes them when the server stops (:func:`uninstall`); a server made by
``create_app`` inside another program (the tests, an embedding) leaves that program's interpreter alone.
The hub only reports their figures (:func:`stats`).

**The collector.** Every table waits while it runs. Measured at 500 tables on the bench machine (CPython
3.11):

* a young collection costs about 2 µs per object it examines: 0.5 ms with CPython's threshold of 700,
  40 to 80 ms with a threshold of 20,000;
* a full collection examines every object the process holds (two thousand connections, each with its
  protocol, parser, tasks and queues, and every table's game) and took 200 to 770 ms, several times a minute
  with CPython's default thresholds.

So young collections stay small (the default threshold) and the long-lived objects are kept out of every
collection's sight: once an object has survived a middle-generation collection it is moved to the permanent
generation (``gc.freeze``), where no automatic collection looks. Moving is a list splice, not a scan, and
reference counting still frees frozen objects the moment they are unreachable; what freezing gives up is
collecting *cycles* among them (what is left of a closed HTTP connection, SQLAlchemy's statement objects).
Those are reclaimed by a full collection over everything (``gc.unfreeze``, ``gc.collect``, ``gc.freeze``)
every :data:`RECLAIM_INTERVAL` (ten minutes): each such pause is as long as a full collection, but one in
ten minutes is a small share of the loop's time, and what garbage the process holds is at most what ten
minutes leave.

Not "once the frozen population has doubled", as this policy first had it: the count of frozen objects is
no measure of the garbage among them. A closed WebSocket was a few dozen objects holding tens of kilobytes
(its parser, buffers and zlib streams), so the count grew a few per cent an hour while the memory grew
without end: the cluster soak's workers gained about 6 MB a minute and never reclaimed (issue 25,
docs/performance.md). The biggest cycle, the WebSocket protocol's, is now broken where the connection is
lost (:class:`.serving.GuardedWebSocket`), so it does not wait for a reclaim at all.

**The switch interval.** Threads still run beside the loop: passwords are hashed in them, and SQLite's
checkpoints run in one (the bots do not: they think in processes of their own, :mod:`.bot_pool`). With
CPython's default interval of 5 ms a busy loop keeps such a thread waiting up to 5 ms for every turn at the
GIL, and the loop as long when the thread has it; :data:`GIL_SWITCH_INTERVAL` hands over ten times as often.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import sys
import time
from dataclasses import dataclass, field
from typing import Any

log = logging.getLogger("estimation.server")

#: Seconds a thread may hold the GIL while another waits for it (CPython's default is 0.005).
GIL_SWITCH_INTERVAL = 0.0005

#: Young collections: CPython's default (about half a millisecond each on the bench machine).
YOUNG_THRESHOLD = 700
#: A full reclaim this often (seconds), whatever the frozen population's size (see the module's docstring):
#: a reclaim at 500 tables stops every table for about as long as a full collection (0.2 to 0.8 s
#: measured), so one in ten minutes; the cycles that became garbage meanwhile wait for it.
RECLAIM_INTERVAL = 600.0


@dataclass
class CollectorPolicy:
    """Installed by :func:`install`; its counters show up in the server's stats."""

    reclaims: int = 0
    reclaim_seconds: float = 0.0
    frozen_after_reclaim: int = 0
    last_reclaim: float = field(default_factory=time.monotonic)
    _in_reclaim: bool = False
    _reclaim_due: bool = False

    def callback(self, phase: str, info: dict[str, Any]) -> None:
        if phase != "stop" or self._in_reclaim or info["generation"] != 1:
            return
        # The survivors of this middle-generation collection are in the oldest generation now: freeze them
        # there before a full collection would have to look at them.
        gc.freeze()
        if self._reclaim_due or time.monotonic() - self.last_reclaim < RECLAIM_INTERVAL:
            return
        # Not from here: a collection started inside a collector callback does nothing. The event loop runs
        # it next (a collection can also stop in a helper thread, where there is no loop: then a later one).
        try:
            asyncio.get_running_loop().call_soon(self.reclaim)
        except RuntimeError:
            return
        self._reclaim_due = True

    def reclaim(self) -> int:
        """A full collection over everything, frozen or not; the objects it leaves are frozen again."""
        self._in_reclaim = True
        self._reclaim_due = False
        started = time.perf_counter()
        try:
            gc.unfreeze()
            found = gc.collect()
            gc.freeze()
        finally:
            self._in_reclaim = False
        took = time.perf_counter() - started
        self.reclaims += 1
        self.reclaim_seconds += took
        self.frozen_after_reclaim = gc.get_freeze_count()
        self.last_reclaim = time.monotonic()
        log.info("gc reclaim: %d unreachable objects, %d kept, %.0f ms", found, self.frozen_after_reclaim,
                 took * 1000)
        return found

    def stats(self) -> dict[str, Any]:
        return {"gc_frozen": gc.get_freeze_count(), "gc_reclaims": self.reclaims,
                "gc_reclaim_seconds": round(self.reclaim_seconds, 3)}


_policy: CollectorPolicy | None = None
#: What :func:`install` changed, to put back on :func:`uninstall`: (collector thresholds, switch interval).
_saved: tuple[tuple[int, int, int], float] | None = None


def install() -> CollectorPolicy:
    """Collect and freeze what exists now (libraries, resumed tables), then keep to the collector policy
    above, and shorten the switch interval. Idempotent: a second call keeps the first one's policy."""
    global _policy, _saved
    if _policy is None:
        _policy = CollectorPolicy()
        gc.callbacks.append(_policy.callback)
    if _saved is None:
        _saved = (gc.get_threshold(), sys.getswitchinterval())
    _young, middle, old = gc.get_threshold()
    gc.set_threshold(YOUNG_THRESHOLD, middle, old)
    sys.setswitchinterval(GIL_SWITCH_INTERVAL)
    _policy.reclaim()
    return _policy


def uninstall() -> None:
    """Put the process back as :func:`install` found it: CPython's collector (nothing frozen), its
    thresholds and its switch interval."""
    global _policy, _saved
    if _policy is not None:
        if _policy.callback in gc.callbacks:
            gc.callbacks.remove(_policy.callback)
        _policy = None
    gc.unfreeze()
    if _saved is not None:
        thresholds, interval = _saved
        gc.set_threshold(*thresholds)
        sys.setswitchinterval(interval)
        _saved = None


def stats() -> dict[str, Any]:
    """The collector's figures for the server's stats; nothing when :func:`install` was not called."""
    return _policy.stats() if _policy is not None else {}
