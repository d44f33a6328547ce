"""Nothing grows forever (issue 25, point 1): the database's size after 100,000 finished games, before and
after the server's pruning, on SQLite and PostgreSQL; figures in docs/performance.md.

    python bench/pruning.py --db sqlite --games 100000
    python bench/pruning.py --db postgresql --games 100000   # a throwaway cluster from /usr/lib/postgresql

What a game leaves is made by the real server: an ``estimation serve`` process (fresh database, bots with
no delay) plays --templates games to the end, each at a table whose four seats are bots (created over REST,
then filled with bots), so every row (the table with its final record, its seats, the journal of every
version) is the one the server writes. Those rows are then copied at the database level, with new table
ids, until there are --games finished games: the same sizes, without playing 100,000 games.

Then, in this process, the server's own pruning (``storage.pruning.prune``, with the journal kept 0 s
after a game's end) runs over them, timed. Sizes, before and after:

* the whole database and each relation (SQLite: ``dbstat``, pages in use per table and index; PostgreSQL:
  ``pg_total_relation_size`` and ``pg_indexes_size``);
* the records' own bytes (``sum(length(record))``), which is what must stay.

SQLite keeps a deleted row's pages in its file for the next rows (``freelist``); ``VACUUM`` gives them back
to the disk, and the report shows the file both ways. PostgreSQL's plain ``VACUUM`` makes the pages
reusable, ``VACUUM FULL`` shrinks the files: the report shows the relations after each.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from estimation.server.cluster.pgcluster import ThrowawayCluster, create_database
from estimation.server.cluster.ports import free_port
from estimation.server.config import Settings
from estimation.server.storage.database import make_engine, migrate, sessionmaker
from estimation.server.storage.pruning import prune
from estimation.server.table.journal import Journal

#: The relations a finished bot game writes rows into, and the column that holds the table's id.
COPIED = {"tables": "id", "seats": "table_id", "events": "table_id"}
#: Copies made by one statement (each copy is every template's rows once).
COPIES_PER_STATEMENT = 50


def play_templates(url: str, count: int, ruleset: str, length: str, workdir: Path) -> float:
    """``count`` bot games played to the end by a real server on ``url``; the seconds it took."""
    port = free_port()
    env = {**os.environ, "DATABASE_URL": url, "ESTIMATION_BOT_DELAY": "0",
           "ESTIMATION_CREATE_PER_MINUTE": "0", "ESTIMATION_REST_RATE_PER_SECOND": "0",
           "ESTIMATION_OPEN_TABLES_PER_PLAYER": "1000",
           "ESTIMATION_PRUNE_SECONDS": "86400"}  # the server itself must not prune what we measure
    log = open(workdir / "server.log", "ab")  # noqa: SIM115
    proc = subprocess.Popen([sys.executable, "-m", "estimation", "serve", "--port", str(port),
                             "--log-level", "warning"], env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    began = time.monotonic()
    try:
        with httpx.Client(base_url=base, timeout=60) as http:
            deadline = time.monotonic() + 60
            while True:
                try:
                    if http.get("/api/health").status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise SystemExit("the server did not start: see " + str(workdir / "server.log"))
                time.sleep(0.2)
            token = http.post("/api/guests", json={"name": "Bench"}).json()["token"]
            auth = {"Authorization": f"Bearer {token}"}
            ids = []
            for _ in range(count):
                r = http.post("/api/tables", json={"ruleset": ruleset, "length": length, "turn_seconds": 0},
                              headers=auth)
                assert r.status_code == 201, r.text
                ids.append(r.json()["id"])
                r = http.post(f"/api/tables/{ids[-1]}/bots", headers=auth)
                assert r.status_code < 300, r.text
            waiting = set(ids)
            deadline = time.monotonic() + 60 + 10 * count
            while waiting:
                if time.monotonic() > deadline:
                    raise SystemExit(f"{len(waiting)} template games did not finish")
                for table_id in sorted(waiting):
                    if http.get(f"/api/tables/{table_id}").json()["status"] == "finished":
                        waiting.discard(table_id)
                time.sleep(0.5)
    finally:
        proc.terminate()
        proc.wait(30)
    return time.monotonic() - began


async def copy_games(engine: AsyncEngine, copies: int) -> tuple[int, float]:
    """Copy every finished template game ``copies`` times with new table ids; the games now, and seconds."""
    began = time.monotonic()
    async with engine.begin() as conn:
        stride = int((await conn.execute(text("SELECT max(id) FROM tables"))).scalar_one())
        listing = ("SELECT name FROM pragma_table_info(:t)" if engine.dialect.name == "sqlite" else
                   "SELECT column_name FROM information_schema.columns WHERE table_name = :t "
                   "AND table_schema = current_schema() ORDER BY ordinal_position")
        columns = {name: [c for (c,) in (await conn.execute(text(listing), {"t": name}))] for name in COPIED}
        await conn.execute(text("CREATE TABLE bench_copies (n INTEGER PRIMARY KEY)"))
    for first in range(1, copies + 1, COPIES_PER_STATEMENT):
        last = min(copies, first + COPIES_PER_STATEMENT - 1)
        async with engine.begin() as conn:
            await conn.execute(text("DELETE FROM bench_copies"))
            await conn.execute(text("INSERT INTO bench_copies (n) VALUES (:n)"),
                               [{"n": n} for n in range(first, last + 1)])
            for name, key in COPIED.items():
                cols = columns[name]
                quoted = [f'"{c}"' for c in cols]  # a column may be a keyword ("left")
                picked = ", ".join(f"x.{q} + k.n * {stride}" if c == key else f"x.{q}"
                                   for c, q in zip(cols, quoted, strict=True))
                # Only the templates (ids up to the stride) are copied, every one finished.
                await conn.execute(text(
                    f"INSERT INTO {name} ({', '.join(quoted)}) SELECT {picked} FROM {name} x CROSS JOIN "
                    f"bench_copies k WHERE x.{key} <= {stride}"))
    async with engine.begin() as conn:
        await conn.execute(text("DROP TABLE bench_copies"))
        games = int((await conn.execute(text("SELECT count(*) FROM tables WHERE status = 'finished'")))
                    .scalar_one())
    return games, time.monotonic() - began


async def sizes(engine: AsyncEngine, path: Path | None) -> dict[str, Any]:
    """The database's size, each relation's, and the records' bytes."""
    if engine.dialect.name == "sqlite":  # the file's size with what the write-ahead log still holds in it
        async with engine.connect() as conn:
            await conn.execute(text("PRAGMA wal_checkpoint(TRUNCATE)"))
    async with engine.connect() as conn:
        records = int((await conn.execute(text(
            "SELECT coalesce(sum(length(record)), 0) FROM tables"))).scalar_one())
        counts = {name: int((await conn.execute(text(f"SELECT count(*) FROM {name}"))).scalar_one())
                  for name in COPIED}
        if engine.dialect.name == "sqlite":
            used = {str(n): int(b) for n, b in (await conn.execute(text(
                "SELECT name, sum(pgsize) FROM dbstat GROUP BY name"))).all()}
            page_size = int((await conn.execute(text("PRAGMA page_size"))).scalar_one())
            pages = int((await conn.execute(text("PRAGMA page_count"))).scalar_one())
            free = int((await conn.execute(text("PRAGMA freelist_count"))).scalar_one())
            assert path is not None
            return {"records": records, "rows": counts, "relations": used, "in_use": sum(used.values()),
                    "file": path.stat().st_size, "free_pages_bytes": free * page_size,
                    "pages_bytes": pages * page_size}
        rels = {str(n): int(b) for n, b in (await conn.execute(text(
            "SELECT c.relname, pg_relation_size(c.oid) FROM pg_class c JOIN pg_namespace s ON "
            "s.oid = c.relnamespace WHERE s.nspname = 'public' AND c.relkind IN ('r', 'i', 't')"))).all()}
        totals = {name: int((await conn.execute(text(f"SELECT pg_total_relation_size('{name}')")))
                            .scalar_one()) for name in COPIED}
        indexes = {name: int((await conn.execute(text(f"SELECT pg_indexes_size('{name}')"))).scalar_one())
                   for name in COPIED}
        database = int((await conn.execute(text("SELECT pg_database_size(current_database())"))).scalar_one())
        return {"records": records, "rows": counts, "relations": rels, "totals": totals, "indexes": indexes,
                "in_use": sum(totals.values()), "database": database}


