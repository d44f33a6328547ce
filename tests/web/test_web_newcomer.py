"""What a newcomer meets (issue 22, "What a person meets"): refusals that say why in the page's language,
numbers that read right in Arabic, a turn clock that waits while a round's scores are on show, dialogs that
keep the round's breakdown, and the rest of the list; in Debian's chromium, through visible controls.

The module's server keeps the defaults a person meets (the shortest turn clock, the time to read a round's
scores), which the other test servers turn off. Screenshots go to $ESTIMATION_SCREENSHOTS when set, else to
/tmp/newcomer-shots.
"""

from __future__ import annotations

import contextlib
import os
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import web_helpers as w
from server_helpers import Api, ServerProcess

SHOTS = Path(os.environ.get("ESTIMATION_SCREENSHOTS", "/tmp/newcomer-shots"))
LEAST = 10  # the server's shortest turn clock (the default)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    path = tmp_path_factory.mktemp("newcomerdb") / "estimation.db"
    proc = ServerProcess(f"sqlite+aiosqlite:///{path}", name="newcomer",
                         env={"ESTIMATION_MIN_TURN_SECONDS": str(LEAST),
                              "ESTIMATION_ROUND_END_SECONDS": "20"})
    proc.start()
    try:
        yield proc
    finally:
        proc.stop()


