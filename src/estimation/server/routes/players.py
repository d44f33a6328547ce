"""Players: guests, accounts, sessions, the wallet's ledger, and a player's games and stats."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException, Request, Response
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from ..access import auth, names
from ..access.ratelimit import peer
from ..hub import Hub
from ..storage import history
from ..storage.models import Account, LedgerEntry
from ..table.runtime import TableError
from .deps import (
    TOO_MANY,
    Creds,
    HubDep,
    Limit,
    Me,
    Name,
    Offset,
    Password,
    PlayerId,
    Strict,
    account_id_of,
    limit_creating,
    password_work,
)
from .schemas import AccountOut, GameOut, SessionOut, account_out

router = APIRouter(prefix="/api", responses=TOO_MANY)


class GuestIn(Strict):
    name: Name


class CredentialsIn(Strict):
    name: Name
    password: Password


class LedgerOut(BaseModel):
    id: int
    kind: str
    amount: int
    table_id: int | None
    key: str


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


def _new_session(hub: Hub, account: Account, token: str) -> SessionOut:
    hub.verified.note(auth.hash_token(token), account.id, auth.expiry(hub.settings.session_seconds))
    return SessionOut(token=token, expires_in=hub.settings.session_seconds, account=account_out(account))



@router.post("/guests", status_code=201, tags=["players"],
             responses={409: {"description": "The name is a registered player's."}})
async def new_guest(body: GuestIn, hub: HubDep, request: Request) -> SessionOut:
    """Play as a guest: a display name, no password, no wallet (guests cannot stake). A guest cannot take
    a registered player's name (compared as names are: case, width and look-alikes aside)."""
    await limit_creating("guest", hub, request)
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
    await limit_creating("account", hub, request)
    async with hub.session() as db:
        if await auth.name_taken(db, body.name):
            raise HTTPException(409, "that name is taken")
    try:
        password_hash = await password_work(hub, auth.new_password_hash, body.name, body.password)
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
    address = peer(request.scope)
    if not await hub.sign_ins.allow(address):
        raise TableError("rate_limited", "too many sign-in attempts from your address: try again later", 429)
    login = names.key(body.name)
    settings = hub.settings
    wrong = await hub.wrong_passwords.count(login)
    if settings.account_wrong_passwords > 0 and wrong >= settings.account_wrong_passwords:
        raise TableError("rate_limited", "too many wrong passwords for this account: try again in "
                                         f"{settings.wrong_password_window_seconds / 60:g} minutes", 429)
    async with hub.session() as db:
        account = await db.scalar(select(Account).where(Account.login == login))
    # Wrong passwords from this address or for this account, and a name nobody has (names are public),
    # put this attempt behind everyone else's in the hashing queue.
    weight = wrong + hub.wrong_from.here(address) + (account is None)
    if not hub.hashing.would_take(weight):  # refused before the hashing: a flood must cost little
        await hub.wrong_from.add(address)
        raise TableError("busy", "too many sign-ins at once: try again in a moment", 429)
    stored = account.password_hash if account is not None else None
    try:
        ok = await password_work(hub, auth.check_password, stored, body.password, key=address,
                                 weight=weight)
    except TableError:  # busy: made room for a lighter attempt
        await hub.wrong_from.add(address)
        raise
    if account is None or not ok:
        await hub.wrong_passwords.add(login)
        await hub.wrong_from.add(address)
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
    return account_out(me)


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
    own = await account_id_of(hub, creds) == player_id
    async with hub.session() as db:
        return [GameOut(**g) for g in await history.games_of(db, player_id, limit, offset, private=own)]


@router.get("/players/{player_id}/stats", tags=["history"])
async def player_stats(player_id: PlayerId, hub: HubDep, creds: Creds) -> StatsOut:
    """Games, wins, average score, make rate; per ruleset with level points (egyptian: 30/10/4), those
    points and the badge. In partnership games the outcome is the side's. Games at private tables count in
    the player's own view only."""
    own = await account_id_of(hub, creds) == player_id
    async with hub.session() as db:
        return StatsOut(**await history.stats_of(db, player_id, private=own))


