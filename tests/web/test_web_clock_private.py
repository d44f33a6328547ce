"""The turn clock, a dropped connection, stakes and private tables at the new table (issue 18), by clicking.

- the countdown on the seat to move, the warning, a bot taking over at zero, and "I'm back";
- a dropped socket (the network goes away, the connection is cut) reconnecting to the same seat;
- a staked table: what joining stakes, the pot at the table, leaving asks first and says what it costs,
  the pot screen at the end (a forfeit's split, and a refund when only one player staked);
- a private table: the invite link with its copy button, joining from a second browser by that link, the
  creator filling the empty seats with bots; the header's Lobby link while seated.
"""

from __future__ import annotations

import contextlib
import os
import random
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import web_helpers as w

#: The second server (its bots pause a little before each move), a session fixture of web_helpers.
paced_server = w.paced_server

CLOCK = 4  # seconds: the turn clock of the clock test


@pytest.fixture()
def people(browser: Any, request: Any) -> Iterator[Any]:
    """Makes browser contexts (separate people) on demand and closes them all at the end (a screenshot of
    every page first, in $TMPDIR/web-shots, to look at when a test fails)."""
    made: list[Any] = []

    def make(**kw: Any) -> Any:
        ctx = w.new_context(browser, **kw)
        made.append(ctx)
        return ctx

    try:
        yield make
    finally:
        out = Path(os.environ.get("TMPDIR", "/tmp")) / "web-shots"
        out.mkdir(exist_ok=True)
        for i, c in enumerate(made):
            for j, p in enumerate(c.pages):
                with contextlib.suppress(Exception):  # a page that cannot be shot fails nothing
                    p.screenshot(path=str(out / f"{request.node.name}-{i}-{j}.png"))
            c.close()


def _clock(page: Any, seat: int) -> int | None:
    """The countdown shown on the seat's scoreboard column ("⏱ N"), or None."""
    el = page.locator(f"#scoreboard th[scope=col][data-seat='{seat}'] .clock[data-seat='{seat}']")
    if not el.count():
        return None
    m = re.search(r"\d+", el.inner_text())
    assert m, el.inner_text()
    return int(m[0])


def _act(page: Any) -> str:
    """Whatever is cheapest to click now: decline an offer, pass, the lowest estimate, the first card."""
    for sel in ("#nodash-btn:not([disabled])", "#pass-btn:not([disabled])"):
        if page.locator(sel).count():
            page.click(sel)
            return sel
    ests = w.enabled_estimates(page)
    if ests:
        page.click(f"#estimate-picker button.est-btn[data-est='{min(ests)}']")
        return f"est {min(ests)}"
    if page.locator("#declare-btn:not([disabled])").count():
        page.click("#declare-btn")
        return "declare"
    return w.play_first_legal(page)


def test_countdown_bot_takeover_and_back(people: Any, paced_server: Any) -> None:
    page = w.open_app(people(), paced_server.base)
    w.sign_in_guest(page, "Clocky")
    w.create_game(page, "koutchina", "full", bots=3, level="heuristic", turn_seconds=CLOCK)
    w.wait_my_turn(page)
    seen_turn = time.monotonic()
    first = _clock(page, 0)
    assert first is not None and 1 <= first <= CLOCK, first
    # Only the seat to move shows a clock, on the scoreboard and on its nameplate.
    assert page.locator("#scoreboard .clock").count() == 1
    assert page.locator(".felt .seat[data-seat='0'] .clock").count() == 1
    assert page.inner_text("#turn") == "Your turn"
    # Under ten seconds left on your own clock: the warning says a bot is about to play for you.
    page.wait_for_selector("#clock-warning:visible", timeout=2000)
    assert "bot plays for you" in page.inner_text("#clock-warning")
    page.wait_for_timeout(1300)
    later = _clock(page, 0)
    assert later is not None and later < first, (first, later)
    # At zero a bot plays for us: the away note with its button, the away marker, no "Your turn".
    # Not before the clock ran out; and soon after it, not at the minute's sweep. The upper bound leaves room
    # for a loaded CI machine (the takeover's move, its broadcast and the page's drawing took 7.4 s once on
    # two cores shared with another test worker): the bug it is there for is a takeover that waits for the
    # sweep, 60 s.
    page.wait_for_selector("#away-note", timeout=(CLOCK + 12) * 1000)
    took = time.monotonic() - seen_turn
    assert CLOCK - 1.5 <= took <= CLOCK + 10, took
    assert "away" in w.badges(page, 0) and w.badges(page, 0)["away"]
    assert page.inner_text("#turn") != "Your turn"
    assert not page.locator("#clock-warning:visible").count()
    # Coming back: the note and the marker go; the next turn is ours to play, with the clock running again.
    clicks = w.click_until_gone(page, "#back-btn", "#away-note")
    print("I'm back took", clicks, "click(s)")
    assert "away" not in w.badges(page, 0)
    w.wait_my_turn(page)
    assert _clock(page, 0) is not None
    before = w.version(page)
    done = _act(page)
    w.wait_version_above(page, before, timeout=5)
    assert not page.locator("#away-note").count(), done
    assert "away" not in w.badges(page, 0)
    assert not page.js_errors, page.js_errors


