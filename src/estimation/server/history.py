"""Finished games as history rows, and the stats computed from them.

Each human seat of a finished game gets one :class:`~.models.Result` row, written in the same transaction
as the game's last action, so history never misses or doubles a game. The record itself stays on the table
row, where ``GET /api/tables/{id}/record`` serves it (without the seed) for replay.

In a partnership game (RULES.md, Partnerships) both partners take their side's place, and the outcome
(win, draw, loss) is the side's: the row keeps the seat's own total and its side's total beside it. Level
points come from the ruleset (``Ruleset.level_points``): nothing here tests a ruleset's name.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from ..game import Game
from ..results import outcomes, side_totals
from ..rulesets import RULESETS
from .models import Result, utcnow


def outcome(places: list[int], seat: int, left: bool, partners: bool = False) -> str:
    """Win: first alone (a side's first place, with partners). Draw: first, shared. Loss: anything else,
    and always for a leaver."""
    return outcomes(places, partners, frozenset({seat}) if left else frozenset())[seat]


def result_rows(table_id: int, game: Game, humans: dict[int, tuple[int, bool]],
                coins: dict[int, int]) -> list[Result]:
    """``humans`` maps seat -> (account id, left)."""
    places = game.places
    leavers = frozenset(seat for seat, (_, left) in humans.items() if left)
    results = outcomes(places, game.partners, leavers)
    sides = side_totals(game.totals) if game.partners else None
    now = utcnow()
    rows = []
    for seat, (account_id, left) in sorted(humans.items()):
        made = sum(1 for r in game.round_results if r.made[seat])
        rows.append(Result(
            table_id=table_id, seat=seat, account_id=account_id, ruleset=game.ruleset.name,
            length=game.length, total=game.totals[seat], place=places[seat],
            outcome=results[seat], left=left, rounds=len(game.round_results), made=made,
            coins=coins.get(seat, 0), partners=game.partners,
            side_total=None if sides is None else sides[seat & 1], finished_at=now))
    return rows


async def games_of(db: AsyncSession, account_id: int, limit: int, offset: int) -> list[dict[str, Any]]:
    rows = (await db.scalars(select(Result).where(Result.account_id == account_id)
                             .order_by(Result.finished_at.desc(), Result.table_id.desc())
                             .limit(limit).offset(offset))).all()
    return [{"table_id": r.table_id, "seat": r.seat, "ruleset": r.ruleset, "length": r.length,
             "total": r.total, "place": r.place, "outcome": r.outcome, "left": r.left,
             "rounds": r.rounds, "made": r.made, "coins": r.coins, "partners": r.partners,
             "side_total": r.side_total, "finished_at": r.finished_at.isoformat() + "Z"} for r in rows]


async def stats_of(db: AsyncSession, account_id: int) -> dict[str, Any]:
    """Games, wins, average score, make rate; and for every ruleset that keeps level points, its games by
    outcome, the points (win / draw / loss as the ruleset pays them; a leaver's loss pays as any loss)
    and the badge. ``levels`` has them by ruleset name, and each is also under its ruleset's own name at
    the top level, where clients read them before ``levels`` existed."""
    row = (await db.execute(select(
        func.count(), func.coalesce(func.sum(Result.total), 0), func.coalesce(func.sum(Result.rounds), 0),
        func.coalesce(func.sum(Result.made), 0),
    ).where(Result.account_id == account_id))).one()
    games, total, rounds, made = (int(x) for x in row)
    wins = int(await db.scalar(select(func.count()).where(
        Result.account_id == account_id, Result.outcome == "win")) or 0)
    levels: dict[str, dict[str, Any]] = {}
    for name, ruleset in RULESETS.items():
        points_table = ruleset.level_points
        if points_table is None:
            continue
        by_outcome: dict[str, int] = {"win": 0, "draw": 0, "loss": 0}
        for outcome_name, n in (await db.execute(
                select(Result.outcome, func.count()).where(
                    Result.account_id == account_id, Result.ruleset == name)
                .group_by(Result.outcome))).all():
            by_outcome[outcome_name] += int(n)
        levels[name] = {
            "games": sum(by_outcome.values()), "wins": by_outcome["win"], "draws": by_outcome["draw"],
            "losses": by_outcome["loss"],
            "level_points": sum(points_table[o] * n for o, n in by_outcome.items()),
            "badge": by_outcome["win"] >= ruleset.badge_wins,
        }
    return {
        "games": games,
        "wins": wins,
        "average_score": round(total / games, 2) if games else None,
        "make_rate": round(made / rounds, 4) if rounds else None,
        "levels": levels,
        **levels,
    }
