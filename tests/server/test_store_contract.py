"""One contract for every store and every bus: the same tests run on the memory store and the SQL store (on
SQLite and on PostgreSQL), and a table's changes published on the memory bus and on Redis's.

A table is created by the reducer's ``create`` and the store's ``create``, changed only by reduced commands
committed at their version, read back by the store's reads (its row, the listings, a player's seats, the
quick-play tables, the table a rematch was made from), and a deleted account's name taken out of the tables
that are over. Coins: every wallet plus every open pot equals the coins given at the start, whatever the
store.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import random
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from sqlalchemy import select

from estimation.server.cluster.bus import Bus, table_topic
from estimation.server.cluster.bus_choice import open_bus
from estimation.server.storage.database import make_engine, migrate, sessionmaker
from estimation.server.storage.models import Account, Competition, CompetitionTable, utcnow
from estimation.server.table.reducer import (
    Abandon,
    BotAct,
    Command,
    Create,
    Join,
    Joins,
    Leave,
    LinkRematch,
    Rename,
    ScheduleBots,
    SeatBots,
    SetAway,
    TableError,
    TableSettings,
    TableState,
    create,
    public_table,
    reduce,
)
from estimation.server.table.store import (
    Change,
    MemoryTableStore,
    Slot,
    SlotFenced,
    SlotTaken,
    SqlTableStore,
    StaleVersion,
    TableStore,
)

STORES = ["memory", "sqlite", "postgresql"]
BUSES = ["memory", "redis"]


@dataclass
class Opened:
    """A store under test, and the wallets behind it (accounts in the database, or the memory store's)."""

    store: TableStore
    account: Callable[[str, int], Any]
    balances: Callable[[], Any]
    #: A competition directed by an account (its id), and the slots taken ((stage, instance, slot) -> table).
    competition: Callable[[int], Any]
    slots: Callable[[int], Any]
    made: list[int] = field(default_factory=list)


@contextlib.asynccontextmanager
async def opened(kind: str, url: str) -> AsyncIterator[Opened]:
    if kind == "memory":
        memory = MemoryTableStore()

        async def account(_name: str, coins: int) -> int:
            account_id = len(memory.wallets) + 1
            memory.wallets[account_id] = coins
            return account_id

        async def balances() -> dict[int, int]:
            return dict(memory.wallets)

        async def competition(_director: int) -> int:
            return 1 + len({key[0] for key in memory.slots})

        async def slots(competition_id: int) -> dict[tuple[int, int, int], int]:
            return {key[1:]: table for key, (table, _seats) in memory.slots.items()
                    if key[0] == competition_id}

        yield Opened(memory, account, balances, competition, slots)
        return
    engine = make_engine(url)
    await migrate(engine)
    session = sessionmaker(engine)
    sql = SqlTableStore.open(engine, session)
    await sql.start()

    async def db_account(name: str, coins: int) -> int:
        async with session() as db, db.begin():
            row = Account(name=name, login=f"{name}-{random.randrange(10**9)}", is_guest=False,
                          balance=coins)
            db.add(row)
            await db.flush()
            return row.id

    async def db_balances() -> dict[int, int]:
        async with session() as db:
            return {a: b for a, b in (await db.execute(select(Account.id, Account.balance))).all()}

    async def db_competition(director: int) -> int:
        now = utcnow()
        async with session() as db, db.begin():
            row = Competition(name="Cup", kind="swiss", ruleset="koutchina", length="micro",
                              bot_level="random", stages=2, instances=1, starts_at=now, window_end=None,
                              entry_limit=0, turn_seconds=0, private=False, invite_code=None,
                              director_id=director, status="running", stage=1, seed=7, created_at=now)
            db.add(row)
            await db.flush()
            return row.id

    async def db_slots(competition_id: int) -> dict[tuple[int, int, int], int]:
        async with session() as db:
            rows = (await db.execute(select(CompetitionTable).where(
                CompetitionTable.competition_id == competition_id))).scalars().all()
            return {(r.stage, r.instance, r.slot): r.table_id for r in rows if r.slot is not None}

    try:
        yield Opened(sql, db_account, db_balances, db_competition, db_slots)
    finally:
        await sql.stop()
        await engine.dispose()


@pytest.fixture(params=STORES)
def store_kind(request: pytest.FixtureRequest, database_url_factory: Any) -> tuple[str, str]:
    kind = request.param
    return kind, "" if kind == "memory" else database_url_factory(kind)


@pytest.fixture(params=BUSES)
def bus_url(request: pytest.FixtureRequest) -> str:
    return "" if request.param == "memory" else request.getfixturevalue("redis_server").url


async def new_table(store: TableStore, creator: int, settings: TableSettings,
                    open_cap: int = 0) -> tuple[int, TableState]:
    state, events = create(Create(creator, settings, "code" if settings.private else None))
    return await store.create(state, events, open_cap), state


async def step(store: TableStore, table_id: int, state: TableState, command: Command) -> TableState:
    after, events = reduce(state, command)
    await store.commit(Change(table_id, state, after, events))
    return after


def test_a_table_created_committed_and_read_back(store_kind: tuple[str, str]) -> None:
    async def go() -> None:
        async with opened(*store_kind) as o:
            store = o.store
            ann = await o.account("ann", 0)
            table_id, state = await new_table(store, ann, TableSettings("koutchina", "micro", bot_seats=(3,)))
            hidden, _ = await new_table(store, ann, TableSettings("koutchina", private=True))
            stored = await store.load(table_id, 16)
            assert stored is not None and stored.state == state and stored.state.version == 0
            assert stored.recent == [(0, [{"kind": "created"}], None, None, None)]
            row = await store.row(table_id)
            assert row is not None and row.state == state and row.record is None
            assert await store.row(10**6) is None and await store.load(10**6, 16) is None
            assert set(await store.list("open")) == {table_id, hidden}
            listed = await store.listing("open", 10)
            assert [r.table_id for r in listed] == [table_id]  # a private table is never listed
            assert public_table(table_id, listed[0].state)["seats"][3]["name"] == "Bot 4"
            assert public_table(table_id, listed[0].state)["partners"] is False
            # A change at the version it started from; the same change again is refused.
            joined = await step(store, table_id, state, Join(ann, "Ann", seat=0))
            with pytest.raises(StaleVersion):
                await step(store, table_id, state, Join(ann, "Ann", seat=0))
            assert await store.live_table(ann) == table_id
            assert await store.seats_of(ann) == [(table_id, 0, "open")]
            stored = await store.load(table_id, 16)
            assert stored is not None and stored.state.seats == joined.seats and stored.state.version == 1
            # The open tables a player may have.
            with pytest.raises(TableError) as capped:
                await new_table(store, ann, TableSettings("koutchina"), open_cap=2)
            assert capped.value.code == "too_many_tables" and capped.value.status == 429
            old = utcnow() - dt.timedelta(hours=1)
            assert await store.list("open", created_before=old) == []

    asyncio.run(go())


def test_a_competition_table_is_made_with_its_slot_or_not_at_all(store_kind: tuple[str, str]) -> None:
    """A competition's table and its slot's row are one write: a slot taken is refused (:class:`SlotTaken`)
    with no table left behind, and (PostgreSQL, cluster mode) so is a slot whose competition fence refuses
    it (:class:`SlotFenced`)."""
    async def go() -> None:
        async with opened(*store_kind) as o:
            store = o.store
            director = await o.account("director", 0)
            cid = await o.competition(director)
            settings = TableSettings("koutchina", "micro", private=True, bot_seats=(2, 3), competition=cid,
                                     seed="42")
            state, events = create(Create(director, settings, "code"))
            first = await store.create(state, events, slot=Slot(cid, 1, 1, 0, "[1, 2, null, null]"))
            with pytest.raises(SlotTaken):
                await store.create(state, events, slot=Slot(cid, 1, 1, 0, "[3, 4, null, null]"))
            assert await store.list("open") == [first]  # the refused table was never written
            second = await store.create(state, events, slot=Slot(cid, 1, 1, 1, "[3, 4, null, null]"))
            assert await o.slots(cid) == {(1, 1, 0): first, (1, 1, 1): second}
            stored = await store.load(second, 16)
            assert stored is not None and stored.state == state
            if store_kind[0] == "postgresql":  # the fence is cluster mode's, on PostgreSQL only
                with pytest.raises(SlotFenced):
                    await store.create(state, events, slot=Slot(cid, 1, 1, 2, "[5, 6, null, null]",
                                                                fence=(10**6, 1)))
                assert sorted(await store.list("open")) == [first, second]
                assert await o.slots(cid) == {(1, 1, 0): first, (1, 1, 1): second}

    asyncio.run(go())


def test_a_table_made_with_its_first_change_or_not_at_all(store_kind: tuple[str, str]) -> None:
    """A new table and its first change (a competition's entrants seated: Joins) in one write: read back as
    after the change, both versions' events kept; a first change refused (a stake its player cannot pay)
    leaves no table, and its slot free."""
    async def go() -> None:
        async with opened(*store_kind) as o:
            store = o.store
            director, ann, bob = (await o.account("director", 0), await o.account("ann", 0),
                                  await o.account("bob", 0))
            cid = await o.competition(director)
            settings = TableSettings("koutchina", "micro", private=True, bot_seats=(2, 3), competition=cid,
                                     seed="7")
            state, events = create(Create(director, settings, "code"))
            joins = Joins((Join(ann, "Ann", seat=0, invite="code", seed=1),
                           Join(bob, "Bob", seat=1, invite="code", seed=2)))
            after, joined = reduce(state, joins)
            assert after.status == "playing" and after.game is not None  # the last seat taken deals
            made = await store.create(state, events, slot=Slot(cid, 1, 1, 0, "[1, 2, null, null]"),
                                      then=Change(0, state, after, joined))
            stored = await store.load(made, 16)
            assert stored is not None and stored.state.version == 1 and stored.state.seats == after.seats
            assert stored.state.game is not None and stored.state.game.view(0) == after.game.view(0)
            assert [v for v, *_ in stored.recent] == [0, 1] and stored.recent[1][1] == joined
            assert await store.live_table(ann) == made and await store.live_table(bob) == made
            # A first change that cannot be paid for (a stake from an empty wallet) is refused whole.
            carl = await o.account("carl", 0)
            staked = TableSettings("koutchina", "micro", stake=10, private=True, competition=cid, seed="7")
            again, again_events = create(Create(director, staked, "code"))
            second, second_joined = reduce(again, Join(carl, "Carl", seat=0, stake=True, invite="code"))
            with pytest.raises(TableError) as refused:
                await store.create(again, again_events, slot=Slot(cid, 1, 1, 1, "[3, null, null, null]"),
                                   then=Change(0, again, second, second_joined))
            assert refused.value.code == "wallet"
            assert await store.list("playing") == [made] and await store.list("open") == []
            assert await o.slots(cid) == {(1, 1, 0): made}

    asyncio.run(go())


def test_quick_play_a_rematch_link_and_a_rename(store_kind: tuple[str, str]) -> None:
    async def go() -> None:
        async with opened(*store_kind) as o:
            store = o.store
            ann, bob = await o.account("ann", 0), await o.account("bob", 0)
            quick, state = await new_table(store, ann, TableSettings("koutchina", "micro"))
            at = (utcnow() + dt.timedelta(seconds=20)).replace(microsecond=0)
            state = await step(store, quick, state, Join(ann, "Ann"))
            state = await step(store, quick, state, ScheduleBots(at))
            assert await store.quick_tables("koutchina", "micro", 5) == [quick]
            assert await store.quick_tables("koutchina", "mini", 5) == []
            assert await store.waiting_bots() == [(quick, at)]
            stored = await store.load(quick, 16)
            assert stored is not None and stored.state.bots_at == at
            # Bob comes, the bots take the other seats, and the game is played out.
            state = await step(store, quick, state, Join(bob, "Bob"))
            state = await step(store, quick, state, SeatBots(ann, seed=7))
            assert state.status == "playing"
            state = await step(store, quick, state, SetAway(1, True))
            state = await _play_out(store, quick, state)
            assert state.status == "finished"
            assert await store.live_table(ann) is None
            # The rematch link, once.
            rematch, made = await new_table(store, ann, TableSettings("koutchina", "micro", private=True))
            state = await step(store, quick, state, LinkRematch(rematch, None))
            with pytest.raises(TableError):
                reduce(state, LinkRematch(rematch + 1, None))
            row = await store.row(quick)
            assert row is not None and row.state.rematch_id == rematch and row.record is not None
            # The rematch keeps the people's old seats (not the bots') for a while after its making.
            hour = dt.timedelta(hours=1)
            assert await store.rematch_of(rematch, utcnow() - hour) == (quick, {0: ann, 1: bob})
            assert await store.rematch_of(rematch, utcnow() + hour) is None  # made too long ago
            assert await store.rematch_of(quick, utcnow() - hour) is None  # not open, and no rematch
            assert await store.rematch_of(10**6, utcnow() - hour) is None
            await step(store, rematch, made, Abandon("nobody came"))
            assert await store.rematch_of(rematch, utcnow() - hour) is None  # no longer open
            # Ann deleted: the finished table's seats, record and join/start events forget her name.
            assert await store.anonymise(ann, "Deleted player") == [quick]
            row = await store.row(quick)
            assert row is not None and row.state.seats[0].name == "Deleted player"
            assert row.record is not None and "Ann" not in row.record
            stored = await store.load(quick, 100)
            assert stored is not None and stored.state.game is not None
            assert stored.state.game.players[0] == "Deleted player"
            assert not any("Ann" in str(events) for _v, events, *_ in stored.recent)
            # A live table is renamed by its own command (the runtime's), versioned like any change.
            live, fresh = await new_table(store, bob, TableSettings("koutchina", "micro"))
            fresh = await step(store, live, fresh, Join(bob, "Bob"))
            renamed = await step(store, live, fresh, Rename(bob, "Deleted player"))
            stored = await store.load(live, 16)
            assert stored is not None and stored.state.seats[0].name == "Deleted player"
            assert stored.state.version == renamed.version == 2

    asyncio.run(go())


async def _play_out(store: TableStore, table_id: int, state: TableState) -> TableState:
    """Play the game out with the first legal action (every move a bot's or a timeout's)."""
    while state.status == "playing" and state.game is not None:
        game = state.game
        assert game.to_move is not None
        state = await step(store, table_id, state, BotAct(game.to_move, game.legal_actions()[0].text,
                                                          timeout=True))
    return state


def test_coins_are_conserved_whatever_the_store(store_kind: tuple[str, str]) -> None:
    async def go() -> None:
        async with opened(*store_kind) as o:
            store = o.store
            people = [await o.account(f"p{i}", 100) for i in range(5)]
            grants = sum((await o.balances()).values())

            async def check(pots: dict[int, TableState]) -> None:
                assert sum((await o.balances()).values()) + sum(s.pot for s in pots.values()) == grants

            staked, state = await new_table(store, people[0], TableSettings("koutchina", "micro", stake=10))
            abandoned, other = await new_table(store, people[4], TableSettings("koutchina", stake=95))
            for account in people[:3]:
                state = await step(store, staked, state, Join(account, f"p{account}", stake=True))
            other = await step(store, abandoned, other, Join(people[4], "p4", stake=True))
            await check({staked: state, abandoned: other})
            state = await step(store, staked, state, Leave(people[1]))  # refunded
            with pytest.raises(TableError) as poor:  # a wallet that cannot pay refuses the change
                await step(store, staked, state, Join(people[4], "p4", stake=True, seed=1))
            assert poor.value.code == "wallet"
            await check({staked: state, abandoned: other})
            other = await step(store, abandoned, other, Abandon("not filled in time"))
            await check({staked: state, abandoned: other})
            state = await step(store, staked, state, Join(people[3], "p3", stake=True, seed=3))
            state = await step(store, staked, state, Join(people[1], "p1", stake=True, seed=5))
            assert state.status == "playing" and state.pot == 40
            await check({staked: state, abandoned: other})
            state = await _play_out(store, staked, state)
            assert state.status == "finished" and state.pot == 0
            await check({staked: state, abandoned: other})
            splits = await store.paid_splits([staked, abandoned])
            stored = await store.load(staked, 4)
            assert stored is not None and stored.state.game is not None
            over = next(e for _v, events, *_ in stored.recent for e in events if e["kind"] == "over")
            assert splits == {staked: {k: int(v) for k, v in over.get("payout", {}).items()}}

    asyncio.run(go())


def test_a_tables_changes_published_on_the_bus(store_kind: tuple[str, str], bus_url: str) -> None:
    """A runtime on each store, its host publishing every committed change on each bus: what a subscriber
    of the table's topic hears is every version, in order, each with its events."""
    from estimation.server.config import Settings
    from estimation.server.table.bot_pool import BotPool
    from estimation.server.table.hints import HintPool
    from estimation.server.table.runtime import TableRuntime, runtime_of

    class Host:
        def __init__(self, store: TableStore, bus: Bus) -> None:
            self.settings = Settings(database_url="sqlite+aiosqlite://", bot_delay=3600.0)
            self.store, self.bus = store, bus
            self.hints, self.bots = HintPool(), BotPool(1)

        def table_changed(self, runtime: TableRuntime, events: Any) -> None:
            self.bus.publish(table_topic(runtime.id), {"type": "changed", "version": runtime.version,
                                                       "kinds": [e["kind"] for e in events]})

        def retire(self, runtime: TableRuntime) -> None:
            pass

        def lost(self, runtime: TableRuntime) -> None:
            pass

    async def go() -> None:
        bus = open_bus(bus_url, prefix=f"contract{random.randrange(10**9)}:")
        await bus.start()
        try:
            async with opened(*store_kind) as o:
                host = Host(o.store, bus)
                ann, bob = await o.account("ann", 0), await o.account("bob", 0)
                table_id, _state = await new_table(o.store, ann, TableSettings("koutchina", "micro",
                                                                              bot_seats=(2, 3)))
                stored = await o.store.load(table_id, 16)
                assert stored is not None
                runtime = runtime_of(host, stored)
                heard: list[dict[str, Any]] = []
                sub = bus.subscribe(table_topic(table_id), lambda _t, m: heard.append(m))
                await asyncio.sleep(0.2 if bus_url else 0)  # Redis: the subscription is live
                await runtime.join(ann, "Ann", False, 0, False, None)
                await runtime.join(bob, "Bob", False, 1, False, None)
                await runtime.rename(ann, "Deleted player")
                await runtime.leave(bob)
                for _ in range(100):
                    if len(heard) == 4:
                        break
                    await asyncio.sleep(0.05)
                sub.close()
                assert [m["version"] for m in heard] == [1, 2, 3, 4]
                assert [m["kinds"] for m in heard] == [["join"], ["join", "start"], ["renamed"], ["leave"]]
                reloaded = await o.store.load(table_id, 16)
                assert reloaded is not None and reloaded.state.seats[0].name == "Deleted player"
                assert reloaded.state.game is not None and reloaded.state.game.players[0] == "Deleted player"
                runtime.shutdown()
                host.bots.stop()
        finally:
            await bus.stop()

    asyncio.run(go())
