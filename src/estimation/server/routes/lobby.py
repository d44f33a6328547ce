"""The lobby: REST endpoints for players, tables, wallets and history (documented at /docs and /openapi.json).

Every input is bounded by its schema (lengths, ranges, strict types: a number is a JSON number, never
``"10"``, ``10.0`` or ``true``; every string valid Unicode, no lone surrogates; names by ``names``), so that
nothing a client sends can reach the database in a form it rejects: a bad request is a 4xx, never a 500.
Table changes go through the table's runtime (its lock), exactly as WebSocket actions do. A private table is
answered exactly as a missing one to anyone it does not admit, and its games stay out of other people's
view of a player's history and stats. Invite codes travel in the ``X-Invite-Code`` header or a JSON body,
never in a URL (URLs end up in logs, histories and Referer headers).
"""

from __future__ import annotations

import hmac
import json
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Header, HTTPException, Path, Query, Request, Response
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, field_validator
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from ...record import load_record, replay_summary
from ...rulesets import DEFAULT_RULESET, RULESETS
from ..access import auth, names
from ..access.ratelimit import peer
from ..hub import Hub
from ..storage import history
from ..storage.models import Account, LedgerEntry, Seat, Table
from ..table import wallets
from ..table.runtime import TableError, TableRuntime, no_such_table

router = APIRouter(prefix="/api", responses={429: {
    "description": "Too many requests from this client (its session token, else its address); the body says "
                   "the limit, Retry-After says when to try again. See ratelimit.py."}})
bearer = HTTPBearer(auto_error=False, description="A session token from /api/guests, /api/accounts or "
                                                   "/api/sessions.")


def _encodable(text: str) -> str:
    """Refuse text that no database or screen can take: lone surrogates (JSON's ``"\\ud800"``)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError("text must be valid Unicode (no lone surrogates)") from None
    return text


def _name(text: str) -> str:
    """A player's name in its shown form (``names.shown``: PRECIS Nickname, no look-alikes)."""
    return names.shown(_encodable(text))


Name = Annotated[str, Field(min_length=1, max_length=32, examples=["Ann"]), AfterValidator(_name)]
Password = Annotated[str, Field(min_length=8, max_length=128), AfterValidator(_encodable)]
Code = Annotated[str, Field(min_length=1, max_length=32, pattern=r"^[A-Za-z0-9_-]+$")]
TableId = Annotated[int, Path(ge=1, le=2_147_483_647, description="A table's id.")]
PlayerId = Annotated[int, Path(ge=1, le=2_147_483_647, description="A player's id.")]
Limit = Annotated[int, Query(ge=1, le=100)]
Offset = Annotated[int, Query(ge=0, le=1_000_000)]


class Strict(BaseModel):
    """Every request body: no unknown keys, strict types (an integer is a JSON integer: not ``"10"``,
    ``10.0`` or ``true``; a boolean is ``true`` or ``false``), and every string in it valid Unicode."""

    model_config = ConfigDict(extra="forbid", strict=True)

    @field_validator("*", mode="after")
    @classmethod
    def _text_is_unicode(cls, value: Any) -> Any:
        for text in _texts(value):
            _encodable(text)
        return value


def _texts(value: Any) -> Any:
    if isinstance(value, str):
        yield value
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _texts(item)


class GuestIn(Strict):
    name: Name


class CredentialsIn(Strict):
    name: Name
    password: Password


class AccountOut(BaseModel):
    id: int
    name: str
    guest: bool
    balance: int


class SessionOut(BaseModel):
    token: str = Field(description="Send as 'Authorization: Bearer TOKEN', and in the WebSocket hello.")
    expires_in: int = Field(description="Seconds until the token expires.")
    account: AccountOut


