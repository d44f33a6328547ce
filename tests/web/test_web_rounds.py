"""Whole rounds of every kind played by clicking at the new table (issue 18), one person and three bots.

- koutchina mini: the person calls (a number, a suit, then Call), wins an auction and plays it as the
  Caller; the calls that cannot beat the standing one are greyed out; a Hint at this practice table;
- classic full, at phone size in Arabic: a call round through its end, the seats counter-clockwise on
  the screen, the scoreboard on the phone; the lobby's bot level (strong by default, then remembered);
- egyptian standard: a speed round (rounds 14-18: reached by letting a bot play for us, then coming
  back), its bids on the fixed trump only, its declaration locked to that trump below 8 and free from 8;
- Reduce Motion: the completed trick still stays on the table, but it no longer travels to its winner.
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

#: The second server (its bots pause a little before each move), a session fixture of web_helpers.
paced_server = w.paced_server

GLYPH = {"♣": "C", "♦": "D", "♥": "H", "♠": "S"}
ORDER = ["C", "D", "H", "S", "NT"]
SHOTS = Path(os.environ.get("TMPDIR", "/tmp")) / "web-shots"


@pytest.fixture()
def page_of(browser: Any, request: Any) -> Iterator[Any]:
    """Opens the app in a fresh context (desktop unless phone=True); every page is shot at the end."""
    made: list[Any] = []

    def make(phone: bool = False, pause: int = w.PAUSE_MS, server: Any = None, **kw: Any) -> Any:
        ctx = w.new_context(browser, phone=phone, **kw)
        made.append(ctx)
        page = ctx.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.js_errors = errors
        server = server or request.getfixturevalue("web_server")
        page.goto(f"{server.base}/?pause={pause}#/")
        return page

    try:
        yield make
    finally:
        SHOTS.mkdir(exist_ok=True)
        for i, c in enumerate(made):
            for j, p in enumerate(c.pages):
                with contextlib.suppress(Exception):  # a page that cannot be shot fails nothing
                    p.screenshot(path=str(SHOTS / f"{request.node.name}-{i}-{j}.png"))
            c.close()


def _standing(page: Any) -> tuple[int, str] | None:
    """The standing call as the panel says it ("Standing: 7♠ by Bot 2", "… 5 NT …"), or None."""
    if not page.locator("#actions #standing").count():
        return None
    m = re.search(r"(\d+)\s*(NT|[♣♦♥♠])", page.inner_text("#actions #standing"))
    assert m, page.inner_text("#actions #standing")
    return int(m[1]), GLYPH.get(m[2], m[2])


def _beats(n: int, s: str, standing: tuple[int, str] | None) -> bool:
    return standing is None or (n, ORDER.index(s)) > (standing[0], ORDER.index(standing[1]))


def _close_dialog(page: Any) -> None:
    """A round's scores open in a dialog over the table: Continue closes it."""
    btn = page.locator("dialog.table-dialog[open] button.close")
    if btn.count():
        btn.first.click()


def _check_call_grid(page: Any, standing: tuple[int, str] | None, number: int) -> list[str]:
    """What cannot beat the standing call is greyed out: numbers, then the suits of the number picked."""
    nums = [int(n) for n in w.enabled(page, "#bid-panel button.num", "data-number")]
    assert nums == [n for n in range(4, 14) if any(_beats(n, s, standing) for s in ORDER)], (standing, nums)
    page.click(f"#bid-panel button.num[data-number='{number}']")
    assert page.get_attribute(f"#bid-panel button.num[data-number='{number}']", "aria-pressed") == "true"
    suits = w.enabled(page, "#bid-panel button.suit", "data-suit")
    assert suits == [s for s in ORDER if _beats(number, s, standing)], (standing, number, suits)
    return suits


