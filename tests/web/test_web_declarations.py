"""Declarations at the new table (issue 18), four people in four browsers and a spectator in a fifth.

Every declaration (Dash answers, calls, bids, With, passes, the declaration, estimates, Super Calls) must be
on all five pages within a second of the click, saying who made it; the scoreboard along the top and the
seat's bubble say it too. Redeals (three of them make the fourth deal a fixed NT round), a Super Call that
changes the trump before the others estimate, egyptian's Dash, bid, With, raising declaration and an
all-pass round, all by clicking.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import web_helpers as w

#: A declaration must be on every page this soon after the click (issue 18: "within a second").
WITHIN = 1.0
#: Installed in each page by the test (it watches, it never calls the page's code): the browser's time when
#: each declaration ("round r, deal d|index") first shows, and the time of the page's last click.
WATCH_DECLARATIONS = """() => {
  if (window.__declSeen) return;
  const seen = window.__declSeen = {};
  document.addEventListener('click', () => { window.__lastClick = Date.now(); }, true);
  const note = () => {
    const label = document.querySelector('.decl-box h2 small');
    for (const li of document.querySelectorAll('#declarations li[data-i]')) {
      const key = `${label ? label.textContent : ''}|${li.dataset.i}`;
      if (!(key in seen)) seen[key] = Date.now();
    }
  };
  new MutationObserver(note).observe(document.body, { subtree: true, childList: true });
  note();
}"""


class Table:
    """Four seated pages and a spectator's page at one table, and the names by seat."""

    def __init__(self, base: str, table_id: int, seats: dict[int, Any], spectator: Any, ruleset: str) -> None:
        self.base = base
        self.id = table_id
        self.seats = seats
        self.spectator = spectator
        self.ruleset = ruleset
        self.players = [seats[s].inner_text(f"#scoreboard th[scope=col][data-seat='{s}'] .pname")
                        for s in range(4)]
        self.lags: list[float] = []

    @property
    def pages(self) -> list[Any]:
        return [*self.seats.values(), self.spectator]

    def mover(self) -> int:
        return w.wait_mover(self.seats)

    def watch(self) -> None:
        """Each page notes, by the browser's clock, when each declaration first shows in its list, and when
        it was last clicked (the lag is measured in the browser, not through the test's polling)."""
        for p in self.pages:
            p.evaluate(WATCH_DECLARATIONS)

    def declare(self, seat: int, click: Callable[[Any], None], action: str, ends_deal: bool = False) -> None:
        """The seat's page makes one declaration by clicking; then it must be on all five pages in time."""
        page = self.seats[seat]
        assert w.my_turn(page), (seat, action)
        k = len(w.declaration_items(page))
        deal = page.inner_text(".decl-box h2 small")
        click(page)
        if ends_deal:
            return
        text = w.describe(action, self.players, self.ruleset)
        for p in self.pages:
            p.wait_for_selector(f"#declarations li[data-i='{k}']", timeout=10_000)
        clicked = page.evaluate("() => window.__lastClick")
        shown = [p.evaluate("key => window.__declSeen[key]", f"{deal}|{k}") for p in self.pages]
        assert clicked and all(shown), (clicked, shown)
        lag = (max(shown) - clicked) / 1000
        self.lags.append(lag)
        assert lag <= WITHIN, f"{action}: on all pages after {lag:.2f} s ({[t - clicked for t in shown]} ms)"
        for p in self.pages:
            items = w.declaration_items(p)
            assert items[k] == (seat, text), (action, items)

    def settle(self) -> None:
        target = max(w.version(p) for p in self.pages)
        for p in self.pages:
            p.wait_for_selector(f".table-page[data-version='{target}'][data-busy='0']")


@pytest.fixture()
def contexts(browser: Any) -> Iterator[list[Any]]:
    ctxs = [w.new_context(browser) for _ in range(5)]
    try:
        yield ctxs
    finally:
        for c in ctxs:
            c.close()


