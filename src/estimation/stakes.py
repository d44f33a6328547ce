"""The pot split of RULES.md koutchina ruling 11, in whole coins.

Only humans who staked share the pot, ranked among themselves; a staker who left is placed last among the
stakers (several leavers are ranked among themselves by total, below everyone who stayed).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final

#: Percent per place, by the number of stakers; the last staker's place pays nothing.
SHARES: Final = {2: (100, 0), 3: (70, 30, 0), 4: (60, 30, 10, 0)}


def split_pot(stake: int, stakers: Iterable[int], totals: Sequence[int],
              leavers: Iterable[int] = ()) -> dict[int, int]:
    """Coins paid to each staking seat. The pot is ``stake`` times the number of stakers.

    >>> split_pot(7, [0, 1, 2, 3], [50, 20, 10, -5])  # pot 28 at 60/30/10
    {0: 18, 1: 8, 2: 2, 3: 0}
    """
    seats = sorted(set(stakers))
    if stake < 0:
        raise ValueError("a stake is not negative")
    gone = set(leavers)
    if not gone <= set(seats):
        raise ValueError("only a staker can forfeit a stake")
    pot = stake * len(seats)
    if len(seats) == 0:
        return {}
    if len(seats) == 1:
        return {seats[0]: pot}
    # Rank: stayers by total, then leavers by total; ties share the place (competition ranking).
    def key(s: int) -> tuple[int, int]:
        return (1 if s in gone else 0, -totals[s])

    ordered = sorted(seats, key=lambda s: (key(s), s))
    shares = SHARES[len(seats)]
    paid: dict[int, int] = {}
    i = 0
    while i < len(ordered):
        j = i
        while j + 1 < len(ordered) and key(ordered[j + 1]) == key(ordered[i]):
            j += 1
        group = ordered[i:j + 1]
        # The floor of the group's combined share (docs/rules.md ruling (h)), then split evenly.
        combined = pot * sum(shares[i:j + 1]) // 100
        for s in group:
            paid[s] = combined // len(group)
        i = j + 1
    best = ordered[0]  # best placed; among tied best, the lowest seat (sorted by seat within a key)
    paid[best] += pot - sum(paid.values())
    return {s: paid[s] for s in seats}