def test_dropped_socket_reconnects_to_the_same_seat(people: Any, web_server: Any) -> None:
    ctx = people()
    links: list[tuple[Any, Any]] = []

    def through(ws: Any) -> None:  # every table socket passes through the test, so that it can be cut
        links.append((ws, ws.connect_to_server()))

    ctx.route_web_socket(re.compile(r"/ws/tables/\d+$"), through)
    page = w.open_app(ctx, web_server.base)
    w.sign_in_guest(page, "Dropper")
    table_id = w.create_game(page, "koutchina", "micro", bots=3, level="random")
    w.wait_my_turn(page)
    seat = page.get_attribute(".table-page", "data-seat")
    hand = w.hand(page)
    shown = w.version(page)
    # The network goes and the connection with it.
    ctx.set_offline(True)
    ws, server = links[-1]
    ws.close()
    server.close()
    page.wait_for_selector(".conn:has-text('reconnecting')", timeout=3000)
    # A click while disconnected is kept and sent once the connection is back.
    est = w.enabled_estimates(page)
    clicked = None
    if est:
        page.click(f"#estimate-picker button.est-btn[data-est='{est[0]}']")
    else:
        clicked = w.play_first_legal(page)
    page.wait_for_timeout(800)
    assert w.version(page) == shown, "nothing can have happened while offline"
    ctx.set_offline(False)
    w.wait_version_above(page, shown, timeout=15)
    assert page.inner_text(".conn").strip() == ""
    assert page.get_attribute(".table-page", "data-seat") == seat == "0"
    assert page.url.endswith(f"#/table/{table_id}")
    now = w.hand(page)
    if clicked:
        assert clicked not in now and len(now) == len(hand) - 1, (clicked, hand, now)
    else:
        assert sorted(now) == sorted(hand)
        assert page.inner_text("#scoreboard tr.r-est td[data-seat='0']") == str(est[0])
    assert len(links) >= 3, "the page tried again while offline, then once more"
    # And the game goes on from there: our next turn is playable.
    w.wait_my_turn(page)
    before = w.version(page)
    _act(page)
    w.wait_version_above(page, before, timeout=5)
    assert not page.js_errors, page.js_errors


def _balance(page: Any) -> int:
    page.wait_for_selector("#balance")
    return int(re.findall(r"\d+", page.inner_text("#balance"))[0])


def _leave(page: Any, expect: list[str], avoid: list[str]) -> None:
    """Leave the table: the dialog asks first, says what it costs; Stay keeps the seat, then Leave."""
    page.click(".tools #leave-btn")
    page.wait_for_selector("#leave-dialog[open]")
    text = page.inner_text("#leave-dialog")
    for e in expect:
        assert e in text, (e, text)
    for a in avoid:
        assert a not in text, (a, text)
    page.click("#leave-dialog button.cancel")
    page.wait_for_selector("#leave-dialog", state="detached")
    assert page.get_attribute(".table-page", "data-seat") not in (None, "")
    page.click(".tools #leave-btn")
    page.click("#leave-dialog[open] button.ok")
    page.wait_for_selector("#create-btn")  # back in the lobby


def _match_end(page: Any, bugs: list[str], what: str) -> None:
    """The match-over dialog must open by itself on a page that watched the match end; when it does not
    (a UI bug, noted), a reload shows it, so that the rest can still be checked."""
    try:
        page.wait_for_selector("#match-end[open]", timeout=5000)
    except Exception:
        shot = Path(os.environ.get("TMPDIR", "/tmp")) / f"web-shots/no-match-end-{what}.png"
        page.screenshot(path=str(shot))
        bar = page.inner_text(".bar")
        bugs.append(f"{what}: #match-end did not open on the live page (bar: {bar!r}; {shot})")
        page.reload()
        page.wait_for_selector("#match-end[open]")


def _places(page: Any) -> dict[int, str]:
    return {int(s): t for s, t in page.eval_on_selector_all(
        "#match-end #standings li[data-seat]", "els => els.map(e => [e.dataset.seat, e.innerText])")}