class TableIn(Strict):
    ruleset: Annotated[str, Field(max_length=32, examples=[DEFAULT_RULESET])] = DEFAULT_RULESET
    length: Annotated[str | None, Field(max_length=32, examples=["micro"])] = None
    stake: Annotated[int, Field(ge=0, le=1_000_000, description="Coins per staker; 0: not staked.")] = 0
    private: bool = Field(False, description="Private tables are not listed; joining needs the invite code.")
    bot_seats: Annotated[list[Annotated[int, Field(ge=0, le=3)]], Field(max_length=3)] = Field(
        default_factory=list, description="Seats filled by bots from the start (at most three).")
    bot_level: Annotated[str, Field(max_length=32)] = "random"
    turn_seconds: Annotated[int, Field(ge=0, le=3600, description="The turn clock; 0: none.")] = 60
    partners: bool = Field(False, description="A partnership table (RULES.md, Partnerships): seats 0+2 play "
                                              "against 1+3; standings, history and the pot are by side. A "
                                              "player who asks for no seat sits opposite a human who has no "
                                              "partner yet.")


class JoinIn(Strict):
    seat: Annotated[int | None, Field(ge=0, le=3, description="A seat; null: the first free one.")] = None
    stake: bool = Field(False, description="Pay the table's stake into the pot (accounts only).")
    invite: Code | None = None


class SeatOut(BaseModel):
    seat: int
    name: str | None
    account_id: int | None
    bot: bool
    staked: bool
    away: bool
    left: bool


class TableOut(BaseModel):
    id: int
    ruleset: str
    length: str
    partners: bool = Field(False, description="A partnership table: seats 0+2 against 1+3.")
    stake: int
    private: bool
    bot_level: str
    turn_seconds: int
    status: str
    version: int
    pot: int
    payout: dict[str, int] | None = Field(
        default=None,
        description="A finished staked table's pot split (seat -> coins, RULES.md koutchina ruling 11); "
                    "null before the end and at unstaked tables.")
    seats: list[SeatOut]
    invite_code: str | None = Field(None, description="Shown only to the table's creator.")


class JoinOut(BaseModel):
    seat: int
    table: TableOut


class RoundOut(BaseModel):
    kind: str
    trump: str | None


class RulesetOut(BaseModel):
    """What a client needs to know of a ruleset without testing its name (``Ruleset.describe``)."""

    name: str
    lengths: list[str]
    default_length: str
    rounds: dict[str, list[RoundOut]] = Field(
        description="Each length's rounds in order: the kind a round is dealt as and its fixed trump (null: "
                    "none until the declarations name one).")
    kinds: list[str] = Field(description="Every kind a round can be (the replay's and the calculator's).")
    called_kinds: list[str] = Field(description="The kinds whose Caller comes from a Call.")
    verbs: dict[str, str | None] = Field(
        description="The verb of each part of a deal (offer, decline, auction, join, pass, declare, "
                    "estimate, play), null where the ruleset has none: the same object as a view's `verbs`.")
    offer_role: str = Field(description="The role marker of a seat that took the offer: dash_call or dash.")
    risk_levels: int = Field(description="The highest Risk level (0: none).")
    score_lines: dict[str, str] = Field(description="The score sheet lines used: breakdown field -> heading.")
    saaydeh: bool
    leaver_ends_match: bool
    level_points: dict[str, int] | None
    with_bids: bool
    offer_kinds: list[str] = Field(
        description="The kinds whose deal opens with the offer to sit out on zero.")
    first_estimator: int = Field(
        description="In a round without a Call, who estimates first: this many seats after the dealer "
                    "(1: the dealer's left; 0: the dealer).")


class LedgerOut(BaseModel):
    id: int
    kind: str
    amount: int
    table_id: int | None
    key: str


class GameOut(BaseModel):
    table_id: int
    seat: int
    ruleset: str
    length: str
    total: int
    place: int
    outcome: str
    left: bool
    rounds: int
    made: int
    coins: int
    partners: bool = Field(False, description="A partnership game: place and outcome are the side's.")
    side_total: int | None = Field(None, description="The side's total in a partnership game.")
    finished_at: str


class LevelStats(BaseModel):
    games: int
    wins: int
    draws: int
    losses: int
    level_points: int
    badge: bool


class StatsOut(BaseModel):
    # Each ruleset's level stats also appear under the ruleset's own name (as `egyptian` did before
    # `levels`): extra keys, allowed here so the model needs no ruleset's name.
    model_config = ConfigDict(extra="allow")

    games: int
    wins: int
    average_score: float | None
    make_rate: float | None
    levels: dict[str, LevelStats] = Field(
        description="Per ruleset that keeps level points: games by outcome, level points, the badge. Each "
                    "is also under its ruleset's name at the top level (`egyptian`).")


