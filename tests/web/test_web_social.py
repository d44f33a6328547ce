"""Players together in the browser (issue 19): the live lobby, quick play, profiles, leaderboards and the
account page, in Debian's chromium on real servers, through visible controls only (clicks and keys).

Games are seeded through the REST API: an account sits at a micro table with three bots and a one-second
turn clock and never acts, so the clock marks it away and bots play its seat to the end; the game is a real
one with a real outcome, in about a second and a half. The quick-play wait and the leaderboards need a server
of their own (`social_server`: a 3-second wait, and nobody else's games in the rankings).

Screenshots of every page, desktop and phone, English and Arabic, go to $ESTIMATION_SCREENSHOTS when set,
else to /tmp/social-shots.
"""

from __future__ import annotations

import io
import json
import math
import os
import random
import re
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from conftest import PAUSE_MS
from server_helpers import Api, ServerProcess

XSS = "<img src=x onerror=alert(1)>"
ROOT = Path(__file__).resolve().parents[2]
QUICK_WAIT = 3.0
SIZES = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}


@pytest.fixture(scope="module")
def social_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    path = tmp_path_factory.mktemp("socialdb") / "estimation.db"
    proc = ServerProcess(f"sqlite+aiosqlite:///{path}", name="social",
                         env={"ESTIMATION_QUICKPLAY_WAIT_SECONDS": str(QUICK_WAIT)})
    proc.start()
    try:
        yield proc
    finally:
        proc.stop()


# --- helpers (acting as a person in the page; seeding through REST) -------------------------------------
def person(browser: Any, phone: bool = False) -> Any:
    size = SIZES["phone" if phone else "desktop"]
    ctx = browser.new_context(viewport=size, reduced_motion="no-preference")
    ctx.set_default_timeout(20_000)
    return ctx


def open_page(ctx: Any, base: str, hash_: str = "#/", query: str = "") -> Any:
    """A page that records script errors and any alert/confirm/prompt (none may ever open)."""
    page = ctx.new_page()
    page.js_errors = []
    page.dialogs = []
    page.on("pageerror", lambda e: page.js_errors.append(str(e)))
    page.on("dialog", lambda d: (page.dialogs.append(d.message), d.dismiss()))
    page.goto(f"{base}/?pause={PAUSE_MS}{query}{hash_}")
    return page


def sign_up(page: Any, name: str, password: str = "correct horse battery") -> None:
    page.fill("#name", name)
    page.fill("#password", password)
    page.click("#register-btn")
    page.wait_for_selector("#create-btn")


def sign_in(page: Any, name: str, password: str) -> None:
    page.fill("#name", name)
    page.fill("#password", password)
    page.click("#signin-btn")
    page.wait_for_selector("#create-btn")


def guest(page: Any, name: str) -> None:
    page.fill("#name", name)
    page.click("#guest-btn")
    page.wait_for_selector("#create-btn")


def session_of(ctx: Any) -> dict[str, Any]:
    """The session the page keeps in localStorage (read from outside the page, as the browser stores it)."""
    for origin in ctx.storage_state()["origins"]:
        for item in origin["localStorage"]:
            if item["name"] == "est.session":
                return dict(json.loads(item["value"]))
    raise AssertionError("not signed in")


def local_item(ctx: Any, name: str) -> str | None:
    for origin in ctx.storage_state()["origins"]:
        for item in origin["localStorage"]:
            if item["name"] == name:
                return str(item["value"])
    return None


def api_of(server: ServerProcess, ctx: Any) -> Api:
    s = session_of(ctx)
    return Api(server, s["token"], s["account"])


def create_in_lobby(page: Any, bots: int, stake: int = 0) -> int:
    page.wait_for_selector("#create-btn")
    page.select_option("#ruleset", "koutchina")
    page.select_option("#length", "micro")
    page.select_option("#bots", str(bots))
    page.select_option("#bot-level", "random")
    page.fill("#turn-seconds", "0")
    if stake:
        page.fill("#stake", str(stake))
    page.click("#create-btn")
    page.wait_for_url(re.compile(r"#/table/\d+$"))
    return int(page.url.rsplit("/", 1)[1])


