"""Issue 19 from inside: the bus, chat's text rules and limiter, and the leaderboard's SQL against a Python
recount over generated histories, on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import datetime as dt
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import delete, text
from sqlalchemy.ext.asyncio import AsyncEngine

from estimation.server.cluster.bus import LOBBY, InMemoryBus, table_topic, user_topic
from estimation.server.social.chat import PHRASES, ChatError, ChatLimiter, clean_text
from estimation.server.social.leaderboard import DAYS, MIN_GAMES, Boards, leaderboard, window_query
from estimation.server.storage.database import make_engine, migrate, sessionmaker
from estimation.server.storage.models import Account, Result, Table, utcnow

# --- the bus ------------------------------------------------------------------------------------------


def test_the_bus_delivers_per_topic_in_order_until_closed() -> None:
    bus = InMemoryBus()
    got: list[tuple[str, Any]] = []
    a = bus.subscribe(table_topic(1), lambda t, m: got.append((t, m["n"])))
    bus.subscribe(user_topic(1), lambda t, m: got.append((t, m["n"])))
    bus.subscribe(LOBBY, lambda t, m: got.append((t, m["n"])))
    for n in range(3):
        bus.publish(table_topic(1), {"type": "x", "n": n})
    bus.publish(table_topic(2), {"type": "x", "n": 9})  # nobody listens
    bus.publish(user_topic(1), {"type": "x", "n": 4})
    bus.publish(LOBBY, {"type": "x", "n": 5})
    assert got == [("table:1", 0), ("table:1", 1), ("table:1", 2), ("user:1", 4), ("lobby", 5)]
    assert bus.subscribers(table_topic(1)) == 1
    a.close()
    a.close()  # twice is fine
    bus.publish(table_topic(1), {"type": "x", "n": 7})
    assert got[-1] == ("lobby", 5) and bus.subscribers(table_topic(1)) == 0


def test_a_failing_subscriber_does_not_stop_the_others_or_the_publisher() -> None:
    bus = InMemoryBus()
    got: list[int] = []

    def broken(_t: str, _m: Any) -> None:
        raise RuntimeError("boom")

    bus.subscribe(LOBBY, broken)
    bus.subscribe(LOBBY, lambda t, m: got.append(m["n"]))
    bus.publish(LOBBY, {"type": "x", "n": 1})
    assert got == [1]


def test_a_subscriber_may_unsubscribe_while_being_delivered() -> None:
    bus = InMemoryBus()
    got: list[int] = []
    subs: list[Any] = []
    subs.append(bus.subscribe(LOBBY, lambda t, m: (got.append(m["n"]), subs[0].close())))
    bus.subscribe(LOBBY, lambda t, m: got.append(10 + m["n"]))
    bus.publish(LOBBY, {"type": "x", "n": 1})
    bus.publish(LOBBY, {"type": "x", "n": 2})
    assert got == [1, 11, 12]


# --- chat's text ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("raw", ["", "   ", "a\nb", "a\x00", "\x1b[31mred", "x" * 201, "abc\u202edcba",
                                 "\u2066isolate", "line\u2028sep", "\ud800"])
def test_chat_text_is_refused(raw: str) -> None:
    with pytest.raises(ChatError):
        clean_text(raw)


@pytest.mark.parametrize("raw", ["hi", "  gg  ", "x" * 200, "مرحبا يا صديقي", "<img src=x onerror=alert(1)>",
                                 "👍🏽 family 👨‍👩‍👧"])
def test_chat_text_is_kept_as_text(raw: str) -> None:
    assert clean_text(raw) == raw.strip()


def test_phrases_are_keys() -> None:
    assert len(set(PHRASES)) == len(PHRASES) and all(p.isascii() and p.islower() for p in PHRASES)


def test_the_chat_limiter_allows_a_burst_then_the_rate() -> None:
    limiter = ChatLimiter(rate=0.5, burst=3)
    assert [limiter.allow(1) for _ in range(3)] == [0.0, 0.0, 0.0]
    wait = limiter.allow(1)
    assert 1.5 < wait <= 2.0
    assert limiter.allow(2) == 0.0  # per player


# --- leaderboards --------------------------------------------------------------------------------------

NOW = dt.datetime(2025, 6, 30, 12, 0, 0)
RULESETS = ("egyptian", "koutchina")
PLAYERS = 7


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def engine_loop(request: pytest.FixtureRequest,
                database_url_factory: Any) -> Iterator[tuple[AsyncEngine, Any]]:
    loop = asyncio.new_event_loop()
    engine = make_engine(database_url_factory(request.param))
    loop.run_until_complete(migrate(engine))
    try:
        yield engine, loop
    finally:
        loop.run_until_complete(engine.dispose())
        loop.close()


Row = tuple[int, str, str, bool, float]  # player, ruleset, outcome, left, days ago

rows_strategy = st.lists(
    st.tuples(st.integers(0, PLAYERS - 1), st.sampled_from(RULESETS),
              st.sampled_from(["win", "draw", "loss"]), st.booleans(),
              st.sampled_from([0.0, 1.5, 29.9, 30.1, 45.0])),
    max_size=160)
players_strategy = st.lists(st.sampled_from(["account", "guest", "deleted"]), min_size=PLAYERS,
                            max_size=PLAYERS)


async def _seed(engine: AsyncEngine, kinds: list[str], rows: list[Row], now: dt.datetime = NOW) -> None:
    session = sessionmaker(engine)
    async with session() as db, db.begin():
        for model in (Result, Table, Account):
            await db.execute(delete(model))
        for i, kind in enumerate(kinds):
            db.add(Account(id=i + 1, name=f"P{i}", login=None if kind == "guest" else f"p{i}",
                           password_hash=None, is_guest=kind == "guest", balance=0, created_at=NOW,
                           deleted_at=NOW if kind == "deleted" else None))
        await db.flush()
        for t in range(len(rows) // 4 + 1):
            db.add(Table(id=t + 1, ruleset="egyptian", length="standard", stake=0, private=False,
                         bot_level="random", turn_seconds=0, status="finished", version=1, pot=0,
                         paid_out=True, created_by=1, created_at=NOW))
        await db.flush()
        for i, (player, ruleset, outcome, left, days) in enumerate(rows):
            if left:
                outcome = "loss"  # a leaver always loses
            db.add(Result(table_id=i // 4 + 1, seat=i % 4, account_id=player + 1, ruleset=ruleset,
                          length="standard", total=0, place=1 if outcome != "loss" else 3, outcome=outcome,
                          left=left, rounds=18, made=9, coins=0,
                          finished_at=now - dt.timedelta(days=days)))


def recount(kinds: list[str], rows: list[Row], ruleset: str, by: str) -> list[tuple[int, int, int, int]]:
    """(account id, games, wins, level points) in leaderboard order, counted in Python."""
    stats: dict[int, list[int]] = {}
    for player, rs, outcome, left, days in rows:
        if rs != ruleset or days > DAYS or kinds[player] != "account":
            continue
        outcome = "loss" if left else outcome
        s = stats.setdefault(player + 1, [0, 0, 0])
        s[0] += 1
        s[1] += outcome == "win"
        s[2] += 0 if left else {"win": 30, "draw": 10, "loss": 4}[outcome]  # a leaver's match pays nothing
    out = [(a, g, w, p) for a, (g, w, p) in stats.items()]
    if by == "winrate":
        out = [e for e in out if e[1] >= MIN_GAMES]
        out.sort(key=lambda e: (-Fraction(e[2], e[1]), -e[1], e[0]))
    else:
        out.sort(key=lambda e: (-e[3], -e[1], e[0]))
    return out


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck), database=None)
@given(kinds=players_strategy, rows=rows_strategy, by=st.sampled_from(["winrate", "level"]),
       ruleset=st.sampled_from(RULESETS), limit=st.integers(1, 8), offset=st.integers(0, 4))
def test_the_leaderboard_sql_matches_a_python_recount(engine_loop: tuple[AsyncEngine, Any], kinds: list[str],
                                                      rows: list[Row], by: str, ruleset: str, limit: int,
                                                      offset: int) -> None:
    engine, loop = engine_loop

    async def go() -> dict[str, Any]:
        await _seed(engine, kinds, rows)
        async with sessionmaker(engine)() as db:
            return await leaderboard(db, ruleset, by, limit, offset, now=NOW)  # type: ignore[arg-type]

    board = loop.run_until_complete(go())
    expected = recount(kinds, rows, ruleset, by)
    assert board["total"] == len(expected)
    got = [(e["account_id"], e["games"], e["wins"], e["level_points"]) for e in board["entries"]]
    assert got == expected[offset:offset + limit]
    assert [e["rank"] for e in board["entries"]] == list(range(offset + 1, offset + 1 + len(got)))


def test_the_leaderboard_reads_the_index(engine_loop: tuple[AsyncEngine, Any]) -> None:
    """The plan of the ranking's own query scans the (ruleset, finished_at, ...) index on both databases."""
    engine, loop = engine_loop
    query = window_query("egyptian", NOW - dt.timedelta(days=DAYS), "winrate")
    sql = str(query.compile(engine.sync_engine, compile_kwargs={"literal_binds": True}))

    async def go() -> str:
        async with engine.connect() as conn:
            if engine.dialect.name == "sqlite":
                plan = (await conn.execute(text(f"EXPLAIN QUERY PLAN {sql}"))).all()
                return " ".join(str(r[-1]) for r in plan)
            await conn.execute(text("SET enable_seqscan = off"))
            plan = (await conn.execute(text(f"EXPLAIN {sql}"))).all()
            return " ".join(str(r[0]) for r in plan)

    plan = loop.run_until_complete(go())
    assert "ix_results_ruleset_finished" in plan, plan


