"""Accounts people can manage: password, display name, signing out everywhere, deleting the account, and
the daily coin grant.

Deleting an account keeps its games: its history rows stay, its seats, the records and the tables'
join/start events show it as :data:`ANONYMOUS`; its wallet is closed with one ``close`` ledger row that
takes the balance to zero (so the account's ledger still sums to its balance, and the coins closed are
in the ledger: every wallet plus every pot equals the grants plus the closes); its sessions end and it can
no longer sign in (no login, no password).

The daily grant tops a wallet up to ``daily_grant_to`` (1000) once per UTC day. Its ledger key names the
account and the day, so a second grant that day, even one racing the first in another transaction or
process, is refused by the ledger's unique key; the amount is read from the balance in the same statement
that writes the row.
"""

from __future__ import annotations

import datetime as dt
import json
from typing import TYPE_CHECKING, Annotated, Any

from fastapi import APIRouter, HTTPException, Response
from pydantic import BaseModel, Field
from sqlalchemy import delete, insert, literal, select, update
from sqlalchemy.exc import IntegrityError

from ..access import auth, names
from ..routes.lobby import AccountOut, Creds, HubDep, Me, Name, Password, Strict, _account_out, _password_work
from ..storage.models import Account, Event, LedgerEntry, Mute, Seat, Session, Table, utcnow

if TYPE_CHECKING:
    from sqlalchemy.ext.asyncio import AsyncSession

    from ..hub import Hub

#: A deleted account's name, wherever it appeared.
ANONYMOUS = "Deleted player"


def login_of(name: str) -> str:
    """The unique key of an account's name, exactly as ``auth.register`` computes it at sign-up."""
    return names.key(name)


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
    ok = await _password_work(hub, auth.check_password, me.password_hash, body.old_password)
    if not ok:
        raise HTTPException(403, "the old password is wrong")
    try:  # the same policy as at sign-up (names.password), on the hashing threads
        new_hash = await _password_work(hub, auth.new_password_hash, me.name, body.new_password)
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
            taken = await db.scalar(select(Account.id).where(Account.login == login, Account.id != me.id))
            if taken is not None:  # a guest cannot take a registered player's name either
                raise HTTPException(409, "that name is taken")
            if not account.is_guest:
                account.login = login
            account.name = body.name
    except IntegrityError:
        raise HTTPException(409, "that name is taken") from None
    return _account_out(account)


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
        ok = await _password_work(hub, auth.check_password, me.password_hash,
                                  (body.password if body is not None else None) or "")
        if not ok:
            raise HTTPException(403, "the password is wrong")
    async with hub.seating(me.id):
        live = await hub.live_table(me.id)
        if live is not None:
            raise HTTPException(409, f"you are seated at table {live}: leave it, or finish its game, first")
        await erase(hub, me.id)
    return Response(status_code=204)


async def erase(hub: Hub, account_id: int) -> list[int]:
    """Anonymise and close an account; the tables whose records were rewritten."""
    async with hub.session() as db, db.begin():
        account = await db.get(Account, account_id, with_for_update=True)
        if account is None or account.deleted_at is not None:
            return []
        if account.balance:
            db.add(LedgerEntry(key=f"close:{account_id}", account_id=account_id, table_id=None, kind="close",
                               amount=-account.balance))
            await db.execute(update(Account).where(Account.id == account_id)
                             .values(balance=Account.balance - account.balance)
                             .execution_options(synchronize_session=False))
        await db.execute(update(Account).where(Account.id == account_id).values(
            name=ANONYMOUS, login=None, password_hash=None, deleted_at=utcnow(), moderator=False)
            .execution_options(synchronize_session=False))
        await db.execute(delete(Session).where(Session.account_id == account_id))
        await db.execute(delete(Mute).where(Mute.account_id == account_id))
        seats = (await db.execute(select(Seat.table_id, Seat.seat)
                                  .where(Seat.account_id == account_id))).all()
        await db.execute(update(Seat).where(Seat.account_id == account_id).values(name=ANONYMOUS)
                         .execution_options(synchronize_session=False))
        tables = await _anonymise_records(db, [(int(t), int(s)) for t, s in seats])
    for table_id, seat in seats:
        runtime = hub.runtimes.get(int(table_id))
        if runtime is not None:
            runtime.seats[int(seat)].name = ANONYMOUS
            if runtime.game is not None:
                players = list(runtime.game.players)
                players[int(seat)] = ANONYMOUS
                runtime.game.players = tuple(players)
    hub.end_sessions_of(account_id)  # its sessions are gone: so are their sockets
    return tables


