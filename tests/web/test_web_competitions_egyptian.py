"""An `egyptian` competition in the browser: a person (Hana) plays a swiss of `committee` through the page
with four entrants played over the API; one of them, at Hana's table, leaves after the first board, which ends
that table (egyptian ruling 9). Hana reads "waiting for the other tables (1 of 2 finished)", then, at the
end, the standings (the leaver shown as left), a board's traveller (the calls column, her own table not
finished there, the leaver marked) and her summary; the same page in Arabic (right to left, the names of
the ruleset and the length in Arabic) and at phone size. Before the start every place is a dash and a
watcher who is not an entrant is not told to finish a board. Screenshots go to $ESTIMATION_SCREENSHOTS,
else to the test's temporary folder.
"""

from __future__ import annotations

import asyncio
import random
import re
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import web_helpers as w
from server_helpers import Api, Player
from test_web_competitions import _shots

BOARDS_BEFORE_LEAVING = 1
NO_PLACE = "\N{EN DASH}"  # the page's "no figure" mark
TEXTS = "els => els.map(e => e.textContent)"


def _mates_play(server: Any, players: list[tuple[Api, int]], leaver: Api, go: threading.Event,
                hana_table: int, failures: list[BaseException]) -> threading.Thread:
    """The four API entrants, in a thread of their own: Hana's table-mates play (the leaver leaves after
    the first board); the other table's wait for ``go`` (so Hana sees it still playing), then play out."""

    async def one(api: Api, table_id: int, seed: int) -> None:
        if table_id != hana_table:
            await asyncio.get_running_loop().run_in_executor(None, go.wait, 120)
        player = Player(server, table_id, api.token)
        await player.connect()
        if api is leaver:
            await player.play_to_end(random.Random(seed), timeout=120,
                                     stop_when=lambda v: v["round"] > BOARDS_BEFORE_LEAVING)
            api.ok(api.post(f"/api/tables/{table_id}/leave"))
        else:
            await player.play_to_end(random.Random(seed), timeout=120)
        await player.close()

    def main() -> None:
        async def all_of() -> None:
            await asyncio.gather(*(one(api, tid, i) for i, (api, tid) in enumerate(players)))
        try:
            asyncio.run(all_of())
        except BaseException as exc:  # reported by the test, not lost in the thread
            failures.append(exc)

    thread = threading.Thread(target=main, daemon=True)
    thread.start()
    return thread


def _stuck_at(mate: Api, page: Any, table_id: int) -> str:
    """What the table and Hana's page show when her table seems stuck: who is to move and what the page
    offers (a failing run says where it stopped, not only that it did)."""
    answer = mate.get(f"/api/tables/{table_id}/view").json()  # a table-mate may watch it
    view = {**answer.get("table", {}), **(answer.get("view") or {}), "version": answer.get("version")}
    shown = page.evaluate("""() => ({
        hash: location.hash,
        dialogs: [...document.querySelectorAll('dialog[open]')].map((d) => d.id),
        panels: [...document.querySelectorAll('.picker, .offer, .call-panel')].map((p) => p.id),
        legal: document.querySelectorAll('.hand button.card.legal').length,
        bar: (document.querySelector('.table-page .bar') || {}).innerText || null })""")
    keys = ("status", "version", "round", "phase", "to_move", "over")
    return f"server: {({k: view.get(k) for k in keys})}; page: {shown}; errors: {page.js_errors[-3:]}"


def _no_overflow(page: Any) -> None:
    """Nothing sticks out sideways (the traveller's wide table scrolls in its own box)."""
    over = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
    assert over <= 1, over


