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
    # The lobby offers strong bots by default (about a second a move): the tests' bots play at once.
    page.select_option("#bot-level", "random")
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


def act_once(page: Any) -> bool:
    """If the page offers something to click (an estimate, a legal card, a declaration), click the first;
    whether it did."""
    try:
        close_dialogs(page)
        est = page.locator("#estimate-picker button.est-btn:not([disabled])")
        if est.count():
            est.first.click(timeout=2000)
            return True
        card = page.locator(".hand button.card.legal")
        if card.count():
            card.first.click(timeout=2000)
            return True
        # Pass where the auction offers it: a number button alone only picks (an egyptian bid needs a
        # number, a suit and Bid), and a pass always moves the game on.
        passing = page.locator("#bid-panel #pass-btn:not([disabled])")
        if passing.count():
            passing.first.click(timeout=2000)
            return True
        panel = page.locator("#dash-panel button:not([disabled]), #bid-panel button:not([disabled]), "
                             "#declare-panel button:not([disabled])")
        if panel.count():
            panel.first.click(timeout=2000)
            return True
    except Exception:
        return False  # the page redrew under the pointer: try again on the next pass
    return False


def hand(page: Any) -> list[str]:
    return [c for c in page.eval_on_selector_all(".hand [data-card]", "els => els.map(e => e.dataset.card)")]


def legal_cards(page: Any) -> list[str]:
    return list(page.eval_on_selector_all(".hand button.card.legal", "els => els.map(e => e.dataset.card)"))


def trick(page: Any) -> list[str]:
    return list(page.eval_on_selector_all(".felt .trick [data-card]", "els => els.map(e => e.dataset.card)"))


def board(page: Any) -> list[dict[str, str]]:
    """The scoreboard as shown (a column per seat along the top): per seat its estimate, tricks and total."""
    cell = lambda row, s: page.inner_text(f"#scoreboard tr.{row} td[data-seat='{s}']")  # noqa: E731
    return [{"est": cell("r-est", s), "won": cell("r-won", s), "tot": cell("r-tot", s)} for s in range(4)]


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


# --- the new table (issue 18): declarations, several seats, the clock -----------------------------------
# Everything below acts through visible controls only (clicks, keys); it reads the DOM to decide what to
# click.

import time  # noqa: E402
from collections.abc import Iterator  # noqa: E402

import pytest  # noqa: E402
from server_helpers import ServerProcess  # noqa: E402

#: What a seat may click when it is its turn: a lifted card, an estimate, or a button of a declaration panel.
CAN_ACT = (ACTIONABLE + ", #dash-panel button:not([disabled]), #bid-panel button:not([disabled]),"
           " #declare-panel button:not([disabled])")
SUITS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}


def act_until(page: Any, done: str, timeout: float, can: str = ACTIONABLE, close_dialogs_first: bool = False,
              each: Any = None) -> None:
    """Click the first of ``can`` at each of our turns (a lifted card, an estimate; CAN_ACT adds the
    declaration panels' buttons) until ``done`` shows; ``each()`` is called at every look (to gather what
    the page shows on the way), and the table's dialogs are closed first if asked."""
    import contextlib

    deadline = time.monotonic() + timeout
    while not page.locator(done).count():
        assert time.monotonic() < deadline, f"{done} did not show in time"
        if close_dialogs_first:
            close_dialogs(page)
        if each is not None:
            each()
        acts = page.locator(can)
        if acts.count():
            with contextlib.suppress(Exception):  # redrawn under the mouse: look again
                acts.first.click(timeout=2000)
        else:
            page.wait_for_timeout(30)


def new_context(browser: Any, phone: bool = False, **kw: Any) -> Any:
    """A fresh browser context (its own storage: a separate person), desktop or phone sized."""
    size = {"width": 390, "height": 844} if phone else {"width": 1280, "height": 800}
    ctx = browser.new_context(viewport=size, reduced_motion=kw.pop("reduced_motion", "no-preference"), **kw)
    ctx.set_default_timeout(20_000)
    return ctx


def create_game(page: Any, ruleset: str = "koutchina", length: str | None = None, bots: int = 3,
                level: str = "heuristic", turn_seconds: int = 0, private: bool = False,
                stake: int = 0) -> int:
    """Fill the lobby's form as a person would and press Create; the table's id (the page is at the table)."""
    page.wait_for_selector("#create-btn")
    page.select_option("#ruleset", ruleset)
    if length is not None:
        page.select_option("#length", length)
    page.select_option("#bots", str(bots))
    page.select_option("#bot-level", level)
    page.fill("#turn-seconds", str(turn_seconds))
    if stake:
        page.fill("#stake", str(stake))
    if private:
        page.check("#private")
    page.click("#create-btn")
    page.wait_for_url(re.compile(r"#/table/\d+$"))
    return int(page.url.rsplit("/", 1)[1])


