"""Chat at a table: two channels, quick phrases, mutes, reports and moderators.

A chat line is text only: at most 200 characters of printable Unicode (no control characters, no
bidirectional overrides), or the key of a quick phrase from :data:`PHRASES` (the client translates it).
Nothing else a client sends is ever put in a chat message, so chat cannot carry game state: the server
builds the message from the sender's account, seat and the validated text.

Seated players write in the ``players`` channel, everyone else at the table in ``spectators``; a player can
hide the spectators' channel on their socket (``chat_prefs``). Messages are stored with the table (its
replay shows them through ``GET /api/tables/{id}/chat``) and published on the table's :mod:`.bus` topic,
from which each socket delivers what its player has not muted. A player is limited to a few messages a
second over all their tables and sockets (``chat_rate_per_second``, ``chat_burst``); a moderator can
silence a player everywhere, and a silenced player cannot chat.
"""

from __future__ import annotations

import contextlib
import hmac
import time
import unicodedata
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

from fastapi import APIRouter, HTTPException, Path, Query, Response
from pydantic import BaseModel, Field
from sqlalchemy import delete, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from ..cluster.bus import RESYNC, Message, Subscription, client_resync, table_topic, user_topic
from ..routes.lobby import Creds, HubDep, Invite, Limit, Me, Offset, PlayerId, Strict, TableId, _account_id
from ..storage.models import Account, ChatMessage, ChatReport, Mute, Seat, Table, utcnow
from ..table.runtime import TableError, no_such_table

if TYPE_CHECKING:
    from ..hub import Hub
    from ..table.connection import Connection

T = TypeVar("T")
MAX_CHARS = 200
Id = Annotated[int, Path(ge=1, le=2_147_483_647, description="An id.")]
CHANNELS = ("players", "spectators")

#: Quick phrases and emotes, by key; clients show their own translation (English and Arabic).
PHRASES: tuple[str, ...] = (
    "hello", "good_luck", "well_played", "thanks", "sorry", "oops", "nice_bid", "nice_trick",
    "hurry_up", "one_moment", "good_game", "rematch", "bye",
    "emote_smile", "emote_laugh", "emote_wow", "emote_sad", "emote_angry", "emote_think", "emote_clap",
    "emote_thumbs_up", "emote_heart", "emote_cool",
)

#: Directional formatting characters: they can make a message read as something it is not.
_BIDI = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


class ChatError(ValueError):
    """Text that cannot be a chat message; the text says why."""


def clean_text(text: str) -> str:
    """The message as stored: NFC, stripped, 1-200 characters, no control or bidi-override characters."""
    if not isinstance(text, str):
        raise ChatError("a chat message is text")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise ChatError("the text must be valid Unicode") from None
    text = unicodedata.normalize("NFC", text).strip()
    if not text:
        raise ChatError("the message is empty")
    if len(text) > MAX_CHARS:
        raise ChatError(f"a message is at most {MAX_CHARS} characters")
    for c in text:
        if unicodedata.category(c) in ("Cc", "Cs") or c in _BIDI or c == "\u2028" or c == "\u2029":
            raise ChatError("control characters are not allowed in chat")
    return text


class ChatLimiter:
    """A token bucket per player, shared by all their sockets in this process."""

    def __init__(self, rate: float, burst: int) -> None:
        self.rate = rate
        self.burst = float(burst)
        self._buckets: dict[int, tuple[float, float]] = {}

    def allow(self, account_id: int) -> float:
        """0.0 if a message may go now, else the seconds until one may."""
        now = time.monotonic()
        tokens, stamp = self._buckets.get(account_id, (self.burst, now))
        tokens = min(self.burst, tokens + (now - stamp) * self.rate)
        if tokens >= 1.0:
            self._buckets[account_id] = (tokens - 1.0, now)
            return 0.0
        self._buckets[account_id] = (tokens, now)
        if len(self._buckets) > 10_000:  # forget players whose buckets are full again
            self._buckets = {k: v for k, v in self._buckets.items()
                             if v[0] + (now - v[1]) * self.rate < self.burst}
        return (1.0 - tokens) / self.rate if self.rate > 0 else float("inf")


