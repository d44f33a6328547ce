"""Managing one's account over REST: password, name, signing out everywhere, deletion, the daily grant."""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING, Annotated

from fastapi import APIRouter, HTTPException, Response
from pydantic import BaseModel, Field
from sqlalchemy import delete, select, update
from sqlalchemy.exc import IntegrityError

from ..access import auth, names
from ..storage.models import Account, Session, utcnow
from .deps import Creds, HubDep, Me, Name, Password, Strict, password_work
from .schemas import AccountOut, account_out

if TYPE_CHECKING:

    pass
from ..social.accounts import day_of, erase, grant, login_of

router = APIRouter(prefix="/api", tags=["players"])


class PasswordIn(Strict):
    old_password: Annotated[str, Field(max_length=128)]
    new_password: Password


class NameIn(Strict):
    name: Name


class DeleteIn(Strict):
    password: Annotated[str | None, Field(max_length=128, description="Accounts confirm with it; guests "
                                                                       "send null.")] = None


class GrantOut(BaseModel):
    granted: int = Field(description="Coins added now (0: already granted today, or the wallet is full).")
    balance: int
    day: str = Field(description="The UTC day this grant is for.")
    next_at: str = Field(description="When the next grant can be asked for (UTC midnight).")


@router.put("/me/password", status_code=204, responses={
    403: {"description": "Wrong old password, or a guest (no password)."}})
async def change_password(body: PasswordIn, hub: HubDep, me: Me, creds: Creds) -> Response:
    """Change the password, giving the old one. Every other session of the account is signed out."""
    if me.is_guest or me.password_hash is None:
        raise HTTPException(403, "guests have no password: register an account")
    ok = await password_work(hub, auth.check_password, me.password_hash, body.old_password)
    if not ok:
        raise HTTPException(403, "the old password is wrong")
    try:  # the same policy as at sign-up (names.password), on the hashing threads
        new_hash = await password_work(hub, auth.new_password_hash, me.name, body.new_password)
    except ValueError as exc:
        raise HTTPException(422, str(exc)) from None
    assert creds is not None
    kept = auth.hash_token(creds.credentials)
    async with hub.session() as db, db.begin():
        await db.execute(update(Account).where(Account.id == me.id).values(password_hash=new_hash)
                         .execution_options(synchronize_session=False))
        await db.execute(delete(Session).where(Session.account_id == me.id, Session.token_hash != kept))
    hub.end_sessions_of(me.id, keep=kept)  # their sockets too
    return Response(status_code=204)


@router.put("/me/name", responses={409: {"description": "The name is taken."}})
async def change_name(body: NameIn, hub: HubDep, me: Me) -> AccountOut:
    """Change the display name (validated as at sign-up; unique among accounts, as the sign-in name is).
    Seats already taken and finished games keep the name they were played under."""
    try:
        async with hub.session() as db, db.begin():
            account = await db.get(Account, me.id)
            assert account is not None
            login = login_of(body.name)
            taken = await db.scalar(select(Account.id).where(auth.same_name(body.name), Account.id != me.id)
                                    .limit(1))
            if taken is not None:  # nor a look-alike; a guest cannot take a registered player's name either
                raise HTTPException(409, "that name is taken")
            if not account.is_guest:
                account.login, account.name_key = login, names.skeleton(body.name)
            account.name = body.name
    except IntegrityError:
        raise HTTPException(409, "that name is taken") from None
    return account_out(account)


@router.delete("/me/sessions", status_code=204)
async def sign_out_everywhere(hub: HubDep, me: Me) -> Response:
    """Sign out of every session of this account, this one included."""
    async with hub.session() as db, db.begin():
        await db.execute(delete(Session).where(Session.account_id == me.id))
    hub.end_sessions_of(me.id)  # and every socket they opened
    return Response(status_code=204)


@router.delete("/me", status_code=204, responses={
    403: {"description": "Wrong password."}, 409: {"description": "Seated at a table that is not over."}})
async def delete_account(hub: HubDep, me: Me, body: DeleteIn | None = None) -> Response:
    """Delete the account: its games stay under the name "Deleted player", its wallet is closed in the
    ledger, every session ends, and it can never sign in again. An account confirms with its password."""
    if not me.is_guest:
        ok = await password_work(hub, auth.check_password, me.password_hash,
                                  (body.password if body is not None else None) or "")
        if not ok:
            raise HTTPException(403, "the password is wrong")
    async with hub.seating(me.id):
        live = await hub.live_table(me.id)
        if live is not None:
            raise HTTPException(409, f"you are seated at table {live}: leave it, or finish its game, first")
        await erase(hub, me.id)
    return Response(status_code=204)


@router.post("/me/daily-grant", responses={403: {"description": "Guests have no wallet."}})
async def daily_grant(hub: HubDep, me: Me) -> GrantOut:
    """Top the wallet up to 1000 coins, once per UTC day (a ``grant`` ledger row). Asking again the same day,
    or with a full wallet, grants nothing; concurrent requests grant once."""
    if me.is_guest:
        raise HTTPException(403, "guests have no wallet: register an account")
    now = utcnow()
    granted = await grant(hub, me.id, now)
    async with hub.session() as db:
        balance = int(await db.scalar(select(Account.balance).where(Account.id == me.id)) or 0)
    day = day_of(now)
    tomorrow = dt.datetime.combine(day + dt.timedelta(days=1), dt.time())
    return GrantOut(granted=granted, balance=balance, day=day.isoformat(), next_at=tomorrow.isoformat() + "Z")


