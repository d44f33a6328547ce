"""Coins: every movement is a ledger row and a balance change in the same transaction.

Balances change only through atomic ``UPDATE ... SET balance = balance + x`` statements (never a read then a
write), so two tables staking the same wallet at once cannot both spend the same coins. Payouts and refunds
carry a unique ledger key: writing one twice fails in the database, so "exactly once" holds even when a
crashed process retries. The invariant the tests check: the sum of all balances plus all open pots equals
the sum of all grants.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession

from ..storage.models import Account, LedgerEntry, Table


class WalletError(ValueError):
    """A coin movement the rules refuse (a guest staking, not enough coins)."""


async def stake_in(db: AsyncSession, table_id: int, account_id: int, stake: int) -> None:
    """Move ``stake`` coins from the wallet into the table's pot, or raise :class:`WalletError`."""
    account = await db.get(Account, account_id)
    if account is None or account.is_guest:
        raise WalletError("guests cannot stake: register an account to play for coins")
    result = await db.execute(
        update(Account).where(Account.id == account_id, Account.balance >= stake)
        .values(balance=Account.balance - stake).execution_options(synchronize_session=False))
    if result.rowcount != 1:  # type: ignore[attr-defined]
        raise WalletError(f"not enough coins to stake {stake}")
    await db.execute(update(Table).where(Table.id == table_id).values(pot=Table.pot + stake)
                     .execution_options(synchronize_session=False))
    db.add(LedgerEntry(key=f"stake:{table_id}:{account_id}:{secrets.token_hex(8)}", account_id=account_id,
                       table_id=table_id, kind="stake", amount=-stake))


async def refund(db: AsyncSession, table_id: int, account_id: int) -> int:
    """Return every stake of this account at this table not refunded yet; the coins refunded."""
    stakes = (await db.scalars(select(LedgerEntry).where(
        LedgerEntry.table_id == table_id, LedgerEntry.account_id == account_id,
        LedgerEntry.kind == "stake"))).all()
    done = set((await db.scalars(select(LedgerEntry.key).where(
        LedgerEntry.table_id == table_id, LedgerEntry.account_id == account_id,
        LedgerEntry.kind == "refund"))).all())
    total = 0
    for row in stakes:
        key = f"refund:{row.key}"
        if key in done:
            continue
        db.add(LedgerEntry(key=key, account_id=account_id, table_id=table_id, kind="refund",
                           amount=-row.amount))
        total += -row.amount
    if total:
        await _move(db, table_id, account_id, total)
    return total


async def pay_out(db: AsyncSession, table_id: int, payouts: Mapping[int, tuple[int, int]]) -> bool:
    """Pay the pot: ``payouts`` maps seat -> (account id, coins). False if the table was already paid.

    The table's ``paid_out`` flag is flipped by a conditional update in the same transaction, and each row's
    key names the table and seat, so a second attempt writes nothing.
    """
    flipped = await db.execute(update(Table).where(Table.id == table_id, Table.paid_out.is_(False))
                               .values(paid_out=True).execution_options(synchronize_session=False))
    if flipped.rowcount != 1:  # type: ignore[attr-defined]
        return False
    for seat, (account_id, coins) in sorted(payouts.items()):
        db.add(LedgerEntry(key=_payout_key(table_id, seat), account_id=account_id, table_id=table_id,
                           kind="payout", amount=coins))
        if coins:
            await _move(db, table_id, account_id, coins)
    return True


async def paid_splits(db: AsyncSession, table_ids: list[int]) -> dict[int, dict[str, int]]:
    """The pot splits paid at these tables (seat as text -> coins, every staking seat, zero included), as a
    finished table's own view shows them: read back from the payout rows, whose key names the seat."""
    if not table_ids:
        return {}
    rows = await db.scalars(select(LedgerEntry).where(LedgerEntry.table_id.in_(table_ids),
                                                      LedgerEntry.kind == "payout"))
    splits: dict[int, dict[str, int]] = {}
    for entry in rows:
        if entry.table_id is not None:  # always, by the query: typed optional for the grant rows
            splits.setdefault(entry.table_id, {})[entry.key.rsplit(":", 1)[1]] = entry.amount
    return splits


def _payout_key(table_id: int, seat: int) -> str:
    """Unique per table and seat (a second payout fails in the database); ``paid_splits`` reads the seat
    back from its last part."""
    return f"payout:{table_id}:{seat}"


async def _move(db: AsyncSession, table_id: int, account_id: int, coins: int) -> None:
    """Pot -> wallet."""
    await db.execute(update(Account).where(Account.id == account_id)
                     .values(balance=Account.balance + coins).execution_options(synchronize_session=False))
    await db.execute(update(Table).where(Table.id == table_id).values(pot=Table.pot - coins)
                     .execution_options(synchronize_session=False))