def message_out(row: ChatMessage, name: str | None) -> Message:
    """A chat message as every client gets it (the socket's ``chat`` and the REST list alike)."""
    return {"type": "chat", "id": row.id, "table_id": row.table_id, "channel": row.channel,
            "account_id": row.account_id, "seat": row.seat, "name": name,
            "text": None if row.removed else row.text, "phrase": None if row.removed else row.phrase,
            "removed": row.removed, "at": row.created_at.isoformat() + "Z"}


async def post(hub: Hub, table_id: int, account_id: int, seat: int | None, text: str | None,
               phrase: str | None) -> Message:
    """Store a chat message and publish it on the table's topic; TableError for any refusal."""
    if (text is None) == (phrase is None):
        raise TableError("bad_message", 'a chat message has either "text" or "phrase"')
    if phrase is not None and phrase not in PHRASES:
        raise TableError("bad_phrase", "unknown quick phrase (GET /api/chat/phrases lists them)")
    if text is not None:
        try:
            text = clean_text(text)
        except ChatError as exc:
            raise TableError("bad_chat", str(exc)) from None
    async with hub.session() as db:
        account = await db.get(Account, account_id)
    if account is None or account.deleted_at is not None:
        raise TableError("unauthorized", "sign in again", 401)
    if account.silenced:
        raise TableError("silenced", "a moderator has silenced you: you cannot chat", 403)
    wait = hub.social.chat_wait(account_id)
    if wait > 0:
        raise TableError("chat_rate_limited", f"too many chat messages: wait {wait:.1f} s", 429)
    row = ChatMessage(table_id=table_id, account_id=account_id, seat=seat,
                      channel="players" if seat is not None else "spectators", text=text, phrase=phrase,
                      removed=False, created_at=utcnow())

    async def add(db: AsyncSession) -> None:
        db.add(row)

    await write(hub, add)
    message = message_out(row, account.name)
    hub.bus.publish(table_topic(table_id), message)
    return message


async def write(hub: Hub, work: Callable[[AsyncSession], Awaitable[T]]) -> T:
    """A short write transaction of its own, in SQLite's writers' turn (``Journal.writing``).

    Reads go before it, in a session of their own: a SQLite transaction that read, then waited for the
    turn while another writer committed, could no longer write (its snapshot is stale). This one reads
    nothing before its first write, and nothing in it waits once the turn is taken."""
    db = hub.session()
    try:
        await db.connection()
        async with hub.journal.writing():
            out = await work(db)
            await db.commit()
        return out
    finally:
        await db.close()


async def muted_by(hub: Hub, account_id: int) -> set[int]:
    async with hub.session() as db:
        return set((await db.scalars(select(Mute.muted_id).where(Mute.account_id == account_id))).all())


