"""Players and sessions: guests, accounts with argon2-hashed passwords, and expiring session tokens.

A token is 32 random bytes shown once to the client; the database keeps only its SHA-256, so that reading
the database does not let anyone act as a player. Lookups compare hashes, never passwords, and an expired
session is refused exactly like an unknown one.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import secrets

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy import delete, select
from sqlalchemy.ext.asyncio import AsyncSession

from .models import Account, LedgerEntry, Session, utcnow

_hasher = PasswordHasher()


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def hash_password(password: str) -> str:
    return _hasher.hash(password)


def verify_password(password_hash: str, password: str) -> bool:
    try:
        return _hasher.verify(password_hash, password)
    except (VerificationError, InvalidHashError):
        return False


async def open_session(db: AsyncSession, account: Account, seconds: int) -> str:
    token = secrets.token_urlsafe(32)
    db.add(Session(token_hash=hash_token(token), account_id=account.id,
                   expires_at=utcnow() + dt.timedelta(seconds=seconds)))
    return token


async def account_for_token(db: AsyncSession, token: str | None) -> Account | None:
    """The signed-in account, or None for a missing, unknown or expired token."""
    if not token or len(token) > 200:
        return None
    row = await db.get(Session, hash_token(token))
    if row is None or row.expires_at <= utcnow():
        return None
    return await db.get(Account, row.account_id)


async def close_session(db: AsyncSession, token: str) -> None:
    await db.execute(delete(Session).where(Session.token_hash == hash_token(token)))


async def create_guest(db: AsyncSession, name: str) -> Account:
    account = Account(name=name, login=None, password_hash=None, is_guest=True, balance=0)
    db.add(account)
    await db.flush()
    return account


async def register(db: AsyncSession, name: str, password_hash: str, grant: int) -> Account | None:
    """A new account with its starting grant written to the ledger; None if the name is taken.

    The caller hashes the password (in a thread: argon2 is deliberately slow and would stall the loop)."""
    login = name.casefold()
    taken = await db.scalar(select(Account.id).where(Account.login == login))
    if taken is not None:
        return None
    account = Account(name=name, login=login, password_hash=password_hash, is_guest=False,
                      balance=grant)
    db.add(account)
    await db.flush()
    db.add(LedgerEntry(key=f"grant:{account.id}", account_id=account.id, table_id=None, kind="grant",
                       amount=grant))
    return account


def check_password(password_hash: str | None, password: str) -> bool:
    """Verify, hashing anyway when there is no account, so a wrong name and a wrong password take as long."""
    if password_hash is None:
        verify_password(_DUMMY_HASH, password)
        return False
    return verify_password(password_hash, password)


_DUMMY_HASH = _hasher.hash("not a password anyone has")
