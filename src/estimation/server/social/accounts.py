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
from typing import TYPE_CHECKING, Any

from sqlalchemy import delete, insert, literal, select, update
from sqlalchemy.exc import IntegrityError

from ..access import names
from ..storage.models import Account, Event, LedgerEntry, Mute, Seat, Session, Table, utcnow

if TYPE_CHECKING:
    from sqlalchemy.ext.asyncio import AsyncSession

    from ..hub import Hub

#: A deleted account's name, wherever it appeared.
ANONYMOUS = "Deleted player"


def login_of(name: str) -> str:
    """The unique key of an account's name, exactly as ``auth.register`` computes it at sign-up."""
    return names.key(name)


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
            name=ANONYMOUS, login=None, name_key=None, password_hash=None, deleted_at=utcnow(),
            moderator=False)
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


def day_of(now: dt.datetime) -> dt.date:
    return now.date()


async def grant(hub: Hub, account_id: int, now: dt.datetime) -> int:
    """The day's top-up for this account, written once; the coins granted (0 if none)."""
    key = f"daily:{account_id}:{day_of(now).isoformat()}"
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