def finish_games(api: Api, n: int, ruleset: str = "koutchina", length: str = "micro") -> list[int]:
    """n finished games for this account (a seat left to the clock and bots), oldest first."""
    tables = []
    for _ in range(n):
        tid = api.create_table(ruleset=ruleset, length=length, bot_seats=[1, 2, 3], bot_level="random",
                               turn_seconds=1)["id"]
        api.join(tid, seat=0)
        deadline = time.monotonic() + 90
        while api.ok(api.get(f"/api/tables/{tid}"))["status"] != "finished":
            assert time.monotonic() < deadline, f"table {tid} did not finish"
            time.sleep(0.15)
        tables.append(tid)
    return tables


def texts(page: Any, selector: str) -> list[str]:
    return [t.strip() for t in page.locator(selector).all_inner_texts()]


def goto(page: Any, hash_: str) -> None:
    page.goto(page.url.split("#")[0] + hash_)


def no_scripts_ran(*pages: Any) -> None:
    for p in pages:
        assert not p.dialogs, p.dialogs
        assert not p.js_errors, p.js_errors


def shoot(page: Any, name: str) -> None:
    """Desktop and phone, English and Arabic (switched with the header's button; Arabic is right to left)."""
    from PIL import Image

    target = os.environ.get("ESTIMATION_SCREENSHOTS")
    out = ROOT / target if target else Path("/tmp/social-shots")
    out.mkdir(parents=True, exist_ok=True)
    for lang in ("en", "ar"):
        if page.get_attribute("html", "lang") != lang:
            page.click("#lang-toggle")
            page.wait_for_selector(f"html[lang='{lang}']")
            page.wait_for_selector("[aria-busy='true']", state="detached")
        assert page.get_attribute("html", "dir") == ("rtl" if lang == "ar" else "ltr")
        for size, viewport in SIZES.items():
            page.set_viewport_size(viewport)
            page.wait_for_timeout(150)
            with Image.open(io.BytesIO(page.screenshot(full_page=True))) as image:
                small = image.convert("RGB").quantize(colors=128)
                small.save(out / f"{name}-{size}-{lang}.png", optimize=True)
    page.click("#lang-toggle")
    page.wait_for_selector("html[lang='en']")
    page.set_viewport_size(SIZES["desktop"])


# --- user text is text ------------------------------------------------------------------------------------
def test_names_holding_markup_show_as_text_and_run_nothing(browser: Any, web_server: ServerProcess) -> None:
    tag = random.randrange(1000)
    name = f"{XSS}{tag}"  # 31 characters: a valid name
    ann_ctx, ben_ctx = person(browser), person(browser)
    try:
        ann = open_page(ann_ctx, web_server.base)
        sign_up(ann, name)
        assert ann.inner_text("#account-link") == name and ann.inner_text("#my-profile-link") == name
        api = api_of(web_server, ann_ctx)
        finish_games(api, 1)
        # Ann opens a table; Ben, a guest also named with markup, sees her name in the live lobby.
        table_id = create_in_lobby(ann, bots=2)
        ben = open_page(ben_ctx, web_server.base)
        guest(ben, XSS)
        row = f"#open-tables li[data-table='{table_id}']"
        ben.wait_for_selector(row)
        assert ben.inner_text(f"{row} a.player-link[data-player='{api.id}']") == name
        assert ben.inner_text("#account-link") == f"{XSS} (guest)"
        # Her profile, and the leaderboard (her finished game ranks by level points).
        ben.click(f"{row} a.player-link[data-player='{api.id}']")
        ben.wait_for_url(re.compile(rf"#/player/{api.id}$"))
        ben.wait_for_selector("#profile[aria-busy='false']")
        assert ben.inner_text("#profile-name") == name
        ben.goto(f"{web_server.base}/?rows=100#/leaderboard/koutchina/level")
        ben.wait_for_selector("#leaderboard[aria-busy='false']")
        assert ben.inner_text(f"#lb-table tr[data-player='{api.id}'] a.player-link") == name
        # Her account page, and the finished games list in the lobby.
        goto(ann, "#/account")
        ann.wait_for_selector("#account[aria-busy='false']")
        assert ann.inner_text("#account-name") == name and ann.input_value("#new-name") == name
        ann.click("#lobby-link")
        ann.wait_for_selector("#my-games li[data-table]")
        ann.wait_for_selector("#finished-tables, #my-games")
        for p in (ann, ben):
            assert p.locator("img").count() == 0  # the markup never became an element
        no_scripts_ran(ann, ben)
    finally:
        ann_ctx.close()
        ben_ctx.close()


