"""Competitions in the browser (issue 23): eight people (browser contexts) and bots play a two-stage swiss
of koutchina micro to the end, taken to their tables when each stage starts (one person leaves a table
in stage 1: a bot plays the seat on, and stage 2 seats seven people and a bot), and read the standings and
a board's traveller; one person plays a robot competition on a phone viewport, leaving and coming back.

Everything a person does is a click on a visible control; screenshots go to $ESTIMATION_SCREENSHOTS (the
docs' ones: ESTIMATION_SCREENSHOTS=docs/screenshots), else to the test's temporary folder.
"""

from __future__ import annotations

import os
import re
import time
from pathlib import Path
from typing import Any

import httpx
import web_helpers as w
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError


def _shots(tmp_path: Path) -> Path:
    out = Path(os.environ.get("ESTIMATION_SCREENSHOTS", tmp_path))
    out.mkdir(parents=True, exist_ok=True)
    return out


def _table_of(page: Any) -> int | None:
    m = re.search(r"#/table/(\d+)$", page.url)
    return int(m.group(1)) if m else None


def _create_competition(page: Any, **fields: str) -> int:
    page.click("#competition-new summary")
    page.fill("#c-name", fields.get("name", "Koutchina Cup"))
    page.select_option("#c-kind", fields.get("kind", "swiss"))
    page.select_option("#c-ruleset", "koutchina")
    page.select_option("#c-length", "micro")
    page.select_option("#c-level", "random")
    if fields.get("kind", "swiss") == "swiss":
        page.fill("#c-stages", fields.get("stages", "2"))
        page.fill("#c-clock", "0")
    else:
        page.fill("#c-window", "2")
        page.fill("#c-limit", "1")
    page.fill("#c-starts", fields.get("starts", "10"))
    page.click("#c-create")
    page.wait_for_url(re.compile(r"#/competition/\d+"))
    page.wait_for_selector("#c-rules")
    return int(re.search(r"#/competition/(\d+)", page.url).group(1))  # type: ignore[union-attr]


def test_two_stage_swiss_people_and_bots(browser: Any, web_server: Any, tmp_path: Path) -> None:
    out = _shots(tmp_path)
    contexts = [w.new_context(browser) for _ in range(8)]
    for context in contexts:
        context.set_default_timeout(60_000)  # as in the robot test below: standings on a loaded machine
    try:
        pages = [w.open_app(ctx, web_server.base) for ctx in contexts]
        for i, page in enumerate(pages):
            w.sign_in_guest(page, f"Player {i + 1}")
        director = pages[0]
        cid = _create_competition(director)
        assert "2 stages of 5 boards" in director.inner_text("#c-rules")
        for page in pages:
            if page is not director:
                page.goto(f"{web_server.base}/?pause=40#/competition/{cid}")
            page.click("#c-register")
            page.wait_for_selector("#c-withdraw")
        director.wait_for_selector("#c-entrant-list li >> nth=7")
        assert "Starts in" in director.inner_text("#c-countdown")
        director.screenshot(path=str(out / "competition-upcoming-desktop-en.png"), full_page=True)
        director.click("#c-start")
        # Everyone is taken to their table by the lobby socket's competition_table message.
        for page in pages:
            page.wait_for_url(re.compile(r"#/table/\d+$"), timeout=30_000)
        stage1 = {_table_of(p) for p in pages}
        assert len(stage1) == 2
        # Chat at a competition table: the quick phrases only.
        pages[1].wait_for_selector(".chat.phrases-only")
        assert pages[1].locator("#chat-input").is_hidden()
        pages[1].wait_for_selector("#chat-phrases button")
        # A leaver: after a move of their own, the last person leaves their table (the dialog says a bot
        # plays on); they are back in the lobby, and out of the competition's next stage.
        leaver, pages = pages[-1], pages[:-1]
        moved_once = False
        while not moved_once:
            moved_once = w.act_once(leaver)
            for page in pages:
                w.act_once(page)
        w.close_dialogs(leaver)
        leaver.click("#leave-btn")
        leaver.click("#leave-dialog button.ok")
        leaver.wait_for_selector("#lobby, .lobby", timeout=30_000)
        waited = raced = False
        stage2: set[int | None] = set()
        deadline = time.monotonic() + 600
        while True:
            if time.monotonic() > deadline:
                for i, page in enumerate(pages):  # what each person saw, for the failure's report
                    page.screenshot(path=f"/tmp/stuck-{i}.png", full_page=True)
                raise AssertionError(f"the swiss was not played in time: {[p.url for p in pages]}, "
                                     "screenshots in /tmp/stuck-N.png, errors "
                                     f"{[p.js_errors for p in pages]}")
            status = httpx.get(f"{web_server.base}/api/competitions/{cid}").json()
            if status["status"] == "finished":
                break
            moved = False
            for page in pages:
                moved |= w.act_once(page)
            if not moved:
                time.sleep(0.05)
            # The first page whose stage-1 table is over looks at the competition: waiting for the others.
            if not waited and not raced and status["stage"] == 1 and status["tables_finished"] == 1:
                done = next((p for p in pages if p.locator("#match-end-competition").count()), None)
                if done is not None:
                    try:
                        done.click("#match-end-competition", timeout=5_000)
                    except PlaywrightTimeoutError:
                        # Gone between the look and the click: stage 2 took this person to its table.
                        done.wait_for_url(re.compile(r"#/table/\d+$"), timeout=30_000)
                    # Waiting for the other table, unless it finished meanwhile (a loaded machine: both
                    # tables can end together) and stage 2 took this person to its table.
                    done.wait_for_function("() => (document.getElementById('c-wait')?.textContent || '')"
                                           ".length > 0 || /#\\/table\\/\\d+$/.test(location.hash)",
                                           timeout=60_000)
                    if done.locator("#c-wait:visible").count():
                        text = done.inner_text("#c-wait")
                        assert "Waiting for the other tables (1 of 2 finished)" in text, text
                        done.screenshot(path=str(out / "competition-waiting-desktop-en.png"), full_page=True)
                        waited = True
                    else:
                        raced = True  # both tables ended within one look: stage 2 came first
            if status["stage"] == 2 and not stage2:
                for page in pages:
                    page.wait_for_url(re.compile(r"#/table/\d+$"), timeout=30_000)
                stage2 = {_table_of(p) for p in pages}
                assert len(stage2) == 2 and not stage2 & stage1
        # Every person was taken to a stage-2 table. The waiting message is checked here when a page of the
        # first table to end looked before the second ended (its text, above); on a loaded machine both can
        # end before that (seen on CI, with no page of the first table at its end yet), so the message is
        # checked every time by test_web_competitions_egyptian.py, whose tables end apart.
        assert stage2, "stage 2 never seated the people"
        print("stage 1's waiting message", "seen" if waited else "not seen (both tables ended together)",
              "raced" if raced else "")
        # The end: standings with MP and %, a board's traveller from both tables, a replay of one.
        reader = pages[2]
        reader.goto(f"{web_server.base}/?pause=40#/competition/{cid}")
        reader.wait_for_selector("#c-standings-table tbody tr >> nth=7")
        assert "The competition is over." in reader.inner_text("#c-wait")
        rows = reader.locator("#c-standings-table tbody tr")
        assert rows.count() == 8
        assert "Player 8 (left)" in reader.inner_text("#c-standings-table")
        assert re.search(r"\d+\.\d\d%", reader.inner_text("#c-standings-table"))
        reader.click("#c-boards button[data-stage='2'][data-round='3']")
        reader.wait_for_selector("#c-traveller-table tbody tr >> nth=7")
        traveller = reader.inner_text("#c-traveller-table")
        assert traveller.count("Bot") == 1 and traveller.count("Player") == 7  # stage 2: seven and a bot
        assert reader.locator("#c-my-boards li").count() == 10  # five boards a stage, two stages
        assert "Best" in reader.inner_text("#c-best")
        reader.screenshot(path=str(out / "competition-finished-desktop-en.png"), full_page=True)
        reader.click("#c-traveller a.c-replay >> nth=0")
        reader.wait_for_url(re.compile(r"#/replay/\d+"))
        reader.wait_for_selector(".replay, #replay", timeout=20_000)
        # The same page in Arabic.
        reader.goto(f"{web_server.base}/?pause=40#/competition/{cid}")
        reader.click("#lang-toggle")
        reader.wait_for_selector("#c-standings-table")
        assert reader.evaluate("document.documentElement.dir") == "rtl"
        assert "الترتيب" in reader.inner_text("#c-standings")
        reader.screenshot(path=str(out / "competition-finished-desktop-ar.png"), full_page=True)
        reader.click("#lang-toggle")
        for page in (*pages, leaver):
            assert not page.js_errors, page.js_errors
    finally:
        for ctx in contexts:
            ctx.close()


