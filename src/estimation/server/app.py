"""The ASGI application: the lobby's REST routes, the table WebSocket, and the hub's start and stop.

``create_app`` takes its settings explicitly so tests can run several servers side by side; `estimation
serve` builds them from the environment.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI, Request
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException
from starlette.responses import Response

from .. import __version__
from ..web.mount import mount_web
from .access.ratelimit import RestRateLimit
from .config import Settings
from .hub import Hub
from .ops.observe import RequestContext
from .routes import accounts, calc, chat, competitions, leaderboard, players, rules, social, tables
from .routes.http import BodyGuard, SafeJSONResponse, SecurityHeaders
from .routes.lobby_socket import lobby_socket
from .routes.table_socket import table_socket
from .social.service import Social
from .storage.pruning import Pruner
from .table.runtime import TableError

DESCRIPTION = """The Estimation game server: a lobby over REST (this document) and tables over a WebSocket at
`/ws/tables/{table_id}` (messages in docs/protocol.md). Sign in with `/api/guests`, `/api/accounts` or
`/api/sessions` and send the token as `Authorization: Bearer TOKEN`."""


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or Settings.from_env()
    hub = Hub(settings, Social)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        await hub.start()
        pruner = Pruner(hub.session, settings, hub.journal.settle_wal if hub.journal is not None else None)
        pruner.start()
        try:
            yield
        finally:
            await pruner.stop()
            await hub.stop()

    app = FastAPI(title="Estimation server", version=__version__, description=DESCRIPTION, lifespan=lifespan)
    app.state.hub = hub
    # Outermost first when the request comes in: headers on every answer (429s too), the rate limit,
    # then the body read whole, in time and in size, before any route sees it.
    app.add_middleware(BodyGuard, max_bytes=settings.max_body_bytes, timeout=settings.body_timeout)
    app.add_middleware(RestRateLimit, rate=settings.rest_rate_per_second,
                       burst=settings.rest_rate_burst, verified=hub.verified,
                       address_rate=settings.rest_address_rate_per_second,
                       address_burst=settings.rest_address_burst)
    app.add_middleware(SecurityHeaders)
    # Outermost: every answer (a 413 or 429 too) is counted and carries the request's id.
    app.add_middleware(RequestContext, counted=hub.metrics.answered)
    for routes in (rules, players, accounts, tables, social, chat, leaderboard, calc, competitions):
        app.include_router(routes.router)
    app.add_api_websocket_route("/ws/tables/{table_id}", table_socket)
    app.add_api_websocket_route("/ws/lobby", lobby_socket)
    mount_web(app)

    @app.exception_handler(TableError)
    async def table_error(_request: Request, exc: TableError) -> Response:
        headers = {"Retry-After": "1"} if exc.status in (429, 503) else None  # 503: the table moved
        return SafeJSONResponse({"detail": exc.message, "code": exc.code}, status_code=exc.status,
                                headers=headers)

    @app.exception_handler(RequestValidationError)
    async def invalid_request(_request: Request, exc: RequestValidationError) -> Response:
        # As FastAPI's own handler, but its JSON written as ASCII: the errors echo the client's input,
        # which may hold a lone surrogate that UTF-8 cannot encode (that was a 500).
        return SafeJSONResponse({"detail": jsonable_encoder(exc.errors())}, status_code=422)

    @app.exception_handler(HTTPException)
    async def http_error(_request: Request, exc: HTTPException) -> Response:
        if exc.status_code in (204, 304) or exc.status_code < 200:
            return Response(status_code=exc.status_code, headers=exc.headers)
        return SafeJSONResponse({"detail": exc.detail}, status_code=exc.status_code, headers=exc.headers)

    return app
