"""The leaderboards over REST: per ruleset, by win rate or level points, over the last 30 days."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, HTTPException, Path, Query
from pydantic import BaseModel, Field

from ...rulesets import RULESETS
from ..social.leaderboard import Order
from .deps import HubDep, Limit, Offset

router = APIRouter(prefix="/api", tags=["history"])


class Entry(BaseModel):
    rank: int
    account_id: int
    name: str
    games: int
    wins: int
    draws: int
    losses: int
    left: int = Field(description="Games the player left (each also a loss).")
    win_rate: float = Field(description="wins / games, 0-1, four decimals.")
    level_points: int


class LeaderboardOut(BaseModel):
    ruleset: str
    by: str
    days: int
    min_games: int = Field(description="Games in the window a player needs to rank (winrate: 15).")
    since: str
    total: int = Field(description="Players ranked (for pagination).")
    entries: list[Entry]


@router.get("/leaderboards/{ruleset}", responses={404: {"description": "No such ruleset."}})
async def get_leaderboard(ruleset: Annotated[str, Path(max_length=32)], hub: HubDep,
                          by: Annotated[Order, Query()] = "winrate", limit: Limit = 50,
                          offset: Offset = 0) -> LeaderboardOut:
    """The last 30 days of a ruleset: by win rate (won / (completed + left), at least 15 games) or by level
    points (30 / 10 / 4), ties by games then player id; paginated with ``limit`` and ``offset``."""
    if ruleset not in RULESETS:
        raise HTTPException(404, f"no ruleset {ruleset[:32]!r} (known: {', '.join(RULESETS)})")
    return LeaderboardOut(**await hub.social.leaderboard(ruleset, by, limit, offset))
