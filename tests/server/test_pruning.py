"""Nothing grows forever: a finished table's journal, old chat and dead workers' rows are pruned, while a
table in progress, a finished game's record and a reported line that is not handled yet stay."""

from __future__ import annotations

import asyncio
import datetime as dt
import random
import time
from typing import Any

import httpx
import pytest
from server_helpers import Api, Player, ServerProcess, execute, query, run
from sqlalchemy.ext.asyncio import create_async_engine

from estimation.record import load_record
from estimation.server.config import Settings
from estimation.server.storage.database import sessionmaker
from estimation.server.storage.pruning import prune


def _events(url: str, table_id: int) -> int:
    return int(query(url, "SELECT count(*) FROM events WHERE table_id = :t", t=table_id)[0][0])


async def _play(server: ServerProcess, tid: int, token: str, rng: random.Random,
                stop_after: int | None) -> None:
    player = Player(server, tid, token)
    await player.connect()
    await player.play_to_end(rng, stop_after=stop_after)
    await player.close()


def _finished_and_running(server: ServerProcess, api: Api) -> tuple[int, int]:
    rng = random.Random(3)
    done = api.create_table(bot_seats=[1, 2, 3], length="micro")["id"]
    api.join(done, seat=0)
    run(_play(server, done, api.token, rng, None))
    other = Api.register(server)
    going = other.create_table(bot_seats=[1, 2, 3], length="mini")["id"]
    other.join(going, seat=0)
    run(_play(server, going, other.token, rng, 2))
    return done, going


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
def test_prune_keeps_what_is_needed(kind: str, database_url_factory) -> None:  # type: ignore[no-untyped-def]
    url = database_url_factory(kind)
    server = ServerProcess(url, name=f"prune-{kind}", env={"ESTIMATION_PRUNE_SECONDS": "0"})
    server.start()
    try:
        api = Api.register(server)
        done, going = _finished_and_running(server, api)
        assert _events(url, done) > 0 and _events(url, going) > 0
        old = dt.datetime.now(dt.UTC).replace(tzinfo=None) - dt.timedelta(days=400)
        account = api.id
        for n, when in enumerate((old, old, old, dt.datetime.now(dt.UTC).replace(tzinfo=None))):
            execute(url, "INSERT INTO chat_messages (id, table_id, account_id, seat, channel, text, removed, "
                        "created_at) VALUES (:id, :t, :a, 0, 'table', :x, false, :c)",
                   id=1000 + n, t=done, a=account, x=f"line {n}", c=when)
        execute(url, "INSERT INTO chat_reports (id, message_id, reporter_id, reason, resolved, created_at) "
                    "VALUES (1, 1001, :a, 'open', false, :c), (2, 1002, :a, 'handled', true, :c)",
               a=account, c=old)

        async def once() -> Any:
            engine = create_async_engine(url)
            try:
                return await prune(sessionmaker(engine), Settings(database_url=url, journal_keep_seconds=0))
            finally:
                await engine.dispose()

        pruned = asyncio.run(once())
        assert pruned.events > 0 and pruned.chat_messages == 2 and pruned.chat_reports == 1
        assert _events(url, done) == 0, "the finished table's journal is gone: its record is final"
        assert _events(url, going) > 0, "a table in progress keeps its journal"
        left = sorted(r[0] for r in query(url, "SELECT id FROM chat_messages"))
        assert left == [1001, 1003], "the line with an open report and the new line stay"
        assert [r[0] for r in query(url, "SELECT id FROM chat_reports")] == [1]
        # The record still gives the whole game, and the running table still plays from its journal.
        record = httpx.get(f"{server.base}/api/tables/{done}/record", headers=api.headers(), timeout=30)
        assert record.status_code == 200, record.text
        assert load_record(record.json()).is_over
        again = asyncio.run(once())
        assert again.events == 0 and again.chat_messages == 0, "a second pass finds nothing more"
    finally:
        server.stop()
    # The server prunes on its own schedule, and a table in progress survives a restart after it.
    server = ServerProcess(url, name=f"prune2-{kind}", env={"ESTIMATION_PRUNE_SECONDS": "0.2",
                                                             "ESTIMATION_JOURNAL_KEEP_SECONDS": "0"})
    server.start()
    try:
        api = Api.register(server)
        finished, _ = _finished_and_running(server, api)
        deadline = time.monotonic() + 30
        while _events(url, finished) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert _events(url, finished) == 0
    finally:
        server.stop()
    server.start()
    try:
        async def resume() -> None:
            player = Player(server, going, None)
            snapshot = await player.connect()
            assert snapshot["version"] > 0
            await player.close()

        run(resume())
    finally:
        server.stop()


def test_a_backlog_pruned_on_sqlite_leaves_the_wal_file_small(tmp_path: Any) -> None:
    """A first pruning over many finished games (here 400: twenty batches) checkpoints each batch's
    deletions before the next (the journal's ``settle_wal``, as the server wires it), so SQLite starts its
    WAL file again from the beginning: the file stays near one batch's pages. Without it every batch was
    appended, and the file (which never shrinks) grew to the whole journal's size and more."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
    from pruning import copy_games  # the benchmark's copier: every row as the server wrote it

    from estimation.server.table.journal import Journal

    path = tmp_path / "backlog.db"
    url = f"sqlite+aiosqlite:///{path}"
    server = ServerProcess(url, name="backlog")
    server.start()
    try:
        api = Api.register(server)
        done = api.create_table(bot_seats=[1, 2, 3], length="micro")["id"]
        api.join(done, seat=0)
        run(_play(server, done, api.token, random.Random(5), None))
    finally:
        server.stop()
    execute(url, "UPDATE tables SET finished_at = :t", t=dt.datetime(2026, 1, 1))

    async def go() -> tuple[int, int, int]:
        engine = create_async_engine(url)
        try:
            games, _ = await copy_games(engine, 399)
            async with engine.connect() as conn:
                await conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
                journal_bytes = int((await conn.exec_driver_sql(
                    "SELECT sum(pgsize) FROM dbstat WHERE name LIKE '%events%'")).scalar_one())
            journal = Journal(engine, asyncio.Lock())
            journal.start()
            try:
                pruned = await prune(sessionmaker(engine), Settings(database_url=url, journal_keep_seconds=0),
                                     between=journal.settle_wal)
            finally:
                await journal.stop()
            assert pruned.events > 0 and games == 400
            return journal_bytes, path.with_name(path.name + "-wal").stat().st_size, pruned.events
        finally:
            await engine.dispose()

    journal_bytes, wal_bytes, events = asyncio.run(go())
    assert _events(url, done) == 0 and events >= 400 * 200
    assert wal_bytes < journal_bytes / 4, (wal_bytes, journal_bytes)
