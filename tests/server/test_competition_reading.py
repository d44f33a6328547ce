"""A competition read from what changed (server/competitions/reading.py) is the competition read afresh.

A read keeps the rows it has seen and asks the database only for flagged entries, open tables and counts,
and it keeps finished tables' plays until a leaver changes. Each step below changes the database the way
one of the server's paths does (or the way no path does, to reach the fallback) and then checks that the
warm read's figures equal a cold read's (every cache forgotten), on SQLite and PostgreSQL.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import pytest
from sqlalchemy import update

from estimation.competition import board_seed, simulate
from estimation.server.competitions import field as fieldmod
from estimation.server.competitions import games, reading
from estimation.server.competitions.field import Field
from estimation.server.config import Settings
from estimation.server.hub import Hub
from estimation.server.social.service import Social
from estimation.server.storage.database import migrate
from estimation.server.storage.models import (
    Account,
    Competition,
    CompetitionEntry,
    CompetitionLeave,
    CompetitionTable,
    Table,
    utcnow,
)

DOC = simulate(kind="robot", entrants=6, ruleset="koutchina", length="micro", level="random", seed=5)
RECORDS = [t["record"] for t in DOC["stages"][0]["tables"]]


def forget() -> None:
    for cache in (reading._rows, fieldmod.kept_plays, fieldmod._groups, games.done, games.finished,
                  games.lines, games.replayed):
        cache.clear()


def figures(found: Field) -> Any:
    scored = found.scored()
    return (found.field_ids, [t.table_id for t in found.tables], [t.finished for t in found.tables],
            sorted((e.id, e.withdrawn, e.removed) for e in found.entries.values()),
            scored.standings, [(b.board, b.top, b.tables) for b in scored.boards], scored.results)


class Robot:
    """A robot competition written as the server stores it, and the server's ways of changing it."""

    def __init__(self, hub: Hub) -> None:
        self.hub = hub
        self.cid = 0
        self.entries: list[int] = []
        self.tables: list[int] = []

    async def make(self) -> None:
        now = utcnow()
        async with self.hub.session() as db, db.begin():
            director = Account(name="D", login=None, is_guest=True, balance=0, created_at=now)
            db.add(director)
            await db.flush()
            comp = Competition(name="R", kind="robot", ruleset="koutchina", length="micro",
                               bot_level="random",
                               stages=1, instances=1, starts_at=now, window_end=None, entry_limit=0,
                               turn_seconds=0, private=False, invite_code=None, director_id=director.id,
                               status="running", stage=1, seed=5, created_at=now)
            db.add(comp)
            await db.flush()
            self.cid, self.director = comp.id, director.id
        for _ in range(4):
            await self.register()
        for i in range(3):
            await self.table(self.entries[i], finished=True, record=RECORDS[i])

    async def register(self) -> int:
        async with self.hub.session() as db, db.begin():
            account = Account(name=f"E{len(self.entries)}", login=None, is_guest=True, balance=0,
                              created_at=utcnow())
            db.add(account)
            await db.flush()
            entry = CompetitionEntry(competition_id=self.cid, account_id=account.id, name=account.name,
                                     entry_no=len(self.entries) + 1, instance=1, withdrawn=False,
                                     removed=False, created_at=utcnow())
            db.add(entry)
            await db.flush()
            self.entries.append(entry.id)
            return entry.id

    async def table(self, entry: int, finished: bool, record: dict[str, Any]) -> int:
        async with self.hub.session() as db, db.begin():
            table = Table(ruleset="koutchina", length="micro", stake=0, private=True, invite_code=None,
                          bot_level="random", turn_seconds=0, partners=False,
                          status="finished" if finished else "playing", version=1, pot=0, paid_out=True,
                          record=json.dumps(record), record_version=1, created_by=self.director,
                          created_at=utcnow(), competition_id=self.cid, game_seed=board_seed(5, 1, 1))
            db.add(table)
            await db.flush()
            db.add(CompetitionTable(table_id=table.id, competition_id=self.cid, stage=1, instance=1,
                                    seats=json.dumps([entry, None, None, None]), finished=finished,
                                    slot=entry))
            self.tables.append(table.id)
            return table.id

    async def entry(self, entry: int, **values: bool) -> None:
        async with self.hub.session() as db, db.begin():
            await db.execute(update(CompetitionEntry).where(CompetitionEntry.id == entry).values(**values))

    async def finish(self, table_id: int, record: dict[str, Any]) -> None:
        async with self.hub.session() as db, db.begin():
            await db.execute(update(Table).where(Table.id == table_id).values(
                status="finished", record=json.dumps(record)))
            await db.execute(update(CompetitionTable).where(CompetitionTable.table_id == table_id)
                             .values(finished=True))

    async def progress(self, table_id: int, record: dict[str, Any]) -> None:
        """A table playing on another worker stores its record as it goes."""
        async with self.hub.session() as db, db.begin():
            await db.execute(update(Table).where(Table.id == table_id).values(record=json.dumps(record)))

    async def leave(self, entry: int, table_id: int, rounds: int) -> None:
        async with self.hub.session() as db, db.begin():
            db.add(CompetitionLeave(competition_id=self.cid, entry_id=entry, stage=1, table_id=table_id,
                                    rounds_done=rounds, reason="withdrew", at=utcnow()))


