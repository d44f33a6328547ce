"""The replay page and the score calculator, driven in chromium through their visible controls.

Replay: every action of two finished games (a koutchina mini game and an egyptian match ended by a leaver)
is stepped through with the keyboard; at each step the sentence shown is the one the action means
("Ann: call 7♠", never "1 call 7S"; an egyptian Dash is never a Dash Call), the trump shown is the engine's
trump in force, and no "null" is printed. The scores shown are the engine's. The step buttons use glyphs every
font has and are named for screen readers; seat+1 sits on the viewer's right (RULES.md) in both languages.

Calculator: names typed and tabbed through all stay; "New game" asks first (Cancel keeps the rounds).
Lobby: the average score has one decimal.
"""

from __future__ import annotations

import copy
import random
import re
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest
import web_helpers as w
from server_helpers import Api, Player, run

import estimation
from estimation import replay_summary

SUIT = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
ANN_PASSWORD = "correct horse battery"


def _call(text: str) -> str:
    number, trump = re.fullmatch(r"(\d+)(NT|[SHDC])", text).groups()  # type: ignore[union-attr]
    return f"{number} NT" if trump == "NT" else f"{number}{SUIT[trump]}"


def _trump(text: str | None) -> str:
    return "?" if text is None else "No trump" if text == "NT" else SUIT[text]


def described(action: str, players: Sequence[str], ruleset: str) -> str:
    """What the page should say for one record action (the English strings, written out independently)."""
    seat, verb, *args = action.split()
    egyptian = ruleset == "egyptian"
    what = {
        "with": "With", "pass": "Pass", "dashcall": "Dash Call", "dash": "Dash",
        "nodash": "No Dash" if egyptian else "No Dash Call",
    }.get(verb)
    if verb == "play":
        card = args[0]
        what = f"play {'10' if card[0] == 'T' else card[0]}{SUIT[card[1]]}"
    elif verb in ("call", "bid", "declare"):
        what = f"{verb} {_call(args[0])}"
    elif verb == "est":
        what = f"estimate {args[0]}" + (f", Super Call {_trump(args[1])}" if len(args) > 1 else "")
    assert what is not None, action
    return f"{players[int(seat)]}: {what}"


class _Chooser:
    """An rng for Player.play_to_end that takes the egyptian Dash, declines it, bids With, then passes (once
    each), and else plays at random: the record is then sure to hold every verb the replay must describe."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.done: set[str] = set()

    def choice(self, legal: Sequence[str]) -> str:
        for verb in ("dash", "nodash", "with", "pass"):
            pick = next((a for a in legal if a.split()[1] == verb), None)
            if verb == "pass" and "with" not in self.done:
                continue  # a pass is final: only once the With is in the record
            if pick is not None and verb not in self.done:
                self.done.add(verb)
                return pick
        if "with" not in self.done:  # stay in the auction (a pass is final) until a With comes up
            legal = [a for a in legal if a.split()[1] != "pass"] or list(legal)
        return self.rng.choice(list(legal))


def _record_when_finished(base: str, table_id: int, timeout: float = 90) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        r = httpx.get(f"{base}/api/tables/{table_id}/record")
        if r.status_code == 200:
            return dict(r.json())
        assert time.monotonic() < deadline, f"table {table_id} did not finish: {r.status_code} {r.text}"
        time.sleep(0.2)


@pytest.fixture(scope="module")
def games(web_server: Any) -> dict[str, Any]:
    """Two finished games, made through the server as players would (the setup, not what is tested)."""
    # koutchina mini: Ann (an account, so that she can sign in again later) sits with three bots and leaves
    # at once; a bot plays her seat and the bots play the game out.
    ann = Api.register(web_server, f"Ann{random.randrange(10**6)}", ANN_PASSWORD)
    kt = ann.create_table(ruleset="koutchina", length="mini", bot_seats=[0, 2, 3], bot_level="random")
    ann.join(kt["id"])
    ann.ok(ann.post(f"/api/tables/{kt['id']}/leave"))
    # egyptian: the guest plays until a Dash, a No Dash, a With and a pass of theirs are in, then leaves:
    # that ends an egyptian match (ruling 9), so the record ends with "ended".
    zed = Api.guest(web_server, "Zed")
    et = zed.create_table(ruleset="egyptian", length="standard", bot_seats=[0, 2, 3], bot_level="random")
    zed.join(et["id"])

    async def play() -> None:
        p = Player(web_server, et["id"], zed.token)
        await p.connect()
        chooser = _Chooser(11)
        made = 0
        while len(chooser.done) < 4 or made < 30:
            assert made < 300, chooser.done
            made += await p.play_to_end(chooser, stop_after=10, timeout=90)  # type: ignore[arg-type]
        await p.close()

    # Playwright's sync API keeps an event loop running in this thread: the WebSocket client runs in another.
    with ThreadPoolExecutor(1) as pool:
        pool.submit(run, play()).result()
    zed.ok(zed.post(f"/api/tables/{et['id']}/leave"))
    return {"koutchina": (kt["id"], _record_when_finished(web_server.base, kt["id"])),
            "egyptian": (et["id"], _record_when_finished(web_server.base, et["id"])), "ann": ann}


def _engine_trumps(record: dict[str, Any], deal_index: int) -> list[str | None]:
    """The trump a spectator's view shows after the first k actions of one deal (k = 0..), from the engine."""
    part = copy.deepcopy(record)
    part.pop("ended", None)
    part["deals"] = part["deals"][: deal_index + 1]
    actions = part["deals"][-1]["actions"]
    part["deals"][-1]["actions"] = []
    game = estimation.load_record(part)
    trumps = [game.view(None)["trump"]]
    for action in actions:
        game.apply(action)
        trumps.append(game.view(None)["trump"])
    return trumps