class PlayerOut(BaseModel):
    id: int
    name: str
    guest: bool


def hub_of(request: Request) -> Hub:
    hub: Hub = request.app.state.hub
    return hub


HubDep = Annotated[Hub, Depends(hub_of)]
Creds = Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)]


async def _verified(hub: Hub, creds: HTTPAuthorizationCredentials | None) -> Account | None:
    """The account a request's token signs in, remembered as verified for the rate limit's key."""
    if creds is None:
        return None
    async with hub.session() as db:
        found = await auth.session_for_token(db, creds.credentials)
    if found is None:
        return None
    session, account = found
    hub.verified.note(session.token_hash, account.id, session.expires_at)
    return account


async def current_account(hub: HubDep, creds: Creds) -> Account:
    account = await _verified(hub, creds)
    if account is None:
        raise HTTPException(401, "sign in first: unknown, missing or expired token",
                            headers={"WWW-Authenticate": "Bearer"})
    return account


def limit_creating(kind: str, hub: Hub, request: Request) -> None:
    """The per-address limit on creating guests, accounts and tables (``Settings.create_per_minute``)."""
    if not hub.allow_create(kind, peer(request.scope)):
        raise TableError("rate_limited", f"too many new {kind}s from your address: at most "
                                         f"{hub.settings.create_per_minute:g} a minute (bursts of "
                                         f"{hub.settings.create_burst}); try again later", 429)


def _new_session(hub: Hub, account: Account, token: str) -> SessionOut:
    hub.verified.note(auth.hash_token(token), account.id, auth.expiry(hub.settings.session_seconds))
    return SessionOut(token=token, expires_in=hub.settings.session_seconds, account=_account_out(account))


Me = Annotated[Account, Depends(current_account)]


def _account_out(a: Account) -> AccountOut:
    return AccountOut(id=a.id, name=a.name, guest=a.is_guest, balance=a.balance)


def bot_levels() -> list[str]:
    """The bot levels a table may seat (never the tournament-only ``omniscient``)."""
    from ...bots import LEVELS

    return list(LEVELS)


# --- players -------------------------------------------------------------------------------------------
@router.get("/health", tags=["server"])
async def health() -> dict[str, Any]:
    """Liveness only: the process answers. Its figures are Prometheus metrics on a port of their own
    (``ESTIMATION_METRICS_PORT``, see docs/deploy.md), never on the public one."""
    return {"ok": True}


@router.get("/rulesets", tags=["rules"])
async def rulesets() -> list[RulesetOut]:
    """The rulesets and lengths a table may be created with."""
    return [RulesetOut(**c().describe()) for c in RULESETS.values()]


@router.get("/bots", tags=["rules"])
async def bots() -> dict[str, list[str]]:
    """The bot levels that can fill empty seats."""
    return {"levels": bot_levels()}


async def _password_work(hub: Hub, work: Any, *args: Any) -> Any:
    """Password work on the hashing threads; 429 when too many are waiting for them already."""
    try:
        return await hub.hashing.run(work, *args)
    except auth.Busy:
        raise TableError("busy", "too many sign-ins at once: try again in a moment", 429) from None


@router.post("/guests", status_code=201, tags=["players"],
             responses={409: {"description": "The name is a registered player's."}})
async def new_guest(body: GuestIn, hub: HubDep, request: Request) -> SessionOut:
    """Play as a guest: a display name, no password, no wallet (guests cannot stake). A guest cannot take
    a registered player's name (compared as names are: case, width and look-alikes aside)."""
    limit_creating("guest", hub, request)
    async with hub.session() as db, db.begin():
        if await auth.name_taken(db, body.name):
            raise HTTPException(409, "that name belongs to a registered player")
        account = await auth.create_guest(db, body.name)
        token = await auth.open_session(db, account, hub.settings.session_seconds)
    return _new_session(hub, account, token)


@router.post("/accounts", status_code=201, tags=["players"],
             responses={409: {"description": "The name is taken."},
                        422: {"description": "A bad name, or a password that is too easy to guess."}})