async def vacuum(engine: AsyncEngine, full: bool) -> float:
    began = time.monotonic()
    async with engine.connect() as conn:
        conn = await conn.execution_options(isolation_level="AUTOCOMMIT")
        if engine.dialect.name == "sqlite":
            await conn.execute(text("VACUUM"))
        else:
            await conn.execute(text("VACUUM FULL" if full else "VACUUM"))
    return time.monotonic() - began


def mb(n: int) -> str:
    return f"{n / 1e6:,.1f} MB"


def show(label: str, s: dict[str, Any]) -> None:
    rows = ", ".join(f"{k} {v:,}" for k, v in s["rows"].items())
    print(f"{label}: in use {mb(s['in_use'])} (records {mb(s['records'])}); rows: {rows}")
    if "file" in s:
        print(f"    file {mb(s['file'])}, of it free pages {mb(s['free_pages_bytes'])}")
        big = sorted(s["relations"].items(), key=lambda kv: -kv[1])[:8]
    else:
        print(f"    database {mb(s['database'])}; " + ", ".join(
            f"{k} {mb(v)} (indexes {mb(s['indexes'][k])})" for k, v in s["totals"].items()))
        big = sorted(s["relations"].items(), key=lambda kv: -kv[1])[:8]
    print("    largest: " + ", ".join(f"{k} {mb(v)}" for k, v in big))