#: Card plays stepped through at the start of each deal's play; the rest of the deal is skipped with the
#: next-round button (every step re-draws the whole table, some 40 ms here, and plays are all alike).
PLAYS_CHECKED = 5


def _check_step(page: Any, record: dict[str, Any], deal: dict[str, Any], k: int,
                trumps: list[str | None]) -> str:
    """The step showing the deal's first k actions: the sentence and the trump; the verb."""
    action = deal["actions"][k - 1]
    said, trump = page.eval_on_selector(
        ".bar", "bar => [bar.querySelector('#last-action').textContent, "
                "bar.querySelector('#rp-trump').textContent]")
    assert said == described(action, record["players"], record["ruleset"]), (deal["round"], k, action, said)
    assert not re.search(r"\b[0-3] [a-z]+\b", said), said  # never the record's own notation
    if record["ruleset"] == "egyptian":
        assert "Dash Call" not in said
    # On a deal's last action the engine has moved on to the next deal; the page stays on the deal shown.
    if k < len(deal["actions"]):
        assert trump == f"Trump: {_trump(trumps[k])}", (deal["round"], k, action, trump)
    return str(action.split()[1])


def _step_through(page: Any, record: dict[str, Any]) -> set[str]:
    """Every deal's declarations and first plays, stepped with the keyboard; the verbs seen."""
    page.click("#rp-start")
    assert page.inner_text("#step-n").startswith("Action 0 ")
    assert "null" not in page.inner_text(".replay-page")
    total = sum(len(d["actions"]) for d in record["deals"])
    verbs = set()
    before = 0
    for d, deal in enumerate(record["deals"]):
        trumps = _engine_trumps(record, d)
        if d == 0:
            page.keyboard.press("ArrowRight")
        else:
            page.click("#rp-rnext")  # lands on the next deal's first action
        assert page.inner_text("#step-n") == f"Action {before + 1} of {total}"
        actions = deal["actions"]
        first_play = next((i for i, a in enumerate(actions) if a.split()[1] == "play"), len(actions))
        last = min(len(actions), first_play + PLAYS_CHECKED)
        for k in range(1, last + 1):
            if k > 1:
                page.keyboard.press("ArrowRight")
            verbs.add(_check_step(page, record, deal, k, trumps))
        assert "null" not in page.inner_text(".replay-page"), deal["round"]
        before += len(actions)
    page.click("#rp-end")
    assert page.inner_text("#step-n") == f"Action {total} of {total}"
    return verbs


