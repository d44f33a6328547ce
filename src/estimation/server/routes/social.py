"""Players together over REST: quick play, rematch offers and answers, and a player's profile."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, HTTPException
from pydantic import BaseModel, Field

from ...rulesets import RULESETS
from ..social.service import iso, ms_until, social_of
from ..storage import history
from ..storage.models import Account
from .deps import Creds, HubDep, Me, PlayerId, Strict, TableId, account_id_of
from .schemas import GameOut, TableOut, table_out

router = APIRouter(prefix="/api")


class QuickPlayIn(Strict):
    ruleset: Annotated[str, Field(max_length=32, examples=["egyptian"])] = "koutchina"
    length: Annotated[str | None, Field(max_length=32, examples=["standard"])] = None


class QuickPlayOut(BaseModel):
    seat: int
    created: bool = Field(description="Whether the table was made for this request.")
    bots_at: str | None = Field(description="When bots take the empty seats if nobody else comes (UTC); "
                                            "null once the table has started.")
    bots_in_ms: int | None = Field(description="The same, as milliseconds from now.")
    table: TableOut


class RematchIn(Strict):
    stake: bool = Field(True, description="At a staked table: stake again (accounts only).")


class RematchPlayer(BaseModel):
    seat: int
    account_id: int
    name: str
    reply: str | None = Field(description="accept, decline, or null (no answer yet).")


class RematchStateOut(BaseModel):
    from_table: int
    table_id: int | None = Field(description="The rematch table, once somebody asked for it.")
    players: list[RematchPlayer]


class RematchOut(BaseModel):
    seat: int
    created: bool
    table: TableOut
    rematch: RematchStateOut


class LevelOut(BaseModel):
    ruleset: str = Field(description="A ruleset that keeps level points (its `level_points`, /api/rulesets).")
    points: int = Field(description="The ruleset's level points for a win, a draw and a loss (a leaver's "
                                    "match pays nothing).")
    badge: bool = Field(description="The ruleset's `badge_wins` wins reached.")
    games: int
    wins: int
    draws: int
    losses: int


class RecentGame(GameOut):
    replay: str = Field(description="The game's record, for the replay viewer.")
    chat: str = Field(description="The game's chat.")


class ProfileOut(BaseModel):
    id: int
    name: str
    guest: bool
    moderator: bool
    deleted: bool
    levels: list[LevelOut] = Field(description="One for every ruleset that keeps level points, in the "
                                                "server's order of rulesets.")
    games: int
    wins: int
    make_rate: float | None = Field(description="Rounds made / rounds played, 0-1.")
    average_score: float | None = Field(description="Mean final total, one decimal.")
    by_ruleset: dict[str, dict[str, int]]
    recent: list[RecentGame]


def _rules(ruleset: str, length: str | None) -> tuple[str, str]:
    cls = RULESETS.get(ruleset)
    if cls is None:
        raise HTTPException(422, f"unknown ruleset {ruleset!r} (known: {', '.join(RULESETS)})")
    length = length or cls.default_length
    if length not in cls.lengths:
        raise HTTPException(422, f"unknown length {length!r} for {ruleset} (known: {', '.join(cls.lengths)})")
    return ruleset, length


@router.post("/quickplay", tags=["tables"], responses={
    409: {"description": "Seated at another table."}, 422: {"description": "Unknown ruleset or length."}})
async def quickplay(body: QuickPlayIn, hub: HubDep, me: Me) -> QuickPlayOut:
    """Seat me at the fullest open quick-play table of this ruleset and length, or make one. Bots take the
    seats nobody came for ``bots_in_ms`` after the last person sat down (20 s by default); asking again
    while seated there answers with the same seat."""
    ruleset, length = _rules(body.ruleset, body.length)
    runtime, seat, created = await social_of(hub).quickplay(me, ruleset, length)
    at = runtime.bots_at if runtime.status == "open" else None
    return QuickPlayOut(seat=seat, created=created, bots_at=None if at is None else iso(at),
                        bots_in_ms=None if at is None else ms_until(at), table=table_out(runtime.public()))


@router.post("/tables/{table_id}/rematch", tags=["tables"], responses={
    402: {"description": "Not enough coins to stake."}, 403: {"description": "Not a player of that table."},
    404: {"description": "No such table."}, 409: {"description": "Not finished, or seated elsewhere."}})
async def rematch(table_id: TableId, hub: HubDep, me: Me, body: RematchIn | None = None) -> RematchOut:
    """"Play again" at a finished table: the first player to ask makes a new private table with the same
    rules for the same people, bots in the bots' seats; each player who asks (accepts) is seated in their
    old seat. Everyone at the old table and every invited player's sockets get a ``rematch`` message."""
    runtime, seat, created = await social_of(hub).rematch(me, table_id, (body or RematchIn(stake=True)).stake)
    creator = runtime.created_by == me.id
    return RematchOut(seat=seat, created=created,
                      table=table_out(runtime.public(), runtime.rules.invite_code if creator else None),
                      rematch=RematchStateOut(**await social_of(hub).rematch_state(table_id)))


