"""Four browser contexts play one table together; no page's DOM ever holds another seat's unplayed card.

Each page's whole HTML is kept after every move (once every page shows it) through the first round and the
first view of the second (the next deal); then all four leave (the table asks first and says a bot plays
on), the bots finish the game, and the pages are checked against the true hands in the finished game's
record. The estimates are the lowest each page may click, which makes the last estimator of round 1 face
both limits: 0 after two zeros, and the number making 13.
"""

from __future__ import annotations

import re
import time
from typing import Any

import httpx
import web_helpers as w

SUIT = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}


def _forms(card: str) -> list[re.Pattern[str]]:
    """How a card could appear in a page: its code as a word, and its face as drawn (rank, suit symbol)."""
    rank = "10" if card[0] == "T" else card[0]
    return [re.compile(rf"(?<![0-9A-Za-z%]){card}(?![0-9A-Za-z])"),
            re.compile(re.escape(f'>{rank}</span><span class="pip">{SUIT[card[1]]}<'))]


def _position(record: dict[str, Any], k: int) -> tuple[int, set[str]]:
    """After k actions: the deal on screen (the one holding action k+1) and the cards played in it so far."""
    seen = 0
    for i, deal in enumerate(record["deals"]):
        n = len(deal["actions"])
        if k < seen + n or i == len(record["deals"]) - 1:
            done = deal["actions"][: k - seen]
            return i, {a.split()[2] for a in done if a.split()[1] == "play"}
        seen += n
    raise AssertionError(k)


def _leave(page: Any) -> None:
    """Leave by the table's button: it asks first and says what leaving costs here (a bot plays on)."""
    page.click(".tools #leave-btn")
    page.wait_for_selector("#leave-dialog[open]")
    assert "A bot plays your seat" in page.inner_text("#leave-dialog")
    page.click("#leave-dialog button.ok")
    page.wait_for_selector("#create-btn")


def _finished(base: str, table_id: int, limit: float = 60.0) -> None:
    deadline = time.monotonic() + limit
    while httpx.get(f"{base}/api/tables/{table_id}").json()["status"] != "finished":
        assert time.monotonic() < deadline, "the bots did not finish the game"
        time.sleep(0.2)


def test_four_players_one_table_no_leaks(browser: Any, web_server: Any) -> None:
    contexts = [browser.new_context(viewport={"width": 1280, "height": 800}) for _ in range(4)]
    try:
        pages = [w.open_app(ctx, web_server.base) for ctx in contexts]
        for i, page in enumerate(pages):
            w.sign_in_guest(page, f"P{i}")
        table_id = w.create_table(pages[0], bots=0)
        for page in pages[1:]:
            page.reload()  # the lobby lists the new table
            page.click(f"#open-tables li[data-table='{table_id}'] button.join")
            page.wait_for_url(re.compile(rf"#/table/{table_id}$"))
        seats = {}
        for page in pages:
            page.wait_for_selector(".table-page .bar")
            seats[int(page.get_attribute(".table-page", "data-seat"))] = page
        assert sorted(seats) == [0, 1, 2, 3]
        snapshots: list[tuple[int, int, str]] = []  # (actions made, seat, html)
        made = 0
        checked_limits = False
        deadline = time.monotonic() + 240
        target = max(w.settle(p) for p in pages)
        while True:
            assert time.monotonic() < deadline, "round 1 was not played in time"
            for p in pages:
                p.wait_for_selector(f".table-page[data-version='{target}'][data-busy='0']")
            for s, p in seats.items():
                snapshots.append((made, s, p.content()))
            if w.bar_round(pages[0])[0] == 2:
                break
            movers = [s for s, p in seats.items() if p.locator(w.ACTIONABLE).count()]
            assert len(movers) == 1, movers
            page = seats[movers[0]]
            w.close_dialogs(page)
            estimates = w.enabled_estimates(page)
            if estimates:
                if made == 3 and not checked_limits:
                    # Round 1's estimates so far are 0, 0, 1 (the lowest allowed each time): the last
                    # estimator may not say 0 (two zeros already) nor 12 (the total would be 13).
                    assert 0 not in estimates and 12 not in estimates, estimates
                    assert set(w.all_estimates(page)) - set(estimates) == {0, 12}
                    checked_limits = True
                page.click(f"#estimate-picker button.est-btn[data-est='{min(estimates)}']")
            else:
                page.locator(".hand button.card.legal").first.click()
            made += 1
            target = w.wait_version_above(page, target)
        assert checked_limits
        for p in pages:
            assert not p.js_errors, p.js_errors
            _leave(p)
        _finished(web_server.base, table_id)
        record = httpx.get(f"{web_server.base}/api/tables/{table_id}/record").json()
        assert made == len(record["deals"][0]["actions"])  # micro: a deal a round
        for k, seat, html in snapshots:
            deal_index, played = _position(record, k)
            hands = [set(h.split()) for h in record["deals"][deal_index]["hands"]]
            hidden = set().union(*(hands[s] for s in range(4) if s != seat)) - played
            for card in hidden:
                for form in _forms(card):
                    assert not form.search(html), f"seat {seat} after {k} actions: {card} ({form.pattern})"
            mine = hands[seat] - played
            assert all(f'data-card="{c}"' in html for c in mine)
    finally:
        for ctx in contexts:
            ctx.close()
