"""A deleted account's name, taken out while its table is changing: the erasure is a change of the table
(the reducer's ``Rename``, under the table's lock, committed by the store), so a commit in flight cannot
put the old name back in memory, and the next write of the seats cannot put it back in the database."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from sqlalchemy import select

from estimation.server import Settings
from estimation.server.access import auth
from estimation.server.hub import Hub
from estimation.server.social.accounts import ANONYMOUS, erase
from estimation.server.social.service import Social
from estimation.server.storage.models import Event, Seat, Table
from estimation.server.table.reducer import TableSettings
from estimation.server.table.store import Change


def test_an_erasure_against_a_commit_in_flight_keeps_the_name_out(tmp_path: Path) -> None:
    async def main() -> None:
        # Bots wait an hour: nothing moves at the table but what the test does.
        hub = Hub(Settings(database_url=f"sqlite+aiosqlite:///{tmp_path / 'hub.db'}", bot_delay=3600.0),
                  Social)
        await hub.start()
        try:
            async with hub.session() as db, db.begin():
                ann, bob = await auth.create_guest(db, "Ann"), await auth.create_guest(db, "Bob")
            runtime = await hub.create_table(ann.id, TableSettings("koutchina", "micro", bot_seats=(2, 3),
                                                                   turn_seconds=0))
            await runtime.join(ann.id, ann.name, True, 0, False, None)
            await runtime.join(bob.id, bob.name, True, 1, False, None)
            assert runtime.status == "playing" and runtime.game is not None
            await runtime.leave(ann.id)  # a bot plays her seat on: the game goes on with her name in it
            assert runtime.seats[0].left and runtime.seats[0].name == "Ann"

            # A commit in flight: Bob's seat marked away (a change that writes the seats), held in the store.
            store = hub.store
            real, gate, entered = store.commit, asyncio.Event(), asyncio.Event()

            async def held(change: Change) -> None:
                entered.set()
                await gate.wait()
                await real(change)

            store.commit = held  # type: ignore[method-assign]
            away = asyncio.create_task(runtime.set_away(1, True))
            await entered.wait()
            erasing = asyncio.create_task(erase(hub, ann.id))
            await asyncio.sleep(0.2)  # the erasure runs as far as it can while the commit is held
            gate.set()
            await away
            await erasing

            assert runtime.seats[1].away
            assert runtime.seats[0].name == ANONYMOUS
            assert runtime.game is not None and runtime.game.players[0] == ANONYMOUS
            assert "Ann" not in json.dumps(runtime.public())
            assert "Ann" not in json.dumps(runtime.view_for(None))
            # The next change that writes the seats and the record writes the erased name, not the old one.
            await runtime.set_away(1, False)
            async with hub.session() as db:
                name = await db.scalar(select(Seat.name).where(Seat.table_id == runtime.id, Seat.seat == 0))
                record = await db.scalar(select(Table.record).where(Table.id == runtime.id))
                events = (await db.scalars(select(Event.data).where(Event.table_id == runtime.id))).all()
            assert name == ANONYMOUS
            assert record is not None and json.loads(record)["players"][0] == ANONYMOUS
            assert not any("Ann" in data for data in events), events
            # And the table's versions went on one at a time: the rename was a version of its own.
            assert runtime.buffer[-1][0] == runtime.version
        finally:
            await hub.stop()

    asyncio.run(main())