# --- the live lobby -----------------------------------------------------------------------------------------
def test_the_lobby_updates_by_itself_and_offers_rematches(browser: Any, web_server: ServerProcess) -> None:
    watcher_ctx, ann_ctx, bee_ctx = person(browser), person(browser), person(browser)
    try:
        watcher = open_page(watcher_ctx, web_server.base)
        loads: list[int] = []
        watcher.on("load", lambda _p: loads.append(1))
        guest(watcher, "Watcher")
        watcher.wait_for_selector("#lobby-live[data-live='1']")
        assert "Updates by itself" in watcher.inner_text("#lobby-live")
        # Another person opens a table: it appears in the watcher's lobby with who sits where and the rules.
        ann = open_page(ann_ctx, web_server.base)
        guest(ann, "Ann Live")
        ann_id = session_of(ann_ctx)["account"]["id"]
        table_id = create_in_lobby(ann, bots=2)
        row = f"#open-tables li[data-table='{table_id}']"
        watcher.wait_for_selector(row)
        text = watcher.inner_text(row)
        assert f"Table {table_id}" in text and "Koutchina · micro" in text and "(empty)" in text, text
        assert watcher.inner_text(f"{row} a.player-link[data-player='{ann_id}']") == "Ann Live"
        assert watcher.locator(f"{row} button.join").count() == 1
        # Someone takes the last seat: the game starts and the table moves to the tables in play.
        cy = Api.guest(web_server, "Cy Live")
        cy.join(table_id, seat=3)
        playing = f"#playing-tables li[data-table='{table_id}']"
        watcher.wait_for_selector(playing)
        assert watcher.locator(row).count() == 0
        assert watcher.inner_text(f"{playing} a.player-link[data-player='{cy.id}']") == "Cy Live"
        # Both people leave: bots finish the game, it leaves the live lists and shows among finished games.
        ann_api = api_of(web_server, ann_ctx)
        ann_api.ok(ann_api.post(f"/api/tables/{table_id}/leave"))
        cy.ok(cy.post(f"/api/tables/{table_id}/leave"))
        watcher.wait_for_selector(playing, state="detached", timeout=60_000)
        watcher.wait_for_selector(f"#finished-tables li[data-table='{table_id}']")
        assert not loads, "the lobby was loaded again"  # it all came over the socket

        # A rematch offer reaches a player waiting in the lobby (their own topic on the lobby socket).
        a, b = Api.register(web_server), Api.register(web_server, password="correct horse")
        tid = a.create_table(bot_seats=[2, 3], length="micro", bot_level="random", turn_seconds=1)["id"]
        a.join(tid, seat=0)
        b.join(tid, seat=1)
        deadline = time.monotonic() + 60
        while a.ok(a.get(f"/api/tables/{tid}"))["status"] != "finished":
            assert time.monotonic() < deadline
            time.sleep(0.2)
        bee = open_page(bee_ctx, web_server.base)
        sign_in(bee, b.account["name"], "correct horse")
        bee.wait_for_selector("#lobby-live[data-live='1']")
        bee.wait_for_timeout(300)  # the socket's hello is answered
        made = a.ok(a.post(f"/api/tables/{tid}/rematch"))
        toast = bee.locator(f".toast[data-toast='rematch-{tid}']")
        toast.wait_for()
        assert f"{a.account['name']} asks for a rematch of table {tid}." in toast.inner_text()
        toast.locator("button.rematch-accept").click()
        bee.wait_for_url(re.compile(rf"#/table/{made['table']['id']}$"))
        state = b.ok(b.get(f"/api/tables/{tid}/rematch"))
        assert {p["account_id"]: p["reply"] for p in state["players"]} == {a.id: "accept", b.id: "accept"}
        no_scripts_ran(watcher, ann, bee)
    finally:
        for c in (watcher_ctx, ann_ctx, bee_ctx):
            c.close()


