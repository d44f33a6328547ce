"""What the competition pages and a table say, in English and Arabic: a negative score reads "-31" in an
Arabic sentence (a director's score adjustment) and in the traveller; counted words take the plural form of
their count (Arabic's six, by the browser's Intl.PluralRules); a person who left their competition table is
offered no way back to it and is told it is out, in every ruleset and kind; a table's bots are named in the
page's language.

Screenshots of the pages go to $ESTIMATION_SCREENSHOTS, else to the test's temporary folder.
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
import web_helpers as w
from server_helpers import Api
from test_web_competitions import _shots

#: Arabic's plural forms of each counted phrase the competition pages use (an oracle written apart from
#: i18n.js): zero, one, two, few (3-10), many (11-99), other (100, 101, 102...).
AR_FORMS = {
    "stages": ("لا مراحل", "مرحلة واحدة", "مرحلتان", "{n} مراحل", "{n} مرحلة", "{n} مرحلة"),
    "boards": ("لا توزيعات", "توزيعة واحدة", "توزيعتين", "{n} توزيعات", "{n} توزيعة", "{n} توزيعة"),
    "rounds": ("لا جولات", "جولة واحدة", "جولتان", "{n} جولات", "{n} جولة", "{n} جولة"),
    "entrants": ("لا مشاركين", "مشارك واحد", "مشاركان", "{n} مشاركين", "{n} مشاركًا", "{n} مشارك"),
    # Coins said as the subject ("coins") and after a preposition or as an object ("coins_obj": the dual in
    # -ayn); a hint's deals, after "على".
    "coins": ("{n} عملة", "عملة واحدة", "عملتان", "{n} عملات", "{n} عملة", "{n} عملة"),
    "coins_obj": ("{n} عملة", "عملة واحدة", "عملتين", "{n} عملات", "{n} عملة", "{n} عملة"),
    "deals": ("{n} توزيعة", "توزيعة واحدة", "توزيعتين", "{n} توزيعات", "{n} توزيعة", "{n} توزيعة"),
    "deal sets": ("لا مجموعات توزيع", "مجموعة توزيع واحدة", "مجموعتي توزيع", "{n} مجموعات توزيع",
                  "{n} مجموعة توزيع", "{n} مجموعة توزيع"),
}


def arabic(noun: str, n: int) -> str:
    """The Arabic phrase for ``n`` of ``noun`` by CLDR's rules for Arabic."""
    m = n % 100
    form = 0 if n == 0 else 1 if n == 1 else 2 if n == 2 else 3 if 3 <= m <= 10 else 4 if 11 <= m <= 99 else 5
    return AR_FORMS[noun][form].format(n=n)


def english(noun: str, n: int) -> str:
    return f"{n} {noun if n != 1 else noun[:-1]}"


def to_english(page: Any) -> None:
    page.click("#lang-toggle")
    page.wait_for_selector("html[lang='en']")


def _mine(base: str, cid: int, page: Any) -> dict[str, Any]:
    """The competition's `mine` for the person signed in on ``page`` (read over REST with its token)."""
    token = page.evaluate("JSON.parse(localStorage.getItem('est.session')).token")
    got = httpx.get(f"{base}/api/competitions/{cid}", headers={"Authorization": f"Bearer {token}"},
                    timeout=30)
    return dict(got.json()["mine"])


def _competition(api: Api, **fields: Any) -> int:
    body = {"name": "Words Cup", "ruleset": "koutchina", "length": "micro", "bot_level": "random",
            "stages": 1, "turn_seconds": 0, "starts_in": 3600, **fields}
    if body.get("kind") == "robot":
        body.pop("stages"), body.pop("turn_seconds")
        body.setdefault("window_seconds", 7200)
    return int(api.ok(api.post("/api/competitions", body))["id"])


def _open(page: Any, base: str, cid: int) -> None:
    page.goto(f"{base}/?pause=40#/competition/{cid}")
    page.wait_for_selector("#c-rules")


