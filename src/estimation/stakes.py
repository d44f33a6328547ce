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


def split_pot_by_side(stake: int, stakers: Iterable[int], side_places: Sequence[int],
                      leavers: Iterable[int] = ()) -> dict[int, int]:
    """Coins paid to each staking seat of a partnership game (RULES.md, Partnerships).

    ``side_places``: the two sides' places (seats 0+2, then 1+3; 1 or 2, level sides both 1, a leaver's
    side 2nd in egyptian). The pot goes to the stakers who stayed, of the best-placed side that has one:
    the winning side's stakers share it evenly, sides level at the top share it among all their stakers
    (and so do the other side's stakers when every staker of the winners left). Shares are the floor of an
    even split; the coins left over go to the lowest seat number among those sharing. A staker who leaves
    takes nothing; one staker in all is refunded; if every staker left, each gets their own stake back.
    Coins are never created or lost.

    >>> split_pot_by_side(5, [0, 1, 2], [1, 2])  # seats 0 and 2 won: the pot of 15 split 8 / 7
    {0: 8, 1: 0, 2: 7}
    """
    seats = sorted(set(stakers))
    if stake < 0:
        raise ValueError("a stake is not negative")
    gone = set(leavers)
    if not gone <= set(seats):
        raise ValueError("only a staker can forfeit a stake")
    if len(side_places) != 2 or any(p not in (1, 2) for p in side_places):
        raise ValueError("side places are two places, 1 or 2")
    pot = stake * len(seats)
    stayed = [s for s in seats if s not in gone]
    if len(seats) <= 1 or not stayed:
        return {s: stake for s in seats}  # nobody to play against, or nobody stayed: stakes back
    best = min(side_places[s & 1] for s in stayed)
    sharing = [s for s in stayed if side_places[s & 1] == best]
    paid = {s: 0 for s in seats}
    for s in sharing:
        paid[s] = pot // len(sharing)
    paid[sharing[0]] += pot - sum(paid.values())  # the lowest seat number (``sharing`` is sorted)
    return paid
