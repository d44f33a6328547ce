"""The score calculator page (seed 004) scores in the browser exactly as `estimation score --json` does.

Rounds are typed into the page; each round's breakdown shown is compared with the CLI's for the same facts
(the multiplier the page carried after a Sa'aydeh is passed to the CLI). The rounds survive a reload.
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import web_helpers as w

FIELDS = ("base", "caller_with", "only", "risk", "dash_call", "dash")

# (page input, CLI arguments). Estimates on the page are per seat; the page works out the order.
ROUNDS: list[tuple[str, list[dict[str, Any]]]] = [
    ("koutchina", [
        {"kind": "call", "caller": 1, "number": 7, "dash": [0], "est": {2: 2, 3: 1}, "tricks": [1, 7, 4, 1],
         "cli": ["--call", "1:7", "--dash-call", "0", "--estimates", "2:2,3:1", "--tricks", "1,7,4,1"]},
        {"kind": "fixed", "dealer": 2, "est": {0: 3, 1: 8, 2: 0, 3: 4}, "tricks": [3, 7, 1, 2],
         "cli": ["--fixed", "--estimates", "3:4,0:3,1:8,2:0", "--tricks", "3,7,1,2"]},
        {"kind": "fixed", "dealer": 0, "est": {0: 5, 1: 5, 2: 5, 3: 5}, "tricks": [4, 3, 3, 3],
         "cli": ["--fixed", "--estimates", "1:5,2:5,3:5,0:5", "--tricks", "4,3,3,3"]},
        {"kind": "call", "caller": 2, "number": 5, "dash": [], "est": {3: 2, 0: 3, 1: 4},
         "tricks": [3, 3, 5, 2],
         "cli": ["--call", "2:5", "--estimates", "3:2,0:3,1:4", "--tricks", "3,3,5,2", "--multiplier", "2"]},
    ]),
    ("classic", [
        {"kind": "fixed", "dealer": 1, "est": {2: 8, 3: 2, 0: 0, 1: 1}, "tricks": [0, 3, 8, 2],
         "cli": ["--ruleset", "classic", "--fixed", "--estimates", "2:8,3:2,0:0,1:1", "--tricks", "0,3,8,2"]},
    ]),
    ("egyptian", [
        {"kind": "auction", "caller": 0, "number": 5, "dash": [3], "with": [2], "est": {2: 5, 1: 2},
         "tricks": [5, 2, 5, 1],
         "cli": ["--ruleset", "egyptian", "--kind", "auction", "--call", "0:5", "--with", "2", "--dash", "3",
                 "--estimates", "2:5,1:2", "--tricks", "5,2,5,1"]},
    ]),
]


def _cli(args: list[str]) -> list[dict[str, Any]]:
    out = subprocess.run([sys.executable, "-m", "estimation", "score", "--json", *args],
                         capture_output=True, text=True, check=True)
    return list(json.loads(out.stdout))


def _shown(page: Any, round_no: int) -> list[dict[str, int]]:
    rows = page.locator(f".calc-out table.breakdown[data-round='{round_no}'] tbody tr")
    out = []
    for s in range(4):
        row = rows.nth(s)

        def num(cls: str, row: Any = row) -> int:
            cell = row.locator(f"td.c-{cls}")
            if not cell.count():
                return 0
            text = cell.inner_text().strip()
            return 0 if text == "·" else int(text)

        out.append({**{f: num(f) for f in FIELDS}, "multiplier": num("mult"), "score": num("score"),
                    "estimate": int(row.locator("td").nth(1).inner_text())})
    return out


def _enter(page: Any, r: dict[str, Any]) -> None:
    page.select_option("#calc-kind", r["kind"])
    if "caller" in r:
        page.select_option("#calc-caller", str(r["caller"]))
        page.fill("#calc-number", str(r["number"]))
    if "dealer" in r:
        page.select_option("#calc-dealer", str(r["dealer"]))
    for s in r.get("dash", []):
        page.check(f"input.calc-dash[data-seat='{s}']")
    for s in r.get("with", []):
        page.check(f"input.calc-with[data-seat='{s}']")
    for s, e in r["est"].items():
        page.fill(f"#calc-est-{s}", str(e))
    for s, n in enumerate(r["tricks"]):
        page.fill(f"#calc-tricks-{s}", str(n))
    page.click("#calc-add")


def _new_game(page: Any) -> None:
    """New game; with rounds scored it asks first (test_web_replay_calc.py tests that): OK."""
    had_rounds = page.locator("#calc-undo").is_enabled()
    page.click("#calc-clear")
    if had_rounds:
        page.click("dialog#calc-new-dialog #calc-new-ok")


def test_calculator_matches_cli(context: Any, web_server: Any) -> None:
    page = w.open_app(context, web_server.base, "#/calc")
    page.wait_for_selector("#calc-form")
    number = 0
    for ruleset, rounds in ROUNDS:
        _new_game(page)
        page.select_option("#calc-ruleset", ruleset)
        for i, r in enumerate(rounds, 1):
            _enter(page, r)
            page.wait_for_selector(f".calc-out table.breakdown[data-round='{i}']")
            expected = _cli(r["cli"])
            shown = _shown(page, i)
            for s in range(4):
                want = {k: expected[s][k] for k in (*FIELDS, "multiplier", "score", "estimate")}
                assert shown[s] == want, (ruleset, i, s, shown[s], want)
            number += 1
    assert number == 6
    # The Sa'aydeh round (koutchina round 3) made the next x2: checked above through the CLI's --multiplier 2.
    # The last game is kept in the browser: a reload shows it again.
    page.reload()
    page.wait_for_selector(".calc-out table.breakdown[data-round='1']")
    assert page.input_value("#calc-ruleset") == "egyptian"

    # A round that cannot happen is refused with the rule, and nothing is added.
    _new_game(page)
    page.select_option("#calc-ruleset", "koutchina")  # a new game keeps the ruleset it had
    _enter(page, {"kind": "fixed", "dealer": 0, "est": {0: 3, 1: 3, 2: 3, 3: 4}, "tricks": [3, 3, 3, 4]})
    assert "13" in page.inner_text("#calc-error")
    assert not page.locator(".calc-out table.breakdown").count()
    assert not page.js_errors, page.js_errors




def test_a_multiplier_reads_times_first_in_arabic(context: Any, web_server: Any) -> None:
    """After a Sa'aydeh the calculator says the next round's multiplier: the sign (U+00D7), then 2, in that
    order on screen in Arabic too (bare, in a right-to-left sentence, the 2 is laid out first)."""
    page = w.open_app(context, web_server.base, "#/calc")
    page.wait_for_selector("#calc-form")
    _new_game(page)
    page.select_option("#calc-ruleset", "koutchina")
    for i, r in enumerate(ROUNDS[0][1][:3], 1):
        _enter(page, r)
        page.wait_for_selector(f".calc-out table.breakdown[data-round='{i}']")
    w.to_arabic(page)
    page.wait_for_selector("html[lang='ar'] #calc-next")
    for sel in ("#calc-next", ".calc-out .saaydeh"):
        assert w.TIMES in page.inner_text(sel), sel
        times, digit = page.evaluate(w.TIMES_AND_DIGIT, sel)
        assert times < digit, (sel, page.inner_text(sel), times, digit)
    assert not page.js_errors, page.js_errors