def test_egyptian_competition_in_the_browser(browser: Any, web_server: Any, tmp_path: Path) -> None:
    out = _shots(tmp_path)
    director = Api.guest(web_server, "Egypt Director")
    cid = director.ok(director.post("/api/competitions", {
        "name": "Nile Cup", "ruleset": "egyptian", "length": "committee", "bot_level": "random",
        "stages": 1, "turn_seconds": 0, "starts_in": 3600}))["id"]
    others = [Api.guest(web_server, name) for name in ("Nour", "Omar", "Layla", "Karim")]
    for api in others:
        api.ok(api.post(f"/api/competitions/{cid}/register"))
    ctx = w.new_context(browser)
    ctx.set_default_timeout(30_000)
    phone = w.new_context(browser, phone=True)
    try:
        page = w.open_app(ctx, web_server.base)
        w.sign_in_guest(page, "Hana")
        # The create-table form: no stray "null"; the length pickers say how many rounds each length has.
        assert "null" not in page.inner_text("#create-form")
        page.click("#competition-new summary")
        page.select_option("#c-ruleset", "egyptian")
        lengths = page.eval_on_selector_all("#c-length option", "els => els.map(e => e.textContent)")
        assert "committee (13 rounds)" in lengths, lengths
        page.goto(f"{web_server.base}/?pause=40#/competition/{cid}")
        page.wait_for_selector("#c-register")
        assert "Egyptian committee" in page.inner_text("#c-rules")  # the ruleset by its own name
        # Keyboard: Register is a button reached by focus, pressed with Enter.
        page.focus("#c-register")
        page.keyboard.press("Enter")
        page.wait_for_selector("#c-withdraw")
        page.wait_for_selector("#c-standings-table tbody tr >> nth=4")
        # Before any board nobody has a place: a dash, not five entrants all "1".
        places = page.eval_on_selector_all("#c-standings-table td.c-place", TEXTS)
        assert places == [NO_PLACE] * 5, places
        # A watcher who is not an entrant (as a director who plays no board; here on a phone) is not told
        # to finish a board.
        watcher = w.open_app(phone, web_server.base)
        w.sign_in_guest(watcher, "Watcher")
        watcher.goto(f"{web_server.base}/?pause=40#/competition/{cid}")
        watcher.wait_for_selector("#c-no-boards")
        assert "once its stage is over" in watcher.inner_text("#c-no-boards")

        director.ok(director.post(f"/api/competitions/{cid}/start"))
        page.wait_for_url(re.compile(r"#/table/\d+$"))
        hana_table = int(re.search(r"#/table/(\d+)$", page.url).group(1))  # type: ignore[union-attr]
        seating = {api.id: api.ok(api.get(f"/api/competitions/{cid}"))["mine"]["table_id"] for api in others}
        mates = [api for api in others if seating[api.id] == hana_table]
        assert mates, seating
        leaver = mates[0]
        go, failures = threading.Event(), []  # type: ignore[var-annotated]
        thread = _mates_play(web_server, [(api, seating[api.id]) for api in others], leaver, go, hana_table,
                             failures)
        # The leave dialog at a competition table says what leaving costs; Hana stays.
        page.wait_for_selector(".table-page .bar")
        page.click("#leave-btn")
        dialog = page.inner_text("#leave-dialog")
        assert "0 MP on every board your table has not finished" in dialog, dialog
        page.click("#leave-dialog button.cancel")
        # Hana plays until her table ends (the leaver's leaving ends an egyptian match).
        deadline = time.monotonic() + 90
        while not page.locator("#match-end-competition").count():
            if time.monotonic() > deadline or failures:
                page.screenshot(path=str(out / "stuck.png"), full_page=True)
                raise AssertionError(f"Hana's table did not end: {failures}, {out / 'stuck.png'}; "
                                     f"{_stuck_at(mates[-1], page, hana_table)}")
            if not w.act_once(page):
                time.sleep(0.05)
        page.click("#match-end-competition")
        page.wait_for_selector("#c-wait")
        page.wait_for_selector("#c-wait:has-text('1 of 2')")
        assert "Waiting for the other tables (1 of 2 finished)" in page.inner_text("#c-wait")
        page.screenshot(path=str(out / "competition-egyptian-waiting-desktop-en.png"), full_page=True)
        go.set()
        thread.join(150)
        assert not failures, failures
        deadline = time.monotonic() + 60
        while httpx.get(f"{web_server.base}/api/competitions/{cid}").json()["status"] != "finished":
            assert time.monotonic() < deadline, "the competition did not finish"
            time.sleep(0.2)

        # The end: standings (the leaver marked), the summary, a late board's traveller.
        page.wait_for_selector("#c-wait:has-text('over')", timeout=60_000)
        standings = page.inner_text("#c-standings-table")
        assert f"{leaver.account['name']} (left)" in standings, standings
        assert NO_PLACE not in page.eval_on_selector_all("#c-standings-table td.c-place", TEXTS)
        page.wait_for_selector("#c-my-boards li >> nth=12")
        boards = page.eval_on_selector_all("#c-my-boards li", "els => els.map(e => e.textContent)")
        assert sum("no result" in b for b in boards) == 13 - BOARDS_BEFORE_LEAVING, boards
        assert "Place" in page.inner_text("#c-my-standing")
        late = page.locator(f"#c-boards button[data-stage='1'][data-round='{BOARDS_BEFORE_LEAVING + 1}']")
        late.focus()
        page.keyboard.press("Enter")
        page.wait_for_selector("#c-traveller-table tbody tr >> nth=7")
        assert page.evaluate("document.activeElement.id") == "c-traveller"
        head = page.inner_text("#c-traveller-table thead")
        assert "Calls / bids" in head, head
        mine = page.locator(f"#c-traveller-table tr[data-table='{hana_table}']")
        assert "not finished" in mine.first.inner_text()
        assert f"{leaver.account['name']} (left)" in page.inner_text("#c-traveller-table")
        other = page.locator(f"#c-traveller-table tr:not([data-table='{hana_table}']) td.c-decl")
        assert all(other.nth(i).inner_text().strip() for i in range(other.count()))  # each bid or passed
        traveller = page.inner_text("#c-traveller-table")
        assert "(bot)" not in traveller and "Bot " in traveller  # "Bot 3", not "Bot 3 (bot)"
        page.screenshot(path=str(out / "competition-egyptian-finished-desktop-en.png"), full_page=True)

        # Arabic: right to left, and the ruleset's and length's names in Arabic, on a phone-sized page.
        page.click("#lang-toggle")
        page.wait_for_selector("html[dir='rtl']", state="attached")
        rules = page.inner_text("#c-rules")
        assert "مصرية" in rules and "اللجنة" in rules and "egyptian" not in rules and "committee" not in rules
        page.wait_for_selector("#c-traveller-table:has-text('روبوت')")  # redrawn in Arabic, bots too
        assert "(bot)" not in page.inner_text("#c-traveller-table")
        page.screenshot(path=str(out / "competition-egyptian-finished-desktop-ar.png"), full_page=True)
        page.set_viewport_size({"width": 390, "height": 844})
        page.wait_for_timeout(200)
        _no_overflow(page)
        page.screenshot(path=str(out / "competition-egyptian-finished-phone-ar.png"), full_page=True)
        page.click("#lang-toggle")
        page.wait_for_selector("html[dir='ltr']", state="attached")
        _no_overflow(page)
        page.screenshot(path=str(out / "competition-egyptian-finished-phone-en.png"), full_page=True)
        watcher.reload()
        watcher.wait_for_selector("#c-standings-table tbody tr >> nth=4")
        _no_overflow(watcher)
        watcher.screenshot(path=str(out / "competition-egyptian-watcher-phone-en.png"), full_page=True)
        for p in (page, watcher):
            assert not p.js_errors, p.js_errors
    finally:
        ctx.close()
        phone.close()