def join_from_lobby(page: Any, table_id: int) -> None:
    """From the lobby (fetched afresh), the table's Join button; waits until the page is at that table."""
    page.goto(page.url.split("#")[0] + "#/")
    page.wait_for_selector("#create-btn")
    page.click(f"#open-tables li[data-table='{table_id}'] button.join")
    page.wait_for_url(re.compile(rf"#/table/{table_id}$"))


def seated(pages: list[Any]) -> dict[int, Any]:
    """The pages by the seat each one shows (each must be seated)."""
    out = {}
    for p in pages:
        p.wait_for_selector(".table-page .bar")
        p.wait_for_selector(".table-page:not([data-seat=''])")
        out[int(p.get_attribute(".table-page", "data-seat"))] = p
    assert sorted(out) == list(range(len(pages))) or len(out) == len(pages), out
    return out


def my_turn(page: Any) -> bool:
    return bool(page.locator("#turn.mine").count())


def wait_mover(pages: dict[int, Any], timeout: float = 15.0) -> int:
    """The seat whose page says "Your turn" (pages are polled; one of them must)."""
    deadline = time.monotonic() + timeout
    while True:
        for s, p in pages.items():
            if my_turn(p):
                return s
        assert time.monotonic() < deadline, "no page says it is its turn"
        time.sleep(0.02)


def wait_my_turn(page: Any, timeout: float = 20_000) -> None:
    page.wait_for_selector("#turn.mine", timeout=timeout)


def version(page: Any) -> int:
    v = page.get_attribute(".table-page", "data-version")
    return int(v) if v else -1


def declaration_items(page: Any) -> list[tuple[int, str]]:
    """The declarations list as shown: (seat, text) for each item, oldest first."""
    return [(int(s), txt.strip()) for s, txt in page.eval_on_selector_all(
        "#declarations li[data-seat]", "els => els.map(e => [e.dataset.seat, e.textContent])")]


def trump_shown(page: Any) -> str:
    return str(page.get_attribute("#trump [data-trump]", "data-trump"))


def bar_round(page: Any) -> tuple[int, int]:
    """The round and the number of rounds from the bar ("Round 3 of 10", also in Arabic: the digits)."""
    nums = [int(x) for x in re.findall(r"\d+", page.inner_text(".bar .round"))]
    return nums[0], nums[1]


def badges(page: Any, seat: int) -> dict[str, str]:
    """The scoreboard's markers of one seat: class (without "badge") -> tooltip."""
    out = {}
    for cls, title in page.eval_on_selector_all(
            f"#scoreboard tr.r-marks td[data-seat='{seat}'] .badge",
            "els => els.map(e => [e.className, e.getAttribute('title')])"):
        for c in cls.split():
            if c != "badge":
                out[c] = title or ""
    return out


def enabled(page: Any, selector: str, attr: str) -> list[str]:
    """The attribute `attr` of every enabled element matching `selector`."""
    return list(page.eval_on_selector_all(
        f"{selector}:not([disabled])", f"els => els.map(e => e.getAttribute('{attr}'))"))


def pick_call(page: Any, number: int, suit: str, go: str = "#bid-btn") -> None:
    """The auction or declaration panel as seed 002 draws it: a number, a suit, then Bid (Call, Declare)."""
    page.click(f"#actions button.num[data-number='{number}']")
    page.click(f"#actions button.suit[data-suit='{suit}']")
    page.wait_for_selector(f"{go}:not([disabled])")
    page.click(go)


def play_first_legal(page: Any) -> str:
    card = page.locator(".hand button.card.legal").first
    code = str(card.get_attribute("data-card"))
    card.click()
    return code


def describe(action: str, players: list[str], ruleset: str) -> str:
    """The English sentence the table shows for a declaration (an oracle written apart from describe.js)."""
    seat, verb, *args = action.split()
    name = players[int(seat)]

    def call(c: str) -> str:
        m = re.fullmatch(r"(\d+)(NT|[SHDC])", c)
        assert m, c
        return f"{m[1]} NT" if m[2] == "NT" else f"{m[1]}{SUITS[m[2]]}"

    what = {
        "call": lambda: f"call {call(args[0])}", "bid": lambda: f"bid {call(args[0])}",
        "declare": lambda: f"declare {call(args[0])}", "with": lambda: "With", "pass": lambda: "Pass",
        "dashcall": lambda: "Dash Call", "dash": lambda: "Dash",
        "nodash": lambda: "No Dash" if ruleset == "egyptian" else "No Dash Call",
        "est": lambda: (f"estimate {args[0]}, Super Call "
                        f"{'No trump' if args[1] == 'NT' else SUITS[args[1]]}") if len(args) > 1
        else f"estimate {args[0]}",
    }[verb]()
    return f"{name}: {what}"