# --- quick play ---------------------------------------------------------------------------------------------
def test_quick_play_seats_people_together_then_bots_fill_after_the_wait(
        browser: Any, social_server: ServerProcess) -> None:
    base = social_server.base
    ctxs = [person(browser), person(browser), person(browser, phone=True)]
    try:
        dee, eve, watcher = (open_page(c, base) for c in ctxs)
        guest(watcher, "Watcher")
        watcher.wait_for_selector("#lobby-live[data-live='1']")
        guest(dee, "Dee")
        dee.select_option("#qp-ruleset", "koutchina")
        dee.select_option("#qp-length", "micro")
        asked = time.time() * 1000
        dee.click("#quickplay-btn")
        dee.wait_for_url(re.compile(r"#/table/\d+$"))
        table_id = int(dee.url.rsplit("/", 1)[1])
        # The wait is kept for the table page's countdown, and said in a toast.
        bots_at = int(local_item(ctxs[0], f"est.quickplay.{table_id}") or 0)
        assert asked + QUICK_WAIT * 1000 - 1500 <= bots_at <= time.time() * 1000 + QUICK_WAIT * 1000 + 500
        assert "bots take the empty seats in" in dee.inner_text(".toast[data-toast='quickplay']")
        # The watcher's lobby shows it, with its quick-play chip and the seconds left.
        row = f"#open-tables li[data-table='{table_id}']"
        watcher.wait_for_selector(f"{row} .quick-chip")
        assert re.search(r"bots in \d+ s", watcher.inner_text(row))
        # A second person with the same choice sits at the same table.
        guest(eve, "Eve")
        eve.select_option("#qp-ruleset", "koutchina")
        eve.select_option("#qp-length", "micro")
        eve.click("#quickplay-btn")
        eve.wait_for_url(re.compile(rf"#/table/{table_id}$"))
        watcher.wait_for_selector(f"{row} .seat-name >> text=Eve")
        # Nobody else comes: after the wait, bots take the two empty seats and the game starts.
        started = time.monotonic()
        playing = f"#playing-tables li[data-table='{table_id}']"
        watcher.wait_for_selector(playing, timeout=QUICK_WAIT * 1000 + 15_000)
        waited = time.monotonic() - started
        assert waited <= QUICK_WAIT + 10, waited
        seats = texts(watcher, f"{playing} .seat-name")
        assert sum(s.startswith("Bot ") and "(bot)" not in s for s in seats) == 2, seats  # "Bot 2": no suffix
        assert any("Dee" in s for s in seats), seats
        for p in (dee, eve):
            p.wait_for_selector(".table-page .bar")
        table = httpx.get(f"{base}/api/tables/{table_id}", timeout=30).json()
        assert table["status"] == "playing" and [s["bot"] for s in table["seats"]].count(True) == 2
        shoot(watcher, "social-lobby")
        no_scripts_ran(dee, eve, watcher)
    finally:
        for c in ctxs:
            c.close()


# --- profiles and leaderboards ------------------------------------------------------------------------------
POINTS = {"win": 30, "draw": 10, "loss": 4}


