"""The hub in this process, on a SQLite file: the inline SQLite driver, and the sweep of finished tables.

Everything a client sees is tested against a real server in the other files; these check two things that
only show from inside: that SQLite's statements really run without waiting for a turn of the event loop
(the reason for ``sqlite_inline``), and that the sweep frees finished tables nobody watches, a batch per
turn, and keeps those somebody still watches.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from sqlalchemy import select, text

from estimation.server import Settings
from estimation.server.access import auth
from estimation.server.hub import EVICT_PER_TURN, Hub
from estimation.server.social.service import Social
from estimation.server.storage.models import Result, Table
from estimation.server.table.reducer import TableSettings


def with_hub(tmp_path: Path, body: Callable[[Hub], Awaitable[None]]) -> None:
    """Run ``body`` with a started hub on a fresh SQLite file, and stop the hub whatever happens."""

    async def main() -> None:
        # No cap on one player's open tables: the sweep's test opens dozens with one creator.
        hub = Hub(Settings(database_url=f"sqlite+aiosqlite:///{tmp_path / 'hub.db'}",
                           open_tables_per_player=0), Social)
        await hub.start()
        try:
            await body(hub)
        finally:
            await hub.stop()

    asyncio.run(main())


class LoopTurns:
    """Counts the turns of the event loop: a task that yields and counts, forever."""

    def __init__(self) -> None:
        self.count = 0
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        self._task = asyncio.create_task(self._tick())
        await asyncio.sleep(0)

    async def _tick(self) -> None:
        while True:
            await asyncio.sleep(0)
            self.count += 1

    def stop(self) -> None:
        assert self._task is not None
        self._task.cancel()


def test_sqlite_transactions_run_within_one_turn_of_the_loop(tmp_path: Path) -> None:
    async def body(hub: Hub) -> None:
        turns = LoopTurns()
        await turns.start()
        async with hub.session() as db:
            # A whole write transaction, then a read: no other task gets a turn in between. (Closing
            # the session does yield: SQLAlchemy shields the close in a task of its own.)
            before = turns.count
            async with db.begin():
                await db.execute(text("CREATE TABLE IF NOT EXISTS probe (n INTEGER)"))
                await db.execute(text("INSERT INTO probe VALUES (1), (2), (3)"))
            total = await db.scalar(text("SELECT sum(n) FROM probe"))
            assert turns.count == before
        assert total == 6
        turns.stop()

    with_hub(tmp_path, body)


def test_a_tables_own_transactions_commit_and_publish_in_the_turn_that_made_them(tmp_path: Path) -> None:
    """Joins, the start and a game's end (here an egyptian leaver's, before any round: no history rows) are
    transactions of the table's own: on SQLite they must not wait for the loop even once, because under load
    every turn is 30-50 ms that the table's players wait (``eager_future`` and the session closed in
    place)."""

    async def body(hub: Hub) -> None:
        turns = LoopTurns()
        await turns.start()
        async with hub.session() as db, db.begin():
            players = [await auth.create_guest(db, f"P{i}") for i in range(4)]
        runtime = await hub.create_table(players[0].id, TableSettings("egyptian", turn_seconds=0))
        before = turns.count
        for i, player in enumerate(players):
            await runtime.join(player.id, player.name, True, i, False, None)
        assert runtime.status == "playing" and runtime.version == 4
        await runtime.leave(players[2].id)  # leaving ends an egyptian match: the finishing transaction
        assert turns.count == before
        assert runtime.status == "finished" and runtime.version == 5
        assert runtime.buffer[-1][1][-1]["kind"] == "over"
        async with hub.session() as db:
            row = await db.get(Table, runtime.id)
            results = (await db.scalars(select(Result).where(Result.table_id == runtime.id))).all()
        assert row is not None and (row.status, row.version, row.paid_out) == ("finished", 5, True)
        assert results == []  # left before its first round was scored: counts for nobody (issue 25, B6)
        # the creation and each change took the writer's turn (never waiting: no tick)
        assert hub.journal is not None and hub.journal.turns.count == 6
        turns.stop()

    with_hub(tmp_path, body)


def test_the_sweep_frees_finished_tables_nobody_watches(tmp_path: Path) -> None:
    async def body(hub: Hub) -> None:
        async with hub.session() as db, db.begin():
            creator = (await auth.create_guest(db, "Sweeper")).id
        count = 2 * EVICT_PER_TURN + 3
        runtimes = [await hub.create_table(creator, TableSettings("koutchina", "micro", turn_seconds=0))
                    for _ in range(count)]
        watched, still_open = runtimes[0], runtimes[1]
        for r in runtimes[2:]:
            r.status = "finished"
        watched.status = "finished"
        watched.conns.add(object())  # type: ignore[arg-type]  # somebody is still looking at it
        await hub.sweep()
        assert set(hub.runtimes) == {watched.id, still_open.id}
        async with hub.session() as db:  # freeing memory deletes nothing
            stored = (await db.scalars(select(Table.id))).all()
        assert len(stored) == count
        watched.conns.clear()

    with_hub(tmp_path, body)


def test_sqlite_checkpoints_run_in_the_background_counting_every_commit(tmp_path: Path) -> None:
    async def body(hub: Hub) -> None:
        writer = hub.journal._sqlite
        assert writer is not None
        writer.CHECKPOINT_ROWS = 5  # type: ignore[misc]
        async with hub.session() as db:
            # No connection of this process checkpoints by itself at a commit (on the loop's thread).
            assert await db.scalar(text("PRAGMA wal_autocheckpoint")) == 0
        if writer.checkpoint is not None:  # one started by the hub's own start-up commits
            await writer.checkpoint
            await asyncio.sleep(0)  # its done callback
        writer.since_checkpoint = 0
        before = writer.checkpoints
        for name in "abcd":  # lobby transactions, no journal rows: they count all the same
            async with hub.session() as db, db.begin():
                await auth.create_guest(db, name)
        assert writer.checkpoint is None and writer.since_checkpoint == 4
        async with hub.session() as db, db.begin():  # the fifth commit starts one (on its thread)
            await auth.create_guest(db, "e")
        # The session's close turns the loop, so the checkpoint may be over already: wait for the count.
        for _ in range(500):
            if writer.checkpoints > before:
                break
            await asyncio.sleep(0.01)
        assert writer.checkpoints == before + 1 and writer.since_checkpoint == 0

    with_hub(tmp_path, body)


def test_sqlite_wal_stays_near_its_limit_while_the_tables_write_without_a_pause(tmp_path: Path) -> None:
    """Background checkpoints never copy the whole WAL while the journal keeps writing (each copies what
    was there when it began; more has come by its end), and SQLite starts the file again only when a
    writer begins after a complete copy: the file grew for as long as the server wrote (7.4 GB in 11
    minutes of bench/churn.py). Over ``WAL_LIMIT`` the journal pauses for one checkpoint, and the file is
    cut back to the limit when it starts again."""
    from estimation.server.table.journal import JournalRow

    limit = 256 * 1024

    async def body(hub: Hub) -> None:
        writer = hub.journal._sqlite
        assert writer is not None
        writer.WAL_LIMIT = limit  # type: ignore[misc]
        writer.SETTLE_EVERY = 0.0  # type: ignore[misc]  # look after every batch (the server: every 5 s)
        writer.CHECKPOINT_ROWS = 40  # type: ignore[misc]
        async with hub.session() as db, db.begin():
            creator = (await auth.create_guest(db, "Writer")).id
        tables = [(await hub.create_table(creator, TableSettings("koutchina", "micro", turn_seconds=0))).id
                  for _ in range(3)]
        largest = 0

        async def table_writes(table_id: int, start: int) -> None:
            nonlocal largest
            for version in range(start, start + 400):  # like an action a table, one after another
                await hub.journal.submit(JournalRow(table_id, version, 0, f"w{version}", "x", "." * 1500))
                largest = max(largest, writer.wal_bytes())

        await asyncio.gather(*(table_writes(t, 1000 * (i + 1)) for i, t in enumerate(tables * 8)))
        assert hub.journal.stats()["journal_wal_settlings"] > 0
        # About 50 MB of frames went through the WAL (all of it stayed there before the fix); the file
        # stayed within a few times its limit.
        assert largest < 4 * limit, largest

    with_hub(tmp_path, body)


def test_the_journal_reports_its_longest_and_its_slow_batches(tmp_path: Path,
                                                              caplog: pytest.LogCaptureFixture) -> None:
    """Every plain action that arrives while a batch is written waits for it: /api/health shows the
    longest batch and counts those over ``SLOW_BATCH``, and the log says when one happened."""
    from estimation.server.table.journal import SLOW_BATCH, JournalRow

    async def body(hub: Hub) -> None:
        journal = hub.journal
        pauses = [SLOW_BATCH * 1.5, 0.0]

        async def write(rows: list[JournalRow]) -> None:  # stands in for the database: only its time
            await asyncio.sleep(pauses.pop(0))

        journal._write = write  # type: ignore[method-assign]
        before = journal.stats()
        for version in (1, 2):
            await journal.submit(JournalRow(1, version, 0, f"a{version}", "x", "[]"))
        after = journal.stats()
        assert after["journal_batches"] - before["journal_batches"] == 2
        assert after["journal_slow_batches"] - before["journal_slow_batches"] == 1
        assert after["journal_write_max_ms"] >= 1000 * SLOW_BATCH * 1.5

    caplog.set_level(logging.WARNING, logger="estimation.server")
    with_hub(tmp_path, body)
    slow = [r.getMessage() for r in caplog.records if "journal batch" in r.getMessage()]
    assert len(slow) == 1 and slow[0].startswith("journal batch of 1 rows took ")


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
def test_the_sql_store_commits_a_change_only_at_the_version_it_started_from(
        kind: str, database_url_factory: Callable[[str], str]) -> None:
    """A second commit from the same version (what a second owner of the table would write) is refused with
    ``StaleVersion``, through the journal (a plain action) and through a transaction of the table's own, on
    both databases; the first one's row stays."""
    from estimation.server.table.reducer import Act, BotAct, Leave, reduce
    from estimation.server.table.store import Change, StaleVersion

    url = database_url_factory(kind)

    async def main() -> None:
        hub = Hub(Settings(database_url=url, bot_delay=3600.0), Social)
        await hub.start()
        try:
            async with hub.session() as db, db.begin():
                player = await auth.create_guest(db, "Vera")
            runtime = await hub.create_table(player.id, TableSettings(
                "koutchina", "micro", bot_seats=(1, 2, 3), turn_seconds=0))
            await runtime.join(player.id, player.name, True, None, False, None)
            async with runtime.lock:
                before = runtime.state()
                game = before.game
                assert game is not None and game.to_move is not None
                seat = game.to_move
                text = game.legal_actions()[0].text
                after, events = reduce(before, Act(seat, text) if seat == 0 else BotAct(seat, text))
                change = Change(runtime.id, before, after, events, seat, None, None)
                assert change.plain
                await hub.store.commit(change)
                with pytest.raises(StaleVersion):
                    await hub.store.commit(change)  # the journal: the events row (table, version) is taken
                left, left_events = reduce(before, Leave(player.id))
                own = Change(runtime.id, before, left, left_events)
                assert not own.plain
                with pytest.raises(StaleVersion):
                    await hub.store.commit(own)  # its own transaction: UPDATE ... WHERE version = before's
            stored = await hub.store.load(runtime.id, 4)
            assert stored is not None and stored.state.version == after.version
            assert stored.recent[-1][4] == text and not stored.state.seats[0].left
        finally:
            await hub.stop()

    logging.getLogger("estimation.server").setLevel(logging.CRITICAL)  # the refused row's logged failure
    try:
        asyncio.run(main())
    finally:
        logging.getLogger("estimation.server").setLevel(logging.NOTSET)