async def new_account(body: CredentialsIn, hub: HubDep, request: Request) -> SessionOut:
    """Register (the password is checked for strength, then hashed with argon2) and sign in; the wallet
    gets the starting grant. Names are compared case, width and look-alikes aside ("ANN" in fullwidth
    letters is "Ann")."""
    limit_creating("account", hub, request)
    async with hub.session() as db:
        if await auth.name_taken(db, body.name):
            raise HTTPException(409, "that name is taken")
    try:
        password_hash = await _password_work(hub, auth.new_password_hash, body.name, body.password)
    except ValueError as exc:
        raise HTTPException(422, str(exc)) from None
    try:
        async with hub.session() as db, db.begin():
            account = await auth.register(db, body.name, password_hash, hub.settings.starting_grant)
            if account is None:
                raise HTTPException(409, "that name is taken")
            token = await auth.open_session(db, account, hub.settings.session_seconds)
    except IntegrityError:
        raise HTTPException(409, "that name is taken") from None
    return _new_session(hub, account, token)


@router.post("/sessions", tags=["players"], responses={401: {"description": "Wrong name or password."}})
async def sign_in(body: CredentialsIn, hub: HubDep, request: Request) -> SessionOut:
    """Sign in to an account: a new session token. Attempts are limited per address
    (``ESTIMATION_SIGN_INS_PER_MINUTE``), and hashing has a bounded queue of its own: 429 past either."""
    if not hub.sign_ins.allow(peer(request.scope)):
        raise TableError("rate_limited", "too many sign-in attempts from your address: try again later", 429)
    if hub.hashing.full:  # refused before any other work: a flood must cost as little as it can
        raise TableError("busy", "too many sign-ins at once: try again in a moment", 429)
    async with hub.session() as db:
        account = await db.scalar(select(Account).where(Account.login == names.key(body.name)))
    stored = account.password_hash if account is not None else None
    ok = await _password_work(hub, auth.check_password, stored, body.password)
    if account is None or not ok:
        raise HTTPException(401, "wrong name or password")
    async with hub.session() as db, db.begin():
        token = await auth.open_session(db, account, hub.settings.session_seconds)
    return _new_session(hub, account, token)


@router.delete("/sessions", status_code=204, tags=["players"])
async def sign_out(hub: HubDep, me: Me, creds: Creds) -> Response:
    """Sign out: this session's token stops working, and every table socket it opened is closed."""
    assert creds is not None
    async with hub.session() as db, db.begin():
        await auth.close_session(db, creds.credentials)
    hub.end_session(auth.hash_token(creds.credentials))
    return Response(status_code=204)


@router.get("/me", tags=["players"])
async def whoami(me: Me) -> AccountOut:
    """The signed-in player, with the wallet balance."""
    return _account_out(me)


@router.get("/me/ledger", tags=["wallet"])
async def my_ledger(hub: HubDep, me: Me, limit: Limit = 50, offset: Offset = 0) -> list[LedgerOut]:
    """Every coin movement of the signed-in player's wallet, newest first."""
    async with hub.session() as db:
        rows = (await db.scalars(select(LedgerEntry).where(LedgerEntry.account_id == me.id)
                                 .order_by(LedgerEntry.id.desc()).limit(limit).offset(offset))).all()
    return [LedgerOut(id=r.id, kind=r.kind, amount=r.amount, table_id=r.table_id, key=r.key) for r in rows]


@router.get("/players/{player_id}", tags=["history"], responses={404: {"description": "No such player."}})
async def player(player_id: PlayerId, hub: HubDep) -> PlayerOut:
    async with hub.session() as db:
        account = await db.get(Account, player_id)
    if account is None:
        raise HTTPException(404, "no such player")
    return PlayerOut(id=account.id, name=account.name, guest=account.is_guest)


@router.get("/players/{player_id}/games", tags=["history"])
async def player_games(player_id: PlayerId, hub: HubDep, creds: Creds, limit: Limit = 20,
                       offset: Offset = 0) -> list[GameOut]:
    """A player's finished games, newest first; each record is at /api/tables/{table_id}/record.
    Games at private tables are listed to the player only."""
    own = await _account_id(hub, creds) == player_id
    async with hub.session() as db:
        return [GameOut(**g) for g in await history.games_of(db, player_id, limit, offset, private=own)]