def test_a_profile_and_the_leaderboards_show_seeded_games_in_order(
        browser: Any, social_server: ServerProcess) -> None:
    base = social_server.base
    tag = random.randrange(10**4)
    players = [Api.register(social_server, name=f"{n} {tag}") for n in ("Hala", "Ibrahim", "Jana", "Karim")]
    seeded: dict[int, list[int]] = {}

    def seed(api: Api, n: int) -> None:
        seeded[api.id] = finish_games(api, n)

    counts = (15, 15, 4, 2)  # two rank by win rate (15 games at least), all four by level points
    threads = [threading.Thread(target=seed, args=(api, n)) for api, n in zip(players, counts, strict=True)]
    started = time.monotonic()
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    print(f"seeded {sum(len(v) for v in seeded.values())} games in {time.monotonic() - started:.1f} s")
    assert all(len(seeded[p.id]) for p in players)

    # The oracle: each player's games from their history, ranked as RULES.md says (not the leaderboard's SQL).
    games = {p.id: p.ok(p.get(f"/api/players/{p.id}/games", params={"limit": 100})) for p in players}
    names = {p.id: p.account["name"] for p in players}
    wins = {i: sum(g["outcome"] == "win" for g in gs) for i, gs in games.items()}
    points = {i: sum(POINTS[g["outcome"]] for g in gs) for i, gs in games.items()}
    by_level = sorted(games, key=lambda i: (-points[i], -len(games[i]), i))
    by_rate = sorted((i for i in games if len(games[i]) >= 15),
                     key=lambda i: (-wins[i] / len(games[i]), -len(games[i]), i))

    ctx = person(browser)
    try:
        page = open_page(ctx, base, "#/leaderboard/koutchina/level", query="&rows=2")
        page.wait_for_selector("#leaderboard[aria-busy='false']")
        shown = texts(page, "#lb-table tbody a.player-link")
        assert shown == [names[i] for i in by_level[:2]], (shown, by_level, points)
        assert page.inner_text("#lb-page") == "Page 1 of 2" and page.is_disabled("#lb-prev")
        shown_points = [int(x) for x in texts(page, "#lb-table tbody td:nth-child(6)")]
        assert shown_points == [points[i] for i in by_level[:2]]
        page.click("#lb-next")
        page.wait_for_selector("#leaderboard[data-page='2'][aria-busy='false']")
        assert texts(page, "#lb-table tbody a.player-link") == [names[i] for i in by_level[2:4]]
        assert texts(page, "#lb-table tbody td:nth-child(1)") == ["3", "4"] and page.is_disabled("#lb-next")
        page.click("#lb-prev")
        page.wait_for_selector("#leaderboard[data-page='1'][aria-busy='false']")
        # The win-rate tab: only players with 15 games or more, by won / played.
        page.click("#lb-winrate")
        page.wait_for_selector("#leaderboard[data-by='winrate'][aria-busy='false']")
        assert "15 games at least" in page.inner_text("#lb-note")
        assert len(by_rate) == 2 and page.is_disabled("#lb-next")
        ranked = texts(page, "#lb-table tbody a.player-link")
        assert ranked == [names[i] for i in by_rate], (ranked, by_rate, wins)
        rates = texts(page, "#lb-table tbody td:nth-child(5)")
        assert rates == [f"{100 * wins[i] / len(games[i]):.1f}%" for i in by_rate]
        # A name leads to the profile: the seeded games, newest first, with their replays.
        who = by_rate[-1]
        page.click(f"#lb-table a.player-link[data-player='{who}']")
        page.wait_for_url(re.compile(rf"#/player/{who}$"))
        page.wait_for_selector("#profile[aria-busy='false']")
        mine = games[who]
        stats = {k: page.inner_text(f"#profile-stats dd[data-k='{k}']") for k in
                 ("games", "wins", "make_rate", "average_score")}
        average = round(round(sum(g["total"] for g in mine) / len(mine), 2), 1)
        rate = round(sum(g["made"] for g in mine) / sum(g["rounds"] for g in mine), 4)
        assert stats == {"games": str(len(mine)), "wins": str(wins[who]),
                         "make_rate": f"{math.floor(rate * 100 + 0.5)}%", "average_score": f"{average:.1f}"}
        rows = page.locator("#recent-games tbody tr")
        assert [int(rows.nth(i).get_attribute("data-table") or 0) for i in range(rows.count())] == \
            list(reversed(seeded[who]))[:10]
        outcomes = texts(page, "#recent-games tbody td:nth-child(6)")
        word = {"win": "won", "draw": "draw", "loss": "lost"}
        assert outcomes == [word[g["outcome"]] for g in mine[:10]]
        per = page.inner_text("#profile-rulesets tr[data-ruleset='koutchina'] td:nth-child(2)")
        assert per == str(len(mine))
        shoot(page, "social-profile")
        page.locator("#recent-games tbody tr").first.locator("a.replay").click()
        page.wait_for_url(re.compile(rf"#/replay/{seeded[who][-1]}$"))
        page.wait_for_selector(".replay-page .felt")

        # Egyptian level points and the badge's progress. A match a leaver ended before its first round was
        # scored counts for nobody (RULES.md, egyptian ruling 9; issue 25, B6): 0 points for both.
        a, b = players[3], Api.register(social_server)
        tid = a.create_table(ruleset="egyptian", length="committee", bot_seats=[2, 3],
                             bot_level="random")["id"]
        a.join(tid, seat=0)
        b.join(tid, seat=1)
        b.ok(b.post(f"/api/tables/{tid}/leave"))
        for api, pts in ((a, 0), (b, 0)):
            goto(page, f"#/player/{api.id}")
            page.wait_for_selector(f"#profile[data-id='{api.id}'][aria-busy='false']")
            assert page.get_attribute("#profile-level-egyptian", "data-points") == str(pts)
            assert page.get_attribute("#profile-level-egyptian", "data-badge") == "0"
            panel = page.inner_text("#profile-level-egyptian")
            assert "Level (Egyptian)" in panel and "The Egyptian badge comes with 5 wins: 0 of 5" in panel
            assert "30 points a win, 10 a draw, 4 a loss" in panel  # the ruleset's own, from /api/rulesets
            assert page.locator(".level-panel").count() == 1  # the only ruleset that keeps level points
        goto(page, "#/leaderboard/egyptian/level")
        page.wait_for_selector("#leaderboard[data-ruleset='egyptian'][aria-busy='false']")
        listed = texts(page, "#lb-table tbody a.player-link")
        assert a.account["name"] not in listed and b.account["name"] not in listed
        goto(page, "#/leaderboard/koutchina/level")
        page.wait_for_selector("#leaderboard[data-ruleset='koutchina'][aria-busy='false']")
        shoot(page, "social-leaderboard")
        goto(page, "#/player/999999")
        page.wait_for_selector("#profile[aria-busy='false']")
        assert page.inner_text("#profile .error") == "No such player."
        no_scripts_ran(page)
    finally:
        ctx.close()


