"""The competitions' ticker (server/competitions/service.py) costs one query in ten seconds while no
competition is active, and wakes at once when one is created, here or in another worker (the bus's news).

Every worker of a cluster runs a ticker, so its idle cost is paid N times: four queries a second were most
of an idle worker's CPU (docs/performance.md, "Several workers behind HAProxy")."""

from __future__ import annotations

import asyncio
import datetime as dt
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
from sqlalchemy import event, select

from estimation.server.cluster.bus import COMPETITIONS
from estimation.server.competitions import reading, service
from estimation.server.config import Settings
from estimation.server.hub import Hub
from estimation.server.social.service import Social
from estimation.server.storage.models import Account, Competition, utcnow


@asynccontextmanager
async def started_hub(url: str) -> AsyncIterator[Hub]:
    reading.forget_all()
    hub = Hub(Settings(database_url=url, bot_workers=1, bot_delay=3600), Social)
    await hub.start()
    try:
        yield hub
    finally:
        await hub.stop()
        reading.forget_all()


async def add_director(hub: Hub) -> Account:
    async with hub.session() as db, db.begin():
        director = Account(name="Director", login=None, is_guest=True, balance=0, created_at=utcnow())
        db.add(director)
    return director


async def add_swiss(hub: Hub, director: Account, starts_at: dt.datetime) -> int:
    """A swiss written straight into the database, as another worker's ``create`` would."""
    async with hub.session() as db, db.begin():
        comp = Competition(name="Cup", kind="swiss", ruleset="koutchina", length="micro", bot_level="random",
                           stages=1, instances=1, starts_at=starts_at, window_end=None, entry_limit=0,
                           turn_seconds=0, private=False, invite_code=None, director_id=director.id,
                           status="upcoming", stage=0, seed=7, created_at=utcnow())
        db.add(comp)
    return comp.id


async def status_of(hub: Hub, cid: int) -> str:
    async with hub.session() as db:
        return str(await db.scalar(select(Competition.status).where(Competition.id == cid)))


async def left_upcoming_within(hub: Hub, cid: int, seconds: float) -> bool:
    deadline = asyncio.get_running_loop().time() + seconds
    while asyncio.get_running_loop().time() < deadline:
        if await status_of(hub, cid) != "upcoming":
            return True
        await asyncio.sleep(0.1)
    return False


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
def test_an_idle_tick_is_one_query_and_an_active_one_looks_for_work(kind: str,
                                                                    database_url_factory: Any) -> None:
    url = database_url_factory(kind)

    async def go() -> None:
        async with started_hub(url) as hub:
            statements: list[str] = []

            def seen(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
                if "competition" in statement:  # not the hub's other background work's
                    statements.append(statement)

            event.listen(hub.engine.sync_engine, "before_cursor_execute", seen)
            try:
                await asyncio.sleep(0.3)  # the ticker's own first tick is over
                statements.clear()
                assert await hub.competitions.tick() is False
                assert len(statements) == 1, statements
                director = await add_director(hub)
                await add_swiss(hub, director, utcnow() + dt.timedelta(days=1))  # not due: nothing to do
                statements.clear()
                assert await hub.competitions.tick() is True
                assert len(statements) == 5, statements  # the check, then due, closing, stalled, seating
            finally:
                event.remove(hub.engine.sync_engine, "before_cursor_execute", seen)

    asyncio.run(go())


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
def test_the_idle_ticker_wakes_at_once_for_a_competition_created_here_or_elsewhere(
        kind: str, database_url_factory: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    url = database_url_factory(kind)
    monkeypatch.setattr(service, "IDLE_TICK_SECONDS", 600.0)  # the ticker would not look again by itself

    async def go() -> None:
        async with started_hub(url) as hub:
            await asyncio.sleep(0.5)  # the ticker's first tick: nothing active, it goes idle
            director = await add_director(hub)
            # Created here: create() wakes this process's ticker, which starts it (too few entrants: over).
            spec = service.Spec(name="Here", kind="swiss", ruleset="koutchina", length="micro",
                                bot_level="random", stages=1, instances=1, starts_at=utcnow(),
                                window_end=None, entry_limit=0, turn_seconds=0, private=False)
            here = (await hub.competitions.create(director, spec)).id
            assert await left_upcoming_within(hub, here, 5.0), await status_of(hub, here)
            await asyncio.sleep(1.5)  # finished: nothing active again, idle again
            # Created by another worker: only its news over the bus reaches this one.
            elsewhere = await add_swiss(hub, director, utcnow())
            await asyncio.sleep(1.5)
            assert await status_of(hub, elsewhere) == "upcoming"  # idle: the row alone wakes nobody
            hub.bus.publish(COMPETITIONS, {"type": "competition_created", "competition": elsewhere})
            assert await left_upcoming_within(hub, elsewhere, 5.0), await status_of(hub, elsewhere)

    asyncio.run(go())