def test_robot_competition_on_a_phone_leave_and_resume(browser: Any, web_server: Any, tmp_path: Path) -> None:
    out = _shots(tmp_path)
    ctx = w.new_context(browser, phone=True)
    # The competition's pages wait for its standings, which a loaded machine (both CI workers busy) can
    # take longer than the usual 20 s to push: the waits below are for events, not for a fixed time.
    ctx.set_default_timeout(60_000)
    try:
        page = w.open_app(ctx, web_server.base)
        w.sign_in_guest(page, "Solo")
        cid = _create_competition(page, name="Robot Daylong", kind="robot", starts="0")
        assert "alone against three random bots" in page.inner_text("#c-rules")
        page.click("#c-register")
        page.wait_for_selector("#c-play")
        page.screenshot(path=str(out / "competition-robot-phone-en.png"), full_page=True)
        # Keyboard: the Play button is reachable and works with Enter.
        page.focus("#c-play")
        page.keyboard.press("Enter")
        page.wait_for_url(re.compile(r"#/table/\d+$"))
        table = _table_of(page)
        made = 0
        while made < 6:
            if w.act_once(page):
                made += 1
            else:
                time.sleep(0.05)
        # Leave the page (not the table): back to the lobby, then to the competition.
        page.click("#competition-link")
        page.wait_for_selector("#c-play")
        assert page.inner_text("#c-play") == "Go on playing"
        version = httpx.get(f"{web_server.base}/api/competitions/{cid}").json()
        assert version["status"] == "running"
        page.click("#c-play")
        page.wait_for_url(re.compile(rf"#/table/{table}$"))
        page.wait_for_selector(".table-page .bar")
        page.screenshot(path=str(out / "competition-robot-table-phone-en.png"), full_page=False)
        deadline = time.monotonic() + 300
        while httpx.get(f"{web_server.base}/api/competitions/{cid}").json()["status"] != "finished":
            assert time.monotonic() < deadline, "the robot competition did not finish"
            if not w.act_once(page):
                time.sleep(0.05)
        page.goto(f"{web_server.base}/?pause=40#/competition/{cid}")
        page.wait_for_selector("#c-my-boards li >> nth=4")
        page.screenshot(path=str(out / "competition-robot-finished-phone-en.png"), full_page=True)
        assert page.locator("#c-standings-table tbody tr").count() == 1
        assert not page.js_errors, page.js_errors
    finally:
        ctx.close()