# --- accounts -----------------------------------------------------------------------------------------------
def test_name_password_mutes_daily_grant_and_signing_out_everywhere(
        browser: Any, web_server: ServerProcess) -> None:
    tag = random.randrange(10**6)
    name, pw = f"Lina{tag}", "first password"
    other = Api.register(web_server, name=f"Taken{tag}")
    loud = Api.guest(web_server, f"Loud {tag}")
    ctx = person(browser)
    try:
        page = open_page(ctx, web_server.base)
        sign_up(page, name, pw)
        me = api_of(web_server, ctx)
        # The daily grant: a full wallet gets nothing; 300 staked at an open table is topped up once a day.
        page.click("#account-link")
        page.wait_for_selector("#account[aria-busy='false']")
        page.click("#grant-btn")
        page.wait_for_selector("#grant-note.ok")
        assert page.inner_text("#grant-note") == "Nothing to top up: your balance is 1000."
        tid = me.create_table(stake=300, bot_seats=[1, 2], length="micro")["id"]
        me.join(tid, seat=0, stake=True)
        page.reload()
        page.wait_for_selector("#account[aria-busy='false']")
        assert page.inner_text("#account-balance") == "700 coins"
        page.click("#grant-btn")
        page.wait_for_selector("#grant-note:has-text('+300')")
        assert page.inner_text("#grant-note") == "+300 coins: your balance is 1000."
        assert page.inner_text("#account-balance") == "1000 coins"
        me.ok(me.post(f"/api/tables/{tid}/leave"))  # the stake comes back: 1300; still no second grant today
        page.click("#grant-btn")
        page.wait_for_selector("#grant-note[data-already='1']")
        assert page.inner_text("#grant-note").startswith("Already granted today: your balance is 1300.")
        assert me.ok(me.get("/api/me"))["balance"] == 1300
        # The display name: a taken one is refused, a free one shows at once (header included).
        page.fill("#new-name", other.account["name"].upper())
        page.click("#name-btn")
        page.wait_for_selector("#name-note.error")
        assert "That name is taken." in page.inner_text("#name-note")
        page.fill("#new-name", f"Lina Renamed {tag}")
        page.click("#name-btn")
        page.wait_for_selector("#name-note.ok")
        assert page.inner_text("#account-link") == f"Lina Renamed {tag}"
        assert me.ok(me.get("/api/me"))["name"] == f"Lina Renamed {tag}"
        name = f"Lina Renamed {tag}"
        # The password: the old one is checked; the new one works and the other sessions end.
        elsewhere = httpx.post(f"{web_server.base}/api/sessions",
                               json={"name": name, "password": pw}, timeout=60).json()["token"]
        page.fill("#old-password", "not my password")
        page.fill("#new-password", "second password")
        page.click("#password-btn")
        page.wait_for_selector("#password-note.error")
        assert "The password is wrong." in page.inner_text("#password-note")
        page.fill("#old-password", pw)
        page.fill("#new-password", "second password")
        page.click("#password-btn")
        page.wait_for_selector("#password-note.ok")
        assert httpx.get(f"{web_server.base}/api/me",
                         headers={"Authorization": f"Bearer {elsewhere}"}, timeout=30).status_code == 401
        assert httpx.post(f"{web_server.base}/api/sessions",
                          json={"name": name, "password": pw}, timeout=60).status_code == 401
        assert me.get("/api/me").status_code == 200  # this session stays
        # Mute from a profile; the account page lists the muted player with Unmute.
        goto(page, f"#/player/{loud.id}")
        page.wait_for_selector("#profile-mute")
        assert page.inner_text("#profile-mute") == "Mute their chat"
        page.click("#profile-mute")
        page.wait_for_selector("#profile-mute[aria-pressed='true']")
        page.click("#account-link")
        page.wait_for_selector(f"#mutes-list li[data-player='{loud.id}']")
        assert page.inner_text(f"#mutes-list li[data-player='{loud.id}'] a.player-link") == f"Loud {tag}"
        assert me.ok(me.get("/api/me/mutes"))["muted"] == [{"id": loud.id, "name": f"Loud {tag}"}]
        page.click(f"#mutes-list li[data-player='{loud.id}'] button.unmute")
        page.wait_for_selector("#mutes-list li", state="detached")
        page.reload()
        page.wait_for_selector("#mutes-none:visible")
        assert me.ok(me.get("/api/me/mutes"))["muted"] == []
        shoot(page, "social-account")
        # Sign out everywhere: asked first; Cancel keeps everything; OK ends every session, this one too.
        third = httpx.post(f"{web_server.base}/api/sessions",
                           json={"name": name, "password": "second password"}, timeout=60).json()["token"]
        page.click("#signout-all-btn")
        page.wait_for_selector("#signout-all-dialog[open]")
        page.click("#signout-all-dialog button.cancel")
        assert me.get("/api/me").status_code == 200
        page.click("#signout-all-btn")
        page.click("#signout-all-dialog button.ok")
        page.wait_for_selector("#guest-btn")
        assert "Signed out of every session." in page.inner_text("#toasts")
        for token in (me.token, third):
            assert httpx.get(f"{web_server.base}/api/me",
                             headers={"Authorization": f"Bearer {token}"}, timeout=30).status_code == 401
        sign_in(page, name, "second password")
        no_scripts_ran(page)
    finally:
        ctx.close()