def test_koutchina_mini_the_person_calls_and_plays_as_caller(page_of: Any) -> None:
    started = time.monotonic()
    page = page_of()
    w.sign_in_guest(page, "Ann")
    w.create_game(page, "koutchina", "mini", bots=3, level="heuristic")
    hinted = called = False
    caller_round = None
    while True:
        assert time.monotonic() - started < 110, "no auction won in time"
        page.wait_for_selector("#turn.mine, #round-end[open]")
        if page.locator("#round-end[open]").count():
            if caller_round is not None:
                break
            _close_dialog(page)
            continue
        _close_dialog(page)
        w.check_turn_honest(page)
        if page.locator("#dash-panel").count():
            assert page.locator("#dashcall-btn").count() and not page.locator("#dash-btn").count()
            page.click("#nodash-btn")
        elif page.locator("#bid-panel").count():
            assert page.get_attribute("#bid-panel", "data-verb") == "call"
            if not hinted:  # a practice table: the Hint lists every legal action with its expected score
                t0 = time.monotonic()
                page.click("#hint-btn")
                page.wait_for_selector("#hint[open] #hint-table tr[data-action]", timeout=45_000)
                hinted = True
                took = time.monotonic() - t0
                rows = page.eval_on_selector_all("#hint-table tr[data-action]",
                                                 "els => els.map(e => e.dataset.action)")
                assert "0 pass" in rows, rows
                assert all(re.fullmatch(r"0 (pass|call \d+(NT|[SHDC]))", r) for r in rows), rows
                print(f"hint answered in {took:.2f} s")
                page.click("#hint[open] button.close")
            standing = _standing(page)
            low = next((n for n in range(7, 14) if any(_beats(n, s, standing) for s in ORDER)), None)
            if low is None or low > 10:
                page.click("#pass-btn")
                continue
            suits = _check_call_grid(page, standing, low)
            assert page.locator("#bid-btn[disabled]").count(), "Call before a suit is picked"
            page.click(f"#bid-panel button.suit[data-suit='{suits[0]}']")
            label = f"{low} NT" if suits[0] == "NT" else f"{low}{w.SUITS[suits[0]]}"
            assert page.inner_text("#bid-btn") == f"Call {label}"
            page.click("#bid-btn")
            called = True
            page.wait_for_selector(f"#declarations li[data-seat='0']:has-text('call {label}')")
        elif w.enabled_estimates(page):
            page.click(f"#estimate-picker button.est-btn[data-est='{min(w.enabled_estimates(page))}']")
        else:
            kind = page.inner_text("#round-kind")
            if caller_round is None and "caller" in w.badges(page, 0) and kind == "Call round":
                caller_round = w.bar_round(page)[0]
                marks = w.badges(page, 0)
                assert marks["caller"], "the Caller marker has a tooltip"
                bid = page.inner_text("#scoreboard tr.r-bid td[data-seat='0']") if page.locator(
                    "#scoreboard tr.r-bid").count() else ""
                est = page.inner_text("#scoreboard tr.r-est td[data-seat='0']")
                assert re.fullmatch(r"\d+", est) and int(est) >= 7, est
                print("caller in round", caller_round, "bid cell", repr(bid), "est", est)
            w.play_first_legal(page)
    assert called and hinted
    # The round's scores: we were the Caller of the round we called.
    title = page.inner_text("#round-end h2")
    assert title == f"Round {caller_round}: scores", title
    row = page.inner_text("#round-end table.breakdown tr[data-seat='0']")
    assert "Caller" in row, row
    assert not page.js_errors, page.js_errors


