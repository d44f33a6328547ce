"""A table runtime over the in-memory store: check, reduce, commit, publish, with no database; a store that
has moved on refuses the commit and the table's memory stays as it was."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from estimation.server.config import Settings
from estimation.server.table.bot_pool import BotPool
from estimation.server.table.hints import HintPool
from estimation.server.table.reducer import Create, TableSettings, TableState, create
from estimation.server.table.runtime import TableError, TableRuntime, runtime_of
from estimation.server.table.store import MemoryTableStore, StaleVersion


class Host:
    """What a table needs of its process, with the in-memory store."""

    def __init__(self) -> None:
        self.settings = Settings(database_url="sqlite+aiosqlite://", bot_delay=0.0)
        self.store = MemoryTableStore()
        self.hints = HintPool()
        self.bots = BotPool(1)
        self.changes: list[list[dict[str, Any]]] = []

    def table_changed(self, runtime: TableRuntime, events: list[dict[str, Any]]) -> None:
        self.changes.append(events)

    def retire(self, runtime: TableRuntime) -> None:
        pass


async def open_table(host: Host, stake: int) -> TableRuntime:
    state, events = create(Create(1, TableSettings("koutchina", "micro", stake, turn_seconds=0)))
    table_id = await host.store.create(state, events)
    return runtime_of(host, await host.store.load(table_id, 16) or pytest.fail("not created"))


def test_joins_stake_leaves_refund_and_a_full_table_starts_in_memory() -> None:
    async def go() -> None:
        host = Host()
        host.store.wallets.update(dict.fromkeys(range(1, 6), 50))
        table = await open_table(host, 10)
        for account in (1, 2, 3):
            await table.join(account, f"p{account}", False, None, True, None)
        assert table.pot == 30 and host.store.wallets[1] == 40
        await table.leave(2)
        assert table.pot == 20 and host.store.wallets[2] == 50
        with pytest.raises(TableError) as refused:
            await table.join(1, "again", False, None, True, None)
        assert refused.value.code == "already_seated" and table.version == 4
        for account in (4, 5):
            await table.join(account, f"p{account}", False, None, True, None)
        assert table.status == "playing" and table.game is not None and table.pot == 40
        assert sum(host.store.wallets.values()) + table.pot == 250
        assert [e["kind"] for e in host.changes[-1]] == ["join", "start"]
        reloaded = runtime_of(host, await host.store.load(table.id, 16) or pytest.fail("no table"))
        assert reloaded.version == table.version and [v for v, _ in reloaded.buffer] == [0, 1, 2, 3, 4, 5, 6]

    asyncio.run(go())


def test_a_store_that_moved_on_refuses_and_memory_stays_as_it_was() -> None:
    async def go() -> None:
        host = Host()
        table = await open_table(host, 0)
        await table.join(1, "a", False, None, False, None)
        stored = host.store.tables[table.id]
        host.store.tables[table.id] = TableState(stored.rules, 1, "open", stored.version + 1, 0, stored.seats,
                                                 None)
        with pytest.raises(StaleVersion):
            await table.join(2, "b", False, None, False, None)
        assert table.version == 1 and [s.account_id for s in table.seats] == [1, None, None, None]

    asyncio.run(go())


def test_a_wallet_that_cannot_pay_refuses_the_join() -> None:
    async def go() -> None:
        host = Host()
        host.store.wallets[1] = 5
        table = await open_table(host, 10)
        with pytest.raises(TableError) as refused:
            await table.join(1, "a", False, None, True, None)
        assert refused.value.code == "wallet" and table.seats[0].account_id is None and table.pot == 0

    asyncio.run(go())
