"""A table runtime over the in-memory store: check, reduce, commit, publish, with no database; a store that
has moved on refuses the commit and the table's memory stays as it was; a bot's only legal action is played
by the table itself, no bot process asked and no view built (a fifth of the bots' moves), and the game is
the one the bots would have played; a person's turn clock starts the bots' pool, which its end needs."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from estimation.server.config import Settings
from estimation.server.table.bot_pool import BotPool
from estimation.server.table.hints import HintPool
from estimation.server.table.reducer import BotAct, Create, Events, TableSettings, TableState, create
from estimation.server.table.runtime import TableError, TableRuntime, runtime_of
from estimation.server.table.store import MemoryTableStore, StaleVersion, TableStore


class Host:
    """What a table needs of its process, with the in-memory store."""

    def __init__(self) -> None:
        self.settings = Settings(database_url="sqlite+aiosqlite://", bot_delay=0.0)
        #: The in-memory store itself (its wallets and tables are read by the tests), and as a table sees it.
        self.memory = MemoryTableStore()
        self.store: TableStore = self.memory
        self.hints = HintPool()
        self.bots = BotPool(1)
        self.changes: list[Events] = []

    def table_changed(self, runtime: TableRuntime, events: Events) -> None:
        self.changes.append(events)

    def retire(self, runtime: TableRuntime) -> None:
        pass

    def lost(self, runtime: TableRuntime) -> None:
        pass


async def open_table(host: Host, stake: int) -> TableRuntime:
    state, events = create(Create(1, TableSettings("koutchina", "micro", stake, turn_seconds=0)))
    table_id = await host.store.create(state, events)
    return runtime_of(host, await host.store.load(table_id, 16) or pytest.fail("not created"))


def test_joins_stake_leaves_refund_and_a_full_table_starts_in_memory() -> None:
    async def go() -> None:
        host = Host()
        host.memory.wallets.update(dict.fromkeys(range(1, 6), 50))
        table = await open_table(host, 10)
        for account in (1, 2, 3):
            await table.join(account, f"p{account}", False, None, True, None)
        assert table.pot == 30 and host.memory.wallets[1] == 40
        await table.leave(2)
        assert table.pot == 20 and host.memory.wallets[2] == 50
        with pytest.raises(TableError) as refused:
            await table.join(1, "again", False, None, True, None)
        assert refused.value.code == "already_seated" and table.version == 4
        for account in (4, 5):
            await table.join(account, f"p{account}", False, None, True, None)
        assert table.status == "playing" and table.game is not None and table.pot == 40
        assert sum(host.memory.wallets.values()) + table.pot == 250
        assert [e["kind"] for e in host.changes[-1]] == ["join", "start"]
        reloaded = runtime_of(host, await host.store.load(table.id, 16) or pytest.fail("no table"))
        assert reloaded.version == table.version and [v for v, _ in reloaded.buffer] == [0, 1, 2, 3, 4, 5, 6]

    asyncio.run(go())


def test_a_store_that_moved_on_refuses_and_memory_stays_as_it_was() -> None:
    async def go() -> None:
        host = Host()
        table = await open_table(host, 0)
        await table.join(1, "a", False, None, False, None)
        stored = host.memory.tables[table.id]
        host.memory.tables[table.id] = TableState(stored.rules, 1, "open", stored.version + 1, 0,
                                                  stored.seats, None)
        with pytest.raises(StaleVersion):
            await table.join(2, "b", False, None, False, None)
        assert table.version == 1 and [s.account_id for s in table.seats] == [1, None, None, None]

    asyncio.run(go())


def test_a_wallet_that_cannot_pay_refuses_the_join() -> None:
    async def go() -> None:
        host = Host()
        host.memory.wallets[1] = 5
        table = await open_table(host, 10)
        with pytest.raises(TableError) as refused:
            await table.join(1, "a", False, None, True, None)
        assert refused.value.code == "wallet" and table.seats[0].account_id is None and table.pot == 0

    asyncio.run(go())


class CountingPool(BotPool):
    """The real pool (moves made in its process), noting how many legal actions each asked view had."""

    def __init__(self) -> None:
        super().__init__(1)
        self.asked: list[int] = []

    async def choose(self, table_id: int, level: str, seed: int, view: dict[str, Any]) -> str:
        self.asked.append(len(view["legal"]))
        return await super().choose(table_id, level, seed, view)


# Rulesets where a leaver's seat is played on by a bot (in egyptian, leaving ends the match).
@pytest.mark.parametrize(("ruleset", "length"), [("koutchina", "micro"), ("classic", "full")])
def test_a_bots_only_legal_action_is_played_without_asking_a_bot(ruleset: str, length: str) -> None:
    async def go() -> None:
        host = Host()
        host.bots = pool = CountingPool()
        settings = TableSettings(ruleset, length, 0, turn_seconds=0, bot_seats=(1, 2, 3),
                                 bot_level="heuristic")
        state, events = create(Create(1, settings))
        table = runtime_of(host, await host.store.load(await host.store.create(state, events), 16)
                           or pytest.fail("not created"))
        moves: list[int] = []  # each bot move's count of legal actions, as the table commits it
        commit = table._change

        async def noting(change: Any, **how: Any) -> int:
            if isinstance(change, BotAct) and table.game is not None:
                moves.append(len(table.game.legal_actions()))
            return await commit(change, **how)

        table._change = noting  # type: ignore[method-assign, assignment]
        await table.join(1, "Ann", False, 0, False, None)
        assert table.status == "playing" and table.game is not None
        await table.leave(1)  # seat 0's bot plays on: four bots to the end
        for _ in range(1200):
            if table.game.is_over:
                break
            await asyncio.sleep(0.05)
        assert table.game.is_over, "the bots did not finish the game"
        forced = moves.count(1)
        assert forced > len(moves) // 10  # the last cards of every round at least
        assert sorted(pool.asked) == sorted(n for n in moves if n > 1)  # each other move asked once
        table.shutdown()
        host.bots.stop()

    asyncio.run(go())


class WarmingPool(BotPool):
    """Counts the calls that start the pool, and starts nothing."""

    def __init__(self) -> None:
        super().__init__(1)
        self.warmed = 0

    def warm(self) -> None:
        self.warmed += 1


def test_a_persons_turn_clock_starts_the_bots_pool_before_it_runs_out() -> None:
    """Four people, a 30 s clock: the first turn's clock starts the pool (a clock that runs out is a bot's
    move for the person), so that move does not wait for the processes to start and load the bots' kernels
    (0.6 s from numba's cache, seconds on a first compile) at a table of people only. Without a clock,
    nothing starts it."""
    async def go() -> None:
        for turn_seconds, warmed in ((30, True), (0, False)):
            host = Host()
            host.bots = pool = WarmingPool()
            settings = TableSettings("koutchina", "micro", 0, turn_seconds=turn_seconds)
            state, events = create(Create(1, settings))
            table = runtime_of(host, await host.store.load(await host.store.create(state, events), 16)
                               or pytest.fail("not created"))
            for account in (1, 2, 3, 4):
                await table.join(account, f"p{account}", False, None, False, None)
            assert table.status == "playing" and (table.deadline is not None) is warmed
            assert (pool.warmed > 0) is warmed, (turn_seconds, pool.warmed)
            table.shutdown()

    asyncio.run(go())
