"""Players and sessions: guests, accounts with argon2-hashed passwords, and expiring session tokens.

A token is 32 random bytes shown once to the client; the database keeps only its SHA-256, so that reading
the database does not let anyone act as a player. Lookups compare hashes, never passwords, and an expired
session is refused exactly like an unknown one.

Hashing a password is deliberately slow (argon2), so it runs on threads of its own (:class:`Hashing`), with
a bounded queue: a flood of sign-ins waits there or is refused, and never takes the threads the tables'
bots think in.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import functools
import hashlib
import os
import secrets
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy import delete, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from ..storage.models import Account, LedgerEntry, Session, utcnow
from . import names

#: argon2id at OWASP's recommended minimum (19 MiB, 2 passes, 1 lane): about 40 ms of one core. argon2's
#: default (64 MiB, 3 passes, 4 lanes on 4 threads) took 250 ms of CPU over every core the machine had, so
#: a login flood at the REST limit took the cores the tables play on. Older hashes keep their own parameters.
_hasher = PasswordHasher(time_cost=2, memory_cost=19 * 1024, parallelism=1)
#: The hashing threads' niceness: below the event loop and the bots' processes (nice 0), so that under a
#: flood the scheduler gives those the CPU first. Not the lowest (19): there a sign-in's 50 ms of CPU (1/68
#: of a nice-0 thread's share while the CPUs are busy) took up to 2 to 4.6 s while four bot tables played
#: on a busy 2-core machine (the tests' sign-ins timed out at 5 s), against 1.4 to 1.6 s at 10. argon2
#: hashes without the GIL (cffi releases it), so a niced thread waiting for a CPU does not hold the loop
#: up; at 10 a flood still leaves table play within x1.5 (tests/server/test_login_flood.py).
HASH_NICENESS = 10
T = TypeVar("T")


class Busy(Exception):
    """Too many passwords are being hashed already: try again in a moment."""


class _Job:
    __slots__ = ("args", "future", "key", "seq", "weight", "work")

    def __init__(self, work: Callable[..., Any], args: tuple[Any, ...], key: str, weight: int, seq: int,
                 future: asyncio.Future[Any]) -> None:
        self.work, self.args, self.key, self.weight = work, args, key, weight
        self.seq, self.future = seq, future


class Hashing:
    """Password work (argon2 and the strength estimate) on ``workers`` threads of its own, with at most
    ``queue`` more waiting for them.

    The wait is fair, not first come first served, which would let a flood of wrong passwords from many
    addresses, each under its limit, keep the queue full and a real user's sign-in refused "busy" every
    time. Each job has a ``key`` (the client's address) and a ``weight`` (that address's and that
    account's recent wrong passwords): the lightest waits least, and among equals the key that has least
    waiting goes first (round robin), then the oldest. A full queue makes room for a newcomer lighter than
    its heaviest job (that one is refused :class:`Busy`); a newcomer no lighter is refused at once."""

    def __init__(self, workers: int, queue: int) -> None:
        self.workers = max(1, workers)
        self.pool = ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="password",
                                       initializer=_lower_priority)
        self.queue = max(0, queue)
        self.limit = self.workers + self.queue
        #: Jobs on the threads now, and jobs waiting for them.
        self.running = 0
        self.waiting: list[_Job] = []
        self._seq = 0
        #: Jobs refused to make room for lighter ones.
        self.evicted = 0

    @property
    def pending(self) -> int:
        return self.running + len(self.waiting)

    @property
    def full(self) -> bool:
        return self.pending >= self.limit

    def would_take(self, weight: int = 0) -> bool:
        """Whether a job of ``weight`` would be taken now (refused before any other work when not)."""
        return not self.full or any(job.weight > weight for job in self.waiting)

    async def run(self, work: Callable[..., T], *args: Any, key: str = "", weight: int = 0) -> T:
        loop = asyncio.get_running_loop()
        if self.full:
            heaviest = max(self.waiting, key=lambda j: (j.weight, j.seq), default=None)
            if heaviest is None or heaviest.weight <= weight:
                raise Busy()
            self.waiting.remove(heaviest)
            self.evicted += 1
            if not heaviest.future.done():
                heaviest.future.set_exception(Busy())
        self._seq += 1
        job = _Job(work, args, key, weight, self._seq, loop.create_future())
        self.waiting.append(job)
        self._start(loop)
        result: T = await job.future
        return result

    def _start(self, loop: asyncio.AbstractEventLoop) -> None:
        while self.running < self.workers and self.waiting:
            busy: dict[str, int] = {}
            for job in self.waiting:
                busy[job.key] = busy.get(job.key, 0) + 1
            job = min(self.waiting, key=lambda j: (j.weight, busy[j.key], j.seq))
            self.waiting.remove(job)
            if job.future.done():  # its caller went away
                continue
            self.running += 1
            done = self.pool.submit(job.work, *job.args)
            done.add_done_callback(functools.partial(self._done, loop, job))

    def _done(self, loop: asyncio.AbstractEventLoop, job: _Job, done: Future[Any]) -> None:
        """On the hashing thread: hand the result to the loop (and the thread to the next job there)."""
        _soon(loop, functools.partial(self._finished, loop, job, done))

    def _finished(self, loop: asyncio.AbstractEventLoop, job: _Job, done: Future[Any]) -> None:
        self.running -= 1
        if not job.future.done():
            if done.cancelled():
                job.future.cancel()
            elif (error := done.exception()) is not None:
                job.future.set_exception(error)
            else:
                job.future.set_result(done.result())
        self._start(loop)

    def shutdown(self) -> None:
        self.pool.shutdown(wait=False, cancel_futures=True)
        for job in self.waiting:
            if not job.future.done():
                job.future.cancel()
        self.waiting.clear()


def _lower_priority() -> None:
    """Lower this thread's scheduling priority (Linux: niceness is per thread); elsewhere, nothing."""
    with contextlib.suppress(AttributeError, OSError):
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), HASH_NICENESS)


