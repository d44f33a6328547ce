"""SQLite inline: SQLAlchemy's engine runs on the standard library's sqlite3 connections, no aiosqlite
connection (nor its thread) is made, a rolled-back transaction leaves nothing, and statements never wait for
the loop."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from pathlib import Path

import aiosqlite
from sqlalchemy import text

from estimation.server.storage.database import make_engine, sessionmaker
from estimation.server.storage.sqlite_inline import AsyncSQLiteConnection


def test_the_engine_runs_on_inline_connections_with_no_thread(tmp_path: Path) -> None:
    async def go() -> None:
        engine = make_engine(f"sqlite+aiosqlite:///{tmp_path / 'x.db'}")
        before = set(threading.enumerate())
        session = sessionmaker(engine)
        async with session() as db, db.begin():
            await db.execute(text("CREATE TABLE t (a INTEGER PRIMARY KEY, b TEXT)"))
            await db.execute(text("INSERT INTO t (b) VALUES (:b)"), [{"b": "x"}, {"b": "y"}])
            driver = (await (await db.connection()).get_raw_connection()).driver_connection
            assert isinstance(driver, AsyncSQLiteConnection) and isinstance(driver.raw, sqlite3.Connection)
            assert engine.dialect.driver == "inline" and engine.dialect.is_async
            assert not isinstance(driver, aiosqlite.Connection)
        async with session() as db:
            try:
                async with db.begin():
                    await db.execute(text("INSERT INTO t (b) VALUES ('z')"))
                    raise RuntimeError("rolled back")
            except RuntimeError:
                pass
            assert (await db.execute(text("SELECT count(*) FROM t"))).scalar() == 2
            rows = (await db.execute(text("SELECT b FROM t ORDER BY a"))).scalars().all()
            assert list(rows) == ["x", "y"]
        # Threads other tests left may end meanwhile; none may start.
        assert set(threading.enumerate()) - before == set()
        await engine.dispose()

    asyncio.run(go())
