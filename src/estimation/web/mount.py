"""Serve the browser client: ``/`` is the single page, ``/static/...`` its modules, styles and images.

The client is plain files (no build step); the server's app factory calls :func:`mount_web` once.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import FileResponse
from starlette.staticfiles import StaticFiles

WEB = Path(__file__).resolve().parent
STATIC = WEB / "static"
INDEX = WEB / "index.html"


def mount_web(app: Any) -> None:
    """Add ``GET /`` (index.html) and ``/static`` to a FastAPI or Starlette app."""

    async def index(_request: Request) -> FileResponse:
        # No caching of the page itself, so a new release's module URLs are picked up on reload.
        return FileResponse(INDEX, media_type="text/html", headers={"Cache-Control": "no-cache"})

    app.add_route("/", index, methods=["GET", "HEAD"], include_in_schema=False)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