def test_the_lobby_shows_a_table_read_from_the_store_as_one_held_in_memory(tmp_path: Path) -> None:
    """The public table object is built once (``reducer.public_table``): the lobby's entry for a table no
    process holds is the one it shows for a table in memory (its partners too), but for the clock."""
    from estimation.server.routes.lobby_socket import snapshot

    async def body(hub: Hub) -> None:
        async with hub.session() as db, db.begin():
            ann = await auth.create_guest(db, "Ann")
        runtime = await hub.create_table(ann.id, TableSettings("koutchina", "micro", bot_seats=(3,),
                                                               partners=True))
        await runtime.join(ann.id, ann.name, True, 0, False, None)
        held = next(e for e in await snapshot(hub) if e["id"] == runtime.id)
        hub.runtimes.pop(runtime.id)
        stored = next(e for e in await snapshot(hub) if e["id"] == runtime.id)
        assert stored == held and stored["partners"] is True
        assert stored["seats"][0]["name"] == "Ann" and stored["seats"][3]["bot"] is True

    with_hub(tmp_path, body)


class _Socket:
    """What a :class:`~estimation.server.table.connection.Connection` writes to: the frames, kept."""

    def __init__(self) -> None:
        self.frames: list[str] = []
        self.client = None

    async def send_text(self, text: str) -> None:
        self.frames.append(text)

    async def close(self, code: int = 1000) -> None:
        return None