def test_replay_describes_every_action_and_shows_the_trump_in_force(
        context: Any, web_server: Any, games: dict[str, Any]) -> None:
    koutchina = {"dashcall", "nodash", "call", "pass", "est", "play"}
    egyptian = {"dash", "nodash", "bid", "with", "pass", "declare", "est", "play"}
    for ruleset, required in (("koutchina", koutchina), ("egyptian", egyptian)):
        table_id, record = games[ruleset]
        page = w.open_app(context, web_server.base, f"#/replay/{table_id}")
        page.wait_for_selector("#rp-end")
        verbs = _step_through(page, record)
        assert required <= verbs, (ruleset, verbs)
        # At the end the sheet is the engine's.
        summary = replay_summary(estimation.load_record(record))
        page.click("#rp-end")
        sheet = w.sheet_from_dialog(page, ".replay-page")
        assert sheet["scores"] == [r["scores"] for r in summary["rounds"]]
        assert sheet["totals"] == summary["totals"]
        assert "null" not in page.inner_text(".replay-page")
        assert not page.js_errors, page.js_errors
        page.close()


#: Characters the step buttons may use: letters, spaces and the angle quotes every text font has (U+00AB,
#: U+00BB, U+2039, U+203A), not U+23EE/U+23ED (the media "skip" symbols), which common fonts lack and
#: chromium drew as empty boxes.
_SAFE = re.compile(r"^[\w \u00ab\u00bb\u2039\u203a\u0600-\u06ff]+$")


def test_replay_controls_and_seats(context: Any, web_server: Any, games: dict[str, Any]) -> None:
    table_id, _ = games["koutchina"]
    page = w.open_app(context, web_server.base, f"#/replay/{table_id}")
    page.wait_for_selector("#rp-end")
    for lang in ("en", "ar"):
        if lang == "ar":
            page.click("#lang-toggle")
            page.wait_for_selector("html[dir='rtl'] #rp-end")
        for bid in ("rp-start", "rp-rprev", "rp-back", "rp-next", "rp-rnext", "rp-end"):
            button = page.locator(f"#{bid}")
            assert _SAFE.match(button.inner_text()), (lang, bid, button.inner_text())
            assert button.get_attribute("aria-label"), (lang, bid)
        # Seat+1 on the viewer's right, seat+3 on the left, seat+2 opposite, in both directions of writing.
        box = [page.locator(f".rseat[data-seat='{s}']").bounding_box() for s in range(4)]
        centre = [(b["x"] + b["width"] / 2, b["y"] + b["height"] / 2) for b in box]
        assert centre[1][0] > centre[0][0] > centre[3][0], (lang, centre)
        assert centre[2][1] < centre[0][1], (lang, centre)
        # The bots (seats 0, 2, 3) are named in the page's language; Ann, who left, keeps her name.
        plates = page.eval_on_selector_all(".rseat[data-seat] .nameplate",
                                           "els => els.map(e => e.textContent)")
        bot = "Bot" if lang == "en" else "روبوت"
        is_bot = [p.startswith(f"{bot} {s + 1}") for s, p in enumerate(plates)]
        assert is_bot == [True, False, True, True], plates
        assert plates[1].startswith("Ann"), plates
        # The heading names the ruleset and the length in the page's language.
        heading = page.inner_text(".replay-page h1")
        assert heading.endswith("Koutchina · mini" if lang == "en" else "كوتشينة · قصيرة"), heading
        page.screenshot(path=f"/tmp/replay-{lang}.png")
    # The buttons work by click too: a round forward, then back to the start.
    page.click("#rp-rnext")
    assert not page.inner_text("#step-n").startswith("الحركة 0 ")
    page.click("#rp-start")
    assert page.inner_text("#step-n").startswith("الحركة 0 ")
    assert "null" not in page.inner_text(".replay-page")
    assert not page.js_errors, page.js_errors


def _type_names(page: Any, names: Sequence[str]) -> None:
    """Type each name and Tab to the next box, as a person fills a form."""
    page.click("#calc-name-0")
    page.keyboard.press("Control+A")
    for i, name in enumerate(names):
        if i:
            page.keyboard.press("Tab")
        page.keyboard.type(name)
    page.keyboard.press("Tab")


def test_calculator_keeps_names_typed_with_tab(context: Any, web_server: Any) -> None:
    page = w.open_app(context, web_server.base, "#/calc")
    page.wait_for_selector("#calc-form")
    names = ["Ann", "Ben", "Cy", "Di"]
    _type_names(page, names)
    assert [page.input_value(f"#calc-name-{s}") for s in range(4)] == names
    # The names are used as they are typed: the Caller list, the estimating order.
    options = page.locator("#calc-caller option").all_inner_texts()
    assert options == names
    assert "Ben → Cy → Di" in page.inner_text(".calc-form")
    page.reload()
    page.wait_for_selector("#calc-form")
    assert [page.input_value(f"#calc-name-{s}") for s in range(4)] == names
    # Changing the round kind with the keyboard keeps the keyboard where it was.
    page.focus("#calc-kind")
    page.keyboard.press("ArrowDown")
    page.wait_for_selector("#calc-dealer")
    assert page.locator("#calc-kind:focus").count() == 1
    page.screenshot(path="/tmp/calc-names.png")
    assert not page.js_errors, page.js_errors