@router.get("/players/{player_id}/stats", tags=["history"])
async def player_stats(player_id: PlayerId, hub: HubDep, creds: Creds) -> StatsOut:
    """Games, wins, average score, make rate; per ruleset with level points (egyptian: 30/10/4), those
    points and the badge. In partnership games the outcome is the side's. Games at private tables count in
    the player's own view only."""
    own = await _account_id(hub, creds) == player_id
    async with hub.session() as db:
        return StatsOut(**await history.stats_of(db, player_id, private=own))


# --- tables --------------------------------------------------------------------------------------------
def _table_out(public: dict[str, Any], invite: str | None = None) -> TableOut:
    return TableOut(**{k: v for k, v in public.items()}, invite_code=invite)


async def _runtime(hub: Hub, table_id: int, account_id: int | None = None) -> TableRuntime:
    """The table; with ``account_id``, only if it admits that player (a private table is, to an outsider,
    no table at all: the same 404 as a missing one)."""
    runtime = await hub.get(table_id)
    if runtime is None or (account_id is not None and not runtime.admits(account_id, None)):
        raise no_such_table()
    return runtime


Invite = Annotated[str | None, Header(alias="X-Invite-Code", max_length=64,
                                      description="A private table's invite code.")]


@router.get("/tables", tags=["tables"])
async def list_tables(hub: HubDep, status: Literal["open", "playing", "finished"] = "open",
                      limit: Limit = 50, offset: Offset = 0) -> list[TableOut]:
    """Public tables: ``open`` ones to join (the default), ``playing`` ones to watch, ``finished`` ones."""
    async with hub.session() as db:
        rows = (await db.scalars(select(Table).where(Table.status == status, Table.private.is_(False))
                                 .order_by(Table.id.desc()).limit(limit).offset(offset))).all()
        ids = [r.id for r in rows]
        seats = (await db.scalars(select(Seat).where(Seat.table_id.in_(ids)))).all() if ids else []
        payouts = await wallets.paid_splits(db, ids) if status == "finished" else {}
    by_table: dict[int, list[SeatOut]] = {i: [] for i in ids}
    for s in sorted(seats, key=lambda s: (s.table_id, s.seat)):
        by_table[s.table_id].append(SeatOut(seat=s.seat, name=s.name, account_id=s.account_id, bot=s.is_bot,
                                            staked=s.staked, away=s.away, left=s.left))
    return [TableOut(id=r.id, ruleset=r.ruleset, length=r.length, partners=r.partners, stake=r.stake,
                     private=r.private,
                     bot_level=r.bot_level, turn_seconds=r.turn_seconds, status=r.status, version=r.version,
                     pot=r.pot, payout=payouts.get(r.id), seats=by_table[r.id], invite_code=None)
            for r in rows]


@router.post("/tables", status_code=201, tags=["tables"],
             responses={422: {"description": "Unknown ruleset, length or bot level."}})
async def create_table(body: TableIn, hub: HubDep, me: Me, request: Request) -> TableOut:
    """Create a table with its rules; it starts when its four seats are filled (bots count)."""
    if len(set(body.bot_seats)) != len(body.bot_seats):
        raise HTTPException(422, "bot_seats lists each seat once")
    levels = bot_levels()
    if body.bot_level not in levels:
        raise HTTPException(422, f"unknown bot level {body.bot_level!r} (known: {', '.join(levels)})")
    await _not_seated_elsewhere(hub, me.id, None)
    limit_creating("table", hub, request)
    runtime = await hub.create_table(me.id, body.ruleset, body.length, body.stake, body.private,
                                     sorted(body.bot_seats), body.bot_level, body.turn_seconds,
                                     body.partners)
    return _table_out(runtime.public(), runtime.rules.invite_code)


@router.get("/tables/{table_id}", tags=["tables"], responses={404: {"description": "No such table."}})
async def get_table(table_id: TableId, hub: HubDep, creds: Creds, invite: Invite = None) -> TableOut:
    """A table's rules, seats and status (a private one: to its creator, its players, or with the invite
    code in the ``X-Invite-Code`` header; to anyone else it is not there)."""
    runtime = await _runtime(hub, table_id)
    account_id = await _account_id(hub, creds)
    if not runtime.admits(account_id, invite):
        raise no_such_table()
    creator = account_id == runtime.created_by
    # Under the table's lock: a change being committed (the game's last action, say) has already changed
    # memory, and must not be shown before it is durable.
    async with runtime.lock:
        public = runtime.public()
    return _table_out(public, runtime.rules.invite_code if creator else None)