def _soon(loop: asyncio.AbstractEventLoop, callback: Callable[[], None]) -> None:
    with contextlib.suppress(RuntimeError):  # the loop is closed: nobody counts any more
        loop.call_soon_threadsafe(callback)


def new_password_hash(name: str, password: str) -> str:
    """Check a new password (``names.password``: ``ValueError`` says why it is refused) and hash it."""
    return hash_password(names.password(password, name))


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def hash_password(password: str) -> str:
    return _hasher.hash(password)


def verify_password(password_hash: str, password: str) -> bool:
    try:
        return _hasher.verify(password_hash, password)
    except (VerificationError, InvalidHashError):
        return False


def expiry(seconds: int) -> dt.datetime:
    """When a session opened now expires."""
    return utcnow() + dt.timedelta(seconds=seconds)


async def open_session(db: AsyncSession, account: Account, seconds: int) -> str:
    token = secrets.token_urlsafe(32)
    db.add(Session(token_hash=hash_token(token), account_id=account.id, expires_at=expiry(seconds)))
    return token


async def session_for_token(db: AsyncSession, token: str | None) -> tuple[Session, Account] | None:
    """The live session and its account, or None for a missing, unknown or expired token."""
    if not token or len(token) > 200:
        return None
    row = await db.get(Session, hash_token(token))
    if row is None or row.expires_at <= utcnow():
        return None
    account = await db.get(Account, row.account_id)
    return None if account is None else (row, account)


async def session_alive(db: AsyncSession, token_hash: str) -> bool:
    """Whether the session with this token hash still stands (not signed out, not expired)."""
    expires = await db.scalar(select(Session.expires_at).where(Session.token_hash == token_hash))
    return expires is not None and expires > utcnow()


async def sessions_alive(db: AsyncSession, token_hashes: set[str]) -> set[str]:
    """Which of these sessions still stand, read a few hundred at a time."""
    alive: set[str] = set()
    hashes, now = sorted(token_hashes), utcnow()
    for at in range(0, len(hashes), 500):
        alive.update((await db.scalars(select(Session.token_hash).where(
            Session.token_hash.in_(hashes[at:at + 500]), Session.expires_at > now))).all())
    return alive


async def account_for_token(db: AsyncSession, token: str | None) -> Account | None:
    """The signed-in account, or None for a missing, unknown or expired token."""
    found = await session_for_token(db, token)
    return None if found is None else found[1]


async def close_session(db: AsyncSession, token: str) -> None:
    await db.execute(delete(Session).where(Session.token_hash == hash_token(token)))


async def delete_expired_sessions(db: AsyncSession) -> int:
    """Forget every expired session (they are refused anyway); how many rows went."""
    result = await db.execute(delete(Session).where(Session.expires_at <= utcnow()))
    return int(result.rowcount or 0)  # type: ignore[attr-defined]


async def create_guest(db: AsyncSession, name: str) -> Account:
    account = Account(name=name, login=None, password_hash=None, is_guest=True, balance=0)
    db.add(account)
    await db.flush()
    return account


def same_name(name: str) -> Any:
    """The condition "this account's name is ``name``, or looks like it" (``names.key``,
    ``names.skeleton``)."""
    return or_(Account.login == names.key(name), Account.name_key == names.skeleton(name))


async def name_taken(db: AsyncSession, name: str) -> bool:
    """Whether an account has this name or a look-alike of it (``same_name``)."""
    return await db.scalar(select(Account.id).where(same_name(name)).limit(1)) is not None


async def register(db: AsyncSession, name: str, password_hash: str, grant: int) -> Account | None:
    """A new account with its starting grant written to the ledger; None if the name is taken.

    ``name`` is already in its shown form (``names.shown``); the caller hashes the password (on the
    :class:`Hashing` threads: argon2 is deliberately slow and would stall the loop)."""
    if await name_taken(db, name):
        return None
    account = Account(name=name, login=names.key(name), name_key=names.skeleton(name),
                      password_hash=password_hash, is_guest=False, balance=grant)
    db.add(account)
    await db.flush()
    db.add(LedgerEntry(key=f"grant:{account.id}", account_id=account.id, table_id=None, kind="grant",
                       amount=grant))
    return account


def check_password(password_hash: str | None, password: str) -> bool:
    """Verify, hashing anyway when there is no account, so a wrong name and a wrong password take as long.
    The password is compared in the form it was hashed in (PRECIS OpaqueString)."""
    secret = names.password_to_check(password)
    if password_hash is None or secret is None:
        verify_password(_DUMMY_HASH, password)
        return False
    return verify_password(password_hash, secret)


_DUMMY_HASH = _hasher.hash("not a password anyone has")
