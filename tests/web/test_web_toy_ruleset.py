"""The made-up fourth ruleset of tests/test_toy_ruleset.py, in the browser: a ruleset is one module.

A server that registers the class (tests/web/serve_with_toy.py) is all it takes: the lobby lists it by its
own name, a person plays it to the end against the server's bots, the table's marker tooltips are the
toy's own words (no other ruleset's), and the profile and the leaderboards show it, in English and Arabic.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import web_helpers as w
from server_helpers import ServerProcess

TESTS = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(TESTS))

from test_toy_ruleset import Toy  # noqa: E402

from estimation.rulesets import RULESETS  # noqa: E402


@pytest.fixture(scope="module")
def toy_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    path = tmp_path_factory.mktemp("toydb") / "estimation.db"
    reach = os.pathsep.join(p for p in (str(TESTS), os.environ.get("PYTHONPATH", "")) if p)
    proc = ServerProcess(f"sqlite+aiosqlite:///{path}", name="toy", env={"PYTHONPATH": reach},
                         command=[sys.executable, str(Path(__file__).with_name("serve_with_toy.py"))])
    proc.start()
    try:
        yield proc
    finally:
        proc.stop()


def _titles(page: Any) -> set[str]:
    """Every tooltip the felt and the scoreboard show now (the markers' chips, the dealer's chip)."""
    return set(page.eval_on_selector_all(".table-page [title]", "els => els.map(e => e.title)"))


def test_a_fourth_ruleset_is_listed_played_and_shown_in_its_own_words(toy_server: ServerProcess,
                                                                       context: Any) -> None:
    assert "toy" not in RULESETS  # registered in the server's process only, not by this test
    page = w.open_app(context, toy_server.base)
    w.sign_up(page, "Tess")
    options = page.eval_on_selector_all("#ruleset option", "els => els.map(e => [e.value, e.textContent])")
    assert ["toy", "Toy"] in options, options
    w.create_game(page, "toy", "short", bots=3, level="random")
    page.wait_for_selector(".felt .dealer-chip")
    seen: set[str] = set()
    # Every button our turns offer (the Dash offer's too), gathering the tooltips shown on the way.
    w.act_until(page, "#match-end[open]", 120.0, can=w.CAN_ACT, close_dialogs_first=True,
                each=lambda: seen.update(_titles(page)))
    mine = set(Toy.marker_tips["en"].values())
    others = {tip for name in RULESETS for tip in RULESETS[name].marker_tips["en"].values()} - mine
    assert {Toy.marker_tips["en"]["dealer"], Toy.marker_tips["en"]["caller"]} <= seen, seen
    assert not seen & others, seen & others  # no other ruleset's words at the toy's table
    assert not page.js_errors, page.js_errors

    # Arabic: the toy's name in the lobby's form is its own; it has no Arabic tooltips, so English ones.
    page.click("#lang-toggle")
    page.wait_for_selector("html[lang='ar']")
    assert Toy.marker_tips["en"]["dealer"] in _titles(page)
    page.goto(page.url.split("#")[0] + "#/")
    page.wait_for_selector("#ruleset option[value='toy']", state="attached")
    assert page.inner_text("#ruleset option[value='toy']") == "لعبة"

    # The profile: its games by ruleset list the toy (by its name, linking to its leaderboard).
    page.click("#my-profile-link")
    page.wait_for_selector("#profile-rulesets tr[data-ruleset='toy']")
    row = page.inner_text("#profile-rulesets tr[data-ruleset='toy']")
    assert "لعبة" in row and "1" in row, row
    page.click("#profile-rulesets tr[data-ruleset='toy'] a.lb-link")
    page.wait_for_selector("#lb-rs-toy[aria-current='page']")
    assert page.inner_text("#lb-rs-toy") == "لعبة"
    assert "لعبة" in page.inner_text("#leaderboard h1")
    assert not page.js_errors, page.js_errors
