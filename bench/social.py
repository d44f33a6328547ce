"""Issue 19's read paths at scale: a leaderboard page, a profile and a player's history over a million
finished seat-games, on SQLite and PostgreSQL.

    python bench/social.py --db sqlite --games 1000000 --requests 200 --json out.json
    python bench/social.py --db postgresql ...    # a throwaway cluster from /usr/lib/postgresql/*/bin

Seeds a fresh database (through the server's own migrations) with --players accounts and --games history
rows (``results``), spread over 60 days and four rulesets, then times, in this process, through the
server's own functions and a fresh session each (as a request does):

* ``leaderboard_sql``: one page of a leaderboard straight from the database (the SQL, no kept ranking), by
  win rate and by level points;
* ``leaderboard_page``: a page as the route serves it once its ranking is kept (see
  ``leaderboard.Boards``: computed by the same SQL without a limit, kept a minute, refreshed in the
  background); ``leaderboard_rankings_computed_s`` is what computing both rankings took;
* ``profile``: the profile of a random player who played (stats, per-ruleset counts, the ten latest games);
* ``history``: the history page (20 games) of a random player who played.

p50/p99/max in milliseconds, the query plans, and a CPU canary before and after (wall time over CPU time
of a fixed piece of work: 1.0 on a quiet machine). Loopback only; every
phase is bounded by --requests.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import itertools
import json
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from sqlalchemy import DateTime, bindparam, insert, select, text

from estimation.server.cluster.pgcluster import ThrowawayCluster, create_database
from estimation.server.social.leaderboard import Boards, leaderboard, reader_engine, window_query
from estimation.server.storage.database import make_engine, migrate, sessionmaker
from estimation.server.storage.history import games_of, outcomes_of, stats_of
from estimation.server.storage.models import Account, Result, Table, utcnow

RULESETS = ("egyptian", "koutchina", "classic", "egyptian")  # egyptian twice: the busiest ruleset
BATCH = 20_000


async def seed(url: str, players: int, games: int, rng: random.Random) -> float:
    engine = make_engine(url)
    await migrate(engine)
    started = time.perf_counter()
    now = utcnow()
    async with engine.begin() as conn:
        for first in range(0, players, BATCH):
            await conn.execute(insert(Account), [
                {"id": i + 1, "name": f"P{i}", "login": f"p{i}", "password_hash": None, "is_guest": False,
                 "balance": 0, "created_at": now, "moderator": False, "silenced": False}
                for i in range(first, min(players, first + BATCH))])
        tables = games // 4
        for first in range(0, tables, BATCH):
            await conn.execute(insert(Table), [
                {"id": t + 1, "ruleset": RULESETS[t % 4], "length": "standard", "stake": 0, "private": False,
                 "bot_level": "random", "turn_seconds": 0, "status": "finished", "version": 1, "pot": 0,
                 "paid_out": True, "created_by": 1, "created_at": now}
                for t in range(first, min(tables, first + BATCH))])
        outcomes = ("win", "draw", "loss", "loss", "loss", "loss")
        # How often each player plays: Zipf-like (weight 1/sqrt(rank)): the busiest player has about 0.35%
        # of all games (3,500 of a million, 60 a day), the median one about 35.
        weights = list(itertools.accumulate(1 / (k ** 0.5) for k in range(1, players + 1)))
        ids = range(1, players + 1)
        for first in range(0, tables * 4, BATCH):
            rows = []
            for i in range(first, min(tables * 4, first + BATCH)):
                t = i // 4
                left = rng.random() < 0.03
                outcome = "loss" if left else rng.choice(outcomes)
                rows.append({"table_id": t + 1, "seat": i % 4,
                             "account_id": rng.choices(ids, cum_weights=weights)[0],
                             "ruleset": RULESETS[t % 4], "length": "standard", "total": rng.randint(-40, 200),
                             "place": 1 if outcome != "loss" else 3, "outcome": outcome, "left": left,
                             "rounds": 18, "made": rng.randint(0, 18), "coins": 0,
                             "finished_at": now - dt.timedelta(seconds=rng.uniform(0, 60 * 86400))})
            await conn.execute(insert(Result), rows)
        if engine.dialect.name == "postgresql":  # as autovacuum would; the server never ANALYZEs SQLite, and
            await conn.execute(text("ANALYZE"))  # SQLite's statistics make it skip-scan the wrong index
    await engine.dispose()
    return time.perf_counter() - started


def canary() -> dict[str, float]:
    """A fixed piece of pure-Python work: its wall time over its CPU time says how much of a core this
    process got (1.0 on a quiet machine; 3.0: a third of a core)."""
    wall, cpu = time.perf_counter(), time.process_time()
    sum(i * i for i in range(2_000_000))
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return {"wall_s": round(wall, 3), "cpu_s": round(cpu, 3), "wall_over_cpu": round(wall / cpu, 2)}


def summary(samples: list[float]) -> dict[str, float]:
    ms = sorted(s * 1000 for s in samples)
    return {"n": len(ms), "p50": round(statistics.median(ms), 2),
            "p99": round(ms[min(len(ms) - 1, int(len(ms) * 0.99))], 2), "max": round(ms[-1], 2)}


async def measure(url: str, players: int, requests: int, rng: random.Random) -> dict[str, Any]:
    engine = make_engine(url)
    session = sessionmaker(engine)
    reader = reader_engine(engine)
    out: dict[str, Any] = {"canary_before": canary()}
    async with session() as db:  # profiles and histories of players who played, not of empty accounts
        played = list((await db.scalars(select(Result.account_id).distinct())).all())

    async def timed(name: str, n: int, call: Any) -> None:
        samples = []
        for _ in range(n):
            started = time.perf_counter()
            await call()
            samples.append(time.perf_counter() - started)
        out[name] = summary(samples)

    for by in ("winrate", "level"):
        async def sql_page(by: str = by) -> None:
            async with session() as db:
                await leaderboard(db, "egyptian", by, 50, rng.randrange(0, 200))  # type: ignore[arg-type]

        await timed(f"leaderboard_sql_{by}", max(5, requests // 20), sql_page)
    boards = Boards(sessionmaker(reader), 600.0)
    started = time.perf_counter()
    for by in ("winrate", "level"):  # what a page costs once a ranking is kept (computing one: above)
        await boards.page("egyptian", by, 50, 0)  # type: ignore[arg-type]
    out["leaderboard_rankings_computed_s"] = round(time.perf_counter() - started, 2)

    async def kept_page() -> None:
        await boards.page("egyptian", rng.choice(("winrate", "level")), 50, rng.randrange(0, 500))  # type: ignore[arg-type]

    await timed("leaderboard_page", requests, kept_page)

    async def profile() -> None:
        player = rng.choice(played)
        async with session() as db:
            outcomes = await outcomes_of(db, player)
            await stats_of(db, player, outcomes=outcomes)
            await games_of(db, player, 10, 0)

    await timed("profile", requests, profile)

    async def history() -> None:
        async with session() as db:
            await games_of(db, rng.choice(played), 20, 0)

    await timed("history", requests, history)
    since = utcnow() - dt.timedelta(days=30)
    async with engine.connect() as conn:
        explain = "EXPLAIN QUERY PLAN" if engine.dialect.name == "sqlite" else "EXPLAIN"
        plans = {}
        ranking = str(window_query("egyptian", since, "winrate").compile(
            engine.sync_engine, compile_kwargs={"literal_binds": True}))
        for name, sql in (
                ("leaderboard", ranking),
                ("profile", "SELECT ruleset, outcome, count(*), sum(total), sum(rounds), sum(made) "
                            "FROM results WHERE account_id = 7 AND EXISTS (SELECT 1 FROM tables WHERE "
                            "tables.id = results.table_id AND private IS false) GROUP BY ruleset, outcome"),
                ("history", "SELECT * FROM results WHERE account_id = 7 ORDER BY finished_at DESC, table_id "
                            "DESC LIMIT 20")):
            rows = (await conn.execute(text(f"{explain} {sql}"))).all()
            plans[name] = [str(r[-1]) for r in rows]
        out["plans"] = plans
        out["window_rows_egyptian"] = int((await conn.execute(text(
            "SELECT count(*) FROM results WHERE ruleset = 'egyptian' AND finished_at >= :since")
            .bindparams(bindparam("since", type_=DateTime)), {"since": since})).scalar() or 0)
    out["canary_after"] = canary()
    if reader is not engine:
        await reader.dispose()
    await engine.dispose()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", choices=("sqlite", "postgresql"), default="sqlite")
    parser.add_argument("--games", type=int, default=1_000_000, help="Finished seat-games (history rows).")
    parser.add_argument("--players", type=int, default=20_000)
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    rng = random.Random(19)
    cluster = None
    if args.db == "sqlite":
        path = Path(f"/tmp/estimation-bench-social-{time.time_ns()}.db")
        url = f"sqlite+aiosqlite:///{path}"
    else:
        cluster = ThrowawayCluster(durable=False)
        url = create_database(cluster.start())
    try:
        seconds = asyncio.run(seed(url, args.players, args.games, rng))
        print(f"seeded {args.games} seat-games for {args.players} players in {seconds:.0f} s",
              file=sys.stderr)
        result = {"db": args.db, "games": args.games, "players": args.players, "seed_seconds": round(seconds),
                  **asyncio.run(measure(url, args.players, args.requests, rng))}
    finally:
        if cluster is not None:
            cluster.stop()
        elif path.exists():
            for suffix in ("", "-wal", "-shm"):
                Path(f"{path}{suffix}").unlink(missing_ok=True)
    print(json.dumps(result, indent=1))
    if args.json:
        args.json.write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