class Link:
    """A table socket's share of the bus: its table's topic (chat, presence, quick play, rematch) and its
    player's own topic (mutes, silences, rematch offers), filtered by the player's mutes and preferences."""

    def __init__(self, hub: Hub, conn: Connection, table_id: int, account_id: int | None,
                 muted: set[int]) -> None:
        self.hub = hub
        self.conn = conn
        self.table_id = table_id
        self.account_id = account_id
        self.muted = muted
        self.hide_spectators = False
        self.subs: list[Subscription] = [hub.bus.subscribe(table_topic(table_id), self._deliver)]
        if account_id is not None:
            self.subs.append(hub.bus.subscribe(user_topic(account_id), self._mine))

    @classmethod
    async def attach(cls, hub: Hub, conn: Connection, table_id: int, account_id: int | None) -> Link:
        link = cls(hub, conn, table_id, account_id, set())
        if account_id is not None:  # read after subscribing: a change meanwhile comes as a ``mutes`` notice
            link.muted = await muted_by(hub, account_id)
        hub.social.presence_changed(table_id)
        hub.social.greet(conn, table_id)
        return link

    def detach(self) -> None:
        for sub in self.subs:
            sub.close()
        self.subs = []
        self.hub.social.presence_changed(self.table_id)

    def _deliver(self, topic: str, message: Message) -> None:
        if message.get("type") == RESYNC:
            # The bus may have lost some of this table's chat (Redis reconnected): the client fetches what
            # was said since its last message (GET /api/tables/{id}/chat?after=); a quick-play wait again.
            self.conn.send(client_resync(topic))
            self.hub.social.greet(self.conn, self.table_id)
            return
        if message.get("type") == "chat":
            if message.get("account_id") in self.muted:
                return
            if message.get("channel") == "spectators" and self.hide_spectators and self.conn.seat is not None:
                return
        self.conn.send(message)

    def _mine(self, topic: str, message: Message) -> None:
        if message.get("type") == RESYNC:
            self.conn.send(client_resync(topic))  # the client fetches its mutes again
            return
        if message.get("type") == "mutes":
            self.muted = set(message.get("muted", ()))
        if message.get("type") == "rematch" and message.get("from_table") == self.table_id:
            return  # the table's own topic brings it to this socket already
        self.conn.send(message)

    async def handle(self, msg: dict[str, Any], seat: int | None) -> None:
        """A ``chat`` or ``chat_prefs`` message from this socket's client."""
        if msg["type"] == "chat_prefs":
            flag = msg.get("hide_spectators")
            if set(msg) - {"type", "id", "hide_spectators"} or not isinstance(flag, bool):
                raise TableError("bad_message", 'chat_prefs takes a boolean "hide_spectators"')
            self.hide_spectators = bool(msg["hide_spectators"])
            self.conn.send({"type": "chat_prefs", "hide_spectators": self.hide_spectators})
            return
        if set(msg) - {"type", "id", "text", "phrase"}:
            raise TableError("bad_message",
                             'a chat message has "text" or "phrase" (and an optional "id") only')
        if self.account_id is None:
            raise TableError("unauthorized", "sign in to chat (say hello with a token)")
        text, phrase = msg.get("text"), msg.get("phrase")
        if any(v is not None and not isinstance(v, str) for v in (text, phrase)):
            raise TableError("bad_message", '"text" and "phrase" are strings')
        await post(self.hub, self.table_id, self.account_id, seat, text, phrase)


# --- REST ----------------------------------------------------------------------------------------------
router = APIRouter(prefix="/api", tags=["chat"])


class ChatOut(BaseModel):
    id: int
    table_id: int
    channel: str
    account_id: int
    seat: int | None
    name: str | None
    text: str | None
    phrase: str | None
    removed: bool
    at: str


class ChatPageOut(BaseModel):
    table_id: int
    messages: list[ChatOut]


class PhrasesOut(BaseModel):
    phrases: list[str]
    max_chars: int


class ReportIn(Strict):
    reason: Annotated[str | None, Field(max_length=200)] = None


class ReportOut(BaseModel):
    id: int
    message_id: int


class MutedPlayer(BaseModel):
    id: int
    name: str


class MutesOut(BaseModel):
    muted: list[MutedPlayer]


class MutesIn(Strict):
    muted: Annotated[list[Annotated[int, Field(ge=1, le=2_147_483_647)]], Field(max_length=500)]


class ReportedOut(BaseModel):
    id: int
    reason: str | None
    reporter_id: int
    resolved: bool
    at: str
    message: ChatOut


class SilenceIn(Strict):
    silenced: bool


class ModeratedOut(BaseModel):
    id: int
    name: str
    silenced: bool
    moderator: bool


@router.get("/chat/phrases")
async def phrases() -> PhrasesOut:
    """The quick phrases and emotes a chat message may name instead of text (clients translate the keys)."""
    return PhrasesOut(phrases=list(PHRASES), max_chars=MAX_CHARS)


async def _visible_table(hub: Hub, table_id: int, account_id: int | None, invite: str | None) -> Table:
    """The table, if this caller may see it (a private one: its creator, its players, or the invite)."""
    async with hub.session() as db:
        row = await db.get(Table, table_id)
        players = set() if row is None else set((await db.scalars(
            select(Seat.account_id).where(Seat.table_id == table_id))).all())
    if row is None:
        raise no_such_table()
    mine = account_id is not None and (account_id == row.created_by or account_id in players)
    code = row.invite_code
    if row.private and not mine and not (invite is not None and code is not None
                                         and hmac.compare_digest(invite.encode(), code.encode())):
        raise no_such_table()  # exactly as a missing table
    return row


