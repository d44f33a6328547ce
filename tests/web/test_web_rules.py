"""The rules pages (#/rules/RULESET): headings, the glossary of every table marker, English and Arabic.

The language is switched with the header's own button and the ruleset with the page's visible links, as a
person would. Screenshots go to /tmp/rules-*.png (desktop 1280x800 and phone 390x844) for a person to look at.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import web_helpers as w

MARKERS = ["dealer", "caller", "with", "dashcall", "dash", "risk", "risk2", "risk3", "avoid", "bust",
           "away", "left", "multiplier", "saaydeh"]
HEADINGS = {
    "en": {"rules-round": "How a round goes", "rules-scoring": "Scoring",
           "rules-markers": "What the table shows"},
    "ar": {"rules-round": "كيف تمشي الجولة", "rules-scoring": "حساب النقاط",
           "rules-markers": "علامات الطاولة"},
}
TITLES = {
    "en": {"koutchina": "Rules: Koutchina", "egyptian": "Rules: Egyptian", "classic": "Rules: Classic"},
    "ar": {"koutchina": "القواعد: كوتشينة", "egyptian": "القواعد: المصرية", "classic": "القواعد: الكلاسيكية"},
}
OUT = Path("/tmp")
M = "\u2212"  # the minus sign the page prints
#: True when the minus sign of the first occurrence of a negative number is drawn left of its digits.
MINUS_LEFT_OF = """(num) => {
  const walk = document.createTreeWalker(document.querySelector('.rules-page'), NodeFilter.SHOW_TEXT);
  let n;
  while ((n = walk.nextNode())) {
    const i = n.data.indexOf(num);
    if (i < 0) continue;
    const x = (k) => { const r = document.createRange(); r.setStart(n, k); r.setEnd(n, k + 1);
      return r.getBoundingClientRect().x; };
    return x(i) < x(i + 1);
  }
  return null;
}"""


def _check_page(page: Any, lang: str, ruleset: str) -> None:
    page.wait_for_selector(f".rules-page[data-ruleset='{ruleset}']")
    assert page.get_attribute("html", "lang") == lang
    assert page.get_attribute("html", "dir") == ("rtl" if lang == "ar" else "ltr")
    assert page.inner_text("#rules-title") == TITLES[lang][ruleset]
    for hid, text in HEADINGS[lang].items():
        assert page.locator(f"h2#{hid}").is_visible()
        assert page.inner_text(f"#{hid}") == text
    keys = page.eval_on_selector_all("#rules-glossary dt[data-marker]",
                                     "els => els.map(e => e.dataset.marker)")
    assert set(MARKERS) <= set(keys), set(MARKERS) - set(keys)
    for key in MARKERS:
        dd = page.locator(f"#rules-glossary dt[data-marker='{key}'] + dd")
        assert len(dd.inner_text().strip()) > 10, key
    # the ruleset switcher marks the page shown
    assert page.get_attribute(f"#rules-link-{ruleset}", "aria-current") == "page"
    assert page.get_attribute("a[aria-current='page']", "href") == f"#/rules/{ruleset}"


def _text(page: Any, selector: str) -> str:
    """The text shown, with the page's no-break spaces (which keep "10 + 5" on one line) as plain spaces."""
    return str(page.inner_text(selector)).replace("\u00a0", " ")


def _tips(page: Any, ruleset: str) -> dict[str, str]:
    return dict(page.evaluate(
        "async ([keys, rs]) => { const m = await import('/static/rules.js');"
        " await (await import('/static/rulesets.js')).rulesets();"
        " return keys.map((k) => [k, m.markerTip(k, rs)]); }", [MARKERS, ruleset]))


def _shoot(page: Any, name: str) -> None:
    page.wait_for_timeout(100)
    page.screenshot(path=str(OUT / f"rules-{name}.png"))
    page.evaluate("document.getElementById('rules-markers').scrollIntoView({block: 'start'})")
    page.wait_for_timeout(100)
    page.screenshot(path=str(OUT / f"rules-{name}-markers.png"))
    page.evaluate("window.scrollTo(0, 0)")


