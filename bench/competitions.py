"""Competitions at scale (issue 23, point 5), built at the database level; figures in docs/performance.md.

    python bench/competitions.py --db sqlite [--entrants 1000] [--robot 10000] [--repeat 30]
    python bench/competitions.py --db postgresql ...     # a throwaway cluster from /usr/lib/postgresql/*/bin

A swiss of ENTRANTS (ceil(N/4) tables a stage, 3 stages, koutchina micro) is played by random bots through
the competition core (``estimation.competition.simulate``: the same boards, seating and records the server
makes), then written straight into a fresh database as the server stores it (accounts, the competition,
its entries, every table finished with its record, the competition's tables). A robot competition of
ROBOT entries is written the same way from 100 distinct robot games repeated (the timing does not depend
on the cards). Then, in this process, through the server's own code (``server.competitions``):

* **standings after a finished board**: the last table is set playing (its flag and status, as the server
  writes them) and read so, then set finished with its cached play and game forgotten, and the
  competition is read and scored as a ``competition`` push does (``read_field`` + ``scored`` +
  ``standing_rows`` of the pushed rows): p50/p99 over --repeat;
* **a traveller**: the route's own function for one page of a board's traveller (read, check what the
  viewer may see, the page's lines);
* **seating a stage**: a hub started on the database seats a swiss of ENTRANTS from its entries (stage 1:
  the core's draw, then each table made through the hub's table path and its entrants seated);
* **the export** of the whole swiss (``Field.export``: the core's ``build_export`` from the records).

The process runs under the server's own process tuning (``server/ops/tuning.py``: the collector's policy
and the switch interval, as ``estimation serve`` installs them; ``ESTIMATION_PROCESS_TUNING=0`` to leave
CPython's defaults), since a full collection over a big field is what a server's would be.

Each run is bounded: the simulation takes about 30 s for 1,000 entrants, the rest a few seconds each.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from sqlalchemy import update

from estimation.competition import board_seed, simulate
from estimation.server.competitions import field as fieldmod
from estimation.server.competitions import games
from estimation.server.competitions.reading import read_field
from estimation.server.competitions.seeding import seed_swiss
from estimation.server.competitions.service import PUSHED_ROWS, standing_rows
from estimation.server.config import Settings
from estimation.server.hub import Hub
from estimation.server.ops import tuning
from estimation.server.routes.competitions import TRAVELLER_PAGE, board_traveller
from estimation.server.social.service import Social
from estimation.server.storage.database import migrate
from estimation.server.storage.models import (
    Account,
    Competition,
    CompetitionEntry,
    CompetitionTable,
    Seat,
    Table,
    utcnow,
)


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def ms(xs: list[float]) -> str:
    return (f"p50 {1000 * statistics.median(xs):.1f} ms, p99 {1000 * pct(xs, 0.99):.1f} ms, "
            f"max {1000 * max(xs):.1f} ms")


async def write(hub: Hub, doc: dict[str, Any], kind: str, seed: int) -> int:
    """The export's competition as the server stores it; its id."""
    now = utcnow()
    async with hub.session() as db, db.begin():
        director = Account(name="Director", login=None, is_guest=True, balance=0, created_at=now)
        db.add(director)
        await db.flush()
        comp = Competition(name=doc["name"], kind=kind, ruleset=doc["ruleset"], length=doc["length"],
                           bot_level=doc["bot_level"], stages=len(doc["stages"]), instances=doc["instances"],
                           starts_at=now, window_end=now if kind == "robot" else None, entry_limit=0,
                           turn_seconds=0, private=False, invite_code=None, director_id=director.id,
                           status="finished", stage=len(doc["stages"]), seed=seed, created_at=now,
                           finished_at=now)
        db.add(comp)
        accounts = [Account(name=e["name"][:32], login=None, is_guest=True, balance=0, created_at=now)
                    for e in doc["entrants"]]
        db.add_all(accounts)
        await db.flush()
        entry_of: dict[int, int] = {}
        entries = []
        for n, (e, a) in enumerate(zip(doc["entrants"], accounts, strict=True), start=1):
            entries.append(CompetitionEntry(competition_id=comp.id, account_id=a.id, name=e["name"][:32],
                                            entry_no=n, instance=1, withdrawn=False, removed=False,
                                            created_at=now))
        db.add_all(entries)
        await db.flush()
        for e, row in zip(doc["entrants"], entries, strict=True):
            entry_of[e["id"]] = row.id
        account_of = {row.id: a.id for row, a in zip(entries, accounts, strict=True)}
        for stage in doc["stages"]:
            for t in stage["tables"]:
                seats = [None if s is None else entry_of[s] for s in t["seats"]]
                table = Table(ruleset=doc["ruleset"], length=doc["length"], stake=0, private=True,
                              invite_code=None, bot_level=doc["bot_level"], turn_seconds=0, partners=False,
                              status="finished", version=1, pot=0, paid_out=True,
                              record=json.dumps(t["record"], separators=(",", ":")), record_version=1,
                              created_by=director.id, created_at=now, finished_at=now,
                              competition_id=comp.id,
                              game_seed=board_seed(seed, stage["stage"], t["instance"]))
                db.add(table)
                await db.flush()
                db.add_all([Seat(table_id=table.id, seat=i, account_id=None if s is None else account_of[s],
                                 name=t["record"]["players"][i], is_bot=s is None, staked=False, away=False,
                                 left=False) for i, s in enumerate(seats)])
                db.add(CompetitionTable(table_id=table.id, competition_id=comp.id, stage=stage["stage"],
                                        instance=t["instance"], seats=json.dumps(seats), finished=True))
        return comp.id