def shot(page: Any, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


# --- refusals say why, in the page's language ---------------------------------------------------------
def test_refused_sign_up_and_sign_in_say_why_in_the_pages_language(context: Any,
                                                                    server: ServerProcess) -> None:
    page = w.open_app(context, server.base)
    err = ".signin .error"

    def attempt(name: str, password: str, button: str) -> str:
        page.fill("#name", name)
        page.fill("#password", password)
        page.click(button)
        page.wait_for_selector(f"{err}:not(:empty)")
        text = page.inner_text(err)
        assert "[object Object]" not in text and "object" not in text.lower(), text
        return text

    assert attempt("Newcomer", "short", "#register-btn") == "Error: Password: at least 8 characters."
    both = "Error: Name: must not be empty. Password: at least 8 characters."
    assert attempt("", "", "#register-btn") == both
    assert "different scripts" in attempt("\u0410nn", "correct horse battery", "#register-btn")
    assert attempt("Nobody Here", "correct horse battery", "#signin-btn") == "Error: Wrong name or password."
    w.to_arabic(page)
    assert attempt("Newcomer", "short", "#register-btn") == "خطأ: كلمة المرور: 8 أحرف على الأقل."
    assert attempt("Nobody Here", "correct horse battery", "#signin-btn") == "خطأ: الاسم أو كلمة المرور خطأ."
    assert "أبجديات" in attempt("\u0410nn", "correct horse battery", "#register-btn")
    shot(page, "signin-refused-ar")
    assert not page.js_errors


# --- a round's end: the clock waits, the numbers read right in Arabic -----------------------------------
def play_to_round_end(page: Any, timeout: float = 60.0) -> None:
    """Click the first lifted card or estimate at each of our turns until a round's scores open."""
    w.act_until(page, "#round-end[open]", timeout)


def test_the_clock_waits_under_the_round_end_panel_and_its_numbers_read_right_in_arabic(
        context: Any, server: ServerProcess) -> None:
    page = w.open_app(context, server.base)
    w.sign_in_guest(page, "Reader")
    w.create_game(page, "koutchina", "micro", bots=3, level="random", turn_seconds=LEAST)
    play_to_round_end(page)
    # Our turn comes under the panel (the bots do not wait): our clock holds at its seconds while we read.
    page.wait_for_selector("#scoreboard .clock[data-seat='0']")
    seen = set()
    for _ in range(12):
        seen.add(page.inner_text("#scoreboard .clock[data-seat='0']"))
        page.wait_for_timeout(250)
    assert seen == {f"{LEAST} s"}, seen
    assert page.locator("#clock-warning").is_hidden()  # no "a bot plays for you" while the clock is held
    assert page.locator("#round-end[open]").count() and not page.locator("#away-note").count()
    # Arabic: every signed number in the breakdown and the sheet has its sign before its digits.
    w.to_arabic(page)
    page.wait_for_selector("#round-end[open]")
    found = w.signs(page, "#round-end")
    assert found and any(t.startswith("-") for t, _ in found), found  # a round always has a miss
    assert all(ok for _, ok in found), found
    shot(page, "round-end-ar")
    page.click("#round-end button.close")
    page.click("#sheet-btn")
    page.wait_for_selector("#sheet[open]")
    assert all(ok for _, ok in w.signs(page, "#sheet")), w.signs(page, "#sheet")
    assert all(ok for _, ok in w.signs(page, "#scoreboard")), w.signs(page, "#scoreboard")
    page.click("#sheet button.close")
    # The hint's table: expected scores and "tricks: chance" pairs left to right.
    page.wait_for_selector("#hint-btn:not([disabled])")
    page.click("#hint-btn")
    page.wait_for_selector("#hint-table")
    found = w.signs(page, "#hint-table")
    assert any(":" in t for t, _ in found), found
    assert all(ok for _, ok in found), found
    shot(page, "hint-ar")
    assert not page.js_errors


def test_a_turn_clock_below_the_least_is_refused_in_the_form(context: Any, server: ServerProcess) -> None:
    page = w.open_app(context, server.base)
    w.sign_in_guest(page, "Hasty")
    assert page.inner_text("#clock-note") == f"0: no clock; else at least {LEAST} s."
    page.fill("#turn-seconds", "2")
    page.click("#create-btn")
    expected = f"Error: Turn clock: 0 (no clock) or at least {LEAST} seconds."
    page.wait_for_selector(f".lobby .side > .error:has-text('{expected}')")
    assert re.search(r"#/$", page.url), page.url  # no table was made
    w.to_arabic(page)
    page.wait_for_selector("#create-btn")
    page.fill("#turn-seconds", "2")
    page.click("#create-btn")
    page.wait_for_selector(".lobby .side > .error:has-text('مؤقت الدور')")
    assert not page.js_errors


# --- dialogs over the round's scores ------------------------------------------------------------------
def test_the_round_scores_stay_under_other_dialogs_and_can_be_reopened(context: Any,
                                                                       server: ServerProcess) -> None:
    page = w.open_app(context, server.base)
    w.sign_in_guest(page, "Keeper")
    w.create_game(page, "koutchina", "micro", bots=3, level="random", turn_seconds=0)
    assert page.is_disabled("#round-scores-btn")  # nothing scored yet
    play_to_round_end(page)
    for button, dialog in (("#sheet-btn", "#sheet"), ("L", "#last-trick")):  # no trick yet: its key then
        if button.startswith("#"):
            page.click(button)
        else:
            page.keyboard.press(button)
        page.wait_for_selector(f"{dialog}[open]")
        assert page.locator("#round-end[open] table.breakdown").count(), f"{button} wiped the round's scores"
        page.click(f"{dialog} button.close")
        page.wait_for_selector(dialog, state="detached")
        assert page.locator("#round-end[open]").is_visible()
    page.wait_for_selector("#hint-btn:not([disabled])")
    page.click("#hint-btn")
    page.wait_for_selector("#hint-table")
    assert page.locator("#round-end[open]").count()
    page.click("#hint button.close")
    page.click("#round-end button.close")
    page.wait_for_selector("#round-end", state="detached")
    # Closed, and back again from its button: the same breakdown.
    page.click("#round-scores-btn")
    page.wait_for_selector("#round-end[open] table.breakdown[data-round='1']")
    page.click("#round-end button.close")
    page.wait_for_selector("#round-end", state="detached")
    assert not page.js_errors


# --- the chat in Arabic, a thank-you that is not an error, the Leave dialog, a stale note ----------------
def test_arabic_at_a_table_relabels_the_chat_and_says_the_servers_refusal_in_arabic(
        browser: Any, server: ServerProcess) -> None:
    ctx_a, ctx_b = w.new_context(browser), w.new_context(browser)
    try:
        a = w.open_app(ctx_a, server.base)
        w.sign_in_guest(a, "Speaker")
        tid = w.create_game(a, "koutchina", "micro", bots=3, level="random", turn_seconds=0)
        # A spectator says something; the player reports it: thanked, not in an error's style.
        b = w.open_app(ctx_b, server.base)
        w.sign_in_guest(b, "Watcher")
        b.goto(f"{server.base}/?pause={w.PAUSE_MS}#/table/{tid}")
        b.wait_for_selector("#chat-input:not([disabled])")
        b.fill("#chat-input", "hello from the rail")
        b.click("#chat-send")
        a.wait_for_selector("#chat-list li.ch-spectators button.report")
        a.click("#chat-list li.ch-spectators button.report")
        a.click("#report-dialog button.ok")
        a.wait_for_selector("#chat-error:has-text('Reported. Thank you.')")
        assert "error" not in (a.get_attribute("#chat-error", "class") or "").split()
        red = a.evaluate("() => getComputedStyle(document.querySelector('.error') || document.body).color")
        assert a.evaluate("() => getComputedStyle(document.querySelector('#chat-error')).color") != red
        # The Leave dialog at an unstaked table says nothing of stakers.
        a.click("#leave-btn")
        a.wait_for_selector("#leave-dialog[open]")
        text = a.inner_text("#leave-dialog")
        assert "placed last." in text and "staker" not in text, text
        a.click("#leave-dialog button.cancel")
        w.to_arabic(a)
        assert a.inner_text("#chat-hide-label").strip() == "إخفاء دردشة المشاهدين"
        assert a.inner_text("#chat-send") == "إرسال"
        # Too many messages at once: the server's refusal, in Arabic.
        for i in range(8):
            a.fill("#chat-input", f"m{i}")
            a.click("#chat-send")
        a.wait_for_selector("#chat-error:has-text('رسائل كثيرة')")
        assert not a.js_errors and not b.js_errors
    finally:
        ctx_a.close()
        ctx_b.close()


def test_a_new_name_attempt_clears_the_last_refusal(context: Any, server: ServerProcess) -> None:
    taken = Api.register(server, "Taken Name", "correct horse battery")
    page = w.open_app(context, server.base)
    w.sign_in_guest(page, "Renamer")
    page.click("#account-link")
    page.wait_for_selector("#account[aria-busy='false']")
    page.fill("#new-name", taken.account["name"])
    page.click("#name-btn")
    page.wait_for_selector("#name-note.error:has-text('That name is taken.')")
    page.fill("#new-name", "Renamer Again")
    assert page.inner_text("#name-note") == ""
    page.click("#name-btn")
    page.wait_for_selector("#name-note.ok")
    assert "taken" not in page.inner_text("#name-note")
    assert not page.js_errors


# --- a session that ends on another device ------------------------------------------------------------
def test_a_table_page_whose_session_ends_elsewhere_signs_out(browser: Any, server: ServerProcess) -> None:
    name, password = "Two Devices", "correct horse battery"
    Api.register(server, name, password)
    phone, laptop = w.new_context(browser, phone=True), w.new_context(browser)
    try:
        at_table = w.open_app(phone, server.base)
        at_table.fill("#name", name)
        at_table.fill("#password", password)
        at_table.click("#signin-btn")
        at_table.wait_for_selector("#create-btn")
        w.create_game(at_table, "koutchina", "micro", bots=3, level="random", turn_seconds=0)
        at_table.wait_for_selector(".table-page .bar")
        other = w.open_app(laptop, server.base)
        other.fill("#name", name)
        other.fill("#password", password)
        other.click("#signin-btn")
        other.wait_for_selector("#create-btn")
        other.click("#account-link")
        other.click("#signout-all-btn")
        other.click("#signout-all-dialog button.ok")
        other.wait_for_selector("#guest-btn")
        # The table's page: signed out, at the sign-in page, its header naming nobody.
        at_table.wait_for_selector("#guest-btn", timeout=10_000)
        assert not at_table.locator("#account-link").count()
        assert "signed out" in at_table.inner_text(".toasts")
        assert not at_table.locator(".table-page").count()
        shot(at_table, "signed-out-phone")
        assert not at_table.js_errors and not other.js_errors
    finally:
        phone.close()
        laptop.close()


# --- the match's end, and its replay ------------------------------------------------------------------
def play_to_match_end(page: Any, timeout: float = 120.0) -> None:
    w.act_until(page, "#match-end[open]", timeout, close_dialogs_first=True)


def test_the_match_end_bar_and_the_replays_breakdown(context: Any, server: ServerProcess) -> None:
    page = w.open_app(context, server.base)
    w.sign_in_guest(page, "Finisher")
    tid = w.create_game(page, "koutchina", "micro", bots=3, level="random", turn_seconds=0)
    play_to_match_end(page)
    mults = page.eval_on_selector_all("#match-end table.sheet tbody td.c-mult",
                                      "els => els.map(e => e.textContent)")
    bar = page.inner_text(".bar")
    assert bar.count("Game over") == 1, bar
    assert page.inner_text("#multiplier") == f"Multiplier {mults[-1]}", (mults, bar)
    assert page.inner_text("#board-mult") == mults[-1]
    # Play again says, before the click, that its table is private.
    assert "private table" in page.inner_text("#rematch-note")
    # The replay, in round 2: the breakdown under the felt is round 1's, and says so.
    page.goto(f"{server.base}/?pause={w.PAUSE_MS}#/replay/{tid}")
    page.wait_for_selector("#rp-rnext")
    def shown_round() -> int:
        return int(re.findall(r"\d+", page.inner_text(".replay-page .bar span:first-child"))[0])

    for _ in range(4):
        if shown_round() == 2 and page.locator("#rp-breakdown-title").count():
            break
        page.click("#rp-rnext" if shown_round() < 2 else "#rp-next")
    assert page.inner_text("#rp-breakdown-title") == "Round 1: scores · the last round scored"
    assert page.locator(".replay-page table.breakdown[data-round='1']").count()
    assert not page.js_errors


# --- a phone: tables wider than the screen say so -------------------------------------------------------
def test_a_phones_wide_tables_say_they_scroll_sideways(browser: Any, server: ServerProcess) -> None:
    ctx = w.new_context(browser, phone=True)
    try:
        page = w.open_app(ctx, server.base)
        w.sign_in_guest(page, "Pocket")
        page.wait_for_selector("#create-btn")
        page.check("#partners")
        w.create_game(page, "koutchina", "micro", bots=3, level="random", turn_seconds=0)
        play_to_round_end(page)
        page.wait_for_timeout(200)
        shot(page, "round-end-phone")
        for dialog in ("#round-end", "#sheet"):
            if dialog == "#sheet":
                page.click("#round-end button.close")
                page.click("#sheet-btn")
                page.wait_for_selector("#sheet[open]")
                shot(page, "sheet-phone")
            wide = page.eval_on_selector_all(
                f"{dialog} table", "els => els.map(e => [e.className, e.scrollWidth > e.clientWidth + 1,"
                " !!(e.previousElementSibling"
                "    && e.previousElementSibling.matches('.scroll-cue:not([hidden])')),"
                " e.classList.contains('more')])")
            assert any(over for _, over, _, _ in wide), (dialog, wide)  # the phone is too narrow for it
            for cls, over, cue, faded in wide:
                assert cue == over and faded == over, (dialog, cls, over, cue, faded)
        # Scrolled to its end, the sheet's cue goes.
        page.eval_on_selector("#sheet table.sheet", "e => { e.scrollLeft = e.scrollWidth; }")
        page.wait_for_selector("#sheet p.scroll-cue[hidden]", state="attached")
        assert not page.js_errors
    finally:
        ctx.close()


# --- 1280x900: the auction's panel, the hand and the tools fit under the bar ----------------------------
def test_at_1280_by_900_the_auction_panel_leaves_the_hand_and_tools_in_sight(browser: Any,
                                                                            server: ServerProcess) -> None:
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    ctx.set_default_timeout(20_000)
    try:
        page = w.open_app(ctx, server.base)
        w.sign_in_guest(page, "Bidder")
        w.create_game(page, "egyptian", None, bots=3, level="random", turn_seconds=0)
        checked = set()
        deadline = time.monotonic() + 60
        while len(checked) < 2 and time.monotonic() < deadline:
            page.wait_for_selector("#nodash-btn, #bid-panel button:not([disabled]), #estimate-picker, "
                                   "#round-end[open]")
            w.close_dialogs(page)
            if page.locator("#nodash-btn").count():
                with contextlib.suppress(Exception):
                    page.click("#nodash-btn", timeout=2000)
                continue
            panel = "#bid-panel" if page.locator("#bid-panel").count() else "#estimate-picker"
            if panel in checked or not page.locator(panel).count():
                with contextlib.suppress(Exception):
                    page.locator("#pass-btn, #estimate-picker button.est-btn:not([disabled])").first.click(
                        timeout=2000)
                continue
            page.wait_for_timeout(100)
            box = page.evaluate("() => ({ y: scrollY, h: innerHeight,"
                                " bar: document.querySelector('.bar').getBoundingClientRect().top,"
                                " hand: document.querySelector('.hand').getBoundingClientRect().bottom,"
                                " tools: document.querySelector('.tools').getBoundingClientRect().bottom })")
            shot(page, f"fold-{panel[1:]}")
            assert box["y"] == 0 and box["bar"] >= 0, box
            assert box["hand"] <= box["h"] and box["tools"] <= box["h"], (panel, box)
            checked.add(panel)
        assert checked, "no panel was seen"
        assert not page.js_errors
    finally:
        ctx.close()


# --- the profile's By ruleset table at 1280 px ----------------------------------------------------------
def _finished_game(api: Api, ruleset: str, length: str) -> None:
    """A game that plays itself: we sit with three bots and a one-second clock and never act."""
    tid = api.create_table(ruleset=ruleset, length=length, bot_seats=[1, 2, 3], bot_level="random",
                           turn_seconds=1)["id"]
    api.join(tid, seat=0)
    deadline = time.monotonic() + 120
    while api.ok(api.get(f"/api/tables/{tid}"))["status"] != "finished":
        assert time.monotonic() < deadline, f"table {tid} did not finish"
        time.sleep(0.3)


def test_the_profiles_by_ruleset_table_fits_its_card_at_1280(browser: Any, web_server: ServerProcess) -> None:
    player = Api.guest(web_server, "Two Rulesets")
    _finished_game(player, "koutchina", "micro")
    _finished_game(player, "egyptian", "standard")
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        for lang in ("en", "ar"):
            page = w.open_app(ctx, web_server.base)
            page.wait_for_selector("#create-btn, #guest-btn")
            if not page.locator("#create-btn").count():
                w.sign_in_guest(page, "Looker")
            if lang == "ar":
                w.to_arabic(page)
            page.goto(f"{web_server.base}/?pause={w.PAUSE_MS}#/player/{player.id}")
            page.wait_for_selector("#profile-rulesets tr[data-ruleset='egyptian']")
            table, card = page.eval_on_selector(
                "#profile-rulesets", "e => [e.getBoundingClientRect().toJSON(),"
                " e.closest('.panel').getBoundingClientRect().toJSON()]")
            assert card["left"] <= table["left"] and table["right"] <= card["right"], (lang, table, card)
            shot(page, f"profile-{lang}")
            page.click("#profile-rulesets a[href='#/leaderboard/egyptian']")
            page.wait_for_url(re.compile(r"#/leaderboard/egyptian"))
            assert not page.js_errors
            page.close()
    finally:
        ctx.close()


# --- the rules page from a Partners table -----------------------------------------------------------------
def test_the_rules_page_from_a_partners_table_speaks_of_partners(context: Any, server: ServerProcess) -> None:
    page = w.open_app(context, server.base)
    w.sign_in_guest(page, "Partner")
    page.wait_for_selector("#create-btn")
    page.check("#partners")
    w.create_game(page, "egyptian", None, bots=3, level="random", turn_seconds=0)
    page.wait_for_selector("#rules-link")
    href = page.get_attribute("#rules-link", "href")
    assert href == "#/rules/egyptian/partners", href
    page.goto(f"{server.base}/?pause={w.PAUSE_MS}{href}")
    page.wait_for_selector("#rules-partners")
    overview = page.inner_text("#rules-overview + *")
    assert "no partners" not in overview and "partners sit opposite" in overview, overview
    assert page.inner_text("#rules-partners-note") == "This table is a Partners table."
    section = page.inner_text("#rules-partners + *") + page.inner_text("#rules-partners ~ ul")
    assert "placed 2nd" in section, section
    shot(page, "rules-partners")
    # The rules page on its own: no partners at an ordinary table, and the Partners section still there.
    page.goto(f"{server.base}/?pause={w.PAUSE_MS}#/rules/egyptian")
    page.wait_for_selector("#rules-partners")
    assert "no partners" in page.inner_text("#rules-overview + *")
    assert not page.locator("#rules-partners-note").count()
    assert not page.js_errors


# --- an invite link opened while signed out -------------------------------------------------------------
def test_an_invite_link_opened_signed_out_says_so_and_seats_the_person(browser: Any,
                                                                      server: ServerProcess) -> None:
    host_ctx, guest_ctx = w.new_context(browser), w.new_context(browser)
    try:
        host = w.open_app(host_ctx, server.base)
        w.sign_in_guest(host, "Host")
        tid = w.create_game(host, "koutchina", "micro", bots=1, level="random", private=True)
        host.wait_for_selector("#invite-link")
        assert "not listed in the lobby" in host.inner_text("#private-note")  # a private table says so
        link = host.input_value("#invite-link")
        errors: list[str] = []
        friend = guest_ctx.new_page()
        friend.on("pageerror", lambda e: errors.append(str(e)))
        friend.goto(link)
        friend.wait_for_selector("#invite-note")
        said = friend.inner_text("#invite-note")
        assert said == (f"You were invited to table {tid}: sign in, or play as a guest, "
                        "and your seat is taken for you."), said
        shot(friend, "invite-signed-out")
        friend.fill("#name", "Friend")
        friend.click("#guest-btn")
        friend.wait_for_url(re.compile(rf"#/table/{tid}$"))
        # Seated without a click: the table's page shows the seat as theirs, with nothing left to sit in.
        friend.wait_for_selector(".seat-list li[data-seat='1']:has-text('Friend'), "
                                 ".seat-list li[data-seat='2']:has-text('Friend')")
        assert not friend.locator(".seat-list button.sit").count()
        host.wait_for_selector(".seat-list li:has-text('Friend')")
        assert not errors and not host.js_errors
    finally:
        host_ctx.close()
        guest_ctx.close()


# --- a table's name ---------------------------------------------------------------------------------------
def test_a_creator_names_a_table_shown_as_text_in_the_lobby_and_at_the_table(browser: Any,
                                                                            server: ServerProcess) -> None:
    maker_ctx, other_ctx = w.new_context(browser), w.new_context(browser)
    name = "<b>Friday</b> night"
    try:
        maker = w.open_app(maker_ctx, server.base)
        w.sign_in_guest(maker, "Namer")
        maker.fill("#table-name", "\u0410nn's table")  # a Cyrillic A among Latin letters: refused, said why
        maker.click("#create-btn")
        said = "Table name: mixes letters of different scripts"
        maker.wait_for_selector(f".lobby .side > .error:has-text('{said}')")
        maker.fill("#table-name", name)
        tid = w.create_game(maker, "koutchina", "micro", bots=2, level="random", turn_seconds=0)
        maker.wait_for_selector(".waiting h1 .table-name")
        assert maker.inner_text(".waiting h1 .table-name") == name
        assert not maker.locator(".waiting h1 b").count()  # text, never markup
        # What it plays, in the page's language.
        assert maker.inner_text(".waiting h1").endswith("Koutchina · micro"), maker.inner_text(".waiting h1")
        w.to_arabic(maker)
        maker.wait_for_selector(".waiting h1:has-text('كوتشينة · مصغّرة')")
        maker.click("#lang-toggle")
        maker.wait_for_selector("html[lang='en']")
        other = w.open_app(other_ctx, server.base)
        w.sign_in_guest(other, "Browser")
        row = f"#open-tables li[data-table='{tid}']"
        other.wait_for_selector(f"{row} .table-name")
        assert other.inner_text(f"{row} .table-name") == name and not other.locator(f"{row} b").count()
        shot(other, "lobby-table-name")
        other.click(f"{row} button.join")
        other.wait_for_selector(".table-page .bar #table-title")  # four seats: the game starts
        assert other.inner_text("#table-title") == name
        shot(other, "table-name-bar")
        assert not maker.js_errors and not other.js_errors
    finally:
        maker_ctx.close()
        other_ctx.close()
