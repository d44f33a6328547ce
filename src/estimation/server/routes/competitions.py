"""Competitions over REST (RULES.md, Competitions): create, list, read, register and withdraw, start, pause
and resume, remove an entrant, adjust a board, the standings, a board's traveller, an entrant's own summary,
a robot entrant's table, and the `estimation-competition/1` export.

The work is the :mod:`~..competitions` package's and the figures the competition core's; these routes only
check their inputs and say who asks. A private competition is, to anyone it does not admit, no competition
at all (the same 404 as a missing one); its invite code travels in the ``X-Invite-Code`` header or the body.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from fractions import Fraction
from typing import Annotated, Any, Literal

from fastapi import APIRouter, HTTPException, Path, Query
from pydantic import BaseModel, Field, model_validator
from sqlalchemy import or_, select

from ...competition import fraction, percent, traveller
from ...rulesets import DEFAULT_RULESET
from ..competitions.field import Field as CompetitionField
from ..competitions.field import seats_of
from ..competitions.service import Spec, iso, standing_rows, summary
from ..hub import Hub
from ..storage.models import Account, Competition, CompetitionEntry
from .deps import TOO_MANY, Code, Creds, HubDep, Invite, Limit, Me, Offset, Strict, verified_account
from .rules import bot_levels

router = APIRouter(prefix="/api", responses=TOO_MANY, tags=["competitions"])

CompetitionId = Annotated[int, Path(ge=1, le=2_147_483_647, description="A competition's id.")]
Stage = Annotated[int, Path(ge=1, le=1000)]
Round = Annotated[int, Path(ge=1, le=1000)]
Text = Annotated[str, Field(min_length=1, max_length=64)]


class CompetitionIn(Strict):
    name: Text
    kind: Literal["swiss", "robot"] = "swiss"
    ruleset: Annotated[str, Field(max_length=32)] = DEFAULT_RULESET
    length: Annotated[str | None, Field(max_length=32)] = None
    bot_level: Annotated[str, Field(max_length=32)] = "strong"
    stages: Annotated[int, Field(ge=1, le=20, description="swiss: the number of stages.")] = 3
    instances: Annotated[int, Field(ge=1, le=100, description="robot: the deal sets entrants are spread "
                                                              "over in turn of entry.")] = 1
    starts_in: Annotated[int, Field(ge=0, le=366 * 86400, description="Seconds from now to the start "
                                                                      "(swiss: stage 1 is seated then; "
                                                                      "robot: the window opens).")] = 600
    window_seconds: Annotated[int | None, Field(
        ge=10, le=31 * 86400, description="robot: how long the window stays open.")] = None
    entry_limit: Annotated[int, Field(ge=0, le=100_000, description="0: no limit.")] = 0
    turn_seconds: Annotated[int, Field(ge=0, le=3600,
                                       description="swiss: the turn clock (robot: none).")] = 60
    private: bool = Field(False, description="Not listed; entering needs the invite code.")

    @model_validator(mode="after")
    def _shape(self) -> CompetitionIn:
        if self.kind == "robot" and self.window_seconds is None:
            raise ValueError("a robot competition needs window_seconds")
        if self.kind == "swiss" and (self.window_seconds is not None or self.instances != 1):
            raise ValueError("a swiss has no window and one instance")
        return self


class EntryIn(Strict):
    invite: Code | None = None


class AdjustIn(Strict):
    """A board's adjustment: ``entrant`` + ``mp`` (that entrant's MP on the board set, 0..top) or ``table`` +
    ``seat`` + ``score`` (that seat's round score replaced before the board is matchpointed)."""

    stage: Annotated[int, Field(ge=1, le=1000)]
    instance: Annotated[int, Field(ge=1, le=100)] = 1
    round: Annotated[int, Field(ge=1, le=1000)]
    reason: Annotated[str, Field(min_length=1, max_length=200)]
    entrant: Annotated[int | None, Field(ge=1, le=2_147_483_647)] = None
    mp: Annotated[int | None, Field(ge=0, le=1_000_000)] = None
    table: Annotated[int | None, Field(ge=1, le=2_147_483_647)] = None
    seat: Annotated[int | None, Field(ge=0, le=3)] = None
    score: Annotated[int | None, Field(ge=-100_000, le=100_000)] = None

    @model_validator(mode="after")
    def _one_form(self) -> AdjustIn:
        by_mp = self.entrant is not None and self.mp is not None
        by_score = self.table is not None and self.seat is not None and self.score is not None
        if by_mp == by_score or (by_mp and self.table is not None) or (by_score and self.entrant is not None):
            raise ValueError("give either entrant and mp, or table, seat and score")
        return self


class CompetitionOut(BaseModel):
    """A competition as listed: its rules, schedule and where it is (``stage``: swiss, the stage in play;
    ``tables``/``tables_finished``: of that stage, or of the whole robot competition)."""

    id: int
    name: str
    kind: str
    ruleset: str
    length: str
    bot_level: str
    stages: int
    instances: int
    starts_at: str | None
    window_end: str | None
    entry_limit: int
    turn_seconds: int
    private: bool
    status: str
    stage: int
    entrants: int
    rounds: int
    director_id: int
    tables: int
    tables_finished: int


class EntrantOut(BaseModel):
    id: int
    name: str
    account_id: int
    removed: bool


class StandingOut(BaseModel):
    entrant: int
    name: str
    account_id: int
    mp: int
    top: int
    percent: float
    place: int
    removed: bool
    left: bool


class AdjustmentOut(BaseModel):
    stage: int
    instance: int
    round: int
    reason: str
    entrant: int | None
    mp: int | None
    table: int | None
    seat: int | None
    score: int | None
    by: str
    at: str


class MineOut(BaseModel):
    """The caller's own part: its entry, its table in the stage in play, and how far it has played."""

    entry: int | None
    table_id: int | None
    boards_seen: int
    table_over: bool = Field(description="Whether the caller is done at its table of the stage in play: the "
                             "table has finished (an egyptian table ended by a leaver too, short of the "
                             "stage's boards) or the caller left it. `boards_seen` alone cannot say so.")
    left: bool = Field(default=False, description="Whether the caller left the competition (RULES.md, "
                       "Standings: a leaver is out of it, its unfinished boards score 0 MP), so nothing "
                       "waits for it.")


class CompetitionDetailOut(CompetitionOut):
    director: str
    invite_code: str | None = Field(None, description="Shown only to the director (and moderators).")
    manager: bool = Field(description="Whether the caller may manage it (its director, a moderator).")
    entrants_list: list[EntrantOut]
    standings: list[StandingOut]
    adjustments: list[AdjustmentOut]
    mine: MineOut


async def _account(hub: Hub, creds: Creds) -> Account | None:
    return await verified_account(hub, creds)


def _summary(found: CompetitionField) -> CompetitionOut:
    return CompetitionOut(**summary(found))


async def _names(hub: Hub, ids: set[int]) -> dict[int, str]:
    if not ids:
        return {}
    async with hub.session() as db:
        return dict((await db.execute(select(Account.id, Account.name).where(Account.id.in_(ids)))).tuples()
                    .all())


def _mine(found: CompetitionField, account: Account | None) -> MineOut:
    entry = found.entry_of(None if account is None else account.id)
    if entry is None or entry.withdrawn:
        return MineOut(entry=None, table_id=None, boards_seen=0, table_over=False)
    stage = found.comp.stage or 1
    table = found.table_of(entry.id, stage)
    if table is None:
        return MineOut(entry=entry.id, table_id=None, boards_seen=0, table_over=False)
    seen = found.boards_seen(entry.id, table.stage, table.instance)
    over = table.finished or seats_of(table).index(entry.id) in found.left_at(table)
    left = any(x.entry_id == entry.id for x in found.leaves)
    return MineOut(entry=entry.id, table_id=table.table_id, boards_seen=seen, table_over=over, left=left)


async def _detail(hub: Hub, found: CompetitionField, account: Account | None) -> CompetitionDetailOut:
    comp = found.comp
    names = await _names(hub, {comp.director_id, *(a.by_account for a in found.adjustments)})
    manager = account is not None and (account.id == comp.director_id or account.moderator)
    return CompetitionDetailOut(
        **summary(found), director=names.get(comp.director_id, "?"),
        invite_code=comp.invite_code if manager else None, manager=manager,
        entrants_list=[EntrantOut(id=e.id, name=e.name, account_id=e.account_id, removed=e.removed)
                       for e in sorted(found.entries.values(), key=lambda e: e.entry_no) if not e.withdrawn],
        standings=[StandingOut(**r) for r in standing_rows(found)],
        adjustments=[AdjustmentOut(stage=a.stage, instance=a.instance, round=a.round, reason=a.reason,
                                   entrant=a.entry_id, mp=a.mp, table=a.table_id, seat=a.seat, score=a.score,
                                   by=names.get(a.by_account, "?"), at=iso(a.at) or "")
                     for a in sorted(found.adjustments, key=lambda a: a.id)],
        mine=_mine(found, account))


@router.post("/competitions", status_code=201,
             responses={422: {"description": "Unknown ruleset, length or bot level; a bad schedule."}})
async def create_competition(body: CompetitionIn, hub: HubDep, me: Me) -> CompetitionDetailOut:
    """Create a competition; the caller is its director. ``swiss``: stage 1 is seated at the start time
    (the director may start it early); ``robot``: entrants play inside the window."""
    levels = bot_levels()
    if body.bot_level not in levels:
        raise HTTPException(422, f"unknown bot level {body.bot_level!r} (known: {', '.join(levels)})")
    now = dt.datetime.now(dt.UTC).replace(tzinfo=None)
    starts_at = now + dt.timedelta(seconds=body.starts_in)
    window = body.window_seconds
    window_end = None if window is None else starts_at + dt.timedelta(seconds=window)
    comp = await hub.competitions.create(me, Spec(
        name=body.name, kind=body.kind, ruleset=body.ruleset, length=body.length, bot_level=body.bot_level,
        stages=body.stages if body.kind == "swiss" else 1, instances=body.instances, starts_at=starts_at,
        window_end=window_end, entry_limit=body.entry_limit, turn_seconds=body.turn_seconds,
        private=body.private))
    found = await hub.competitions.visible(comp.id, me, None)
    return await _detail(hub, found, me)


@router.get("/competitions")
async def list_competitions(hub: HubDep, creds: Creds,
                            status: Literal["upcoming", "running", "finished"] = "upcoming",
                            limit: Limit = 50, offset: Offset = 0) -> list[CompetitionOut]:
    """Public competitions by status (``running`` includes paused ones), and the private ones the caller
    directs or has entered. Upcoming soonest first; the others newest first."""
    account = await _account(hub, creds)
    statuses = ("running", "paused") if status == "running" else (status,)
    async with hub.session() as db:
        query = select(Competition.id).where(Competition.status.in_(statuses))
        if account is None:
            query = query.where(Competition.private.is_(False))
        else:
            entered = select(CompetitionEntry.competition_id).where(CompetitionEntry.account_id == account.id)
            query = query.where(or_(Competition.private.is_(False), Competition.director_id == account.id,
                                    Competition.id.in_(entered)))
        order = Competition.starts_at.asc() if status == "upcoming" else Competition.id.desc()
        ids = (await db.scalars(query.order_by(order).limit(limit).offset(offset))).all()
    out = []
    for cid in ids:
        found = await hub.competitions.visible(cid, account, None, with_games=False)
        out.append(_summary(found))
    return out


@router.get("/competitions/{competition_id}", responses={404: {"description": "No such competition."}})
async def get_competition(competition_id: CompetitionId, hub: HubDep, creds: Creds,
                          invite: Invite = None) -> CompetitionDetailOut:
    """A competition: rules, schedule, entrants, standings (MP, top, percentage, place), the director's
    adjustments with their reasons (an audit trail), and the caller's own entry and table."""
    account = await _account(hub, creds)
    found = await hub.competitions.visible(competition_id, account, invite)
    return await _detail(hub, found, account)


@router.post("/competitions/{competition_id}/register", status_code=201,
             responses={404: {"description": "No such competition (or a private one without its invite)."},
                        409: {"description": "Registered already, full, or closed."}})
async def register(competition_id: CompetitionId, body: EntryIn, hub: HubDep, me: Me,
                   invite: Invite = None) -> CompetitionDetailOut:
    """Enter (a swiss until its start; a robot competition until its window closes)."""
    await hub.competitions.register(competition_id, me, body.invite or invite)
    return await _detail(hub, await hub.competitions.visible(competition_id, me, None), me)


@router.post("/competitions/{competition_id}/withdraw", responses={409: {"description": "Not registered, "
                                                                                         "or started."}})
async def withdraw(competition_id: CompetitionId, hub: HubDep, me: Me) -> CompetitionDetailOut:
    """Withdraw before the start; in a robot competition's window, end your table (the boards you have not
    finished score 0 MP)."""
    await hub.competitions.withdraw(competition_id, me)
    return await _detail(hub, await hub.competitions.visible(competition_id, me, None), me)


@router.post("/competitions/{competition_id}/start",
             responses={403: {"description": "Not its director."}, 409: {"description": "Started already."}})
async def start(competition_id: CompetitionId, hub: HubDep, me: Me) -> CompetitionDetailOut:
    """The director starts early (otherwise the server starts it at its start time)."""
    await hub.competitions.start_now(competition_id, me)
    return await _detail(hub, await hub.competitions.visible(competition_id, me, None), me)


@router.post("/competitions/{competition_id}/pause", responses={403: {"description": "Not its director."}})
async def pause(competition_id: CompetitionId, hub: HubDep, me: Me) -> CompetitionDetailOut:
    """No stage starts and no robot table opens until resumed (tables in play finish their stage)."""
    await hub.competitions.pause(competition_id, me, True)
    return await _detail(hub, await hub.competitions.visible(competition_id, me, None), me)


@router.post("/competitions/{competition_id}/resume", responses={403: {"description": "Not its director."}})
async def resume(competition_id: CompetitionId, hub: HubDep, me: Me) -> CompetitionDetailOut:
    await hub.competitions.pause(competition_id, me, False)
    return await _detail(hub, await hub.competitions.visible(competition_id, me, None), me)


@router.post("/competitions/{competition_id}/entrants/{entrant}/remove",
             responses={403: {"description": "Not its director."}, 404: {"description": "No such entrant."}})
async def remove(competition_id: CompetitionId, entrant: Annotated[int, Path(ge=1, le=2_147_483_647)],
                 hub: HubDep, me: Me) -> CompetitionDetailOut:
    """Remove an entrant: before the start, out of the field; afterwards a bot takes its seat."""
    await hub.competitions.remove(competition_id, me, entrant)
    return await _detail(hub, await hub.competitions.visible(competition_id, me, None), me)


@router.post("/competitions/{competition_id}/adjustments", status_code=201,
             responses={403: {"description": "Not its director."},
                        422: {"description": "No such board, table, seat or entrant; MP beyond the top."}})
async def adjust(competition_id: CompetitionId, body: AdjustIn, hub: HubDep, me: Me) -> CompetitionDetailOut:
    """Adjust a board's result with a reason; the standings list every adjustment (an audit trail)."""
    await hub.competitions.adjust(competition_id, me, {
        "stage": body.stage, "instance": body.instance, "round": body.round, "reason": body.reason,
        "entry_id": body.entrant, "mp": body.mp, "table_id": body.table, "seat": body.seat,
        "score": body.score})
    return await _detail(hub, await hub.competitions.visible(competition_id, me, None), me)


@router.get("/competitions/{competition_id}/standings")
async def get_standings(competition_id: CompetitionId, hub: HubDep, creds: Creds,
                        invite: Invite = None) -> list[StandingOut]:
    """The standings: by percentage (exactly, as fractions), equal percentages sharing a place."""
    found = await hub.competitions.visible(competition_id, await _account(hub, creds), invite)
    return [StandingOut(**r) for r in standing_rows(found)]


#: A traveller's tables a page (a robot instance has one a entrant: 10,000 of them).
TRAVELLER_PAGE = 50


@router.get("/competitions/{competition_id}/boards/{stage}/{round}",
            responses={403: {"description": "Not a board you have finished (fair play)."}})
async def board_traveller(competition_id: CompetitionId, stage: Stage, round: Round, hub: HubDep,
                          creds: Creds, instance: Annotated[int, Query(ge=1, le=100)] = 1,
                          offset: Annotated[int | None, Query(ge=0, le=1_000_000)] = None,
                          limit: Annotated[int, Query(ge=1, le=500)] = TRAVELLER_PAGE,
                          invite: Invite = None) -> dict[str, Any]:
    """A board's traveller: every table's seats, declarations, estimates, tricks, round scores and MP, a
    page of ``limit`` tables from ``offset`` (by default the page with the viewer's own table, else the
    first); ``tables_total`` says how many there are and ``mine`` which is the viewer's. Only for an
    entrant who has finished the board, or anyone once its stage is over at every table (a robot
    competition: once it is over)."""
    account = await _account(hub, creds)
    found = await hub.competitions.visible(competition_id, account, invite)
    if round > found.rounds:
        raise HTTPException(404, f"there is no round {round} (a stage has {found.rounds})")
    entry = found.entry_of(None if account is None else account.id)
    seen = found.boards_seen(None if entry is None else entry.id, stage, instance)
    if seen < round:
        raise HTTPException(403, "you can see a board's traveller once you have finished it (or once its "
                                 "stage is over at every table)")
    scored = found.scored()
    board = next((b for b in scored.boards if b.board == (stage, instance, round)), None)
    if board is None:
        raise HTTPException(404, "there is no such board")
    mine = None if entry is None else next(
        (i for i, t in enumerate(board.tables) if entry.id in t.seats), None)
    if offset is None:
        offset = 0 if mine is None else mine - mine % limit
    page = dataclasses.replace(board, tables=board.tables[offset:offset + limit])
    lines = await found.lines(hub, [t.table for t in page.tables])
    return {"stage": stage, "instance": instance, "round": round, "top": board.top,
            "tables_total": len(board.tables), "offset": offset, "limit": limit,
            "mine": None if mine is None else board.tables[mine].table,
            "tables": traveller(page, lines, scored.plays)}


@router.get("/competitions/{competition_id}/me")
async def my_summary(competition_id: CompetitionId, hub: HubDep, me: Me) -> dict[str, Any]:
    """The caller's own boards: MP, top and percentage on each board it held a seat at (only the boards it
    has finished, or all once their stage is over), the best and worst, and its standing."""
    found = await hub.competitions.visible(competition_id, me, None)
    entry = found.entry_of(me.id)
    if entry is None or entry.withdrawn:
        raise HTTPException(409, "you have not entered this competition")
    scored = found.scored()
    boards: list[dict[str, Any]] = []
    for eb in scored.results:
        if eb.entrant != entry.id:
            continue
        key = eb.board
        if found.boards_seen(entry.id, key.stage, key.instance) < key.round:
            continue
        boards.append({"stage": key.stage, "instance": key.instance, "round": key.round, "table": eb.table,
                       "seat": eb.seat, "mp": eb.mp, "top": eb.top, "outcome": eb.outcome,
                       "percent": percent(eb.mp, eb.top) if eb.top else None})
    counted = [b for b in boards if b["top"]]

    def share(b: dict[str, Any]) -> Fraction:
        return fraction(int(b["mp"]), int(b["top"]))

    best = max(counted, key=lambda b: (share(b), -b["stage"], -b["round"]), default=None)
    worst = min(counted, key=lambda b: (share(b), b["stage"], b["round"]), default=None)
    row = next((r for r in standing_rows(found) if r["entrant"] == entry.id), None)
    return {"entrant": entry.id, "boards": boards, "best": best, "worst": worst, "standing": row}


@router.post("/competitions/{competition_id}/play",
             responses={409: {"description": "Not a robot competition, not registered, or not running."}})
async def play(competition_id: CompetitionId, hub: HubDep, me: Me) -> dict[str, int]:
    """A robot competition: your own table (seat 0, three bots, no clock), made the first time; the same
    table every later time, to go on where you were."""
    return {"table_id": await hub.competitions.play_robot(competition_id, me)}


@router.get("/competitions/{competition_id}/export",
            responses={409: {"description": "Not finished yet."}})
async def export(competition_id: CompetitionId, hub: HubDep, creds: Creds,
                 invite: Invite = None) -> dict[str, Any]:
    """A finished competition's `estimation-competition/1` (RECORD.md): every table's record with every
    hand, each board's figures and the standings, checkable with `estimation competition score`."""
    found = await hub.competitions.visible(competition_id, await _account(hub, creds), invite)
    if found.comp.status != "finished":
        raise HTTPException(409, "the competition is not finished")
    await found.load_games(hub)
    return dict(found.export())
