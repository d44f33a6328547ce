"""The browser tests: a real `estimation serve` on loopback (SQLite in a temp file) and Debian's chromium.

Chromium is never downloaded by Playwright: these tests drive /usr/bin/chromium (or $CHROMIUM) and FAIL when
it is missing; scripts/test.sh installs the Debian package when run as root.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))

from server_helpers import ServerProcess

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
#: The completed trick's pause in the tests (the page's test setting ?pause=MS); people get about a second.
PAUSE_MS = 40


@pytest.fixture(scope="session")
def web_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    path = tmp_path_factory.mktemp("webdb") / "estimation.db"
    proc = ServerProcess(f"sqlite+aiosqlite:///{path}", name="web")
    proc.start()
    try:
        yield proc
    finally:
        proc.stop()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Chromium for one test module. Not for the session: Playwright's sync API leaves its event loop marked
    running in this thread while it lives, so a later module on the same xdist worker that calls
    asyncio.run() (the server tests do) would fail; a browser launch costs about a second per module."""
    if not Path(CHROMIUM).exists():
        pytest.fail(f"chromium is needed for the browser tests and {CHROMIUM} is missing: run "
                    "`bash scripts/test.sh` as root (it installs Debian's chromium), "
                    "or apt-get install chromium")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture()
def context(browser: Any) -> Iterator[Any]:
    ctx = browser.new_context(viewport={"width": 1280, "height": 800}, reduced_motion="no-preference")
    ctx.set_default_timeout(20_000)
    try:
        yield ctx
    finally:
        ctx.close()