def test_kept_rankings_serve_pages_and_refresh_in_the_background(
        engine_loop: tuple[AsyncEngine, Any]) -> None:
    engine, loop = engine_loop
    clock = [0.0]
    boards = Boards(sessionmaker(engine), 60.0, clock=lambda: clock[0])
    kinds = ["account"] * PLAYERS
    first = [(p, "egyptian", "win" if p % 2 else "loss", False, 1.0)
             for p in range(PLAYERS) for _ in range(3)]

    async def go() -> None:
        await _seed(engine, kinds, first, now=utcnow())
        page = await boards.page("egyptian", "level", 3, 2)
        async with sessionmaker(engine)() as db:
            fresh = await leaderboard(db, "egyptian", "level", 3, 2)
        assert page["entries"] == fresh["entries"] and page["total"] == fresh["total"] == PLAYERS
        await _seed(engine, kinds, first[:3], now=utcnow())  # only player 0's games remain
        assert (await boards.page("egyptian", "level", 50, 0))["total"] == PLAYERS  # still the kept one
        clock[0] = 61.0
        assert (await boards.page("egyptian", "level", 50, 0))["total"] == PLAYERS  # stale, while refreshing
        for _ in range(100):
            await asyncio.sleep(0.01)
            if (await boards.page("egyptian", "level", 50, 0))["total"] == 1:
                break
        assert (await boards.page("egyptian", "level", 50, 0))["total"] == 1

    loop.run_until_complete(go())


