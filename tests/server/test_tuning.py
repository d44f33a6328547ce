"""The server's process tuning (`estimation serve` only): long-lived objects leave the collector's sight;
cycles are reclaimed; uninstall puts the process back."""

from __future__ import annotations

import asyncio
import gc
import sys
import weakref

from estimation.server.ops import tuning


class Node:
    def __init__(self) -> None:
        self.other: Node | None = None


def frozen(obj: object) -> bool:
    """Whether the collector holds ``obj`` in its permanent generation: tracked, yet in none of the three
    it collects. (Not the freeze count going up: frozen objects freed meanwhile, by another thread of the
    test process say, bring it down, and a CI run saw it drop by 116 across this test's collection.)"""
    return gc.is_tracked(obj) and not any(o is obj for o in gc.get_objects())


def test_survivors_of_a_middle_collection_are_frozen_and_a_reclaim_frees_their_cycles() -> None:
    policy = tuning.install()
    try:
        a, b = Node(), Node()
        a.other, b.other = b, a  # a cycle: only the cyclic tuning can free it
        probe = weakref.ref(a)
        assert not frozen(a)
        gc.collect(1)  # a middle-generation collection: its survivors are frozen at once
        assert frozen(a) and frozen(b)
        del a, b
        gc.collect()  # a full collection does not look at frozen objects ...
        assert probe() is not None
        found = policy.reclaim()  # ... a reclaim does
        assert probe() is None
        assert found >= 2
        assert policy.stats()["gc_reclaims"] >= 1
    finally:
        tuning.uninstall()


def test_a_reclaim_comes_every_interval_however_little_the_frozen_population_grew() -> None:
    """Issue 25: the reclaim waited for the frozen population to double, which cycles of few objects and
    much memory (a closed socket's) never made it do: the soak's workers grew ~6 MB a minute. Now, once
    ``RECLAIM_INTERVAL`` (ten minutes) has passed, the next middle-generation collection has the loop
    reclaim, once. The policy's clock is moved back an hour here, not waited for."""

    async def main() -> None:
        policy = tuning.install()
        try:
            a, b = Node(), Node()
            a.other, b.other = b, a
            probe = weakref.ref(a)
            gc.collect(1)  # frozen: only a reclaim frees this cycle now
            del a, b
            before = policy.reclaims
            gc.collect(1)
            await asyncio.sleep(0)
            assert policy.reclaims == before and probe() is not None  # the interval has not passed
            policy.last_reclaim -= 3600.0  # longer ago than the interval
            gc.collect(1)  # the collector's callback finds a reclaim due: the loop runs it next
            await asyncio.sleep(0)
            assert policy.reclaims == before + 1 and probe() is None
            gc.collect(1)
            await asyncio.sleep(0)
            assert policy.reclaims == before + 1  # and not again before the next interval
        finally:
            tuning.uninstall()

    asyncio.run(main())


def test_install_keeps_young_collections_small_and_is_idempotent() -> None:
    first = tuning.install()
    second = tuning.install()
    try:
        assert first is second
        assert gc.get_threshold()[0] == tuning.YOUNG_THRESHOLD
        assert gc.callbacks.count(first.callback) == 1
        assert sys.getswitchinterval() == tuning.GIL_SWITCH_INTERVAL
    finally:
        tuning.uninstall()


def test_uninstall_puts_the_process_back() -> None:
    thresholds, interval = gc.get_threshold(), sys.getswitchinterval()
    policy = tuning.install()
    tuning.uninstall()
    assert gc.get_threshold() == thresholds
    assert sys.getswitchinterval() == interval
    assert policy.callback not in gc.callbacks
    assert gc.get_freeze_count() == 0
    assert tuning.stats() == {}
