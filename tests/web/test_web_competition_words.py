"""What the competition pages and a table say, in English and Arabic: a negative score reads "-31" in an
Arabic sentence (a director's score adjustment) and in the traveller.

Screenshots of the pages go to $ESTIMATION_SCREENSHOTS, else to the test's temporary folder.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import web_helpers as w
from server_helpers import Api
from test_web_competitions import _shots


def _competition(api: Api, **fields: Any) -> int:
    body = {"name": "Words Cup", "ruleset": "koutchina", "length": "micro", "bot_level": "random",
            "stages": 1, "turn_seconds": 0, "starts_in": 3600, **fields}
    if body.get("kind") == "robot":
        body.pop("stages"), body.pop("turn_seconds")
        body.setdefault("window_seconds", 7200)
    return int(api.ok(api.post("/api/competitions", body))["id"])


def _open(page: Any, base: str, cid: int) -> None:
    page.goto(f"{base}/?pause=40#/competition/{cid}")
    page.wait_for_selector("#c-rules")


def _play_robot_table(page: Any, base: str, cid: int) -> int:
    """Register for a running robot competition and sit at one's table (Register, then Play now)."""
    _open(page, base, cid)
    page.click("#c-register", timeout=30_000)
    page.click("#c-play", timeout=30_000)
    page.wait_for_url(re.compile(r"#/table/\d+$"))
    page.wait_for_selector(".table-page .bar")
    return int(page.url.rsplit("/", 1)[1])


# --- 1. a negative score in Arabic ----------------------------------------------------------------------
def test_a_negative_score_reads_minus_first_in_arabic(browser: Any, web_server: Any, tmp_path: Path) -> None:
    """A director's score adjustment is a sentence with the score in it: in Arabic its minus once came after
    the digits ("صارت النتيجة 31-"); the traveller's cells show it "-31" too, measured on the screen."""
    out = _shots(tmp_path)
    director = Api.guest(web_server, "Words Director")
    cid = _competition(director, kind="robot", starts_in=0)
    ctx = w.new_context(browser)
    ctx.set_default_timeout(60_000)
    try:
        page = w.open_app(ctx, web_server.base)
        w.sign_in_guest(page, "Minus Reader")
        table = _play_robot_table(page, web_server.base, cid)
        w.act_until(page, "#round-end[open]", 120)  # the first board finished
        director.ok(director.post(f"/api/competitions/{cid}/adjustments", {
            "stage": 1, "round": 1, "table": table, "seat": 0, "score": -31, "reason": "a revoke"}))
        _open(page, web_server.base, cid)
        page.wait_for_selector("#c-adjustment-list li")
        page.click("#c-boards button[data-round='1']")
        page.wait_for_selector("#c-traveller-table tbody tr >> nth=3")
        assert "-31" in page.inner_text("#c-traveller-table")
        page.screenshot(path=str(out / "competition-adjusted-desktop-en.png"), full_page=True)
        w.to_arabic(page)
        page.wait_for_selector("#c-adjustment-list li:has-text('النتيجة')")
        page.wait_for_selector("#c-traveller-table:has-text('روبوت')")
        for where in ("#c-adjustment-list", "#c-traveller-table"):
            found = w.signs(page, where)
            assert ("-31", True) in found, (where, found)
            assert all(ok for _, ok in found), (where, found)
        page.screenshot(path=str(out / "competition-adjusted-desktop-ar.png"), full_page=True)
        assert not page.js_errors, page.js_errors
    finally:
        ctx.close()