def record(base: str, table_id: int) -> dict[str, Any]:
    import httpx

    return dict(httpx.get(f"{base}/api/tables/{table_id}/record", timeout=30).json())


def last_deal_actions(base: str, table_id: int) -> list[str]:
    return list(record(base, table_id)["deals"][-1]["actions"])


def positions(page: Any) -> dict[int, str]:
    """Where each seat is drawn on the felt: seat -> bottom/right/top/left."""
    return {int(s): p for s, p in page.eval_on_selector_all(
        ".felt .seat[data-seat]", "els => els.map(e => [e.dataset.seat, e.dataset.pos])")}


def seat_centres(page: Any) -> dict[str, tuple[float, float]]:
    """The centre of each drawn seat (bottom/right/top/left), all four read in one script.

    One script reads them in one frame: the table redraws its seats as the bots move, and four separate
    bounding-box calls could each meet a different drawing (or none, between two).
    """
    found = page.wait_for_function(
        """() => {
            const at = {};
            for (const pos of ["bottom", "right", "top", "left"]) {
                const el = document.querySelector(`.felt .seat[data-pos='${pos}']`);
                if (!el) return null;
                const r = el.getBoundingClientRect();
                if (!r.width || !r.height) return null;
                at[pos] = [r.x + r.width / 2, r.y + r.height / 2];
            }
            return at;
        }""")
    return {p: (float(x), float(y)) for p, (x, y) in found.json_value().items()}


def check_counter_clockwise(page: Any) -> None:
    """Seat+1 of the viewer on the right, +2 opposite, +3 on the left: in the data and on the screen."""
    me = int(page.get_attribute(".table-page", "data-seat") or 0)
    pos = positions(page)
    assert pos == {me: "bottom", (me + 1) % 4: "right", (me + 2) % 4: "top", (me + 3) % 4: "left"}, pos
    at = seat_centres(page)
    assert at["right"][0] > at["bottom"][0] > at["left"][0], at
    assert at["top"][1] < at["right"][1] < at["bottom"][1], at
    assert at["top"][1] < at["left"][1] < at["bottom"][1], at


def sign_up(page: Any, name: str, password: str = "correct horse battery") -> None:
    """Create an account through the sign-in page's Create account button."""
    page.fill("#name", name)
    page.fill("#password", password)
    page.click("#register-btn")
    page.wait_for_selector("#create-btn")


def open_settings_motion(page: Any, value: str) -> None:
    """Settings → Reduce motion (auto / on / off), then close the dialog."""
    page.click("#settings-btn")
    page.wait_for_selector("#settings-dialog[open]")
    page.select_option("#set-motion", value)
    page.click("#settings-dialog button:has-text('Close')")
    page.wait_for_selector("#settings-dialog", state="detached")


def check_turn_honest(page: Any) -> None:
    """"Your turn" only when the page offers something to click (and not while it offers nothing)."""
    if my_turn(page):
        assert page.locator(CAN_ACT).count(), "'Your turn' with nothing to click"


def click_until_gone(page: Any, selector: str, gone: str, tries: int = 3, fallback: bool = False) -> int:
    """Click a control until `gone` is detached; how many clicks it took (0: only the fallback worked).

    For a control the page redraws many times a second (e.g. #back-btn while bots play for us): Playwright's
    click waits for the element to hold still, which it never does there, so the mouse is pressed and
    released where the control is on the screen, as a person's hand would. A round's scores dialog over it
    is closed first (Continue). Between tries the page is reloaded (a page that fell behind the bots shows
    the table as it is again). When every real click is lost (a redraw between press and release makes no
    click on the button) the test fails, unless `fallback`: then the page's `lost_clicks` notes it and a
    click event is sent to the button itself, so that a test about something else can go on."""
    for i in range(1, tries + 1):
        try:
            for close in page.locator("dialog.table-dialog[open] button.close").all():
                close.click(force=True, timeout=1000)
            # Where it is, found and measured in one go (it may be replaced a moment later, by its twin).
            x, y = page.evaluate("s => { const r = document.querySelector(s).getBoundingClientRect();"
                                 " return [r.x + r.width / 2, r.y + r.height / 2]; }", selector)
            page.mouse.click(x, y)
        except Exception:
            pass
        try:
            page.wait_for_selector(gone, state="detached", timeout=1500)
            return i
        except Exception:
            page.reload()
            page.wait_for_selector(".table-page .bar")
            if not page.locator(gone).count():
                return i
    where = page.inner_text(".bar .round") if page.locator(".bar .round").count() else "?"
    lost = f"{tries} mouse clicks on {selector} (page reloaded between them) left {gone} there ({where})"
    assert fallback, lost
    if not hasattr(page, "lost_clicks"):
        page.lost_clicks = []
    page.lost_clicks.append(lost)
    for _ in range(5):
        page.dispatch_event(selector, "click")
        try:
            page.wait_for_selector(gone, state="detached", timeout=1500)
            return 0
        except Exception:
            continue
    raise AssertionError(f"{lost}; even a click event on it did not")