@router.get("/tables/{table_id}/chat", responses={404: {"description": "No such table."}})
async def table_chat(table_id: TableId, hub: HubDep, creds: Creds,
                     after: Annotated[int, Query(ge=0, le=2_147_483_647)] = 0, limit: Limit = 100,
                     invite: Invite = None) -> ChatPageOut:
    """A table's chat in order, both channels, from message id ``after`` on (a replay's chat, or what a
    reconnecting client missed). Messages of players the caller muted are left out; removed ones are
    listed without their text."""
    account_id = await _account_id(hub, creds)
    await _visible_table(hub, table_id, account_id, invite)
    muted = await muted_by(hub, account_id) if account_id is not None else set()
    async with hub.session() as db:
        rows = (await db.execute(
            select(ChatMessage, Account.name).join(Account, Account.id == ChatMessage.account_id)
            .where(ChatMessage.table_id == table_id, ChatMessage.id > after)
            .order_by(ChatMessage.id).limit(limit))).all()
    return ChatPageOut(table_id=table_id, messages=[
        ChatOut(**{k: v for k, v in message_out(m, n).items() if k != "type"})
        for m, n in rows if m.account_id not in muted])


@router.post("/chat/messages/{message_id}/report", status_code=201,
             responses={404: {"description": "No such message."},
                        422: {"description": "Your own message."}})
async def report(message_id: Id, body: ReportIn, hub: HubDep, me: Me, response: Response) -> ReportOut:
    """Report a chat message to the moderators (once: reporting it again answers 200 with the same id)."""
    reason = None
    if body.reason is not None:
        try:
            reason = clean_text(body.reason)
        except ChatError:
            reason = None
    async with hub.session() as db:
        message = await db.get(ChatMessage, message_id)
        if message is None:
            raise HTTPException(404, "no such message")
        if message.account_id == me.id:
            raise HTTPException(422, "you cannot report your own message")
        existing = await db.scalar(select(ChatReport.id).where(ChatReport.message_id == message_id,
                                                               ChatReport.reporter_id == me.id))
    if existing is None:
        row = ChatReport(message_id=message_id, reporter_id=me.id, reason=reason, resolved=False,
                         created_at=utcnow())

        async def add(db: AsyncSession) -> None:
            db.add(row)

        try:
            await write(hub, add)
            return ReportOut(id=row.id, message_id=message_id)
        except IntegrityError:  # the same report, at the same moment
            async with hub.session() as db:
                existing = await db.scalar(select(ChatReport.id).where(
                    ChatReport.message_id == message_id, ChatReport.reporter_id == me.id))
    response.status_code = 200
    return ReportOut(id=int(existing or 0), message_id=message_id)


async def _mutes_out(hub: Hub, account_id: int) -> MutesOut:
    async with hub.session() as db:
        rows = (await db.execute(select(Account.id, Account.name).join(Mute, Mute.muted_id == Account.id)
                                 .where(Mute.account_id == account_id).order_by(Account.id))).all()
    return MutesOut(muted=[MutedPlayer(id=i, name=n) for i, n in rows])


@router.get("/me/mutes")
async def my_mutes(hub: HubDep, me: Me) -> MutesOut:
    """The players whose chat you never see."""
    return await _mutes_out(hub, me.id)


@router.put("/me/mutes")
async def set_mutes(body: MutesIn, hub: HubDep, me: Me) -> MutesOut:
    """Replace the list of muted players (ids; unknown ids and your own are ignored). Every socket you
    have open stops delivering their messages at once, and gets a ``mutes`` message."""
    wanted = set(body.muted) - {me.id}
    async with hub.session() as db:
        known = set((await db.scalars(select(Account.id).where(Account.id.in_(wanted)))).all()) if wanted \
            else set()
        have = set((await db.scalars(select(Mute.muted_id).where(Mute.account_id == me.id))).all())

    async def replace(db: AsyncSession) -> None:
        if have - known:
            await db.execute(delete(Mute).where(Mute.account_id == me.id, Mute.muted_id.in_(have - known)))
        for new in known - have:
            db.add(Mute(account_id=me.id, muted_id=new, created_at=utcnow()))

    # The same change from another device at the same moment: theirs stands.
    with contextlib.suppress(IntegrityError):
        await write(hub, replace)
    hub.bus.publish(user_topic(me.id), {"type": "mutes", "muted": sorted(known)})
    return await _mutes_out(hub, me.id)