def test_a_hello_that_waited_while_its_table_was_dropped_joins_the_table_served_now(tmp_path: Path) -> None:
    """The rolling restart's lost update: a socket's hello fetched the table, then waited for its lock while
    the worker handed the table over (or evicted it) and told its sockets ``moved``. Joined to that dropped
    runtime, the socket was welcomed and then heard nothing, ever. It must join the table as served now."""
    import json

    from estimation.server.routes.table_socket import Session

    async def body(hub: Hub) -> None:
        async with hub.session() as db, db.begin():
            creator = (await auth.create_guest(db, "Owner")).id
        table_id = (await hub.create_table(creator, TableSettings("koutchina", "micro", turn_seconds=0))).id
        dropped = hub.runtimes[table_id]
        socket = _Socket()
        session = Session(hub, socket, table_id)  # type: ignore[arg-type]
        async with dropped.lock:
            hello = asyncio.create_task(session.hello({"type": "hello"}))
            for _ in range(20):  # the hello reaches the lock and waits there
                await asyncio.sleep(0)
            assert not hello.done()
            hub._drop(dropped, 0)  # as a hand-over does, under the table's lock
        await hello
        served = hub.runtimes[table_id]
        assert served is not dropped and session.runtime is served
        assert session.conn in served.conns and session.conn not in dropped.conns
        welcome = json.loads(socket.frames[0])
        assert welcome["type"] == "welcome" and welcome["version"] == served.version
        assert session.link is not None
        session.link.detach()

    with_hub(tmp_path, body)