def partial(record: dict[str, Any], rounds: int) -> dict[str, Any]:
    """The record of a table still playing: its first ``rounds`` rounds' deals."""
    out = {k: v for k, v in record.items() if k != "ended"}
    out["deals"] = [d for d in record["deals"] if d["round"] <= rounds]
    return out


async def a_robot(url: str) -> tuple[Hub, Robot]:
    """A hub on ``url``'s database (migrated) and a robot competition written in it; every cache empty."""
    hub = Hub(Settings(database_url=url), Social)
    await migrate(hub.engine)
    robot = Robot(hub)
    forget()
    await robot.make()
    return hub, robot


async def nothing() -> None:
    return None


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
def test_a_read_from_what_changed_is_a_fresh_read(kind: str, database_url_factory: Any) -> None:
    url = database_url_factory(kind)  # outside the loop: PostgreSQL's is made by a loop of its own

    async def go() -> None:
        hub, robot = await a_robot(url)
        steps: list[tuple[str, Callable[[], Awaitable[Any]]]] = [
            ("nothing changed", nothing),
            ("an entry registers", robot.register),
            ("an entry withdraws", lambda: robot.entry(robot.entries[3], withdrawn=True)),
            ("it registers again", lambda: robot.entry(robot.entries[3], withdrawn=False)),
            ("a director removes an entrant", lambda: robot.entry(robot.entries[2], removed=True)),
            ("a table opens", lambda: robot.table(robot.entries[3], False, partial(RECORDS[3], 2))),
            ("it plays on", lambda: robot.progress(robot.tables[-1], partial(RECORDS[3], 4))),
            ("it finishes", lambda: robot.finish(robot.tables[-1], RECORDS[3])),
            ("a leave is recorded", lambda: robot.leave(robot.entries[1], robot.tables[1], 3)),
            ("a table made and finished between two reads",
             lambda: robot.table(robot.entries[4], True, RECORDS[4])),
        ]
        try:
            for what, step in steps:
                await reading.read_field(hub, robot.cid)  # warm
                await step()
                warm = await reading.read_field(hub, robot.cid)
                assert warm is not None
                seen = figures(warm)
                forget()
                cold = await reading.read_field(hub, robot.cid)
                assert cold is not None
                assert seen == figures(cold), what
        finally:
            forget()
            await hub.engine.dispose()

    asyncio.run(go())


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
def test_a_read_is_whole_when_another_read_adds_tables_while_it_waits(kind: str,
                                                                       database_url_factory: Any) -> None:
    """Two reads of one competition share its kept rows. A table made while the first waits on the
    database, then read by a second read, must not reach the first read's half-built field (its tables and
    their ids disagreed: ``zip() argument 2 is shorter``, a 500 on the competition's page after a restart)."""
    url = database_url_factory(kind)

    async def go() -> None:
        hub, robot = await a_robot(url)
        session = hub.session
        meddled = False

        class Meddling:
            """The read's session, but for its query of the leaves (after its tables are read): first a
            table is made and a second read of the competition reads it."""

            def __init__(self, db: Any) -> None:
                self.db = db

            def __getattr__(self, name: str) -> Any:
                return getattr(self.db, name)

            async def scalars(self, statement: Any, *args: Any, **kwargs: Any) -> Any:
                nonlocal meddled
                if not meddled and "competition_leaves" in str(statement):
                    meddled = True
                    await robot.table(robot.entries[3], True, RECORDS[3])
                    assert await reading.read_field(hub, robot.cid) is not None
                return await self.db.scalars(statement, *args, **kwargs)

        @asynccontextmanager
        async def meddling_session() -> AsyncIterator[Any]:
            async with session() as db:
                yield Meddling(db)

        try:
            hub.session = meddling_session  # type: ignore[assignment]
            first = await reading.read_field(hub, robot.cid)
            assert meddled and first is not None
            assert [t.table_id for t in first.tables] == first.table_ids == robot.tables[:3]
            hub.session = session
            second = await reading.read_field(hub, robot.cid)
            assert second is not None and second.table_ids == robot.tables
        finally:
            forget()
            await hub.engine.dispose()

    asyncio.run(go())
