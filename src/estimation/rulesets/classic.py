"""The `classic` ruleset (seed 003, RULES.md classic rulings).

Same declarations as `koutchina`, so only the lengths, the Risk levels and the additive category scoring
differ: made = estimate + win value, missed = -diff + loss value, each category adding its own values.
"""

from __future__ import annotations

from typing import ClassVar

from ..scoring import RoundFacts, SeatScore, census
from .base import RoundSpec
from .koutchina import Koutchina, call_rounds, fixed_rounds

DECLARER_SUPER = 8


class Classic(Koutchina):
    name: ClassVar[str] = "classic"
    lengths: ClassVar[dict[str, tuple[RoundSpec, ...]]] = {"full": call_rounds(13) + fixed_rounds()}
    default_length: ClassVar[str] = "full"

    def risk_level(self, facts: RoundFacts) -> int:
        d = abs(facts.total - 13)
        return 0 if d <= 1 else 1 if d <= 3 else 2

    def score(self, facts: RoundFacts) -> tuple[SeatScore, ...]:
        only_maker, only_misser = census(facts)
        level = self.risk_level(facts)
        last = facts.last_estimator
        under = facts.total < 13
        out = []
        for seat in range(4):
            est, tricks = facts.estimates[seat], facts.tricks[seat]
            made = est == tricks
            sign = 1 if made else -1
            only = 10 if seat == only_maker else -10 if seat == only_misser else 0
            if seat in facts.dash_calls:
                out.append(SeatScore(seat, "dashcall", est, tricks, made, only=only,
                                     dash_call=33 if made else -23, multiplier=facts.multiplier))
                continue
            is_caller = seat == facts.caller
            role = "caller" if is_caller else "with" if seat in facts.with_seats else (
                "dash" if est == 0 else "regular")
            # Regular 10/0 is the base; Declarer/With adds 10/-10 (Declarer on 8+ adds 30/-20).
            if role == "caller" and est >= DECLARER_SUPER:
                caller_with = 30 if made else -20
            elif role in ("caller", "with"):
                caller_with = sign * 10
            else:
                caller_with = 0
            dash_under = sign * 10 if role == "dash" and under else 0
            out.append(SeatScore(
                seat, role, est, tricks, made,
                base=est + 10 if made else -abs(tricks - est),
                caller_with=caller_with,
                only=only,
                risk=sign * 10 * level if seat == last else 0,
                dash=dash_under,
                multiplier=facts.multiplier,
            ))
        return tuple(out)