def come_back_at(page: Any, target: int, poll: float = 0.8, limit: float = 120.0,
                 fallback: bool = False) -> int:
    """Away (a bot plays for us): look at the table afresh (reload) until it is at round `target` or later,
    then click I'm back; the round we came back in."""
    deadline = time.monotonic() + limit
    while True:
        assert time.monotonic() < deadline, f"round {target} not reached"
        page.reload()
        page.wait_for_selector(".table-page .bar .round")
        r = bar_round(page)[0]
        if r >= target and page.locator("#away-note").count():
            click_until_gone(page, "#back-btn", "#away-note", fallback=fallback)
            return r
        page.wait_for_timeout(poll * 1000)


#: The bots' pause at the paced server: a page keeps up with bots this fast (the shared server's bots never
#: wait, and a page drawing every one of their moves falls seconds behind, its clicks waiting behind it).
PACED_BOT_DELAY = "0.015"


@pytest.fixture(scope="session")
def paced_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """A second server for the tests where bots play for us for many rounds (the clock ran out): its bots
    pause a little before each move. Imported by the test modules that use it; started once."""
    path = tmp_path_factory.mktemp("pacedb") / "estimation.db"
    proc = ServerProcess(f"sqlite+aiosqlite:///{path}", name="paced",
                         env={"ESTIMATION_BOT_DELAY": PACED_BOT_DELAY})
    proc.start()
    try:
        yield proc
    finally:
        proc.stop()


def wait_version_above(page: Any, version: int, timeout: float = 10.0) -> int:
    """Wait until the page shows a version after `version` (polled from here: the page's CSP forbids the
    string evaluation behind Playwright's wait_for_function); the version shown."""
    deadline = time.monotonic() + timeout
    while True:
        v = page.get_attribute(".table-page", "data-version")
        if v and int(v) > version:
            return int(v)
        assert time.monotonic() < deadline, f"the page stayed at version {v} (waiting for > {version})"
        time.sleep(0.02)


# --- the page's language: Arabic, and numbers read left to right in it -------------------------------
def to_arabic(page: Any) -> None:
    page.click("#lang-toggle")
    page.wait_for_selector("html[lang='ar']")


#: Where a signed number's sign is drawn against its first digit, for every one inside `sel`; and a hint's
#: "tricks: chance" pair, the tricks against the chance. [text, sign left of digit] per number found.
SIGNS_JS = """sel => {
  const out = [];
  const rect = (n, i) => { const r = document.createRange(); r.setStart(n, i); r.setEnd(n, i + 1);
                           return r.getBoundingClientRect(); };
  for (const root of document.querySelectorAll(sel)) {
    const walk = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let n; (n = walk.nextNode());) {
      let m = /[-+]\\d/.exec(n.data);
      if (m) out.push([n.data, rect(n, m.index).right <= rect(n, m.index + 1).left + 1]);
      m = /^(\\d+): (\\d+)%$/.exec(n.data);
      if (m) out.push([n.data, rect(n, 0).right <= rect(n, n.data.indexOf(" ") + 1).left + 1]);
    }
  }
  return out;
}"""


def signs(page: Any, sel: str) -> list[tuple[str, bool]]:
    return [(text, ok) for text, ok in page.evaluate(SIGNS_JS, sel)]


#: The multiplication sign; the left edges of its first one and of the digit after it in an element's text,
#: as laid out on screen.
TIMES = "\u00d7"
TIMES_AND_DIGIT = """(sel) => {
  const el = document.querySelector(sel);
  const walk = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  const chars = [];
  for (let n = walk.nextNode(); n; n = walk.nextNode()) {
    for (let i = 0; i < n.data.length; i++) chars.push([n, i]);
  }
  const at = chars.findIndex(([n, i]) => n.data[i] === "\\u00d7");
  const left = ([n, i]) => { const r = document.createRange(); r.setStart(n, i); r.setEnd(n, i + 1);
    return r.getBoundingClientRect().left; };
  const digit = chars.slice(at + 1).find(([n, i]) => /[0-9]/.test(n.data[i]));
  return [left(chars[at]), left(digit)];
}"""