async def measure(url: str, path: Path | None, args: argparse.Namespace, played: float) -> dict[str, Any]:
    engine = make_engine(url)
    try:
        await migrate(engine)
        copies = args.games // args.templates - 1
        games, copied = await copy_games(engine, copies)
        print(f"{args.templates} template games played in {played:.1f} s; copied to {games:,} games in "
              f"{copied:.1f} s")
        before = await sizes(engine, path)
        show("before pruning", before)
        # As in the server: the journal's writer keeps the WAL checkpointed (SQLite) while the pruner runs.
        journal = Journal(engine, asyncio.Lock() if engine.dialect.name == "sqlite" else None)
        journal.start()
        began = time.monotonic()
        try:
            pruned = await prune(sessionmaker(engine), Settings(database_url=url, journal_keep_seconds=0),
                                 between=journal.settle_wal)
        finally:
            figures = journal.stats()
            await journal.stop()
        print("journal:", {k: v for k, v in figures.items() if "checkpoint" in k})
        took = time.monotonic() - began
        wal = path.with_name(path.name + "-wal") if path is not None else None
        if wal is not None and wal.exists():  # its high-water mark: SQLite reuses the file, never shrinks it
            print(f"the WAL file after pruning: {mb(wal.stat().st_size)}")

        print(f"pruned {pruned.events:,} journal rows in {took:.1f} s; the slowest batch's transaction "
              f"{1000 * pruned.slowest_batch:.0f} ms")
        after = await sizes(engine, path)
        show("after pruning", after)
        vacuumed = await vacuum(engine, full=False)
        after_vacuum = await sizes(engine, path)
        show(f"after VACUUM ({vacuumed:.1f} s)", after_vacuum)
        result = {"games": games, "templates": args.templates, "ruleset": args.ruleset, "length": args.length,
                  "played_s": played, "copied_s": copied, "prune_s": took, "pruned_events": pruned.events,
                  "slowest_batch_ms": 1000 * pruned.slowest_batch,
                  "before": before, "after": after, "after_vacuum": after_vacuum, "vacuum_s": vacuumed}
        if engine.dialect.name != "sqlite":
            full = await vacuum(engine, full=True)
            result["after_vacuum_full"] = compact = await sizes(engine, path)
            result["vacuum_full_s"] = full
            show(f"after VACUUM FULL ({full:.1f} s)", compact)
        final = result.get("after_vacuum_full", after_vacuum)
        print(f"after: {final['in_use'] / max(1, final['records']):.2f} x the records' bytes "
              f"(before: {before['in_use'] / max(1, before['records']):.2f} x)")
        return result
    finally:
        await engine.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", choices=("sqlite", "postgresql"), default="sqlite")
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--templates", type=int, default=40,
                        help="games played by the server (divides --games)")
    parser.add_argument("--ruleset", default="koutchina")
    parser.add_argument("--length", default="micro")
    parser.add_argument("--json", help="write the figures here")
    args = parser.parse_args()
    if args.games % args.templates:
        parser.error("--templates must divide --games")
    workdir = Path(tempfile.mkdtemp(prefix="estimation-bench-prune-"))
    pg: ThrowawayCluster | None = None
    path: Path | None = None
    try:
        if args.db == "sqlite":
            path = workdir / "estimation.db"
            url = f"sqlite+aiosqlite:///{path}"
        else:
            pg = ThrowawayCluster(durable=False, prefix="estimation-bench-pg-")
            url = create_database(pg.start(), prefix="bench_")
        played = play_templates(url, args.templates, args.ruleset, args.length, workdir)
        result = asyncio.run(measure(url, path, args, played))
        result["db"] = args.db
        if args.json:
            Path(args.json).write_text(json.dumps(result, indent=1))
    finally:
        if pg is not None:
            pg.stop()
        if path is not None:
            for leftover in workdir.glob("estimation.db*"):
                leftover.unlink()


if __name__ == "__main__":
    main()