# --- moderation ----------------------------------------------------------------------------------------
def _moderator(me: Account) -> None:
    if not me.moderator:
        raise HTTPException(403, "moderators only")


@router.get("/moderation/reports", tags=["moderation"], responses={403: {"description": "Not a moderator."}})
async def reports(hub: HubDep, me: Me, resolved: bool = False, limit: Limit = 50,
                  offset: Offset = 0) -> list[ReportedOut]:
    """Reported chat messages, oldest first (unresolved ones by default)."""
    _moderator(me)
    async with hub.session() as db:
        rows = (await db.execute(
            select(ChatReport, ChatMessage, Account.name)
            .join(ChatMessage, ChatMessage.id == ChatReport.message_id)
            .join(Account, Account.id == ChatMessage.account_id)
            .where(ChatReport.resolved.is_(resolved)).order_by(ChatReport.id).limit(limit).offset(offset))).all()
    out = []
    for rep, msg, name in rows:
        shown = {k: v for k, v in message_out(msg, name).items() if k != "type"}
        shown["text"], shown["phrase"] = msg.text, msg.phrase  # a moderator sees what was removed
        out.append(ReportedOut(id=rep.id, reason=rep.reason, reporter_id=rep.reporter_id,
                               resolved=rep.resolved, at=rep.created_at.isoformat() + "Z",
                               message=ChatOut(**shown)))
    return out


@router.put("/moderation/reports/{report_id}", tags=["moderation"],
            responses={403: {"description": "Not a moderator."}, 404: {"description": "No such report."}})
async def resolve_report(report_id: Id, hub: HubDep, me: Me) -> dict[str, Any]:
    """Mark a report handled."""
    _moderator(me)

    async def resolve(db: AsyncSession) -> int:
        done = await db.execute(update(ChatReport).where(ChatReport.id == report_id)
                                .values(resolved=True).execution_options(synchronize_session=False))
        return int(done.rowcount)  # type: ignore[attr-defined]

    if await write(hub, resolve) != 1:
        raise HTTPException(404, "no such report")
    return {"id": report_id, "resolved": True}


@router.delete("/moderation/messages/{message_id}", status_code=204, tags=["moderation"],
               responses={403: {"description": "Not a moderator."}, 404: {"description": "No such message."}})
async def remove_message(message_id: Id, hub: HubDep, me: Me) -> Response:
    """Remove a chat message (its text is no longer served) and resolve its reports; the table's sockets
    get ``chat_removed``."""
    _moderator(me)
    async with hub.session() as db:
        table_id = await db.scalar(select(ChatMessage.table_id).where(ChatMessage.id == message_id))
    if table_id is None:
        raise HTTPException(404, "no such message")

    async def remove(db: AsyncSession) -> None:
        await db.execute(update(ChatMessage).where(ChatMessage.id == message_id).values(removed=True)
                         .execution_options(synchronize_session=False))
        await db.execute(update(ChatReport).where(ChatReport.message_id == message_id)
                         .values(resolved=True).execution_options(synchronize_session=False))

    await write(hub, remove)
    hub.bus.publish(table_topic(table_id), {"type": "chat_removed", "table_id": table_id, "id": message_id})
    return Response(status_code=204)


@router.put("/moderation/players/{player_id}", tags=["moderation"],
            responses={403: {"description": "Not a moderator."}, 404: {"description": "No such player."}})
async def silence(player_id: PlayerId, body: SilenceIn, hub: HubDep, me: Me) -> ModeratedOut:
    """Silence a player everywhere (no chat at any table), or lift it. The player's sockets get
    ``silenced``."""
    _moderator(me)
    async with hub.session() as db:
        account = await db.get(Account, player_id)
    if account is None:
        raise HTTPException(404, "no such player")

    async def flag(db: AsyncSession) -> None:
        await db.execute(update(Account).where(Account.id == player_id).values(silenced=body.silenced)
                         .execution_options(synchronize_session=False))

    await write(hub, flag)
    out = ModeratedOut(id=account.id, name=account.name, silenced=body.silenced, moderator=account.moderator)
    hub.bus.publish(user_topic(player_id), {"type": "silenced", "silenced": body.silenced})
    return out