def test_classic_call_round_at_phone_size_in_arabic(page_of: Any) -> None:
    page = page_of(phone=True)
    w.sign_in_guest(page, "Layla")
    # The lobby: strong bots by default for a newcomer; the choice is remembered.
    page.wait_for_selector("#bot-level")
    assert page.input_value("#bot-level") == "strong"
    page.click("#lang-toggle")
    page.wait_for_selector("html[lang='ar'][dir='rtl']")
    w.create_game(page, "classic", "full", bots=3, level="heuristic")
    page.wait_for_selector(".table-page .bar")
    w.check_counter_clockwise(page)
    width = page.viewport_size["width"]
    for s in range(4):  # the scoreboard along the top, every column on the phone's screen
        box = page.locator(f"#scoreboard th[scope=col][data-seat='{s}']").bounding_box()
        assert box and box["x"] >= 0 and box["x"] + box["width"] <= width + 1, (s, box)
    called = shot = False
    started = time.monotonic()
    while True:
        assert time.monotonic() - started < 90, "round 1 did not end"
        page.wait_for_selector("#turn.mine, #round-end[open]")
        if page.locator("#round-end[open]").count():
            break
        if page.locator("#bid-panel").count():
            if not shot:
                page.screenshot(path=str(SHOTS / "classic-phone-ar-auction.png"), full_page=True)
                shot = True
            standing = _standing(page)
            if standing is None:  # open the auction: 4♣, the lowest call, so that the deal is played
                _check_call_grid(page, None, 4)
                page.click("#bid-panel button.suit[data-suit='C']")
                page.click("#bid-btn")
                called = True
            else:
                nums = [int(n) for n in w.enabled(page, "#bid-panel button.num", "data-number")]
                assert nums and nums[0] >= standing[0], (standing, nums)
                if called:
                    page.click("#pass-btn")
                else:  # a bot called first: outbid it once with the lowest call the grid allows
                    page.click(f"#bid-panel button.num[data-number='{nums[0]}']")
                    suits = w.enabled(page, "#bid-panel button.suit", "data-suit")
                    assert suits, (standing, nums[0])
                    page.click(f"#bid-panel button.suit[data-suit='{suits[0]}']")
                    page.click("#bid-btn")
                    called = True
        elif page.locator("#dash-panel").count():
            page.click("#nodash-btn")
        elif w.enabled_estimates(page):
            page.click(f"#estimate-picker button.est-btn[data-est='{min(w.enabled_estimates(page))}']")
        else:
            w.play_first_legal(page)
    assert called
    # The round's scores in Arabic, still right to left; the kind of the round was a call round.
    assert page.get_attribute("html", "dir") == "rtl"
    assert page.locator("#round-end table.breakdown tbody tr[data-seat]").count() == 4
    assert page.inner_text("#round-kind") == "جولة مزايدة"
    page.screenshot(path=str(SHOTS / "classic-phone-ar-round-end.png"))
    w.check_counter_clockwise(page)
    assert page.evaluate("document.documentElement.scrollWidth") <= width, "the page scrolls sideways"
    page.click("#round-end button.close")
    page.click("#lobby-link")
    page.wait_for_selector("#bot-level")
    assert page.input_value("#bot-level") == "heuristic"
    assert not page.js_errors, page.js_errors


#: Egyptian standard's speed rounds: rounds 14-18, their trumps in this order (RULES.md, egyptian).
SPEED_TRUMPS = {14: "NT", 15: "S", 16: "H", 17: "D", 18: "C"}


