"""Standings (RULES.md, Competitions; RECORD.md ``standings``): by percentage, compared exactly.

Percentages are compared as fractions (1/3 and 2/6 tie; 33.33% rounded would not tell 1/3 from
3333/10000), and the rounded ``percent`` is only for showing: ``100 * mp / top`` to 2 decimals, halves
rounded up, 0 when the top is 0 (an entrant with no board that counted).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
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


#: Tops below this keep :func:`_share`'s float exact (see there); a larger one falls back to fractions.
_EXACT_FLOAT_TOP = 1 << 26


def _share(mp: int, top: int) -> float:
    """``mp / top`` as a float (0 when the top is 0), which orders and ties exactly as :func:`fraction`
    when 0 <= mp <= top < 2**26 (an entrant's MP never exceed its top).

    Why it is exact: IEEE division is correctly rounded, so equal fractions give the same float; and two
    different fractions a/b < c/d in [0, 1] differ by at least 1/(bd) > 2**-52, while rounding moves each
    by at most 2**-54, so their floats keep their order. Why a float: a live refresh sorts the whole field
    (10,000 entrants in a robot competition), and Fraction's construction and comparisons were a quarter
    of a refresh's time (docs/performance.md, Competitions at scale)."""
    return mp / top if top else 0.0


def standings(totals: Mapping[int, tuple[int, int]]) -> list[StandingRow]:
    """One row per entrant, best first; equal fractions share the best place (1, 2, 2, 4), and within a
    place entrants are listed by id."""
    share: Callable[[int, int], float | Fraction]
    share = _share if all(0 <= mp <= top < _EXACT_FLOAT_TOP for mp, top in totals.values()) else fraction
    order = sorted((-share(mp, top), e, mp, top) for e, (mp, top) in totals.items())
    rows: list[StandingRow] = []
    place, last = 0, None
    for i, (key, e, mp, top) in enumerate(order, start=1):
        if key != last:
            place, last = i, key
        rows.append({"entrant": e, "mp": mp, "top": top, "percent": percent(mp, top), "place": place})
    return rows


def ranking(rows: list[StandingRow]) -> list[int]:
    """The entrant ids in standing order: what :func:`~estimation.competition.swiss.next_stage` takes."""
    return [r["entrant"] for r in rows]