def test_rules_pages_english_arabic_and_switching(web_server: Any, context: Any) -> None:
    page = w.open_app(context, web_server.base, "#/rules/egyptian")
    _check_page(page, "en", "egyptian")
    scoring = page.locator("#rules-scoring").locator("xpath=..").inner_text().replace("\u00a0", " ")
    for fact in ("13 + estimate", "23 Under / 13 Over", "41 for eight", "11 or less"):
        assert fact in scoring, fact
    glossary = _text(page, "#rules-glossary")
    assert "Dash Call" in glossary and "Dash" in glossary
    # the Egyptian table shows no Dash Call, Double/Triple Risk or multiplier: greyed, with why
    assert page.locator("#rules-glossary .na dt[data-marker='dashcall']").count() == 1
    assert page.locator("#rules-glossary .na dt[data-marker='risk']").count() == 0
    tips = _tips(page, "egyptian")
    assert all(tips[k] for k in MARKERS), tips
    assert "±20" in tips["caller"] and "23 Under" in tips["dash"]
    assert _tips(page, "koutchina")["risk3"].startswith("Triple Risk")
    # the "On this page" buttons scroll to a heading
    page.click(".rules-toc button[data-target='rules-markers']")
    page.wait_for_function("document.getElementById('rules-markers').getBoundingClientRect().top < 200")
    page.evaluate("window.scrollTo(0, 0)")
    _shoot(page, "egyptian-desktop-en")

    # Arabic, through the header's visible button: the page is right to left, every heading and marker there
    page.click("#lang-toggle")
    page.wait_for_selector("html[lang='ar']")
    _check_page(page, "ar", "egyptian")
    assert page.inner_text("#lang-toggle") == "English"
    assert "سوبر كول" in _text(page, ".rules-page")
    tips_ar = _tips(page, "egyptian")
    assert all(tips_ar[k] for k in MARKERS) and tips_ar != tips
    # a signed number is kept left to right inside the Arabic text (shown "-21", never "21-")
    assert f"\u2066{M}1 {M} 10 {M} 10 = {M}21\u2069" in _text(page, ".rules-page")
    assert page.evaluate(MINUS_LEFT_OF, f"{M}21"), "the minus of -21 is drawn right of its digits"
    _shoot(page, "egyptian-desktop-ar")

    # the ruleset links, as a person clicks them
    page.click("#rules-link-classic")
    page.wait_for_url("**#/rules/classic")
    _check_page(page, "ar", "classic")
    assert page.locator("#rules-glossary .na dt[data-marker='risk3']").count() == 1
    assert page.locator("#rules-glossary .na dt[data-marker='multiplier']").count() == 0
    page.click("#rules-link-koutchina")
    page.wait_for_url("**#/rules/koutchina")
    _check_page(page, "ar", "koutchina")
    assert page.locator("#rules-glossary .na").count() == 0

    # back to English in place: the page redraws in the new language on the same ruleset
    page.click("#lang-toggle")
    page.wait_for_selector("html[lang='en']")
    _check_page(page, "en", "koutchina")
    assert "+25 Over / +33 Under" in _text(page, ".rules-page")
    page.click("#rules-link-classic")
    _check_page(page, "en", "classic")
    assert f"With Double Risk 40 / {M}30" in _text(page, ".rules-page")
    _shoot(page, "classic-desktop-en")

    # an unknown ruleset falls back to the default one
    page.goto(f"{web_server.base}/#/rules/nonsense")
    _check_page(page, "en", "koutchina")
    assert page.js_errors == []


def test_rules_page_on_a_phone(web_server: Any, browser: Any) -> None:
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, reduced_motion="no-preference")
    ctx.set_default_timeout(20_000)
    try:
        page = w.open_app(ctx, web_server.base, "#/rules/egyptian")
        _check_page(page, "en", "egyptian")
        # nothing wider than the screen but the tables, which scroll inside their own box
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        _shoot(page, "egyptian-phone-en")
        page.click("#lang-toggle")
        page.wait_for_selector("html[dir='rtl']")
        _check_page(page, "ar", "egyptian")
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        _shoot(page, "egyptian-phone-ar")
        page.click("#rules-link-koutchina")
        _check_page(page, "ar", "koutchina")
        _shoot(page, "koutchina-phone-ar")
        assert page.js_errors == []
    finally:
        ctx.close()