def test_egyptian_speed_round_locks_its_trump_below_8(page_of: Any, paced_server: Any) -> None:
    """Rounds 1-12 go by while a bot plays for us (we let the clock run out, then look in now and then); we
    come back for round 13, bid low on a speed round's trump and, having won, declare: its suit is locked
    below 8 and free from 8. A speed round whose auction someone else wins is left to the bot again."""
    clock = 4
    page = page_of(pause=0, server=paced_server)  # no trick pause, no travel: the page keeps up with bots
    w.sign_in_guest(page, "Sami")
    w.open_settings_motion(page, "on")
    w.create_game(page, "egyptian", "standard", bots=3, level="heuristic", turn_seconds=clock)
    started = time.monotonic()
    page.wait_for_selector("#away-note", timeout=(clock + 10) * 1000)
    back_in = [w.come_back_at(page, 13, fallback=True)]
    seen: list[str] = []  # what happened at our turns, for a failure's message
    declared = None
    while declared is None:
        assert time.monotonic() - started < 180, f"no speed-round auction won in time: {seen}"
        # A turn after a scored round may wait the server's round-end hold (20 s) on top of the clock.
        try:
            page.wait_for_selector("#turn.mine, #away-note", timeout=(clock + 20 + 10) * 1000)
        except Exception as e:
            raise AssertionError(f"no turn and not away at round {w.bar_round(page)}; seen {seen}") from e
        r, n = w.bar_round(page)
        assert n == 18
        if page.locator("#away-note").count():  # the clock ran out (we let it, or the machine was slow)
            assert r < 18, f"no speed-round auction won: {seen}"
            back_in.append(w.come_back_at(page, r + 1, fallback=True))
            continue
        _close_dialog(page)
        speed = r in SPEED_TRUMPS
        standing = page.inner_text("#actions #standing") if page.locator("#actions #standing").count() else ""
        seen.append(f"{r}:{page.inner_text('.bar .phase')}:{standing}")
        if speed:
            assert page.inner_text("#round-kind") == "Speed round"
            assert w.trump_shown(page) == SPEED_TRUMPS[r], "a speed round's trump is in force from the start"
        if page.locator("#dash-panel").count():
            page.click("#nodash-btn")
        elif page.locator("#bid-panel").count():
            nums = [int(x) for x in w.enabled(page, "#bid-panel button.num", "data-number")]
            if not speed or not nums or nums[0] >= 8:
                page.click("#pass-btn")
                continue
            bid = 7  # the most a bid may be with its suit still locked: the bots must go to 8 to beat it
            fixed = SPEED_TRUMPS[r]
            # Every bid names the round's trump: it is the only suit, already picked.
            assert w.enabled(page, "#bid-panel button.suit", "data-suit") == [fixed]
            pressed = page.get_attribute(f"#bid-panel button.suit[data-suit='{fixed}']", "aria-pressed")
            assert pressed == "true"
            page.click(f"#bid-panel button.num[data-number='{bid}']")
            page.click("#bid-btn")
        elif page.locator("#declare-panel").count() and not speed:
            # A bot bid for us while the clock ran (before we came back) and won a call round's auction:
            # declare what was won, as it stands.
            page.click("#declare-btn")
        elif page.locator("#declare-panel").count():
            fixed = SPEED_TRUMPS[r]
            won = int(page.get_attribute("#declare-panel button.num[aria-pressed='true']", "data-number"))
            assert won < 8
            assert page.get_attribute("#declare-panel button.suit[aria-pressed='true']", "data-suit") == fixed
            assert [int(x) for x in w.enabled(page, "#declare-panel button.num", "data-number")] == list(
                range(won, 14))
            # Below eight the suit stays the round's trump (at the number won, and at 7) ...
            assert w.enabled(page, "#declare-panel button.suit", "data-suit") == [fixed]
            page.click("#declare-panel button.num[data-number='7']")
            assert w.enabled(page, "#declare-panel button.suit", "data-suit") == [fixed]
            # ... from eight any suit may be named: the declaration changes the trump.
            page.click("#declare-panel button.num[data-number='8']")
            assert w.enabled(page, "#declare-panel button.suit", "data-suit") == ORDER
            other = next(s for s in ("S", "H", "D", "C") if s != fixed)
            page.click(f"#declare-panel button.suit[data-suit='{other}']")
            assert page.inner_text("#declare-btn") == f"Declare 8{w.SUITS[other]}"
            page.click("#declare-btn")
            declared = (r, other)
        elif speed:  # someone else won this speed round's auction: a bot may play it, on to the next one
            page.wait_for_selector("#away-note", timeout=(clock + 5) * 1000)
        elif w.enabled_estimates(page):
            page.click(f"#estimate-picker button.est-btn[data-est='{min(w.enabled_estimates(page))}']")
        else:
            w.play_first_legal(page)
    # The new trump is in force, and the table was told who declared what.
    page.wait_for_selector(f"#trump [data-trump='{declared[1]}']", timeout=3000)
    page.wait_for_selector(f"#declarations li[data-seat='0']:has-text('declare 8{w.SUITS[declared[1]]}')")
    print(f"declared in round {declared[0]} after {time.monotonic() - started:.1f} s; back in rounds"
          f" {back_in}; clicks lost: {getattr(page, 'lost_clicks', [])}")
    assert not page.js_errors, page.js_errors


