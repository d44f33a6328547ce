"""Accounts people can manage: password, display name, signing out everywhere, deleting the account, and
the daily coin grant.

Deleting an account keeps its games: its history rows stay, its seats, the records and the tables' join/start
events show it as :data:`ANONYMOUS` (at a table still going, and any this process holds, by a
:class:`~..table.reducer.Rename`, a change of the table made at its owner, under its lock, versioned and
published like any other; at the tables that are over, by the store's ``anonymise``); its wallet is closed
with one ``close`` ledger row that takes the balance to zero (so the account's ledger still sums to its
balance, and the coins closed are in the ledger: every wallet plus every pot equals the grants plus the
closes); its sessions end and it can no longer sign in (no login, no password).

The daily grant tops a wallet up to ``daily_grant_to`` (1000) once per UTC day. Its ledger key names the
account and the day, so a second grant that day, even one racing the first in another transaction or
process, is refused by the ledger's unique key; the amount is read from the balance in the same statement
that writes the row.
"""

from __future__ import annotations

import asyncio
import datetime as dt

from sqlalchemy import delete, insert, literal, select, update
from sqlalchemy.exc import IntegrityError

from ..access import names
from ..storage.models import Account, LedgerEntry, Mute, Session, utcnow
from ..table.reducer import LIVE, TableError
from ..table.store import TableMoved
from .host import SocialHost

#: A deleted account's name, wherever it appeared.
ANONYMOUS = "Deleted player"


def login_of(name: str) -> str:
    """The unique key of an account's name, exactly as ``auth.register`` computes it at sign-up."""
    return names.key(name)


#: Seconds an erasure waits for a table's owner to hand it over before it gives up (503: try again).
HAND_OVER_SECONDS = 15.0


async def erase(hub: SocialHost, account_id: int) -> list[int]:
    """Anonymise and close an account; the tables whose records were rewritten.

    The name goes first, so that an erasure that fails half-way (a table's owner that does not hand it
    over in time) leaves an account that can be deleted again: every table still going (and every table
    this process holds) is renamed by its runtime, at its owner; then the tables that are over, by the
    store; then its competition entries; then the account itself."""
    async with hub.session() as db:
        account = await db.get(Account, account_id)
        if account is None or account.deleted_at is not None:
            return []
    renamed: set[int] = set()
    for table_id, _seat, status in await hub.store.seats_of(account_id):
        if (status in LIVE or table_id in hub.runtimes) and table_id not in renamed:
            renamed.add(table_id)
            await _rename_at_owner(hub, table_id, account_id)
    tables = set(await hub.store.anonymise(account_id, ANONYMOUS))
    await hub.competitions.rename_entrant(account_id, ANONYMOUS)
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
    hub.end_sessions_of(account_id)  # its sessions are gone: so are their sockets
    held = {t for t in renamed if (r := hub.runtimes.get(t)) is not None and r.game is not None}
    return sorted(tables | held)


async def _rename_at_owner(hub: SocialHost, table_id: int, account_id: int) -> None:
    """The table's :class:`~..table.reducer.Rename`, made where the table is held: in cluster mode a
    table another worker owns is claimed (its owner hands it over between two of its changes, as for any
    request that reaches a worker that does not hold the table), so the rename is a change at its owner
    and no copy that still has the old name can write it back."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + HAND_OVER_SECONDS
    while True:
        try:
            runtime = await hub.get(table_id)
            if runtime is not None:
                await runtime.rename(account_id, ANONYMOUS)
            return
        except TableMoved as moved:
            if loop.time() > deadline:
                raise TableError("busy", "a table of yours is changing hands: try again in a moment",
                                 503) from None
            await asyncio.sleep(max(0.05, moved.retry_ms / 1000))


def day_of(now: dt.datetime) -> dt.date:
    return now.date()


async def grant(hub: SocialHost, account_id: int, now: dt.datetime) -> int:
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
