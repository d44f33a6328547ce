"""Chat over REST: the quick phrases, a table's messages, reports, mutes, and moderation."""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Annotated, Any

from fastapi import APIRouter, HTTPException, Query, Response
from pydantic import BaseModel, Field
from sqlalchemy import delete, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from ..cluster.bus import table_topic, user_topic
from ..storage.models import Account, ChatMessage, ChatReport, Mute, utcnow
from ..table.reducer import admits
from ..table.runtime import TableError, no_such_table
from .deps import Creds, HubDep, Invite, Limit, Me, Offset, PlayerId, Strict, TableId, account_id_of

if TYPE_CHECKING:
    from ..hub import Hub
from ..social.chat import MAX_CHARS, PHRASES, ChatError, Id, clean_text, message_out, muted_by, write

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


async def _visible_table(hub: Hub, table_id: int, account_id: int | None, invite: str | None) -> None:
    """Refuse (404, exactly as a missing table) a table this caller may not see (:func:`admits`)."""
    row = await hub.store.row(table_id)
    if row is None or not admits(row.state, account_id, invite):
        raise no_such_table()


@router.get("/tables/{table_id}/chat", responses={404: {"description": "No such table."}})
async def table_chat(table_id: TableId, hub: HubDep, creds: Creds,
                     after: Annotated[int, Query(ge=0, le=2_147_483_647)] = 0, limit: Limit = 100,
                     invite: Invite = None) -> ChatPageOut:
    """A table's chat in order, both channels, from message id ``after`` on (a replay's chat, or what a
    reconnecting client missed). Messages of players the caller muted are left out; removed ones are
    listed without their text."""
    account_id = await account_id_of(hub, creds)
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
             responses={404: {"description": "No such message (or one of a private table you cannot see)."},
                        422: {"description": "Your own message."}})
async def report(message_id: Id, body: ReportIn, hub: HubDep, me: Me, response: Response,
                 invite: Invite = None) -> ReportOut:
    """Report a chat message to the moderators (once: reporting it again answers 200 with the same id). A
    message of a private table the caller may not see is answered as a missing one."""
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
    try:
        await _visible_table(hub, message.table_id, me.id, invite)
    except TableError:
        raise HTTPException(404, "no such message") from None  # not even that the table has messages
    async with hub.session() as db:
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