#: Installed in the page by the test (it only watches: it never calls the page's code): every change of the
#: felt's trick area, with the time, its classes and its computed transition duration.
WATCH_TRICK = """() => {
  if (window.__trickLog) return;
  const log = window.__trickLog = [];
  const note = () => {
    const e = document.querySelector('.felt .trick');
    if (!e) return;
    const last = log[log.length - 1];
    if (last && last.el === e && last.cls === e.className) return;
    log.push({ el: e, t: performance.now(), cls: e.className, dur: getComputedStyle(e).transitionDuration });
  };
  new MutationObserver(note).observe(document.body, { subtree: true, childList: true, attributes: true,
    attributeFilter: ['class'] });
}"""


def _one_trick(page: Any) -> tuple[float, list[tuple[float, str, str]]]:
    """Play a card (the bots finish the trick at once): how long the completed trick stayed before it
    travelled or went, and the trick area's changes meanwhile (ms from the click, classes, transition)."""
    w.wait_my_turn(page)
    _close_dialog(page)
    if w.enabled_estimates(page):
        page.click(f"#estimate-picker button.est-btn[data-est='{min(w.enabled_estimates(page))}']")
        w.wait_my_turn(page)
    page.evaluate(WATCH_TRICK)
    page.evaluate("() => { window.__trickLog.length = 0; }")
    w.play_first_legal(page)
    w.wait_my_turn(page)
    log = [(t, c, d) for t, c, d in page.evaluate("() => window.__trickLog.map(x => [x.t, x.cls, x.dur])")]
    done = [i for i, (_, c, _) in enumerate(log) if "done" in c.split()]
    assert done, log
    start = log[done[0]][0]
    after = next((t for t, c, _ in log[done[0]:] if "done" not in c.split() or "travel" in c), None)
    assert after is not None, log
    return (after - start) / 1000, [(round(t - start), c, d) for t, c, d in log]


def test_reduce_motion_keeps_the_pause_and_drops_the_travel(page_of: Any) -> None:
    pause = 700
    page = page_of(pause=pause)
    w.sign_in_guest(page, "Mo")
    w.create_game(page, "koutchina", "micro", bots=3, level="random")
    # Reduce motion off: the completed trick stays for the pause, then travels to its winner's side.
    w.open_settings_motion(page, "off")
    stayed, log = _one_trick(page)
    assert stayed >= pause / 1000 * 0.9, (stayed, log)
    travel = [(c, d) for _, c, d in log if "travel-" in c]
    assert travel, log
    assert re.search(r"travel-(bottom|right|top|left)", travel[0][0]), travel
    assert float(travel[0][1].split(",")[0].rstrip("s")) > 0, travel  # and it moves there (a transition)
    # Reduce motion on: the trick still stays as long, and never travels.
    w.open_settings_motion(page, "on")
    stayed, log = _one_trick(page)
    assert stayed >= pause / 1000 * 0.9, (stayed, log)
    assert not any("travel-" in c for _, c, _ in log), log
    # Following the system: a system asking for reduced motion gets no travel, and no transition at all.
    w.open_settings_motion(page, "auto")
    page.emulate_media(reduced_motion="reduce")
    stayed, log = _one_trick(page)
    assert stayed >= pause / 1000 * 0.9, (stayed, log)
    assert not any("travel-" in c for _, c, _ in log), log
    moving = [x for x in log if x[2] != "0s"]
    assert not moving, moving
    assert not page.js_errors, page.js_errors
