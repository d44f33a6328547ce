"""Players together at the table, through visible controls only: chat in two channels, text that stays text,
mutes that last, and Play again seating the same people."""

from __future__ import annotations

import contextlib
import random
import re
from typing import Any

import web_helpers as w
from playwright.sync_api import TimeoutError as PlaywrightTimeout

XSS = "<img src=x onerror=alert(1)>"


def _guest(browser: Any, base: str, name: str, hash_: str = "#/") -> tuple[Any, Any, list[str]]:
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    ctx.set_default_timeout(20_000)
    page = w.open_app(ctx, base)
    alerts: list[str] = []
    page.on("dialog", lambda d: (alerts.append(d.message), d.dismiss()))
    w.sign_in_guest(page, name)
    if hash_ != "#/":
        page.goto(f"{base}/?pause=40{hash_}")
    return ctx, page, alerts


def _lines(page: Any) -> list[str]:
    return [t.strip() for t in page.locator("#chat-list li").all_inner_texts()]


def test_chat_channels_text_and_mutes(browser: Any, web_server: Any) -> None:
    base = web_server.base
    ctx_a, ann, alerts_a = _guest(browser, base, "Ann")
    tid = w.create_table(ann, bots=2)
    ctx_b, ben, alerts_b = _guest(browser, base, XSS, f"#/table/{tid}")
    ben.locator("button.sit").first.click()
    ann.wait_for_selector("#scoreboard")
    ben.wait_for_selector("#scoreboard")
    ctx_s, watcher, alerts_s = _guest(browser, base, "Watcher", f"#/table/{tid}")
    watcher.wait_for_selector("#spectating")
    try:
        # A player's message reaches the other player and the spectator, as text.
        ann.fill("#chat-input", f"hi {XSS}")
        ann.click("#chat-send")
        for page in (ben, watcher):
            page.wait_for_selector("#chat-list li:has-text('hi <img')")
        assert ben.locator("#chat-list img").count() == 0 and watcher.locator("#chat-list img").count() == 0
        # The name holding markup is shown as its text on the scoreboard, the felt and in the chat.
        ben.click("#chat-phrases button[data-phrase='good_luck']")
        ann.wait_for_selector("#chat-list li:has-text('Good luck!')")
        assert any(line.startswith(XSS) for line in _lines(ann))
        assert XSS in ann.inner_text("#scoreboard") and ann.locator(".table-page img").count() == 0
        # The spectators' channel: marked as such, and a player can hide it.
        watcher.fill("#chat-input", "spectator here")
        watcher.press("#chat-input", "Enter")
        ann.wait_for_selector("#chat-list li.ch-spectators:has-text('spectator here')")
        assert watcher.locator("#chat-hide-label").is_hidden()  # spectators have no such switch
        ann.check("#chat-hide-spectators")
        ann.wait_for_selector("#chat-list li.ch-spectators", state="detached")
        assert ben.locator("#chat-list li.ch-spectators").count() == 1  # Ben did not hide it
        # Over 200 characters cannot be typed; a muted player's messages go and stay gone after a reload.
        ann.fill("#chat-input", "x" * 250)
        assert len(ann.input_value("#chat-input")) == 200
        ann.fill("#chat-input", "")
        ann.locator("#chat-list li:has-text('Good luck!') button.mute").click()
        ann.click("#mute-dialog .ok")
        ann.wait_for_selector("#chat-list li:has-text('Good luck!')", state="detached")
        ben.fill("#chat-input", "can you hear me")
        ben.click("#chat-send")
        watcher.wait_for_selector("#chat-list li:has-text('can you hear me')")
        ann.reload()
        ann.wait_for_selector("#scoreboard")
        ann.wait_for_selector("#chat-list li:has-text('hi <img')")
        assert not any("Good luck" in line or "can you hear me" in line for line in _lines(ann))
        assert alerts_a == alerts_b == alerts_s == []
    finally:
        for ctx in (ctx_a, ctx_b, ctx_s):
            ctx.close()


#: Whatever a player may click to move the game on: no Dash Call, pass, an estimate, keep the trump, a card.
ANY_MOVE = ("#nodash-btn:not([disabled]), #bid-panel #pass-btn:not([disabled]), #super-keep,"
            " #estimate-picker button.est-btn:not([disabled]), .hand button.card.legal")


def _play_out(pages: list[Any], rng: random.Random) -> None:
    """Both humans play any legal move through the visible controls until the match-end panel shows."""
    for _ in range(3000):
        done = 0
        for page in pages:
            if page.locator("#match-end[open]").count():
                done += 1
                continue
            if page.locator("#round-end[open]").count():
                page.click("#round-end[open] button.close")
            moves = page.locator(ANY_MOVE)
            n = moves.count()
            if n:
                # The table may redraw between the count and the click: then look again on the next pass.
                with contextlib.suppress(PlaywrightTimeout):
                    moves.nth(rng.randrange(n)).click(timeout=3000)
        if done == len(pages):
            return
    raise AssertionError("the game did not end")


def test_play_again_seats_the_same_people(browser: Any, web_server: Any) -> None:
    base = web_server.base
    ctx_a, ann, _ = _guest(browser, base, "Rema")
    tid = w.create_table(ann, bots=2)
    ctx_b, ben, _ = _guest(browser, base, "Tchy", f"#/table/{tid}")
    try:
        ben.locator("button.sit").first.click()
        _play_out([ann, ben], random.Random(5))
        ann.click("#rematch-btn")
        ann.wait_for_url(re.compile(rf"#/table/(?!{tid}$)\d+$"))
        new_id = int(ann.url.rsplit("/", 1)[1])
        assert new_id != tid
        # Ben is asked on his own end screen, accepts, and both sit again; the bots stay bots.
        ben.wait_for_selector("#rematch-accept")
        ben.click("#rematch-accept")
        ben.wait_for_url(re.compile(rf"#/table/{new_id}$"))
        for page in (ann, ben):
            page.wait_for_selector("#scoreboard")
        heads = ann.locator("#scoreboard th[scope=col] .pname").all_inner_texts()
        assert heads == ["Rema", "Bot 2", "Bot 3", "Tchy"]
    finally:
        ctx_a.close()
        ctx_b.close()
