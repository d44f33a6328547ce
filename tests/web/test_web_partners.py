"""Partnerships in the browser (RULES.md, Partnerships: seats 0+2 against 1+3, a side's total the sum of its
two seats'), driven in chromium through visible controls only.

- A table made with the lobby's Partners option: the partner sits opposite (seat+2, across the felt) and is
  marked as the partner, the others by their side; the scoreboard, every round's end and the match's end
  show each side's total (and at a round's end its score of that round) as the engine counts them; the match
  is won by a side, each partner with their own total beneath it.
- The calculator's Partners option: each side's round score and totals, worked out by hand below (and equal
  to `estimation score --partners`).
- The replay of a partnership game: each side's total over the rounds shown, and at the end the sides'
  totals and places as `estimation replay --json` gives `sides` (RECORD.md).

Screenshots (a table mid-game, the match's end, the calculator) go to $ESTIMATION_SCREENSHOTS when set (the
committed ones: ESTIMATION_SCREENSHOTS=docs/screenshots), else to a temporary folder.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
import web_helpers as w
from server_helpers import Api
from test_web_screenshots import ROOT

import estimation
from estimation import replay_summary

SIDES = [[0, 2], [1, 3]]


def _save(png: bytes, path: Path) -> None:
    """Kept small for the repository, as test_web_screenshots.py does, but by octree to 256 colours: the
    median cut to 128 made the markers' small chips the sides' colours (the Caller's blue came out teal)."""
    import io

    from PIL import Image

    with Image.open(io.BytesIO(png)) as image:
        quantized = image.convert("RGB").quantize(colors=256, method=Image.Quantize.FASTOCTREE,
                                                  dither=Image.Dither.NONE)
        quantized.save(path, optimize=True)


def _shots(tmp_path: Path) -> Path:
    target = os.environ.get("ESTIMATION_SCREENSHOTS")
    out = ROOT / target if target else tmp_path
    out.mkdir(parents=True, exist_ok=True)
    return out


def _sides_shown(page: Any, selector: str) -> dict[int, dict[str, str]]:
    """A sides list as shown: per side its names, total, this round's score and place (text, "" if absent)."""
    rows = page.eval_on_selector_all(
        f"{selector} li[data-side]",
        "els => els.map(e => [Number(e.dataset.side), e.textContent,"
        " (e.querySelector('.side-total') || {}).textContent || '',"
        " (e.querySelector('.side-round') || {}).textContent || '',"
        " (e.querySelector('.side-place') || {}).textContent || ''])")
    return {k: {"text": text, "total": total, "round": rnd, "place": place}
            for k, text, total, rnd, place in rows}


def _signed(n: int) -> str:
    """A score as the page writes it: +12, -3, 0."""
    return f"{n:+d}" if n else "0"


def _pick_estimate(page: Any) -> None:
    """An estimate of 3 where it may be said (a middling one: rounds then score both ways), else the first."""
    three = page.locator("#estimate-picker button.est-btn[data-est='3']:not([disabled])")
    first = page.locator("#estimate-picker button.est-btn:not([disabled])").first
    (three if three.count() else first).click()


def _check_round_end(page: Any, players: list[str]) -> None:
    """The round's scores panel: each side's total is its seats' totals summed, its round score its seats'
    round scores summed, and the sheet's side columns say the same."""
    sheet = w.sheet_from_dialog(page, "#round-end")
    last = sheet["scores"][-1]
    shown = _sides_shown(page, "#round-end #round-sides")
    assert sorted(shown) == [0, 1], shown
    for k, (a, b) in enumerate(SIDES):
        assert int(shown[k]["total"]) == sheet["totals"][a] + sheet["totals"][b], (k, shown, sheet)
        round_score = last[a] + last[b]
        assert shown[k]["round"] == f" ({_signed(round_score)} this round)", (k, shown, last)
        assert f"({players[a]} + {players[b]})" in shown[k]["text"], shown[k]
        assert not shown[k]["place"]  # places only once the match is over
    side_totals = page.eval_on_selector_all("#round-end table.sheet tfoot td.side-total",
                                            "els => els.map(e => Number(e.textContent))")
    assert side_totals == [sheet["totals"][a] + sheet["totals"][b] for a, b in SIDES]


def _check_scoreboard(page: Any) -> None:
    """The scoreboard's sides line against its own Total row."""
    totals = [int(page.inner_text(f"#scoreboard tr.r-tot td[data-seat='{s}']")) for s in range(4)]
    shown = _sides_shown(page, "#scoreboard #sides")
    expected = [totals[a] + totals[b] for a, b in SIDES]
    assert [int(shown[k]["total"]) for k in (0, 1)] == expected, (shown, totals)


def test_a_partnership_table_from_the_lobby(context: Any, web_server: Any, tmp_path: Path) -> None:
    out = _shots(tmp_path)
    page = w.open_app(context, web_server.base)
    w.sign_in_guest(page, "Ann")
    page.check("#partners")
    table_id = w.create_game(page, ruleset="koutchina", length="micro", bots=3)
    w.settle(page)
    me = int(page.get_attribute(".table-page", "data-seat") or -1)
    assert me == 0
    # The partner opposite, across the felt (seat+2 at the top), marked as the partner; the others by side.
    w.check_counter_clockwise(page)
    assert w.positions(page)[2] == "top"
    chips = dict(page.eval_on_selector_all(
        ".felt .seat[data-seat] .badge.side", "els => els.map(e => [Number(e.closest('.seat').dataset.seat),"
        " [e.dataset.side, e.textContent, e.classList.contains('partner')]])"))
    assert chips == {0: ["0", "Side 1", False], 1: ["1", "Side 2", False], 2: ["0", "Partner", True],
                     3: ["1", "Side 2", False]}, chips
    players = [page.inner_text(f"#scoreboard th[data-seat='{s}'] .pname") for s in range(4)]
    shown = _sides_shown(page, "#scoreboard #sides")
    assert [shown[k]["total"] for k in (0, 1)] == ["0", "0"]
    assert f"({players[0]} + {players[2]})" in shown[0]["text"]
    assert f"({players[1]} + {players[3]})" in shown[1]["text"]

    round_ends = 0
    shot = False
    deadline = time.monotonic() + 240
    while True:
        assert time.monotonic() < deadline, "the match did not end in time"
        w.settle(page)
        if page.locator("#match-end[open]").count():
            break
        if page.locator("#round-end[open]").count():
            _check_round_end(page, players)
            _check_scoreboard(page)
            round_ends += 1
            w.close_dialogs(page)
            continue
        if page.locator("#estimate-picker button.est-btn:not([disabled])").count():
            _pick_estimate(page)
        elif page.locator(".hand button.card.legal").count():
            if round_ends >= 2 and len(w.trick(page)) >= 2 and not shot:
                _save(page.screenshot(), out / "partners-table.png")  # the sides' totals after two rounds
                shot = True
            page.locator(".hand button.card.legal").first.click()
        else:
            page.wait_for_timeout(30)
    assert round_ends == 4 and shot  # the fifth round's scores are in the match's end

    # The match's end: won by a side (or drawn), the sides in their places as the engine has them, each with
    # its two partners' own totals.
    record = httpx.get(f"{web_server.base}/api/tables/{table_id}/record").json()
    summary = replay_summary(estimation.load_record(record))
    sides = summary["sides"]
    assert sides["seats"] == SIDES
    order = page.eval_on_selector_all("#match-end #standings > li[data-side]",
                                      "els => els.map(e => [Number(e.dataset.side),"
                                      " Number(e.querySelector('.side-total').textContent),"
                                      " [...e.querySelectorAll('li[data-seat]')]"
                                      ".map(x => Number(x.dataset.seat))])")
    assert [k for k, _, _ in order] == sorted((0, 1), key=lambda k: (sides["places"][k], k))
    assert {k: total for k, total, _ in order} == {0: sides["totals"][0], 1: sides["totals"][1]}
    assert {k: seats for k, _, seats in order} == {0: [0, 2], 1: [1, 3]}
    headline = page.inner_text("#match-end #side-result")
    if sides["places"][0] == sides["places"][1]:
        assert headline == "The sides are level: a draw"
    elif sides["places"][0] == 1:
        assert headline == f"Your side wins: {players[0]} + {players[2]}"
    else:
        assert headline == f"Your side lost to Side 2: {players[1]} + {players[3]}"
    sheet = w.sheet_from_dialog(page, "#match-end")
    assert sheet["totals"] == summary["totals"]
    # Behind the panel, the scoreboard's sides now say their places too.
    board = _sides_shown(page, "#scoreboard #sides")
    assert [board[k]["place"] for k in (0, 1)] == [f" · place {p}" for p in sides["places"]]
    assert [int(board[k]["total"]) for k in (0, 1)] == sides["totals"]
    _save(page.screenshot(), out / "partners-match-end.png")
    assert not page.js_errors, page.js_errors


def _enter(page: Any, r: dict[str, Any]) -> None:
    page.select_option("#calc-kind", r["kind"])
    if "caller" in r:
        page.select_option("#calc-caller", str(r["caller"]))
        page.fill("#calc-number", str(r["number"]))
    if "dealer" in r:
        page.select_option("#calc-dealer", str(r["dealer"]))
    for s in r.get("dash", []):
        page.check(f"input.calc-dash[data-seat='{s}']")
    for s, e in r["est"].items():
        page.fill(f"#calc-est-{s}", str(e))
    for s, n in enumerate(r["tricks"]):
        page.fill(f"#calc-tricks-{s}", str(n))
    page.click("#calc-add")


def test_the_calculator_with_partners(context: Any, web_server: Any, tmp_path: Path) -> None:
    """Two koutchina rounds worked out by hand (and equal to `estimation score --partners`):

    1. Ben (seat 1) calls 7, Ann (0) takes the Dash Call, Cy 2, Di 1: 10 in all, Under by 3, Di's Risk
       level 1. Tricks 1, 7, 4, 1. Ann's Dash Call missed Under -33; Ben made 7 as Caller 10 + 7 + 10 = 27;
       Cy missed by 2: -2; Di made 1 and her Risk: 10 + 1 + 10 = 21. Ann + Cy -35, Ben + Di +48.
    2. Fixed, Ann deals: Ben 4, Cy 3, Di 2, Ann 3 (12: Under by 1, no Risk); tricks 3, 4, 2, 4. Ann made 3:
       13; Ben made 4 as the Caller (the highest): 10 + 4 + 10 = 24; Cy missed by 1: -1; Di missed by 2: -2.
       Ann + Cy +12, Ben + Di +22. Totals: Ann + Cy -23, Ben + Di 70.
    """
    page = w.open_app(context, web_server.base, "#/calc")
    page.wait_for_selector("#calc-form")
    for s, name in enumerate(["Ann", "Ben", "Cy", "Di"]):
        page.fill(f"#calc-name-{s}", name)
    page.select_option("#calc-ruleset", "koutchina")
    assert not page.locator("#calc-sides").count()  # every seat for itself until Partners is ticked
    page.check("#calc-partners")
    assert page.locator("#calc-sides").count() == 1
    _enter(page, {"kind": "call", "caller": 1, "number": 7, "dash": [0], "est": {2: 2, 3: 1},
                  "tricks": [1, 7, 4, 1]})
    page.wait_for_selector(".calc-out table.breakdown[data-round='1']")
    shown = _sides_shown(page, "#calc-sides")
    assert [(shown[k]["total"], shown[k]["round"]) for k in (0, 1)] == [
        ("-35", " (-35 this round)"), ("48", " (+48 this round)")], shown
    assert "(Ann + Cy)" in shown[0]["text"] and "(Ben + Di)" in shown[1]["text"]
    # Partners are chosen with the game: fixed once a round is in.
    assert page.locator("#calc-partners").is_disabled()
    _enter(page, {"kind": "fixed", "dealer": 0, "est": {1: 4, 2: 3, 3: 2, 0: 3}, "tricks": [3, 4, 2, 4]})
    page.wait_for_selector(".calc-out table.breakdown[data-round='2']")
    shown = _sides_shown(page, "#calc-sides")
    assert [(shown[k]["total"], shown[k]["round"]) for k in (0, 1)] == [
        ("-23", " (+12 this round)"), ("70", " (+22 this round)")], shown
    sheet = w.sheet_from_dialog(page, ".calc-out")
    assert sheet["scores"] == [[-33, 27, -2, 21], [13, 24, -1, -2]] and sheet["totals"] == [-20, 51, -3, 19]
    side_cells = page.eval_on_selector_all(".calc-out table.sheet td.side-score .pts",
                                           "els => els.map(e => e.textContent)")
    assert side_cells == ["-35", "+48", "+12", "+22"]
    assert page.eval_on_selector_all(".calc-out table.sheet tfoot td.side-total",
                                     "els => els.map(e => Number(e.textContent))") == [-23, 70]
    # Kept in the browser: a reload shows the same game, still with partners.
    page.reload()
    page.wait_for_selector(".calc-out table.breakdown[data-round='2']")
    assert page.is_checked("#calc-partners")
    assert [_sides_shown(page, "#calc-sides")[k]["total"] for k in (0, 1)] == ["-23", "70"]
    _save(page.screenshot(), _shots(tmp_path) / "calc-partners.png")
    # A new game may be without partners again.
    page.click("#calc-clear")
    page.click("dialog#calc-new-dialog #calc-new-ok")
    page.uncheck("#calc-partners")
    assert not page.locator("#calc-sides").count()
    assert not page.js_errors, page.js_errors


@pytest.fixture(scope="module")
def partnership_game(web_server: Any) -> tuple[int, dict[str, Any]]:
    """A finished koutchina micro partnership game (the setup, through the API: the player leaves at once and
    a bot plays the seat)."""
    api = Api.guest(web_server, "Zoe")
    table = api.create_table(partners=True, length="micro", bot_seats=[1, 2, 3], bot_level="random")
    api.join(table["id"])
    api.ok(api.post(f"/api/tables/{table['id']}/leave"))
    deadline = time.monotonic() + 120
    while True:
        r = api.get(f"/api/tables/{table['id']}/record")
        if r.status_code == 200:
            return table["id"], dict(r.json())
        assert time.monotonic() < deadline, r.text
        time.sleep(0.2)


def test_the_replay_of_a_partnership_game_shows_the_sides(
        context: Any, web_server: Any, partnership_game: tuple[int, dict[str, Any]]) -> None:
    table_id, record = partnership_game
    assert record["partners"] is True
    summary = replay_summary(estimation.load_record(record))
    sides = summary["sides"]
    page = w.open_app(context, web_server.base, f"#/replay/{table_id}")
    page.wait_for_selector("#rp-end")
    assert "Partners" in page.inner_text("h1")
    names = record["players"]
    # Before the first action: nothing scored, no places.
    shown = _sides_shown(page, "#rp-sides")
    assert [(shown[k]["total"], shown[k]["place"]) for k in (0, 1)] == [("0", ""), ("0", "")]
    assert f"({names[0]} + {names[2]})" in shown[0]["text"]
    assert f"({names[1]} + {names[3]})" in shown[1]["text"]
    chips = dict(page.eval_on_selector_all(".rseat[data-seat] .badge.side",
                                           "els => els.map(e => [Number(e.closest('.rseat').dataset.seat),"
                                           " e.textContent])"))
    assert chips == {0: "Side 1", 1: "Side 2", 2: "Side 1", 3: "Side 2"}
    # On to the second deal: the first round is scored, and each side has its two seats' scores of it.
    page.click("#rp-rnext")
    first = summary["rounds"][0]["scores"]
    shown = _sides_shown(page, "#rp-sides")
    assert [int(shown[k]["total"]) for k in (0, 1)] == [first[a] + first[b] for a, b in SIDES]
    # At the end: the sides' totals and places as `estimation replay --json` gives them.
    page.click("#rp-end")
    shown = _sides_shown(page, "#rp-sides")
    assert [int(shown[k]["total"]) for k in (0, 1)] == sides["totals"]
    assert [shown[k]["place"] for k in (0, 1)] == [f" · place {p}" for p in sides["places"]]
    sheet = w.sheet_from_dialog(page, ".replay-page")
    assert sheet["scores"] == [r["scores"] for r in summary["rounds"]]
    assert sheet["totals"] == summary["totals"]
    assert page.eval_on_selector_all(".replay-page table.sheet tfoot td.side-total",
                                     "els => els.map(e => Number(e.textContent))") == sides["totals"]
    assert "null" not in page.inner_text(".replay-page")
    assert not page.js_errors, page.js_errors