def _play_robot_table(page: Any, base: str, cid: int) -> int:
    """Register for a running robot competition and sit at one's table (Register, then Play now)."""
    _open(page, base, cid)
    page.click("#c-register", timeout=30_000)
    page.click("#c-play", timeout=30_000)
    page.wait_for_url(re.compile(r"#/table/\d+$"))
    page.wait_for_selector(".table-page .bar")
    return int(page.url.rsplit("/", 1)[1])


# --- 1. a negative score in Arabic ----------------------------------------------------------------------
def test_a_negative_score_reads_minus_first_in_arabic(browser: Any, web_server: Any, tmp_path: Path) -> None:
    """A director's score adjustment is a sentence with the score in it: in Arabic its minus once came after
    the digits ("صارت النتيجة 31-"); the traveller's cells show it "-31" too, measured on the screen."""
    out = _shots(tmp_path)
    director = Api.guest(web_server, "Words Director")
    cid = _competition(director, kind="robot", starts_in=0)
    ctx = w.new_context(browser)
    ctx.set_default_timeout(60_000)
    try:
        page = w.open_app(ctx, web_server.base)
        w.sign_in_guest(page, "Minus Reader")
        table = _play_robot_table(page, web_server.base, cid)
        w.act_until(page, "#round-end[open]", 120)  # the first board finished
        director.ok(director.post(f"/api/competitions/{cid}/adjustments", {
            "stage": 1, "round": 1, "table": table, "seat": 0, "score": -31, "reason": "a revoke"}))
        _open(page, web_server.base, cid)
        page.wait_for_selector("#c-adjustment-list li")
        page.click("#c-boards button[data-round='1']")
        page.wait_for_selector("#c-traveller-table tbody tr >> nth=3")
        assert "-31" in page.inner_text("#c-traveller-table")
        page.screenshot(path=str(out / "competition-adjusted-desktop-en.png"), full_page=True)
        w.to_arabic(page)
        page.wait_for_selector("#c-adjustment-list li:has-text('النتيجة')")
        page.wait_for_selector("#c-traveller-table:has-text('روبوت')")
        for where in ("#c-adjustment-list", "#c-traveller-table"):
            found = w.signs(page, where)
            assert ("-31", True) in found, (where, found)
            assert all(ok for _, ok in found), (where, found)
        page.screenshot(path=str(out / "competition-adjusted-desktop-ar.png"), full_page=True)
        assert not page.js_errors, page.js_errors
    finally:
        ctx.close()