@router.post("/tables/{table_id}/rematch/decline", tags=["tables"], responses={
    403: {"description": "Not a player of that table."}, 404: {"description": "No such table."}})
async def decline_rematch(table_id: TableId, hub: HubDep, me: Me) -> RematchStateOut:
    """Decline the rematch (leaving its table if you had accepted and it has not started)."""
    await social_of(hub).rematch_state(table_id, viewer=me.id)  # 404 first (a private table: to outsiders)
    await social_of(hub).decline(me, table_id)
    return RematchStateOut(**await social_of(hub).rematch_state(table_id, viewer=me.id))


@router.get("/tables/{table_id}/rematch", tags=["tables"], responses={404: {"description": "No such table."}})
async def rematch_state(table_id: TableId, hub: HubDep, me: Me) -> RematchStateOut:
    """The rematch of a finished table: its table once made, and each player's answer."""
    return RematchStateOut(**await social_of(hub).rematch_state(table_id, viewer=me.id))


@router.get("/players/{player_id}/profile", tags=["history"],
            responses={404: {"description": "No such player."}})
async def profile(player_id: PlayerId, hub: HubDep, creds: Creds) -> ProfileOut:
    """A player's page: level and badge in every ruleset that keeps level points, games, wins, make rate,
    average score, games per ruleset and the ten most recent games with their replays. Games at private
    tables (a rematch is one) count in the player's own view only."""
    own = await account_id_of(hub, creds) == player_id
    async with hub.session() as db:
        account = await db.get(Account, player_id)
        if account is None:
            raise HTTPException(404, "no such player")
        outcomes = await history.outcomes_of(db, player_id, private=own)
        stats = await history.stats_of(db, player_id, private=own, outcomes=outcomes)
        per: dict[str, dict[str, int]] = {}
        for (ruleset, outcome), (n, *_sums) in sorted(outcomes.items()):
            tally = per.setdefault(ruleset, {"games": 0, "wins": 0})
            tally["games"] += n
            tally["wins"] += n if outcome == "win" else 0
        recent = await history.games_of(db, player_id, 10, 0, private=own)
    average = stats["average_score"]
    return ProfileOut(
        id=account.id, name=account.name, guest=account.is_guest, moderator=account.moderator,
        deleted=account.deleted_at is not None,
        levels=[LevelOut(ruleset=name, points=lv["level_points"], badge=lv["badge"], games=lv["games"],
                         wins=lv["wins"], draws=lv["draws"], losses=lv["losses"])
                for name, lv in stats["levels"].items()],
        games=stats["games"], wins=stats["wins"], make_rate=stats["make_rate"],
        average_score=None if average is None else round(float(average), 1),
        by_ruleset=per,
        recent=[RecentGame(**g, replay=f"/api/tables/{g['table_id']}/record",
                           chat=f"/api/tables/{g['table_id']}/chat") for g in recent])

