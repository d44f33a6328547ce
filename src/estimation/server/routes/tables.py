"""Tables over REST: list, create, read, join, fill with bots, hint, leave, watch, and a finished game's
record and replay.

Table changes go through the table's runtime (its lock), exactly as WebSocket actions do. A private table is
answered exactly as a missing one to anyone it does not admit, and its games stay out of other people's
view of a player's history and stats.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from fastapi import APIRouter, HTTPException, Request
from fastapi.security import HTTPAuthorizationCredentials
from pydantic import BaseModel, Field

from ...record import load_record, replay_summary
from ...rulesets import DEFAULT_RULESET
from ..competitions.reading import table_record
from ..hub import Hub
from ..social.service import social_of
from ..table.reducer import TableSettings, admits, public_table
from ..table.runtime import TableRuntime, no_such_table
from ..table.store import TableRow
from .deps import (
    TOO_MANY,
    Code,
    Creds,
    HubDep,
    Invite,
    Limit,
    Me,
    Name,
    Offset,
    StoreDep,
    Strict,
    TableId,
    account_id_of,
    limit_creating,
)
from .rules import bot_levels
from .schemas import TableOut, table_out

router = APIRouter(prefix="/api", responses=TOO_MANY)


class TableIn(Strict):
    ruleset: Annotated[str, Field(max_length=32, examples=[DEFAULT_RULESET])] = DEFAULT_RULESET
    length: Annotated[str | None, Field(max_length=32, examples=["micro"])] = None
    stake: Annotated[int, Field(ge=0, le=1_000_000, description="Coins per staker; 0: not staked.")] = 0
    private: bool = Field(False, description="Private tables are not listed; joining needs the invite code.")
    bot_seats: Annotated[list[Annotated[int, Field(ge=0, le=3)]], Field(max_length=3)] = Field(
        default_factory=list, description="Seats filled by bots from the start (at most three).")
    bot_level: Annotated[str, Field(max_length=32)] = "random"
    turn_seconds: Annotated[int, Field(ge=0, le=3600, description="The turn clock; 0: none.")] = 60
    name: Name | None = Field(None, description="A name for the table, shown in the lobby and at the table: "
                                                "checked as a player's name is (1-32 characters, no "
                                                "look-alikes, controls or direction overrides).")
    partners: bool = Field(False, description="A partnership table (RULES.md, Partnerships): seats 0+2 play "
                                              "against 1+3; standings, history and the pot are by side. A "
                                              "player who asks for no seat sits opposite a human who has no "
                                              "partner yet.")


class JoinIn(Strict):
    seat: Annotated[int | None, Field(ge=0, le=3, description="A seat; null: the first free one.")] = None
    stake: bool = Field(False, description="Pay the table's stake into the pot (accounts only).")
    invite: Code | None = None


class JoinOut(BaseModel):
    seat: int
    table: TableOut


async def _runtime(hub: Hub, table_id: int, account_id: int | None = None) -> TableRuntime:
    """The table; with ``account_id``, only if it admits that player (a private table is, to an outsider,
    no table at all: the same 404 as a missing one)."""
    runtime = await hub.get(table_id)
    if runtime is None or (account_id is not None and not runtime.admits(account_id, None)):
        raise no_such_table()
    return runtime


@router.get("/tables", tags=["tables"])
async def list_tables(store: StoreDep, status: Literal["open", "playing", "finished"] = "open",
                      limit: Limit = 50, offset: Offset = 0) -> list[TableOut]:
    """Public tables: ``open`` ones to join (the default), ``playing`` ones to watch, ``finished`` ones."""
    rows = await store.listing(status, limit, offset)
    payouts = await store.paid_splits([r.table_id for r in rows]) if status == "finished" else {}
    return [table_out(public_table(r.table_id, r.state, payouts.get(r.table_id))) for r in rows]


@router.post("/tables", status_code=201, tags=["tables"],
             responses={422: {"description": "Unknown ruleset, length or bot level; a turn clock below "
                                             "the server's least (ESTIMATION_MIN_TURN_SECONDS)."}})
async def create_table(body: TableIn, hub: HubDep, me: Me, request: Request) -> TableOut:
    """Create a table with its rules; it starts when its four seats are filled (bots count)."""
    if len(set(body.bot_seats)) != len(body.bot_seats):
        raise HTTPException(422, "bot_seats lists each seat once")
    levels = bot_levels()
    if body.bot_level not in levels:
        raise HTTPException(422, f"unknown bot level {body.bot_level!r} (known: {', '.join(levels)})")
    least = hub.settings.min_turn_seconds
    if 0 < body.turn_seconds < least:  # a bot would play for a person before they see their turn
        raise HTTPException(422, [{"type": "turn_seconds_too_short", "loc": ["body", "turn_seconds"],
                                   "msg": f"a turn clock is 0 (none) or at least {least} seconds",
                                   "ctx": {"min": least}}])
    await hub.not_seated_elsewhere(me.id, None)
    await limit_creating("table", hub, request)
    runtime = await hub.create_table(me.id, TableSettings(
        body.ruleset, body.length, body.stake, body.private, tuple(sorted(body.bot_seats)), body.bot_level,
        body.turn_seconds, body.partners, body.name))
    return table_out(runtime.public(), runtime.rules.invite_code)


@router.get("/tables/{table_id}", tags=["tables"], responses={404: {"description": "No such table."}})
async def get_table(table_id: TableId, hub: HubDep, creds: Creds, invite: Invite = None) -> TableOut:
    """A table's rules, seats and status (a private one: to its creator, its players, or with the invite
    code in the ``X-Invite-Code`` header; to anyone else it is not there)."""
    runtime = await _runtime(hub, table_id)
    account_id = await account_id_of(hub, creds)
    if not runtime.admits(account_id, invite):
        raise no_such_table()
    creator = account_id == runtime.created_by
    # Under the table's lock: a change being committed (the game's last action, say) has already changed
    # memory, and must not be shown before it is durable.
    async with runtime.lock:
        public = runtime.public()
    shown = creator and runtime.rules.competition is None  # a competition's table has no invite to give
    return table_out(public, runtime.rules.invite_code if shown else None)


@router.post("/tables/{table_id}/join", tags=["tables"],
             responses={402: {"description": "Not enough coins to stake."},
                        403: {"description": "A guest trying to stake."},
                        404: {"description": "No such table (or a private one without its invite)."},
                        409: {"description": "Seat taken (or kept for a rematch's player), table full or "
                                             "already started, or seated at another live table."}})
async def join_table(table_id: TableId, body: JoinIn, hub: HubDep, me: Me) -> JoinOut:
    """Take a seat (and, at a staked table, optionally stake). The fourth seat filled starts the game."""
    runtime = await _runtime(hub, table_id)
    async with hub.seating(me.id):
        await hub.not_seated_elsewhere(me.id, table_id)
        seat = await _not_kept(hub, runtime, me.id, body.seat)
        seat = await runtime.join(me.id, me.name, me.is_guest, seat, body.stake, body.invite)
    return JoinOut(seat=seat, table=table_out(runtime.public()))


async def _not_kept(hub: Hub, runtime: TableRuntime, account_id: int, seat: int | None) -> int | None:
    """The seat to ask the table for: ``seat`` unless a rematch keeps it for another player (409); no seat
    asked for, the first free one not kept for somebody else (this player's own kept one first)."""
    kept = await social_of(hub).kept_seats(runtime.id)
    if not kept:
        return seat
    if seat is not None:
        if kept.get(seat, account_id) != account_id:
            raise HTTPException(409, "that seat is kept for its player until they answer the rematch")
        return seat
    free = [i for i, s in enumerate(runtime.seats) if not s.taken]
    mine = [i for i in free if kept.get(i) == account_id]
    open_ = [i for i in free if i not in kept]
    if not mine and not open_:
        raise HTTPException(409, "every free seat is kept for its player until they answer the rematch")
    return (mine or open_)[0]


@router.post("/tables/{table_id}/bots", tags=["tables"],
             responses={403: {"description": "Not the table's creator."},
                        404: {"description": "No such table."},
                        409: {"description": "The table has started, or no seat is empty."}})
async def fill_with_bots(table_id: TableId, hub: HubDep, me: Me) -> TableOut:
    """The creator seats a bot in every empty seat, which starts the game."""
    runtime = await _runtime(hub, table_id, me.id)
    await runtime.fill_with_bots(me.id)
    return table_out(runtime.public(), runtime.rules.invite_code)


class HintOut(BaseModel):
    seat: int
    phase: str
    samples: int = Field(description="Deals sampled for each action.")
    best: str = Field(description="The action the strong bot would take.")
    actions: list[dict[str, Any]] = Field(description="Per legal action: expected_score, expected_tricks and "
                                                      "tricks (the probability of taking 0..13 tricks).")


@router.post("/tables/{table_id}/hint", tags=["tables"],
             responses={403: {"description": "Not a practice table (every other seat a bot)."},
                        404: {"description": "No such table."},
                        409: {"description": "Not seated, or not your turn."}})
async def table_hint(table_id: TableId, hub: HubDep, me: Me) -> HintOut:
    """At a practice table, the odds and expected score of each legal action for your turn, as
    ``estimation hint`` gives them; computed in a process of its own, within about a second."""
    runtime = await _runtime(hub, table_id, me.id)
    view = await runtime.hint_view(me.id)
    return HintOut(**await hub.hints.hint(view))


@router.post("/tables/{table_id}/leave", tags=["tables"],
             responses={404: {"description": "No such table."}, 409: {"description": "Not seated."}})
async def leave_table(table_id: TableId, hub: HubDep, me: Me) -> TableOut:
    """Leave. Before the start: the seat frees and a stake is refunded. During play: a bot takes the seat
    and a stake is forfeit (RULES.md ruling 11), except in egyptian, where leaving ends the match."""
    runtime = await _runtime(hub, table_id)
    await runtime.leave(me.id)
    return table_out(runtime.public())


@router.get("/tables/{table_id}/view", tags=["tables"], responses={404: {"description": "No such table."}})
async def watch(table_id: TableId, hub: HubDep, creds: Creds, invite: Invite = None) -> dict[str, Any]:
    """The spectator's view (``Game.view(None)``: no hand at all); live play is on the WebSocket."""
    runtime = await _runtime(hub, table_id)
    if not runtime.admits(await account_id_of(hub, creds), invite):
        raise no_such_table()
    async with runtime.lock:
        return {"version": runtime.version, "table": runtime.public(), "view": runtime.view_for(None)}


@router.get("/tables/{table_id}/record", tags=["history"],
            responses={404: {"description": "No such table."},
                       409: {"description": "The game is not finished (a record would show the hands)."}})
async def download_record(table_id: TableId, hub: HubDep, creds: Creds,
                          invite: Invite = None) -> dict[str, Any]:
    """The finished game's estimation-record/1 (without the seed): replay it with `estimation replay`.

    A private table's record is as private as the table: its creator, its players, or the invite code."""
    return (await _finished_record(table_id, hub, creds, invite))[1]


@router.get("/tables/{table_id}/replay", tags=["history"],
            responses={404: {"description": "No such table."},
                       409: {"description": "The game is not finished (a record would show the hands)."}})
async def replay(table_id: TableId, hub: HubDep, creds: Creds, invite: Invite = None) -> dict[str, Any]:
    """The finished game's record replayed by the server: `estimation replay --json`'s document (`rounds`,
    `totals`, `places`, `complete`, and `sides` in a partnership game), each round with its `breakdown` (every
    seat's score lines). The replay page draws its scores from it rather than scoring by a ruleset's name.
    With it, `seats`: the table's seats as `GET /api/tables/{id}` gives them (`bot` marks a bot's seat, which
    the record, holding names only, cannot say), so the page names bots in its own language.

    As private as the record."""
    row, record = await _finished_record(table_id, hub, creds, invite)
    return {**replay_summary(load_record(record)), "seats": public_table(table_id, row.state)["seats"]}


async def _finished_record(table_id: int, hub: Hub, creds: HTTPAuthorizationCredentials | None,
                           invite: str | None) -> tuple[TableRow, dict[str, Any]]:
    """A finished table's record without its seed; 404 to whoever the table does not admit, 409 before the
    end. A competition's table: as far as the caller may see it (:func:`~..competitions.field.table_record`:
    the boards it finished itself, or all once the stage is over), finished or not."""
    account_id = await account_id_of(hub, creds)
    row = await hub.store.row(table_id)
    if row is None:
        raise no_such_table()
    competition = row.state.rules.competition
    if competition is not None:  # fair play: only the boards the caller may see (competitions)
        shown = await table_record(hub, competition, table_id, account_id)
        if shown is None:
            raise no_such_table()
        return row, shown
    if not admits(row.state, account_id, invite):
        raise no_such_table()
    if row.state.status != "finished" or row.record is None:
        raise HTTPException(409, "the game is not finished")
    record: dict[str, Any] = json.loads(row.record)
    record.pop("seed", None)
    return row, record
