"""Acting in the browser as a person would: only visible controls, clicks and keys."""

from __future__ import annotations

import re
from typing import Any

from conftest import PAUSE_MS

ACTIONABLE = ".hand button.card.legal, #estimate-picker button.est-btn:not([disabled])"


def open_app(context: Any, base: str, hash_: str = "#/") -> Any:
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.js_errors = errors
    page.goto(f"{base}/?pause={PAUSE_MS}{hash_}")
    return page


def sign_in_guest(page: Any, name: str) -> None:
    page.fill("#name", name)
    page.click("#guest-btn")
    page.wait_for_selector("#create-btn")


def create_table(page: Any, bots: int = 3, length: str = "micro") -> int:
    page.select_option("#ruleset", "koutchina")
    page.select_option("#length", length)
    page.select_option("#bots", str(bots))
    page.fill("#turn-seconds", "0")
    page.click("#create-btn")
    page.wait_for_url(re.compile(r"#/table/\d+"))
    return int(page.url.rsplit("/", 1)[1])


def settle(page: Any, timeout: float = 20_000) -> int:
    """Wait until the page shows its latest state (no trick animation queued); its shown version."""
    page.wait_for_selector(".table-page[data-busy='0'][data-version]:not([data-version=''])", timeout=timeout)
    return int(page.get_attribute(".table-page", "data-version"))


def close_dialogs(page: Any) -> None:
    for name in ("round-end", "last-trick", "sheet"):
        sel = f"#{name}[open] button.close"
        if page.locator(sel).count():
            page.click(sel)


def hand(page: Any) -> list[str]:
    return [c for c in page.eval_on_selector_all(".hand [data-card]", "els => els.map(e => e.dataset.card)")]


def legal_cards(page: Any) -> list[str]:
    return list(page.eval_on_selector_all(".hand button.card.legal", "els => els.map(e => e.dataset.card)"))


def trick(page: Any) -> list[str]:
    return list(page.eval_on_selector_all(".felt .trick [data-card]", "els => els.map(e => e.dataset.card)"))


def board(page: Any) -> list[dict[str, str]]:
    """The scoreboard as shown: per seat its estimate, tricks and total."""
    rows = page.locator(".scoreboard tbody tr")
    return [{"est": rows.nth(s).locator(".est").inner_text(), "won": rows.nth(s).locator(".won").inner_text(),
             "tot": rows.nth(s).locator(".tot").inner_text()} for s in range(4)]


def enabled_estimates(page: Any) -> list[int]:
    return [int(x) for x in page.eval_on_selector_all(
        "#estimate-picker button.est-btn:not([disabled])", "els => els.map(e => e.dataset.est)")]


def all_estimates(page: Any) -> list[int]:
    return [int(x) for x in page.eval_on_selector_all(
        "#estimate-picker button.est-btn", "els => els.map(e => e.dataset.est)")]


def sheet_from_dialog(page: Any, dialog: str) -> dict[str, Any]:
    """The score sheet table in a dialog: per round the four scores, and the totals."""
    cells = page.eval_on_selector_all(
        f"{dialog} table.sheet td.score",
        "els => els.map(e => [Number(e.dataset.round), Number(e.dataset.seat),"
        " e.querySelector('.pts').textContent])")
    rounds: dict[int, list[int]] = {}
    for r, s, pts in cells:
        rounds.setdefault(r, [0, 0, 0, 0])[s] = int(pts)
    totals = page.eval_on_selector_all(f"{dialog} table.sheet td.total",
                                       "els => els.map(e => Number(e.textContent))")
    return {"scores": [rounds[r] for r in sorted(rounds)], "totals": totals}