def test_deleting_an_account_signs_it_out_and_anonymises_its_games(
        browser: Any, web_server: ServerProcess) -> None:
    tag = random.randrange(10**6)
    name, pw = f"Mona{tag}", "delete me please"
    ctx, other_ctx = person(browser), person(browser)
    try:
        page = open_page(ctx, web_server.base)
        sign_up(page, name, pw)
        me = api_of(web_server, ctx)
        (tid,) = finish_games(me, 1)
        record = httpx.get(f"{web_server.base}/api/tables/{tid}/record", timeout=30).json()
        assert record["players"][0] == name
        page.click("#account-link")
        page.wait_for_selector("#delete-panel")
        assert "Your wallet is closed, with the 1000 coins in it." in page.inner_text("#delete-panel")
        # No password: not even asked. A wrong one: asked, then refused.
        page.click("#delete-btn")
        page.wait_for_selector("#delete-note.error")
        assert page.inner_text("#delete-note") == "Error: Type your password first."
        assert page.locator("#delete-dialog").count() == 0
        page.fill("#delete-password", "wrong password")
        page.click("#delete-btn")
        page.click("#delete-dialog button.ok")
        page.wait_for_selector("#delete-note.error:has-text('wrong')")
        # The right one: the dialog says what happens; Cancel keeps the account.
        page.fill("#delete-password", pw)
        page.click("#delete-btn")
        page.wait_for_selector("#delete-dialog[open]")
        said = page.inner_text("#delete-dialog")
        for words in ("Delete your account?", "finished games stay", "Deleted player", "name is freed",
                      "with the 1000 coins in it", "cannot be undone"):
            assert words in said, said
        page.click("#delete-dialog button.cancel")
        assert me.get("/api/me").status_code == 200
        page.click("#delete-btn")
        page.click("#delete-dialog button.ok")
        # Signed out, told so, and the account can no longer sign in.
        page.wait_for_selector("#guest-btn")
        assert "Your account was deleted." in page.inner_text("#toasts")
        assert me.get("/api/me").status_code == 401
        page.fill("#name", name)
        page.fill("#password", pw)
        page.click("#signin-btn")
        page.wait_for_selector(".signin .error:not(:empty)")
        assert page.locator("#create-btn").count() == 0
        # Its old game stays, under "Deleted player": the replay, the profile, another player's lobby.
        goto(page, f"#/replay/{tid}")
        page.wait_for_selector(".replay-page .felt")
        page.wait_for_timeout(300)
        shown = page.inner_text("main")
        assert "Deleted player" in shown and name not in shown
        goto(page, f"#/player/{me.id}")
        page.wait_for_selector("#profile[aria-busy='false']")
        assert page.inner_text("#profile-name") == "Deleted player"
        assert "deleted account" in page.inner_text("#profile h1")
        assert page.inner_text("#profile-stats dd[data-k='games']") == "1"
        other = open_page(other_ctx, web_server.base)
        guest(other, "Nadia")
        other.wait_for_selector(f"#finished-tables li[data-table='{tid}']")
        assert "Deleted player" in other.inner_text(f"#finished-tables li[data-table='{tid}']")
        assert name not in other.inner_text("main")
        no_scripts_ran(page, other)
    finally:
        ctx.close()
        other_ctx.close()


