"""The database tables (SQLAlchemy 2 declarative models).

The schema is created by the Alembic migrations in ``migrations/``, never by ``create_all``, so that a
deployed database and a fresh test database go through the same steps. Everything a table needs to survive a
restart is here: its rules, its seats, its record (with the seed) and its version; the in-memory runtime is
a cache of these rows.
"""

from __future__ import annotations

import datetime as dt

from sqlalchemy import (
    BigInteger,
    Boolean,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
)
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
    #: The name as names are compared (``names.key``): unique for accounts; guests get NULL so that two
    #: guests may share a display name.
    login: Mapped[str | None] = mapped_column(String(128), unique=True)
    #: The name's confusable skeleton (``names.skeleton``, migration 0008_name_skeletons): unique among
    #: accounts, so that no account takes a look-alike of another's name; NULL for guests, deleted accounts
    #: and (from the backfill) the newer of two old accounts whose names already looked alike.
    name_key: Mapped[str | None] = mapped_column(String(200))
    password_hash: Mapped[str | None] = mapped_column(String(200))
    is_guest: Mapped[bool] = mapped_column(Boolean)
    balance: Mapped[int] = mapped_column(BigInteger, default=0)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
    #: Social (migration 0003_social): a moderator reads reports and silences; a silenced player cannot
    #: chat anywhere; a deleted account keeps its games under an anonymous name and cannot sign in.
    moderator: Mapped[bool] = mapped_column(Boolean, default=False)
    silenced: Mapped[bool] = mapped_column(Boolean, default=False)
    deleted_at: Mapped[dt.datetime | None] = mapped_column(DateTime)
    __table_args__ = (Index("ix_accounts_name_key", "name_key", unique=True),)


class Session(Base):
    """A sign-in. Only the SHA-256 of the token is stored, so a leaked database leaks no usable token."""

    __tablename__ = "sessions"
    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"), index=True)
    expires_at: Mapped[dt.datetime] = mapped_column(DateTime, index=True)


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
    #: The name its creator gave it (a player name's rules: names.shown), or NULL.
    name: Mapped[str | None] = mapped_column(String(32))
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
    #: A quick-play table: when bots take the seats nobody came for (NULL: not a quick-play table).
    bots_at: Mapped[dt.datetime | None] = mapped_column(DateTime)
    #: The table made by "Play again" at this finished one (its rematch), once somebody asked for it.
    rematch_id: Mapped[int | None] = mapped_column(Integer)
    #: A competition's table (migration 0012_competitions): the competition, and the seed every table of
    #: its stage (and instance) deals from.
    competition_id: Mapped[int | None] = mapped_column(Integer, index=True)
    game_seed: Mapped[str | None] = mapped_column(String(200))


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
    """A human's finished game, for history and stats (bots have no rows).

    Indexed (migration 0003_social) by (ruleset, finished_at) for the leaderboards' 30-day window and by
    (account_id, finished_at, table_id) for a player's history (in its order); the stats and the profile
    read (account_id, ruleset, outcome, total, rounds, made, left, table_id), which covers them (migration
    0006, ``left`` since 0010)."""

    __tablename__ = "results"
    __table_args__ = (Index("ix_results_ruleset_finished", "ruleset", "finished_at", "account_id", "outcome",
                            "left"),
                      Index("ix_results_account_finished", "account_id", "finished_at", "table_id"),
                      Index("ix_results_account_level", "account_id", "ruleset", "outcome", "total", "rounds",
                            "made", "left", "table_id"))
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


class ChatMessage(Base):
    """A chat line at a table: free text (at most 200 characters) or a quick phrase's key, never both.

    ``channel`` is ``players`` (seated players) or ``spectators``; ``removed`` is set by a moderator."""

    __tablename__ = "chat_messages"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_id: Mapped[int] = mapped_column(ForeignKey("tables.id"), index=True)
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"), index=True)
    seat: Mapped[int | None] = mapped_column(Integer)
    channel: Mapped[str] = mapped_column(String(16))
    text: Mapped[str | None] = mapped_column(String(200))
    phrase: Mapped[str | None] = mapped_column(String(32))
    removed: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)


