"""Standings (RULES.md, Competitions; RECORD.md ``standings``): by percentage, compared exactly.

Percentages are compared as fractions (1/3 and 2/6 tie; 33.33% rounded would not tell 1/3 from
3333/10000), and the rounded ``percent`` is only for showing: ``100 * mp / top`` to 2 decimals, halves
rounded up, 0 when the top is 0 (an entrant with no board that counted).
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction

from .types import StandingRow


def fraction(mp: int, top: int) -> Fraction:
    """MP / top exactly; 0 when the top is 0."""
    return Fraction(mp, top) if top else Fraction(0)


def percent(mp: int, top: int) -> float:
    """``100 * mp / top`` rounded to 2 decimals (halves up, from the exact fraction), 0 when top is 0."""
    if not top:
        return 0.0
    cents = (20000 * mp + top) // (2 * top)  # floor(10000 * mp / top + 1/2), in integers
    return cents / 100


def standings(totals: Mapping[int, tuple[int, int]]) -> list[StandingRow]:
    """One row per entrant, best first; equal fractions share the best place (1, 2, 2, 4), and within a
    place entrants are listed by id."""
    exact = {e: fraction(*totals[e]) for e in totals}
    order = sorted(totals, key=lambda e: (-exact[e], e))
    rows: list[StandingRow] = []
    for i, e in enumerate(order):
        mp, top = totals[e]
        place = i + 1
        if i and exact[e] == exact[order[i - 1]]:
            place = rows[-1]["place"]
        rows.append({"entrant": e, "mp": mp, "top": top, "percent": percent(mp, top), "place": place})
    return rows


def ranking(rows: list[StandingRow]) -> list[int]:
    """The entrant ids in standing order: what :func:`~estimation.competition.swiss.next_stage` takes."""
    return [r["entrant"] for r in rows]
