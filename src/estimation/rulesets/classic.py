"""The `classic` ruleset (seed 003, RULES.md classic rulings).

Same declarations as `koutchina`, so only the lengths, the Risk levels and the additive category scoring
differ: made = estimate + win value, missed = -diff + loss value, each category adding its own values.
"""

from __future__ import annotations

from typing import ClassVar

from ..scoring import RoundFacts, SeatScore, seat_lines
from .base import RoundSpec
from .koutchina import Koutchina, call_rounds, caller_role, fixed_rounds

DECLARER_SUPER = 8


class Classic(Koutchina):
    name: ClassVar[str] = "classic"
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
