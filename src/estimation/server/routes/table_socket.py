"""The table WebSocket: parse, police and dispatch client messages; never let bad input reach a table.

Everything a client can get wrong (binary frames, oversized or malformed JSON, unknown types, wrong field
types, acting out of turn, illegal actions, flooding) is answered with an ``error`` message to that one
connection, and nothing changes. Only well-formed requests from a client that said ``hello`` reach the
table runtime, which does the game checks under its lock. See docs/protocol.md for every message.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from starlette.websockets import WebSocket, WebSocketDisconnect

from ..access.auth import session_for_token
from ..jsontext import loads
from ..social.chat import Link
from ..storage.models import Session as SignIn
from ..table.connection import Connection
from ..table.runtime import TableError, TableRuntime, no_such_table
from ..table.store import TableMoved

if TYPE_CHECKING:
    from ..hub import Hub

PROTOCOL = "estimation-ws/1"
MAX_ID = 64
MAX_ACTION = 40
#: The messages that change something: each is accepted only while the socket's session still stands.
ACTING = frozenset({"action", "back", "leave", "chat", "chat_prefs"})


def error(code: str, message: str, request_id: Any = None) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "error", "code": code, "message": message}
    if isinstance(request_id, str) and len(request_id) <= MAX_ID:
        out["id"] = request_id
    return out


def _opt_int(msg: dict[str, Any], key: str) -> tuple[bool, int | None]:
    """(ok, value): the field is absent/null, or a non-negative int that fits 63 bits (bools refused)."""
    value = msg.get(key)
    if value is None:
        return True, None
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 2**63:
        return False, None
    return True, value


def _opt_str(msg: dict[str, Any], key: str, limit: int) -> tuple[bool, str | None]:
    value = msg.get(key)
    if value is None:
        return True, None
    if not isinstance(value, str) or len(value) > limit:
        return False, None
    return True, value


class ParseError(dict[str, Any]):
    """The error message for a frame that is not a request (a dict, so it can be sent as it is)."""


class Session:
    """One socket's conversation with one table."""

    def __init__(self, hub: Hub, ws: WebSocket, table_id: int | None) -> None:
        self.hub = hub
        self.ws = ws
        self.table_id = table_id
        settings = hub.settings
        self.conn = Connection(ws, settings.send_queue, settings.rate_per_second, settings.rate_burst,
                               settings.send_queue_bytes, settings.send_timeout)
        self.runtime: TableRuntime | None = None
        #: Chat, presence and the player's own notices, from the bus (chat.py).
        self.link: Link | None = None

    async def run(self) -> None:
        settings = self.hub.settings
        conn = self.conn
        address = self.ws.client.host if self.ws.client else "?"
        if not await self.hub.connects.allow(address):
            conn.kick(error("rate_limited", "too many new sockets from your address: try again later"))
            await conn.finish()
            return
        if not self.hub.sockets.admit(conn, address):
            conn.kick(error("too_many_connections", f"at most {self.hub.sockets.per_address} sockets from "
                                                    "one address"))
            await conn.finish()
            return
        try:
            while not conn.closed:
                frame = await conn.receive()
                if frame is None or frame["type"] == "websocket.disconnect":
                    break
                if conn.expired():
                    conn.kick(error("session_expired", "your session has expired: sign in again"))
                    break
                allowed = self.conn.limiter.allow()
                msg = self.parse(frame.get("text"), settings.max_message_bytes)
                if not allowed:
                    # Refused with the request's id when it has one, so a client knows what to resend.
                    self.conn.violations += 1
                    request_id = None if isinstance(msg, ParseError) else msg.get("id")
                    closing = self.conn.violations > settings.max_violations
                    self.conn.send(error("rate_limited", "too many messages: " + (
                        "closing" if closing else "slow down"), request_id))
                    if closing:
                        break
                    continue
                if isinstance(msg, ParseError):
                    self.conn.send(msg)
                    continue
                try:
                    await self.dispatch(msg)
                except TableMoved as exc:
                    # Cluster mode: another worker owns the table. The client reconnects through the
                    # balancer (after retry_ms), which sends it to the owner; nothing was done here.
                    conn.kick(exc.message_for_client())
                    break
                except TableError as exc:
                    self.conn.send(error(exc.code, exc.message, msg.get("id")))
        except WebSocketDisconnect:
            pass
        finally:
            if self.runtime is not None:
                self.runtime.conns.discard(conn)
            if self.link is not None:
                self.link.detach()
            self.hub.sockets.remove(conn)
            await conn.finish()

    @staticmethod
    def parse(text: str | None, limit: int) -> dict[str, Any] | ParseError:
        """A well-formed request, or the error message that says why it is not one."""
        if text is None:
            return ParseError(error("bad_message", "send JSON text frames, not binary"))
        if len(text) > limit or len(text.encode("utf-8", "surrogatepass")) > limit:
            return ParseError(error("too_large", f"messages are at most {limit} bytes"))
        try:
            msg = loads(text)
        except (ValueError, RecursionError):
            return ParseError(error("bad_json", "not valid JSON"))
        if not isinstance(msg, dict) or not isinstance(msg.get("type"), str):
            return ParseError(error("bad_message", 'a message is a JSON object with a string "type"'))
        return msg

    async def dispatch(self, msg: dict[str, Any]) -> None:
        kind = msg["type"]
        if kind == "ping":
            self.conn.send({"type": "pong", "id": msg.get("id") if isinstance(msg.get("id"), str) else None})
            return
        if kind == "hello":
            await self.hello(msg)
            return
        if kind in ACTING and not await self.hub.session_alive(self.conn):
            return  # signed out or expired meanwhile (its news may never have come): kicked, nothing done
        if kind in ("chat", "chat_prefs"):
            if self.link is None:
                raise TableError("hello_first", 'say {"type": "hello"} first')
            seat = None if self.runtime is None else self.runtime.seat_of(self.conn)  # seated players only
            await self.link.handle(msg, seat)
            return
        if kind not in ("action", "sync", "back", "leave"):
            raise TableError("unknown_type", f"unknown message type {kind[:40]!r}")
        runtime = self.runtime
        if runtime is None:
            raise TableError("hello_first", 'say {"type": "hello"} first')
        if kind == "sync":
            ok, last = _opt_int(msg, "last_version")
            if not ok:
                raise TableError("bad_message", '"last_version" is a non-negative integer')
            async with runtime.lock:
                self.conn.send(runtime.catch_up(runtime.seat_of(self.conn), last))
        elif kind == "action":
            ok_id, action_id = _opt_str(msg, "id", MAX_ID)
            ok_text, text = _opt_str(msg, "action", MAX_ACTION)
            ok_version, version = _opt_int(msg, "version")
            if not ok_id or not action_id:
                raise TableError("bad_message", f'an action needs a string "id" of 1-{MAX_ID} characters')
            if not ok_text or not text:
                raise TableError("bad_message", f'an action needs its text in "action" (at most {MAX_ACTION} '
                                                'characters), e.g. "1 play QH"')
            if not ok_version:
                raise TableError("bad_message", '"version" is a non-negative integer')
            await runtime.act(self.conn, action_id, text, version)
        elif kind == "back":
            await runtime.come_back(self.conn)
        elif kind == "leave":
            async with runtime.lock:
                seated = runtime.seat_of(self.conn) is not None
            if self.conn.account_id is None or not seated:
                raise TableError("not_seated", "spectators have no seat to leave")
            await runtime.leave(self.conn.account_id)  # every socket of this seat is a spectator's now
            async with runtime.lock:
                self.conn.send(runtime.snapshot(runtime.seat_of(self.conn)))

    async def hello(self, msg: dict[str, Any]) -> None:
        if self.runtime is not None:
            raise TableError("already_joined", "this connection already said hello")
        ok_token, token = _opt_str(msg, "token", 200)
        ok_invite, invite = _opt_str(msg, "invite", 64)
        ok_last, last = _opt_int(msg, "last_version")
        if not (ok_token and ok_invite and ok_last):
            raise TableError("bad_message", 'hello takes "token" and "invite" strings and an integer '
                                            '"last_version", all optional')
        runtime = None if self.table_id is None else await self.hub.get(self.table_id)
        if runtime is None:
            raise no_such_table()
        account_id = session = None
        if token is not None:
            async with self.hub.session() as db:
                found = await session_for_token(db, token)
            if found is None:
                raise TableError("unauthorized", "unknown or expired token: sign in again")
            session, account = found
            account_id = account.id
        while not await self.attach(runtime, account_id, session, invite, last):
            # The table was dropped from memory while this waited for its lock (handed over to another
            # worker, or evicted): a socket added to that runtime would never hear of the table again.
            runtime = await self.hub.get(runtime.id)
            if runtime is None:
                raise no_such_table()
        self.link = await Link.attach(self.hub, self.conn, runtime.id, account_id)

    async def attach(self, runtime: TableRuntime, account_id: int | None, session: SignIn | None,
                     invite: str | None, last: int | None) -> bool:
        """Join this socket to ``runtime`` (its seat, if the account holds one) and send the welcome and the
        catch-up, in one hold of the table's lock; False, with nothing done, if ``runtime`` is no longer the
        table this process serves."""
        async with runtime.lock:
            if not self.hub.serves(runtime):
                return False
            seat = next((i for i, s in enumerate(runtime.seats)
                         if account_id is not None and s.account_id == account_id and not s.left), None)
            if seat is None and not runtime.admits(account_id, invite):
                raise no_such_table()  # to an outsider a private table is not there at all
            if session is not None and not self.hub.sockets.sign_in(
                    self.conn, session.account_id, session.token_hash, session.expires_at):
                raise TableError("too_many_connections", f"at most {self.hub.sockets.per_player} sockets "
                                                         "per player: close one first")
            self.conn.seat, self.conn.table_id = seat, runtime.id
            self.runtime = runtime
            runtime.conns.add(self.conn)
            self.conn.send({"type": "welcome", "protocol": PROTOCOL, "table_id": runtime.id, "seat": seat,
                            "account_id": account_id, "version": runtime.version})
            self.conn.send(runtime.catch_up(seat, last))
        return True


async def table_socket(ws: WebSocket, table_id: str) -> None:
    hub: Hub = ws.app.state.hub
    await ws.accept()
    parsed = int(table_id) if table_id.isascii() and table_id.isdigit() and len(table_id) < 10 else None
    await Session(hub, ws, parsed).run()