class Mute(Base):
    """A player who muted another: the muted player's chat is never delivered to them."""

    __tablename__ = "mutes"
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"), primary_key=True)
    muted_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"), primary_key=True)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)


class ChatReport(Base):
    """A chat message reported to the moderators (once per reporter and message)."""

    __tablename__ = "chat_reports"
    __table_args__ = (UniqueConstraint("message_id", "reporter_id", name="uq_chat_report"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    message_id: Mapped[int] = mapped_column(ForeignKey("chat_messages.id"), index=True)
    reporter_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"))
    reason: Mapped[str | None] = mapped_column(String(200))
    resolved: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)


class RematchReply(Base):
    """A player's answer to "Play again" at a finished table: ``accept`` (seated at the rematch) or
    ``decline``."""

    __tablename__ = "rematch_replies"
    table_id: Mapped[int] = mapped_column(ForeignKey("tables.id"), primary_key=True)
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"), primary_key=True)
    reply: Mapped[str] = mapped_column(String(8))
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)


class Worker(Base):
    """A running worker process of a cluster (migration 0007_ownership): its lease, moved forward by its
    heartbeat. A worker whose lease lapsed never writes again; its process joins again under a new id."""

    __tablename__ = "workers"
    id: Mapped[int] = mapped_column(BigInteger().with_variant(Integer(), "sqlite"), primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    started_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True))
    expires_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True))


class TableOwner(Base):
    """Which worker owns a table (NULL: released), at which epoch (one more at every claim), and which
    worker a client asked for it (the owner hands it over). See server/cluster/ownership.py."""

    __tablename__ = "table_owners"
    table_id: Mapped[int] = mapped_column(ForeignKey("tables.id"), primary_key=True)
    owner: Mapped[int | None] = mapped_column(BigInteger, index=True)
    epoch: Mapped[int] = mapped_column(BigInteger)
    wanted_by: Mapped[int | None] = mapped_column(BigInteger)
    since: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True))


class CompetitionOwner(Base):
    """Which worker owns a competition (cluster mode; NULL: released) and at which epoch, as
    :class:`TableOwner` for a table. See server/cluster/ownership.py."""

    __tablename__ = "competition_owners"
    competition_id: Mapped[int] = mapped_column(ForeignKey("competitions.id"), primary_key=True)
    owner: Mapped[int | None] = mapped_column(BigInteger)
    epoch: Mapped[int] = mapped_column(BigInteger)
    since: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True))


class LiveSeat(Base):
    """One row per player seated at an open or playing table (migration 0009_live_seats): its primary key,
    the account, makes "one live table a player" hold in the database, so two workers (or two processes)
    cannot both seat one player. Written in the table's own transaction with its seats (table/store.py)."""

    __tablename__ = "live_seats"
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"), primary_key=True)
    table_id: Mapped[int] = mapped_column(ForeignKey("tables.id"), index=True)


class Competition(Base):
    """A competition (RULES.md, Competitions; migration 0012_competitions): its rules, its schedule and where
    it is in its life (upcoming -> running <-> paused -> finished). ``swiss``: ``stages`` stages, ``stage``
    the one in play (0 before the start); ``robot``: entrants play inside [window_start, window_end] over
    ``instances`` deal sets."""

    __tablename__ = "competitions"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(64))
    kind: Mapped[str] = mapped_column(String(8))
    ruleset: Mapped[str] = mapped_column(String(32))
    length: Mapped[str] = mapped_column(String(32))
    bot_level: Mapped[str] = mapped_column(String(32))
    stages: Mapped[int] = mapped_column(Integer, default=1)
    instances: Mapped[int] = mapped_column(Integer, default=1)
    starts_at: Mapped[dt.datetime] = mapped_column(DateTime, index=True)
    window_end: Mapped[dt.datetime | None] = mapped_column(DateTime)
    entry_limit: Mapped[int] = mapped_column(Integer, default=0)
    turn_seconds: Mapped[int] = mapped_column(Integer, default=60)
    private: Mapped[bool] = mapped_column(Boolean, default=False)
    invite_code: Mapped[str | None] = mapped_column(String(32))
    director_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"), index=True)
    #: upcoming, running, paused, finished.
    status: Mapped[str] = mapped_column(String(16), index=True)
    #: The stage in play (swiss; 0 before the start).
    stage: Mapped[int] = mapped_column(Integer, default=0)
    #: Every board's deals follow from it (the competition core's board seeds).
    seed: Mapped[int] = mapped_column(BigInteger)
    #: The seats of the stage in play (JSON: a list of tables, each four entrant ids or null for a bot),
    #: written with the stage's move (migration 0013): whoever finishes the seating seats exactly this.
    stage_plan: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
    finished_at: Mapped[dt.datetime | None] = mapped_column(DateTime)