# --- 2. counted words ------------------------------------------------------------------------------------
def test_counted_words_take_the_plural_form_of_their_count(browser: Any, web_server: Any,
                                                            tmp_path: Path) -> None:
    out = _shots(tmp_path)
    director = Api.guest(web_server, "Plural Director")
    one_stage = _competition(director, name="One Stage", stages=1, entry_limit=10)
    two_stages = _competition(director, name="Two Stages", stages=2, length="full")
    robot = _competition(director, name="Two Sets", kind="robot", instances=2)
    for name in ("Nour", "Omar"):
        api = Api.guest(web_server, name)
        api.ok(api.post(f"/api/competitions/{two_stages}/register"))
    api.ok(api.post(f"/api/competitions/{one_stage}/register"))
    full = int(director.ok(director.get(f"/api/competitions/{two_stages}"))["rounds"])
    ctx = w.new_context(browser)
    try:
        page = w.open_app(ctx, web_server.base)
        w.sign_in_guest(page, "Plural Reader")
        _open(page, web_server.base, one_stage)
        assert f"{english('stages', 1)} of {english('boards', 5)};" in page.inner_text("#c-rules")
        assert "1 of 10 entrants" in page.inner_text(".c-meta")
        w.to_arabic(page)
        page.wait_for_selector("#c-rules:has-text('دوبليكيت')")
        rules, meta = page.inner_text("#c-rules"), page.inner_text(".c-meta")
        assert f"{arabic('stages', 1)} من {arabic('boards', 5)}؛" in rules, rules
        assert f"1 من {arabic('entrants', 10)}" in meta, meta
        page.screenshot(path=str(out / "competition-plurals-desktop-ar.png"), full_page=True)
        _open(page, web_server.base, two_stages)
        rules, meta = page.inner_text("#c-rules"), page.inner_text(".c-meta")
        assert f"{arabic('stages', 2)} من {arabic('boards', full)}؛" in rules, rules
        assert arabic("entrants", 2) in meta, meta
        _open(page, web_server.base, robot)
        rules = page.inner_text("#c-rules")
        assert f"العب {arabic('boards', 5)} وحدك" in rules and arabic("deal sets", 2) in rules, rules
        # The director's form: each length with its rounds.
        def lengths() -> list[str]:
            page.click("#competition-new summary")
            page.select_option("#c-ruleset", "koutchina")
            return list(page.eval_on_selector_all("#c-length option", "els => els.map(e => e.textContent)"))

        page.goto(f"{web_server.base}/?pause=40#/")
        options = lengths()
        for n in (5, full):
            assert any(arabic("rounds", n) in o for o in options), (n, options)
        to_english(page)
        options = lengths()
        assert f"micro ({english('rounds', 5)})" in options, options
        _open(page, web_server.base, robot)
        rules = page.inner_text("#c-rules")
        assert f"play {english('boards', 5)} alone" in rules and "over 2 deal sets." in rules, rules
        page.screenshot(path=str(out / "competition-plurals-desktop-en.png"), full_page=True)
        # Every form of the one place that picks them, for the counts that tell them apart.
        counts = [0, 1, 2, 3, 10, 11, 99, 100, 101, 102, 103, 111]
        forms = page.evaluate("""async (counts) => {
            const i18n = await import('/static/i18n.js');
            const out = {};
            for (const lang of ['ar', 'en']) {
              i18n.setLang(lang);
              out[lang] = counts.map((n) => i18n.t('n_stages', { n }));
            }
            i18n.setLang('en');
            return out;
        }""", counts)
        assert forms["ar"] == [arabic("stages", n) for n in counts], forms["ar"]
        assert forms["en"] == [english("stages", n) for n in counts], forms["en"]
        # Coins and a hint's deals in the table's sentences, filled as the table page fills them.
        said = page.evaluate("""async (counts) => {
            const i18n = await import('/static/i18n.js');
            const t = i18n.t;
            const out = {};
            for (const lang of ['ar', 'en']) {
              i18n.setLang(lang);
              out[lang] = counts.map((n) => [t('join_stakes', { coins: t('coins_obj', { n }) }),
                t('leave_refund', { coins: t('coins', { n }) }),
                t('hint_note', { deals: t('n_deals', { n }) })]);
            }
            i18n.setLang('en');
            return out;
        }""", counts)
        for n, (stakes, refund, hint) in zip(counts, said["ar"], strict=True):
            assert stakes == f"الجلوس يراهن بـ {arabic('coins_obj', n)}", stakes
            assert refund == f"يُعاد إليك رهانك ({arabic('coins', n)}).", refund
            assert hint == f"جُرّبت كل حركة على {arabic('deals', n)} توافق ما تعرفه.", hint
        for n, (stakes, refund, hint) in zip(counts, said["en"], strict=True):
            assert stakes == f"taking a seat stakes {english('coins', n)}", stakes
            assert refund == f"Your stake of {english('coins', n)} is refunded.", refund
            assert hint == f"Each action tried on {english('deals', n)} consistent with what you know.", hint
        assert not page.js_errors, page.js_errors
    finally:
        ctx.close()


# --- 3. a leaver is offered no way back to the table -------------------------------------------------
#: What the competition page says to a leaver, in each language: the wait line and the boards' note.
LEFT_WORDS = {"en": ("You left this competition", "You left before finishing a board"),
              "ar": ("غادرت هذه المسابقة", "غادرت قبل أن تُنهي توزيعة")}


@pytest.mark.parametrize(("ruleset", "length", "kind"), [
    ("koutchina", "micro", "robot"), ("classic", "full", "robot"), ("egyptian", "standard", "robot"),
    ("koutchina", "micro", "swiss")])
