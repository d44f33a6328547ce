"""What every route shares: the hub, the caller's account, bounded inputs and strict bodies.

Every input is bounded by its schema (lengths, ranges, strict types: a number is a JSON number, never
``"10"``, ``10.0`` or ``true``; every string valid Unicode, no lone surrogates; names by ``names``), so that
nothing a client sends can reach the database in a form it rejects: a bad request is a 4xx, never a 500.
Invite codes travel in the ``X-Invite-Code`` header or a JSON body, never in a URL (URLs end up in logs,
histories and Referer headers).
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Depends, Header, HTTPException, Path, Query, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, field_validator

from ..access import auth, names
from ..access.ratelimit import peer
from ..hub import Hub
from ..storage.models import Account
from ..table.runtime import TableError
from ..table.store import TableStore

#: Every router's documented 429.
TOO_MANY: dict[int | str, dict[str, Any]] = {429: {
    "description": "Too many requests from this client (its session token, else its address); the body says "
                   "the limit, Retry-After says when to try again. See access/ratelimit.py."}}
bearer = HTTPBearer(auto_error=False, description="A session token from /api/guests, /api/accounts or "
                                                   "/api/sessions.")


def _encodable(text: str) -> str:
    """Refuse text that no database or screen can take: lone surrogates (JSON's ``"\\ud800"``)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError("text must be valid Unicode (no lone surrogates)") from None
    return text


def _name(text: str) -> str:
    """A player's name in its shown form (``names.shown``: PRECIS Nickname, no look-alikes)."""
    return names.shown(_encodable(text))


Name = Annotated[str, Field(min_length=1, max_length=32, examples=["Ann"]), AfterValidator(_name)]
Password = Annotated[str, Field(min_length=8, max_length=128), AfterValidator(_encodable)]
Code = Annotated[str, Field(min_length=1, max_length=32, pattern=r"^[A-Za-z0-9_-]+$")]
TableId = Annotated[int, Path(ge=1, le=2_147_483_647, description="A table's id.")]
PlayerId = Annotated[int, Path(ge=1, le=2_147_483_647, description="A player's id.")]
Limit = Annotated[int, Query(ge=1, le=100)]
Offset = Annotated[int, Query(ge=0, le=1_000_000)]


class Strict(BaseModel):
    """Every request body: no unknown keys, strict types (an integer is a JSON integer: not ``"10"``,
    ``10.0`` or ``true``; a boolean is ``true`` or ``false``), and every string in it valid Unicode."""

    model_config = ConfigDict(extra="forbid", strict=True)

    @field_validator("*", mode="after")
    @classmethod
    def _text_is_unicode(cls, value: Any) -> Any:
        for text in _texts(value):
            _encodable(text)
        return value


def _texts(value: Any) -> Any:
    if isinstance(value, str):
        yield value
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _texts(item)


def hub_of(request: Request) -> Hub:
    hub: Hub = request.app.state.hub
    return hub


HubDep = Annotated[Hub, Depends(hub_of)]


def store_of(request: Request) -> TableStore:
    """Where the tables are kept: for the routes that only read them."""
    store: TableStore = request.app.state.hub.store
    return store


StoreDep = Annotated[TableStore, Depends(store_of)]
Creds = Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)]


async def verified_account(hub: Hub, creds: HTTPAuthorizationCredentials | None) -> Account | None:
    """The account a request's token signs in, remembered as verified for the rate limit's key."""
    if creds is None:
        return None
    async with hub.session() as db:
        found = await auth.session_for_token(db, creds.credentials)
    if found is None:
        return None
    session, account = found
    hub.verified.note(session.token_hash, account.id, session.expires_at)
    return account


async def current_account(hub: HubDep, creds: Creds) -> Account:
    account = await verified_account(hub, creds)
    if account is None:
        raise HTTPException(401, "sign in first: unknown, missing or expired token",
                            headers={"WWW-Authenticate": "Bearer"})
    return account


async def limit_creating(kind: str, hub: Hub, request: Request) -> None:
    """The per-address limit on creating guests, accounts and tables (``Settings.create_per_minute``)."""
    if not await hub.allow_create(kind, peer(request.scope)):
        raise TableError("rate_limited", f"too many new {kind}s from your address: at most "
                                         f"{hub.settings.create_per_minute:g} a minute (bursts of "
                                         f"{hub.settings.create_burst}); try again later", 429)


Me = Annotated[Account, Depends(current_account)]


async def password_work(hub: Hub, work: Any, *args: Any, key: str = "", weight: int = 0) -> Any:
    """Password work on the hashing threads (``key``, ``weight``: its place in their fair queue, see
    ``auth.Hashing``); 429 when too many are waiting for them already."""
    try:
        return await hub.hashing.run(work, *args, key=key, weight=weight)
    except auth.Busy:
        raise TableError("busy", "too many sign-ins at once: try again in a moment", 429) from None


async def account_id_of(hub: Hub, creds: HTTPAuthorizationCredentials | None) -> int | None:
    account = await verified_account(hub, creds)
    return None if account is None else account.id


Invite = Annotated[str | None, Header(alias="X-Invite-Code", max_length=64,
                                      description="A private table's invite code.")]


