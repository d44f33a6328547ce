"""The database tables (SQLAlchemy 2 declarative models).

The schema is created by the Alembic migrations in ``migrations/``, never by ``create_all``, so that a
deployed database and a fresh test database go through the same steps. Everything a table needs to survive a
restart is here: its rules, its seats, its record (with the seed) and its version; the in-memory runtime is
a cache of these rows.
"""

from __future__ import annotations

import datetime as dt

from sqlalchemy import BigInteger, Boolean, DateTime, ForeignKey, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


def utcnow() -> dt.datetime:
    """Naive UTC: SQLite has no time zones, so every timestamp is stored as naive UTC on both databases."""
    return dt.datetime.now(dt.UTC).replace(tzinfo=None)


class Base(DeclarativeBase):
    pass


class Account(Base):
    """A player: a guest (no password, no wallet) or an account with a wallet balance in coins."""

    __tablename__ = "accounts"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(32))
    #: Unique for accounts; guests get NULL so that two guests may share a display name.
    login: Mapped[str | None] = mapped_column(String(128), unique=True)
    password_hash: Mapped[str | None] = mapped_column(String(200))
    is_guest: Mapped[bool] = mapped_column(Boolean)
    balance: Mapped[int] = mapped_column(BigInteger, default=0)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)


class Session(Base):
    """A sign-in. Only the SHA-256 of the token is stored, so a leaked database leaks no usable token."""

    __tablename__ = "sessions"
    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"), index=True)
    expires_at: Mapped[dt.datetime] = mapped_column(DateTime)


class Table(Base):
    """A table: its rules, where it is in its life, its pot, and the game record that rebuilds its state."""

    __tablename__ = "tables"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    ruleset: Mapped[str] = mapped_column(String(32))
    length: Mapped[str] = mapped_column(String(32))
    stake: Mapped[int] = mapped_column(Integer, default=0)
    private: Mapped[bool] = mapped_column(Boolean, default=False)
    invite_code: Mapped[str | None] = mapped_column(String(32))
    bot_level: Mapped[str] = mapped_column(String(32))
    turn_seconds: Mapped[int] = mapped_column(Integer, default=0)
    #: A partnership table (RULES.md, Partnerships): seats 0+2 against 1+3.
    partners: Mapped[bool] = mapped_column(Boolean, default=False)
    #: open -> playing -> finished; open -> abandoned.
    status: Mapped[str] = mapped_column(String(16), index=True)
    version: Mapped[int] = mapped_column(Integer, default=0)
    pot: Mapped[int] = mapped_column(BigInteger, default=0)
    paid_out: Mapped[bool] = mapped_column(Boolean, default=False)
    #: The estimation-record/1 JSON with the seed, once the game has started: a snapshot written when the
    #: game starts, at each deal boundary and at the end (and on every commit that is not a plain action).
    record: Mapped[str | None] = mapped_column(Text)
    #: The version ``record`` was written at; the actions of later events replay on top of it.
    record_version: Mapped[int | None] = mapped_column(Integer)
    created_by: Mapped[int] = mapped_column(ForeignKey("accounts.id"))
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
    finished_at: Mapped[dt.datetime | None] = mapped_column(DateTime)


class Seat(Base):
    """One of a table's four seats: empty, a human, or a bot; ``away`` and ``left`` are the human's state."""

    __tablename__ = "seats"
    table_id: Mapped[int] = mapped_column(ForeignKey("tables.id"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    account_id: Mapped[int | None] = mapped_column(ForeignKey("accounts.id"), index=True)
    name: Mapped[str | None] = mapped_column(String(32))
    is_bot: Mapped[bool] = mapped_column(Boolean, default=False)
    staked: Mapped[bool] = mapped_column(Boolean, default=False)
    away: Mapped[bool] = mapped_column(Boolean, default=False)
    left: Mapped[bool] = mapped_column(Boolean, default=False)


class Event(Base):
    """One committed version of a table: the public events it carried (never a hand), the action id that
    caused it (so a resent action is acked again instead of applied twice) and the action it applied to the
    game, if any: the journal that, replayed on the last record snapshot, rebuilds the game after a restart.

    The primary key is also the single-owner guard: two processes that both think they own a table both try
    to insert its next version, and the second insert fails."""

    __tablename__ = "events"
    table_id: Mapped[int] = mapped_column(ForeignKey("tables.id"), primary_key=True)
    version: Mapped[int] = mapped_column(Integer, primary_key=True)
    seat: Mapped[int | None] = mapped_column(Integer)
    action_id: Mapped[str | None] = mapped_column(String(64))
    data: Mapped[str] = mapped_column(Text)
    #: The action text this version applied to the game (e.g. "2 play QH"); NULL if none.
    action: Mapped[str | None] = mapped_column(String(40))


class LedgerEntry(Base):
    """One coin movement. ``key`` is unique: a payout or refund written twice is refused by the database,
    which is what makes paying "exactly once" hold even across a crash and a retry."""

    __tablename__ = "ledger"
    __table_args__ = (UniqueConstraint("key", name="uq_ledger_key"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    key: Mapped[str] = mapped_column(String(80))
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"), index=True)
    table_id: Mapped[int | None] = mapped_column(ForeignKey("tables.id"))
    #: grant, stake, payout, refund.
    kind: Mapped[str] = mapped_column(String(16))
    #: Signed change to the wallet: a stake is negative, a payout or refund positive.
    amount: Mapped[int] = mapped_column(BigInteger)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)


class Result(Base):
    """A human's finished game, for history and stats (bots have no rows)."""

    __tablename__ = "results"
    table_id: Mapped[int] = mapped_column(ForeignKey("tables.id"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"), index=True)
    ruleset: Mapped[str] = mapped_column(String(32))
    length: Mapped[str] = mapped_column(String(32))
    total: Mapped[int] = mapped_column(Integer)
    place: Mapped[int] = mapped_column(Integer)
    #: win (sole first), draw (shared first), loss.
    outcome: Mapped[str] = mapped_column(String(8))
    left: Mapped[bool] = mapped_column(Boolean, default=False)
    rounds: Mapped[int] = mapped_column(Integer)
    made: Mapped[int] = mapped_column(Integer)
    coins: Mapped[int] = mapped_column(BigInteger, default=0)
    #: A partnership game: ``place`` and ``outcome`` are the side's, ``side_total`` its total.
    partners: Mapped[bool] = mapped_column(Boolean, default=False)
    side_total: Mapped[int | None] = mapped_column(Integer)
    finished_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
