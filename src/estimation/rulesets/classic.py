"""The `classic` ruleset (seed 003, RULES.md classic rulings).

Same declarations as `koutchina`, so only the lengths, the Risk levels and the additive category scoring
differ: made = estimate + win value, missed = -diff + loss value, each category adding its own values.
"""

# ruff: noqa: RUF001  (the marker tips are texts for people: the minus sign, en dash and times sign are meant)

from __future__ import annotations

from typing import ClassVar, Final

from ..scoring import RoundFacts, SeatScore, seat_lines
from .base import RoundSpec
from .koutchina import Koutchina, call_rounds, caller_role, fixed_rounds

DECLARER_SUPER = 8
#: The marker tooltips that differ from koutchina's (``Classic.marker_tips``).
_OWN_TIPS: Final = {
    "en": {
        "caller": "Caller (Declarer): won the auction (or the highest fixed-round estimate) and leads; "
            "+20 / −10, +40 / −20 on 8 or more.",
        "with": "With: estimated the Caller's number; +20 / −10 like the Caller.",
        "dashcall": "Dash Call: promised no trick; 33 if none, −23 otherwise.",
        "dash": "Dash: an estimate of 0; 10 with no trick (+10 more Under), minus the tricks otherwise "
            "(−10 more Under).",
        "risk": "Risk: last estimator, total 2–3 away from 13; +10 / −10 on top.",
        "risk2": "Double Risk: last estimator, total 4 or more away from 13; +20 / −20 on top.",
        "risk3": "Classic stops at Double Risk.",
    },
    "ar": {
        "caller": "المزايد (المُعلِن): فاز بالمزايدة (أو أعلى توقّع في الجولة الثابتة) ويفتح اللعب؛ "
            "+20 / −10، و+40 / −20 على 8 أو أكثر.",
        "with": "مع: توقّع عدد المزايد؛ +20 / −10 مثل المزايد.",
        "dashcall": "داش كول: تعهّد ألا يأخذ ولا أكلة؛ 33 إن نجح، وإلا −23.",
        "dash": "داش: توقّع صفر؛ 10 بلا أكلات (و10 إضافية في «تحت»)، وإلا ناقص الأكلات (و10 أخرى في "
            "«تحت»).",
        "risk": "مخاطرة (ريسك): آخر من توقّع، والمجموع يبعد 2 أو 3 عن 13؛ +10 / −10 إضافية.",
        "risk2": "مخاطرة مضاعفة (دبل ريسك): آخر من توقّع، والمجموع يبعد 4 أو أكثر عن 13؛ +20 / −20 "
            "إضافية.",
        "risk3": "لا مخاطرة ثلاثية في الكلاسيكية: أعلاها المخاطرة المضاعفة.",
    },
}


class Classic(Koutchina):
    name: ClassVar[str] = "classic"
    display_names: ClassVar[dict[str, str]] = {"en": "Classic", "ar": "الكلاسيكية"}
    #: Koutchina's, but for the Caller, With, the Dash Call, the Dash and the Risk levels (they score
    #: otherwise here).
    marker_tips: ClassVar[dict[str, dict[str, str]]] = {
        lang: {**tips, **_OWN_TIPS[lang]} for lang, tips in Koutchina.marker_tips.items()}
    lengths: ClassVar[dict[str, tuple[RoundSpec, ...]]] = {"full": call_rounds(13) + fixed_rounds()}
    default_length: ClassVar[str] = "full"
    risk_levels: ClassVar[int] = 2
    score_lines: ClassVar[dict[str, str]] = {
        "base": "Base", "caller_with": "C/W", "only": "Only", "risk": "Risk", "dash_call": "DCall",
        "dash": "Dash"}

    def risk_level(self, facts: RoundFacts) -> int:
        d = abs(facts.total - 13)
        return 0 if d <= 1 else 1 if d <= 3 else 2

    def score(self, facts: RoundFacts) -> tuple[SeatScore, ...]:
        level = self.risk_level(facts)
        under = facts.total < 13
        out = []
        for seat, est, tricks, made, only, last, sign, diff in seat_lines(facts):
            if seat in facts.dash_calls:
                out.append(SeatScore(seat, "dashcall", est, tricks, made, only=only,
                                     dash_call=33 if made else -23, multiplier=facts.multiplier))
                continue
            role = caller_role(facts, seat)
            # Regular 10/0 is the base; Declarer/With adds 10/-10 (Declarer on 8+ adds 30/-20).
            if role == "caller" and est >= DECLARER_SUPER:
                caller_with = 30 if made else -20
            elif role in ("caller", "with"):
                caller_with = sign * 10
            else:
                caller_with = 0
            out.append(SeatScore(
                seat, role, est, tricks, made,
                base=est + 10 if made else -diff,
                caller_with=caller_with,
                only=only,
                risk=sign * 10 * level if last else 0,
                dash=sign * 10 if role == "dash" and under else 0,
                multiplier=facts.multiplier,
            ))
        return tuple(out)
