"""Leaderboards per ruleset over the last 30 days, computed in SQL.

Two orders (RULES.md, Jawaker's rule for the first):

- ``winrate``: games won / games played (completed + left; every history row is one or the other), among
  players with at least 15 games in the window; ties by more games, then the lower player id;
- ``level``: level points earned in the window (30 a win, 10 a draw, 4 a loss, a leaver's match nothing:
  egyptian's scale, used for every ruleset); ties by more games, then the lower player id.

Only accounts rank: guests and deleted accounts do not. The query groups the window's history rows by
player over the index ``ix_results_ruleset_finished`` (ruleset, finished_at, account_id, outcome, left), which
covers every column it reads from ``results``; it never loads games into Python. The win rate is compared
as a double on both databases: the quotient of two integers is correctly rounded, so equal rates compare
equal on SQLite and PostgreSQL alike.

A 30-day window of a busy ruleset is hundreds of thousands of rows to group, too slow to do for every page
view, and a ranking over 30 days need not be fresher than a minute: :class:`Boards` keeps each whole
ranking (computed by the same SQL, without a limit) for ``leaderboard_cache_seconds`` and serves pages from
it, refreshing in the background while it serves the old one. On SQLite, whose statements otherwise run
inline on the event loop's thread, the rankings are read through an engine of their own
(:func:`reader_engine`) whose statements run in a thread: a ranking that takes a second to group never
stops the tables for that second.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import time
from collections.abc import Callable
from typing import Any, Literal

from sqlalchemy import Float, case, cast, func, select
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker, create_async_engine

from ...rulesets.egyptian import LEVEL_POINTS
from ..storage.models import Account, Result, Table, utcnow

DAYS = 30
MIN_GAMES = 15
Order = Literal["winrate", "level"]


def _grouped(ruleset: str, since: dt.datetime, by: Order) -> tuple[Any, Any]:
    """The window's rows grouped by player (over the index), then joined to the accounts: one lookup per
    player, not per game. The ranking's select and its ordering."""
    games = func.count().label("games")
    per = (select(Result.account_id.label("account_id"), games,
                  func.sum(case((Result.outcome == "win", 1), else_=0)).label("wins"),
                  func.sum(case((Result.outcome == "draw", 1), else_=0)).label("draws"),
                  func.sum(case((Result.left.is_(True), 1), else_=0)).label("left"),
                  func.sum(case((Result.left.is_(True), 0),  # a leaver's match pays nothing
                                (Result.outcome == "win", LEVEL_POINTS["win"]),
                                (Result.outcome == "draw", LEVEL_POINTS["draw"]),
                                else_=LEVEL_POINTS["loss"])).label("points"))
           .where(Result.ruleset == ruleset, Result.finished_at >= since,
                   # private games (a rematch is one) are their players' own business, never a listing's
                   Result.table_id.in_(select(Table.id).where(Table.private.is_(False))))
           .group_by(Result.account_id))
    if by == "winrate":
        per = per.having(func.count() >= MIN_GAMES)
    g = per.subquery("g")
    query = (select(g.c.account_id, Account.name, g.c.games, g.c.wins, g.c.draws, g.c.left, g.c.points)
             .join(Account, Account.id == g.c.account_id)
             .where(Account.is_guest.is_(False), Account.deleted_at.is_(None)))
    if by == "winrate":
        order = [(cast(g.c.wins, Float) / cast(g.c.games, Float)).desc(), g.c.games.desc(), g.c.account_id]
    else:
        order = [g.c.points.desc(), g.c.games.desc(), g.c.account_id]
    return query, order


def window_query(ruleset: str, since: dt.datetime, by: Order) -> Any:
    """The ranking's query, unordered (the plan test reads it)."""
    return _grouped(ruleset, since, by)[0]


async def leaderboard(db: AsyncSession, ruleset: str, by: Order, limit: int | None, offset: int,
                      now: dt.datetime | None = None) -> dict[str, Any]:
    """One page of the ranking (``limit`` None: all of it), straight from the database."""
    since = (now or utcnow()) - dt.timedelta(days=DAYS)
    query, order = _grouped(ruleset, since, by)
    rows = (await db.execute(query.order_by(*order).limit(limit).offset(offset))).all()
    if limit is None:
        total = offset + len(rows)
    else:
        total = int(await db.scalar(select(func.count()).select_from(query.subquery())) or 0)
    entries = []
    for n, (account_id, name, g, w, d, lf, p) in enumerate(rows, start=offset + 1):
        g, w, d = int(g), int(w or 0), int(d or 0)
        entries.append({"rank": n, "account_id": int(account_id), "name": name, "games": g, "wins": w,
                        "draws": d, "losses": g - w - d, "left": int(lf or 0),
                        "win_rate": round(w / g, 4) if g else 0.0, "level_points": int(p or 0)})
    return {"ruleset": ruleset, "by": by, "days": DAYS, "min_games": MIN_GAMES if by == "winrate" else 0,
            "since": since.isoformat() + "Z", "total": total, "entries": entries}


def reader_engine(engine: AsyncEngine) -> AsyncEngine:
    """The engine long reads go through: on a SQLite file a second one, whose statements run in aiosqlite's
    thread (SQLite lets readers run beside the writer in WAL mode, and releases the GIL while it works);
    elsewhere the engine itself."""
    database = engine.url.database
    if engine.dialect.name != "sqlite" or not database or database == ":memory:":
        return engine
    return create_async_engine(engine.url, connect_args={"timeout": 30})


class Boards:
    """Whole rankings kept for ``seconds`` (0: none kept, every page asks the database)."""

    def __init__(self, session: async_sessionmaker[AsyncSession], seconds: float,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.session = session
        self.seconds = seconds
        self.clock = clock
        self._boards: dict[tuple[str, str], tuple[float, dict[str, Any]]] = {}
        self._refreshing: dict[tuple[str, str], asyncio.Task[dict[str, Any]]] = {}

    async def page(self, ruleset: str, by: Order, limit: int, offset: int) -> dict[str, Any]:
        if self.seconds <= 0:
            async with self.session() as db:
                return await leaderboard(db, ruleset, by, limit, offset)
        key = (ruleset, by)
        kept = self._boards.get(key)
        if kept is None:
            board = await self._refresh(key)
        else:
            board = kept[1]
            if self.clock() - kept[0] > self.seconds:
                self._refresh_soon(key)  # serve this one meanwhile
        return {**board, "entries": board["entries"][offset:offset + limit]}

    def _refresh_soon(self, key: tuple[str, str]) -> None:
        if key not in self._refreshing:
            task = asyncio.create_task(self._compute(key))
            self._refreshing[key] = task
            task.add_done_callback(lambda t: self._refreshing.pop(key, None))

    async def _refresh(self, key: tuple[str, str]) -> dict[str, Any]:
        self._refresh_soon(key)
        return await asyncio.shield(self._refreshing[key])

    async def _compute(self, key: tuple[str, str]) -> dict[str, Any]:
        ruleset, by = key
        async with self.session() as db:
            board = await leaderboard(db, ruleset, by, None, 0)  # type: ignore[arg-type]
        self._boards[key] = (self.clock(), board)
        return board


# --- REST ----------------------------------------------------------------------------------------------