def test_a_guest_sees_what_applies_to_guests(browser: Any, web_server: ServerProcess) -> None:
    ctx = person(browser, phone=True)
    try:
        page = open_page(ctx, web_server.base)
        guest(page, "Omar")
        me = api_of(web_server, ctx)
        page.click("#account-link")
        page.wait_for_selector("#account[aria-busy='false']")
        assert "no password, no wallet and no daily coins" in page.inner_text("#guest-note")
        for absent in ("#password-form", "#grant-panel", "#delete-password"):
            assert page.locator(absent).count() == 0, absent
        page.fill("#new-name", "Omar the Guest")
        page.press("#new-name", "Enter")
        page.wait_for_selector("#name-note.ok")
        assert me.ok(me.get("/api/me"))["name"] == "Omar the Guest"
        page.click("#delete-btn")
        page.wait_for_selector("#delete-dialog[open]")
        assert "coins" not in page.inner_text("#delete-dialog")
        page.click("#delete-dialog button.ok")
        page.wait_for_selector("#guest-btn")
        assert me.get("/api/me").status_code == 401
        no_scripts_ran(page)
    finally:
        ctx.close()


# --- the lobby socket drops and comes back ------------------------------------------------------------------
def test_the_lobby_reconnects_after_the_server_restarts(browser: Any, social_server: ServerProcess) -> None:
    ctx = person(browser)
    try:
        page = open_page(ctx, social_server.base)
        guest(page, "Patient")
        page.wait_for_selector("#lobby-live[data-live='1']")
        social_server.stop()
        page.wait_for_selector("#lobby-live[data-live='0']")
        assert "reconnecting" in page.inner_text("#lobby-live")
        social_server.start()
        page.wait_for_selector("#lobby-live[data-live='1']", timeout=30_000)
        host = Api.guest(social_server, "Host")
        tid = host.create_table(bot_seats=[1], length="micro")["id"]
        host.join(tid, seat=0)
        page.wait_for_selector(f"#open-tables li[data-table='{tid}'] a.player-link[data-player='{host.id}']")
        no_scripts_ran(page)
    finally:
        ctx.close()