def test_staked_table_pot_forfeit_and_refund(people: Any, web_server: Any) -> None:
    tag = random.randrange(10**6)
    ann, ben = w.open_app(people(), web_server.base), w.open_app(people(), web_server.base)
    w.sign_up(ann, f"ann{tag}")
    w.sign_up(ben, f"ben{tag}")
    start = _balance(ann)
    # Creating says what you stake.
    ann.fill("#stake", "10")
    assert "10 coins" in ann.inner_text("#create-stake-note")
    table_id = w.create_game(ann, "egyptian", "standard", bots=2, level="random", stake=10)
    ann.wait_for_selector("#stake-note")
    assert "Stake 10 · Pot 10" in ann.inner_text("#stake-note")
    # Joining from the lobby says what you stake.
    ben.goto(ben.url.split("#")[0] + "#/")
    join = ben.locator(f"#open-tables li[data-table='{table_id}'] button.join")
    assert join.inner_text() == "Join (stake 10)"
    join.click()
    for p in (ann, ben):
        p.wait_for_selector("#pot")
        assert p.inner_text("#pot") == "Stake 10 · Pot 20"
    assert ben.get_attribute(".table-page", "data-seat") == "3"
    # Ben leaves: egyptian ends the match for everyone, and his stake stays in the pot.
    bugs: list[str] = []
    _leave(ben, ["ends the match", "10 coins is forfeit"], [])
    _match_end(ann, bugs, "forfeit")
    places = _places(ann)
    assert list(places) [-1] == 3 and places[3].startswith("4."), places
    assert "Pot split: 20" in places[0] and "Pot split: 0" in places[3], places
    assert not any("Pot split" in places[s] for s in (1, 2)), places
    assert ann.inner_text("#pot-line") == "Pot: 20"
    assert "left, which ended the match" in ann.inner_text("#match-end")
    table = httpx.get(f"{web_server.base}/api/tables/{table_id}").json()
    assert table["payout"] == {"0": 20, "3": 0}
    ann.click("#match-end button.close")
    ann.click("#lobby-link")
    assert _balance(ann) == start + 10

    # A table where only Ann stakes (a guest cannot): the end screen says refund.
    gus = w.open_app(people(), web_server.base)
    w.sign_in_guest(gus, "Gus")
    table_id = w.create_game(ann, "egyptian", "standard", bots=2, level="random", stake=10)
    gus.goto(f"{web_server.base}/?pause={w.PAUSE_MS}#/table/{table_id}")
    gus.wait_for_selector("#stake-note")
    assert "guests play without staking" in gus.inner_text("#stake-note")
    assert gus.inner_text(".seat-list li[data-seat='3'] button.sit") == "Sit here"
    gus.click(".seat-list li[data-seat='3'] button.sit")
    gus.wait_for_selector("#pot")
    assert gus.inner_text("#pot") == "Stake 10 · Pot 10"
    _leave(gus, ["ends the match"], ["forfeit"])
    _match_end(ann, bugs, "refund")
    places = _places(ann)
    assert "refund: 10" in places[0], places
    assert "Pot split" not in ann.inner_text("#match-end")
    assert ann.inner_text("#pot-line") == "Only one player staked: the stake (10 coins) is refunded."
    ann.click("#match-end button.close")
    ann.click("#lobby-link")
    assert _balance(ann) == start + 10
    for p in (ann, ben, gus):
        assert not p.js_errors, p.js_errors
    assert not bugs, bugs


def test_private_table_invite_link_and_fill_bots(people: Any, web_server: Any) -> None:
    ann, ben, cy = (w.open_app(people(), web_server.base) for _ in range(3))
    for p, name in ((ann, "Ann"), (ben, "Ben"), (cy, "Cy")):
        w.sign_in_guest(p, name)
    table_id = w.create_game(ann, "koutchina", "micro", bots=2, level="random", private=True)
    ann.wait_for_selector("#invite-link")
    link = ann.input_value("#invite-link")
    assert re.fullmatch(rf"{re.escape(web_server.base)}/(\?[^#]*)?#/join/{table_id}/[\w-]+", link), link
    ann.click("#copy-invite")
    ann.wait_for_selector(".conn:has-text('ink')", timeout=3000)  # "Link copied." or "Select the link…"
    assert ann.locator("#fill-bots").count()
    # Not listed in the lobby: only the link brings you there.
    ben.goto(ben.url.split("#")[0] + "#/")
    ben.wait_for_selector("#open-tables")
    assert not ben.locator(f"#open-tables li[data-table='{table_id}']").count()
    ben.goto(link)
    ben.wait_for_url(re.compile(rf"#/table/{table_id}$"))
    # The link seats him (the only free seat, so the game starts): no Sit here to click after it.
    ben.wait_for_selector(".table-page[data-seat='3'] .bar")
    ann.wait_for_selector(".table-page[data-seat='0'] .bar")
    assert ben.inner_text("#scoreboard th[scope=col][data-seat='0'] .pname") == "Ann"
    # The header's Lobby link works while seated, and does not send Ben back to his table.
    ben.click("#lobby-link")
    ben.wait_for_selector("#create-btn")
    ben.wait_for_timeout(300)
    assert "#/table/" not in ben.url

    # Cy's private table with nobody else: the creator fills the empty seats with bots and the game starts.
    table2 = w.create_game(cy, "koutchina", "micro", bots=0, level="random", private=True)
    assert table2 != table_id
    cy.wait_for_selector("#fill-bots")
    assert cy.locator(".seat-list li[data-seat] button.sit").count() == 0  # Cy sits already
    cy.click("#fill-bots")
    cy.wait_for_selector(".table-page .bar")
    names = [cy.inner_text(f"#scoreboard th[scope=col][data-seat='{s}'] .pname") for s in range(4)]
    assert names[0] == "Cy" and all(n.startswith("Bot") for n in names[1:]), names
    w.wait_my_turn(cy)
    for p in (ann, ben, cy):
        assert not p.js_errors, p.js_errors