async def _account_id(hub: Hub, creds: HTTPAuthorizationCredentials | None) -> int | None:
    account = await _verified(hub, creds)
    return None if account is None else account.id


@router.post("/tables/{table_id}/join", tags=["tables"],
             responses={402: {"description": "Not enough coins to stake."},
                        403: {"description": "A guest trying to stake."},
                        404: {"description": "No such table (or a private one without its invite)."},
                        409: {"description": "Seat taken, table full or already started."}})
async def join_table(table_id: TableId, body: JoinIn, hub: HubDep, me: Me) -> JoinOut:
    """Take a seat (and, at a staked table, optionally stake). The fourth seat filled starts the game."""
    runtime = await _runtime(hub, table_id)
    async with hub.seating(me.id):
        await _not_seated_elsewhere(hub, me.id, table_id)
        seat = await runtime.join(me.id, me.name, me.is_guest, body.seat, body.stake, body.invite)
    return JoinOut(seat=seat, table=_table_out(runtime.public()))


async def _not_seated_elsewhere(hub: Hub, account_id: int, table_id: int | None) -> None:
    """409 while the player holds a seat at another open or playing table (one live table at a time)."""
    live = await hub.live_table(account_id)
    if live is not None and live != table_id:
        raise HTTPException(409, f"you are seated at table {live}: leave it, or finish its game, first")


@router.post("/tables/{table_id}/bots", tags=["tables"],
             responses={403: {"description": "Not the table's creator."},
                        404: {"description": "No such table."},
                        409: {"description": "The table has started, or no seat is empty."}})
async def fill_with_bots(table_id: TableId, hub: HubDep, me: Me) -> TableOut:
    """The creator seats a bot in every empty seat, which starts the game."""
    runtime = await _runtime(hub, table_id, me.id)
    await runtime.fill_with_bots(me.id)
    return _table_out(runtime.public(), runtime.rules.invite_code)


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
    return _table_out(runtime.public())


@router.get("/tables/{table_id}/view", tags=["tables"], responses={404: {"description": "No such table."}})
async def watch(table_id: TableId, hub: HubDep, creds: Creds, invite: Invite = None) -> dict[str, Any]:
    """The spectator's view (``Game.view(None)``: no hand at all); live play is on the WebSocket."""
    runtime = await _runtime(hub, table_id)
    if not runtime.admits(await _account_id(hub, creds), invite):
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
    return await _finished_record(table_id, hub, creds, invite)


@router.get("/tables/{table_id}/replay", tags=["history"],
            responses={404: {"description": "No such table."},
                       409: {"description": "The game is not finished (a record would show the hands)."}})
async def replay(table_id: TableId, hub: HubDep, creds: Creds, invite: Invite = None) -> dict[str, Any]:
    """The finished game's record replayed by the server: `estimation replay --json`'s document (`rounds`,
    `totals`, `places`, `complete`, and `sides` in a partnership game), each round with its `breakdown` (every
    seat's score lines). The replay page draws its scores from it rather than scoring by a ruleset's name.

    As private as the record."""
    record = await _finished_record(table_id, hub, creds, invite)
    return replay_summary(load_record(record))


async def _finished_record(table_id: int, hub: Hub, creds: HTTPAuthorizationCredentials | None,
                           invite: str | None) -> dict[str, Any]:
    """A finished table's record without its seed; 404 to whoever the table does not admit, 409 before the
    end."""
    account_id = await _account_id(hub, creds)
    async with hub.session() as db:
        row = await db.get(Table, table_id)
        players = set() if row is None else set((await db.scalars(
            select(Seat.account_id).where(Seat.table_id == table_id))).all())
    if row is None:
        raise no_such_table()
    mine = account_id is not None and (account_id == row.created_by or account_id in players)
    code = row.invite_code
    if row.private and not mine and not (invite is not None and code is not None
                                         and hmac.compare_digest(invite.encode(), code.encode())):
        raise no_such_table()
    if row.status != "finished" or row.record is None:
        raise HTTPException(409, "the game is not finished")
    record: dict[str, Any] = json.loads(row.record)
    record.pop("seed", None)
    return record
