"""A guest plays a whole micro game against three bots by clicking, in chromium.

Along the way: illegal cards cannot be clicked (and the lifted ones are exactly those that follow suit), a
page reload mid-trick comes back to the same state, the last estimator's forbidden number is disabled; at the
end the score sheet shown equals the game's record replayed by the engine, and so does the replay page.
"""

from __future__ import annotations

import time
from typing import Any

import httpx
import web_helpers as w

import estimation
from estimation import replay_summary


def _check_follow_suit(page: Any) -> bool:
    """When following: the lifted cards are exactly our cards of the led suit (or all, if void)."""
    played = w.trick(page)
    if not played:
        return False
    mine = w.hand(page)
    led = played[0][1]
    follow = [c for c in mine if c[1] == led]
    expected = sorted(follow or mine)
    assert sorted(w.legal_cards(page)) == expected, (played, mine, w.legal_cards(page))
    if not follow or len(follow) == len(mine):
        return False
    # An illegal card is disabled: a forced click does nothing, the state stays as it was.
    illegal = next(c for c in mine if c[1] != led)
    button = page.locator(f".hand button[data-card='{illegal}']")
    assert button.is_disabled()
    version = page.get_attribute(".table-page", "data-version")
    button.click(force=True, timeout=2000)
    page.wait_for_timeout(300)
    assert page.get_attribute(".table-page", "data-version") == version
    assert illegal in w.hand(page) and w.trick(page) == played
    return True


def _state(page: Any) -> dict[str, Any]:
    return {"hand": w.hand(page), "trick": w.trick(page), "legal": w.legal_cards(page),
            "board": w.board(page), "bar": page.inner_text(".bar")}


def _check_reload(page: Any) -> None:
    before = _state(page)
    page.reload()
    w.settle(page)
    page.wait_for_selector(".hand button.card.legal")
    assert _state(page) == before


def _check_last_estimator(page: Any) -> bool:
    """If we estimate last (three estimates shown), the number making 13 is disabled; 0 after two zeros."""
    rows = w.board(page)
    others = [r["est"] for i, r in enumerate(rows) if i != 0]
    if not all(e.isdigit() for e in others):
        return False
    values = [int(e) for e in others]
    enabled = set(w.enabled_estimates(page))
    forbidden = 13 - sum(values)
    if 0 <= forbidden <= 13:
        assert forbidden not in enabled
    if values.count(0) >= 2:
        assert 0 not in enabled
    assert enabled == {n for n in range(14) if n != forbidden and not (n == 0 and values.count(0) >= 2)}
    return True


def test_guest_plays_micro_game_with_bots(context: Any, web_server: Any) -> None:
    page = w.open_app(context, web_server.base)
    w.sign_in_guest(page, "Ann")
    table_id = w.create_table(page, bots=3)
    checked = {"follow": False, "reload": False, "last": False}
    moves = 0
    deadline = time.monotonic() + 150
    while True:
        assert time.monotonic() < deadline, "the game did not end in time"
        w.settle(page)
        if page.locator("#match-end[open]").count():
            break
        w.close_dialogs(page)
        legal = page.locator(".hand button.card.legal")
        estimates = page.locator("#estimate-picker button.est-btn:not([disabled])")
        if legal.count():
            if not checked["follow"]:
                checked["follow"] = _check_follow_suit(page)
            if not checked["reload"] and w.trick(page) and moves > 20:
                _check_reload(page)
                checked["reload"] = True
            legal.first.click()
            moves += 1
        elif estimates.count():
            if not checked["last"]:
                checked["last"] = _check_last_estimator(page)
            # Estimate high enough that the others' small totals leave a forbidden number often.
            estimates.first.click()
            moves += 1
        else:
            page.wait_for_timeout(30)
    assert all(checked.values()), checked
    assert moves >= 5 * 14
    shown = w.sheet_from_dialog(page, "#match-end")
    record = httpx.get(f"{web_server.base}/api/tables/{table_id}/record").json()
    summary = replay_summary(estimation.load_record(record))
    assert shown["scores"] == [r["scores"] for r in summary["rounds"]]
    assert shown["totals"] == summary["totals"]
    places = page.eval_on_selector_all("#match-end .places li", "els => els.map(e => Number(e.dataset.seat))")
    assert sorted(places, key=lambda s: summary["places"][s]) == places

    # The replay page scores the record in the browser: the same sheet again.
    page.click("#match-end a.button")
    page.wait_for_selector("#rp-end")
    page.click("#rp-end")
    replayed = w.sheet_from_dialog(page, ".replay-page")
    assert replayed["scores"] == [r["scores"] for r in summary["rounds"]]
    assert replayed["totals"] == summary["totals"]
    page.click("#rp-start")
    assert page.inner_text("#step-n").startswith("Action 0 ")
    page.keyboard.press("ArrowRight")
    # The action as a sentence (test_web_replay_calc.py checks every verb); a micro game opens on an estimate.
    seat, verb, number, *_ = record["deals"][0]["actions"][0].split()
    assert verb == "est"
    assert page.inner_text("#last-action").startswith(f"{record['players'][int(seat)]}: estimate {number}")
    assert not page.js_errors, page.js_errors


def test_every_level_is_offered_by_name_and_strong_bots_play(context: Any, web_server: Any) -> None:
    """The lobby's level picker offers every level the server seats (/api/bots), each by its name in the
    page's language; a table of three `strong` bots (the strongest level) plays its first deal's
    declarations, the bots named in Arabic."""
    levels = httpx.get(f"{web_server.base}/api/bots").json()["levels"]
    page = w.open_app(context, web_server.base)
    w.sign_in_guest(page, "Deep")
    options = "os => os.map(o => [o.value, o.textContent])"
    offered = page.eval_on_selector_all("#bot-level option", options)
    assert [v for v, _ in offered] == levels == ["random", "heuristic", "strong"]
    w.to_arabic(page)
    # The lobby is drawn again in Arabic: its form's options come back with the rest of it.
    page.wait_for_function("n => document.querySelectorAll('#bot-level option').length === n &&"
                           " document.querySelector('#bot-level option[value=strong]').textContent === 'قوي'",
                           arg=len(levels), timeout=20_000)
    offered_ar = dict(page.eval_on_selector_all("#bot-level option", options))
    assert offered_ar["strong"] == "قوي"
    assert all(offered_ar[v] != v for v in levels), offered_ar  # every level named in Arabic
    w.create_game(page, bots=3, level="strong", length="micro")
    # The person declares when it is their turn; the bots' declarations move the table on between.
    deadline = time.monotonic() + 120
    while w.version(page) <= 8:
        assert time.monotonic() < deadline, f"the table stopped at version {w.version(page)}"
        if not w.act_once(page):
            page.wait_for_timeout(200)
    assert "روبوت" in page.inner_text(".table-page")