def test_sqlite_rankings_are_read_off_the_event_loops_thread(tmp_path: Any) -> None:
    """On a SQLite file the tables' statements run inline on the loop's thread; a ranking (a second's work
    at a million games) is read through an engine of its own whose statements run in a thread."""
    from estimation.server import Settings
    from estimation.server.hub import Hub
    from estimation.server.social.service import Social

    async def main() -> None:
        hub = Hub(Settings(database_url=f"sqlite+aiosqlite:///{tmp_path / 'hub.db'}"), Social)
        await hub.start()
        try:
            assert hub.social.reader is not hub.engine
            page = await hub.social.boards.page("egyptian", "level", 10, 0)
            assert page["entries"] == [] and page["total"] == 0
        finally:
            await hub.stop()

    asyncio.run(main())


def test_the_level_ruling_migration_forgets_the_matches_that_count_for_nobody(tmp_path: Path) -> None:
    """Migration 0010 (issue 25, B6): the history rows of a match a leaver ended before its first round was
    scored are deleted (it counts for nobody); a match left later keeps its rows (its leaver's points are
    0 at every read)."""
    from alembic import command
    from alembic.config import Config
    from sqlalchemy import create_engine, text

    from estimation.server.storage.database import MIGRATIONS

    url = f"sqlite:///{tmp_path / 'old.db'}"
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    engine = create_engine(url)
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "0009_live_seats")
        connection.execute(text("INSERT INTO accounts (id, name, login, is_guest, balance, created_at, "
                                "moderator, silenced) VALUES (1, 'A', 'a', 0, 0, '2026-01-01', 0, 0), "
                                "(2, 'B', 'b', 0, 0, '2026-01-01', 0, 0)"))
        for table_id in (1, 2):
            connection.execute(text(
                "INSERT INTO tables (id, ruleset, length, stake, private, bot_level, turn_seconds, partners, "
                "status, version, pot, paid_out, created_by, created_at) VALUES (:t, 'egyptian', "
                "'committee', 0, 0, 'random', 0, 0, 'finished', 9, 0, 1, 1, '2026-01-01')"), {"t": table_id})
        rows = [(1, 0, 1, "win", 0, 0), (1, 1, 2, "loss", 1, 0),   # left before a round was scored
                (2, 0, 1, "win", 0, 3), (2, 1, 2, "loss", 1, 3)]   # left after three
        for t, seat, account, outcome, left, rounds in rows:
            connection.execute(text(
                "INSERT INTO results (table_id, seat, account_id, ruleset, length, total, place, outcome, "
                "\"left\", rounds, made, coins, partners, finished_at) VALUES (:t, :s, :a, 'egyptian', "
                "'committee', 0, 1, :o, :l, :r, 0, 0, 0, '2026-01-01')"),
                {"t": t, "s": seat, "a": account, "o": outcome, "l": left, "r": rounds})
        command.upgrade(config, "head")
        kept = connection.execute(text("SELECT table_id, seat FROM results ORDER BY table_id, seat")).all()
    engine.dispose()
    assert [tuple(r) for r in kept] == [(2, 0), (2, 1)]
