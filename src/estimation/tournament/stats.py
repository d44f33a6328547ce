"""The duplicate statistics: paired differences per deal-round, make rates, Dash Calls, decision times.

The unit of the paired difference is a round of one game (one set of deals): the candidate's score in seat
s with three opponents, minus the opponent's own score in seat s when four opponents played the same
deals, averaged over the four seats the candidate rotated through. Rounds of different deals are close
to independent, so the 95% interval is the normal interval of the mean over rounds.

In a partnership tournament the candidate holds a side: the difference is the side's score (its two seats'
together) minus the opponents' same side's score on the same deals, averaged over the two sides.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from .lineup import GameResult, candidate_seats


@dataclass(slots=True)
class Interval:
    mean: float
    low: float
    high: float
    n: int

    @classmethod
    def of(cls, values: Sequence[float]) -> Interval:
        n = len(values)
        if n == 0:
            return cls(math.nan, math.nan, math.nan, 0)
        mean = sum(values) / n
        if n == 1:
            return cls(mean, math.nan, math.nan, 1)
        var = sum((v - mean) ** 2 for v in values) / (n - 1)
        half = 1.96 * math.sqrt(var / n)
        return cls(mean, mean - half, mean + half, n)

    def __str__(self) -> str:
        return f"{self.mean:+.2f} [{self.low:+.2f}, {self.high:+.2f}]"


def percentile(values: Sequence[float], q: float) -> float:
    if not values:
        return math.nan
    ordered = sorted(values)
    k = min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))
    return ordered[k]


@dataclass(slots=True)
class LevelSummary:
    level: str
    mean: float  # mean score per seat-round in the rotated seats
    diff: Interval  # vs the opponent in the same seats (baseline games)
    make_rate: float
    dash_calls: int
    dash_made: int
    p50: float
    p95: float
    max_time: float
    decisions: int
    scores: list[int]


def seat_scores(results: Sequence[GameResult]) -> dict[tuple[int, int, int], int]:
    """(game index, round index, seat) -> the score of the seat the line-up's candidate sat in; in a
    partnership tournament (game index, round index, side) -> the side's score."""
    out: dict[tuple[int, int, int], int] = {}
    for r in results:
        if r.partners:
            sides = range(2) if r.seat is None else (r.seat,)
            for i, row in enumerate(r.scores):
                for side in sides:
                    out[(r.index, i, side)] = row[side] + row[side + 2]
            continue
        seats = range(4) if r.seat is None else (r.seat,)
        for i, row in enumerate(r.scores):
            for s in seats:
                out[(r.index, i, s)] = row[s]
    return out


def paired(a: dict[tuple[int, int, int], int], b: dict[tuple[int, int, int], int]) -> Interval:
    """Per (game, round): the mean over seats of a - b; the interval of their mean."""
    per_round: dict[tuple[int, int], list[int]] = {}
    for key, value in a.items():
        if key in b:
            per_round.setdefault(key[:2], []).append(value - b[key])
    return Interval.of([sum(v) / len(v) for v in per_round.values()])


def summarise(level: str, results: Sequence[GameResult], baseline: Sequence[GameResult]) -> LevelSummary:
    mine = seat_scores(results)
    base = seat_scores(baseline)
    made = 0
    total = 0
    dash = 0
    dash_made = 0
    times: list[float] = []
    for r in results:
        seat = r.seat
        times.extend(r.times)
        for i, row in enumerate(r.made):
            s = range(4) if seat is None else candidate_seats(seat, r.partners)
            for x in s:
                total += 1
                made += row[x]
                if x in r.dash_calls[i]:
                    dash += 1
                    dash_made += row[x]
    scores = list(mine.values())
    return LevelSummary(
        level=level,
        mean=sum(scores) / len(scores) if scores else math.nan,
        diff=paired(mine, base) if results and results[0].seat is not None else Interval.of([]),
        make_rate=made / total if total else math.nan,
        dash_calls=dash,
        dash_made=dash_made,
        p50=percentile(times, 0.5),
        p95=percentile(times, 0.95),
        max_time=max(times) if times else math.nan,
        decisions=len(times),
        scores=scores,
    )