def _score_a_round(page: Any) -> None:
    page.select_option("#calc-kind", "call")
    page.select_option("#calc-caller", "0")
    page.fill("#calc-number", "5")
    for s, e in ((1, 2), (2, 3), (3, 1)):
        page.fill(f"#calc-est-{s}", str(e))
    for s, n in enumerate((5, 2, 3, 3)):
        page.fill(f"#calc-tricks-{s}", str(n))
    page.click("#calc-add")
    page.wait_for_selector(".calc-out table.breakdown")


def test_calculator_new_game_asks_first(context: Any, web_server: Any) -> None:
    page = w.open_app(context, web_server.base, "#/calc")
    page.wait_for_selector("#calc-form")
    _type_names(page, ["Ann", "Ben", "Cy", "Di"])
    _score_a_round(page)
    # Cancel keeps every round.
    page.click("#calc-clear")
    dialog = page.locator("dialog#calc-new-dialog[open]")
    dialog.wait_for()
    assert dialog.locator("#calc-new-cancel").is_visible() and dialog.locator("#calc-new-ok").is_visible()
    assert "1" in dialog.inner_text()
    page.screenshot(path="/tmp/calc-new-game.png")
    page.click("#calc-new-cancel")
    # The dialog's close event is queued as a task: wait for its removal, not a fixed time.
    page.locator("dialog#calc-new-dialog").wait_for(state="detached")
    assert page.locator(".calc-out table.breakdown").count() == 1
    # Escape is a Cancel too.
    page.click("#calc-clear")
    dialog.wait_for()
    page.keyboard.press("Escape")
    page.locator("dialog#calc-new-dialog").wait_for(state="detached")
    assert page.locator(".calc-out table.breakdown").count() == 1
    # OK clears the rounds; the names stay for the next game.
    page.click("#calc-clear")
    page.click("dialog#calc-new-dialog #calc-new-ok")
    page.locator(".calc-out table.breakdown").wait_for(state="detached")
    assert page.locator("#calc-undo").is_disabled()
    assert [page.input_value(f"#calc-name-{s}") for s in range(4)] == ["Ann", "Ben", "Cy", "Di"]
    # With nothing scored there is nothing to lose: no question.
    page.click("#calc-clear")
    page.wait_for_timeout(200)
    assert not page.locator("dialog#calc-new-dialog").count()
    assert not page.js_errors, page.js_errors


def test_lobby_average_score_has_one_decimal(context: Any, web_server: Any, games: dict[str, Any]) -> None:
    """Ann (the koutchina game's player) has a finished game: the lobby shows her average as the API has it,
    to one decimal (the API keeps two; an integer average showed as "12" and others as "12.33")."""
    ann: Api = games["ann"]
    stats = ann.ok(ann.get(f"/api/players/{ann.id}/stats"))
    assert stats["games"] >= 1
    page = w.open_app(context, web_server.base)
    page.fill("#name", ann.account["name"])
    page.fill("#password", ANN_PASSWORD)
    page.click("#signin-btn")
    page.wait_for_selector("dl.stats")
    shown = page.locator("dl.stats dd").nth(2).inner_text()
    assert shown == f"{stats['average_score']:.1f}", (shown, stats)
    assert not page.js_errors, page.js_errors
    # Her finished games, in the lobby and on her profile, say what they played in the page's language.
    w.to_arabic(page)
    row = page.locator(f"#my-games li[data-table='{games['koutchina'][0]}']")
    row.wait_for()
    assert "كوتشينة · قصيرة" in row.inner_text() and "koutchina" not in row.inner_text(), row.inner_text()
    page.goto(f"{web_server.base}/#/player/{ann.id}")
    cell = page.locator(f"#recent-games tr[data-table='{games['koutchina'][0]}'] td").nth(2)
    cell.wait_for()
    assert cell.inner_text() == "كوتشينة · قصيرة", cell.inner_text()
    assert not page.js_errors, page.js_errors