def _table(contexts: list[Any], base: str, ruleset: str, length: str) -> Table:
    pages = [w.open_app(c, base) for c in contexts]
    names = ["Ann", "Ben", "Cy", "Di", "Eve"]
    for p, n in zip(pages, names, strict=True):
        w.sign_in_guest(p, n)
    table_id = w.create_game(pages[0], ruleset, length, bots=0)
    for p in pages[1:4]:  # each takes the first free seat on the table's waiting page
        p.goto(f"{base}/?pause={w.PAUSE_MS}#/table/{table_id}")
        p.click(".seat-list li[data-seat] button.sit")
        p.wait_for_selector(".table-page:not([data-seat=''])")
    spectator = pages[4]
    spectator.goto(f"{base}/?pause={w.PAUSE_MS}#/table/{table_id}")
    spectator.wait_for_selector("#spectating")
    seats = w.seated(pages[:4])
    assert sorted(seats) == [0, 1, 2, 3]
    tb = Table(base, table_id, seats, spectator, ruleset)
    tb.watch()
    return tb


def _click(selector: str) -> Callable[[Any], None]:
    return lambda page: page.click(selector)


def test_koutchina_redeals_fixed_nt_and_super_calls(contexts: list[Any], web_server: Any) -> None:
    tb = _table(contexts, web_server.base, "koutchina", "mini")
    # Deal 1: a Dash Call, the rest decline; the other three pass: nobody called, a redeal.
    first = tb.mover()
    tb.declare(first, _click("#dashcall-btn"), f"{first} dashcall")
    for p in tb.pages:
        marks = w.badges(p, first)
        assert marks.get("dashcall"), marks
        assert p.inner_text(f"#scoreboard tr.r-bid td[data-seat='{first}']") == "Dash Call"
        assert p.inner_text(f".felt .bubble[data-seat='{first}']") == "Dash Call"
    for _ in range(3):
        s = tb.mover()
        assert tb.seats[s].locator("#dashcall-btn:not([disabled])").count()
        tb.declare(s, _click("#nodash-btn"), f"{s} nodash")
    for i in range(3):
        s = tb.mover()
        page = tb.seats[s]
        # Nothing stands yet: every call 4C..13NT may be made; Bid waits for a number and a suit.
        assert page.locator("#bid-panel[data-verb='call']").count()
        assert w.enabled(page, "#bid-panel button.num", "data-number") == [str(n) for n in range(4, 14)]
        assert page.locator("#bid-btn[disabled]").count()
        assert not page.locator("#bid-panel button.num[aria-pressed='true']").count()
        tb.declare(s, _click("#pass-btn"), f"{s} pass", ends_deal=i == 2)
    # Deals 2 and 3: no Dash Call, four passes each.
    for deal in (2, 3):
        for p in tb.pages:  # the last pass is not in the new deal's list: a note says why it is dealt again
            p.wait_for_selector(f".bar .round:has-text('deal {deal}')", timeout=WITHIN * 1000)
            p.wait_for_selector(f".conn:has-text('Nobody called: the same dealer redeals (deal {deal}).')",
                                timeout=WITHIN * 1000)
            assert p.locator("#declarations-empty").count(), deal
        for _ in range(4):
            s = tb.mover()
            tb.declare(s, _click("#nodash-btn"), f"{s} nodash")
        for i in range(4):
            s = tb.mover()
            tb.declare(s, _click("#pass-btn"), f"{s} pass", ends_deal=i == 3)
    # Deal 4: three failed auctions make it a fixed NT round, estimated at once (no offer, no auction).
    for p in tb.pages:
        p.wait_for_selector(".bar .round:has-text('deal 4')", timeout=WITHIN * 1000)
        p.wait_for_selector(".conn:has-text('Three auctions failed: this deal is a fixed no-trump round.')",
                            timeout=WITHIN * 1000)
        assert w.trump_shown(p) == "NT"
        assert p.inner_text("#round-kind") == "Fixed round"
    # The first estimator makes a Super Call: 8 with spades. The trump shown changes on every page at once,
    # before the others estimate.
    order = []
    s = tb.mover()
    order.append(s)
    page = tb.seats[s]
    assert page.locator("#estimate-picker").count() and not page.locator("#bid-panel, #dash-panel").count()
    page.click("#estimate-picker button.est-btn[data-est='8']")
    page.wait_for_selector("#super-picker")
    assert page.locator("#super-keep:not([disabled])").count()
    assert set(w.enabled(page, "#super-picker button[data-suit]", "data-suit")) >= {"S", "H", "D", "C"}
    tb.declare(s, _click("#super-picker button[data-suit='S']"), f"{s} est 8 S")
    for p in tb.pages:
        p.wait_for_selector("#trump [data-trump='S']", timeout=WITHIN * 1000)
    # The next estimator sees spades as the trump while estimating, and outbids it: 9 with hearts.
    s = tb.mover()
    order.append(s)
    page = tb.seats[s]
    assert w.trump_shown(page) == "S" and page.locator("#estimate-picker").count()
    page.click("#estimate-picker button.est-btn[data-est='9']")
    page.wait_for_selector("#super-picker")
    tb.declare(s, _click("#super-picker button[data-suit='H']"), f"{s} est 9 H")
    for _ in range(2):
        s = tb.mover()
        order.append(s)
        page = tb.seats[s]
        assert w.trump_shown(page) == "H", "a seat still to estimate must see the trump in force"
        assert page.locator("#estimate-picker").count()
        low = min(w.enabled_estimates(page))
        tb.declare(s, _click(f"#estimate-picker button.est-btn[data-est='{low}']"), f"{s} est {low}")
    assert len(set(order)) == 4
    # Play starts: hearts are trumps, the highest estimator (9) is the Caller.
    tb.settle()
    for p in tb.pages:
        assert w.trump_shown(p) == "H"
        assert "caller" in w.badges(p, order[1]), w.badges(p, order[1])
        assert p.inner_text(f"#scoreboard tr.r-est td[data-seat='{order[0]}']") == "8"
    for p in tb.pages:
        assert not p.js_errors, p.js_errors
    print(f"{len(tb.lags)} declarations, on all five pages within {max(tb.lags):.2f} s of the click")
    assert max(tb.lags) <= WITHIN, tb.lags


