"""Processes of the server's own for CPU work (the bots' moves, hints), started off the event loop and
ending with the server however it ends.

A :class:`ProcessPool` is a ``concurrent.futures.ProcessPoolExecutor`` of ``workers`` processes with three
things added, each for something that went wrong without it:

* **It starts in a thread of its own, in the background.** Starting a worker waits (in the caller) for
  ``forkserver`` to fork it and report its pid, and the first start waits for the fork server itself to
  start: half a second on an idle machine, several seconds on a busy one. Done on the event loop, as it
  was, every table stopped meanwhile (HTTP requests timed out in the tests). The pool is started when a
  table first needs it (:meth:`ProcessPool.start`, called while a bot waits its delay) and a call waits for
  the start without holding up the loop; every worker is started there, before the pool is handed over, so
  no later call spawns one on the loop's thread (a worker's start waits at a barrier until all of them
  have started, so no early finisher lets the executor skip a spawn).
* **The workers fork from a fork server that has the engine and the bots imported** (:data:`PRELOAD`),
  instead of each importing them: a worker's start is a fork, not 0.3 s (on a busy machine, seconds) of
  imports, and the imported modules' memory is shared between the workers.
* **A worker ends when the server does**, including when the server is killed (SIGKILL, the OOM killer):
  a thread in each worker waits on :func:`multiprocessing.parent_process`'s sentinel (the server's end of
  a pipe, closed by the kernel when the server exits) and ends the worker. Without it a killed server's
  workers lived on for ever: each blocks reading its task queue, whose write end every worker holds too,
  and they keep the fork server alive (the tests left about 130 such processes behind). The fork server
  and multiprocessing's resource tracker end by themselves once the server and the workers are gone. The
  pool is also shut down with the hub, on the app's lifespan stop.

A worker that dies (killed, out of memory) breaks a ``ProcessPoolExecutor`` for good; the call that meets
it fails, and the next one starts a new pool.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
import multiprocessing
import multiprocessing.synchronize
import os
import threading
from collections.abc import Callable
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

log = logging.getLogger("estimation.server")

T = TypeVar("T")

#: Modules the fork server imports once, before it forks any worker (the strong bot imports the other
#: levels' modules, the hint the strong bot's search).
PRELOAD = ["estimation.bots.strong", "estimation.hint"]
#: Seconds a starting worker waits for the others at the start barrier before it goes on anyway.
START_BARRIER_SECONDS = 60.0


def _context() -> Any:
    """``forkserver`` (never a fork of the server itself, with its event loop, threads and sockets), with
    the engine and the bots preloaded in the fork server (read when it starts: the process's first pool)."""
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(PRELOAD)
    return context


def _worker_start(barrier: multiprocessing.synchronize.Barrier, niceness: int) -> None:
    """In a new worker: its scheduling priority, watch the server, then wait for the pool's other workers
    to start (see the module's docstring)."""
    if niceness:
        with contextlib.suppress(OSError):
            os.nice(niceness)
    parent = multiprocessing.parent_process()
    if parent is not None:

        def watch() -> None:
            parent.join()  # the sentinel: returns once the server has exited, however it ended
            os._exit(0)

        threading.Thread(target=watch, name="watch-server", daemon=True).start()
    with contextlib.suppress(threading.BrokenBarrierError):
        barrier.wait(START_BARRIER_SECONDS)


class ProcessPool:
    """``workers`` processes, started in the background on first use (:meth:`start`), with ``warm`` run
    once in each as it starts (to import what it needs)."""

    def __init__(self, name: str, workers: int, warm: Callable[[], object], niceness: int = 0) -> None:
        self.name = name
        self.workers = max(1, workers)
        self.warm = warm
        self.niceness = niceness
        self._ready: asyncio.Future[concurrent.futures.ProcessPoolExecutor] | None = None
        self._stopped = False
        #: Pools started (more than one: a worker died and the pool was started again).
        self.starts = 0

    def start(self) -> None:
        """Start the workers now, in the background, unless they are running or starting."""
        if self._ready is not None:
            return
        self._stopped = False
        loop = asyncio.get_running_loop()
        ready = self._ready = loop.create_future()
        self.starts += 1

        def settle(pool: concurrent.futures.ProcessPoolExecutor | None, error: BaseException | None) -> None:
            if pool is not None and (self._stopped or self._ready is not ready or ready.cancelled()):
                pool.shutdown(wait=False, cancel_futures=True)  # stopped while it started
                return
            if ready.done():
                return
            if error is not None:
                ready.set_exception(error)
            elif pool is not None:
                ready.set_result(pool)

        def run() -> None:
            pool: concurrent.futures.ProcessPoolExecutor | None = None
            try:
                context = _context()
                barrier = context.Barrier(self.workers)
                pool = concurrent.futures.ProcessPoolExecutor(
                    max_workers=self.workers, mp_context=context, initializer=_worker_start,
                    initargs=(barrier, self.niceness))
                warming = [pool.submit(self.warm) for _ in range(self.workers)]
                concurrent.futures.wait(warming)
                for future in warming:
                    future.result()
            except BaseException as exc:
                if pool is not None:
                    pool.shutdown(wait=False, cancel_futures=True)
                log.exception("the %s pool did not start", self.name)
                with_loop(settle, None, exc)
            else:
                with_loop(settle, pool, None)

        def with_loop(*args: Any) -> None:
            try:
                loop.call_soon_threadsafe(*args)
            except RuntimeError:  # the loop is closed: nobody waits for this pool any more
                pool = args[1]
                if pool is not None:
                    pool.shutdown(wait=False, cancel_futures=True)

        threading.Thread(target=run, name=f"{self.name}-start", daemon=True).start()

    async def run(self, function: Callable[..., T], *args: Any) -> T:
        """``function(*args)`` in a worker (the pool started first if it is not running)."""
        self.start()
        ready = self._ready
        assert ready is not None
        try:
            pool = await asyncio.shield(ready)
        except Exception:
            if self._ready is ready:
                self._ready = None  # the next call tries again
            raise
        try:
            return await asyncio.wrap_future(pool.submit(function, *args))
        except BrokenProcessPool:
            if self._ready is ready:  # a worker died: the next call starts a new pool
                self._ready = None
                pool.shutdown(wait=False, cancel_futures=True)
            raise

    @property
    def running(self) -> bool:
        ready = self._ready
        return ready is not None and ready.done() and not ready.cancelled() and ready.exception() is None

    def stop(self) -> None:
        """Shut the workers down (a move or hint in progress is abandoned); a pool still starting is shut
        down as soon as it has started."""
        self._stopped = True
        ready, self._ready = self._ready, None
        if ready is None:
            return
        if ready.done() and not ready.cancelled() and ready.exception() is None:
            ready.result().shutdown(wait=False, cancel_futures=True)
        elif not ready.done():
            ready.cancel()
