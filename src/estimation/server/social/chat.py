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

import time
import unicodedata
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

from fastapi import Path
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from ..cluster.bus import RESYNC, Message, Subscription, client_resync, table_topic, user_topic
from ..storage.models import Account, ChatMessage, Mute, utcnow
from ..table.runtime import TableError
from .host import SocialHost

if TYPE_CHECKING:
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


async def post(hub: SocialHost, table_id: int, account_id: int, seat: int | None, text: str | None,
               phrase: str | None, address: str | None = None) -> Message:
    """Store a chat message and publish it on the table's topic; TableError for any refusal.

    Beyond each player's own rate, chat is limited per address (``address``: over all the accounts it
    signs in) and a table's spectators' channel as a whole: otherwise twenty guests from one address can
    put fifteen spectator lines a second into a stranger's table."""
    if (text is None) == (phrase is None):
        raise TableError("bad_message", 'a chat message has either "text" or "phrase"')
    if phrase is not None and phrase not in PHRASES:
        raise TableError("bad_phrase", "unknown quick phrase (GET /api/chat/phrases lists them)")
    runtime = hub.runtimes.get(table_id)
    if text is not None and runtime is not None and runtime.rules.competition is not None:
        raise TableError("phrases_only", "at a competition's table chat is the quick phrases only", 403)
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
    if address is not None and not await hub.chat_from.allow(address):
        raise TableError("chat_rate_limited", "too many chat messages from your address: wait a moment", 429)
    if seat is None and not await hub.spectator_chat.allow(str(table_id)):
        raise TableError("chat_rate_limited", "the spectators of this table are chatting too fast: wait a "
                                              "moment", 429)
    row = ChatMessage(table_id=table_id, account_id=account_id, seat=seat,
                      channel="players" if seat is not None else "spectators", text=text, phrase=phrase,
                      removed=False, created_at=utcnow())

    async def add(db: AsyncSession) -> None:
        db.add(row)

    await write(hub, add)
    message = message_out(row, account.name)
    hub.bus.publish(table_topic(table_id), message)
    return message


async def write(hub: SocialHost, work: Callable[[AsyncSession], Awaitable[T]]) -> T:
    """A short write transaction of its own, in SQLite's writers' turn (``TableStore.writing``).

    Reads go before it, in a session of their own: a SQLite transaction that read, then waited for the
    turn while another writer committed, could no longer write (its snapshot is stale). This one reads
    nothing before its first write, and nothing in it waits once the turn is taken."""
    db = hub.session()
    try:
        await db.connection()
        async with hub.store.writing():
            out = await work(db)
            await db.commit()
        return out
    finally:
        await db.close()


async def muted_by(hub: SocialHost, account_id: int) -> set[int]:
    async with hub.session() as db:
        return set((await db.scalars(select(Mute.muted_id).where(Mute.account_id == account_id))).all())


class Link:
    """A table socket's share of the bus: its table's topic (chat, presence, quick play, rematch) and its
    player's own topic (mutes, silences, rematch offers), filtered by the player's mutes and preferences."""

    def __init__(self, hub: SocialHost, conn: Connection, table_id: int, account_id: int | None,
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
    async def attach(cls, hub: SocialHost, conn: Connection, table_id: int, account_id: int | None) -> Link:
        link = cls(hub, conn, table_id, account_id, set())
        if account_id is not None:  # read after subscribing: a change meanwhile comes as a ``mutes`` notice
            try:
                link.muted = await muted_by(hub, account_id)
            except BaseException:
                # Nobody will detach a link they never got: its subscriptions (and through their handlers
                # the socket) would stay on the bus for good.
                for sub in link.subs:
                    sub.close()
                raise
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
        await post(self.hub, self.table_id, self.account_id, seat, text, phrase, self.conn.address)


# --- REST ----------------------------------------------------------------------------------------------
