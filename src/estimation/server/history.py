"""Finished games as history rows, and the stats computed from them.

Each human seat of a finished game gets one :class:`~.models.Result` row, written in the same transaction
as the game's last action, so history never misses or doubles a game. The record itself stays on the table
row, where ``GET /api/tables/{id}/record`` serves it (without the seed) for replay.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from ..game import Game
from ..rulesets.egyptian import BADGE_WINS, LEVEL_POINTS
from .models import Result, Table, utcnow


def outcome(places: list[int], seat: int, left: bool) -> str:
    """Win: first alone. Draw: first, shared. Loss: anything else, and always for a leaver."""
    if left or places[seat] != 1:
        return "loss"
    return "draw" if places.count(1) > 1 else "win"


def result_rows(table_id: int, game: Game, humans: dict[int, tuple[int, bool]],
                coins: dict[int, int]) -> list[Result]:
    """``humans`` maps seat -> (account id, left)."""
    places = game.places
    now = utcnow()
    rows = []
    for seat, (account_id, left) in sorted(humans.items()):
        made = sum(1 for r in game.round_results if r.made[seat])
        rows.append(Result(
            table_id=table_id, seat=seat, account_id=account_id, ruleset=game.ruleset.name,
            length=game.length, total=game.totals[seat], place=places[seat],
            outcome=outcome(places, seat, left), left=left, rounds=len(game.round_results), made=made,
            coins=coins.get(seat, 0), finished_at=now))
    return rows


def results_of(account_id: int, private: bool) -> Any:
    """A player's result rows; without ``private``, only those of public tables (what others may see)."""
    mine = Result.account_id == account_id
    if private:
        return mine
    return mine & Result.table_id.in_(select(Table.id).where(Table.private.is_(False)))


async def games_of(db: AsyncSession, account_id: int, limit: int, offset: int,
                   private: bool = False) -> list[dict[str, Any]]:
    """A player's finished games, newest first; at private tables too only with ``private`` (their own
    view: to anyone else a private game is not there)."""
    rows = (await db.scalars(select(Result).where(results_of(account_id, private))
                             .order_by(Result.finished_at.desc(), Result.table_id.desc())
                             .limit(limit).offset(offset))).all()
    return [{"table_id": r.table_id, "seat": r.seat, "ruleset": r.ruleset, "length": r.length,
             "total": r.total, "place": r.place, "outcome": r.outcome, "left": r.left,
             "rounds": r.rounds, "made": r.made, "coins": r.coins,
             "finished_at": r.finished_at.isoformat() + "Z"} for r in rows]


async def outcomes_of(db: AsyncSession, account_id: int, private: bool = False) -> dict[tuple[str, str], int]:
    """(ruleset, outcome) -> games, in one query over the player's own rows (an account index): filtering on
    the ruleset too would let a database scan every game of that ruleset by the leaderboards' index. Games at
    private tables count only with ``private`` (as in ``games_of``)."""
    rows = (await db.execute(select(Result.ruleset, Result.outcome, func.count())
                             .where(results_of(account_id, private))
                             .group_by(Result.ruleset, Result.outcome))).all()
    return {(str(r), str(o)): int(n) for r, o, n in rows}


async def stats_of(db: AsyncSession, account_id: int, private: bool = False,
                   outcomes: dict[tuple[str, str], int] | None = None) -> dict[str, Any]:
    """A player's stats; games at private tables count only with ``private`` (as in ``games_of``)."""
    theirs = results_of(account_id, private)
    row = (await db.execute(select(
        func.count(), func.coalesce(func.sum(Result.total), 0), func.coalesce(func.sum(Result.rounds), 0),
        func.coalesce(func.sum(Result.made), 0),
    ).where(theirs))).one()
    games, total, rounds, made = (int(x) for x in row)
    if outcomes is None:
        outcomes = await outcomes_of(db, account_id, private)
    wins = sum(n for (_r, o), n in outcomes.items() if o == "win")
    egyptian: dict[str, int] = {"win": 0, "draw": 0, "loss": 0}
    points = 0
    for (ruleset, outcome_name), n in outcomes.items():
        if ruleset == "egyptian":
            egyptian[outcome_name] += n
            points += LEVEL_POINTS[outcome_name] * n  # a leaver's loss pays 4 too (egyptian ruling 9)
    return {
        "games": games,
        "wins": wins,
        "average_score": round(total / games, 2) if games else None,
        "make_rate": round(made / rounds, 4) if rounds else None,
        "egyptian": {"games": sum(egyptian.values()), "wins": egyptian["win"], "draws": egyptian["draw"],
                     "losses": egyptian["loss"], "level_points": points,
                     "badge": egyptian["win"] >= BADGE_WINS},
    }
