"""The server's collector policy: long-lived objects leave the collectors' sight; cycles are reclaimed."""

from __future__ import annotations

import gc
import weakref

from estimation.server import collector


class Node:
    def __init__(self) -> None:
        self.other: Node | None = None


def test_survivors_of_a_middle_collection_are_frozen_and_a_reclaim_frees_their_cycles() -> None:
    policy = collector.install()
    try:
        before = gc.get_freeze_count()
        a, b = Node(), Node()
        a.other, b.other = b, a  # a cycle: only the cyclic collector can free it
        probe = weakref.ref(a)
        gc.collect(1)  # a middle-generation collection: its survivors are frozen at once
        assert gc.get_freeze_count() > before
        del a, b
        gc.collect()  # a full collection does not look at frozen objects ...
        assert probe() is not None
        found = policy.reclaim()  # ... a reclaim does
        assert probe() is None
        assert found >= 2
        assert policy.stats()["gc_reclaims"] >= 1
    finally:
        gc.unfreeze()


def test_install_keeps_young_collections_small_and_is_idempotent() -> None:
    first = collector.install()
    second = collector.install()
    try:
        assert first is second
        assert gc.get_threshold()[0] == collector.YOUNG_THRESHOLD
        assert gc.callbacks.count(first.callback) == 1
    finally:
        gc.unfreeze()