async def _anonymise_records(db: AsyncSession, seats: list[tuple[int, int]]) -> list[int]:
    """The name at these (table, seat)s becomes ANONYMOUS in the records and the join/start events."""
    by_table: dict[int, set[int]] = {}
    for t, s in seats:
        by_table.setdefault(t, set()).add(s)
    done = []
    for table_id, mine in sorted(by_table.items()):
        record = await db.scalar(select(Table.record).where(Table.id == table_id))
        if record is not None:
            data = json.loads(record)
            players = data.get("players")
            if isinstance(players, list):
                for s in mine:
                    if 0 <= s < len(players):
                        players[s] = ANONYMOUS
                await db.execute(update(Table).where(Table.id == table_id)
                                 .values(record=json.dumps(data, separators=(",", ":")))
                                 .execution_options(synchronize_session=False))
                done.append(table_id)
        events = (await db.execute(select(Event.version, Event.data).where(
            Event.table_id == table_id, Event.action.is_(None)))).all()
        for version, raw in events:
            changed = False
            items: list[dict[str, Any]] = json.loads(raw)
            for ev in items:
                if ev.get("kind") == "join" and ev.get("seat") in mine and "name" in ev:
                    ev["name"], changed = ANONYMOUS, True
                elif ev.get("kind") == "start" and isinstance(ev.get("players"), list):
                    for s in mine:
                        if 0 <= s < len(ev["players"]):
                            ev["players"][s], changed = ANONYMOUS, True
            if changed:
                await db.execute(update(Event).where(Event.table_id == table_id, Event.version == version)
                                 .values(data=json.dumps(items, separators=(",", ":")))
                                 .execution_options(synchronize_session=False))
    return done


def _day(now: dt.datetime) -> dt.date:
    return now.date()


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
    day = _day(now)
    tomorrow = dt.datetime.combine(day + dt.timedelta(days=1), dt.time())
    return GrantOut(granted=granted, balance=balance, day=day.isoformat(), next_at=tomorrow.isoformat() + "Z")


async def grant(hub: Hub, account_id: int, now: dt.datetime) -> int:
    """The day's top-up for this account, written once; the coins granted (0 if none)."""
    key = f"daily:{account_id}:{_day(now).isoformat()}"
    top = hub.settings.daily_grant_to
    try:
        async with hub.session() as db, db.begin():
            # The row's amount is read from the balance by the statement that writes it; a second grant the
            # same day fails on the ledger's unique key and rolls back with everything else.
            source = select(literal(key), Account.id, literal("grant"), top - Account.balance, literal(now)) \
                .where(Account.id == account_id, Account.balance < top, Account.is_guest.is_(False),
                       Account.deleted_at.is_(None))
            written = await db.execute(insert(LedgerEntry).from_select(
                ["key", "account_id", "kind", "amount", "created_at"], source))
            if written.rowcount != 1:  # type: ignore[attr-defined]  # a full wallet: nothing to grant
                return 0
            amount = await db.scalar(select(LedgerEntry.amount).where(LedgerEntry.key == key))
            if amount is None:
                return 0
            await db.execute(update(Account).where(Account.id == account_id)
                             .values(balance=Account.balance + int(amount))
                             .execution_options(synchronize_session=False))
            return int(amount)
    except IntegrityError:
        return 0
