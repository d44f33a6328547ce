"""Seating a swiss stage (server/competitions/service.py), in a hub of this process, on SQLite and PostgreSQL.

A stage's plan is written first; its tables are then made (each in one transaction with its slot's row) and
their entrants seated, the first slot alone and the rest ``SEATING_AT_ONCE`` at a time on PostgreSQL (one at
a time on SQLite), the tables made in slot order. Checked: every entrant at exactly the seat the plan gives
it, one table a slot, table ids in slot order, every game started, the plan cleared; on PostgreSQL several
tables seated at once; and a seating cut short at the failpoint goes on where it stopped.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
from sqlalchemy import select

from estimation.server.competitions import reading, service
from estimation.server.competitions.seeding import seed_swiss
from estimation.server.config import Settings
from estimation.server.hub import Hub
from estimation.server.social.service import Social
from estimation.server.storage.models import (
    Account,
    Competition,
    CompetitionEntry,
    CompetitionTable,
    Seat,
    Table,
)

#: 22 entrants: six tables, two of them with a bot.
ENTRANTS = 22


@asynccontextmanager
async def hub_with_a_swiss(url: str) -> AsyncIterator[tuple[Hub, int, Account]]:
    """A hub started on ``url`` (bots far off: the games wait) and a swiss of ENTRANTS, its start a day off
    (the ticker leaves it alone). The competitions' process-wide caches are by competition id, and each
    test's database starts at 1: the hub forgets them as it starts, and so does this as it ends."""
    hub = Hub(Settings(database_url=url, bot_workers=1, bot_delay=3600), Social)
    await hub.start()
    try:
        cid, director = await seed_swiss(hub.session, ENTRANTS, stages=2, seed=11, guest=lambda i: i % 2 == 0)
        yield hub, cid, director
    finally:
        await hub.stop()
        reading.forget_all()


async def seated_as_planned(hub: Hub, cid: int, plan: list[list[int | None]]) -> None:
    """Every slot of ``plan`` has one table, made in slot order, each entrant at its seat there and nowhere
    else, bots in the others, its game started; the plan is cleared."""
    async with hub.session() as db:
        comp = await db.get(Competition, cid)
        assert comp is not None and comp.stage == 1 and comp.stage_plan is None
        tables = (await db.scalars(select(CompetitionTable).where(CompetitionTable.competition_id == cid)
                                   .order_by(CompetitionTable.slot))).all()
        assert [t.slot for t in tables] == list(range(len(plan)))
        ids = [t.table_id for t in tables]
        assert ids == sorted(ids), "tables made out of slot order"
        assert [json.loads(t.seats) for t in tables] == plan
        account_of = dict((await db.execute(select(CompetitionEntry.id, CompetitionEntry.account_id).where(
            CompetitionEntry.competition_id == cid))).all())
        seats = (await db.execute(select(Seat.table_id, Seat.seat, Seat.account_id, Seat.is_bot).where(
            Seat.table_id.in_(ids)))).all()
        statuses = set((await db.scalars(select(Table.status).where(Table.competition_id == cid))).all())
        made = len((await db.scalars(select(Table.id).where(Table.competition_id == cid))).all())
    assert made == len(plan) and statuses == {"playing"}
    at = {(t, s): (a, bot) for t, s, a, bot in seats}
    for table_id, entrants in zip(ids, plan, strict=True):
        for seat, entrant in enumerate(entrants):
            assert at[(table_id, seat)] == ((None, True) if entrant is None else (account_of[entrant], False))
    seated = [e for entrants in plan for e in entrants if e is not None]
    assert sorted(seated) == sorted(account_of) and len(set(seated)) == ENTRANTS


async def the_plan(hub: Hub, cid: int) -> list[list[int | None]]:
    """The stage's plan as written (read back from its tables once it is cleared)."""
    async with hub.session() as db:
        tables = (await db.scalars(select(CompetitionTable).where(CompetitionTable.competition_id == cid)
                                   .order_by(CompetitionTable.slot))).all()
    return [json.loads(t.seats) for t in tables]


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
def test_a_stage_is_seated_in_slot_order_several_tables_at_once(kind: str, database_url_factory: Any,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    url = database_url_factory(kind)  # outside the loop: PostgreSQL's is made by a loop of its own
    busy, most = 0, 0
    create_table = Hub.create_table

    async def counted(self: Hub, *args: Any) -> Any:
        nonlocal busy, most
        busy += 1
        most = max(most, busy)
        try:
            return await create_table(self, *args)
        finally:
            busy -= 1

    monkeypatch.setattr(Hub, "create_table", counted)

    async def go() -> None:
        async with hub_with_a_swiss(url) as (hub, cid, director):
            await hub.competitions.start_now(cid, director)
            plan = await the_plan(hub, cid)
            assert len(plan) == 6 and sum(e is None for t in plan for e in t) == 2
            await seated_as_planned(hub, cid, plan)
        # One writer on SQLite; on PostgreSQL a table's transaction goes on while the next one's starts.
        assert most == 1 if kind == "sqlite" else 1 < most <= service.SEATING_AT_ONCE, most

    asyncio.run(go())


class Crash(Exception):
    """The failpoint reached (a real one exits the process)."""


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
def test_a_seating_cut_short_goes_on_where_it_stopped(kind: str, database_url_factory: Any,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Cut short once the first slot is seated (the failpoint): the plan is there with one table; the
    ticker's look seats the rest of that same plan, nobody twice."""
    url = database_url_factory(kind)

    def reached(_armed: str, name: str) -> None:
        if name == "competition_seating":
            raise Crash(name)

    async def go() -> None:
        async with hub_with_a_swiss(url) as (hub, cid, director):
            monkeypatch.setattr(service, "reached", reached)
            with pytest.raises(Crash):
                await hub.competitions.start_now(cid, director)
            async with hub.session() as db:
                comp = await db.get(Competition, cid)
                assert comp is not None and comp.stage_plan is not None
                plan = json.loads(comp.stage_plan)
            assert await the_plan(hub, cid) == plan[:1]
            monkeypatch.undo()
            await hub.competitions.tick()  # what the ticker finds: a plan still there, seated by its owner
            await seated_as_planned(hub, cid, plan)

    asyncio.run(go())
