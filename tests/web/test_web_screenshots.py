"""Screenshots for docs/client.md: the lobby, the auction (the call panel of seed 002: a number picked, the
suits it allows), a trick and a round end, desktop and phone, English and Arabic, from a koutchina mini game.

Written to $ESTIMATION_SCREENSHOTS when set (the committed ones: ESTIMATION_SCREENSHOTS=docs/screenshots),
else to a temporary folder, so a test run leaves the working tree alone. The language is switched with the
page's own button, and the Arabic page must be right-to-left.
"""

from __future__ import annotations

import io
import os
from pathlib import Path
from typing import Any

import web_helpers as w

ROOT = Path(__file__).resolve().parents[2]
SIZES = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}


def _save(png: bytes, path: Path) -> None:
    """Kept small for the repository: 128 colours (Pillow comes with the test extra's matplotlib)."""
    from PIL import Image

    with Image.open(io.BytesIO(png)) as image:
        image.convert("RGB").quantize(colors=128).save(path, optimize=True)


def _shoot(page: Any, name: str, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for lang in ("en", "ar"):
        if page.get_attribute("html", "lang") != lang:
            page.click("#lang-toggle")
            page.wait_for_selector(f"html[lang='{lang}']")
        assert page.get_attribute("html", "dir") == ("rtl" if lang == "ar" else "ltr")
        for size, viewport in SIZES.items():
            page.set_viewport_size(viewport)
            page.wait_for_timeout(150)
            _save(page.screenshot(), out / f"{name}-{size}-{lang}.png")
    page.click("#lang-toggle")
    page.wait_for_selector("html[lang='en']")
    page.set_viewport_size(SIZES["desktop"])


def _arabic_numbers_read_left_to_right(page: Any) -> None:
    """What the round-end screenshot shows in Arabic: each signed number sign first, the next round's
    multiplier (after this seed's Sa'aydeh) sign first."""
    w.to_arabic(page)
    page.wait_for_selector("#round-end[open] table.breakdown")
    found = w.signs(page, "#round-end")
    assert found and all(ok for _, ok in found), found
    if page.locator("#round-end .saaydeh").count():
        times, digit = page.evaluate(w.TIMES_AND_DIGIT, "#round-end .saaydeh")
        assert times < digit, (page.inner_text("#round-end .saaydeh"), times, digit)
    page.click("#lang-toggle")
    page.wait_for_selector("html[lang='en']")


def test_screenshots(context: Any, web_server: Any, tmp_path: Path) -> None:
    target = os.environ.get("ESTIMATION_SCREENSHOTS")
    out = ROOT / target if target else tmp_path
    page = w.open_app(context, web_server.base)
    w.sign_in_guest(page, "Layla")
    page.wait_for_selector("#balance, .wallet h2")
    _shoot(page, "lobby", out)
    w.create_table(page, bots=3, length="mini")
    shot_trick = shot_auction = False
    while True:
        w.settle(page)
        if page.locator("#round-end[open]").count():
            _shoot(page, "round-end", out)
            _arabic_numbers_read_left_to_right(page)
            break
        if page.locator("#dash-panel").count():
            page.click("#nodash-btn")
            continue
        if page.locator("#bid-panel").count():
            if not shot_auction:
                numbers = page.locator("#bid-panel button.num:not([disabled])")
                numbers.nth(min(3, numbers.count() - 1)).click()  # a number picked: its suits light up
                _shoot(page, "auction", out)
                w.settle(page)
                shot_auction = True
            page.click("#pass-btn")
            continue
        legal = page.locator(".hand button.card.legal")
        if legal.count():
            if not shot_trick and len(w.trick(page)) >= 2:
                _shoot(page, "trick", out)
                w.settle(page)
                shot_trick = True
            page.locator(".hand button.card.legal").first.click()
        elif page.locator(w.ACTIONABLE).count():
            page.locator(w.ACTIONABLE).first.click()
        else:
            page.wait_for_timeout(30)
    assert shot_trick and shot_auction
    assert len(list(out.glob("*.png"))) >= 16
    assert not page.js_errors, page.js_errors