def _play_round_out(tb: Table, limit: float = 60.0) -> int:
    """Every seat plays its first lifted card until a seat has something else to do (the next round's
    first declaration); the number of cards played. The round-end dialogs are closed after."""
    deadline = time.monotonic() + limit
    cards = 0
    while True:
        assert time.monotonic() < deadline, "the round did not end"
        page = tb.seats[tb.mover()]
        card = page.locator(".hand button.card.legal")
        if not card.count():
            break
        card.first.click()
        cards += 1
    for p in tb.seats.values():
        w.close_dialogs(p)
    return cards


def test_egyptian_dash_bid_with_declaration_and_all_pass(contexts: list[Any], web_server: Any) -> None:
    tb = _table(contexts, web_server.base, "egyptian", "standard")
    # Round 1. The Dash offer: the first seat takes the Dash (egyptian's, never called a Dash Call).
    dasher = tb.mover()
    page = tb.seats[dasher]
    assert page.locator("#dash-btn").count() and not page.locator("#dashcall-btn").count()
    tb.declare(dasher, _click("#dash-btn"), f"{dasher} dash")
    for p in tb.pages:
        assert p.inner_text(f"#scoreboard tr.r-marks td[data-seat='{dasher}'] .badge.dashcall") == "Dash"
        assert p.inner_text(f".felt .bubble[data-seat='{dasher}']") == "Dash"
    for _ in range(3):
        s = tb.mover()
        tb.declare(s, _click("#nodash-btn"), f"{s} nodash")
    # The auction: a bid of 5♥ (number, suit, then Bid); no With before anything stands.
    b1 = tb.mover()
    page = tb.seats[b1]
    assert page.locator("#bid-panel[data-verb='bid']").count() and not page.locator("#with-btn").count()
    page.click("#bid-panel button.num[data-number='5']")
    assert page.locator("#bid-btn[disabled]").count(), "Bid before a suit is chosen"
    page.click("#bid-panel button.suit[data-suit='H']")
    assert page.inner_text("#bid-btn") == "Bid 5♥"
    tb.declare(b1, _click("#bid-btn"), f"{b1} bid 5H")
    for p in tb.pages:
        assert p.inner_text(f"#scoreboard tr.r-bid td[data-seat='{b1}']") == "5♥"
    # The next seat: what cannot beat 5♥ is greyed out; it goes With.
    b2 = tb.mover()
    page = tb.seats[b2]
    assert w.enabled(page, "#bid-panel button.num", "data-number") == [str(n) for n in range(5, 14)]
    page.click("#bid-panel button.num[data-number='5']")
    assert w.enabled(page, "#bid-panel button.suit", "data-suit") == ["S", "NT"]
    assert page.locator("#bid-btn[disabled]").count()
    page.click("#bid-panel button.num[data-number='6']")
    assert w.enabled(page, "#bid-panel button.suit", "data-suit") == ["C", "D", "H", "S", "NT"]
    assert page.inner_text("#with-btn") == "With 5♥"
    tb.declare(b2, _click("#with-btn"), f"{b2} with")
    b3 = tb.mover()
    assert b3 not in (dasher, b1, b2)
    tb.declare(b3, _click("#pass-btn"), f"{b3} pass")
    # The declaration: the panel opens on 5♥; the winner raises to 6♥.
    assert tb.mover() == b1
    page = tb.seats[b1]
    page.wait_for_selector("#declare-panel")
    assert page.get_attribute("#declare-panel button.num[data-number='5']", "aria-pressed") == "true"
    assert page.get_attribute("#declare-panel button.suit[data-suit='H']", "aria-pressed") == "true"
    assert w.enabled(page, "#declare-panel button.num", "data-number") == [str(n) for n in range(5, 14)]
    assert not page.locator("#declare-btn[disabled]").count()
    page.click("#declare-panel button.num[data-number='6']")
    assert page.inner_text("#declare-btn") == "Declare 6♥"
    tb.declare(b1, _click("#declare-btn"), f"{b1} declare 6H")
    for p in tb.pages:
        assert w.trump_shown(p) == "H"
    # The estimates: the With seat first, on the declared number (so it scores as With: an egyptian With
    # that estimates anything else is an ordinary estimate); then the other seat, the lowest it may click.
    s = tb.mover()
    assert s == b2, (s, b2)
    assert 6 in w.enabled_estimates(tb.seats[s])
    tb.declare(s, _click("#estimate-picker button.est-btn[data-est='6']"), f"{s} est 6")
    s = tb.mover()
    assert s == b3, (s, b3)
    low = min(w.enabled_estimates(tb.seats[s]))
    tb.declare(s, _click(f"#estimate-picker button.est-btn[data-est='{low}']"), f"{s} est {low}")
    tb.settle()
    for p in tb.pages:
        assert "caller" in w.badges(p, b1) and "with" in w.badges(p, b2), (w.badges(p, b1), w.badges(p, b2))
        assert "with" not in w.badges(p, b3) and "caller" not in w.badges(p, b3)
        assert all(w.badges(p, b1).values()) and all(w.badges(p, b2).values()), "every marker has a tooltip"
        assert p.inner_text(f"#scoreboard tr.r-est td[data-seat='{b1}']") == "6"
        assert p.inner_text(f"#scoreboard tr.r-est td[data-seat='{dasher}']") == "0"
        assert len(w.declaration_items(p)) == 10
    assert _play_round_out(tb) == 52
    # Round 2: no Dash, nobody bids: no redeal in egyptian but a NT round estimated from the dealer.
    for _ in range(4):
        s = tb.mover()
        tb.declare(s, _click("#nodash-btn"), f"{s} nodash")
    for _ in range(4):
        s = tb.mover()
        tb.declare(s, _click("#pass-btn"), f"{s} pass")
    dealer = [s for s in range(4) if tb.spectator.locator(
        f"#scoreboard th[scope=col][data-seat='{s}'] .dealer-chip").count()]
    assert len(dealer) == 1
    s = tb.mover()
    assert s == dealer[0], (s, dealer)
    for p in tb.pages:
        assert p.inner_text("#round-kind") == "Nobody bid" and w.trump_shown(p) == "NT"
        assert w.bar_round(p) == (2, 18)
    for p in tb.pages:
        assert not p.js_errors, p.js_errors
    print(f"{len(tb.lags)} declarations, on all five pages within {max(tb.lags):.2f} s of the click")
    assert max(tb.lags) <= WITHIN, tb.lags