class CompetitionEntry(Base):
    """An entrant: its id is the entrant id of the export; ``entry_no`` the order of entry (robot instances
    are dealt in it). A withdrawal before the start deletes nothing: the row stays, ``withdrawn``."""

    __tablename__ = "competition_entries"
    __table_args__ = (UniqueConstraint("competition_id", "account_id", name="uq_competition_entry"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    competition_id: Mapped[int] = mapped_column(ForeignKey("competitions.id"), index=True)
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"), index=True)
    name: Mapped[str] = mapped_column(String(32))
    entry_no: Mapped[int] = mapped_column(Integer)
    instance: Mapped[int] = mapped_column(Integer, default=1)
    withdrawn: Mapped[bool] = mapped_column(Boolean, default=False)
    removed: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)


class CompetitionTable(Base):
    """One table of a stage (and instance), and which entrant sat in each seat (``seats``: JSON, entrant ids,
    null for a bot). ``finished`` once its game is over."""

    __tablename__ = "competition_tables"
    __table_args__ = (Index("ix_competition_tables_stage", "competition_id", "stage", "instance"),
                      Index("uq_competition_tables_slot", "competition_id", "stage", "instance", "slot",
                            unique=True))
    table_id: Mapped[int] = mapped_column(ForeignKey("tables.id"), primary_key=True)
    competition_id: Mapped[int] = mapped_column(ForeignKey("competitions.id"))
    stage: Mapped[int] = mapped_column(Integer)
    instance: Mapped[int] = mapped_column(Integer, default=1)
    seats: Mapped[str] = mapped_column(Text)
    finished: Mapped[bool] = mapped_column(Boolean, default=False)
    #: Which table of the stage's plan this is (a robot table: its entrant's id); unique in its stage and
    #: instance, so a slot is never seated twice (migration 0013).
    slot: Mapped[int | None] = mapped_column(Integer)


class CompetitionLeave(Base):
    """An entrant who left a stage's table (or was removed, or whose robot window closed): after how many of
    the table's rounds, and when. The core scores it 0 MP on the boards its table had not finished then."""

    __tablename__ = "competition_leaves"
    competition_id: Mapped[int] = mapped_column(ForeignKey("competitions.id"), primary_key=True)
    entry_id: Mapped[int] = mapped_column(ForeignKey("competition_entries.id"), primary_key=True)
    stage: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_id: Mapped[int] = mapped_column(Integer)
    rounds_done: Mapped[int] = mapped_column(Integer)
    reason: Mapped[str] = mapped_column(String(16))
    at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)


class CompetitionAdjustment(Base):
    """A director's adjustment of a board (stage, instance, round), with its reason, who made it and when:
    the standings show every one (an audit trail). Either ``table_id`` + ``seat`` + ``score`` (that seat's
    round score replaced before the board is matchpointed) or ``entry_id`` + ``mp`` (that entrant's MP on
    the board set), as the competition core's ``Adjustment`` says."""

    __tablename__ = "competition_adjustments"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    competition_id: Mapped[int] = mapped_column(ForeignKey("competitions.id"), index=True)
    stage: Mapped[int] = mapped_column(Integer)
    instance: Mapped[int] = mapped_column(Integer, default=1)
    round: Mapped[int] = mapped_column(Integer)
    table_id: Mapped[int | None] = mapped_column(Integer)
    seat: Mapped[int | None] = mapped_column(Integer)
    score: Mapped[int | None] = mapped_column(Integer)
    entry_id: Mapped[int | None] = mapped_column(ForeignKey("competition_entries.id"))
    mp: Mapped[int | None] = mapped_column(Integer)
    reason: Mapped[str] = mapped_column(String(200))
    by_account: Mapped[int] = mapped_column(ForeignKey("accounts.id"))
    at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
