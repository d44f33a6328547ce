"""The staked pot screen, seen by a browser that was never at the table (another device, a spectator).

A staker's leaving ends an ``egyptian`` match (ruling 9) and forfeits the stake (ruling 11), so the pot goes
to the other staker. The pot split reaches the page in the table's public facts, not only in the ``over``
event, so a fresh browser context (nothing in its storage) shows each staker's coins in the match-end dialog.
"""

from __future__ import annotations

import time
from typing import Any

import web_helpers as w
from server_helpers import Api


def _finished(api: Api, table_id: int) -> dict[str, Any]:
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        table = api.ok(api.get(f"/api/tables/{table_id}"))
        if table["status"] == "finished":
            return dict(table)
        time.sleep(0.05)
    raise AssertionError(f"table {table_id} did not finish")


def test_pot_split_shows_after_the_end_on_a_fresh_browser(context: Any, web_server: Any) -> None:
    a, b = Api.register(web_server), Api.register(web_server)
    table_id = a.create_table(ruleset="egyptian", stake=10, bot_seats=[2, 3], turn_seconds=0)["id"]
    a.join(table_id, seat=0, stake=True)
    b.join(table_id, seat=1, stake=True)
    b.ok(b.post(f"/api/tables/{table_id}/leave"))
    table = _finished(a, table_id)
    assert table["payout"] == {"0": 20, "1": 0}

    page = w.open_app(context, web_server.base)
    w.sign_in_guest(page, "Watcher")
    page.goto(f"{web_server.base}/?pause=40#/table/{table_id}")
    page.wait_for_selector("#match-end[open]")
    rows = page.eval_on_selector_all(
        "#match-end .places li", "els => Object.fromEntries(els.map(e => [e.dataset.seat, e.innerText]))")
    assert "Pot split: 20" in rows["0"], rows
    assert "Pot split: 0" in rows["1"], rows
    assert not any("Pot split" in rows[s] for s in ("2", "3")), rows  # bots never stake
    assert "Pot: 20" in page.inner_text("#match-end")
    assert not page.js_errors, page.js_errors