async def set_finished(hub: Hub, table_id: int, finished: bool) -> None:
    """A table's flag and status as the server writes them while it plays and when it has finished."""
    async with hub.session() as db, db.begin():
        await db.execute(update(CompetitionTable).where(CompetitionTable.table_id == table_id)
                         .values(finished=finished))
        await db.execute(update(Table).where(Table.id == table_id)
                         .values(status="finished" if finished else "playing"))


async def standings_after_a_board(hub: Hub, cid: int, repeat: int) -> list[float]:
    found = await read_field(hub, cid)
    assert found is not None
    standing_rows(found, PUSHED_ROWS)  # warm: every table read once, as a running server has
    table = found.tables[-1]
    last, board = table.table_id, (table.stage, table.instance, found.rounds)
    times = []
    for _ in range(repeat):
        # That table is playing its last board (read as a table in play elsewhere), then has finished
        # it: its play is read again, and that board (only that one: the others' tables' scores on them
        # did not change) is matchpointed again.
        await set_finished(hub, last, False)
        found = await read_field(hub, cid)
        assert found is not None
        standing_rows(found, PUSHED_ROWS)
        await set_finished(hub, last, True)
        for key in [k for k in list(fieldmod.kept_plays._items) if k[0] == last]:
            fieldmod.kept_plays.pop(key)
        games.done.pop(last)
        games.finished.pop(last)
        group = fieldmod._groups.get((cid, *board[:2]))
        assert group is not None
        group.boards.pop(board[2], None)
        began = time.perf_counter()
        found = await read_field(hub, cid)
        assert found is not None
        standing_rows(found, PUSHED_ROWS)
        times.append(time.perf_counter() - began)
    return times


async def a_traveller(hub: Hub, cid: int, repeat: int) -> list[float]:
    """The route's own work for one page of a board's traveller (a viewer who may see it: the competition
    is over)."""
    times = []
    found = await read_field(hub, cid)
    assert found is not None
    for i in range(repeat):
        stage, rnd = 1 + i % found.comp.stages, 1 + i % found.rounds
        began = time.perf_counter()
        page = await board_traveller(cid, stage, rnd, hub, None, 1, None, TRAVELLER_PAGE, None)
        times.append(time.perf_counter() - began)
        assert page["tables"] and page["tables_total"] >= len(page["tables"])
    return times