def test_a_leaver_is_not_offered_the_way_to_the_table(browser: Any, web_server: Any, tmp_path: Path,
                                                       ruleset: str, length: str, kind: str) -> None:
    out = _shots(tmp_path)
    director = Api.guest(web_server, f"Leave Director {ruleset} {kind}")
    ctx = w.new_context(browser)
    ctx.set_default_timeout(60_000)
    try:
        page = w.open_app(ctx, web_server.base)
        w.sign_in_guest(page, f"Leaver {ruleset} {kind}")
        if kind == "robot":
            cid = _competition(director, kind="robot", ruleset=ruleset, length=length, starts_in=0)
            _play_robot_table(page, web_server.base, cid)
        else:
            cid = _competition(director, ruleset=ruleset, length=length)
            _open(page, web_server.base, cid)
            page.click("#c-register")
            page.wait_for_selector("#c-withdraw")
            for _ in range(4):
                api = Api.guest(web_server)
                api.ok(api.post(f"/api/competitions/{cid}/register"))
            director.ok(director.post(f"/api/competitions/{cid}/start"))
            page.wait_for_url(re.compile(r"#/table/\d+$"))
            page.wait_for_selector(".table-page .bar")
        # Before leaving, the way to the table is there.
        page.click("#competition-link")
        page.wait_for_selector("#c-play, #c-my-table")
        page.go_back()
        page.wait_for_selector("#leave-btn")
        w.close_dialogs(page)
        page.click("#leave-btn")
        page.click("#leave-dialog button.ok")
        page.wait_for_selector("#create-btn")
        deadline = time.monotonic() + 20
        while not _mine(web_server.base, cid, page)["table_over"]:  # recorded a moment after the leave
            assert time.monotonic() < deadline, _mine(web_server.base, cid, page)
            time.sleep(0.1)
        assert _mine(web_server.base, cid, page)["left"]
        _open(page, web_server.base, cid)
        page.wait_for_selector("#c-standings-table")
        for lang in ("en", "ar"):
            offered = page.locator("#c-play, #c-my-table, #c-withdraw")
            assert not offered.count(), page.inner_text("#c-actions")
            # The page says the leaver is out (no "waiting for the other tables", no "finish a board").
            said = LEFT_WORDS[lang]
            page.wait_for_function("([w, b]) => document.querySelector('#c-wait').textContent.includes(w)"
                                   " && document.querySelector('#c-no-boards').textContent.includes(b)",
                                   arg=said)
            page.screenshot(path=str(out / f"competition-left-{kind}-{ruleset}-{lang}.png"), full_page=True)
            if lang == "en":
                w.to_arabic(page)
                page.wait_for_selector("#c-standings-table")
        assert not page.js_errors, page.js_errors
    finally:
        ctx.close()


# --- 4. bots in the page's language ------------------------------------------------------------------
def test_a_tables_bots_are_named_in_the_pages_language(browser: Any, web_server: Any, tmp_path: Path) -> None:
    out = _shots(tmp_path)
    ctx = w.new_context(browser)
    try:
        page = w.open_app(ctx, web_server.base)
        w.sign_in_guest(page, "Hana")
        w.create_game(page, "koutchina", "micro", bots=3, level="random")
        page.wait_for_selector("#scoreboard th[data-seat='3'] .pname")
        names = "els => els.map(e => e.textContent)"

        def shown() -> tuple[list[str], list[str]]:
            return (page.eval_on_selector_all("#scoreboard th[data-seat] .pname", names),
                    page.eval_on_selector_all(".felt .seat[data-seat] .nameplate", names))

        board, plates = shown()
        assert board == ["Hana", "Bot 2", "Bot 3", "Bot 4"], board
        w.to_arabic(page)
        page.wait_for_selector("#scoreboard th[data-seat='1'] .pname:has-text('روبوت')")
        board, plates = shown()
        assert board == ["Hana", "روبوت 2", "روبوت 3", "روبوت 4"], board
        assert not any("Bot " in p for p in plates) and sum("روبوت" in p for p in plates) == 3, plates
        # The declarations say who in the page's language too, once a bot has said something.
        w.act_until(page, "#declarations li[data-seat='1']", 60)
        assert "Bot " not in page.inner_text("#declarations")
        page.screenshot(path=str(out / "table-bots-desktop-ar.png"), full_page=True)
        to_english(page)
        page.screenshot(path=str(out / "table-bots-desktop-en.png"), full_page=True)
        assert not page.js_errors, page.js_errors
    finally:
        ctx.close()
