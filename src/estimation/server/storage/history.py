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

from sqlalchemy import case, exists, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from ...game import Game
from ...results import outcomes, side_totals
from ...rulesets import RULESETS
from .models import Result, Table, utcnow


def outcome(places: list[int], seat: int, left: bool, partners: bool = False) -> str:
    """Win: first alone (a side's first place, with partners). Draw: first, shared. Loss: anything else,
    and always for a leaver."""
    return outcomes(places, partners, frozenset({seat}) if left else frozenset())[seat]


def result_rows(table_id: int, game: Game, humans: dict[int, tuple[int, bool]],
                coins: dict[int, int]) -> list[Result]:
    """``humans`` maps seat -> (account id, left). A match a leaver ended before its first round was scored
    counts for nobody (RULES.md, egyptian ruling 9): no rows at all, so no stats, no level points, no
    leaderboard (two accounts leaving at once cannot trade draws)."""
    places = game.places
    leavers = frozenset(seat for seat, (_, left) in humans.items() if left)
    if leavers and not game.round_results:
        return []
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


def results_of(account_id: int, private: bool) -> Any:
    """A player's result rows; without ``private``, only those of public tables (what others may see)."""
    mine = Result.account_id == account_id
    if private:
        return mine
    # Correlated, so each of the player's rows looks its table up by key: ``IN (SELECT id ...)`` would have
    # SQLite list every public table in the database for each profile.
    return mine & exists().where(Table.id == Result.table_id, Table.private.is_(False))


async def games_of(db: AsyncSession, account_id: int, limit: int, offset: int,
                   private: bool = False) -> list[dict[str, Any]]:
    """A player's finished games, newest first; at private tables too only with ``private`` (their own
    view: to anyone else a private game is not there)."""
    rows = (await db.scalars(select(Result).where(results_of(account_id, private))
                             .order_by(Result.finished_at.desc(), Result.table_id.desc())
                             .limit(limit).offset(offset))).all()
    return [{"table_id": r.table_id, "seat": r.seat, "ruleset": r.ruleset, "length": r.length,
             "total": r.total, "place": r.place, "outcome": r.outcome, "left": r.left,
             "rounds": r.rounds, "made": r.made, "coins": r.coins, "partners": r.partners,
             "side_total": r.side_total, "finished_at": r.finished_at.isoformat() + "Z"} for r in rows]


#: (ruleset, outcome) -> (games, sum of totals, rounds played, rounds made, games left).
Outcomes = dict[tuple[str, str], tuple[int, int, int, int, int]]


async def outcomes_of(db: AsyncSession, account_id: int, private: bool = False) -> Outcomes:
    """A player's games tallied by ruleset and outcome, with their sums, in one query over the player's own
    rows, which the index ``ix_results_account_level`` covers (migration 0010; filtering on the ruleset too
    would let a database scan every game of that ruleset by the leaderboards' index instead). Games at
    private tables count only with ``private`` (as in ``games_of``)."""
    rows = (await db.execute(select(Result.ruleset, Result.outcome, func.count(), func.sum(Result.total),
                                    func.sum(Result.rounds), func.sum(Result.made),
                                    func.sum(case((Result.left.is_(True), 1), else_=0)))
                             .where(results_of(account_id, private))
                             .group_by(Result.ruleset, Result.outcome))).all()
    return {(str(r), str(o)): (int(n), int(t or 0), int(k or 0), int(m or 0), int(lf or 0))
            for r, o, n, t, k, m, lf in rows}


async def stats_of(db: AsyncSession, account_id: int, private: bool = False,
                   outcomes: Outcomes | None = None) -> dict[str, Any]:
    """Games, wins, average score, make rate; and for every ruleset that keeps level points, its games by
    outcome, the points (win / draw / loss as the ruleset pays them; a leaver's loss pays nothing) and
    the badge. ``levels`` has them by ruleset name, and each is also under its ruleset's own name at the
    top level, where clients read them before ``levels`` existed. Games at private tables count only with
    ``private`` (as in ``games_of``). All of it from :func:`outcomes_of`'s one query."""
    if outcomes is None:
        outcomes = await outcomes_of(db, account_id, private)
    games = sum(v[0] for v in outcomes.values())
    total = sum(v[1] for v in outcomes.values())
    rounds = sum(v[2] for v in outcomes.values())
    made = sum(v[3] for v in outcomes.values())
    wins = sum(v[0] for (_r, o), v in outcomes.items() if o == "win")
    levels: dict[str, dict[str, Any]] = {}
    for name, ruleset in RULESETS.items():
        points_table = ruleset.level_points
        if points_table is None:
            continue
        by_outcome: dict[str, int] = {"win": 0, "draw": 0, "loss": 0}
        paid: dict[str, int] = {"win": 0, "draw": 0, "loss": 0}  # a leaver's match pays nothing
        for (played, outcome_name), (n, _total, _rounds, _made, left) in outcomes.items():
            if played == name:
                by_outcome[outcome_name] += n
                paid[outcome_name] += n - left
        levels[name] = {
            "games": sum(by_outcome.values()), "wins": by_outcome["win"], "draws": by_outcome["draw"],
            "losses": by_outcome["loss"],
            # a leaver's match is a loss that pays nothing (egyptian ruling 9)
            "level_points": sum(points_table[o] * n for o, n in paid.items()),
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