async def seating(url: str, entrants: int) -> float:
    """A hub started on the database seats stage 1 of a swiss of ``entrants`` (bots off: the games wait)."""
    hub = Hub(Settings(database_url=url, bot_workers=1, open_tables_per_player=0, bot_delay=3600), Social)
    await hub.start()
    try:
        cid, director = await seed_swiss(hub.session, entrants, stages=3, seed=7, director="Seater",
                                         prefix="S")
        async with hub.session() as db:
            me = await db.get(Account, director.id)
        assert me is not None
        began = time.perf_counter()
        await hub.competitions.start_now(cid, me)
        took = time.perf_counter() - began
        found = await read_field(hub, cid)
        assert found is not None and len(found.stage_tables(1)) == -(-entrants // 4)
        return took
    finally:
        await hub.stop()


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--db", choices=("sqlite", "postgresql"), default="sqlite")
    parser.add_argument("--entrants", type=int, default=1000)
    parser.add_argument("--robot", type=int, default=10000)
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--robot-repeat", type=int, default=3)
    args = parser.parse_args()
    if os.environ.get("ESTIMATION_PROCESS_TUNING", "1") != "0":
        tuning.install()  # as `estimation serve` does
    cluster = None
    folder = tempfile.mkdtemp(prefix="bench-competitions-")
    from estimation.server.cluster.pgcluster import ThrowawayCluster, create_database
    if args.db == "postgresql":
        cluster = ThrowawayCluster(durable=False)
        base = cluster.start()

    async def fresh(name: str) -> str:
        if cluster is None:
            return f"sqlite+aiosqlite:///{folder}/{name}.db"
        return await asyncio.to_thread(create_database, base)  # it runs a loop of its own
    try:
        began = time.perf_counter()
        swiss = simulate(kind="swiss", entrants=args.entrants, ruleset="koutchina", length="micro",
                         level="random", seed=2026, stages=3)
        count = sum(len(s["tables"]) for s in swiss["stages"])
        print(f"simulated a swiss of {args.entrants} entrants ({count} tables) in "
              f"{time.perf_counter() - began:.1f} s", flush=True)
        robot = simulate(kind="robot", entrants=100, ruleset="koutchina", length="micro", level="random",
                         seed=2026)
        tables = robot["stages"][0]["tables"]
        robot["entrants"] = [{"id": i, "name": f"R{i}"} for i in range(1, args.robot + 1)]
        robot["stages"][0]["tables"] = [
            {**tables[i % len(tables)], "table": i + 1, "seats": [i + 1, None, None, None]}
            for i in range(args.robot)]
        url = await fresh("data")
        hub = Hub(Settings(database_url=url), Social)
        await migrate(hub.engine)
        began = time.perf_counter()
        swiss_id = await write(hub, swiss, "swiss", 2026)
        robot_id = await write(hub, robot, "robot", 2026)
        print(f"written at the database level in {time.perf_counter() - began:.1f} s", flush=True)
        for name, cid, n in (("swiss", swiss_id, args.repeat), ("robot", robot_id, args.robot_repeat)):
            print(f"{name}: standings after a finished board: "
                  f"{ms(await standings_after_a_board(hub, cid, n))}", flush=True)
            print(f"{name}: a traveller: {ms(await a_traveller(hub, cid, n))}", flush=True)
        began = time.perf_counter()
        found = await read_field(hub, swiss_id)
        assert found is not None
        await found.load_games(hub)
        doc = found.export()
        took = time.perf_counter() - began
        print(f"swiss: the export ({len(json.dumps(doc)) / 1e6:.1f} MB): {took:.2f} s", flush=True)
        await hub.engine.dispose()
        took = await seating(await fresh("seating"), args.entrants)
        print(f"seating a {args.entrants}-entrant stage: {took:.2f} s", flush=True)
    finally:
        if cluster is not None:
            cluster.stop()
        if os.environ.get("KEEP") is None:
            import shutil
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    asyncio.run(main())
